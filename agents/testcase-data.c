/*
 * Running a program file (docs/jobs.md, "Adapter files"): its parameters
 * resolved in order (the job's value, else the default, an expression
 * over those before), templates expanded into one argument each, the
 * conditional parts of argv taken or not, and its output read back --
 * line patterns or JSON paths into variables and records, then each
 * metric's expressions into "name: number" and "name.N: number" lines.
 */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/testcase.h"
#include "jobs/expr.h"
#include "jobs/job.h"
#include "jobs/program.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define DATA_MAX_REPEAT		1000000
#define DATA_MAX_RECORDS	100000
#define DATA_MAX_OUTPUT		(64u << 20)
#define DATA_MAX_NAME		200

/* A parameter's value in a run. */
struct data_value {
	int	 set;
	double	 number;	/* NAN: not a number */
	char	*text;
};

struct data_run {
	const struct program		*p;
	const struct testcase_ctx	*ctx;
	struct data_value		*vals;	/* one per parameter */
	/* testcase_data_required: files are not looked for; what is unset */
	int				 check;
	const char			*missing;
};

static void
data_run_release(struct data_run *dr)
{
	size_t	i;

	for (i = 0; dr->vals != NULL && i < dr->p->nr_params; i++)
		free(dr->vals[i].text);
	free(dr->vals);
	dr->vals = NULL;
}

static int
data_param_lookup(void *payload, size_t record, const char *name,
    double *out, char **cause)
{
	struct data_run	*dr = payload;
	size_t		 i;

	if (strcmp(name, "nr_cpu") == 0) {
		*out = dr->ctx->nr_cpu > 0 ? dr->ctx->nr_cpu : 1;
		return 0;
	}
	if (strcmp(name, "memory") == 0) {
		*out = (double)dr->ctx->memory;
		return 0;
	}
	for (i = 0; i < dr->p->nr_params; i++) {
		if (strcmp(dr->p->params[i].name, name) != 0)
			continue;
		if (!dr->vals[i].set)
			return EXPR_UNSET;
		if (isnan(dr->vals[i].number))
			return error_set(cause, "'%s' is not a number", name);
		*out = dr->vals[i].number;
		return 0;
	}
	return EXPR_UNSET;
}

static void
data_number_text(struct strbuf *sb, double v)
{
	if (v == floor(v) && fabs(v) < 1e18)
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.17g", v);
}

static int
data_eval(struct data_run *dr, const char *text, double *out, char **cause)
{
	struct expr_env	 env = { data_param_lookup, dr, 0, 0 };
	struct expr	*e = NULL;
	int		 r;

	if (expr_parse(text, &e, cause) != 0)
		return -1;
	r = expr_eval(e, &env, out, cause);
	expr_free(e);
	return r == 0 ? 0 : -1;
}

const char *
testcase_data_value(const struct program *p, const struct job *job,
    const char *name)
{
	const char	*v;
	char		*key;
	size_t		 i;

	if ((v = job_param(job, name)) != NULL)
		return v;
	for (i = 0; p != NULL && i < p->nr_programs && v == NULL; i++) {
		key = xasprintf("%s.%s", p->programs[i], name);
		v = job_param(job, key);
		free(key);
	}
	return v;
}

static int
data_resolve(struct data_run *dr, char **cause)
{
	const struct program_param	*pp;
	struct data_value		*dv;
	const char			*v;
	struct strbuf			 sb = STRBUF_INIT;
	unsigned			 nr_cpu = dr->ctx->nr_cpu > 0 ?
					     dr->ctx->nr_cpu : 1;
	size_t				 i;

	dr->vals = xcalloc(dr->p->nr_params + 1, sizeof *dr->vals);
	for (i = 0; i < dr->p->nr_params; i++) {
		pp = &dr->p->params[i];
		dv = &dr->vals[i];
		dv->number = NAN;
		if ((v = testcase_data_value(dr->p, dr->ctx->job,
		    pp->name)) == NULL)
			v = pp->dflt_expr == NULL ? pp->dflt : NULL;
		if (v != NULL) {
			if (program_value(pp, v, nr_cpu, &dv->number,
			    &dv->text, cause) != 0)
				return -1;
			if (pp->type == PROGRAM_FILE && !dr->check &&
			    !file_exists(v)) {
				if (testcase_data_value(dr->p, dr->ctx->job,
				    pp->name) != NULL)
					return error_set(cause, "'%s' names "
					    "'%s', which does not exist",
					    pp->name, v);
				free(dv->text);
				dv->text = NULL;
				continue;
			}
			dv->set = 1;
			continue;
		}
		if (pp->dflt_expr == NULL)
			continue;
		if (data_eval(dr, pp->dflt + 1, &dv->number, cause) != 0)
			return error_prefix(cause, "the default of '%s'",
			    pp->name);
		if (dv->number != floor(dv->number) || dv->number < (pp->type ==
		    PROGRAM_INTEGER ? (double)pp->min : 1))
			return error_set(cause, "the default of '%s' is %g, "
			    "not a whole number in range", pp->name,
			    dv->number);
		strbuf_reset(&sb);
		data_number_text(&sb, dv->number);
		dv->text = strbuf_detach(&sb, NULL);
		dv->set = 1;
	}
	strbuf_release(&sb);
	return 0;
}

