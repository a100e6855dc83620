/*
 * Error values with messages. A function that can fail returns 0 or a
 * negative value and, when the caller passed a non-NULL cause, stores an
 * allocated message there (tmux's "char **cause"). Messages are lowercase,
 * without a full stop, and quote their subject: "couldn't open 'x': ...".
 */
#ifndef UTIL_ERROR_H
#define UTIL_ERROR_H

#include <stdarg.h>

int	 error_set(char **cause, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	 error_errno(char **cause, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	 error_prefix(char **cause, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
