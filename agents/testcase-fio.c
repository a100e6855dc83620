/*
 * fio, as LKP's fio-basic: nr_task jobs of rw I/O with fio's JSON report,
 * read in C because fio names what LKP reports by keys that hold dots;
 * each fio job is an instance (docs/design.md, "File notes").
 */
#include <jansson.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/testcase.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define FIO_JSON	"fio.json"
#define FIO_MAX_JOBS	4096
#define FIO_MAX_METRICS	256

struct fio_opts {
	const char		*rw, *engine, *direct, *falloc, *invalidate;
	const char		*service, *dist, *time_based, *pre_read;
	const char		*buffered, *testfile, *raw;
	/* fio-setup-basic's options of fio's own, as it passes them */
	const char		*norandommap, *allrandrepeat, *randgen;
	const char		*cpus_policy, *cpus, *exitall, *group;
	const char		*ramp, *stonewall;
	unsigned long long	 test_size, bs;
	unsigned		 tasks, iodepth, files;
};

/*
 * LKP's fio-basic jobs give fio's options to its fio-setup-basic program
 * (which writes the fio job file) and run it with the "fio:" marker.
 */
static const char *const testcase_fio_programs[] = {
	"fio", "fio-setup-basic", NULL
};

static const char *const testcase_fio_params[] = {
	"test_size", "bs", "nr_task", "iodepth", "nr_files", "rw", "ioengine",
	"direct", "fallocate", "invalidate", "pre_read", "time_based",
	"file_service_type", "random_distribution", "runtime", "buffered",
	"testfile", "raw_disk", "norandommap", "allrandrepeat",
	"random_generator", "cpus_allowed_policy", "cpus_allowed", "exitall",
	"group_reporting", "ramp_time", "stonewall", NULL
};

/*
 * fio's cpus_allowed: CPU numbers and ranges, comma-separated ("0-127",
 * "0,2,4-7"); -1 with *cause when it is not that. *max: the highest.
 */
static int
testcase_fio_cpus(const char *v, unsigned long *max, char **cause)
{
	const char	*p = v;
	unsigned long	 a, b;
	char		*end;

	*max = 0;
	for (;;) {
		if (*p < '0' || *p > '9')
			goto bad;
		a = b = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				goto bad;
			b = strtoul(p, &end, 10);
			p = end;
			if (b < a)
				goto bad;
		}
		if (b > *max)
			*max = b;
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			goto bad;
	}
bad:
	return error_set(cause, "'cpus_allowed' must be CPU numbers and "
	    "ranges, comma-separated (0-127, 0,2,4-7), not '%s'", v);
}

/*
 * A boolean as LKP's parse_bool reads it: empty, or starting with 0, no,
 * false or n, is 0; any other value is 1 (LKP's files write the option's
 * short name, "time_based: tb", "direct: direct").
 */
static int
testcase_fio_bool(const struct testcase_ctx *ctx, const char *key,
    const char *dflt, const char **out)
{
	const char	*v = testcase_job_value(ctx->job, key);

	if (v == NULL)
		*out = dflt;
	else if (*v == '\0' || *v == '0' || *v == 'n' ||
	    strncmp(v, "false", 5) == 0)
		*out = "0";
	else
		*out = "1";
	return 0;
}