static int
data_expand(struct data_run *dr, const char *tmpl, char **out, char **cause)
{
	const struct testcase_ctx	*ctx = dr->ctx;
	struct strbuf			 sb = STRBUF_INIT;
	const char			*p, *close;
	char				*inner = NULL;
	double				 v;
	size_t				 i;
	int				 r = -1;

	for (p = tmpl; *p != '\0'; p++) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' &&
		    p[1] == '}')) {
			strbuf_addch(&sb, *p++);
			continue;
		}
		if (*p != '{' || (close = strchr(p, '}')) == NULL) {
			strbuf_addch(&sb, *p);
			continue;
		}
		free(inner);
		inner = xstrndup(p + 1, (size_t)(close - p - 1));
		p = close;
		if (inner[0] == '=') {
			if (data_eval(dr, inner + 1, &v, cause) != 0) {
				error_prefix(cause, "'{%s}'", inner);
				goto out;
			}
			data_number_text(&sb, v);
		} else if (strcmp(inner, "workdir") == 0)
			strbuf_addstr(&sb, ctx->workdir);
		else if (strcmp(inner, "resultdir") == 0)
			strbuf_addstr(&sb, ctx->resultdir);
		else if (strcmp(inner, "self") == 0)
			strbuf_addstr(&sb, ctx->self != NULL ? ctx->self : "");
		else if (strcmp(inner, "nr_cpu") == 0)
			strbuf_addf(&sb, "%u", ctx->nr_cpu > 0 ?
			    ctx->nr_cpu : 1);
		else if (strcmp(inner, "memory") == 0)
			strbuf_addf(&sb, "%llu", ctx->memory);
		else {
			for (i = 0; i < dr->p->nr_params; i++) {
				if (strcmp(dr->p->params[i].name, inner) == 0)
					break;
			}
			if (i == dr->p->nr_params || !dr->vals[i].set) {
				if (i < dr->p->nr_params)
					dr->missing = dr->p->params[i].name;
				error_set(cause, "'%s' has no value: the job "
				    "does not give it and it has no default",
				    inner);
				goto out;
			}
			strbuf_addstr(&sb, dr->vals[i].text);
		}
	}
	*out = strbuf_detach(&sb, NULL);
	r = 0;
out:
	free(inner);
	strbuf_release(&sb);
	return r;
}

static int
data_args(struct data_run *dr, const struct program_arg *args, size_t nr,
    struct testcase_argv *argv, char **cause)
{
	const struct program_arg	*a;
	const struct data_value		*dv;
	char				*s;
	size_t				 i, j;
	int				 holds;

	for (i = 0; i < nr; i++) {
		a = &args[i];
		if (a->cond == PROGRAM_ARG_PLAIN) {
			if (data_expand(dr, a->text, &s, cause) != 0)
				return -1;
			testcase_argv_add(argv, "%s", s);
			free(s);
			continue;
		}
		for (j = 0; j < dr->p->nr_params; j++) {
			if (strcmp(dr->p->params[j].name, a->text) == 0)
				break;
		}
		dv = j < dr->p->nr_params ? &dr->vals[j] : NULL;
		holds = dv != NULL && dv->set;
		if (a->cond != PROGRAM_ARG_SET)
			holds = holds && strcmp(dv->text, a->value) == 0;
		if (a->cond == PROGRAM_ARG_NE)
			holds = !holds;
		if (holds ? data_args(dr, a->then, a->nr_then, argv,
		    cause) : data_args(dr, a->otherwise, a->nr_otherwise, argv,
		    cause))
			return -1;
	}
	return 0;
}

