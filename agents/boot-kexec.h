/*
 * The kexec boot method, for real test machines: the image copied and
 * loaded, kexec -e, a bounded wait, then the build's release and our token
 * checked, with a fallback when it does not come back (docs/design.md,
 * "File notes", has the steps).
 */
#ifndef AGENTS_BOOT_KEXEC_H
#define AGENTS_BOOT_KEXEC_H

struct boot_kexec_ops {
	/* Run argv on the machine; its stdout in *out when out != NULL. */
	int	(*exec)(void *arg, const char *const argv[], char **out,
		    char **cause);
	int	(*upload)(void *arg, const char *local, const char *remote,
		    char **cause);
	/* 0: the machine answers; 1: not within timeout; -1: error. */
	int	(*reconnect)(void *arg, unsigned timeout, char **cause);
	/* Bring the machine back to its default kernel; may be NULL. */
	int	(*fallback)(void *arg, char **cause);
};

struct boot_kexec_params {
	const char	*image;		/* the bzImage, on this side */
	const char	*remote_image;	/* where it goes on the machine */
	const char	*release;	/* what uname -r must say; NULL: any */
	const char	*token;		/* unique for this boot */
	const char	*append;	/* more command line, or NULL */
	int		 sudo;		/* run kexec through sudo */
	unsigned	 boot_timeout;	/* seconds for the new kernel */
	unsigned	 fallback_timeout; /* seconds for the default one */
};

/*
 * Returns 0 when the machine runs the new kernel, 1 when it did not come
 * up or did not stay up (*why says how; the machine is back on its default
 * kernel), -1 on an error (*cause): a failed copy or kexec -l, a machine
 * that never came back, a booted kernel whose release is not the build's.
 */
int	boot_kexec(const struct boot_kexec_ops *, void *arg,
	    const struct boot_kexec_params *, char **why, char **cause);

#endif
