/*
 * Unit tests for LKP job files as LKP writes them (docs/jobs.md "LKP job
 * files"): documents split as hash_0, hash_0 + hash_i; "<< :" includes
 * with overrides and ignores, read through an in-memory callback; program
 * maps and markers; incremental keys; option sets; and the refusals of
 * what bisectd cannot honour, each at its exact FILE:LINE:COL.
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/job.h"
#include "tests/unit/tap.h"
#include "util/xalloc.h"

struct mem_file {
	const char	*path;
	const char	*text;
};

static const struct mem_file mem_files[] = {
	{ "/jobs/base.yaml",
	  "testcase: fsmark\n"
	  "disk: 1HDD\n"
	  "fs2: [nfs, cifs]\n"
	  "fsmark:\n"
	  "  filesize: 4K\n"
	  "---\n"
	  "fs: ext4\n"
	  "---\n"
	  "fs: xfs\n" },
	{ "/jobs/one.yaml", "testcase: dbench\nnr_threads: 100%\ndbench:\n" },
	{ "/jobs/loop.yaml", "<< : loop.yaml\n" },
	{ "/jobs/bad.yaml", "testcase: x\n\nruns: zero\n" },
	{ "/inc/cgroup2.yaml", "cgroup2:\n  cpu.weight: 100\n" },
	{ "/jobs/list.yaml", "- a\n" },
};

static int nr_reads;

static int
mem_read(const char *path, char **buf, size_t *len, void *payload,
    char **cause)
{
	size_t	i;

	(void)payload;
	(void)cause;
	nr_reads++;
	for (i = 0; i < sizeof mem_files / sizeof mem_files[0]; i++) {
		if (strcmp(mem_files[i].path, path) == 0) {
			*buf = xstrdup(mem_files[i].text);
			*len = strlen(*buf);
			return 0;
		}
	}
	return 1;
}

static const char *const inc_dirs[] = { "/inc" };

static int
parse_at(const char *name, const char *text, struct job ***jobs, size_t *nr,
    size_t *repeats, char **cause)
{
	struct job_options	opts;

	memset(&opts, 0, sizeof opts);
	opts.read = mem_read;
	opts.include_dirs = inc_dirs;
	opts.nr_include_dirs = 1;
	opts.nr_repeats = repeats;
	return job_parse_with(name, text, strlen(text), &opts, jobs, nr,
	    cause);
}

static int
parse(const char *text, struct job ***jobs, size_t *nr, char **cause)
{
	return parse_at("/jobs/job.yaml", text, jobs, nr, NULL, cause);
}

/* Every job's canonical text parses back to itself (no includes there). */
static void
roundtrip_all(struct job **jobs, size_t nr, const char *what)
{
	struct job	**again;
	size_t		  n, i, bad = 0;
	char		 *cause = NULL;

	for (i = 0; i < nr; i++) {
		again = NULL;
		n = 0;
		if (job_parse("canonical", jobs[i]->canonical,
		    strlen(jobs[i]->canonical), &again, &n, &cause) != 0 ||
		    n != 1 || strcmp(again[0]->id, jobs[i]->id) != 0 ||
		    strcmp(again[0]->canonical, jobs[i]->canonical) != 0) {
			if (bad++ == 0)
				diag("%s\n%s", cause ? cause : "",
				    jobs[i]->canonical);
		}
		free(cause);
		cause = NULL;
		job_list_free(again, n);
	}
	is_int(bad, 0, "%s: every canonical text re-parses to its job", what);
}

