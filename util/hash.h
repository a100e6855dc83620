/*
 * SHA-256 in hex, for stable identifiers (job ids, build recipes).
 */
#ifndef UTIL_HASH_H
#define UTIL_HASH_H

#include <stddef.h>

#define HASH_HEX_LEN 64

void	hash_sha256_hex(const void *, size_t, char out[HASH_HEX_LEN + 1]);

#endif