int
testcase_data_command(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, struct testcase_argv *argv,
    char **cause)
{
	struct data_run	 dr = { ad->data, ctx, NULL };
	char		*dir = NULL;
	size_t		 i;
	int		 r = -1;

	if (data_resolve(&dr, cause) != 0)
		goto out;
	for (i = 0; i < dr.p->nr_mkdir && !ctx->dry_run; i++) {
		if (data_expand(&dr, dr.p->mkdir[i], &dir, cause) != 0 ||
		    dir_create(dir, cause) != 0)
			goto out;
		free(dir);
		dir = NULL;
	}
	if (data_args(&dr, dr.p->argv, dr.p->nr_argv, argv, cause) != 0)
		goto out;
	r = 0;
out:
	free(dir);
	data_run_release(&dr);
	return r;
}

int
testcase_data_required(const struct program *p, const struct job *job,
    const char **name, char **cause)
{
	struct testcase_ctx	 ctx;
	struct data_run		 dr = { p, &ctx, NULL, 1, NULL };
	struct testcase_argv	 argv = { NULL, 0 };
	char			*text = NULL, *why = NULL;
	size_t			 i;
	int			 r = 0;

	memset(&ctx, 0, sizeof ctx);
	ctx.job = job;
	ctx.workdir = "WORKDIR";
	ctx.resultdir = "RESULTDIR";
	ctx.self = "bisect-agent";
	ctx.nr_cpu = 1;
	ctx.dry_run = 1;
	/* a value that fails otherwise is the run's error (machine's sizes) */
	if (data_resolve(&dr, &why) != 0)
		goto out;
	for (i = 0; i < p->nr_mkdir && dr.missing == NULL; i++) {
		free(text);
		text = NULL;
		(void)data_expand(&dr, p->mkdir[i], &text, &why);
	}
	for (i = 0; i < p->nr_steps && dr.missing == NULL; i++)
		(void)data_args(&dr, p->steps[i].argv, p->steps[i].nr_argv,
		    &argv, &why);
	if (dr.missing == NULL)
		(void)data_args(&dr, p->argv, p->nr_argv, &argv, &why);
	/* repeat and repeat_for may be unset: argv then runs once */
	if (dr.missing != NULL) {
		*name = dr.missing;
		for (i = 0; i < p->nr_params; i++)
			if (strcmp(p->params[i].name, dr.missing) == 0)
				break;
		r = error_set(cause, "'%s' has no value: the job does not give "
		    "it and it has no default, and the run needs it%s%s",
		    dr.missing, i < p->nr_params && p->params[i].required !=
		    NULL ? ": " : "", i < p->nr_params &&
		    p->params[i].required != NULL ? p->params[i].required : "");
	}
out:
	free(why);
	free(text);
	testcase_argv_release(&argv);
	data_run_release(&dr);
	return r;
}

/*
 * The wrapper that runs the setup steps and then argv "repeat" times, or
 * for "repeat_for" seconds (again until more than that many have passed
 * at its end, as LKP's run_for_time). Each command travels as "KIND
 * [TRIES|COUNT|SECONDS] N WORD...": the script
 * only ever evaluates "${1}" "${2}"... -- references to its arguments,
 * never their text -- so no value becomes shell syntax. The steps'
 * output goes to RESULTDIR/setup.log, apart from the output read.
 */
static const char testcase_data_script[] =
	"log=$1; shift; pids=\n"
	"trap 'for p in $pids; do kill $p 2>/dev/null; done' EXIT\n"
	"trap 'exit 143' TERM INT HUP\n"
	"while [ $# -gt 0 ]; do\n"
	"  k=$1; shift\n"
	"  case $k in W|R|T) x=$1; shift;; esac\n"
	"  n=$1; shift; c=; i=1\n"
	"  while [ $i -le $n ]; do c=\"$c \\\"\\${$i}\\\"\"; i=$((i + 1)); done\n"
	"  case $k in\n"
	"  S) eval \"$c\" >>\"$log\" 2>&1 || { s=$?; echo \"setup: $1 "
	"failed\" >&2; exit $s; } ;;\n"
	"  B) eval \"$c\" >>\"$log\" 2>&1 </dev/null & pids=\"$pids $!\" ;;\n"
	"  W) t=0; until eval \"$c\" >>\"$log\" 2>&1; do t=$((t + 1));"
	" if [ $t -ge $x ]; then echo \"setup: $1 not ready after $x "
	"tries\" >&2; exit 1; fi; sleep 0.1; done ;;\n"
	"  R) r=0; while [ $r -lt $x ]; do eval \"$c\" || exit; "
	"r=$((r + 1)); done ;;\n"
	"  T) t=$(date +%s); while :; do eval \"$c\" || exit; "
	"[ $(($(date +%s) - t)) -gt $x ] && break; done ;;\n"
	"  esac\n"
	"  shift $n\n"
	"done\n";

