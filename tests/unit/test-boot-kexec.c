/*
 * Unit tests for the kexec sequence (agents/boot-kexec.c) against a fake
 * machine: the exact order of the steps when all goes well, and a kernel
 * that hangs (fallback, then the default kernel), one that panics and
 * comes back as the default kernel (no token on its command line), one
 * whose release is not the build's, a machine that never comes back, a
 * failed copy and a failed kexec -l, and a machine whose own watchdog
 * brings it back when there is no fallback.
 */
#include <stdlib.h>
#include <string.h>

#include "agents/boot-kexec.h"
#include "tests/unit/tap.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

enum behaviour {
	OK, HANG, PANIC_BACK_DEFAULT, WRONG_RELEASE, NEVER_BACK,
	UPLOAD_FAIL, LOAD_FAIL, WATCHDOG,
};

#define DEFAULT_RELEASE	"6.1.0-18-amd64"
#define DEFAULT_CMDLINE	"BOOT_IMAGE=/vmlinuz-6.1.0-18-amd64 root=/dev/sda1 ro"

struct machine {
	enum behaviour	 b;
	char		 running[64];
	char		 cmdline[512];
	char		 uploaded[256];
	char		 loaded_append[256];
	int		 loaded;
	int		 reachable;
	int		 reconnects;
	int		 fallback_done;
	struct strbuf	 log;
};

static void
machine_init(struct machine *m, enum behaviour b)
{
	memset(m, 0, sizeof *m);
	m->b = b;
	strbuf_init(&m->log);
	snprintf(m->running, sizeof m->running, "%s", DEFAULT_RELEASE);
	snprintf(m->cmdline, sizeof m->cmdline, "%s", DEFAULT_CMDLINE);
	m->reachable = 1;
}

static void
machine_default(struct machine *m)
{
	snprintf(m->running, sizeof m->running, "%s", DEFAULT_RELEASE);
	snprintf(m->cmdline, sizeof m->cmdline, "%s", DEFAULT_CMDLINE);
}

static int
fake_exec(void *arg, const char *const argv[], char **out, char **cause)
{
	struct machine	*m = arg;
	size_t		 i;

	strbuf_addstr(&m->log, "exec");
	for (i = 0; argv[i] != NULL; i++)
		strbuf_addf(&m->log, " %s", argv[i]);
	strbuf_addch(&m->log, '\n');
	if (!m->reachable)
		return error_set(cause, "connection lost");
	if (strcmp(argv[0], "uname") == 0) {
		*out = xasprintf("%s\n", m->running);
		return 0;
	}
	if (strcmp(argv[0], "cat") == 0) {
		*out = xasprintf("%s\n", m->cmdline);
		return 0;
	}
	if (strcmp(argv[0], "sudo") == 0)
		argv++;
	if (strcmp(argv[0], "kexec") == 0 && strcmp(argv[1], "-l") == 0) {
		if (m->b == LOAD_FAIL)
			return error_set(cause, "kexec_load failed: Invalid "
			    "argument");
		if (strcmp(argv[2], m->uploaded) != 0)
			return error_set(cause, "no such file");
		snprintf(m->loaded_append, sizeof m->loaded_append, "%s",
		    argv[4] + strlen("--append="));
		m->loaded = 1;
		return 0;
	}
	if (strcmp(argv[0], "kexec") == 0 && strcmp(argv[1], "-e") == 0 &&
	    m->loaded) {
		m->reachable = 0;
		switch (m->b) {
		case OK:
		case WRONG_RELEASE:
			snprintf(m->running, sizeof m->running, "%s",
			    m->b == OK ? "6.1.192" : "6.1.192-other");
			snprintf(m->cmdline, sizeof m->cmdline, "%s %s",
			    DEFAULT_CMDLINE, m->loaded_append);
			break;
		case PANIC_BACK_DEFAULT:
			machine_default(m);
			break;
		default:
			break;
		}
		return error_set(cause, "connection closed by remote host");
	}
	return error_set(cause, "unknown command");
}

static int
fake_upload(void *arg, const char *local, const char *remote, char **cause)
{
	struct machine	*m = arg;

	strbuf_addf(&m->log, "upload %s %s\n", local, remote);
	if (m->b == UPLOAD_FAIL)
		return error_set(cause, "no space left on device");
	snprintf(m->uploaded, sizeof m->uploaded, "%s", remote);
	return 0;
}

static int
fake_reconnect(void *arg, unsigned timeout, char **cause)
{
	struct machine	*m = arg;

	strbuf_addf(&m->log, "reconnect %u\n", timeout);
	m->reconnects++;
	switch (m->b) {
	case NEVER_BACK:
		return 1;
	case HANG:
		if (!m->fallback_done)
			return 1;
		break;
	case WATCHDOG:
		if (m->reconnects == 1)
			return 1;
		machine_default(m);
		break;
	default:
		break;
	}
	m->reachable = 1;
	return 0;
}

static int
fake_fallback(void *arg, char **cause)
{
	struct machine	*m = arg;

	strbuf_addstr(&m->log, "fallback\n");
	m->fallback_done = 1;
	if (m->b == HANG)
		machine_default(m);
	return 0;
}

