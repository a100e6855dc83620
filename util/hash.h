/*
 * SHA-256 in hex, for stable identifiers (job ids, build recipes, artifact
 * sets, kernel images): of a buffer at once, or fed piece by piece --
 * names, kinds and whole files -- for the identity of a tree.
 */
#ifndef UTIL_HASH_H
#define UTIL_HASH_H

#include <stddef.h>

#define HASH_HEX_LEN 64

struct hash;

void	hash_sha256_hex(const void *, size_t, char out[HASH_HEX_LEN + 1]);

/* A running SHA-256 (never NULL: out of memory aborts, as xmalloc). */
struct hash *hash_new(void);
void	hash_update(struct hash *, const void *, size_t);
/*
 * The contents of the file at path; with nofollow a symbolic link is an
 * error (O_NOFOLLOW), not the file it names.
 */
int	hash_file(struct hash *, const char *path, int nofollow,
	    char **cause);
/* The digest so far in hex; the hash is done with and freed. */
void	hash_finish(struct hash *, char out[HASH_HEX_LEN + 1]);
void	hash_free(struct hash *);

#endif