/* The options every fio-basic job sets, with LKP's defaults. */
static int
testcase_fio_opts_common(const struct testcase_ctx *ctx, struct fio_opts *o,
    const char **key, char **cause)
{
	static const char *const rws[] = { "read", "write", "randread",
	    "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim",
	    "trimwrite", NULL };
	static const char *const engines[] = { "sync", "psync", "vsync",
	    "pvsync", "pvsync2", "libaio", "io_uring", "posixaio", "mmap",
	    "splice", "falloc", "ftruncate", "filecreate", "filestat",
	    "filedelete", NULL };
	static const char *const fallocs[] = { "none", "posix", "keep",
	    "native", NULL };
	static const char *const services[] = { "roundrobin", "sequential",
	    "random", NULL };
	static const char *const yn[] = { "y", "n", NULL };

	if ((*key = "test_size", testcase_size(ctx, *key, 1ULL << 30,
	    &o->test_size, cause)) != 0 ||
	    (*key = "bs", testcase_size(ctx, *key, 4096, &o->bs, cause)) != 0 ||
	    (*key = "nr_task", testcase_count(ctx, *key, "1", &o->tasks,
	    cause)) != 0 ||
	    (*key = "iodepth", testcase_count(ctx, *key, "32", &o->iodepth,
	    cause)) != 0 ||
	    (*key = "nr_files", testcase_count(ctx, *key, "1", &o->files,
	    cause)) != 0 ||
	    (*key = "rw", testcase_word(ctx, *key, rws, "write", &o->rw,
	    cause)) != 0 ||
	    (*key = "ioengine", testcase_word(ctx, *key, engines, "sync",
	    &o->engine, cause)) != 0 ||
	    (*key = "direct", testcase_fio_bool(ctx, *key, "0",
	    &o->direct)) != 0 ||
	    (*key = "fallocate", testcase_word(ctx, *key, fallocs, "posix",
	    &o->falloc, cause)) != 0 ||
	    (*key = "invalidate", testcase_fio_bool(ctx, *key, "1",
	    &o->invalidate)) != 0 ||
	    (*key = "pre_read", testcase_fio_bool(ctx, *key, "0",
	    &o->pre_read)) != 0 ||
	    (*key = "time_based", testcase_fio_bool(ctx, *key, "0",
	    &o->time_based)) != 0 ||
	    (*key = "file_service_type", testcase_word(ctx, *key, services,
	    "roundrobin", &o->service, cause)) != 0 ||
	    (*key = "buffered", testcase_fio_bool(ctx, *key, "0",
	    &o->buffered)) != 0 ||
	    (*key = "testfile", testcase_word(ctx, *key, yn, "n", &o->testfile,
	    cause)) != 0 ||
	    (*key = "raw_disk", testcase_fio_bool(ctx, *key, "0",
	    &o->raw)) != 0 ||
	    (*key = "norandommap", testcase_fio_bool(ctx, *key, "0",
	    &o->norandommap)) != 0 ||
	    (*key = "allrandrepeat", testcase_fio_bool(ctx, *key, "0",
	    &o->allrandrepeat)) != 0 ||
	    (*key = "exitall", testcase_fio_bool(ctx, *key, "0",
	    &o->exitall)) != 0 ||
	    (*key = "group_reporting", testcase_fio_bool(ctx, *key, "0",
	    &o->group)) != 0 ||
	    (*key = "stonewall", testcase_fio_bool(ctx, *key, "0",
	    &o->stonewall)) != 0)
		return -1;
	return 0;
}

/* The options fio-setup-basic writes only when given. */
static int
testcase_fio_opts_given(const struct testcase_ctx *ctx, struct fio_opts *o,
    const char **key, char **cause)
{
	static const char *const gens[] = { "tausworthe", "lfsr",
	    "tausworthe64", NULL };
	char		*end;

	*key = "random_generator";
	o->randgen = NULL;
	if (testcase_job_value(ctx->job, *key) != NULL &&
	    testcase_word(ctx, *key, gens, "tausworthe", &o->randgen,
	    cause) != 0)
		return -1;
	*key = "ramp_time";
	if ((o->ramp = testcase_job_value(ctx->job, *key)) != NULL) {
		if (*o->ramp < '0' || *o->ramp > '9')
			goto bad_ramp;
		(void)strtoul(o->ramp, &end, 10);
		if (*end != '\0' && strcmp(end, "s") != 0 &&
		    strcmp(end, "m") != 0 && strcmp(end, "h") != 0)
			goto bad_ramp;
	}
	return 0;
bad_ramp:
	return error_set(cause, "'ramp_time' must be a duration in seconds "
	    "(5, 5s, 1m, 1h), not '%s'", o->ramp);
}

/*
 * cpus_allowed_policy: split or shared (fio's two); with split LKP's
 * setup needs cpus_allowed, without it refuses one.
 */
