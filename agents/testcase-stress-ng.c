/*
 * stress-ng: the stressor named by "test" with nr_threads instances for
 * testtime seconds and LKP's options, its bogo ops and ops per second read
 * from the YAML it writes, or from its output table when it writes none
 * (docs/design.md, "File notes").
 */
#include <yaml.h>

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/monitor-tool.h"
#include "agents/testcase.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define STRESS_NG_YAML	"stress-ng.yaml"
#define STRESS_NG_MAX	(16u << 20)

static int
testcase_stress_ng_name(const char *s)
{
	const char	*p;

	if (!isalpha((unsigned char)s[0]))
		return 0;
	for (p = s; *p != '\0'; p++) {
		if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_'))
			return 0;
	}
	return p - s <= 64;
}

/*
 * LKP's stress-ng options, each given to stress-ng as its option: of the
 * stressor ("method: all" with "test: cpu" is --cpu-method all) or not.
 */
static const struct {
	const char	*key;
	const char	*option;
	int		 of_test;
} testcase_stress_ng_opts[] = {
	{ "method", "method", 1 },
	{ "mode", "mode", 1 },
	{ "type", "type", 1 },
	{ "sched", "sched", 1 },
	{ "advise", "madvise-advise", 0 },
	{ "hdd_opts", "hdd-opts", 0 },
	{ NULL, NULL, 0 },
};

static int
testcase_stress_ng_opt(const char *key, const char *v, char **cause)
{
	if (*v == '\0' || strspn(v, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_,.") != strlen(v) ||
	    strlen(v) > 256)
		return error_set(cause, "'%s' must be a stress-ng option "
		    "value (letters, digits, '-', '_', ',', '.'), not '%s'",
		    key, v);
	return 0;
}

static int
testcase_stress_ng_command(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, struct testcase_argv *argv,
    char **cause)
{
	const char	*test = job_param(ctx->job, "test"), *v;
	char		*yaml;
	unsigned	 n, secs;
	size_t		 i;

	if (test == NULL)
		return error_set(cause, "stress-ng needs 'test': the stressor "
		    "to run (cpu, vm, fork, ...)");
	if (!testcase_stress_ng_name(test))
		return error_set(cause, "'test' must be a stress-ng stressor "
		    "name, not '%s'", test);
	if (testcase_count(ctx, "nr_threads", "100%", &n, cause) != 0)
		return -1;
	yaml = path_join(ctx->resultdir, STRESS_NG_YAML);
	testcase_argv_add(argv, "stress-ng");
	testcase_argv_add(argv, "--%s", test);
	testcase_argv_add(argv, "%u", n);
	/* LKP's stress-ng takes testtime for its --timeout */
	if ((v = job_param(ctx->job, "testtime")) != NULL)
		secs = (unsigned)strtoul(v, NULL, 10);
	else
		secs = ctx->job->runtime > 0 ? ctx->job->runtime : 60;
	testcase_argv_add(argv, "--timeout");
	testcase_argv_add(argv, "%us", secs);
	for (i = 0; testcase_stress_ng_opts[i].key != NULL; i++) {
		if ((v = job_param(ctx->job, testcase_stress_ng_opts[i].key)) ==
		    NULL)
			continue;
		if (testcase_stress_ng_opt(testcase_stress_ng_opts[i].key, v,
		    cause) != 0)
			return -1;
		if (testcase_stress_ng_opts[i].of_test)
			testcase_argv_add(argv, "--%s-%s", test,
			    testcase_stress_ng_opts[i].option);
		else
			testcase_argv_add(argv, "--%s",
			    testcase_stress_ng_opts[i].option);
		testcase_argv_add(argv, "%s", v);
	}
	testcase_argv_add(argv, "--temp-path");
	testcase_argv_add(argv, "%s", ctx->workdir);
	testcase_argv_add(argv, "--metrics-brief");
	testcase_argv_add(argv, "--yaml");
	testcase_argv_add(argv, "%s", yaml);
	free(yaml);
	return 0;
}

static const char *
testcase_stress_ng_scalar(yaml_document_t *doc, yaml_node_t *map,
    const char *key)
{
	yaml_node_pair_t	*pair;
	yaml_node_t		*k, *v;

	for (pair = map->data.mapping.pairs.start;
	    pair < map->data.mapping.pairs.top; pair++) {
		k = yaml_document_get_node(doc, pair->key);
		v = yaml_document_get_node(doc, pair->value);
		if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE ||
		    v->type != YAML_SCALAR_NODE)
			continue;
		if (strcmp((const char *)k->data.scalar.value, key) == 0)
			return (const char *)v->data.scalar.value;
	}
	return NULL;
}

