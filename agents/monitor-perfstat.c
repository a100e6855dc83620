/*
 * perf-stat (Debian package linux-perf): "perf stat -a -A -x," counts
 * LKP's default events on every CPU for the length of the testcase.
 * Metrics as LKP's stats/perf-stat names them: perf-stat.ps.EVENT per
 * second (one instance per CPU), perf-stat.total.instructions and the
 * derived perf-stat.overall.ipc, cpi, *-miss-rate%, MPKI. Events this
 * machine cannot count (hardware events in most VMs) are named in the
 * run's environment, perf_stat_unsupported, and give no metric.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/monitor.h"
#include "agents/monitor-tool.h"
#include "agents/result.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define PERFSTAT_MAX_EVENTS	256
#define PERFSTAT_MAX_CPUS	8192
#define PERFSTAT_MAX_FIELDS	16

/* LKP's default set in programs/perf-stat/monitor (the events, no groups). */
static const char perfstat_events[] =
    "cpu-cycles,instructions,cache-references,cache-misses,"
    "branch-instructions,branch-misses,cpu-clock,task-clock,page-faults,"
    "context-switches,cpu-migrations,minor-faults,major-faults";

struct monitor_perfstat_event {
	char	*name;
	double	 total;
	double	*cpus;		/* by CPU number, when perf gave them */
	size_t	 nr_cpus;
	int	 counted;
};

struct perfstat_set {
	struct monitor_perfstat_event	*ev;
	size_t			 nr;
	size_t			 alloc;
};

static struct monitor_perfstat_event *
monitor_perfstat_event(struct perfstat_set *s, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < s->nr; i++) {
		if (strlen(s->ev[i].name) == len &&
		    memcmp(s->ev[i].name, name, len) == 0)
			return &s->ev[i];
	}
	if (s->nr >= PERFSTAT_MAX_EVENTS)
		return NULL;
	ALLOC_GROW(s->ev, s->nr + 1, s->alloc);
	memset(&s->ev[s->nr], 0, sizeof s->ev[s->nr]);
	s->ev[s->nr].name = xstrndup(name, len);
	return &s->ev[s->nr++];
}

static double
monitor_perfstat_total(const struct perfstat_set *s, const char *name)
{
	size_t	i;

	for (i = 0; i < s->nr; i++) {
		if (strcmp(s->ev[i].name, name) == 0 && s->ev[i].counted)
			return s->ev[i].total;
	}
	return 0;
}

static void
monitor_perfstat_emit(struct result *r, const char *name, double v)
{
	if (result_name_valid(name))
		result_metric(r, name)->value = v;
}

/*
 * The rates LKP derives from the sums: a "-misses" event against its
 * references (stem + "s", "-references" or "-instructions"), MPKI and
 * cycles between misses for the cache, instructions per iTLB miss, and
 * IPC and CPI from the cycles.
 */
static void
monitor_perfstat_derive(struct result *r, const struct perfstat_set *s)
{
	static const char *const refs[] = { "s", "-references",
	    "-instructions" };
	const struct monitor_perfstat_event *e;
	struct strbuf	 name = STRBUF_INIT, stem = STRBUF_INIT;
	double		 cycles = monitor_perfstat_total(s, "cpu-cycles");
	double		 insns = monitor_perfstat_total(s, "instructions"), ref;
	size_t		 i, j, len;

	if (cycles <= 0)
		cycles = monitor_perfstat_total(s, "cycles");
	if (insns > 0)
		monitor_perfstat_emit(r, "perf-stat.total.instructions", insns);
	if (insns > 0 && cycles > 0) {
		monitor_perfstat_emit(r, "perf-stat.overall.ipc",
		    insns / cycles);
		monitor_perfstat_emit(r, "perf-stat.overall.cpi",
		    cycles / insns);
	}
	for (i = 0; i < s->nr; i++) {
		e = &s->ev[i];
		len = strlen(e->name);
		if (!e->counted || len <= 7 ||
		    strcmp(e->name + len - 7, "-misses") != 0)
			continue;
		strbuf_reset(&stem);
		strbuf_add(&stem, e->name, len - 7);
		for (j = 0; j < sizeof refs / sizeof refs[0]; j++) {
			strbuf_reset(&name);
			strbuf_addf(&name, "%s%s", stem.buf, refs[j]);
			if ((ref = monitor_perfstat_total(s, name.buf)) <= 0)
				continue;
			if (j == 0)
				ref += e->total;
			strbuf_reset(&name);
			strbuf_addf(&name, "perf-stat.overall.%s-miss-rate%%",
			    stem.buf);
			monitor_perfstat_emit(r, name.buf,
			    e->total * 100 / ref);
			break;
		}
		if (e->total <= 0)
			continue;
		if (strcmp(e->name, "cache-misses") == 0) {
			if (cycles > 0)
				monitor_perfstat_emit(r, "perf-stat.overall."
				    "cycles-between-cache-misses",
				    cycles / e->total);
			if (insns > 0)
				monitor_perfstat_emit(r,
				    "perf-stat.overall.MPKI",
				    e->total / insns * 1000);
		} else if (strcmp(e->name, "iTLB-load-misses") == 0 &&
		    insns > 0)
			monitor_perfstat_emit(r, "perf-stat.overall."
			    "instructions-per-iTLB-miss", insns / e->total);
	}
	strbuf_release(&name);
	strbuf_release(&stem);
}