/* lkp-tests' dbench.yaml: 1 + 3 x 2 = 7 jobs. */
static void
test_documents(void)
{
	const char	*text =
	    "suite: dbench\n"
	    "testcase: dbench\n"
	    "category: benchmark\n"
	    "\n"
	    "nr_threads: 100%\n"
	    "\n"
	    "dbench:\n"
	    "monitor_delay: 10\n"
	    "\n"
	    "---\n"
	    "disk: 1HDD\n"
	    "\n"
	    "fs:\n"
	    "  - btrfs\n"
	    "  - ext4\n"
	    "  - xfs\n"
	    "\n"
	    "fs2:\n"
	    "  - cifs\n"
	    "  - nfs\n";
	struct job	**jobs = NULL;
	size_t		  nr = 0;
	char		 *cause = NULL, *d;

	if (!ok(parse(text, &jobs, &nr, &cause) == 0, "dbench.yaml parses"))
		diag("%s", cause);
	is_int(nr, 7, "hash_0, then hash_0 + hash_1 (3 x 2): 7 jobs");
	if (nr != 7)
		goto out;
	ok(job_param(jobs[0], "fs") == NULL && job_param(jobs[0], "disk") ==
	    NULL, "the first job is hash_0 alone");
	is_str(job_param(jobs[0], "suite"), "dbench", "suite is a parameter");
	is_int(jobs[0]->nr_programs, 1, "one program");
	if (jobs[0]->nr_programs == 1)
		is_str(jobs[0]->programs[0], "dbench", "the marker 'dbench:'");
	is_str(job_param(jobs[1], "nr_threads"), "100%",
	    "hash_0's keys reach every later document");
	is_str(job_param(jobs[1], "fs"), "btrfs", "fs axis");
	is_str(job_param(jobs[1], "fs2"), "cifs", "fs2 axis, fastest");
	is_str(job_param(jobs[6], "fs"), "xfs", "last job: fs=xfs");
	d = job_describe(jobs[6]);
	is_str(d, "dbench/fs=xfs/fs2=nfs", "describe names the axes");
	free(d);
	roundtrip_all(jobs, nr, "documents");
out:
	free(cause);
	job_list_free(jobs, nr);
}

/* lkp-tests' hackbench.yaml: 2 x 2 x 2 = 8, options as plain params. */
static void
test_program_map(void)
{
	const char	*text =
	    "suite: hackbench\n"
	    "testcase: hackbench\n"
	    "category: benchmark\n"
	    "nr_threads:\n"
	    "  - 100%\n"
	    "  - 1600%\n"
	    "  # - 50%\n"
	    "iterations: 8\n"
	    "hackbench:\n"
	    "  mode:\n"
	    "    - process\n"
	    "    - threads\n"
	    "  ipc:\n"
	    "    - pipe\n"
	    "    - socket\n"
	    "perf-profile:\n"
	    "  delay: 20\n"
	    "turbostat:\n";
	struct job	**jobs = NULL;
	size_t		  nr = 0;
	char		 *cause = NULL;

	if (!ok(parse(text, &jobs, &nr, &cause) == 0, "hackbench parses"))
		diag("%s", cause);
	is_int(nr, 8, "2 x 2 x 2 = 8 jobs");
	if (nr != 8)
		goto out;
	is_str(job_param(jobs[0], "mode"), "process",
	    "the testcase's own options are plain parameters");
	is_str(job_param(jobs[0], "ipc"), "pipe", "ipc");
	is_str(job_param(jobs[1], "ipc"), "socket", "ipc varies fastest");
	ok(job_param(jobs[0], "hackbench.mode") == NULL, "not dotted");
	is_str(job_param(jobs[0], "perf-profile.delay"), "20",
	    "another program's options are dotted under its name");
	is_str(job_param(jobs[0], "programs"), "hackbench,perf-profile,"
	    "turbostat", "programs: sorted, monitors among them");
	is_int(jobs[0]->nr_programs, 3, "three programs");
	ok(!job_param_is_testcase("programs") &&
	    !job_param_is_testcase("suite"), "programs and suite are "
	    "bisectd's bookkeeping");
	roundtrip_all(jobs, nr, "program map");
out:
	free(cause);
	job_list_free(jobs, nr);
}

static const struct job_param *
param(const struct job *job, const char *key)
{
	size_t	i;

	for (i = 0; i < job->nr_params; i++) {
		if (strcmp(job->params[i].key, key) == 0)
			return &job->params[i];
	}
	return NULL;
}

