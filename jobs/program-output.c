/*
 * The output: section of a program file (docs/jobs.md, "Adapter files"):
 * where the output is read from, and its line patterns or its JSON
 * records and paths, which name the variables metrics compute from.
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/program-internal.h"
#include "util/xalloc.h"

int
program_output_parse(struct program_parser *pp, const struct yamlnode *n)
{
	static const char *const known[] = { "from", "lines", "json", NULL };
	static const char *const jknown[] = { "records", "vars", NULL };
	struct program		*p = pp->p;
	const struct yamlnode	*v, *lines, *json, *item, *m;
	size_t			 i;

	if (program_keys(pp, n, "output", known) != 0)
		return -1;
	if ((v = program_get(n, "from")) != NULL) {
		if (program_scalar(pp, v, "from", &p->from) != 0 ||
		    program_template(pp, v, p->from) != 0)
			return -1;
		if (strcmp(p->from, "stdout") == 0) {
			free(p->from);
			p->from = NULL;
		}
	}
	lines = program_get(n, "lines");
	json = program_get(n, "json");
	if ((lines == NULL) == (json == NULL))
		return yamlnode_error(pp->cause, pp->file, n,
		    "output needs 'lines' or 'json', not both");
	if (lines != NULL) {
		if (lines->type != YAMLNODE_SEQUENCE || lines->nr == 0)
			return yamlnode_error(pp->cause, pp->file, lines,
			    "'lines' is a non-empty list of patterns");
		p->lines = xcalloc(lines->nr, sizeof *p->lines);
		for (i = 0; i < lines->nr; i++) {
			item = lines->items[i];
			m = item;
			if (item->type == YAMLNODE_MAPPING) {
				static const char *const lk[] = {
					"match", "record", NULL
				};
				if (program_keys(pp, item, "a line", lk) != 0)
					return -1;
				if ((m = program_get(item, "match")) == NULL)
					return yamlnode_error(pp->cause,
					    pp->file, item, "a line needs "
					    "'match'");
			}
			if (m->type != YAMLNODE_SCALAR || m->null)
				return yamlnode_error(pp->cause, pp->file, m,
				    "a pattern is a scalar");
			if (program_line_compile(m->value, &p->lines[i],
			    pp->cause) != 0)
				return program_error_at(pp, m);
			p->nr_lines++;
			if (m != item && (v = program_get(item, "record")) !=
			    NULL) {
				if (v->type != YAMLNODE_SCALAR ||
				    (strcmp(v->value, "true") != 0 &&
				    strcmp(v->value, "false") != 0))
					return yamlnode_error(pp->cause,
					    pp->file, v, "'record' is true or "
					    "false");
				p->lines[i].record =
				    strcmp(v->value, "true") == 0;
			}
		}
		return 0;
	}
	if (program_keys(pp, json, "json", jknown) != 0)
		return -1;
	if ((v = program_get(json, "records")) == NULL ||
	    program_scalar(pp, v, "records", &p->json_records) != 0)
		return yamlnode_error(pp->cause, pp->file, json,
		    "json needs 'records', a path to an array");
	if ((v = program_get(json, "vars")) == NULL ||
	    v->type != YAMLNODE_MAPPING || v->nr == 0)
		return yamlnode_error(pp->cause, pp->file, json,
		    "json needs 'vars', a map of names to paths");
	p->json_vars = xcalloc(v->nr / 2, sizeof *p->json_vars);
	for (i = 0; i < v->nr; i += 2) {
		if (!program_name_ok(v->items[i]->value))
			return yamlnode_error(pp->cause, pp->file, v->items[i],
			    "'%s' is not a variable name", v->items[i]->value);
		p->json_vars[p->nr_json_vars].name =
		    xstrdup(v->items[i]->value);
		if (program_scalar(pp, v->items[i + 1], "a path",
		    &p->json_vars[p->nr_json_vars].path) != 0)
			return -1;
		p->nr_json_vars++;
	}
	return 0;
}

int
program_output_variable(const struct program *p, const char *name, int *word)
{
	size_t	i, j;

	for (i = 0; i < p->nr_lines; i++) {
		for (j = 0; j < p->lines[i].nr_names; j++) {
			if (strcmp(p->lines[i].names[j], name) == 0) {
				if (word != NULL)
					*word = p->lines[i].is_word[j];
				return 1;
			}
		}
	}
	for (i = 0; i < p->nr_json_vars; i++) {
		if (strcmp(p->json_vars[i].name, name) == 0) {
			if (word != NULL)
				*word = 0;
			return 1;
		}
	}
	return 0;
}