/* Splits at commas in place; returns the number of fields. */
static size_t
monitor_perfstat_split(char *line, char **f, size_t max)
{
	size_t	n = 0;
	char	*p = line;

	while (n < max) {
		f[n++] = p;
		if ((p = strchr(p, ',')) == NULL)
			break;
		*p++ = '\0';
	}
	return n;
}

static int
monitor_perfstat_line(struct perfstat_set *s, char *line)
{
	struct monitor_perfstat_event	*e;
	char			*f[PERFSTAT_MAX_FIELDS], *name, *end, *slash;
	unsigned long		 cpu = 0;
	size_t			 n, k = 0, len;
	double			 v = 0;
	int			 percpu = 0, counted = 1;

	n = monitor_perfstat_split(line, f, PERFSTAT_MAX_FIELDS);
	if (n > 0 && strncmp(f[0], "CPU", 3) == 0 &&
	    isdigit((unsigned char)f[0][3])) {
		cpu = strtoul(f[0] + 3, &end, 10);
		if (*end != '\0' || cpu >= PERFSTAT_MAX_CPUS)
			return 0;
		percpu = 1;
		k = 1;
	}
	if (n < k + 3)
		return 0;
	if (f[k][0] == '<')
		counted = 0;
	else {
		v = strtod(f[k], &end);
		if (end == f[k] || *end != '\0' || !(v == v) ||
		    v > 1e300 || v < -1e300)
			return 0;
	}
	name = f[k + 2];
	if ((slash = strchr(name, '/')) != NULL) {
		name = slash + 1;
		if ((slash = strchr(name, '/')) == NULL)
			return 0;
		len = (size_t)(slash - name);
	} else
		len = strlen(name);
	if (len == 0 || !isalpha((unsigned char)name[0]))
		return 0;
	if ((e = monitor_perfstat_event(s, name, len)) == NULL)
		return 0;
	if (!counted)
		return 1;
	e->counted = 1;
	e->total += v;
	if (percpu) {
		if (cpu >= e->nr_cpus) {
			e->cpus = xreallocarray(e->cpus, cpu + 1,
			    sizeof *e->cpus);
			memset(e->cpus + e->nr_cpus, 0, (cpu + 1 - e->nr_cpus) *
			    sizeof *e->cpus);
			e->nr_cpus = cpu + 1;
		}
		e->cpus[cpu] += v;
	}
	return 1;
}

int
monitor_perfstat_parse(struct result *r, const char *text, size_t len,
    double seconds, struct strbuf *unsupported, char **cause)
{
	struct perfstat_set	 s = { NULL, 0, 0 };
	struct result_metric	*m;
	struct strbuf		 name = STRBUF_INIT;
	const char		*p, *nl;
	char			*line;
	size_t			 i, j;
	int			 counted = 0, seen = 0;

	if (!(seconds > 0))
		seconds = 1e-9;
	for (p = text; p < text + len; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(text + len - p))) == NULL)
			nl = text + len;
		if (nl == p || *p == '#')
			continue;
		line = xstrndup(p, (size_t)(nl - p));
		seen += monitor_perfstat_line(&s, line);
		free(line);
	}
	for (i = 0; i < s.nr; i++) {
		if (!s.ev[i].counted) {
			strbuf_addf(unsupported, "%s%s", unsupported->len ?
			    " " : "", s.ev[i].name);
			continue;
		}
		strbuf_reset(&name);
		strbuf_addf(&name, "perf-stat.ps.%s", s.ev[i].name);
		if (!result_name_valid(name.buf))
			continue;
		counted++;
		m = result_metric(r, name.buf);
		m->value = s.ev[i].total / seconds;
		for (j = 0; s.ev[i].nr_cpus > 1 && j < s.ev[i].nr_cpus; j++)
			result_metric_add_instance(m, s.ev[i].cpus[j] /
			    seconds);
	}
	monitor_perfstat_derive(r, &s);
	for (i = 0; i < s.nr; i++) {
		free(s.ev[i].name);
		free(s.ev[i].cpus);
	}
	free(s.ev);
	strbuf_release(&name);
	if (seen == 0)
		return error_set(cause, "perf stat printed no counts");
	return counted;
}

struct monitor_perfstat {
	struct monitor_tool	tool;
	struct strbuf		out;
	int			ctl;	/* perf's --control: we write */
	int			ack;	/* and read its "ack" here */
};

#define PERFSTAT_READY_MS	10000

/*
 * perf stat dies of a SIGINT that comes before it has set itself up (76 ms
 * here under load), printing nothing: so it starts with its counters off
 * (-D -1) and counts once it has answered "enable" on its control pipe.
 */