static int
testcase_stress_ng_number(const char *s, double *v)
{
	char	*end;

	if (s == NULL || *s == '\0')
		return -1;
	*v = strtod(s, &end);
	return *end == '\0' ? 0 : -1;
}

/* The "metrics:" list of the YAML file; the number of stressors read. */
static int
testcase_stress_ng_yaml(const char *buf, size_t len, struct strbuf *metrics)
{
	yaml_parser_t		 parser;
	yaml_document_t		 doc;
	yaml_node_t		*root, *k, *v, *item;
	yaml_node_pair_t	*pair;
	yaml_node_item_t	*it;
	const char		*name;
	double			 ops, rate;
	int			 n = 0;

	if (!yaml_parser_initialize(&parser))
		return 0;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_parser_delete(&parser);
		return 0;
	}
	if ((root = yaml_document_get_root_node(&doc)) == NULL ||
	    root->type != YAML_MAPPING_NODE)
		goto out;
	for (pair = root->data.mapping.pairs.start;
	    pair < root->data.mapping.pairs.top; pair++) {
		k = yaml_document_get_node(&doc, pair->key);
		v = yaml_document_get_node(&doc, pair->value);
		if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE ||
		    strcmp((const char *)k->data.scalar.value, "metrics") != 0 ||
		    v->type != YAML_SEQUENCE_NODE)
			continue;
		for (it = v->data.sequence.items.start;
		    it < v->data.sequence.items.top; it++) {
			item = yaml_document_get_node(&doc, *it);
			if (item == NULL || item->type != YAML_MAPPING_NODE)
				continue;
			name = testcase_stress_ng_scalar(&doc, item,
			    "stressor");
			if (name == NULL || !testcase_stress_ng_name(name) ||
			    testcase_stress_ng_number(testcase_stress_ng_scalar(
			    &doc, item, "bogo-ops"), &ops) != 0 ||
			    testcase_stress_ng_number(testcase_stress_ng_scalar(
			    &doc, item, "bogo-ops-per-second-real-time"),
			    &rate) != 0)
				continue;
			strbuf_addf(metrics, "%s.ops: %.17g\n", name, ops);
			strbuf_addf(metrics, "%s.ops_per_sec: %.17g\n", name,
			    rate);
			n++;
		}
	}
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return n;
}

/*
 * "stress-ng: metrc: [9699] cpu  2030  2.02  0.97  0.01  1007.01  2080.42"
 * (older versions say "info:"), after the "(secs)" header line.
 */
static int
testcase_stress_ng_text(const char *out, size_t len, struct strbuf *metrics)
{
	char	*copy = xstrndup(out, len), *save = NULL, *l, *p;
	char	 name[65];
	double	 ops, real, usr, sys, rate;
	int	 table = 0, n = 0;

	for (l = strtok_r(copy, "\n", &save); l != NULL;
	    l = strtok_r(NULL, "\n", &save)) {
		if (strstr(l, "(secs)") != NULL) {
			table = 1;
			continue;
		}
		if (!table || strncmp(l, "stress-ng: ", 11) != 0 ||
		    (p = strchr(l, ']')) == NULL)
			continue;
		if (sscanf(p + 1, "%64s %lf %lf %lf %lf %lf", name, &ops,
		    &real, &usr, &sys, &rate) != 6 ||
		    !testcase_stress_ng_name(name))
			continue;
		strbuf_addf(metrics, "%s.ops: %.17g\n", name, ops);
		strbuf_addf(metrics, "%s.ops_per_sec: %.17g\n", name, rate);
		n++;
	}
	free(copy);
	return n;
}