static int
data_step(struct data_run *dr, const struct testcase_adapter *ad,
    const struct program_step *st, struct testcase_argv *w, char **cause)
{
	struct testcase_argv	 one = { NULL, 0 };
	char			*path;
	size_t			 i;
	int			 r = -1;

	if (data_args(dr, st->argv, st->nr_argv, &one, cause) != 0)
		goto out;
	if ((path = testcase_which(one.v[0])) == NULL) {
		error_set(cause, "setup needs '%s', which is not installed%s%s%s",
		    one.v[0], ad->package ? " (Debian package " : "",
		    ad->package ? ad->package : "", ad->package ? ")" : "");
		goto out;
	}
	free(one.v[0]);
	one.v[0] = path;
	switch (st->kind) {
	case PROGRAM_STEP_RUN:
		testcase_argv_add(w, "S");
		break;
	case PROGRAM_STEP_BACKGROUND:
		testcase_argv_add(w, "B");
		break;
	case PROGRAM_STEP_WAIT:
		testcase_argv_add(w, "W");
		testcase_argv_add(w, "%u", st->tries);
		break;
	}
	testcase_argv_add(w, "%zu", one.nr);
	for (i = 0; i < one.nr; i++)
		testcase_argv_add(w, "%s", one.v[i]);
	r = 0;
out:
	testcase_argv_release(&one);
	return r;
}

/*
 * How many times argv runs: *kind 'R' and *n the count of "repeat" when
 * it has a value, else 'T' and *n the seconds of "repeat_for" when it
 * has one, else 'R' once. -1 with *cause for a value out of range.
 */
static int
data_repeat(struct data_run *dr, char *kind, unsigned long *n, char **cause)
{
	const char	*tmpl[] = { dr->p->repeat, dr->p->repeat_for };
	const char	*what[] = { "repeat", "repeat_for" };
	unsigned long	 max[] = { DATA_MAX_REPEAT, 30UL * 24 * 3600 };
	char		*text = NULL, *end, *why = NULL;
	size_t		 i;
	int		 r = -1;

	*kind = 'R';
	*n = 1;
	for (i = 0; i < 2; i++) {
		if (tmpl[i] == NULL)
			continue;
		dr->missing = NULL;
		free(text);
		text = NULL;
		if (data_expand(dr, tmpl[i], &text, &why) != 0) {
			if (dr->missing == NULL) {
				*cause = why;
				why = NULL;
				goto out;
			}
			/* unset: the next way, or once */
			dr->missing = NULL;
			free(why);
			why = NULL;
			continue;
		}
		*n = strtoul(text, &end, 10);
		if (!isdigit((unsigned char)text[0]) || *end != '\0' ||
		    *n == 0 || *n > max[i]) {
			error_set(cause, "'%s' is '%s', not a number from 1 to "
			    "%lu", what[i], text, max[i]);
			goto out;
		}
		*kind = i == 0 ? 'R' : 'T';
		break;
	}
	r = 0;
out:
	free(text);
	free(why);
	return r;
}

