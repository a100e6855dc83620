/*
 * The qemu boot's initramfs: busybox (static), bisect-agent with its
 * libraries, the job, the artifacts and the kernel's modules, and an init
 * that runs the agent and sends its result files back over the second
 * serial port (docs/design.md, "File notes", agents/boot-qemu.c).
 */
#include <sys/stat.h>

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/boot.h"
#include "agents/initramfs.h"
#include "agents/monitor-perfprofile.h"
#include "util/error.h"
#include "util/file.h"
#include "util/path.h"
#include "util/strbuf.h"

/* The runner: only fixed text; the job reaches it as a file. */
static const char boot_qemu_initramfs_head[] =
	"#!/bin/busybox sh\n"
	"# bisect-agent's runner in the VM (agents/boot-qemu.c)\n"
	"/bin/busybox mount -t proc proc /proc\n"
	"/bin/busybox mount -t sysfs sysfs /sys\n"
	"/bin/busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null\n"
	"/bin/busybox --install -s /bin\n"
	"export PATH=/bin:/sbin:/usr/bin HOME=/ TERM=dumb\n"
	"export " MONITOR_PERFPROFILE_GUEST_ENV "=qemu\n"
	"stty -F /dev/ttyS1 raw -echo 2>/dev/null\n"
	"exec 3>/dev/ttyS1\n"
	"say() { echo \"" BOOT_MARKER " $*\" >&3; }\n"
	"say up \"$(uname -r)\"\n"
	"say uname-v \"$(uname -v)\"\n"
	"cd /work\n";
static const char boot_qemu_initramfs_tail[] =
	"/bisectd/job.yaml /bisectd/result 2>/bisectd/agent.log\n"
	"rc=$?\n"
	"for f in result output.log perf-profile.data; do\n"
	"\tif [ -f \"/bisectd/result/$f\" ]; then\n"
	"\t\tsay file \"$f\"; base64 \"/bisectd/result/$f\" >&3; "
	"say end \"$f\"\n"
	"\tfi\n"
	"done\n"
	"say file agent.log; base64 /bisectd/agent.log >&3; say end agent.log\n"
	"say done \"$rc\"\n"
	"sync\n"
	"reboot -f\n";


/* A static program has no PT_INTERP: it runs with nothing else present. */
static int
boot_qemu_initramfs_is_static(const char *path, char **cause)
{
	Elf64_Ehdr	 eh;
	Elf64_Phdr	 ph;
	int		 fd, i, r = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return error_errno(cause, "couldn't open '%s'", path);
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		error_set(cause, "'%s' is not a 64-bit ELF program", path);
		goto out;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff +
		    (Elf64_Off)i * eh.e_phentsize)) != (ssize_t)sizeof ph) {
			error_set(cause, "'%s': truncated program headers",
			    path);
			goto out;
		}
		if (ph.p_type == PT_INTERP) {
			error_set(cause, "'%s' is dynamically linked: the "
			    "initramfs needs a static busybox (Debian's "
			    "busybox-static)", path);
			goto out;
		}
	}
	r = 0;
out:
	close(fd);
	return r;
}

int
boot_qemu_initramfs(const char *path, const char *workdir,
    const char *image, const char *jobfile, int perf, char **cause)
{
	struct initramfs	*ir = NULL;
	struct strbuf		 init = STRBUF_INIT;
	const char		*busybox = getenv("BISECT_AGENT_BUSYBOX");
	const char		*skip[] = { image, ".config", ".bisectd-build",
				    ".complete", "install", NULL };
	char			*loader = NULL, *mods = NULL;
	int			 r = -1;

	if (busybox == NULL)
		busybox = "/bin/busybox";
	if (boot_qemu_initramfs_is_static(busybox, cause) != 0)
		goto out;
	if (initramfs_create(path, &ir, cause) != 0)
		goto out;
	if (initramfs_dir(ir, "dev", 0755, cause) != 0 ||
	    initramfs_node(ir, "dev/console", S_IFCHR | 0600, 5, 1,
	    cause) != 0 ||
	    initramfs_node(ir, "dev/null", S_IFCHR | 0666, 1, 3, cause) != 0 ||
	    initramfs_node(ir, "dev/ttyS0", S_IFCHR | 0600, 4, 64,
	    cause) != 0 ||
	    initramfs_node(ir, "dev/ttyS1", S_IFCHR | 0600, 4, 65,
	    cause) != 0 ||
	    initramfs_dir(ir, "proc", 0555, cause) != 0 ||
	    initramfs_dir(ir, "sys", 0555, cause) != 0 ||
	    initramfs_dir(ir, "tmp", 01777, cause) != 0 ||
	    initramfs_dir(ir, "sbin", 0755, cause) != 0 ||
	    initramfs_file(ir, "bin/busybox", 0755, busybox, cause) != 0 ||
	    initramfs_file(ir, "bisectd/job.yaml", 0644, jobfile,
	    cause) != 0 ||
	    initramfs_dir(ir, "bisectd/result", 0755, cause) != 0 ||
	    initramfs_program(ir, "bisectd", "bisect-agent", &loader,
	    cause) != 0 ||
	    initramfs_tree(ir, "work", workdir, skip, cause) != 0)
		goto out;
	if (perf && monitor_perfprofile_guest_add(ir, cause) != 0)
		goto out;
	mods = path_join(workdir, "install/lib/modules");
	if (file_exists(mods) &&
	    initramfs_tree(ir, "lib/modules", mods, NULL, cause) != 0)
		goto out;
	strbuf_addstr(&init, boot_qemu_initramfs_head);
	if (loader != NULL)
		strbuf_addf(&init, "/bisectd/lib/%s --library-path "
		    "/bisectd/lib ", loader);
	strbuf_addstr(&init, "/bisectd/bisect-agent run --workdir /work ");
	strbuf_addstr(&init, boot_qemu_initramfs_tail);
	if (initramfs_data(ir, "init", 0755, init.buf, init.len, cause) != 0 ||
	    initramfs_finish(ir, cause) != 0)
		goto out;
	r = 0;
out:
	initramfs_free(ir);
	strbuf_release(&init);
	free(loader);
	free(mods);
	return r;
}