static int
testcase_fio_opts_cpus(const struct testcase_ctx *ctx, struct fio_opts *o,
    const char **key, char **cause)
{
	static const char *const policies[] = { "split", "shared", NULL };
	unsigned long	 max_cpu;

	*key = "cpus_allowed_policy";
	o->cpus_policy = NULL;
	if (testcase_job_value(ctx->job, *key) != NULL &&
	    testcase_word(ctx, *key, policies, "shared", &o->cpus_policy,
	    cause) != 0)
		return -1;
	*key = "cpus_allowed";
	o->cpus = testcase_job_value(ctx->job, *key);
	if (o->cpus_policy != NULL && strcmp(o->cpus_policy, "split") == 0 &&
	    o->cpus == NULL) {
		*key = "cpus_allowed_policy";
		return error_set(cause, "'cpus_allowed_policy' is split and "
		    "'cpus_allowed' is not given (LKP's fio-setup-basic "
		    "needs it then)");
	}
	if (o->cpus != NULL && (o->cpus_policy == NULL ||
	    strcmp(o->cpus_policy, "split") != 0))
		return error_set(cause, "'cpus_allowed' without "
		    "'cpus_allowed_policy: split' (LKP's fio-setup-basic "
		    "refuses it then)");
	if (o->cpus != NULL && testcase_fio_cpus(o->cpus, &max_cpu,
	    cause) != 0)
		return -1;
	/* on the agent: fio refuses a CPU the machine does not have */
	if (o->cpus != NULL && !ctx->dry_run && ctx->nr_cpu > 0 &&
	    ctx->resultdir != NULL && max_cpu >= ctx->nr_cpu)
		return error_set(cause, "'cpus_allowed' is '%s': CPU %lu, "
		    "and the machine has %u CPUs (fio refuses a CPU it does "
		    "not have)", o->cpus, max_cpu, ctx->nr_cpu);
	return 0;
}

/* raw_disk and random_distribution, and the size against the block. */
static int
testcase_fio_opts_disk(const struct testcase_ctx *ctx, struct fio_opts *o,
    const char **key, char **cause)
{
	const char	*d;

	*key = "raw_disk";
	if (strcmp(o->raw, "1") == 0 && (job_param(ctx->job, "fs") != NULL ||
	    job_param(ctx->job, "fs.fs") != NULL))
		return error_set(cause, "'raw_disk' with 'fs': fio would "
		    "write over the file system made and mounted on the disk "
		    "(LKP's raw_disk takes the partition itself: no 'fs')");
	if (strcmp(o->raw, "1") == 0 && job_param(ctx->job, "disk") == NULL &&
	    job_param(ctx->job, "disk.nr_hdd") == NULL &&
	    job_param(ctx->job, "disk.nr_ssd") == NULL)
		return error_set(cause, "'raw_disk' without 'disk': it takes "
		    "the partition of one of the agent's disks ('disk: "
		    "1HDD' or '1SSD')");
	*key = "random_distribution";
	if ((d = testcase_job_value(ctx->job, *key)) == NULL)
		d = "random";
	else if ((strcmp(d, "random") != 0 && strncmp(d, "zipf:", 5) != 0 &&
	    strncmp(d, "pareto:", 7) != 0 && strncmp(d, "normal:", 7) != 0 &&
	    strncmp(d, "zoned:", 6) != 0) || strpbrk(d, " \t\n") != NULL)
		return error_set(cause, "'random_distribution' must be random, "
		    "zipf:N, pareto:N, normal:N or zoned:..., not '%s'", d);
	o->dist = d;
	*key = "test_size";
	if (o->test_size / o->tasks < o->bs)
		return error_set(cause, "'test_size' %llu is less than 'bs' "
		    "%llu per task", o->test_size, o->bs);
	return 0;
}

/* The job's parameters, each checked; at fault: *key. */
static int
testcase_fio_opts(const struct testcase_ctx *ctx, struct fio_opts *o,
    const char **key, char **cause)
{
	if (testcase_fio_opts_common(ctx, o, key, cause) != 0 ||
	    testcase_fio_opts_given(ctx, o, key, cause) != 0 ||
	    testcase_fio_opts_cpus(ctx, o, key, cause) != 0 ||
	    testcase_fio_opts_disk(ctx, o, key, cause) != 0)
		return -1;
	return 0;
}

static int
testcase_fio_check(const struct job *job, const char **key, char **cause)
{
	struct testcase_ctx	ctx;
	struct fio_opts		o;

	memset(&ctx, 0, sizeof ctx);
	ctx.job = job;
	ctx.nr_cpu = 1;
	return testcase_fio_opts(&ctx, &o, key, cause);
}

