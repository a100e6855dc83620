/*
 * Boot methods (DESIGN §3.5): how the kernel a bisection built comes to run
 * the testcase. "none" runs it on the machine's own kernel; "qemu" boots the
 * artifacts' bzImage in a TCG virtual machine whose initramfs carries
 * bisect-agent, busybox and the artifacts, and reads the agent's results
 * back over a second serial port (agents/boot-qemu.c); "kexec" loads the
 * kernel into the test machine itself, reboots into it and reconnects
 * (agents/boot-kexec.c, driven from the daemon's side). docs/agents.md
 * describes each.
 */
#ifndef AGENTS_BOOT_H
#define AGENTS_BOOT_H

#include "agents/result.h"
#include "jobs/job.h"

enum boot_method {
	BOOT_NONE = 0,
	BOOT_QEMU,
	BOOT_KEXEC,
};

#define BOOT_TIMEOUT		60	/* seconds from start to the guest's
					   first word; job: boot_timeout */
#define BOOT_MARKER		"bisectd-guest"

int		 boot_method_parse(const char *, enum boot_method *out);
const char	*boot_method_name(enum boot_method);
/*
 * The kernel image among the run's artifacts: the job's "kernel" parameter
 * (relative to workdir), else arch/x86/boot/bzImage, bzImage, vmlinuz.
 * NULL when there is none. Allocated, relative to workdir.
 */
char		*boot_kernel_image(const char *workdir, const struct job *);
/* The kernel release and image hash the build recorded (.bisectd-build). */
char		*boot_expected_release(const char *workdir);
char		*boot_image_hash(const char *workdir);
/*
 * A symbol's value in the artifacts' .config (the build's final one):
 * "y", "m", a number or a string as written, "n" for "# ... is not set",
 * NULL when the file does not name it. -1 when there is no .config.
 */
int		 boot_kconfig(const char *workdir, const char *symbol,
		     char **value);
/* The job's boot_timeout in seconds, else BOOT_TIMEOUT. */
unsigned	 boot_timeout(const struct job *);

/*
 * bisect-agent run --boot METHOD: boot, run the job there, fill r.
 * BOOT_KEXEC is driven from the daemon's side and refused here.
 */
int		 boot_run(enum boot_method, const struct job *,
		     const char *jobfile, const char *workdir,
		     const char *resultdir, struct result *r, char **cause);

/*
 * The guest's initramfs at path (agents/boot-qemu-initramfs.c): the
 * artifacts of workdir but the image, the job file, and perf when perf.
 */
int		 boot_qemu_initramfs(const char *path, const char *workdir,
		     const char *image, const char *jobfile, int perf,
		     char **cause);
/*
 * Boot the artifacts' kernel under qemu and run the job in it; the guest
 * agent's result goes into r, plus env boot, boot_seconds and
 * kernel_sha256 (when the build recorded it). A kernel that
 * does not come up within boot_timeout, or stops before it does (a
 * panic), is recorded in r as untestable with the console's last lines.
 * RESULTDIR gets console.log (the guest's kernel log), qemu.log, and the
 * guest's output.log and agent.log. Returns -1 only when the boot could
 * not be attempted (no busybox, disk errors).
 */
int		 boot_qemu_run(const struct job *, const char *jobfile,
		     const char *workdir, const char *resultdir,
		     struct result *r, char **cause);

#endif
