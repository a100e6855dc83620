/*
 * SHA-256 through OpenSSL's libcrypto, which libssh2 already pulls in.
 */
#include <openssl/evp.h>

#include <stdio.h>

#include "util/hash.h"

void
hash_sha256_hex(const void *data, size_t len, char out[HASH_HEX_LEN + 1])
{
	unsigned char	md[EVP_MAX_MD_SIZE];
	unsigned int	mdlen = 0, i;

	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	for (i = 0; i < mdlen && i < HASH_HEX_LEN / 2; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[2 * i] = '\0';
}