static void
test_includes(void)
{
	const struct job_param	*p;
	struct job	**jobs = NULL;
	size_t		  nr = 0;
	char		 *cause = NULL;

	/* base.yaml: hash_0 with fs2 x 2, then two documents. */
	if (!ok(parse("<< : base.yaml\n", &jobs, &nr, &cause) == 0,
	    "a plain include parses"))
		diag("%s", cause);
	is_int(nr, 6, "an included file's documents split as its own: "
	    "2 + 2 + 2");
	job_list_free(jobs, nr);
	jobs = NULL;
	nr = 0;

	if (!ok(parse("<< : {file: base.yaml, disk: 1SSD, ignore: [fs2]}\n",
	    &jobs, &nr, &cause) == 0, "an include with an override and an "
	    "ignore parses"))
		diag("%s", cause);
	is_int(nr, 3, "fs2 ignored: 1 + 1 + 1 jobs");
	if (nr == 3) {
		is_str(job_param(jobs[0], "disk"), "1SSD", "override in "
		    "hash_0");
		is_str(job_param(jobs[2], "disk"), "1SSD", "override reaches "
		    "the last document too");
		ok(job_param(jobs[1], "fs2") == NULL, "ignored key gone");
		is_str(job_param(jobs[2], "fs"), "xfs", "third document");
		is_str(job_param(jobs[2], "filesize"), "4K",
		    "program options of the included file");
	}
	roundtrip_all(jobs, nr, "include");
	job_list_free(jobs, nr);
	jobs = NULL;
	nr = 0;

	if (!ok(parse("<< : one.yaml\n<< : cgroup2.yaml\nnr_threads: 50%\n",
	    &jobs, &nr, &cause) == 0, "two includes, one from the include "
	    "path, and a later key"))
		diag("%s", cause);
	is_int(nr, 1, "one job");
	if (nr == 1) {
		is_str(job_param(jobs[0], "nr_threads"), "50%",
		    "a key after the include overrides it");
		is_str(job_param(jobs[0], "cgroup2.cpu.weight"), "100",
		    "found in the include path");
		is_str(job_param(jobs[0], "programs"), "cgroup2,dbench",
		    "both files' programs");
		p = param(jobs[0], "cgroup2.cpu.weight");
		ok(p != NULL && p->file != NULL &&
		    strcmp(p->file, "/inc/cgroup2.yaml") == 0 && p->line == 2 &&
		    p->column == 3, "a parameter from an include keeps its "
		    "file, line and column");
		p = param(jobs[0], "nr_threads");
		ok(p != NULL && p->file == NULL && p->line == 3,
		    "one of the job's own file has no file of its own");
	}
	job_list_free(jobs, nr);
	jobs = NULL;
	nr = 0;
	free(cause);
}

