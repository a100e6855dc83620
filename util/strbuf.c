/*
 * Growable strings. The buffer always ends in a NUL so that buf can be
 * handed to any C string function.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

char strbuf_empty[1];

void
strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void
strbuf_release(struct strbuf *sb)
{
	if (sb->alloc != 0)
		free(sb->buf);
	strbuf_init(sb);
}

void
strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc != 0)
		sb->buf[0] = '\0';
}

void
strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t	want = sb->len + extra + 1;

	if (want <= sb->alloc)
		return;
	if (want < sb->alloc * 2)
		want = sb->alloc * 2;
	if (want < 64)
		want = 64;
	if (sb->alloc == 0) {
		sb->buf = xmalloc(want);
		sb->buf[0] = '\0';
	} else
		sb->buf = xrealloc(sb->buf, want);
	sb->alloc = want;
}

void
strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void
strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void
strbuf_addch(struct strbuf *sb, int c)
{
	char	ch = (char)c;

	strbuf_add(sb, &ch, 1);
}

void
strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list	cp;
	int	n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *
strbuf_detach(struct strbuf *sb, size_t *lenp)
{
	char	*s;

	if (sb->alloc == 0)
		s = xstrdup("");
	else
		s = sb->buf;
	if (lenp != NULL)
		*lenp = sb->len;
	strbuf_init(sb);
	return s;
}

void
strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len > 0 && (sb->buf[sb->len - 1] == ' ' ||
	    sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\t' ||
	    sb->buf[sb->len - 1] == '\r'))
		sb->len--;
	if (sb->alloc != 0)
		sb->buf[sb->len] = '\0';
}