int
testcase_data_wrap(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, struct testcase_argv *argv,
    char **cause)
{
	struct data_run		 dr = { ad->data, ctx, NULL, 0, NULL };
	struct testcase_argv	 w = { NULL, 0 };
	char			*text = NULL, *log = NULL, kind = 'R';
	unsigned long		 n = 1;
	size_t			 i;
	int			 r = -1;

	if (ad->data->repeat == NULL && ad->data->repeat_for == NULL &&
	    ad->data->nr_steps == 0)
		return 0;
	if (data_resolve(&dr, cause) != 0)
		goto out;
	if (data_repeat(&dr, &kind, &n, cause) != 0)
		goto out;
	log = path_join(ctx->resultdir, "setup.log");
	testcase_argv_add(&w, "/bin/sh");
	testcase_argv_add(&w, "-c");
	testcase_argv_add(&w, "%s", testcase_data_script);
	testcase_argv_add(&w, "%s-run", ad->name);
	testcase_argv_add(&w, "%s", log);
	for (i = 0; i < ad->data->nr_steps; i++) {
		if (data_step(&dr, ad, &ad->data->steps[i], &w, cause) != 0)
			goto out;
	}
	testcase_argv_add(&w, "%c", kind);
	testcase_argv_add(&w, "%lu", n);
	testcase_argv_add(&w, "%zu", argv->nr);
	for (i = 0; i < argv->nr; i++)
		testcase_argv_add(&w, "%s", argv->v[i]);
	testcase_argv_release(argv);
	*argv = w;
	w.v = NULL;
	w.nr = 0;
	r = 0;
out:
	testcase_argv_release(&w);
	free(log);
	free(text);
	data_run_release(&dr);
	return r;
}

int
testcase_data_describe(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, struct strbuf *sb, char **cause)
{
	static const char *const kinds[] = {
		[PROGRAM_STEP_RUN] = "setup",
		[PROGRAM_STEP_BACKGROUND] = "background",
		[PROGRAM_STEP_WAIT] = "wait for",
	};
	struct data_run		 dr = { ad->data, ctx, NULL };
	struct testcase_argv	 one = { NULL, 0 };
	const struct program_step *st;
	size_t			 i, j;
	int			 r = -1;

	if (data_resolve(&dr, cause) != 0)
		goto out;
	for (i = 0; i < ad->data->nr_steps; i++) {
		st = &ad->data->steps[i];
		testcase_argv_release(&one);
		if (data_args(&dr, st->argv, st->nr_argv, &one, cause) != 0)
			goto out;
		strbuf_addf(sb, "%s: ", kinds[st->kind]);
		for (j = 0; j < one.nr; j++) {
			if (j > 0)
				strbuf_addch(sb, ' ');
			testcase_quote(sb, one.v[j]);
		}
		strbuf_addstr(sb, "; ");
	}
	r = 0;
out:
	testcase_argv_release(&one);
	data_run_release(&dr);
	return r;
}

int
testcase_data_repeat_count(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, struct strbuf *sb, char **cause)
{
	struct data_run	 dr = { ad->data, ctx, NULL, 0, NULL };
	unsigned long	 n;
	char		 kind;
	int		 r = -1;

	if (data_resolve(&dr, cause) == 0 &&
	    data_repeat(&dr, &kind, &n, cause) == 0) {
		if (kind == 'T')
			strbuf_addf(sb, " (again until %lu s have passed)", n);
		else
			strbuf_addf(sb, " (%lu time%s)", n, n == 1 ? "" : "s");
		r = 0;
	}
	data_run_release(&dr);
	return r;
}

/* The output's variables: their latest values and the records. */
struct data_vars {
	const struct program	 *p;
	char			**names;
	int			 *is_word;
	size_t			  nr;
	double			 *num;		/* latest */
	char			**word;
	int			 *set;
	/* records: nr values each */
	double			 *rnum;
	char			**rword;
	int			 *rset;
	size_t			  nr_records;
	size_t			  alloc_records;
	/* the records a metric looks at (a {VAR} group), or all */
	size_t			 *subset;
	size_t			  nr_subset;
};

static size_t
data_var_index(const struct data_vars *dv, const char *name)
{
	size_t	i;

	for (i = 0; i < dv->nr; i++) {
		if (strcmp(dv->names[i], name) == 0)
			return i;
	}
	return (size_t)-1;
}

static void
data_var_add(struct data_vars *dv, const char *name, int word)
{
	if (data_var_index(dv, name) != (size_t)-1)
		return;
	dv->names = xreallocarray(dv->names, dv->nr + 1, sizeof *dv->names);
	dv->is_word = xreallocarray(dv->is_word, dv->nr + 1,
	    sizeof *dv->is_word);
	dv->names[dv->nr] = xstrdup(name);
	dv->is_word[dv->nr] = word;
	dv->nr++;
}

