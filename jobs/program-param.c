/*
 * An entry of a program file's params: (docs/jobs.md, "Adapter files"):
 * its name, its type with a word's choices and an integer's bounds, why
 * a job must give it (required:), and a default of its type or an
 * expression over the parameters declared before it.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job-param.h"
#include "jobs/program-internal.h"
#include "util/xalloc.h"

static const char *const program_type_names[] = {
	[PROGRAM_COUNT] = "count",
	[PROGRAM_SIZE] = "size",
	[PROGRAM_DURATION] = "duration",
	[PROGRAM_INTEGER] = "integer",
	[PROGRAM_WORD] = "word",
	[PROGRAM_STRING] = "string",
	[PROGRAM_FILE] = "file",
};


/* A word's choices:: there for a word, and only for a word. */
static int
program_param_choices(struct program_parser *pp, const struct yamlnode *key,
    const struct yamlnode *decl, struct program_param *pa)
{
	const struct yamlnode	*v;
	size_t			 i;

	if ((v = program_get(decl, "choices")) == NULL) {
		if (pa->type == PROGRAM_WORD)
			return yamlnode_error(pp->cause, pp->file, decl,
			    "parameter '%s' is a word without 'choices'",
			    key->value);
		return 0;
	}
	if (pa->type != PROGRAM_WORD || v->type != YAMLNODE_SEQUENCE ||
	    v->nr == 0)
		return yamlnode_error(pp->cause, pp->file, v,
		    "parameter '%s': 'choices' is a non-empty list, "
		    "for a word", key->value);
	pa->choices = xcalloc(v->nr, sizeof *pa->choices);
	for (i = 0; i < v->nr; i++) {
		if (v->items[i]->type != YAMLNODE_SCALAR || v->items[i]->null)
			return yamlnode_error(pp->cause, pp->file,
			    v->items[i], "parameter '%s': a choice is "
			    "a scalar", key->value);
		pa->choices[pa->nr_choices++] = xstrdup(v->items[i]->value);
	}
	return 0;
}

/* An integer's min: and max:. */
static int
program_param_bounds(struct program_parser *pp, const struct yamlnode *key,
    const struct yamlnode *decl, struct program_param *pa)
{
	const struct yamlnode	*v;
	unsigned long long	 u;
	size_t			 i;
	int			 neg;

	for (i = 0; i < 2; i++) {
		if ((v = program_get(decl, i ? "max" : "min")) == NULL)
			continue;
		neg = v->type == YAMLNODE_SCALAR && v->value[0] == '-';
		if (pa->type != PROGRAM_INTEGER || v->type != YAMLNODE_SCALAR ||
		    job_param_uint(v->value + neg, strlen(v->value + neg),
		    LLONG_MAX, &u) != 0)
			return yamlnode_error(pp->cause, pp->file, v,
			    "parameter '%s': '%s' is an integer, for an "
			    "integer", key->value, i ? "max" : "min");
		if (i)
			pa->max = neg ? -(long long)u : (long long)u;
		else
			pa->min = neg ? -(long long)u : (long long)u;
	}
	return 0;
}

int
program_param_parse(struct program_parser *pp, const struct yamlnode *key,
    const struct yamlnode *decl)
{
	static const char *const known[] = {
		"type", "default", "choices", "min", "max", "description",
		"required", NULL
	};
	struct program_param	*pa;
	const struct yamlnode	*t, *v;
	char			*text = NULL, *what;
	double			 num;
	size_t			 i;

	if (!program_name_ok(key->value))
		return yamlnode_error(pp->cause, pp->file, key,
		    "parameter '%s': names are lowercase letters, digits and "
		    "'_', starting with a letter or '_'", key->value);
	if (program_is_builtin(key->value))
		return yamlnode_error(pp->cause, pp->file, key,
		    "parameter '%s' has the name of a built-in", key->value);
	what = xasprintf("parameter '%s'", key->value);
	i = program_keys(pp, decl, what, known);
	free(what);
	if (i != 0)
		return -1;
	pp->p->params = xreallocarray(pp->p->params, pp->p->nr_params + 1,
	    sizeof *pp->p->params);
	pa = &pp->p->params[pp->p->nr_params++];
	memset(pa, 0, sizeof *pa);
	pa->name = xstrdup(key->value);
	pa->min = LLONG_MIN;
	pa->max = LLONG_MAX;
	if ((t = program_get(decl, "type")) == NULL)
		return yamlnode_error(pp->cause, pp->file, decl,
		    "parameter '%s' has no 'type'", key->value);
	for (i = 0; i < sizeof program_type_names / sizeof
	    program_type_names[0]; i++) {
		if (t->type == YAMLNODE_SCALAR &&
		    strcmp(t->value, program_type_names[i]) == 0)
			break;
	}
	if (i == sizeof program_type_names / sizeof program_type_names[0])
		return yamlnode_error(pp->cause, pp->file, t,
		    "parameter '%s': 'type' must be count, size, duration, "
		    "integer, word, string or file", key->value);
	pa->type = (enum program_type)i;
	if (program_param_choices(pp, key, decl, pa) != 0 ||
	    program_param_bounds(pp, key, decl, pa) != 0)
		return -1;
	if ((v = program_get(decl, "required")) != NULL) {
		if (program_get(decl, "default") != NULL)
			return yamlnode_error(pp->cause, pp->file, v,
			    "parameter '%s': 'required' (why a job must give "
			    "it) is for a parameter without a default",
			    key->value);
		if (program_scalar(pp, v, "required", &pa->required) != 0)
			return -1;
	}
	if ((v = program_get(decl, "default")) == NULL)
		return 0;
	if (program_scalar(pp, v, "default", &pa->dflt) != 0)
		return -1;
	if (pa->dflt[0] == '=') {
		if (pa->type == PROGRAM_WORD || pa->type == PROGRAM_STRING ||
		    pa->type == PROGRAM_FILE)
			return yamlnode_error(pp->cause, pp->file, v,
			    "parameter '%s': an expression default is for "
			    "numbers", key->value);
		return program_expr(pp, v, pa->dflt + 1, pp->p->nr_params - 1,
		    &pa->dflt_expr);
	}
	if (program_value(pa, pa->dflt, 0, &num, &text, pp->cause) != 0)
		return program_error_at(pp, v);
	free(text);
	return 0;
}