static void
test_lkp_keys(void)
{
	struct job	**jobs = NULL;
	size_t		  nr = 0, repeats = 0;
	char		 *cause = NULL;

	if (!ok(parse("testcase: fsmark\nfsmark:\n  filesize: 4K\n"
	    "perf-profile:\nfs: [ext4]\n---\nfsmark.test_size: 70G\n"
	    "perf-profile-:\nfs+: [xfs]\nruntime: 1d\n", &jobs, &nr,
	    &cause) == 0, "incremental keys parse"))
		diag("%s", cause);
	is_int(nr, 3, "hash_0 (1) + hash_0 + hash_1 (fs+ gives 2)");
	if (nr == 3) {
		is_str(job_param(jobs[1], "test_size"), "70G",
		    "a.b.c: sets a program's option");
		is_str(job_param(jobs[1], "filesize"), "4K",
		    "and keeps the others");
		is_str(job_param(jobs[1], "programs"), "fsmark",
		    "a-: removes a key");
		is_str(job_param(jobs[2], "fs"), "xfs", "a+: appends");
		is_int(jobs[1]->runtime, 86400, "1d is 86400 seconds");
		is_str(job_param(jobs[0], "programs"), "fsmark,perf-profile",
		    "hash_0 alone keeps its marker");
	}
	job_list_free(jobs, nr);
	jobs = NULL;
	nr = 0;

	if (!ok(parse("testcase: pts\npts:\n  - test: [a, b]\n  - test: c\n"
	    "    option: x\n", &jobs, &nr, &cause) == 0, "option sets parse"))
		diag("%s", cause);
	is_int(nr, 3, "a list of option sets: 2 + 1 jobs");
	if (nr == 3)
		is_str(job_param(jobs[2], "option"), "x", "the second set");
	roundtrip_all(jobs, nr, "option sets");
	job_list_free(jobs, nr);
	jobs = NULL;
	nr = 0;

	if (!ok(parse("testcase: t\nfs2:\n  - nfs\n  -\nrun: true\n", &jobs,
	    &nr, &cause) == 0, "an empty list item parses"))
		diag("%s", cause);
	is_int(nr, 2, "two jobs");
	if (nr == 2)
		ok(job_param(jobs[1], "fs2") == NULL && strcmp(jobs[0]->id,
		    jobs[1]->id) != 0, "the empty item is a job without the "
		    "key");
	roundtrip_all(jobs, nr, "empty item");
	job_list_free(jobs, nr);
	jobs = NULL;
	nr = 0;

	if (!ok(parse_at("/jobs/job.yaml", "testcase: t\nfs: ext4\n---\n"
	    "fs: ext4\n---\nfs: xfs\n", &jobs, &nr, &repeats, &cause) == 0,
	    "a document that repeats a job parses"))
		diag("%s", cause);
	is_int(nr, 2, "the repeat is listed once");
	is_int(repeats, 1, "and counted");
	job_list_free(jobs, nr);
	jobs = NULL;
	nr = 0;

	if (!ok(parse("testcase: netperf\ncluster: cs-localhost\n"
	    "if role server:\n  netserver:\nif role client:\n  netperf:\n"
	    "    test: [TCP_RR, UDP_RR]\n", &jobs, &nr, &cause) == 0,
	    "roles on a cs-localhost cluster parse"))
		diag("%s", cause);
	is_int(nr, 2, "both roles on one machine: 2 jobs");
	if (nr == 2) {
		is_str(job_param(jobs[0], "programs"), "netperf,netserver",
		    "the server's daemon and the client's test");
		is_str(job_param(jobs[1], "test"), "UDP_RR", "client options");
	}
	job_list_free(jobs, nr);
	jobs = NULL;
	nr = 0;

	if (!ok(parse("testcase: microbench\nrun: ./bench\n"
	    "metric: microbench.ops\n", &jobs, &nr, &cause) == 0 &&
	    nr == 1 && jobs[0]->run != NULL, "inline run: still works"))
		diag("%s", cause);
	job_list_free(jobs, nr);
	free(cause);
}

struct bad {
	const char	*what;
	const char	*text;
	const char	*prefix;
	const char	*needle;
};