static void
data_vars_init(struct data_vars *dv, const struct program *p)
{
	size_t	i, j;

	memset(dv, 0, sizeof *dv);
	dv->p = p;
	for (i = 0; i < p->nr_lines; i++) {
		for (j = 0; j < p->lines[i].nr_names; j++)
			data_var_add(dv, p->lines[i].names[j],
			    p->lines[i].is_word[j]);
	}
	for (i = 0; i < p->nr_json_vars; i++)
		data_var_add(dv, p->json_vars[i].name, 0);
	dv->num = xcalloc(dv->nr + 1, sizeof *dv->num);
	dv->word = xcalloc(dv->nr + 1, sizeof *dv->word);
	dv->set = xcalloc(dv->nr + 1, sizeof *dv->set);
}

static void
data_vars_release(struct data_vars *dv)
{
	size_t	i;

	for (i = 0; i < dv->nr; i++) {
		free(dv->names[i]);
		free(dv->word[i]);
	}
	for (i = 0; i < dv->nr_records * dv->nr; i++)
		free(dv->rword[i]);
	free(dv->names);
	free(dv->is_word);
	free(dv->num);
	free(dv->word);
	free(dv->set);
	free(dv->rnum);
	free(dv->rword);
	free(dv->rset);
	free(dv->subset);
}

static void
data_vars_record(struct data_vars *dv)
{
	size_t	base, i;

	if (dv->nr_records == DATA_MAX_RECORDS)
		return;
	if (dv->nr_records == dv->alloc_records) {
		dv->alloc_records = dv->alloc_records ? 2 * dv->alloc_records :
		    16;
		dv->rnum = xreallocarray(dv->rnum, dv->alloc_records *
		    (dv->nr + 1), sizeof *dv->rnum);
		dv->rword = xreallocarray(dv->rword, dv->alloc_records *
		    (dv->nr + 1), sizeof *dv->rword);
		dv->rset = xreallocarray(dv->rset, dv->alloc_records *
		    (dv->nr + 1), sizeof *dv->rset);
	}
	base = dv->nr_records * dv->nr;
	for (i = 0; i < dv->nr; i++) {
		dv->rnum[base + i] = dv->num[i];
		dv->rword[base + i] = dv->word[i] != NULL ?
		    xstrdup(dv->word[i]) : NULL;
		dv->rset[base + i] = dv->set[i];
	}
	dv->nr_records++;
}

static int
data_vars_lookup(void *payload, size_t record, const char *name,
    double *out, char **cause)
{
	struct data_vars	*dv = payload;
	size_t			 i = data_var_index(dv, name), at;

	if (i == (size_t)-1 || dv->is_word[i])
		return error_set(cause, "'%s' is not a number variable", name);
	if (record == EXPR_LATEST) {
		if (!dv->set[i])
			return EXPR_UNSET;
		*out = dv->num[i];
		return 0;
	}
	at = dv->subset[record] * dv->nr + i;
	if (!dv->rset[at])
		return EXPR_UNSET;
	*out = dv->rnum[at];
	return 0;
}

static void
data_read_lines(struct data_vars *dv, const char *buf, size_t len)
{
	const struct program		*p = dv->p;
	struct program_capture		 caps[PROGRAM_MAX_CAPTURES];
	const struct program_line	*pl;
	const char			*line = buf, *end = buf + len, *nl;
	size_t				 i, j, k;
	int				 marked = 0, matched, record;

	for (i = 0; i < p->nr_lines; i++)
		marked |= p->lines[i].record;
	while (line < end) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		matched = record = 0;
		for (i = 0; i < p->nr_lines; i++) {
			pl = &p->lines[i];
			if (!program_line_match(pl, line, (size_t)(nl - line),
			    caps))
				continue;
			matched = 1;
			record |= pl->record;
			for (j = 0; j < pl->nr_names; j++) {
				k = data_var_index(dv, pl->names[j]);
				dv->set[k] = 1;
				if (pl->is_word[j]) {
					free(dv->word[k]);
					dv->word[k] = xstrndup(caps[j].word,
					    caps[j].word_len);
				} else
					dv->num[k] = caps[j].number;
			}
		}
		if (record || (!marked && matched))
			data_vars_record(dv);
		line = nl + 1;
	}
}

static json_t *
data_json_path(json_t *v, const char *path)
{
	char		*copy = xstrdup(path), *tok, *save = NULL, *end;
	unsigned long	 idx;

	for (tok = strtok_r(copy, ".", &save); tok != NULL && v != NULL;
	    tok = strtok_r(NULL, ".", &save)) {
		if (json_is_array(v)) {
			idx = strtoul(tok, &end, 10);
			v = *end == '\0' && isdigit((unsigned char)*tok) ?
			    json_array_get(v, idx) : NULL;
		} else if (json_is_object(v))
			v = json_object_get(v, tok);
		else
			v = NULL;
	}
	free(copy);
	return v;
}

