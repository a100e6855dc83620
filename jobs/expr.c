/*
 * Expressions of adapter files: a recursive-descent parser into a tree
 * and its evaluator. Names are letters, digits, '_' and '.', starting
 * with a letter or '_'; the caller resolves them, per record inside an
 * aggregate. Parsing is bounded (text length, nesting) because program
 * files are data a user writes; evaluation refuses non-finite results.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/expr.h"
#include "util/error.h"
#include "util/xalloc.h"

#define EXPR_MAX_DEPTH	32

enum expr_kind {
	EXPR_NUM,
	EXPR_NAME,
	EXPR_NEG,
	EXPR_BIN,
	EXPR_CALL,		/* scalar functions */
	EXPR_AGG,		/* aggregates over the records */
};

enum expr_fn {
	EXPR_FN_MIN, EXPR_FN_MAX, EXPR_FN_FLOOR, EXPR_FN_CEIL,
	EXPR_FN_SUM, EXPR_FN_MEAN, EXPR_FN_MEDIAN, EXPR_FN_STDDEV,
	EXPR_FN_COUNT, EXPR_FN_FIRST, EXPR_FN_LAST,
};

struct expr {
	enum expr_kind	 kind;
	double		 num;
	char		*name;
	char		 op;
	enum expr_fn	 fn;
	struct expr	*a, *b;
};

struct expr_parser {
	const char	*text;
	const char	*p;
	int		 depth;
	char		**cause;
};

static const struct {
	const char	*name;
	enum expr_fn	 fn;
	int		 agg;		/* an aggregate */
	int		 args;
} expr_fns[] = {
	{ "floor", EXPR_FN_FLOOR, 0, 1 },
	{ "ceil", EXPR_FN_CEIL, 0, 1 },
	{ "sum", EXPR_FN_SUM, 1, 1 },
	{ "mean", EXPR_FN_MEAN, 1, 1 },
	{ "median", EXPR_FN_MEDIAN, 1, 1 },
	{ "stddev", EXPR_FN_STDDEV, 1, 1 },
	{ "count", EXPR_FN_COUNT, 1, 0 },
	{ "first", EXPR_FN_FIRST, 1, 1 },
	{ "last", EXPR_FN_LAST, 1, 1 },
};

void
expr_free(struct expr *e)
{
	if (e == NULL)
		return;
	expr_free(e->a);
	expr_free(e->b);
	free(e->name);
	free(e);
}

static struct expr *
expr_new(enum expr_kind kind)
{
	struct expr	*e = xcalloc(1, sizeof *e);

	e->kind = kind;
	return e;
}

static int
expr_fail(struct expr_parser *ep, const char *what)
{
	return error_set(ep->cause, "expression '%s': %s at column %d",
	    ep->text, what, (int)(ep->p - ep->text) + 1);
}

static void
expr_blank(struct expr_parser *ep)
{
	while (*ep->p == ' ' || *ep->p == '\t')
		ep->p++;
}

static int expr_sum(struct expr_parser *, struct expr **);

static int
expr_args(struct expr_parser *ep, struct expr **a, struct expr **b,
    int *nr)
{
	*nr = 0;
	expr_blank(ep);
	if (*ep->p == ')') {
		ep->p++;
		return 0;
	}
	for (;;) {
		if (*nr == 2)
			return expr_fail(ep, "too many arguments");
		if (expr_sum(ep, *nr == 0 ? a : b) != 0)
			return -1;
		(*nr)++;
		expr_blank(ep);
		if (*ep->p == ')') {
			ep->p++;
			return 0;
		}
		if (*ep->p != ',')
			return expr_fail(ep, "expected ',' or ')'");
		ep->p++;
	}
}

static int
expr_call(struct expr_parser *ep, char *name, struct expr **out)
{
	struct expr	*e, *a = NULL, *b = NULL;
	size_t		 i;
	int		 nr, agg;

	for (i = 0; i < sizeof expr_fns / sizeof expr_fns[0]; i++) {
		if (strcmp(expr_fns[i].name, name) == 0)
			break;
	}
	if (i == sizeof expr_fns / sizeof expr_fns[0] &&
	    strcmp(name, "min") != 0 && strcmp(name, "max") != 0) {
		error_set(ep->cause, "expression '%s': unknown function "
		    "'%s'", ep->text, name);
		free(name);
		return -1;
	}
	/* min and max: of two values, or over the records with one */
	agg = i < sizeof expr_fns / sizeof expr_fns[0] ? expr_fns[i].agg : -1;
	if (expr_args(ep, &a, &b, &nr) != 0)
		goto fail;
	if (agg == -1) {
		if (nr == 1) {
			agg = 1;
		} else if (nr == 2) {
			agg = 0;
		} else {
			expr_fail(ep, "min and max take one or two arguments");
			goto fail;
		}
	} else if (nr != expr_fns[i].args) {
		error_set(ep->cause, "expression '%s': '%s' takes %d "
		    "argument%s", ep->text, name, expr_fns[i].args,
		    expr_fns[i].args == 1 ? "" : "s");
		goto fail;
	}
	if (agg && expr_has_aggregate(a)) {
		error_set(ep->cause, "expression '%s': an aggregate inside "
		    "'%s'", ep->text, name);
		goto fail;
	}
	e = expr_new(agg ? EXPR_AGG : EXPR_CALL);
	if (strcmp(name, "min") == 0)
		e->fn = EXPR_FN_MIN;
	else if (strcmp(name, "max") == 0)
		e->fn = EXPR_FN_MAX;
	else
		e->fn = expr_fns[i].fn;
	e->a = a;
	e->b = b;
	free(name);
	*out = e;
	return 0;
fail:
	expr_free(a);
	expr_free(b);
	free(name);
	return -1;
}

