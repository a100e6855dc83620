/*
 * The table of testcase adapters -- the C ones, then one for each
 * program file -- and what they share: building an argv, finding a
 * program in PATH, and reading the LKP-style parameters (nr_threads as
 * a count or a percentage of the CPUs, sizes with units, words from a
 * list). A parameter that is out of range or misspelt is an error of the
 * run with the key named, never a silent default.
 */
#include <pthread.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/result.h"
#include "agents/testcase.h"
#include "jobs/job.h"
#include "jobs/program.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define TESTCASE_MAX_COUNT	1000000

static const struct testcase_adapter *const testcase_table[] = {
	&testcase_stress_ng,
	&testcase_vmscale,
	&testcase_fio,
	&testcase_fio_basic,
};

static pthread_once_t			 testcase_once = PTHREAD_ONCE_INIT;
static struct testcase_adapter		*testcase_data;
static size_t				 testcase_nr_data;

static void
testcase_data_load(void)
{
	const struct program *const	*t;
	struct testcase_adapter		*ad;
	size_t				 nr, i;

	if (program_table(&t, &nr, NULL) != 0)
		nr = 0;
	testcase_data = xcalloc(nr + 1, sizeof *testcase_data);
	for (i = 0; i < nr; i++) {
		ad = &testcase_data[testcase_nr_data++];
		ad->name = t[i]->name;
		ad->package = t[i]->package;
		ad->data = t[i];
		ad->command = testcase_data_command;
		ad->parse = testcase_data_parse;
	}
}

const struct testcase_adapter *
testcase_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof testcase_table / sizeof testcase_table[0];
	    i++) {
		if (strcmp(testcase_table[i]->name, name) == 0)
			return testcase_table[i];
	}
	pthread_once(&testcase_once, testcase_data_load);
	for (i = 0; i < testcase_nr_data; i++) {
		if (strcmp(testcase_data[i].name, name) == 0)
			return &testcase_data[i];
	}
	return NULL;
}