static int
testcase_fio_command(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, struct testcase_argv *argv,
    char **cause)
{
	struct fio_opts	 o;
	const char	*key;
	char		*dir = NULL, *json = NULL;
	int		 r = -1;

	(void)ad;
	if (testcase_fio_opts(ctx, &o, &key, cause) != 0)
		return -1;
	json = path_join(ctx->resultdir, FIO_JSON);
	testcase_argv_add(argv, "fio");
	testcase_argv_add(argv, "--name=fio-basic");
	if (strcmp(o.raw, "1") == 0) {
		/* LKP's raw_disk: filename=$partitions, no directory */
		if (ctx->partition == NULL && !ctx->dry_run) {
			error_set(cause, "'raw_disk' is 1 but the run has no "
			    "disk without a file system (give 'disk: 1HDD' "
			    "and no 'fs')");
			goto out;
		}
		testcase_argv_add(argv, "--filename=%s", ctx->partition != NULL ?
		    ctx->partition : "PARTITION");
	} else {
		dir = path_join(ctx->workdir, "fio");
		if (!ctx->dry_run && dir_create(dir, cause) != 0)
			goto out;
		testcase_argv_add(argv, "--directory=%s", dir);
		/* LKP's testfile: y: the jobs share one file of that name */
		if (strcmp(o.testfile, "y") == 0)
			testcase_argv_add(argv, "--filename=fio_testfile");
	}
	testcase_argv_add(argv, "--numjobs=%u", o.tasks);
	testcase_argv_add(argv, "--size=%llu", o.test_size / o.tasks);
	testcase_argv_add(argv, "--bs=%llu", o.bs);
	testcase_argv_add(argv, "--rw=%s", o.rw);
	testcase_argv_add(argv, "--ioengine=%s", o.engine);
	testcase_argv_add(argv, "--iodepth=%u", o.iodepth);
	testcase_argv_add(argv, "--direct=%s", o.direct);
	/*
	 * LKP's fio-setup-basic writes buffered=parse_bool($buffered) after
	 * direct=, so without 'buffered:' it is buffered=0, which fio reads
	 * as direct=1: its fio-basic jobs do O_DIRECT unless they say
	 * 'buffered: 1'. The same here, in the same order.
	 */
	testcase_argv_add(argv, "--buffered=%s", o.buffered);
	testcase_argv_add(argv, "--fallocate=%s", o.falloc);
	testcase_argv_add(argv, "--invalidate=%s", o.invalidate);
	testcase_argv_add(argv, "--pre_read=%s", o.pre_read);
	testcase_argv_add(argv, "--nrfiles=%u", o.files);
	testcase_argv_add(argv, "--file_service_type=%s", o.service);
	testcase_argv_add(argv, "--random_distribution=%s", o.dist);
	testcase_argv_add(argv, "--runtime=%u", ctx->job->runtime > 0 ?
	    ctx->job->runtime : 300);
	if (strcmp(o.time_based, "1") == 0)
		testcase_argv_add(argv, "--time_based");
	/*
	 * then fio-setup-basic's, in its order; its bare flags as "=1",
	 * which fio takes the same and names in its report's job options
	 */
	if (strcmp(o.norandommap, "1") == 0)
		testcase_argv_add(argv, "--norandommap=1");
	if (o.randgen != NULL)
		testcase_argv_add(argv, "--random_generator=%s", o.randgen);
	testcase_argv_add(argv, "--allrandrepeat=%s", o.allrandrepeat);
	if (strcmp(o.group, "1") == 0)
		testcase_argv_add(argv, "--group_reporting=1");
	if (strcmp(o.exitall, "1") == 0)
		testcase_argv_add(argv, "--exitall=1");
	if (o.ramp != NULL)
		testcase_argv_add(argv, "--ramp_time=%s", o.ramp);
	if (strcmp(o.stonewall, "1") == 0)
		testcase_argv_add(argv, "--stonewall=1");
	if (o.cpus_policy != NULL)
		testcase_argv_add(argv, "--cpus_allowed_policy=%s",
		    o.cpus_policy);
	if (o.cpus != NULL)
		testcase_argv_add(argv, "--cpus_allowed=%s", o.cpus);
	testcase_argv_add(argv, "--output-format=json");
	testcase_argv_add(argv, "--output=%s", json);
	r = 0;
out:
	free(dir);
	free(json);
	return r;
}

/* One metric: its value in each job, and whether they add up. */
struct fio_metric {
	char	*name;
	double	*v;
	size_t	 nr;
	int	 sum;
};

struct fio_metrics {
	struct fio_metric	*m;
	size_t			 nr;
	size_t			 alloc;
};