static int
monitor_perfstat_ready(struct monitor_perfstat *mp, char **cause)
{
	struct pollfd	pfd = { mp->ack, POLLIN, 0 };
	char		buf[16];
	ssize_t		n;
	int		r;

	if (write(mp->ctl, "enable\n", 7) != 7)
		return error_errno(cause, "couldn't write to perf's control "
		    "pipe");
	while ((r = poll(&pfd, 1, PERFSTAT_READY_MS)) == -1 && errno == EINTR)
		;
	if (r == 0)
		return error_set(cause, "perf stat did not start counting "
		    "within %ds", PERFSTAT_READY_MS / 1000);
	if (r == -1 || (n = read(mp->ack, buf, sizeof buf - 1)) <= 0)
		return error_set(cause, "perf stat exited before it counted");
	buf[n] = '\0';
	if (strncmp(buf, "ack", 3) != 0)
		return error_set(cause, "perf stat answered '%s' to enable",
		    buf);
	clock_gettime(CLOCK_MONOTONIC, &mp->tool.start);
	return 0;
}

static void
monitor_perfstat_free(void *state)
{
	struct monitor_perfstat	*mp = state;

	if (mp == NULL)
		return;
	monitor_tool_release(&mp->tool);
	strbuf_release(&mp->out);
	if (mp->ctl != -1)
		close(mp->ctl);
	if (mp->ack != -1)
		close(mp->ack);
	free(mp);
}

static int
monitor_perfstat_start(void **state, const char *root, char **cause)
{
	struct monitor_perfstat	*mp = xcalloc(1, sizeof *mp);
	char			*control = NULL;
	int			 ctl[2] = { -1, -1 }, ack[2] = { -1, -1 };
	int			 r = -1;
	char *const probe[] = { "perf", "stat", "-a", "-x", ",", "-e",
	    "task-clock", "--", "true", NULL };

	mp->tool.pid = -1;
	mp->tool.fd = -1;
	mp->ctl = mp->ack = -1;
	strbuf_init(&mp->out);
	if (root != NULL && strcmp(root, "/") != 0) {
		error_set(cause, "perf counts this machine's CPUs, not those "
		    "of '%s'", root);
		goto out;
	}
	/* perf refuses -a without the rights (perf_event_paranoid): ask. */
	if (monitor_tool_probe(probe, &mp->out, cause) != 0)
		goto fail;
	/* perf's ends are inherited; ours are not, nor by later children. */
	if (pipe(ctl) == -1 || pipe(ack) == -1) {
		error_errno(cause, "couldn't make perf's control pipes");
		goto out;
	}
	mp->ctl = ctl[1];
	mp->ack = ack[0];
	ctl[1] = ack[0] = -1;
	if (fcntl(mp->ctl, F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(mp->ack, F_SETFD, FD_CLOEXEC) == -1) {
		error_errno(cause, "couldn't set up perf's control pipes");
		goto out;
	}
	control = xasprintf("fd:%d,%d", ctl[0], ack[1]);
	{
		char *const argv[] = { "perf", "stat", "-a", "-A", "-x", ",",
		    "--log-fd", "1", "-D", "-1", "--control", control, "-e",
		    (char *)perfstat_events, NULL };

		if (monitor_tool_start(&mp->tool, argv, cause) != 0)
			goto fail;
	}
	close(ctl[0]);
	close(ack[1]);
	ctl[0] = ack[1] = -1;
	if (monitor_perfstat_ready(mp, cause) != 0)
		goto out;
	*state = mp;
	mp = NULL;
	r = 0;
	goto out;
fail:
	if (strstr(*cause, "not installed") != NULL) {
		free(*cause);
		*cause = xstrdup("'perf' is not installed (Debian package "
		    "linux-perf)");
	}
out:
	if (ctl[0] != -1)
		close(ctl[0]);
	if (ack[1] != -1)
		close(ack[1]);
	if (ctl[1] != -1)
		close(ctl[1]);
	if (ack[0] != -1)
		close(ack[0]);
	free(control);
	monitor_perfstat_free(mp);
	return r;
}

static int
monitor_perfstat_stop(void *state, const struct monitor_exit *e,
    struct result *r, char **cause)
{
	struct monitor_perfstat	*mp = state;
	struct strbuf		 unsupported = STRBUF_INIT;
	double			 seconds;
	int			 ret = -1;

	(void)e;
	if (monitor_tool_stop(&mp->tool, &mp->out, &seconds, cause) != 0)
		goto out;
	if (monitor_perfstat_parse(r, mp->out.buf, mp->out.len, seconds,
	    &unsupported, cause) < 0) {
		strbuf_rtrim(&mp->out);
		error_set(cause, "perf stat printed no counts: %.300s",
		    mp->out.buf);
		goto out;
	}
	if (unsupported.len > 0)
		result_env_set(r, "perf_stat_unsupported", unsupported.buf);
	ret = 0;
out:
	strbuf_release(&unsupported);
	return ret;
}

const struct monitor_ops monitor_perfstat_ops = {
	.name = "perf-stat",
	.start = monitor_perfstat_start,
	.stop = monitor_perfstat_stop,
	.free = monitor_perfstat_free,
};
