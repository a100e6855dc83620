/*
 * What the environment says about a kernel: the running one's compiler,
 * build string and configuration hash, and a built bzImage's release and
 * .config from the run's artifacts; a run on the kernel under test says so,
 * so that the commits' own kernels do not count as drift (docs/monitors.md).
 */
#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/inventory.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/xalloc.h"

#define INVENTORY_HASH_LEN	16
#define INVENTORY_MAX_IMAGE	(256u << 20)

static char *
inventory_kernel_hash(const char *buf, size_t len)
{
	char	hex[HASH_HEX_LEN + 1];

	hash_sha256_hex(buf, len, hex);
	hex[INVENTORY_HASH_LEN] = '\0';
	return xstrdup(hex);
}

/*
 * "Linux version R (who@host) (gcc (Debian 12.2.0-14) 12.2.0, GNU ld
 * (GNU Binutils for Debian) 2.40) #1 SMP ...": the second parenthesis,
 * up to the linker, is the compiler; from '#' on is the build.
 */
static void
inventory_kernel_version(struct inventory *inv, const char *text)
{
	const char	*p, *start, *end;
	char		*v;
	int		 depth;

	if (strncmp(text, "Linux version ", 14) != 0)
		return;
	if ((p = strstr(text, ") (")) != NULL) {
		start = p + 3;
		for (depth = 1, end = start; *end != '\0' && *end != '\n';
		    end++) {
			if (*end == '(')
				depth++;
			else if (*end == ')' && --depth == 0)
				break;
		}
		if (depth == 0) {
			v = xstrndup(start, (size_t)(end - start));
			if ((p = strstr(v, ", GNU ld")) != NULL ||
			    (p = strstr(v, ", LLD")) != NULL)
				v[p - v] = '\0';
			inventory_set(inv, "compiler", v);
			free(v);
		}
	}
	if ((p = strstr(text, ") #")) != NULL) {
		p += 2;
		end = strchr(p, '\n');
		v = end != NULL ? xstrndup(p, (size_t)(end - p)) : xstrdup(p);
		inventory_set(inv, "kernel_build", v);
		free(v);
	}
}

void
inventory_kernel(struct inventory *inv, const char *root)
{
	const char	*release = inventory_get(inv, "kernel");
	char		*text, *path, *full, *h, *buf = NULL;
	size_t		 len;

	if ((text = inventory_read(root, "/proc/version")) != NULL) {
		inventory_kernel_version(inv, text);
		free(text);
	}
	full = inventory_path(root, "/proc/config.gz");
	path = xstrdup("/proc/config.gz");
	if (file_read(full, &buf, &len, NULL) != 0 && release != NULL) {
		free(full);
		free(path);
		path = xasprintf("/boot/config-%s", release);
		full = inventory_path(root, path);
		if (file_read(full, &buf, &len, NULL) != 0)
			buf = NULL;
	}
	if (buf != NULL) {
		h = inventory_kernel_hash(buf, len);
		inventory_set(inv, "kconfig", h);
		inventory_set(inv, "kconfig_source", path);
		free(h);
	}
	free(buf);
	free(full);
	free(path);
}

char *
inventory_kernel_bzimage_release(const char *path)
{
	struct stat	 st;
	char		*buf = NULL, *rel = NULL;
	size_t		 len, off, end;

	if (stat(path, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > INVENTORY_MAX_IMAGE ||
	    file_read(path, &buf, &len, NULL) != 0)
		return NULL;
	if (len < 0x210 || memcmp(buf + 0x202, "HdrS", 4) != 0)
		goto out;
	off = 0x200 + ((size_t)(uint8_t)buf[0x20e] |
	    (size_t)(uint8_t)buf[0x20f] << 8);
	if (off >= len)
		goto out;
	for (end = off; end < len && end - off < 256 && buf[end] > ' ' &&
	    buf[end] <= '~'; end++)
		;
	if (end > off)
		rel = xstrndup(buf + off, end - off);
out:
	free(buf);
	return rel;
}

static void
inventory_kernel_config(struct inventory *inv, const char *path,
    const char *config_copy)
{
	char	*buf = NULL, *h, *p, *end;
	size_t	 len;

	if (file_read(path, &buf, &len, NULL) != 0)
		return;
	h = inventory_kernel_hash(buf, len);
	inventory_set(inv, "kconfig_built", h);
	free(h);
	if (config_copy != NULL)
		file_write_atomic(config_copy, buf, len, NULL);
	if ((p = strstr(buf, "\nCONFIG_CC_VERSION_TEXT=\"")) != NULL) {
		p += strlen("\nCONFIG_CC_VERSION_TEXT=\"");
		if ((end = strchr(p, '"')) != NULL) {
			*end = '\0';
			inventory_set(inv, "compiler_built", p);
		}
	}
	free(buf);
}

void
inventory_kernel_build(struct inventory *inv, const char *workdir,
    const char *config_copy)
{
	static const char *const images[] = {
		"bzImage", "arch/x86/boot/bzImage", "vmlinuz",
	};
	const char	*running = inventory_get(inv, "kernel");
	const char	*forced = getenv("BISECT_AGENT_KERNEL_UNDER_TEST");
	char		*path, *rel = NULL;
	size_t		 i;

	if (workdir != NULL) {
		for (i = 0; i < sizeof images / sizeof images[0] && rel == NULL;
		    i++) {
			path = path_join(workdir, images[i]);
			rel = inventory_kernel_bzimage_release(path);
			free(path);
		}
		path = path_join(workdir, ".config");
		inventory_kernel_config(inv, path, config_copy);
		free(path);
	}
	if (rel != NULL)
		inventory_set(inv, "kernel_built", rel);
	if ((forced != NULL && strcmp(forced, "1") == 0) || (rel != NULL &&
	    running != NULL && strcmp(rel, running) == 0))
		inventory_set(inv, "kernel_under_test", "1");
	free(rel);
}
