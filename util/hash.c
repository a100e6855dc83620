/*
 * SHA-256 through OpenSSL's libcrypto, which libssh2 already pulls in.
 */
#include <openssl/evp.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fd.h"
#include "util/hash.h"
#include "util/xalloc.h"

struct hash {
	EVP_MD_CTX	*md;
};

static void
hash_hex(const unsigned char *md, unsigned int len,
    char out[HASH_HEX_LEN + 1])
{
	unsigned int	i;

	for (i = 0; i < len && i < HASH_HEX_LEN / 2; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[2 * i] = '\0';
}

void
hash_sha256_hex(const void *data, size_t len, char out[HASH_HEX_LEN + 1])
{
	unsigned char	md[EVP_MAX_MD_SIZE];
	unsigned int	mdlen = 0;

	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	hash_hex(md, mdlen, out);
}

struct hash *
hash_new(void)
{
	struct hash	*h = xmalloc(sizeof *h);

	if ((h->md = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(h->md, EVP_sha256(), NULL) != 1) {
		fprintf(stderr, "fatal: out of memory starting a sha256\n");
		abort();
	}
	return h;
}

void
hash_update(struct hash *h, const void *data, size_t len)
{
	EVP_DigestUpdate(h->md, data, len);
}

int
hash_file(struct hash *h, const char *path, int nofollow, char **cause)
{
	char	buf[65536];
	ssize_t	n;
	int	fd, r = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC |
	    (nofollow ? O_NOFOLLOW : 0))) == -1)
		return error_errno(cause, "couldn't open '%s'", path);
	for (;;) {
		n = fd_read(fd, buf, sizeof buf);
		if (n == -1) {
			error_errno(cause, "couldn't read '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		EVP_DigestUpdate(h->md, buf, (size_t)n);
	}
	r = 0;
out:
	close(fd);
	return r;
}

void
hash_finish(struct hash *h, char out[HASH_HEX_LEN + 1])
{
	unsigned char	md[EVP_MAX_MD_SIZE];
	unsigned int	mdlen = 0;

	EVP_DigestFinal_ex(h->md, md, &mdlen);
	hash_hex(md, mdlen, out);
	hash_free(h);
}

void
hash_free(struct hash *h)
{
	if (h == NULL)
		return;
	EVP_MD_CTX_free(h->md);
	free(h);
}