static int
data_read_json(struct data_vars *dv, const char *buf, size_t len,
    char **cause)
{
	const struct program	*p = dv->p;
	json_error_t		 jerr;
	json_t			*root, *arr, *el, *v, *wrap = NULL;
	size_t			 i, j, k;

	if ((root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr)) ==
	    NULL)
		return error_set(cause, "its JSON output does not parse: %s "
		    "at line %d", jerr.text, jerr.line);
	arr = p->json_records != NULL && strcmp(p->json_records, ".") != 0 ?
	    data_json_path(root, p->json_records) : root;
	if (json_is_object(arr)) {
		/* one record: the object itself (iperf3's "end") */
		wrap = json_array();
		json_array_append(wrap, arr);
		arr = wrap;
	}
	if (!json_is_array(arr)) {
		json_decref(root);
		return error_set(cause, "its JSON output has no array or "
		    "object at '%s'", p->json_records);
	}
	json_array_foreach(arr, i, el) {
		for (j = 0; j < p->nr_json_vars; j++) {
			k = data_var_index(dv, p->json_vars[j].name);
			v = data_json_path(el, p->json_vars[j].path);
			dv->set[k] = json_is_number(v) &&
			    isfinite(json_number_value(v));
			dv->num[k] = dv->set[k] ? json_number_value(v) : 0;
		}
		data_vars_record(dv);
	}
	/* the latest value of each: that of the last record that has it */
	for (k = 0; k < dv->nr; k++) {
		dv->set[k] = 0;
		for (i = dv->nr_records; i-- > 0;) {
			if (dv->rset[i * dv->nr + k]) {
				dv->set[k] = 1;
				dv->num[k] = dv->rnum[i * dv->nr + k];
				break;
			}
		}
	}
	json_decref(wrap);
	json_decref(root);
	return 0;
}

static int
data_name_ok(const char *s)
{
	if (*s == '\0' || strlen(s) > DATA_MAX_NAME)
		return 0;
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s <= ' ' || *s == ':' || *s == 0x7f)
			return 0;
	}
	return 1;
}

/* One metric over the records in dv->subset (a group, or all). */
static int
data_metric(struct data_vars *dv, const struct program_metric *m,
    const char *name, struct strbuf *metrics, char **cause)
{
	struct expr_env	 env = { data_vars_lookup, dv, dv->nr_subset, 1 };
	double		 v, *latest = NULL;
	int		*was = NULL;
	size_t		 i, n = 0, last;
	int		 r = -1, rr;

	if (!data_name_ok(name))
		return error_set(cause, "'%s' is not a metric name", name);
	if (dv->nr_subset < dv->nr_records && dv->nr_subset > 0) {
		/* the latest values are the group's last record's */
		latest = dv->num;
		was = dv->set;
		dv->num = xcalloc(dv->nr + 1, sizeof *dv->num);
		dv->set = xcalloc(dv->nr + 1, sizeof *dv->set);
		last = dv->subset[dv->nr_subset - 1] * dv->nr;
		for (i = 0; i < dv->nr; i++) {
			dv->num[i] = dv->rnum[last + i];
			dv->set[i] = dv->rset[last + i];
		}
	}
	if (m->instances != NULL) {
		for (i = 0; i < dv->nr_subset; i++) {
			rr = expr_eval_at(m->instances, &env, i, &v, cause);
			if (rr < 0)
				goto out;
			if (rr == 0)
				strbuf_addf(metrics, "%s.%zu: %.17g\n", name,
				    n++, v);
		}
		if (n == 0 && m->value == NULL) {
			error_set(cause, "no record has a value of '%s'",
			    name);
			goto out;
		}
	}
	if (m->value != NULL) {
		if (expr_eval(m->value, &env, &v, cause) != 0)
			goto out;
		strbuf_addf(metrics, "%s: %.17g\n", name, v);
	}
	r = 0;
out:
	if (latest != NULL) {
		free(dv->num);
		free(dv->set);
		dv->num = latest;
		dv->set = was;
	}
	return r;
}

