/*
 * Unit tests for matrix expansion: job counts and order (file order of
 * axes, last axis fastest), ids that are stable, distinct, independent of
 * key order and spelling, and unchanged when only "runs:" changes, the
 * exact canonical text, and the canonical round-trip of every job.
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/job.h"
#include "tests/unit/tap.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static struct job **
expand(const char *text, size_t *nr)
{
	struct job	**jobs = NULL;
	char		 *cause = NULL;

	*nr = 0;
	if (job_parse("m.yaml", text, strlen(text), &jobs, nr, &cause) != 0) {
		diag("unexpected error: %s", cause);
		free(cause);
		return NULL;
	}
	return jobs;
}

/* The id of a single-job text, or "" when it does not parse. */
static char *
id_of(const char *text)
{
	struct job	**jobs;
	size_t		  nr;
	char		 *id;

	if ((jobs = expand(text, &nr)) == NULL || nr != 1) {
		job_list_free(jobs, nr);
		return xstrdup("");
	}
	id = xstrdup(jobs[0]->id);
	job_list_free(jobs, nr);
	return id;
}

static int
roundtrips(const struct job *job)
{
	struct job	**again = NULL;
	size_t		  nr = 0, i;
	char		 *cause = NULL;
	int		  same = 0;

	if (job_parse("canonical", job->canonical, strlen(job->canonical),
	    &again, &nr, &cause) != 0 || nr != 1) {
		diag("%s", cause ? cause : "not one job");
		free(cause);
		goto out;
	}
	same = again[0]->nr_params == job->nr_params &&
	    strcmp(again[0]->canonical, job->canonical) == 0 &&
	    strcmp(again[0]->id, job->id) == 0;
	for (i = 0; same && i < job->nr_params; i++)
		same = strcmp(again[0]->params[i].key,
		    job->params[i].key) == 0 &&
		    strcmp(again[0]->params[i].value,
		    job->params[i].value) == 0;
out:
	job_list_free(again, nr);
	return same;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every id distinct, every job round-trips. */
static void
check_all(struct job **jobs, size_t nr, const char *what)
{
	char	**ids = xcalloc(nr + 1, sizeof *ids);
	size_t	  i, dup = 0, bad = 0;

	for (i = 0; i < nr; i++) {
		ids[i] = jobs[i]->id;
		if (!roundtrips(jobs[i]))
			bad++;
	}
	qsort(ids, nr, sizeof *ids, cmp_str);
	for (i = 1; i < nr; i++)
		if (strcmp(ids[i - 1], ids[i]) == 0)
			dup++;
	is_int(dup, 0, "%s: all %zu ids distinct", what, nr);
	is_int(bad, 0, "%s: every canonical text round-trips", what);
	free(ids);
}

static void
test_order(void)
{
	const char	*text =
	    "testcase: t\n"
	    "zeta: [1, 2, 3]\n"
	    "fixed: x\n"
	    "alpha: [p, q]\n";
	const char	*want[] = {
		"t/zeta=1/alpha=p", "t/zeta=1/alpha=q",
		"t/zeta=2/alpha=p", "t/zeta=2/alpha=q",
		"t/zeta=3/alpha=p", "t/zeta=3/alpha=q",
	};
	struct job	**jobs;
	size_t		  nr, i;
	char		 *d;

	jobs = expand(text, &nr);
	is_int(nr, 6, "3 x 2 matrix gives 6 jobs");
	for (i = 0; i < nr && i < 6; i++) {
		d = job_describe(jobs[i]);
		is_str(d, want[i], "job %zu in order, last axis fastest", i);
		free(d);
		is_str(job_param(jobs[i], "fixed"), "x",
		    "job %zu keeps the fixed parameter", i);
		is_int(jobs[i]->nr_axes, 2, "job %zu has two axes", i);
	}
	if (nr > 0) {
		is_str(jobs[0]->axes[0], "zeta", "axes in file order");
		is_str(jobs[0]->params[0].key, "alpha",
		    "params sorted by key");
	}
	check_all(jobs, nr, "3 x 2");
	job_list_free(jobs, nr);
}

static void
test_known_keys_as_axes(void)
{
	const char	*text =
	    "testcase: t\n"
	    "thp_enabled: [always, never]\n"
	    "runtime: [10s, 2m]\n"
	    "sysctl:\n"
	    "  vm.swappiness: [10, 60]\n"
	    "  vm.dirty_ratio: 20\n"
	    "kconfig: {CONFIG_PREEMPT: [y, n]}\n";
	struct job	**jobs;
	size_t		  nr;
	char		 *d;

	jobs = expand(text, &nr);
	is_int(nr, 16, "2 x 2 x 2 x 2 matrix over known keys gives 16 jobs");
	if (nr == 16) {
		is_int(jobs[0]->runtime, 10, "first runtime 10s");
		is_int(jobs[15]->runtime, 120, "last runtime 2m");
		is_str(job_param(jobs[15], "thp_enabled"), "never",
		    "last thp_enabled");
		is_str(job_param(jobs[1], "kconfig.CONFIG_PREEMPT"), "n",
		    "kconfig axis varies fastest");
		is_str(job_param(jobs[1], "sysctl.vm.dirty_ratio"), "20",
		    "fixed sysctl in every job");
		d = job_describe(jobs[5]);
		is_str(d, "t/thp_enabled=always/runtime=120/"
		    "sysctl.vm.swappiness=10/kconfig.CONFIG_PREEMPT=n",
		    "describe lists the axes with dotted keys");
		free(d);
	}
	check_all(jobs, nr, "known keys");
	job_list_free(jobs, nr);
}

static void
test_cap(void)
{
	struct strbuf	  sb = STRBUF_INIT;
	struct job	**jobs;
	size_t		  nr;
	int		  a, i;

	strbuf_addstr(&sb, "testcase: t\n");
	for (a = 0; a < 3; a++) {
		strbuf_addf(&sb, "axis%d: [", a);
		for (i = 0; i < 16; i++)
			strbuf_addf(&sb, "%s%d", i ? ", " : "", i);
		strbuf_addstr(&sb, "]\n");
	}
	jobs = expand(sb.buf, &nr);
	is_int(nr, JOB_MAX_JOBS, "16^3 = 4096 jobs is allowed");
	check_all(jobs, nr, "4096 jobs");
	job_list_free(jobs, nr);
	strbuf_release(&sb);
}

static void
test_ids(void)
{
	const char	*base =
	    "testcase: t\nruntime: 60s\nnr_threads: 4\nruns: 3\n";
	char		*a, *b;

	a = id_of(base);
	b = id_of(base);
	is_str(a, b, "same text, same id");
	free(b);
	b = id_of("testcase: t\nruntime: 60s\nnr_threads: 4\nruns: 10\n");
	is_str(b, a, "only runs changed: same id");
	free(b);
	b = id_of("testcase: t\nruntime: 60s\nnr_threads: 4\n");
	is_str(b, a, "runs absent: same id");
	free(b);
	b = id_of("# reordered\nnr_threads: \"4\"\nruns: 5\n"
	    "runtime: 1m\ntestcase: 't'\n");
	is_str(b, a, "key order, quoting and 60s vs 1m do not change the id");
	free(b);
	b = id_of("testcase: t\nruntime: 61s\nnr_threads: 4\n");
	ok(strcmp(a, b) != 0 && *b != '\0', "another runtime, another id");
	free(b);
	b = id_of("testcase: t\nruntime: 60s\nnr_threads: 4\nfs: xfs\n");
	ok(strcmp(a, b) != 0 && *b != '\0', "another parameter, another id");
	free(b);
	free(a);

	a = id_of("testcase: t\nmonitors: [time, meminfo]\n");
	b = id_of("testcase: t\nmonitors:\n  meminfo:\n  time:\n");
	ok(*a != '\0' && strcmp(a, b) == 0,
	    "monitor list order and map form give the same id");
	free(b);
	b = id_of("testcase: t\nmonitors: []\n");
	ok(*b != '\0' && strcmp(a, b) != 0, "no monitors, another id");
	free(b);
	free(a);
}

/* The canonical text and id, checked against text written out here. */
static void
test_canonical(void)
{
	const char	*text =
	    "testcase: dbench\n"
	    "category: benchmark\n"
	    "nr_threads: [50%, 100%]\n"
	    "runtime: 60s\n"
	    "runs: 3\n"
	    "thp_enabled: always\n"
	    "monitors: [proc-vmstat, meminfo]\n"
	    "requires: { nr_node: \">=2\", memory: 32G }\n"
	    "sysctl: {\"null\": \"a: b\", kernel.x: -1}\n"
	    "label: \"caf\\u00e9\\n\"\n"
	    "metric: dbench.throughput-MB/sec\n";
	const char	*want =
	    "category: benchmark\n"
	    "label: \"caf\\u00e9\\n\"\n"
	    "metric: dbench.throughput-MB/sec\n"
	    "monitors: [meminfo, proc-vmstat]\n"
	    "nr_threads: 50%\n"
	    "requires:\n"
	    "  memory: \">=32G\"\n"
	    "  nr_node: \">=2\"\n"
	    "runs: 3\n"
	    "runtime: 60\n"
	    "sysctl:\n"
	    "  kernel.x: \"-1\"\n"
	    "  \"null\": \"a: b\"\n"
	    "testcase: dbench\n"
	    "thp_enabled: always\n";
	struct job	**jobs;
	struct strbuf	  idtext = STRBUF_INIT;
	const char	 *runs;
	char		  hex[HASH_HEX_LEN + 1];
	size_t		  nr;

	jobs = expand(text, &nr);
	is_int(nr, 2, "canonical example expands to 2 jobs");
	if (nr != 2)
		goto out;
	is_str(jobs[0]->canonical, want, "canonical text, keys sorted, "
	    "maps nested, values quoted when needed");
	runs = strstr(want, "runs: 3\n");
	strbuf_add(&idtext, want, (size_t)(runs - want));
	strbuf_addstr(&idtext, runs + strlen("runs: 3\n"));
	hash_sha256_hex(idtext.buf, idtext.len, hex);
	hex[16] = '\0';
	is_str(jobs[0]->id, hex,
	    "id is sha256 of the canonical text without its runs: line");
	check_all(jobs, nr, "canonical example");
out:
	strbuf_release(&idtext);
	job_list_free(jobs, nr);
}

int
main(void)
{
	test_order();
	test_known_keys_as_axes();
	test_cap();
	test_ids();
	test_canonical();
	return tap_done();
}
