/*
 * Monitors that are programs of their own (perf stat, turbostat): the
 * program runs beside the testcase with its output in an unlinked
 * temporary file, is stopped with SIGINT when the testcase ends, and its
 * output is parsed into the run's metrics. The parsers are apart from the
 * process handling so that tests and fuzzers feed them text.
 */
#ifndef AGENTS_MONITOR_TOOL_H
#define AGENTS_MONITOR_TOOL_H

#include <sys/types.h>

#include <stddef.h>
#include <time.h>

struct result;
struct strbuf;

struct monitor_tool {
	pid_t		 pid;
	int		 fd;		/* the output file, unlinked */
	struct timespec	 start;
};

/* argv[0] is looked up in PATH; -1 with *cause if it is not there. */
int	 monitor_tool_start(struct monitor_tool *, char *const argv[],
	     char **cause);
/*
 * SIGINT, then its exit (SIGKILL after a few seconds); its output into
 * sb and the seconds it ran into *seconds. -1 with *cause if it died
 * before it was told to stop or could not be read.
 */
int	 monitor_tool_stop(struct monitor_tool *, struct strbuf *sb,
	     double *seconds, char **cause);
/*
 * Run argv to its end (SIGKILL after a few seconds), its output into sb:
 * the probe a monitor makes at start. -1 with *cause, the output quoted,
 * if it could not run or exited with a status other than 0.
 */
int	 monitor_tool_probe(char *const argv[], struct strbuf *sb,
	     char **cause);
/* Kill and reap it if it still runs; close the file. */
void	 monitor_tool_release(struct monitor_tool *);

/*
 * perf stat -x, [-A] output: perf-stat.ps.EVENT (per second over seconds,
 * per-CPU instances with -A), perf-stat.total.instructions and LKP's
 * derived perf-stat.overall.* (ipc, cpi, *-miss-rate%, MPKI,
 * cycles-between-cache-misses). Events perf says "<not supported>" or
 * "<not counted>" for go into *unsupported, space-separated. Returns the
 * number of events counted, -1 with *cause when the text has none and
 * nothing unsupported either.
 */
int	 monitor_perfstat_parse(struct result *, const char *text, size_t len,
	     double seconds, struct strbuf *unsupported, char **cause);

/*
 * turbostat output: each header line (one holding "Busy%") and the
 * summary row under it; turbostat.COLUMN is the mean over the rows of
 * each column with a number (as LKP's stats/turbostat, over every
 * interval). Returns the number of rows, -1 with *cause when none.
 */
int	 monitor_turbostat_parse(struct result *, const char *text,
	     size_t len, char **cause);

#endif