static const struct bad bad[] = {
	{ "ERB", "testcase: a\nx: <%= 1 %>\n",
	  "/jobs/job.yaml:2:4: ", "ERB template '<% %>'" },
	{ "ERB line", "testcase: a\n% if true\nx: 1\n",
	  "/jobs/job.yaml:2:1: ", "ERB line '%'" },
	{ "ruby expression", "testcase: a\nx: {{ fs == 'a' ? 1 : 2 }}\n",
	  "/jobs/job.yaml:2:4: ", "ruby expression '{{ }}'" },
	{ "ruby expression quoted", "testcase: a\nx: \"{{ 1 }}\"\n",
	  "/jobs/job.yaml:2:5: ", "ruby expression '{{ }}'" },
	{ "ruby expression escaped", "testcase: a\nx: \"\\x7b{ 1 }}\"\n",
	  "/jobs/job.yaml:2:4: ", "ruby expression '{{ }}'" },
	{ "multi-host role", "testcase: a\nif role server:\n  netserver:\n",
	  "/jobs/job.yaml:2:1: ", "multi-host section 'if role server'" },
	{ "role on another cluster",
	  "testcase: a\ncluster: cs-two\nif role client:\n  x: 1\n",
	  "/jobs/job.yaml:3:1: ", "multi-host section 'if role client'" },
	{ "include not found", "testcase: a\n<< : nothere.yaml\n",
	  "/jobs/job.yaml:2:6: ", "included file 'nothere.yaml' not found" },
	{ "include names no file", "testcase: a\n<< : {disk: 1SSD}\n",
	  "/jobs/job.yaml:2:6: ", "must name a file" },
	{ "include loop", "<< : loop.yaml\n",
	  "/jobs/loop.yaml:1:1: ", "nested deeper than 8" },
	{ "error in an included file", "<< : bad.yaml\n",
	  "/jobs/bad.yaml:3:7: ", "'runs'" },
	{ "include of a list", "testcase: a\n<< : list.yaml\n",
	  "/jobs/list.yaml:1:1: ", "must be a map" },
	{ "several documents nested", "testcase: a\nx:\n  << : base.yaml\n",
	  "/jobs/job.yaml:3:3: ", "only be included at the top level" },
	{ "ignore a map", "<< : {file: one.yaml, ignore: {a: 1}}\n",
	  "/jobs/job.yaml:1:31: ", "'<<.ignore'" },
	{ "dotted key with an empty part", "testcase: a\nb..c: 1\n",
	  "/jobs/job.yaml:2:1: ", "invalid key 'b..c'" },
	{ "empty item twice", "testcase: a\nfs: [x, ~, ~]\n",
	  "/jobs/job.yaml:2:12: ", "'fs' lists an empty value twice" },
	{ "option set with a bad option", "testcase: a\npts:\n  - {\"a b\": 1}\n",
	  "/jobs/job.yaml:3:6: ", "invalid option 'pts.a b'" },
};

static void
test_bad(void)
{
	struct job	**jobs;
	size_t		  nr, i;
	char		 *cause;
	int		  r;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		jobs = NULL;
		nr = 0;
		cause = NULL;
		r = parse(bad[i].text, &jobs, &nr, &cause);
		ok(r == -1 && jobs == NULL && nr == 0,
		    "%s: fails with nothing out", bad[i].what);
		if (cause == NULL) {
			ok(0, "%s: has a cause", bad[i].what);
			continue;
		}
		if (!ok(strncmp(cause, bad[i].prefix,
		    strlen(bad[i].prefix)) == 0, "%s: at %s", bad[i].what,
		    bad[i].prefix) || !ok(strstr(cause, bad[i].needle) != NULL,
		    "%s: names %s", bad[i].what, bad[i].needle))
			diag("got: %s", cause);
		job_list_free(jobs, nr);
		free(cause);
	}
}

/* The fuzzer's mode: no include reaches any file. */
static void
test_no_include(void)
{
	struct job_options	  opts;
	struct job		**jobs = NULL;
	size_t			  nr = 0;
	char			 *cause = NULL;
	const char		 *text = "<< : one.yaml\n";

	memset(&opts, 0, sizeof opts);
	opts.read = mem_read;
	opts.no_include = 1;
	nr_reads = 0;
	ok(job_parse_with("job.yaml", text, strlen(text), &opts, &jobs, &nr,
	    &cause) == -1 && cause != NULL && strstr(cause, "job.yaml:1:1: ")
	    == cause && strstr(cause, "not allowed") != NULL,
	    "no_include refuses the include at its position");
	is_int(nr_reads, 0, "and reads nothing");
	free(cause);
}

int
main(void)
{
	test_documents();
	test_program_map();
	test_includes();
	test_lkp_keys();
	test_bad();
	test_no_include();
	return tap_done();
}