static void
testcase_fio_put(struct fio_metrics *fm, size_t job, const char *name, double v,
    int sum)
{
	struct fio_metric	*m = NULL;
	size_t			 i;

	if (!isfinite(v))
		return;
	for (i = 0; i < fm->nr; i++) {
		if (strcmp(fm->m[i].name, name) == 0) {
			m = &fm->m[i];
			break;
		}
	}
	if (m == NULL) {
		if (fm->nr >= FIO_MAX_METRICS)
			return;
		ALLOC_GROW(fm->m, fm->nr + 1, fm->alloc);
		m = &fm->m[fm->nr++];
		memset(m, 0, sizeof *m);
		m->name = xstrdup(name);
		m->sum = sum;
	}
	if (job >= m->nr) {
		m->v = xreallocarray(m->v, job + 1, sizeof *m->v);
		for (i = m->nr; i <= job; i++)
			m->v[i] = NAN;
		m->nr = job + 1;
	}
	m->v[job] = v;
}

static int
testcase_fio_number(json_t *obj, const char *key, double *out)
{
	json_t	*v = json_object_get(obj, key);

	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return 0;
}

/* clat_ns (fio 3) or clat (fio 2, in microseconds) as nanoseconds. */
static json_t *
testcase_fio_lat(json_t *op, const char *what, double *scale)
{
	char	 key[16];
	json_t	*v;

	snprintf(key, sizeof key, "%s_ns", what);
	if ((v = json_object_get(op, key)) != NULL && json_is_object(v)) {
		*scale = 1;
		return v;
	}
	*scale = 1000;
	v = json_object_get(op, what);
	return json_is_object(v) ? v : NULL;
}

static void
testcase_fio_op(struct fio_metrics *fm, size_t job, const char *name,
    json_t *op, double *workload)
{
	static const char *const pcts[] = { "90.000000", "95.000000",
	    "99.000000" };
	static const char *const pct_names[] = { "90", "95", "99" };
	struct strbuf	 key = STRBUF_INIT;
	json_t		*lat, *pct;
	double		 v, scale;
	size_t		 i;

	if (testcase_fio_number(op, "bw", &v) == 0) {
		strbuf_addf(&key, "%s_bw_MBps", name);
		testcase_fio_put(fm, job, key.buf, v / 1024, 1);
	}
	if (testcase_fio_number(op, "iops", &v) == 0) {
		strbuf_reset(&key);
		strbuf_addf(&key, "%s_iops", name);
		testcase_fio_put(fm, job, key.buf, v, 1);
	}
	if (testcase_fio_number(op, "total_ios", &v) == 0)
		*workload += v;
	if ((lat = testcase_fio_lat(op, "clat", &scale)) != NULL) {
		if (testcase_fio_number(lat, "mean", &v) == 0) {
			strbuf_reset(&key);
			strbuf_addf(&key, "%s_clat_mean_ns", name);
			testcase_fio_put(fm, job, key.buf, v * scale, 0);
		}
		if (testcase_fio_number(lat, "stddev", &v) == 0) {
			strbuf_reset(&key);
			strbuf_addf(&key, "%s_clat_stddev", name);
			testcase_fio_put(fm, job, key.buf, v * scale, 0);
		}
		pct = json_object_get(lat, "percentile");
		for (i = 0; json_is_object(pct) && i < 3; i++) {
			if (testcase_fio_number(pct, pcts[i], &v) != 0)
				continue;
			strbuf_reset(&key);
			strbuf_addf(&key, "%s_clat_%s%%_ns", name,
			    pct_names[i]);
			testcase_fio_put(fm, job, key.buf, v * scale, 0);
		}
	}
	if ((lat = testcase_fio_lat(op, "slat", &scale)) != NULL) {
		if (testcase_fio_number(lat, "mean", &v) == 0) {
			strbuf_reset(&key);
			strbuf_addf(&key, "%s_slat_mean_us", name);
			testcase_fio_put(fm, job, key.buf, v * scale / 1000, 0);
		}
		if (testcase_fio_number(lat, "stddev", &v) == 0) {
			strbuf_reset(&key);
			strbuf_addf(&key, "%s_slat_stddev", name);
			testcase_fio_put(fm, job, key.buf, v * scale / 1000, 0);
		}
	}
	strbuf_release(&key);
}

/* latency_us: {"2": 0.0, "4": 45.1, ...}: latency_4us% and so on. */
static void
testcase_fio_buckets(struct fio_metrics *fm, size_t job, json_t *jobj,
    const char *key, const char *unit)
{
	struct strbuf	 name = STRBUF_INIT;
	const char	*k;
	json_t		*map = json_object_get(jobj, key), *v;

	if (!json_is_object(map))
		return;
	json_object_foreach(map, k, v) {
		if (!json_is_number(v) || strlen(k) > 16)
			continue;
		strbuf_reset(&name);
		strbuf_addf(&name, "latency_%s%s%%", k, unit);
		testcase_fio_put(fm, job, name.buf, json_number_value(v), 0);
	}
	strbuf_release(&name);
}

