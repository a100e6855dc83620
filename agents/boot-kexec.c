/*
 * The kexec sequence (agents/boot-kexec.h), independent of how the machine
 * is reached. The token on the kernel command line tells the kernel we
 * loaded from one the machine booted by itself: after a panic and a
 * firmware reboot, or a watchdog reset, the default kernel can even have
 * the same release, but never our token.
 */
#include <stdlib.h>
#include <string.h>

#include "agents/boot-kexec.h"
#include "util/error.h"
#include "util/xalloc.h"

static int
boot_kexec_line(const struct boot_kexec_ops *ops, void *arg,
    const char *const argv[], char **out, char **cause)
{
	char	*text = NULL;

	if (ops->exec(arg, argv, &text, cause) != 0)
		return -1;
	text[strcspn(text, "\n")] = '\0';
	*out = text;
	return 0;
}

/* Is "bisectd.boot=TOKEN" a word of the command line? */
static int
boot_kexec_has_token(const char *cmdline, const char *word)
{
	size_t		 n = strlen(word);
	const char	*p = cmdline;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == cmdline || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return 1;
		p += n;
	}
	return 0;
}

/* After a failed boot: the default kernel again, or an error. */
static int
boot_kexec_recover(const struct boot_kexec_ops *ops, void *arg,
    const struct boot_kexec_params *p, const char *def, char **cause)
{
	const char	*uname[] = { "uname", "-r", NULL };
	char		*now = NULL;
	int		 r;

	if (ops->fallback != NULL && ops->fallback(arg, cause) != 0) {
		error_prefix(cause, "the fallback to the default kernel "
		    "failed");
		return -1;
	}
	if ((r = ops->reconnect(arg, p->fallback_timeout, cause)) != 0) {
		if (r == 1)
			error_set(cause, "the machine did not come back on its "
			    "default kernel within %us", p->fallback_timeout);
		return -1;
	}
	if (boot_kexec_line(ops, arg, uname, &now, cause) != 0)
		return -1;
	if (strcmp(now, def) != 0) {
		error_set(cause, "after the fallback the machine runs '%s', "
		    "not its default kernel '%s'", now, def);
		free(now);
		return -1;
	}
	free(now);
	return 0;
}

int
boot_kexec(const struct boot_kexec_ops *ops, void *arg,
    const struct boot_kexec_params *p, char **why, char **cause)
{
	const char	*uname[] = { "uname", "-r", NULL };
	const char	*cmdline[] = { "cat", "/proc/cmdline", NULL };
	const char	*load[8], *exec[4];
	char		*def = NULL, *rel = NULL, *cl = NULL, *append = NULL;
	char		*word = NULL;
	int		 r, n, m = 0, rv = -1;

	word = xasprintf("bisectd.boot=%s", p->token);
	if (boot_kexec_line(ops, arg, uname, &def, cause) != 0)
		goto out;
	if (ops->upload(arg, p->image, p->remote_image, cause) != 0) {
		error_prefix(cause, "copying the kernel to the machine");
		goto out;
	}
	append = xasprintf("--append=%s%s%s", word, p->append != NULL ?
	    " " : "", p->append != NULL ? p->append : "");
	n = 0;
	if (p->sudo)
		load[n++] = exec[m++] = "sudo";
	load[n++] = exec[m++] = "kexec";
	load[n++] = "-l";
	load[n++] = p->remote_image;
	load[n++] = "--reuse-cmdline";
	load[n++] = append;
	load[n] = NULL;
	exec[m++] = "-e";
	exec[m] = NULL;
	if (ops->exec(arg, load, NULL, cause) != 0) {
		error_prefix(cause, "kexec -l");
		goto out;
	}
	/* The connection goes down with the old kernel: no answer expected. */
	ops->exec(arg, exec, NULL, NULL);

	if ((r = ops->reconnect(arg, p->boot_timeout, cause)) < 0)
		goto out;
	if (r == 1) {
		if (boot_kexec_recover(ops, arg, p, def, cause) != 0)
			goto out;
		*why = xasprintf("the kernel did not come up within %us; the "
		    "machine is back on its default kernel '%s'",
		    p->boot_timeout, def);
		rv = 1;
		goto out;
	}
	if (boot_kexec_line(ops, arg, uname, &rel, cause) != 0 ||
	    boot_kexec_line(ops, arg, cmdline, &cl, cause) != 0)
		goto out;
	if (!boot_kexec_has_token(cl, word)) {
		*why = xasprintf("the machine came back on kernel '%s' without "
		    "'%s' on its command line: the new kernel did not stay "
		    "up", rel, word);
		rv = 1;
		goto out;
	}
	if (p->release != NULL && strcmp(rel, p->release) != 0) {
		error_set(cause, "the booted kernel says '%s', the build made "
		    "'%s'", rel, p->release);
		goto out;
	}
	rv = 0;
out:
	free(def);
	free(rel);
	free(cl);
	free(append);
	free(word);
	return rv;
}
