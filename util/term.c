/*
 * Control bytes shown, not obeyed (util/term.h): a stdio cookie stream
 * whose writes go to the original descriptor with every byte below 0x20
 * but newline and tab, and DEL, written as \xHH.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/fd.h"
#include "util/strbuf.h"
#include "util/term.h"

void
term_escape(struct strbuf *dst, const char *src, size_t len)
{
	size_t		i, start = 0;
	unsigned char	c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)src[i];
		if ((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t')
			continue;
		strbuf_add(dst, src + start, i - start);
		strbuf_addf(dst, "\\x%02x", c);
		start = i + 1;
	}
	strbuf_add(dst, src + start, len - start);
}

static ssize_t
term_write(void *cookie, const char *buf, size_t len)
{
	struct strbuf	 sb = STRBUF_INIT;
	int		 fd = (int)(long)cookie;
	int		 whole;

	term_escape(&sb, buf, len);
	whole = fd_write_all(fd, sb.buf, sb.len) == 0;
	strbuf_release(&sb);
	return whole ? (ssize_t)len : -1;
}

static FILE *
term_open(int fd, int mode)
{
	cookie_io_functions_t	 io = { .write = term_write };
	FILE			*f;

	if ((f = fopencookie((void *)(long)fd, "w", io)) == NULL)
		return NULL;
	setvbuf(f, NULL, mode, BUFSIZ);
	return f;
}

void
term_filter_std(void)
{
	FILE	*f;

	fflush(stdout);
	fflush(stderr);
	if ((f = term_open(STDOUT_FILENO, isatty(STDOUT_FILENO) ? _IOLBF :
	    _IOFBF)) != NULL)
		stdout = f;
	if ((f = term_open(STDERR_FILENO, _IONBF)) != NULL)
		stderr = f;
}