int
testcase_fio_parse_json(const char *buf, size_t len, struct strbuf *metrics,
    char **cause)
{
	struct fio_metrics	 fm = { NULL, 0, 0 };
	json_error_t		 jerr;
	json_t			*root, *jobs, *job, *op;
	const char		*start;
	double			 total, workload;
	size_t			 i, j, n, nr_jobs;
	int			 r = -1;

	/* fio may print warnings before its JSON, as LKP's parser knows. */
	if ((start = memchr(buf, '{', len)) == NULL)
		return error_set(cause, "fio wrote no JSON report");
	root = json_loadb(start, len - (size_t)(start - buf),
	    JSON_DISABLE_EOF_CHECK, &jerr);
	if (root == NULL)
		return error_set(cause, "fio's JSON report: line %d: %s",
		    jerr.line, jerr.text);
	jobs = json_object_get(root, "jobs");
	if (!json_is_array(jobs) || json_array_size(jobs) == 0) {
		error_set(cause, "fio's JSON report has no jobs");
		goto out;
	}
	nr_jobs = json_array_size(jobs);
	if (nr_jobs > FIO_MAX_JOBS)
		nr_jobs = FIO_MAX_JOBS;
	for (i = 0; i < nr_jobs; i++) {
		job = json_array_get(jobs, i);
		if (!json_is_object(job))
			continue;
		workload = 0;
		if ((op = json_object_get(job, "read")) != NULL &&
		    json_is_object(op))
			testcase_fio_op(&fm, i, "read", op, &workload);
		if ((op = json_object_get(job, "write")) != NULL &&
		    json_is_object(op))
			testcase_fio_op(&fm, i, "write", op, &workload);
		testcase_fio_buckets(&fm, i, job, "latency_us", "us");
		testcase_fio_buckets(&fm, i, job, "latency_ms", "ms");
		testcase_fio_put(&fm, i, "workload", workload, 1);
	}
	if (fm.nr == 0) {
		error_set(cause, "fio's JSON report has no read or write "
		    "figures");
		goto out;
	}
	for (i = 0; i < fm.nr; i++) {
		total = 0;
		for (j = n = 0; j < fm.m[i].nr; j++) {
			if (isnan(fm.m[i].v[j]))
				continue;
			total += fm.m[i].v[j];
			n++;
		}
		if (n == 0)
			continue;
		if (!fm.m[i].sum)
			total /= (double)n;
		for (j = 0; nr_jobs > 1 && j < fm.m[i].nr; j++) {
			if (!isnan(fm.m[i].v[j]))
				strbuf_addf(metrics, "%s.%zu: %.17g\n",
				    fm.m[i].name, j, fm.m[i].v[j]);
		}
		strbuf_addf(metrics, "%s: %.17g\n", fm.m[i].name, total);
	}
	r = 0;
out:
	for (i = 0; i < fm.nr; i++) {
		free(fm.m[i].name);
		free(fm.m[i].v);
	}
	free(fm.m);
	json_decref(root);
	return r;
}

static int
testcase_fio_parse(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, const char *out, size_t len,
    struct strbuf *metrics, char **cause)
{
	char	*path = path_join(ctx->resultdir, FIO_JSON), *buf = NULL;
	size_t	 n;
	int	 r;

	(void)ad;
	(void)out;
	(void)len;
	if (file_read(path, &buf, &n, cause) != 0) {
		free(path);
		return -1;
	}
	r = testcase_fio_parse_json(buf, n, metrics, cause);
	free(buf);
	free(path);
	return r;
}

const struct testcase_adapter testcase_fio = {
	.name = "fio",
	.package = "fio",
	.params = testcase_fio_params,
	.programs = testcase_fio_programs,
	.check = testcase_fio_check,
	.command = testcase_fio_command,
	.parse = testcase_fio_parse,
};

/* LKP's testcase name for the same program (jobs/fio-basic/). */
const struct testcase_adapter testcase_fio_basic = {
	.name = "fio-basic",
	.package = "fio",
	.params = testcase_fio_params,
	.programs = testcase_fio_programs,
	.check = testcase_fio_check,
	.command = testcase_fio_command,
	.parse = testcase_fio_parse,
};
