/*
 * Minimal leveled logging to stderr. Timestamps are on for the daemon so that
 * its log can be read after the fact, off for interactive commands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"

static const char	*log_progname = "bisectd";
static int		 log_timestamps;
static enum log_level	 log_level = LOG_INFO;

void
log_setup(const char *progname, int timestamps, enum log_level level)
{
	log_progname = progname;
	log_timestamps = timestamps;
	log_level = level;
}

static void
log_vwrite(enum log_level level, const char *prefix, const char *fmt,
    va_list ap)
{
	char		 stamp[32];
	struct tm	 tm;
	time_t		 now;

	if (level > log_level)
		return;
	if (log_timestamps) {
		now = time(NULL);
		gmtime_r(&now, &tm);
		strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(stderr, "%s %s[%ld]: ", stamp, log_progname,
		    (long)getpid());
	}
	if (prefix != NULL)
		fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
}

void
log_error(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(LOG_ERROR, "error: ", fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(LOG_WARN, "warning: ", fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(LOG_INFO, NULL, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(LOG_DEBUG, "debug: ", fmt, ap);
	va_end(ap);
}

void
log_fatal(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(LOG_ERROR, "fatal: ", fmt, ap);
	va_end(ap);
	exit(1);
}
