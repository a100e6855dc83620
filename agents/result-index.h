/*
 * Internal to agents/: name to position, for reading and writing a
 * result (agents/result-parse.c, agents/result.c). A result may hold
 * 100000 metrics, and finding each by a linear search would make parsing
 * quadratic. The names are borrowed from the result, which outlives the
 * index.
 */
#ifndef AGENTS_RESULT_INDEX_H
#define AGENTS_RESULT_INDEX_H

#include <stddef.h>

#define RESULT_INDEX_NONE	((size_t)-1)
#define RESULT_INDEX_INIT	{ NULL, 0, 0 }

struct result_index_slot {
	const char	*name;
	size_t		 at;
};

struct result_index {
	struct result_index_slot	*slots;
	size_t				 size;	/* a power of two, or 0 */
	size_t				 used;
};

/* The position of name, or RESULT_INDEX_NONE. */
size_t	 result_index_find(const struct result_index *, const char *name);
/* The caller has checked that name is not there yet. */
void	 result_index_add(struct result_index *, const char *name, size_t at);
void	 result_index_release(struct result_index *);

#endif