static const struct boot_kexec_ops fake_ops = {
	fake_exec, fake_upload, fake_reconnect, fake_fallback,
};

static const struct boot_kexec_params params = {
	.image = "/state/cache/linux/r/oid/arch/x86/boot/bzImage",
	.remote_image = "/var/tmp/bisectd/bzImage",
	.release = "6.1.192",
	.token = "run-42",
	.append = "mitigations=off",
	.boot_timeout = 120,
	.fallback_timeout = 600,
};

static int
run(enum behaviour b, const struct boot_kexec_ops *ops, struct machine *m,
    char **why, char **cause)
{
	machine_init(m, b);
	*why = *cause = NULL;
	return boot_kexec(ops, m, &params, why, cause);
}

int
main(void)
{
	struct boot_kexec_ops	 no_fallback = fake_ops;
	struct boot_kexec_params sudo_params = params;
	struct machine		 m;
	char			*why, *cause;

	is_int(run(OK, &fake_ops, &m, &why, &cause), 0, "boots the kernel");
	is_str(m.log.buf,
	    "exec uname -r\n"
	    "upload /state/cache/linux/r/oid/arch/x86/boot/bzImage "
	    "/var/tmp/bisectd/bzImage\n"
	    "exec kexec -l /var/tmp/bisectd/bzImage --reuse-cmdline "
	    "--append=bisectd.boot=run-42 mitigations=off\n"
	    "exec kexec -e\n"
	    "reconnect 120\n"
	    "exec uname -r\n"
	    "exec cat /proc/cmdline\n", "the sequence");
	ok(why == NULL && cause == NULL, "nothing to say");
	strbuf_release(&m.log);

	sudo_params.sudo = 1;
	machine_init(&m, OK);
	why = cause = NULL;
	is_int(boot_kexec(&fake_ops, &m, &sudo_params, &why, &cause), 0,
	    "boots through sudo");
	ok(strstr(m.log.buf, "exec sudo kexec -l /var/tmp/bisectd/bzImage "
	    "--reuse-cmdline") != NULL &&
	    strstr(m.log.buf, "exec sudo kexec -e\n") != NULL,
	    "kexec -l and -e through sudo, nothing else");
	ok(strstr(m.log.buf, "sudo uname") == NULL, "uname without sudo");
	strbuf_release(&m.log);

	is_int(run(HANG, &fake_ops, &m, &why, &cause), 1,
	    "a hanging kernel is untestable");
	is_str(why, "the kernel did not come up within 120s; the machine is "
	    "back on its default kernel '" DEFAULT_RELEASE "'", "why");
	ok(strstr(m.log.buf, "reconnect 120\nfallback\nreconnect 600\n"
	    "exec uname -r\n") != NULL, "fallback, then the default kernel");
	free(why);
	strbuf_release(&m.log);

	is_int(run(PANIC_BACK_DEFAULT, &fake_ops, &m, &why, &cause), 1,
	    "back on the default kernel after a panic: untestable");
	is_str(why, "the machine came back on kernel '" DEFAULT_RELEASE "' "
	    "without 'bisectd.boot=run-42' on its command line: the new "
	    "kernel did not stay up", "why");
	ok(strstr(m.log.buf, "fallback") == NULL, "no fallback needed");
	free(why);
	strbuf_release(&m.log);

	is_int(run(WRONG_RELEASE, &fake_ops, &m, &why, &cause), -1,
	    "the booted kernel is not the build's: an error");
	is_str(cause, "the booted kernel says '6.1.192-other', the build "
	    "made '6.1.192'", "cause");
	free(cause);
	strbuf_release(&m.log);

	is_int(run(NEVER_BACK, &fake_ops, &m, &why, &cause), -1,
	    "a machine that never comes back: an error");
	is_str(cause, "the machine did not come back on its default kernel "
	    "within 600s", "cause");
	free(cause);
	strbuf_release(&m.log);

	is_int(run(UPLOAD_FAIL, &fake_ops, &m, &why, &cause), -1,
	    "a failed copy");
	is_str(cause, "copying the kernel to the machine: no space left on "
	    "device", "cause");
	ok(strstr(m.log.buf, "kexec") == NULL, "nothing loaded");
	free(cause);
	strbuf_release(&m.log);

	is_int(run(LOAD_FAIL, &fake_ops, &m, &why, &cause), -1,
	    "a failed kexec -l");
	is_str(cause, "kexec -l: kexec_load failed: Invalid argument",
	    "cause");
	ok(strstr(m.log.buf, "kexec -e") == NULL, "no reboot attempted");
	free(cause);
	strbuf_release(&m.log);

	no_fallback.fallback = NULL;
	is_int(run(WATCHDOG, &no_fallback, &m, &why, &cause), 1,
	    "no fallback: the watchdog brings the default kernel back");
	ok(strstr(m.log.buf, "reconnect 120\nreconnect 600\nexec uname -r\n")
	    != NULL, "waits for it");
	free(why);
	strbuf_release(&m.log);
	return tap_done();
}
