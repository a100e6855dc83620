/*
 * What the boot methods share: their names, finding the kernel image among
 * a run's artifacts, the release and image hash the build recorded next to
 * them (the daemon's cache entry carries .bisectd-build), and the boot
 * timeout a job may set.
 */
#include <stdlib.h>
#include <string.h>

#include "agents/boot.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

#define BOOT_META	".bisectd-build"

static const char *boot_names[] = { "none", "qemu", "kexec" };

int
boot_method_parse(const char *s, enum boot_method *out)
{
	size_t	i;

	for (i = 0; i < sizeof boot_names / sizeof boot_names[0]; i++) {
		if (strcmp(s, boot_names[i]) == 0) {
			*out = (enum boot_method)i;
			return 0;
		}
	}
	return -1;
}

const char *
boot_method_name(enum boot_method m)
{
	if ((size_t)m < sizeof boot_names / sizeof boot_names[0])
		return boot_names[m];
	return "unknown";
}

static int
boot_is_file(const char *workdir, const char *rel)
{
	char	*p = path_join(workdir, rel);
	int	 rv = file_exists(p);

	free(p);
	return rv;
}

char *
boot_kernel_image(const char *workdir, const struct job *job)
{
	static const char	*names[] = {
		"arch/x86/boot/bzImage", "bzImage", "vmlinuz",
	};
	const char		*v = job != NULL ? job_param(job, "kernel") :
				    NULL;
	size_t			 i;

	if (v != NULL) {
		if (*v == '/' || strstr(v, "..") != NULL ||
		    !boot_is_file(workdir, v))
			return NULL;
		return xstrdup(v);
	}
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (boot_is_file(workdir, names[i]))
			return xstrdup(names[i]);
	}
	return NULL;
}

/* A "KEY VALUE" line of the build's metadata. */
static char *
boot_meta(const char *workdir, const char *key)
{
	char	*path = path_join(workdir, BOOT_META), *buf = NULL, *line;
	char	*next, *value = NULL;
	size_t	 len, klen = strlen(key);

	if (file_read(path, &buf, &len, NULL) != 0) {
		free(path);
		return NULL;
	}
	for (line = buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strncmp(line, key, klen) == 0 && line[klen] == ' ' &&
		    line[klen + 1] != '\0') {
			value = xstrdup(line + klen + 1);
			break;
		}
	}
	free(buf);
	free(path);
	return value;
}

char *
boot_expected_release(const char *workdir)
{
	return boot_meta(workdir, "kernel_release");
}

char *
boot_image_hash(const char *workdir)
{
	return boot_meta(workdir, "image_hash");
}

int
boot_kconfig(const char *workdir, const char *symbol, char **value)
{
	char	*path = path_join(workdir, ".config"), *buf = NULL, *line;
	char	*next, *unset = xasprintf("# %s is not set", symbol);
	size_t	 len, n = strlen(symbol);
	int	 r = -1;

	*value = NULL;
	if (file_read(path, &buf, &len, NULL) != 0)
		goto out;
	r = 0;
	for (line = buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strcmp(line, unset) == 0) {
			*value = xstrdup("n");
			break;
		}
		if (strncmp(line, symbol, n) == 0 && line[n] == '=') {
			*value = xstrdup(line + n + 1);
			break;
		}
	}
out:
	free(buf);
	free(path);
	free(unset);
	return r;
}

unsigned
boot_timeout(const struct job *job)
{
	const char	*v = job_param(job, "boot_timeout");
	char		*end;
	unsigned long	 n;

	if (v == NULL)
		return BOOT_TIMEOUT;
	n = strtoul(v, &end, 10);
	if (*end != '\0' || n == 0 || n > 86400)
		return BOOT_TIMEOUT;
	return (unsigned)n;
}

int
boot_run(enum boot_method m, const struct job *job, const char *jobfile,
    const char *workdir, const char *resultdir, struct result *r,
    char **cause)
{
	switch (m) {
	case BOOT_QEMU:
		return boot_qemu_run(job, jobfile, workdir, resultdir, r,
		    cause);
	case BOOT_KEXEC:
		return error_set(cause, "boot method 'kexec' reboots the test "
		    "machine: the daemon drives it over ssh (boot_kexec), "
		    "'bisect-agent run' does not");
	case BOOT_NONE:
		break;
	}
	return error_set(cause, "boot method '%s' needs no booting",
	    boot_method_name(m));
}