static int
testcase_stress_ng_parse(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, const char *out, size_t len,
    struct strbuf *metrics, char **cause)
{
	char	*path = path_join(ctx->resultdir, STRESS_NG_YAML), *buf = NULL;
	size_t	 blen;
	int	 n = 0;

	if (file_read(path, &buf, &blen, NULL) == 0 && blen < STRESS_NG_MAX)
		n = testcase_stress_ng_yaml(buf, blen, metrics);
	if (n == 0)
		n = testcase_stress_ng_text(out, len, metrics);
	free(path);
	free(buf);
	if (n == 0)
		return error_set(cause, "stress-ng reported no metrics (no "
		    "'metrics:' in %s, no table in its output)",
		    STRESS_NG_YAML);
	return 0;
}

/*
 * What the installed stress-ng has, asked of it on the machine that
 * checks (as perf bench's benchmarks are, agents/testcase-check.c): its
 * stressors ("stress-ng --stressors") and a stressor option's values
 * ("--TEST-method which" lists them). Debian 12's 0.15.06 lacks many of
 * the stressors and methods lkp-tests' files name. Each answer is kept
 * for the process; a stress-ng that does not answer is not asked again,
 * and nothing is checked (the run says what is missing).
 */
struct stress_ng_known {
	char			*question;	/* "" for the stressors */
	char			*answer;	/* " a b ", "-" none, NULL */
	struct stress_ng_known	*next;
};

static pthread_mutex_t		 stress_ng_known_lock =
				     PTHREAD_MUTEX_INITIALIZER;
static struct stress_ng_known	*stress_ng_known_list;

