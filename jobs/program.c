/*
 * Reading program files (docs/jobs.md, "Adapter files") into struct
 * program, with every check that can be made without running anything:
 * known keys only, typed parameters whose defaults have their type,
 * templates and conditions that name declared parameters, patterns that
 * compile, metrics whose expressions use captured variables. The
 * built-in files are compiled in (build/jobs/programs.c) and parsed once.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/expr.h"
#include "jobs/job-param.h"
#include "jobs/program-internal.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct program_source {
	const char	*path;
	const char	*text;
};

/* build/jobs/programs.c, written by tools/embed-programs.sh */
extern const struct program_source program_sources[];
extern const size_t nr_program_sources;

static const char *const program_builtins[] = {
	"workdir", "resultdir", "nr_cpu", "memory", "self", NULL
};

int
program_is_builtin(const char *name)
{
	size_t	i;

	for (i = 0; program_builtins[i] != NULL; i++) {
		if (strcmp(program_builtins[i], name) == 0)
			return 1;
	}
	return 0;
}

static void
program_arg_release(struct program_arg *a)
{
	size_t	i;

	free(a->text);
	free(a->value);
	for (i = 0; i < a->nr_then; i++)
		program_arg_release(&a->then[i]);
	free(a->then);
	for (i = 0; i < a->nr_otherwise; i++)
		program_arg_release(&a->otherwise[i]);
	free(a->otherwise);
}

void
program_free(struct program *p)
{
	size_t	i, j;

	if (p == NULL)
		return;
	free(p->name);
	free(p->package);
	free(p->description);
	for (i = 0; i < p->nr_programs; i++)
		free(p->programs[i]);
	free(p->programs);
	for (i = 0; i < p->nr_params; i++) {
		free(p->params[i].name);
		free(p->params[i].dflt);
		free(p->params[i].required);
		expr_free(p->params[i].dflt_expr);
		for (j = 0; j < p->params[i].nr_choices; j++)
			free(p->params[i].choices[j]);
		free(p->params[i].choices);
	}
	free(p->params);
	for (i = 0; i < p->nr_mkdir; i++)
		free(p->mkdir[i]);
	free(p->mkdir);
	free(p->repeat);
	free(p->repeat_for);
	for (i = 0; i < p->nr_steps; i++) {
		for (j = 0; j < p->steps[i].nr_argv; j++)
			program_arg_release(&p->steps[i].argv[j]);
		free(p->steps[i].argv);
	}
	free(p->steps);
	for (i = 0; i < p->nr_argv; i++)
		program_arg_release(&p->argv[i]);
	free(p->argv);
	free(p->from);
	for (i = 0; i < p->nr_lines; i++)
		program_line_release(&p->lines[i]);
	free(p->lines);
	free(p->json_records);
	for (i = 0; i < p->nr_json_vars; i++) {
		free(p->json_vars[i].name);
		free(p->json_vars[i].path);
	}
	free(p->json_vars);
	for (i = 0; i < p->nr_metrics; i++) {
		free(p->metrics[i].name);
		free(p->metrics[i].group);
		expr_free(p->metrics[i].value);
		expr_free(p->metrics[i].instances);
		free((char *)p->metrics[i].info.pattern);
	}
	free(p->metrics);
	free(p);
}

int
program_covers(const struct program *p, const char *name)
{
	size_t	i;

	for (i = 0; i < p->nr_programs; i++) {
		if (strcmp(p->programs[i], name) == 0)
			return 1;
	}
	return 0;
}

const struct program_param *
program_param(const struct program *p, const char *name)
{
	size_t	i;

	for (i = 0; i < p->nr_params; i++) {
		if (strcmp(p->params[i].name, name) == 0)
			return &p->params[i];
	}
	return NULL;
}

int
program_error_at(struct program_parser *pp, const struct yamlnode *n)
{
	char	*sub = *pp->cause;

	*pp->cause = NULL;
	yamlnode_error(pp->cause, pp->file, n, "%s", sub);
	free(sub);
	return -1;
}

const struct yamlnode *
program_get(const struct yamlnode *map, const char *key)
{
	size_t	i;

	for (i = 0; map != NULL && i < map->nr; i += 2) {
		if (strcmp(map->items[i]->value, key) == 0)
			return map->items[i + 1];
	}
	return NULL;
}

