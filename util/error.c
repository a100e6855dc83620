/*
 * Helpers that build error messages for the "return -1 and set *cause"
 * convention. Each returns -1 so that "return error_set(...)" reads well.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

int
error_set(char **cause, const char *fmt, ...)
{
	struct strbuf	sb = STRBUF_INIT;
	va_list		ap;

	if (cause == NULL)
		return -1;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(*cause);
	*cause = strbuf_detach(&sb, NULL);
	return -1;
}

int
error_errno(char **cause, const char *fmt, ...)
{
	struct strbuf	sb = STRBUF_INIT;
	va_list		ap;
	int		saved = errno;

	if (cause == NULL)
		return -1;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_addf(&sb, ": %s", strerror(saved));
	free(*cause);
	*cause = strbuf_detach(&sb, NULL);
	errno = saved;
	return -1;
}

/* Put context in front of an existing message: "building 'x': <old>". */
int
error_prefix(char **cause, const char *fmt, ...)
{
	struct strbuf	sb = STRBUF_INIT;
	va_list		ap;

	if (cause == NULL)
		return -1;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (*cause != NULL) {
		strbuf_addf(&sb, ": %s", *cause);
		free(*cause);
	}
	*cause = strbuf_detach(&sb, NULL);
	return -1;
}
