/*
 * The index of a result's names (agents/result-index.h): an FNV-1a hash
 * table with open addressing, linear probing, doubled when half full, so
 * that reading or writing a result with many metrics stays linear.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agents/result-index.h"
#include "util/xalloc.h"

static uint64_t
result_index_hash(const char *name)
{
	uint64_t	h = 14695981039346656037ULL;

	for (; *name != '\0'; name++) {
		h ^= (unsigned char)*name;
		h *= 1099511628211ULL;
	}
	return h;
}

void
result_index_release(struct result_index *ix)
{
	free(ix->slots);
	ix->slots = NULL;
	ix->size = ix->used = 0;
}

size_t
result_index_find(const struct result_index *ix, const char *name)
{
	size_t	i;

	if (ix->size == 0)
		return RESULT_INDEX_NONE;
	i = result_index_hash(name) & (ix->size - 1);
	while (ix->slots[i].name != NULL) {
		if (strcmp(ix->slots[i].name, name) == 0)
			return ix->slots[i].at;
		i = (i + 1) & (ix->size - 1);
	}
	return RESULT_INDEX_NONE;
}

/* Open addressing, linear probing, doubled at half full. */
void
result_index_add(struct result_index *ix, const char *name, size_t at)
{
	struct result_index	old = *ix;
	size_t			i;

	if ((ix->used + 1) * 2 > ix->size) {
		ix->size = old.size ? old.size * 2 : 64;
		ix->slots = xcalloc(ix->size, sizeof *ix->slots);
		ix->used = 0;
		for (i = 0; i < old.size; i++) {
			if (old.slots[i].name != NULL)
				result_index_add(ix, old.slots[i].name,
				    old.slots[i].at);
		}
		free(old.slots);
	}
	i = result_index_hash(name) & (ix->size - 1);
	while (ix->slots[i].name != NULL)
		i = (i + 1) & (ix->size - 1);
	ix->slots[i].name = name;
	ix->slots[i].at = at;
	ix->used++;
}
