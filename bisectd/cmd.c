/*
 * What several bisectctl commands share: parsing their options by their
 * table entries, opening the context with a message, usage errors,
 * progress lines, compare tables.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisectd/cmd.h"
#include "bisectd/report.h"
#include "schema/store.h"
#include "util/fd.h"
#include "util/strbuf.h"
#include "util/term.h"
#include "util/xalloc.h"

const struct cmd_option cmd_options_json[] = {
	{ "json", 'j', 0 },
	{ NULL, 0, 0 }
};

static void
cmd_args_release(struct cmd_args *args)
{
	free(args->values);
	memset(args, 0, sizeof *args);
}

static int
cmd_args_parse(const struct cmd_entry *entry, int argc, char **argv,
    struct cmd_args *args)
{
	const struct cmd_option	*o, *opts = entry->args.options;
	struct option		*longopts;
	struct strbuf		 shortopts = STRBUF_INIT;
	size_t			 n = 0, alloc = 0, i;
	int			 c, r = -1;

	memset(args, 0, sizeof *args);
	for (o = opts; o != NULL && o->name != NULL; o++)
		n++;
	longopts = xcalloc(n + 1, sizeof *longopts);
	for (i = 0; i < n; i++) {
		longopts[i].name = opts[i].name;
		longopts[i].has_arg = opts[i].flags & CMD_ARG ?
		    required_argument : no_argument;
		longopts[i].val = opts[i].letter;
		if (opts[i].flags & CMD_SHORT)
			strbuf_addf(&shortopts, "%c%s", opts[i].letter,
			    opts[i].flags & CMD_ARG ? ":" : "");
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts.buf, longopts,
	    NULL)) != -1) {
		for (i = 0; i < n && opts[i].letter != c; i++)
			;
		if (i == n)
			goto out;
		ALLOC_GROW(args->values, args->nr_values, alloc);
		args->values[args->nr_values].letter = c;
		args->values[args->nr_values++].value =
		    opts[i].flags & CMD_ARG ? optarg : NULL;
	}
	args->argc = argc - optind;
	args->argv = argv + optind;
	if (args->argc < entry->args.lower || (entry->args.upper >= 0 &&
	    args->argc > entry->args.upper))
		goto out;
	r = 0;
out:
	if (r != 0)
		cmd_args_release(args);
	free(longopts);
	strbuf_release(&shortopts);
	return r;
}

int
cmd_exec(const struct cmd_entry *entry, const char *config, int argc,
    char **argv)
{
	struct cmd_args	args;
	int		r;

	if (cmd_args_parse(entry, argc, argv, &args) != 0)
		return cmd_usage(entry);
	r = entry->exec(config, &args);
	cmd_args_release(&args);
	return r;
}

int
cmd_args_has(const struct cmd_args *args, int letter)
{
	size_t	i;
	int	n = 0;

	for (i = 0; i < args->nr_values; i++)
		n += args->values[i].letter == letter;
	return n;
}

const char *
cmd_args_get(const struct cmd_args *args, int letter)
{
	const char	*v = NULL;
	size_t		 i;

	for (i = 0; i < args->nr_values; i++) {
		if (args->values[i].letter == letter)
			v = args->values[i].value;
	}
	return v;
}

size_t
cmd_args_values(const struct cmd_args *args, int letter, const char ***out)
{
	const char	**v = NULL;
	size_t		  i, n = 0;

	for (i = 0; i < args->nr_values; i++) {
		if (args->values[i].letter != letter)
			continue;
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n++] = args->values[i].value;
	}
	*out = v;
	return n;
}

int
cmd_open(const char *config, struct context **out)
{
	char	*cause = NULL;

	if (context_open(config, out, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		free(cause);
		return CMD_USAGE;
	}
	return CMD_OK;
}

int
cmd_usage(const struct cmd_entry *entry)
{
	fprintf(stderr, "usage: bisectctl [-c FILE] %s %s\n", entry->name,
	    entry->usage);
	return CMD_USAGE;
}

int
cmd_parse_id(const char *s, int64_t *id)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v <= 0)
		return -1;
	*id = v;
	return 0;
}

static long long
cmd_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "1m12s", "45s", "2h03m". */
static void
cmd_duration(struct strbuf *sb, double s)
{
	long	t = lround(s < 0 ? 0 : s);

	if (t >= 3600)
		strbuf_addf(sb, "%ldh%02ldm", t / 3600, t % 3600 / 60);
	else if (t >= 60)
		strbuf_addf(sb, "%ldm%02lds", t / 60, t % 60);
	else
		strbuf_addf(sb, "%lds", t);
}

static int
cmd_progress_kind(struct context *ctx, int64_t request, struct cmd_progress *p)
{
	struct store_request	rq;

	if (p->kind != 0)
		return 0;
	if (store_request_get(ctx->store, request, &rq, NULL) != 0)
		return -1;
	p->kind = strcmp(rq.kind, "bisect") == 0 ? 1 : 2;
	store_request_release(&rq);
	return 0;
}