int
program_keys(struct program_parser *pp, const struct yamlnode *map,
    const char *what, const char *const *known)
{
	struct strbuf	sb = STRBUF_INIT;
	size_t		i, j;

	if (map->type != YAMLNODE_MAPPING)
		return yamlnode_error(pp->cause, pp->file, map,
		    "%s must be a map, not %s", what, yamlnode_kind(map));
	for (i = 0; i < map->nr; i += 2) {
		for (j = 0; known[j] != NULL; j++) {
			if (strcmp(map->items[i]->value, known[j]) == 0)
				break;
		}
		if (known[j] != NULL)
			continue;
		for (j = 0; known[j] != NULL; j++)
			strbuf_addf(&sb, "%s%s", j ? ", " : "", known[j]);
		yamlnode_error(pp->cause, pp->file, map->items[i],
		    "unknown key '%s' in %s (known: %s)",
		    map->items[i]->value, what, sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	return 0;
}

int
program_scalar(struct program_parser *pp, const struct yamlnode *n,
    const char *what, char **out)
{
	if (n->type != YAMLNODE_SCALAR || n->null)
		return yamlnode_error(pp->cause, pp->file, n,
		    "'%s' must be a non-empty scalar, not %s", what,
		    n->type == YAMLNODE_SCALAR ? "empty" : yamlnode_kind(n));
	free(*out);
	*out = xstrdup(n->value);
	return 0;
}

int
program_name_ok(const char *s)
{
	if (!(islower((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s != '\0'; s++) {
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) ||
		    *s == '_'))
			return 0;
	}
	return 1;
}

static int
program_names_param(void *payload, const char *name)
{
	struct program_names	*pn = payload;
	size_t			 i;

	if (program_is_builtin(name) && strcmp(name, "workdir") != 0 &&
	    strcmp(name, "resultdir") != 0 && strcmp(name, "self") != 0)
		return 0;
	for (i = 0; i < pn->before; i++) {
		if (strcmp(pn->p->params[i].name, name) == 0)
			return 0;
	}
	pn->bad = name;
	return 1;
}

int
program_expr(struct program_parser *pp, const struct yamlnode *n,
    const char *text, size_t before, struct expr **out)
{
	struct program_names	pn = { pp->p, before, NULL };

	if (expr_parse(text, out, pp->cause) != 0)
		return program_error_at(pp, n);
	if (expr_has_aggregate(*out)) {
		error_set(pp->cause, "'%s': aggregates are for metrics", text);
		return program_error_at(pp, n);
	}
	if (expr_each_name(*out, program_names_param, &pn) != 0) {
		error_set(pp->cause, "'%s' uses '%s', which is not a number "
		    "parameter declared before nor nr_cpu or memory", text,
		    pn.bad);
		return program_error_at(pp, n);
	}
	return 0;
}

int
program_template(struct program_parser *pp, const struct yamlnode *n,
    const char *text)
{
	const char	*p, *close;
	struct expr	*e = NULL;
	char		*inner;
	int		 r;

	for (p = text; *p != '\0'; p++) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' &&
		    p[1] == '}')) {
			p++;
			continue;
		}
		if (*p == '}')
			return yamlnode_error(pp->cause, pp->file, n,
			    "template '%s': a '}' without '{' (write '}}')",
			    text);
		if (*p != '{')
			continue;
		if ((close = strchr(p, '}')) == NULL)
			return yamlnode_error(pp->cause, pp->file, n,
			    "template '%s': a '{' without '}' (write '{{')",
			    text);
		inner = xstrndup(p + 1, (size_t)(close - p - 1));
		if (inner[0] == '=') {
			r = program_expr(pp, n, inner + 1, pp->p->nr_params,
			    &e);
			expr_free(e);
			e = NULL;
		} else if (program_is_builtin(inner) ||
		    program_param(pp->p, inner) != NULL)
			r = 0;
		else
			r = yamlnode_error(pp->cause, pp->file, n,
			    "template '%s' uses '{%s}', which is neither a "
			    "parameter of '%s' nor a built-in", text, inner,
			    pp->p->name);
		free(inner);
		if (r != 0)
			return -1;
		p = close;
	}
	return 0;
}

static int
program_parse_args(struct program_parser *pp, const struct yamlnode *seq,
    struct program_arg **out, size_t *nr);

static int
program_parse_arg(struct program_parser *pp, const struct yamlnode *n,
    struct program_arg *a)
{
	static const char *const known[] = { "if", "then", "else", NULL };
	const struct yamlnode	*c, *v;
	const char		*eq;
	int			 ne;