static int
expr_atom(struct expr_parser *ep, struct expr **out)
{
	struct expr	*e;
	const char	*start;
	char		*end, *name;
	double		 v;

	expr_blank(ep);
	if (++ep->depth > EXPR_MAX_DEPTH)
		return expr_fail(ep, "nested too deeply");
	if (*ep->p == '(') {
		ep->p++;
		if (expr_sum(ep, out) != 0)
			return -1;
		expr_blank(ep);
		if (*ep->p != ')') {
			expr_free(*out);
			*out = NULL;
			return expr_fail(ep, "expected ')'");
		}
		ep->p++;
		ep->depth--;
		return 0;
	}
	if (*ep->p == '-') {
		ep->p++;
		e = expr_new(EXPR_NEG);
		if (expr_atom(ep, &e->a) != 0) {
			expr_free(e);
			return -1;
		}
		ep->depth--;
		*out = e;
		return 0;
	}
	if (isdigit((unsigned char)*ep->p) || (*ep->p == '.' &&
	    isdigit((unsigned char)ep->p[1]))) {
		v = strtod(ep->p, &end);
		if (!isfinite(v))
			return expr_fail(ep, "number out of range");
		ep->p = end;
		e = expr_new(EXPR_NUM);
		e->num = v;
		ep->depth--;
		*out = e;
		return 0;
	}
	if (isalpha((unsigned char)*ep->p) || *ep->p == '_') {
		start = ep->p;
		while (isalnum((unsigned char)*ep->p) || *ep->p == '_' ||
		    *ep->p == '.')
			ep->p++;
		name = xstrndup(start, (size_t)(ep->p - start));
		expr_blank(ep);
		if (*ep->p == '(') {
			ep->p++;
			if (expr_call(ep, name, out) != 0)
				return -1;
			ep->depth--;
			return 0;
		}
		e = expr_new(EXPR_NAME);
		e->name = name;
		ep->depth--;
		*out = e;
		return 0;
	}
	return expr_fail(ep, *ep->p == '\0' ? "unexpected end" :
	    "expected a number, a name or '('");
}

static int
expr_product(struct expr_parser *ep, struct expr **out)
{
	struct expr	*l = NULL, *e;

	if (expr_atom(ep, &l) != 0)
		return -1;
	for (;;) {
		expr_blank(ep);
		if (*ep->p != '*' && *ep->p != '/' && *ep->p != '%')
			break;
		e = expr_new(EXPR_BIN);
		e->op = *ep->p++;
		e->a = l;
		l = e;
		if (expr_atom(ep, &e->b) != 0) {
			expr_free(l);
			return -1;
		}
	}
	*out = l;
	return 0;
}

static int
expr_sum(struct expr_parser *ep, struct expr **out)
{
	struct expr	*l = NULL, *e;

	if (expr_product(ep, &l) != 0)
		return -1;
	for (;;) {
		expr_blank(ep);
		if (*ep->p != '+' && *ep->p != '-')
			break;
		e = expr_new(EXPR_BIN);
		e->op = *ep->p++;
		e->a = l;
		l = e;
		if (expr_product(ep, &e->b) != 0) {
			expr_free(l);
			return -1;
		}
	}
	*out = l;
	return 0;
}

int
expr_parse(const char *text, struct expr **out, char **cause)
{
	struct expr_parser	 ep;
	struct expr		*e = NULL;

	*out = NULL;
	if (strlen(text) > EXPR_MAX_TEXT)
		return error_set(cause, "an expression of more than %d "
		    "characters", EXPR_MAX_TEXT);
	memset(&ep, 0, sizeof ep);
	ep.text = text;
	ep.p = text;
	ep.cause = cause;
	if (expr_sum(&ep, &e) != 0)
		return -1;
	expr_blank(&ep);
	if (*ep.p != '\0') {
		expr_free(e);
		return expr_fail(&ep, "unexpected text");
	}
	*out = e;
	return 0;
}

static int expr_value(const struct expr *, const struct expr_env *,
    size_t, double *, char **);