/* The request's own state: a bisection's step, else what it waits for. */
static char *
cmd_progress_state(struct context *ctx, int64_t request,
    const struct cmd_progress *p, const struct store_progress *n)
{
	struct store_bisection	b;
	char			*s = NULL;

	if (p->kind == 1) {
		if (store_bisection_get(ctx->store, request, &b, NULL) != 0)
			return NULL;
		if (b.progress != NULL)
			s = xstrdup(b.progress);
		store_bisection_release(&b);
		return s;
	}
	return xasprintf("request %lld: waiting for its %d run%s (%d done, "
	    "%d failed)", (long long)request, n->pending + n->running +
	    n->done + n->failed, n->pending + n->running + n->done +
	    n->failed == 1 ? "" : "s", n->done, n->failed);
}

void
cmd_progress_tick(struct context *ctx, int64_t request, void *payload)
{
	struct cmd_progress	*p = payload;
	struct store_progress	 n;
	struct strbuf		 line = STRBUF_INIT, esc = STRBUF_INIT;
	char			*state;
	long long		 now = cmd_now_ms();
	double			 elapsed, left;
	int			 wanted, changed;

	if (p->start_ms == 0) {
		p->start_ms = now;
		p->done0 = -1;
	}
	if (p->tty == 0 && p->last == NULL && !p->shown)
		p->tty = isatty(STDERR_FILENO) ? 1 : -1;
	if (cmd_progress_kind(ctx, request, p) != 0 ||
	    store_progress_get(ctx->store, request, p->kind == 1, &n,
	    NULL) != 0 || (state = cmd_progress_state(ctx, request, p,
	    &n)) == NULL)
		return;
	if (p->done0 < 0)
		p->done0 = n.done;
	changed = p->last == NULL || strcmp(p->last, state) != 0;
	if (p->tty < 0) {
		if (changed)
			fprintf(stderr, "%s\n", state);
		goto out;
	}
	if (!changed && now - p->drawn_ms < 1000)
		goto out;
	p->drawn_ms = now;
	elapsed = (double)(now - p->start_ms) / 1000;
	wanted = n.pending + n.running;
	strbuf_addstr(&line, state);
	if (p->kind == 1) {
		strbuf_addf(&line, " | runs: %d done, %d running, %d to go",
		    n.done, n.running, n.pending);
		if (n.failed > 0)
			strbuf_addf(&line, ", %d failed", n.failed);
	} else
		strbuf_addf(&line, ", %d running", n.running);
	strbuf_addstr(&line, " | ");
	cmd_duration(&line, elapsed);
	/* the pace of this wait, else what a run took before */
	left = -1;
	if (n.done > p->done0 && elapsed > 0)
		left = elapsed * wanted / (n.done - p->done0);
	else if (n.mean_run_s > 0)
		left = n.mean_run_s * wanted / (n.running > 0 ? n.running : 1);
	if (wanted > 0 && left >= 0) {
		strbuf_addstr(&line, p->kind == 1 ? ", this step about " :
		    ", about ");
		cmd_duration(&line, left);
		strbuf_addstr(&line, " left");
	}
	/* our own escape sequences only: the text itself is shown safe */
	strbuf_addch(&esc, '\r');
	term_escape(&esc, line.buf, line.len);
	strbuf_addstr(&esc, "\033[K");
	fd_write_all(STDERR_FILENO, esc.buf, esc.len);
	p->shown = 1;
out:
	if (changed) {
		free(p->last);
		p->last = state;
		state = NULL;
	}
	free(state);
	strbuf_release(&line);
	strbuf_release(&esc);
}

void
cmd_progress_done(struct cmd_progress *p)
{
	if (p->shown && p->tty > 0)
		fd_write_all(STDERR_FILENO, "\n", 1);
	p->shown = 0;
	free(p->last);
	p->last = NULL;
}

/*
 * queue --wait and show: the tables with any drift flagged at the top
 * (compare itself refuses drift unless --allow-drift).
 */
int
cmd_print_compare(struct context *ctx, int64_t request, int all, int json)
{
	struct strbuf	 out = STRBUF_INIT;
	struct store_request rq;
	char		*cause = NULL;
	json_t		*jo = NULL;
	size_t		 missing = 0;
	int		 refused = 0, r = CMD_OK, over = 0;

	if (json)
		jo = json_pack("{s:I, s:[], s:[]}", "request",
		    (json_int_t)request, "drift", "comparisons");
	if (report_compare_request(&out, ctx, request, all, 1, &refused,
	    &missing, jo, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		r = CMD_FAILED;
		goto out;
	}
	if (json)
		cmd_print_json(jo);
	else
		fputs(out.buf, stdout);
	/* runs still to come are not missing (show of a queue) */
	if (missing > 0 && store_request_get(ctx->store, request, &rq,
	    NULL) == 0) {
		over = rq.status == STORE_REQUEST_DONE ||
		    rq.status == STORE_REQUEST_FAILED;
		store_request_release(&rq);
	}
	if (missing > 0 && over) {
		fprintf(stderr, "error: request %lld has no samples at %zu of "
		    "its commits: every run there failed\n", (long long)request,
		    missing);
		r = CMD_FAILED;
	}
out:
	json_decref(jo);
	strbuf_release(&out);
	free(cause);
	return r;
}

void
cmd_print_json(json_t *o)
{
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(12));
	putchar('\n');
}