	memset(a, 0, sizeof *a);
	if (n->type == YAMLNODE_SCALAR) {
		if (program_scalar(pp, n, "argv", &a->text) != 0)
			return -1;
		return program_template(pp, n, a->text);
	}
	if (n->type != YAMLNODE_MAPPING)
		return yamlnode_error(pp->cause, pp->file, n,
		    "an argv element is a template or {if, then, else}, not "
		    "%s", yamlnode_kind(n));
	if (program_keys(pp, n, "an argv condition", known) != 0)
		return -1;
	if ((c = program_get(n, "if")) == NULL ||
	    program_get(n, "then") == NULL)
		return yamlnode_error(pp->cause, pp->file, n,
		    "an argv condition needs 'if' and 'then'");
	if (program_scalar(pp, c, "if", &a->text) != 0)
		return -1;
	a->cond = PROGRAM_ARG_SET;
	if ((eq = strchr(a->text, '=')) != NULL) {
		ne = eq > a->text && eq[-1] == '!';
		a->cond = ne ? PROGRAM_ARG_NE : PROGRAM_ARG_EQ;
		a->value = xstrdup(eq + 1);
		a->text[eq - a->text - ne] = '\0';
	}
	if (program_param(pp->p, a->text) == NULL)
		return yamlnode_error(pp->cause, pp->file, c,
		    "condition '%s': '%s' is not a parameter of '%s'",
		    c->value, a->text, pp->p->name);
	if (program_parse_args(pp, program_get(n, "then"), &a->then,
	    &a->nr_then) != 0)
		return -1;
	if ((v = program_get(n, "else")) != NULL &&
	    program_parse_args(pp, v, &a->otherwise, &a->nr_otherwise) != 0)
		return -1;
	return 0;
}

static int
program_parse_args(struct program_parser *pp, const struct yamlnode *seq,
    struct program_arg **out, size_t *nr)
{
	size_t	i;

	if (seq->type != YAMLNODE_SEQUENCE)
		return yamlnode_error(pp->cause, pp->file, seq,
		    "argv must be a list, not %s", yamlnode_kind(seq));
	*out = xcalloc(seq->nr + 1, sizeof **out);
	for (i = 0; i < seq->nr; i++) {
		if (program_parse_arg(pp, seq->items[i], &(*out)[i]) != 0) {
			*nr = i + 1;
			return -1;
		}
	}
	*nr = seq->nr;
	return 0;
}

#define PROGRAM_MAX_TRIES	100000

static int
program_parse_step(struct program_parser *pp, const struct yamlnode *n,
    struct program_step *st)
{
	static const char *const known[] = {
		"run", "background", "wait", "tries", NULL
	};
	const struct yamlnode	*v = n, *t;
	unsigned long long	 tries;
	int			 kinds = 0;

	memset(st, 0, sizeof *st);
	if (n->type == YAMLNODE_MAPPING) {
		if (program_keys(pp, n, "a setup step", known) != 0)
			return -1;
		if ((v = program_get(n, "run")) != NULL)
			kinds++;
		if ((t = program_get(n, "background")) != NULL) {
			st->kind = PROGRAM_STEP_BACKGROUND;
			v = t;
			kinds++;
		}
		if ((t = program_get(n, "wait")) != NULL) {
			st->kind = PROGRAM_STEP_WAIT;
			st->tries = 100;
			v = t;
			kinds++;
		}
		if (kinds != 1)
			return yamlnode_error(pp->cause, pp->file, n,
			    "a setup step is one of run, background, wait");
		if ((t = program_get(n, "tries")) != NULL) {
			if (st->kind != PROGRAM_STEP_WAIT ||
			    t->type != YAMLNODE_SCALAR ||
			    job_param_uint(t->value, strlen(t->value),
			    PROGRAM_MAX_TRIES, &tries) != 0 || tries == 0)
				return yamlnode_error(pp->cause, pp->file, t,
				    "'tries' is for wait: an integer from 1 to "
				    "%d", PROGRAM_MAX_TRIES);
			st->tries = (unsigned)tries;
		}
	}
	if (program_parse_args(pp, v, &st->argv, &st->nr_argv) != 0)
		return -1;
	if (st->nr_argv == 0 || st->argv[0].cond != PROGRAM_ARG_PLAIN)
		return yamlnode_error(pp->cause, pp->file, v,
		    "a setup step starts with its program");
	return 0;
}

