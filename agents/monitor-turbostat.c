/*
 * turbostat (Debian package linux-cpupower): "turbostat --quiet --Summary
 * --interval 1" beside the testcase, one summary row per second and a
 * last one when it is stopped. turbostat.COLUMN, LKP's names (Avg_MHz,
 * Busy%, PkgWatt, RAMWatt, which older turbostat called RAM_W), is the
 * mean of the column over the rows. It reads the CPUs' MSRs: without
 * /dev/cpu/0/msr (no msr module, most VMs and containers) the monitor is
 * unavailable and the run's environment says so.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/monitor.h"
#include "agents/monitor-tool.h"
#include "agents/result.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define TURBOSTAT_MAX_COLS	512

struct monitor_turbostat_col {
	char	*name;
	double	 sum;
	unsigned n;
};

static size_t
monitor_turbostat_fields(char *line, char **f, size_t max)
{
	size_t	n = 0;
	char	*save = NULL, *t;

	for (t = strtok_r(line, " \t\r", &save); t != NULL && n < max;
	    t = strtok_r(NULL, " \t\r", &save))
		f[n++] = t;
	return n;
}

static struct monitor_turbostat_col *
monitor_turbostat_col(struct monitor_turbostat_col *cols, size_t *nr, const char *name)
{
	size_t	i;

	for (i = 0; i < *nr; i++) {
		if (strcmp(cols[i].name, name) == 0)
			return &cols[i];
	}
	if (*nr >= TURBOSTAT_MAX_COLS)
		return NULL;
	cols[*nr].name = xstrdup(name);
	cols[*nr].sum = 0;
	cols[*nr].n = 0;
	return &cols[(*nr)++];
}

/* The summary row under a header: the columns line up from the right. */
static void
monitor_turbostat_row(struct monitor_turbostat_col *cols, size_t *nr, char **title,
    size_t nt, char **val, size_t nv)
{
	struct monitor_turbostat_col	*c;
	size_t			 i;
	char			*end;
	double			 v;

	for (i = 0; i < nv; i++) {
		if (strchr(val[i], '*') != NULL || strcmp(val[i], "-") == 0)
			continue;
		v = strtod(val[i], &end);
		if (end == val[i] || *end != '\0' || !(v == v) || v > 1e300 ||
		    v < -1e300)
			continue;
		if ((c = monitor_turbostat_col(cols, nr, title[nt - nv + i])) != NULL) {
			c->sum += v;
			c->n++;
		}
	}
}

int
monitor_turbostat_parse(struct result *r, const char *text, size_t len,
    char **cause)
{
	struct monitor_turbostat_col	*cols = xcalloc(TURBOSTAT_MAX_COLS,
				    sizeof *cols);
	char			*copy = xstrndup(text, len), *line, *save = NULL;
	char			*title[TURBOSTAT_MAX_COLS], *val[TURBOSTAT_MAX_COLS];
	char			*head = NULL, name[256];
	size_t			 nr = 0, nt, nv, i;
	int			 rows = 0;

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "Busy%") != NULL) {
			head = line;
			continue;
		}
		if (head == NULL)
			continue;
		nt = monitor_turbostat_fields(head, title, TURBOSTAT_MAX_COLS);
		nv = monitor_turbostat_fields(line, val, TURBOSTAT_MAX_COLS);
		head = NULL;
		if (nv == 0 || nv > nt)
			continue;
		monitor_turbostat_row(cols, &nr, title, nt, val, nv);
		rows++;
	}
	for (i = 0; i < nr; i++) {
		if (cols[i].n > 0 && (size_t)snprintf(name, sizeof name,
		    "turbostat.%s", cols[i].name) < sizeof name &&
		    result_name_valid(name))
			result_metric(r, name)->value = cols[i].sum / cols[i].n;
		free(cols[i].name);
	}
	free(cols);
	free(copy);
	if (rows == 0)
		return error_set(cause, "turbostat printed no summary row");
	return rows;
}

struct monitor_turbostat {
	struct monitor_tool	tool;
	struct strbuf		out;
};

static void
monitor_turbostat_free(void *state)
{
	struct monitor_turbostat	*mt = state;

	if (mt == NULL)
		return;
	monitor_tool_release(&mt->tool);
	strbuf_release(&mt->out);
	free(mt);
}

static int
monitor_turbostat_start(void **state, const char *root, char **cause)
{
	struct monitor_turbostat *mt;
	char *const argv[] = { "turbostat", "--quiet", "--Summary",
	    "--interval", "1", NULL };
	char			*msr;

	msr = root != NULL ? path_join(root, "dev/cpu/0/msr") :
	    xstrdup("/dev/cpu/0/msr");
	if (!file_exists(msr)) {
		error_set(cause, "no '%s': turbostat reads the CPUs' MSRs "
		    "(the msr module; virtual machines and containers "
		    "seldom have them)", msr);
		free(msr);
		return -1;
	}
	free(msr);
	mt = xcalloc(1, sizeof *mt);
	mt->tool.pid = -1;
	mt->tool.fd = -1;
	strbuf_init(&mt->out);
	if (monitor_tool_start(&mt->tool, argv, cause) != 0) {
		if (strstr(*cause, "not installed") != NULL) {
			free(*cause);
			*cause = xstrdup("'turbostat' is not installed (Debian "
			    "package linux-cpupower)");
		}
		monitor_turbostat_free(mt);
		return -1;
	}
	*state = mt;
	return 0;
}

static int
monitor_turbostat_stop(void *state, const struct monitor_exit *e,
    struct result *r, char **cause)
{
	struct monitor_turbostat	*mt = state;
	double				 seconds;

	(void)e;
	if (monitor_tool_stop(&mt->tool, &mt->out, &seconds, cause) != 0)
		return -1;
	if (monitor_turbostat_parse(r, mt->out.buf, mt->out.len, cause) < 0) {
		strbuf_rtrim(&mt->out);
		return error_set(cause, "turbostat printed no summary row: "
		    "%.300s", mt->out.buf);
	}
	return 0;
}

const struct monitor_ops monitor_turbostat_ops = {
	.name = "turbostat",
	.start = monitor_turbostat_start,
	.stop = monitor_turbostat_stop,
	.free = monitor_turbostat_free,
};
