/*
 * Logging to stderr. The daemon prefixes a timestamp; the command-line client
 * prints bare lines in git's style ("error: ...", "bisect: ...").
 */
#ifndef UTIL_LOG_H
#define UTIL_LOG_H

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

void	log_setup(const char *progname, int timestamps, enum log_level);
void	log_error(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
/* Start-up only: never reachable from the daemon's request paths. */
void	log_fatal(const char *, ...) __attribute__((format(printf, 1, 2),
    noreturn));

#endif