/* programs:, the other LKP names the file covers. */
static int
program_parse_programs(struct program_parser *pp, const struct yamlnode *v)
{
	struct program	*p = pp->p;
	size_t		 i;

	if (v->type != YAMLNODE_SEQUENCE)
		return yamlnode_error(pp->cause, pp->file, v,
		    "'programs' must be a list of LKP program names");
	p->programs = xcalloc(v->nr + 1, sizeof *p->programs);
	for (i = 0; i < v->nr; i++) {
		if (program_scalar(pp, v->items[i], "programs",
		    &p->programs[i]) != 0)
			return -1;
		p->nr_programs++;
		if (strspn(p->programs[i], "abcdefghijklmnopqrstuvwxyz"
		    "0123456789_-") != strlen(p->programs[i]) ||
		    strcmp(p->programs[i], p->name) == 0)
			return yamlnode_error(pp->cause, pp->file,
			    v->items[i], "'programs' lists '%s': an "
			    "LKP program name other than the file's",
			    p->programs[i]);
	}
	return 0;
}

/* mkdir: and setup:, what is done before the program runs. */
static int
program_parse_setup(struct program_parser *pp, const struct yamlnode *root)
{
	struct program		*p = pp->p;
	const struct yamlnode	*v;
	size_t			 i;

	if ((v = program_get(root, "mkdir")) != NULL) {
		if (v->type != YAMLNODE_SEQUENCE)
			return yamlnode_error(pp->cause, pp->file, v,
			    "'mkdir' must be a list of templates");
		p->mkdir = xcalloc(v->nr + 1, sizeof *p->mkdir);
		for (i = 0; i < v->nr; i++) {
			if (program_scalar(pp, v->items[i], "mkdir",
			    &p->mkdir[i]) != 0)
				return -1;
			p->nr_mkdir++;
			if (program_template(pp, v->items[i], p->mkdir[i]) != 0)
				return -1;
		}
	}
	if ((v = program_get(root, "setup")) == NULL)
		return 0;
	if (v->type != YAMLNODE_SEQUENCE)
		return yamlnode_error(pp->cause, pp->file, v,
		    "'setup' must be a list of steps");
	p->steps = xcalloc(v->nr + 1, sizeof *p->steps);
	for (i = 0; i < v->nr; i++) {
		p->nr_steps++;
		if (program_parse_step(pp, v->items[i], &p->steps[i]) != 0)
			return -1;
	}
	return 0;
}

static int
program_parse_root(struct program_parser *pp, const struct yamlnode *root)
{
	static const char *const known[] = {
		"program", "package", "description", "programs", "params",
		"mkdir", "setup", "repeat", "repeat_for", "argv", "output",
		"metrics", NULL
	};
	struct program		*p = pp->p;
	const struct yamlnode	*v, *n;
	const char		*base, *dot;
	size_t			 i;

	if (root == NULL)
		return error_set(pp->cause, "%s:1:1: an empty program file",
		    pp->file);
	if (program_keys(pp, root, "a program file", known) != 0)
		return -1;
	if ((v = program_get(root, "program")) == NULL)
		return yamlnode_error(pp->cause, pp->file, root,
		    "missing 'program'");
	if (program_scalar(pp, v, "program", &p->name) != 0)
		return -1;
	base = strrchr(pp->file, '/');
	base = base != NULL ? base + 1 : pp->file;
	dot = strstr(base, ".yaml");
	if (dot != NULL && dot[5] == '\0' && ((size_t)(dot - base) !=
	    strlen(p->name) || strncmp(base, p->name, strlen(p->name)) != 0))
		return yamlnode_error(pp->cause, pp->file, v,
		    "program '%s' is in a file named '%s': they must agree",
		    p->name, base);
	if ((v = program_get(root, "package")) != NULL &&
	    program_scalar(pp, v, "package", &p->package) != 0)
		return -1;
	if ((v = program_get(root, "description")) != NULL &&
	    program_scalar(pp, v, "description", &p->description) != 0)
		return -1;
	if ((v = program_get(root, "programs")) != NULL &&
	    program_parse_programs(pp, v) != 0)
		return -1;
	if ((v = program_get(root, "params")) != NULL) {
		if (v->type != YAMLNODE_MAPPING)
			return yamlnode_error(pp->cause, pp->file, v,
			    "'params' must be a map");
		for (i = 0; i < v->nr; i += 2) {
			if (program_param_parse(pp, v->items[i],
			    v->items[i + 1]) != 0)
				return -1;
		}
	}
	if (program_parse_setup(pp, root) != 0)
		return -1;
	if ((v = program_get(root, "repeat")) != NULL &&
	    (program_scalar(pp, v, "repeat", &p->repeat) != 0 ||
	    program_template(pp, v, p->repeat) != 0))
		return -1;
	if ((v = program_get(root, "repeat_for")) != NULL &&
	    (program_scalar(pp, v, "repeat_for", &p->repeat_for) != 0 ||
	    program_template(pp, v, p->repeat_for) != 0))
		return -1;
	if ((v = program_get(root, "argv")) == NULL)
		return yamlnode_error(pp->cause, pp->file, root,
		    "missing 'argv'");
	if (program_parse_args(pp, v, &p->argv, &p->nr_argv) != 0)
		return -1;
	if (p->nr_argv == 0 || p->argv[0].cond != PROGRAM_ARG_PLAIN)
		return yamlnode_error(pp->cause, pp->file, v,
		    "argv starts with the program");
	if ((v = program_get(root, "output")) == NULL)
		return yamlnode_error(pp->cause, pp->file, root,
		    "missing 'output'");
	if (program_output_parse(pp, v) != 0)
		return -1;
	if ((n = program_get(root, "metrics")) == NULL ||
	    n->type != YAMLNODE_MAPPING || n->nr == 0)
		return yamlnode_error(pp->cause, pp->file, n != NULL ? n : root,
		    "'metrics' must be a non-empty map");
	for (i = 0; i < n->nr; i += 2) {
		if (program_metric_parse(pp, n->items[i], n->items[i + 1]) != 0)
			return -1;
	}
	return 0;
}

