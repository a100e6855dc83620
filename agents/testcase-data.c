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
#include "agents/testcase-data.h"
#include "jobs/expr.h"
#include "jobs/job.h"
#include "jobs/program.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define DATA_MAX_REPEAT		1000000

void
testcase_data_release(struct data_run *dr)
{
	size_t	i;

	for (i = 0; dr->vals != NULL && i < dr->p->nr_params; i++)
		free(dr->vals[i].text);
	free(dr->vals);
	dr->vals = NULL;
}

static int
testcase_data_param_lookup(void *payload, size_t record, const char *name,
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
testcase_data_number_text(struct strbuf *sb, double v)
{
	if (v == floor(v) && fabs(v) < 1e18)
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.17g", v);
}

static int
testcase_data_eval(struct data_run *dr, const char *text, double *out,
    char **cause)
{
	struct expr_env	 env = { testcase_data_param_lookup, dr, 0, 0 };
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

int
testcase_data_resolve(struct data_run *dr, char **cause)
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
		if (testcase_data_eval(dr, pp->dflt + 1, &dv->number, cause) != 0)
			return error_prefix(cause, "the default of '%s'",
			    pp->name);
		if (dv->number != floor(dv->number) || dv->number < (pp->type ==
		    PROGRAM_INTEGER ? (double)pp->min : 1))
			return error_set(cause, "the default of '%s' is %g, "
			    "not a whole number in range", pp->name,
			    dv->number);
		strbuf_reset(&sb);
		testcase_data_number_text(&sb, dv->number);
		dv->text = strbuf_detach(&sb, NULL);
		dv->set = 1;
	}
	strbuf_release(&sb);
	return 0;
}

int
testcase_data_expand(struct data_run *dr, const char *tmpl, char **out,
    char **cause)
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
			if (testcase_data_eval(dr, inner + 1, &v, cause) != 0) {
				error_prefix(cause, "'{%s}'", inner);
				goto out;
			}
			testcase_data_number_text(&sb, v);
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
testcase_data_args(struct data_run *dr, const struct program_arg *args,
    size_t nr, struct testcase_argv *argv, char **cause)
{
	const struct program_arg	*a;
	const struct data_value		*dv;
	char				*s;
	size_t				 i, j;
	int				 holds;

	for (i = 0; i < nr; i++) {
		a = &args[i];
		if (a->cond == PROGRAM_ARG_PLAIN) {
			if (testcase_data_expand(dr, a->text, &s, cause) != 0)
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
		if (holds ? testcase_data_args(dr, a->then, a->nr_then, argv,
		    cause) : testcase_data_args(dr, a->otherwise, a->nr_otherwise, argv,
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

	if (testcase_data_resolve(&dr, cause) != 0)
		goto out;
	for (i = 0; i < dr.p->nr_mkdir && !ctx->dry_run; i++) {
		if (testcase_data_expand(&dr, dr.p->mkdir[i], &dir, cause) != 0 ||
		    dir_create(dir, cause) != 0)
			goto out;
		free(dir);
		dir = NULL;
	}
	if (testcase_data_args(&dr, dr.p->argv, dr.p->nr_argv, argv, cause) != 0)
		goto out;
	r = 0;
out:
	free(dir);
	testcase_data_release(&dr);
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
	if (testcase_data_resolve(&dr, &why) != 0)
		goto out;
	for (i = 0; i < p->nr_mkdir && dr.missing == NULL; i++) {
		free(text);
		text = NULL;
		(void)testcase_data_expand(&dr, p->mkdir[i], &text, &why);
	}
	for (i = 0; i < p->nr_steps && dr.missing == NULL; i++)
		(void)testcase_data_args(&dr, p->steps[i].argv, p->steps[i].nr_argv,
		    &argv, &why);
	if (dr.missing == NULL)
		(void)testcase_data_args(&dr, p->argv, p->nr_argv, &argv, &why);
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
	testcase_data_release(&dr);
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
testcase_data_step(struct data_run *dr, const struct testcase_adapter *ad,
    const struct program_step *st, struct testcase_argv *w, char **cause)
{
	struct testcase_argv	 one = { NULL, 0 };
	char			*path;
	size_t			 i;
	int			 r = -1;

	if (testcase_data_args(dr, st->argv, st->nr_argv, &one, cause) != 0)
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
testcase_data_repeat(struct data_run *dr, char *kind, unsigned long *n,
    char **cause)
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
		if (testcase_data_expand(dr, tmpl[i], &text, &why) != 0) {
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
	if (testcase_data_resolve(&dr, cause) != 0)
		goto out;
	if (testcase_data_repeat(&dr, &kind, &n, cause) != 0)
		goto out;
	log = path_join(ctx->resultdir, "setup.log");
	testcase_argv_add(&w, "/bin/sh");
	testcase_argv_add(&w, "-c");
	testcase_argv_add(&w, "%s", testcase_data_script);
	testcase_argv_add(&w, "%s-run", ad->name);
	testcase_argv_add(&w, "%s", log);
	for (i = 0; i < ad->data->nr_steps; i++) {
		if (testcase_data_step(&dr, ad, &ad->data->steps[i], &w, cause) != 0)
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
	testcase_data_release(&dr);
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

	if (testcase_data_resolve(&dr, cause) != 0)
		goto out;
	for (i = 0; i < ad->data->nr_steps; i++) {
		st = &ad->data->steps[i];
		testcase_argv_release(&one);
		if (testcase_data_args(&dr, st->argv, st->nr_argv, &one, cause) != 0)
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
	testcase_data_release(&dr);
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

	if (testcase_data_resolve(&dr, cause) == 0 &&
	    testcase_data_repeat(&dr, &kind, &n, cause) == 0) {
		if (kind == 'T')
			strbuf_addf(sb, " (again until %lu s have passed)", n);
		else
			strbuf_addf(sb, " (%lu time%s)", n, n == 1 ? "" : "s");
		r = 0;
	}
	testcase_data_release(&dr);
	return r;
}