/* " a b c " of the words after the last ':' (commas too), or NULL. */
static char *
testcase_stress_ng_words(const char *text)
{
	struct strbuf	 sb = STRBUF_INIT;
	const char	*p = strrchr(text, ':'), *w;

	if (p == NULL)
		return NULL;
	strbuf_addch(&sb, ' ');
	for (p++; *p != '\0'; ) {
		while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t')
			p++;
		for (w = p; *p != '\0' && *p != ' ' && *p != ',' &&
		    *p != '\n' && *p != '\t'; p++)
			;
		if (p > w)
			strbuf_addf(&sb, "%.*s ", (int)(p - w), w);
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * The stressors (test NULL) or the values of --TEST-OPTION: " a b ",
 * "-" when stress-ng has no such option, NULL when it cannot say.
 */
static char *
testcase_stress_ng_ask(const char *test, const char *option)
{
	struct stress_ng_known	*k;
	struct strbuf		 out = STRBUF_INIT;
	char			*q, *a = NULL, *cause = NULL, *flag = NULL;
	char			*list[] = { "stress-ng", "--stressors", NULL };
	char			*which[] = { "stress-ng", NULL, "1", NULL,
				    "which", NULL };
	size_t			 i;
	int			 r;

	q = test == NULL ? xstrdup("") : xasprintf("%s-%s", test, option);
	pthread_mutex_lock(&stress_ng_known_lock);
	for (k = stress_ng_known_list; k != NULL; k = k->next) {
		if (strcmp(k->question, q) == 0)
			break;
	}
	if (k != NULL) {
		a = k->answer != NULL ? xstrdup(k->answer) : NULL;
		goto out;
	}
	if (test == NULL) {
		r = monitor_tool_probe(list, &out, &cause);
		if (r == 0 && out.len > 0) {
			a = xasprintf(" %s ", out.buf);
			for (i = 0; a[i] != '\0'; i++) {
				if (a[i] == '\n')
					a[i] = ' ';
			}
		}
	} else {
		which[1] = flag = xasprintf("--%s", test);
		which[3] = xasprintf("--%s-%s", test, option);
		/* it exits non-zero after the list: the text is the answer */
		(void)monitor_tool_probe(which, &out, &cause);
		if (cause != NULL && out.len == 0 && strstr(cause,
		    "failed here: ") != NULL)
			strbuf_addstr(&out, strstr(cause, "failed here: ") + 13);
		if (strstr(out.buf, "unrecognized option") != NULL ||
		    strstr(out.buf, "unknown option") != NULL)
			a = xstrdup("-");
		else if (strstr(out.buf, "which") != NULL ||
		    strstr(out.buf, "must be one of") != NULL)
			a = testcase_stress_ng_words(out.buf);
		free(which[3]);
	}
	k = xcalloc(1, sizeof *k);
	k->question = test == NULL ? xstrdup("") : xasprintf("%s-%s", test,
	    option);
	k->answer = a != NULL ? xstrdup(a) : NULL;
	k->next = stress_ng_known_list;
	stress_ng_known_list = k;
out:
	pthread_mutex_unlock(&stress_ng_known_lock);
	free(flag);
	free(cause);
	free(q);
	strbuf_release(&out);
	return a;
}

static int
testcase_stress_ng_has(const char *list, const char *name)
{
	char	*w = xasprintf(" %s ", name);
	int	 r = strstr(list, w) != NULL;

	free(w);
	return r;
}

/* The stressor and its options' values against the installed stress-ng. */
static int
testcase_stress_ng_installed(const struct job *job, const char *test,
    const char **key, char **cause)
{
	char	*a;
	const char *v;
	size_t	 i;
	int	 r = 0;

	if ((a = testcase_stress_ng_ask(NULL, NULL)) != NULL &&
	    !testcase_stress_ng_has(a, test)) {
		*key = "test";
		r = error_set(cause, "stressor '%s' is not one the installed "
		    "stress-ng has ('stress-ng --stressors' does not list it)",
		    test);
	}
	free(a);
	for (i = 0; r == 0 && testcase_stress_ng_opts[i].key != NULL; i++) {
		if (!testcase_stress_ng_opts[i].of_test ||
		    (v = job_param(job, testcase_stress_ng_opts[i].key)) ==
		    NULL || strchr(v, ',') != NULL)
			continue;
		a = testcase_stress_ng_ask(test,
		    testcase_stress_ng_opts[i].option);
		*key = testcase_stress_ng_opts[i].key;
		if (a != NULL && strcmp(a, "-") == 0)
			r = error_set(cause, "the installed stress-ng has no "
			    "--%s-%s, which '%s' gives", test,
			    testcase_stress_ng_opts[i].option, *key);
		else if (a != NULL && strlen(a) > 2 &&
		    !testcase_stress_ng_has(a, v))
			r = error_set(cause, "%s '%s' is not one the installed "
			    "stress-ng's --%s-%s has (it has%.*s)", *key, v,
			    test, testcase_stress_ng_opts[i].option,
			    (int)strlen(a) - 1, a);
		free(a);
	}
	return r;
}

static int
testcase_stress_ng_check(const struct job *job, const char **key,
    char **cause)
{
	const char	*test = job_param(job, "test"), *v;
	size_t		 i;

	*key = "test";
	if (test == NULL)
		return error_set(cause, "stress-ng needs 'test': the stressor "
		    "to run (cpu, vm, fork, ...)");
	if (!testcase_stress_ng_name(test))
		return error_set(cause, "'test' must be a stress-ng stressor "
		    "name, not '%s'", test);
	for (i = 0; testcase_stress_ng_opts[i].key != NULL; i++) {
		*key = testcase_stress_ng_opts[i].key;
		if ((v = job_param(job, *key)) != NULL &&
		    testcase_stress_ng_opt(*key, v, cause) != 0)
			return -1;
	}
	*key = "nr_threads";
	if (testcase_check_count(job, "nr_threads", cause) != 0)
		return -1;
	return testcase_stress_ng_installed(job, test, key, cause);
}

static const char *const testcase_stress_ng_params[] = {
	"test", "nr_threads", "runtime", "testtime", "method", "mode", "type",
	"sched", "advise", "hdd_opts", NULL
};

static const char *const testcase_stress_ng_metrics[] = {
	"stress-ng.*.ops_per_sec", "stress-ng.*.ops", NULL
};

const struct testcase_adapter testcase_stress_ng = {
	.name = "stress-ng",
	.package = "stress-ng",
	.params = testcase_stress_ng_params,
	.metrics = testcase_stress_ng_metrics,
	.check = testcase_stress_ng_check,
	.command = testcase_stress_ng_command,
	.parse = testcase_stress_ng_parse,
};