void
testcase_quote(struct strbuf *sb, const char *s)
{
	const char	*p;

	if (*s != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:%@") == strlen(s)) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '\'');
}

int
testcase_describe(const struct job *job, unsigned nr_cpu, char **out,
    char **cause)
{
	const struct testcase_adapter	*ad;
	struct testcase_argv		 argv = { NULL, 0 };
	struct testcase_ctx		 ctx;
	struct strbuf			 sb = STRBUF_INIT;
	size_t				 i;
	int				 r = -1;

	*out = NULL;
	if (job->run != NULL) {
		*out = xstrdup(job->run);
		return 0;
	}
	if ((ad = testcase_find(job->testcase)) == NULL)
		return error_set(cause, "testcase '%s' has no 'run:' command "
		    "and no adapter", job->testcase);
	memset(&ctx, 0, sizeof ctx);
	ctx.job = job;
	ctx.workdir = "WORKDIR";
	ctx.resultdir = "RESULTDIR";
	ctx.self = "bisect-agent";
	ctx.nr_cpu = nr_cpu > 0 ? nr_cpu : 1;
	ctx.dry_run = 1;
	if (ad->command(ad, &ctx, &argv, cause) != 0)
		goto out;
	if (ad->data != NULL && testcase_data_describe(ad, &ctx, &sb,
	    cause) != 0)
		goto out;
	for (i = 0; i < argv.nr; i++) {
		if (i > 0)
			strbuf_addch(&sb, ' ');
		testcase_quote(&sb, argv.v[i]);
	}
	if (ad->data != NULL && (ad->data->repeat != NULL ||
	    ad->data->repeat_for != NULL) &&
	    testcase_data_repeat_count(ad, &ctx, &sb, cause) != 0)
		goto out;
	*out = strbuf_detach(&sb, NULL);
	r = 0;
out:
	strbuf_release(&sb);
	testcase_argv_release(&argv);
	return r;
}

static int
testcase_cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *
testcase_names(void)
{
	struct strbuf	  sb = STRBUF_INIT;
	const char	**v;
	size_t		  nr = 0, i;

	pthread_once(&testcase_once, testcase_data_load);
	v = xcalloc(testcase_nr_data + sizeof testcase_table /
	    sizeof testcase_table[0] + 1, sizeof *v);
	for (i = 0; i < sizeof testcase_table / sizeof testcase_table[0]; i++)
		v[nr++] = testcase_table[i]->name;
	for (i = 0; i < testcase_nr_data; i++)
		v[nr++] = testcase_data[i].name;
	qsort(v, nr, sizeof *v, testcase_cmp_name);
	for (i = 0; i < nr; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", v[i]);
	free(v);
	return strbuf_detach(&sb, NULL);
}

void
testcase_argv_add(struct testcase_argv *a, const char *fmt, ...)
{
	struct strbuf	sb = STRBUF_INIT;
	va_list		ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	a->v = xreallocarray(a->v, a->nr + 2, sizeof *a->v);
	a->v[a->nr++] = strbuf_detach(&sb, NULL);
	a->v[a->nr] = NULL;
}

void
testcase_argv_release(struct testcase_argv *a)
{
	size_t	i;

	for (i = 0; i < a->nr; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->nr = 0;
}

char *
testcase_which(const char *program)
{
	const char	*path = getenv("PATH"), *p, *colon;
	struct stat	 st;
	char		*full;
	size_t		 len;

	if (strchr(program, '/') != NULL)
		return access(program, X_OK) == 0 ? xstrdup(program) : NULL;
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p != '\0'; p = *colon ? colon + 1 : colon) {
		colon = strchr(p, ':');
		if (colon == NULL)
			colon = p + strlen(p);
		len = (size_t)(colon - p);
		full = len == 0 ? xstrdup(program) :
		    xasprintf("%.*s/%s", (int)len, p, program);
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(full, X_OK) == 0)
			return full;
		free(full);
	}
	return NULL;
}

int
testcase_covers(const struct testcase_adapter *ad, const char *name)
{
	size_t	i;

	if (ad == NULL)
		return 0;
	if (ad->data != NULL)
		return program_covers(ad->data, name);
	for (i = 0; ad->programs != NULL && ad->programs[i] != NULL; i++) {
		if (strcmp(ad->programs[i], name) == 0)
			return 1;
	}
	return 0;
}

const char *
testcase_job_value(const struct job *job, const char *key)
{
	const struct testcase_adapter	*ad;
	const char			*v = job_param(job, key);
	char				*k;
	size_t				 i;

	if (v != NULL || (ad = testcase_find(job->testcase)) == NULL ||
	    ad->data != NULL)
		return v;
	for (i = 0; v == NULL && ad->programs != NULL &&
	    ad->programs[i] != NULL; i++) {
		k = xasprintf("%s.%s", ad->programs[i], key);
		v = job_param(job, k);
		free(k);
	}
	return v;
}

int
testcase_count(const struct testcase_ctx *ctx, const char *key,
    const char *dflt, unsigned *out, char **cause)
{
	const char		*v = testcase_job_value(ctx->job, key), *p;
	unsigned long long	 n = 0;
	int			 pct = 0;

	if (v == NULL)
		v = dflt;
	for (p = v; isdigit((unsigned char)*p) && n <= TESTCASE_MAX_COUNT;
	    p++)
		n = n * 10 + (unsigned)(*p - '0');
	if (*p == '%') {
		pct = 1;
		p++;
	}
	if (p == v || *p != '\0' || n == 0 || n > TESTCASE_MAX_COUNT)
		return error_set(cause, "'%s' must be a count or a percentage "
		    "of the CPUs (like 4 or 100%%), not '%s'", key, v);
	if (pct) {
		n = n * (ctx->nr_cpu > 0 ? ctx->nr_cpu : 1) / 100;
		if (n == 0)
			n = 1;
	}
	if (n > TESTCASE_MAX_COUNT)
		return error_set(cause, "'%s' asks for %llu tasks, more than "
		    "%u", key, n, TESTCASE_MAX_COUNT);
	*out = (unsigned)n;
	return 0;
}

int
testcase_check_count(const struct job *job, const char *key, char **cause)
{
	struct program_param	 pp;
	const char		*v = testcase_job_value(job, key);
	double			 n;

	if (v == NULL)
		return 0;
	memset(&pp, 0, sizeof pp);
	pp.name = (char *)key;
	pp.type = PROGRAM_COUNT;
	return program_value(&pp, v, 0, &n, NULL, cause);
}

int
testcase_size(const struct testcase_ctx *ctx, const char *key,
    unsigned long long dflt, unsigned long long *out, char **cause)
{
	const char		*v = testcase_job_value(ctx->job, key);
	char			*end;
	unsigned long long	 n;
	int			 shift = 0;

	if (v == NULL) {
		*out = dflt;
		return 0;
	}
	errno = 0;
	n = strtoull(v, &end, 10);
	switch (*end) {
	case 'K': case 'k':
		shift = 10;
		break;
	case 'M': case 'm':
		shift = 20;
		break;
	case 'G': case 'g':
		shift = 30;
		break;
	case 'T': case 't':
		shift = 40;
		break;
	}
	if (shift > 0)
		end++;
	if (!isdigit((unsigned char)v[0]) || errno != 0 || *end != '\0' ||
	    n == 0 || n > (~0ULL >> shift) >> 1)
		return error_set(cause, "'%s' must be a size like 64M or 1G, "
		    "not '%s'", key, v);
	*out = n << shift;
	return 0;
}

int
testcase_word(const struct testcase_ctx *ctx, const char *key,
    const char *const *words, const char *dflt, const char **out,
    char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	const char	*v = testcase_job_value(ctx->job, key);
	size_t		 i;

	if (v == NULL)
		v = dflt;
	for (i = 0; words[i] != NULL; i++) {
		if (strcmp(words[i], v) == 0) {
			*out = words[i];
			strbuf_release(&sb);
			return 0;
		}
		strbuf_addf(&sb, "%s%s", i ? ", " : "", words[i]);
	}
	error_set(cause, "'%s' must be one of %s, not '%s'", key, sb.buf, v);
	strbuf_release(&sb);
	return -1;
}

int
testcase_prepare(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, struct testcase_argv *argv,
    struct result *r)
{
	char	*cause = NULL, *path;

	if (ad->command(ad, ctx, argv, &cause) != 0) {
		result_set_error(r, "testcase '%s': %s", ad->name, cause);
		free(cause);
		return -1;
	}
	if ((path = testcase_which(argv->v[0])) == NULL) {
		result_set_error(r, "testcase '%s' needs '%s', which is not "
		    "installed%s%s%s", ad->name, argv->v[0], ad->package ?
		    " (Debian package " : "", ad->package ? ad->package : "",
		    ad->package ? ")" : "");
		return -1;
	}
	free(argv->v[0]);
	argv->v[0] = path;
	if (ad->data != NULL && testcase_data_wrap(ad, ctx, argv,
	    &cause) != 0) {
		result_set_error(r, "testcase '%s': %s", ad->name, cause);
		free(cause);
		return -1;
	}
	return 0;
}

void
testcase_metrics(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, const char *buf, size_t len,
    struct result *r)
{
	struct strbuf	 metrics = STRBUF_INIT;
	char		*cause = NULL, *path;

	if (ad->parse(ad, ctx, buf, len, &metrics, &cause) != 0) {
		result_set_error(r, "testcase '%s': %s", ad->name, cause);
		free(cause);
	}
	path = path_join(ctx->resultdir, "stats.log");
	if (file_write_atomic(path, metrics.buf, metrics.len, &cause) != 0) {
		fprintf(stderr, "bisect-agent: %s\n", cause);
		free(cause);
	}
	free(path);
	result_output_parse(r, ctx->job->testcase, metrics.buf, metrics.len);
	strbuf_release(&metrics);
}