static int
expr_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
expr_aggregate(const struct expr *e, const struct expr_env *env,
    double *out, char **cause)
{
	double		*v = NULL, sum = 0, m, sd = 0;
	size_t		 n = 0, i;
	int		 r = -1, rr;

	if (!env->aggregates)
		return error_set(cause, "aggregates are for metrics only");
	if (e->fn == EXPR_FN_COUNT) {
		*out = (double)env->nr_records;
		return 0;
	}
	v = xreallocarray(NULL, env->nr_records + 1, sizeof *v);
	for (i = 0; i < env->nr_records; i++) {
		rr = expr_value(e->a, env, i, &v[n], cause);
		if (rr < 0)
			goto out;
		if (rr == 0)
			n++;
	}
	if (n == 0) {
		r = EXPR_UNSET;
		if (cause != NULL && *cause == NULL)
			error_set(cause, "no record has a value");
		goto out;
	}
	free(cause != NULL ? *cause : NULL);
	if (cause != NULL)
		*cause = NULL;
	for (i = 0; i < n; i++)
		sum += v[i];
	switch (e->fn) {
	case EXPR_FN_SUM:
		*out = sum;
		break;
	case EXPR_FN_MEAN:
		*out = sum / (double)n;
		break;
	case EXPR_FN_FIRST:
		*out = v[0];
		break;
	case EXPR_FN_LAST:
		*out = v[n - 1];
		break;
	case EXPR_FN_STDDEV:
		m = sum / (double)n;
		for (i = 0; i < n; i++)
			sd += (v[i] - m) * (v[i] - m);
		*out = n > 1 ? sqrt(sd / (double)(n - 1)) : 0;
		break;
	default:
		qsort(v, n, sizeof *v, expr_cmp);
		if (e->fn == EXPR_FN_MIN)
			*out = v[0];
		else if (e->fn == EXPR_FN_MAX)
			*out = v[n - 1];
		else
			*out = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
		break;
	}
	r = 0;
out:
	free(v);
	return r;
}

static int
expr_value(const struct expr *e, const struct expr_env *env, size_t record,
    double *out, char **cause)
{
	double	a, b;
	int	r;

	switch (e->kind) {
	case EXPR_NUM:
		*out = e->num;
		return 0;
	case EXPR_NAME:
		r = env->lookup(env->payload, record, e->name, out, cause);
		if (r == EXPR_UNSET && cause != NULL && *cause == NULL)
			error_set(cause, "'%s' has no value", e->name);
		return r;
	case EXPR_NEG:
		if ((r = expr_value(e->a, env, record, &a, cause)) != 0)
			return r;
		*out = -a;
		return 0;
	case EXPR_AGG:
		return expr_aggregate(e, env, out, cause);
	case EXPR_BIN:
	case EXPR_CALL:
		break;
	}
	if ((r = expr_value(e->a, env, record, &a, cause)) != 0)
		return r;
	if (e->b != NULL &&
	    (r = expr_value(e->b, env, record, &b, cause)) != 0)
		return r;
	if (e->kind == EXPR_CALL) {
		switch (e->fn) {
		case EXPR_FN_MIN:
			*out = a < b ? a : b;
			break;
		case EXPR_FN_MAX:
			*out = a > b ? a : b;
			break;
		case EXPR_FN_FLOOR:
			*out = floor(a);
			break;
		default:
			*out = ceil(a);
			break;
		}
		return 0;
	}
	switch (e->op) {
	case '+':
		*out = a + b;
		break;
	case '-':
		*out = a - b;
		break;
	case '*':
		*out = a * b;
		break;
	default:
		if (b == 0)
			return error_set(cause, "division by zero");
		*out = e->op == '/' ? a / b : fmod(a, b);
		break;
	}
	if (!isfinite(*out))
		return error_set(cause, "a value out of range");
	return 0;
}

int
expr_eval(const struct expr *e, const struct expr_env *env, double *out,
    char **cause)
{
	double	v;
	int	r;

	if ((r = expr_value(e, env, EXPR_LATEST, &v, cause)) != 0)
		return r;
	if (!isfinite(v))
		return error_set(cause, "a value out of range");
	*out = v;
	return 0;
}

int
expr_eval_at(const struct expr *e, const struct expr_env *env,
    size_t record, double *out, char **cause)
{
	double	v;
	int	r;

	if ((r = expr_value(e, env, record, &v, cause)) != 0)
		return r;
	if (!isfinite(v))
		return error_set(cause, "a value out of range");
	*out = v;
	return 0;
}

int
expr_has_aggregate(const struct expr *e)
{
	if (e == NULL)
		return 0;
	return e->kind == EXPR_AGG || expr_has_aggregate(e->a) ||
	    expr_has_aggregate(e->b);
}

int
expr_each_name(const struct expr *e,
    int (*fn)(void *payload, const char *name), void *payload)
{
	int	r;

	if (e == NULL)
		return 0;
	if (e->kind == EXPR_NAME && (r = fn(payload, e->name)) != 0)
		return r;
	if ((r = expr_each_name(e->a, fn, payload)) != 0)
		return r;
	return expr_each_name(e->b, fn, payload);
}