static int
data_metrics(struct data_vars *dv, struct strbuf *metrics, char **cause)
{
	const struct program_metric	*m;
	struct strbuf			 name = STRBUF_INIT;
	char				*why = NULL;
	const char			*w, *brace, *close;
	size_t				 i, j, k, g;
	int				 r = 0;

	dv->subset = xcalloc(dv->nr_records + 1, sizeof *dv->subset);
	for (i = 0; i < dv->p->nr_metrics; i++) {
		m = &dv->p->metrics[i];
		if (m->group == NULL) {
			for (j = 0; j < dv->nr_records; j++)
				dv->subset[j] = j;
			dv->nr_subset = dv->nr_records;
			if (data_metric(dv, m, m->name, metrics, &why) != 0 &&
			    !m->optional && r == 0)
				r = error_set(cause, "%s printed no value for "
				    "'%s': %s", dv->p->name, m->name, why);
			free(why);
			why = NULL;
			continue;
		}
		g = data_var_index(dv, m->group);
		brace = strchr(m->name, '{');
		close = strchr(brace, '}');
		for (j = 0; j < dv->nr_records; j++) {
			w = dv->rword[j * dv->nr + g];
			if (w == NULL)
				continue;
			for (k = 0; k < j; k++) {
				if (dv->rword[k * dv->nr + g] != NULL &&
				    strcmp(dv->rword[k * dv->nr + g], w) == 0)
					break;
			}
			if (k < j)
				continue;
			dv->nr_subset = 0;
			for (k = j; k < dv->nr_records; k++) {
				if (dv->rword[k * dv->nr + g] != NULL &&
				    strcmp(dv->rword[k * dv->nr + g], w) == 0)
					dv->subset[dv->nr_subset++] = k;
			}
			strbuf_reset(&name);
			strbuf_add(&name, m->name, (size_t)(brace - m->name));
			strbuf_addstr(&name, w);
			strbuf_addstr(&name, close + 1);
			if (data_metric(dv, m, name.buf, metrics, &why) != 0 &&
			    !m->optional && r == 0)
				r = error_set(cause, "%s printed no value for "
				    "'%s': %s", dv->p->name, name.buf, why);
			free(why);
			why = NULL;
		}
	}
	strbuf_release(&name);
	return r;
}

/* dr: the run's parameters, for the output file's name. */
static int
data_parse(const struct program *p, struct data_run *dr, const char *out,
    size_t len, struct strbuf *metrics, char **cause)
{
	struct data_vars	 dv;
	char			*path = NULL, *buf = NULL;
	size_t			 blen, start;
	int			 r = -1;

	data_vars_init(&dv, p);
	if (p->from != NULL) {
		if (data_expand(dr, p->from, &path, cause) != 0)
			goto out;
		if (file_read_tail(path, DATA_MAX_OUTPUT, &buf, &blen,
		    cause) != 0)
			goto out;
		out = buf;
		len = blen;
	}
	if (p->json_records != NULL) {
		if (data_read_json(&dv, out, len, cause) != 0)
			goto out;
	} else
		data_read_lines(&dv, out, len);
	start = metrics->len;
	r = data_metrics(&dv, metrics, cause);
	/* Optional metrics or groups may each be absent, not all of them. */
	if (r == 0 && metrics->len == start)
		r = error_set(cause, "%s printed none of its metrics", p->name);
out:
	free(path);
	free(buf);
	data_vars_release(&dv);
	return r;
}

int
testcase_data_metrics(const struct program *p, const char *resultdir,
    const char *out, size_t len, struct strbuf *metrics, char **cause)
{
	struct testcase_ctx	ctx;
	struct data_run		dr = { p, &ctx, NULL };
	int			r;

	memset(&ctx, 0, sizeof ctx);
	ctx.resultdir = resultdir != NULL ? resultdir : ".";
	ctx.workdir = ".";
	dr.vals = xcalloc(p->nr_params + 1, sizeof *dr.vals);
	r = data_parse(p, &dr, out, len, metrics, cause);
	data_run_release(&dr);
	return r;
}

int
testcase_data_parse(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, const char *out, size_t len,
    struct strbuf *metrics, char **cause)
{
	struct data_run	dr = { ad->data, ctx, NULL };
	int		r = -1;

	if (data_resolve(&dr, cause) == 0)
		r = data_parse(ad->data, &dr, out, len, metrics, cause);
	data_run_release(&dr);
	return r;
}
