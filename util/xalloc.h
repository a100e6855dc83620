/*
 * Allocation that cannot fail: out of memory is fatal (CONVENTIONS 5), so
 * callers never check these for NULL.
 */
#ifndef UTIL_XALLOC_H
#define UTIL_XALLOC_H

#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));

#define ALLOC_GROW(p, nr, alloc) do {					\
	if ((nr) >= (alloc)) {						\
		(alloc) = (alloc) ? (alloc) * 2 : 8;			\
		if ((alloc) <= (nr))					\
			(alloc) = (nr) + 1;				\
		(p) = xreallocarray((p), (alloc), sizeof *(p));		\
	}								\
} while (0)

#endif
