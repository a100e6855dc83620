/*
 * An entry of a program file's metrics: (docs/jobs.md, "Adapter files"):
 * its name with at most one {VAR} group, its expressions over the
 * output's number captures, and its direction, aggregate, minimum effect
 * and whether it is optional.
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/expr.h"
#include "jobs/program-internal.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static int
program_metric_names(void *payload, const char *name)
{
	struct program_names	*pn = payload;
	int			 word = 0;

	if (program_output_variable(pn->p, name, &word) && !word)
		return 0;
	pn->bad = name;
	return 1;
}

static int
program_metric_expr(struct program_parser *pp, const struct yamlnode *n,
    int agg_ok, struct expr **out)
{
	struct program_names	pn = { pp->p, 0, NULL };

	if (n->type != YAMLNODE_SCALAR || n->null)
		return yamlnode_error(pp->cause, pp->file, n,
		    "a metric's expression is a scalar");
	if (expr_parse(n->value, out, pp->cause) != 0)
		return program_error_at(pp, n);
	if (!agg_ok && expr_has_aggregate(*out))
		return yamlnode_error(pp->cause, pp->file, n,
		    "'instances' is one value per record: no aggregate in "
		    "'%s'", n->value);
	if (expr_each_name(*out, program_metric_names, &pn) != 0)
		return yamlnode_error(pp->cause, pp->file, n,
		    "'%s' uses '%s', which no pattern captures as a number",
		    n->value, pn.bad);
	return 0;
}

/*
 * The metric's name: PROGRAM.NAME, with at most one {VAR} group, as the
 * glob its samples are matched with (m->info.pattern).
 */
static int
program_metric_name(struct program_parser *pp, const struct yamlnode *key,
    struct program_metric *m)
{
	struct strbuf	 glob = STRBUF_INIT;
	const char	*s, *close;

	strbuf_addf(&glob, "%s.", pp->p->name);
	for (s = key->value; *s != '\0'; s++) {
		if (*s == '{') {
			close = strchr(s, '}');
			if (m->group != NULL || close == NULL) {
				strbuf_release(&glob);
				return yamlnode_error(pp->cause, pp->file, key,
				    "metric '%s': at most one {VAR}",
				    key->value);
			}
			m->group = xstrndup(s + 1, (size_t)(close - s - 1));
			strbuf_addch(&glob, '*');
			s = close;
			continue;
		}
		if ((unsigned char)*s <= ' ' || *s == ':' || *s == '}') {
			strbuf_release(&glob);
			return yamlnode_error(pp->cause, pp->file, key,
			    "metric '%s': no white space, ':' or '}' in a "
			    "name", key->value);
		}
		if (strchr("*?[\\", *s) != NULL)
			strbuf_addch(&glob, '\\');
		strbuf_addch(&glob, *s);
	}
	m->info.pattern = strbuf_detach(&glob, NULL);
	return 0;
}

/* direction:, aggregate:, min_effect: and optional:. */
static int
program_metric_options(struct program_parser *pp, const struct yamlnode *n,
    struct program_metric *m)
{
	const struct yamlnode	*v;
	char			*end;

	if ((v = program_get(n, "direction")) != NULL) {
		if (v->type == YAMLNODE_SCALAR && strcmp(v->value,
		    "higher") == 0)
			m->info.direction = JOB_DIRECTION_HIGHER;
		else if (v->type == YAMLNODE_SCALAR && strcmp(v->value,
		    "lower") == 0)
			m->info.direction = JOB_DIRECTION_LOWER;
		else
			return yamlnode_error(pp->cause, pp->file, v,
			    "'direction' is higher or lower");
	}
	if ((v = program_get(n, "aggregate")) != NULL) {
		if (v->type == YAMLNODE_SCALAR && strcmp(v->value, "sum") == 0)
			m->info.aggregate = METRIC_AGGREGATE_SUM;
		else if (v->type != YAMLNODE_SCALAR ||
		    strcmp(v->value, "mean") != 0)
			return yamlnode_error(pp->cause, pp->file, v,
			    "'aggregate' is sum or mean");
	}
	if ((v = program_get(n, "min_effect")) != NULL) {
		m->info.min_effect_pct = v->type == YAMLNODE_SCALAR ?
		    strtod(v->value, &end) : -1;
		if (v->type != YAMLNODE_SCALAR || end == v->value ||
		    strcmp(end, "%") != 0 || !(m->info.min_effect_pct >= 0) ||
		    m->info.min_effect_pct > 1000)
			return yamlnode_error(pp->cause, pp->file, v,
			    "'min_effect' is a percentage like 1%%");
	}
	if ((v = program_get(n, "optional")) != NULL) {
		if (v->type != YAMLNODE_SCALAR || (strcmp(v->value, "true") !=
		    0 && strcmp(v->value, "false") != 0))
			return yamlnode_error(pp->cause, pp->file, v,
			    "'optional' is true or false");
		m->optional = strcmp(v->value, "true") == 0;
	}
	return 0;
}

int
program_metric_parse(struct program_parser *pp, const struct yamlnode *key,
    const struct yamlnode *n)
{
	static const char *const known[] = {
		"value", "instances", "direction", "aggregate", "min_effect",
		"optional", NULL
	};
	struct program_metric	*m;
	const struct yamlnode	*v;
	int			 word;

	pp->p->metrics = xreallocarray(pp->p->metrics, pp->p->nr_metrics + 1,
	    sizeof *pp->p->metrics);
	m = &pp->p->metrics[pp->p->nr_metrics++];
	memset(m, 0, sizeof *m);
	m->name = xstrdup(key->value);
	m->info.aggregate = METRIC_AGGREGATE_MEAN;
	m->info.min_effect_pct = 1.0;
	if (program_metric_name(pp, key, m) != 0)
		return -1;
	if (m->group != NULL && (!program_output_variable(pp->p, m->group,
	    &word) || !word))
		return yamlnode_error(pp->cause, pp->file, key,
		    "metric '%s': '%s' is not a {NAME:word} capture",
		    key->value, m->group);
	if (n->type == YAMLNODE_SCALAR)
		return program_metric_expr(pp, n, 1, &m->value);
	if (program_keys(pp, n, "a metric", known) != 0)
		return -1;
	if ((v = program_get(n, "value")) != NULL &&
	    program_metric_expr(pp, v, 1, &m->value) != 0)
		return -1;
	if ((v = program_get(n, "instances")) != NULL &&
	    program_metric_expr(pp, v, 0, &m->instances) != 0)
		return -1;
	if (m->value == NULL && m->instances == NULL)
		return yamlnode_error(pp->cause, pp->file, n,
		    "metric '%s' needs 'value' or 'instances'", key->value);
	return program_metric_options(pp, n, m);
}

