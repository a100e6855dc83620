/*
 * A growable, always NUL-terminated byte buffer, in the manner of git's
 * strbuf. STRBUF_INIT is valid and empty; strbuf_release frees the contents.
 */
#ifndef UTIL_STRBUF_H
#define UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char	*buf;
	size_t	 len;
	size_t	 alloc;
};

extern char strbuf_empty[];
#define STRBUF_INIT { strbuf_empty, 0, 0 }

void	 strbuf_init(struct strbuf *);
void	 strbuf_release(struct strbuf *);
void	 strbuf_reset(struct strbuf *);
void	 strbuf_grow(struct strbuf *, size_t);
void	 strbuf_add(struct strbuf *, const void *, size_t);
void	 strbuf_addstr(struct strbuf *, const char *);
void	 strbuf_addch(struct strbuf *, int);
void	 strbuf_addf(struct strbuf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 strbuf_vaddf(struct strbuf *, const char *, va_list);
char	*strbuf_detach(struct strbuf *, size_t *);
void	 strbuf_rtrim(struct strbuf *);

#endif