int
program_parse(const char *name, const char *buf, size_t len,
    struct program **out, char **cause)
{
	struct program_parser	 pp;
	struct yamlnode		*root = NULL;
	int			 r = -1;

	*out = NULL;
	memset(&pp, 0, sizeof pp);
	pp.file = name;
	pp.cause = cause;
	pp.p = xcalloc(1, sizeof *pp.p);
	if (yamlnode_parse(name, buf, len, &root, cause) != 0)
		goto out;
	if (program_parse_root(&pp, root) != 0)
		goto out;
	*out = pp.p;
	pp.p = NULL;
	r = 0;
out:
	program_free(pp.p);
	yamlnode_free(root);
	return r;
}

static pthread_once_t	  program_once = PTHREAD_ONCE_INIT;
static struct program	**program_list;
static size_t		  program_nr;
static char		 *program_cause;

static void
program_table_load(void)
{
	struct program	*p;
	size_t		 i, j;

	program_list = xcalloc(nr_program_sources + 1, sizeof *program_list);
	for (i = 0; i < nr_program_sources; i++) {
		if (program_parse(program_sources[i].path,
		    program_sources[i].text, strlen(program_sources[i].text),
		    &p, &program_cause) != 0)
			return;
		for (j = 0; j < program_nr; j++) {
			if (strcmp(program_list[j]->name, p->name) == 0) {
				error_set(&program_cause, "%s: a second "
				    "program '%s'", program_sources[i].path,
				    p->name);
				program_free(p);
				return;
			}
		}
		program_list[program_nr++] = p;
	}
}

int
program_table(const struct program *const **out, size_t *nr, char **cause)
{
	pthread_once(&program_once, program_table_load);
	*out = (const struct program *const *)program_list;
	*nr = program_nr;
	if (program_cause != NULL)
		return error_set(cause, "%s", program_cause);
	return 0;
}

const struct program *
program_find(const char *name)
{
	const struct program *const	*t;
	size_t				 nr, i;

	program_table(&t, &nr, NULL);
	for (i = 0; i < nr; i++) {
		if (strcmp(t[i]->name, name) == 0)
			return t[i];
	}
	return NULL;
}

const struct metric_info *
program_metric_info(const char *metric)
{
	const struct program *const	*t;
	size_t				 nr, i, j, len;

	program_table(&t, &nr, NULL);
	for (i = 0; i < nr; i++) {
		len = strlen(t[i]->name);
		if (strncmp(metric, t[i]->name, len) != 0 ||
		    metric[len] != '.')
			continue;
		for (j = 0; j < t[i]->nr_metrics; j++) {
			if (fnmatch(t[i]->metrics[j].info.pattern, metric,
			    0) == 0)
				return &t[i]->metrics[j].info;
		}
	}
	return NULL;
}
