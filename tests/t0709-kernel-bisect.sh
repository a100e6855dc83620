#!/bin/sh
# The kernel end to end (make check-kernel; skipped otherwise): a git
# repository made from Debian's linux-source-6.1, a tinyconfig that boots
# with a serial console, and a series of ten commits with fixed dates of
# which one slows getppid(2) with a busy loop and four panic at boot. The
# bisection builds each commit out of tree in one reused build directory
# with ccache, boots every build under qemu (TCG) with the agent's
# initramfs, measures getppid with tests/kernel/syscall-bench.c, skips the
# commits that panic, and names the culprit. The figures (times, builds)
# are printed as TAP comments and in $BISECTD_KERNEL_FIGURES if set, with
# how many builds collapse onto an identical image (reproducible builds:
# bisectd/build-kernel.c); with
# BISECTD_KERNEL_CLEAN_BUILDS=N the first N commits built are built again
# from scratch (tests/kernel/clean-builds.sh), for the comparison. The
# guests boot with noapic, as t0703's: on a loaded host TCG's timer can
# miss the IO-APIC check and panic a commit that is not one of the four.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

TARBALL=${BISECTD_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
FIGURES=${BISECTD_KERNEL_FIGURES:-$TRASH/figures}

if [ "${BISECTD_KERNEL_TEST:-}" != 1 ]; then
	test_skip 'kernel bisection' 'run by make check-kernel'
	test_done
	exit 0
fi
missing=
for t in qemu-system-x86_64 gcc make flex bison bc cpio base64; do
	command -v $t >/dev/null || missing="$missing $t"
done
[ -f "$TARBALL" ] || missing="$missing $TARBALL"
[ -x /bin/busybox ] || missing="$missing busybox"
if [ -n "$missing" ]; then
	test_skip 'kernel bisection' "missing:$missing (tools/install-deps kernel)"
	test_done
	exit 0
fi

now() {
	date +%s
}

figure() {
	echo "$*" >>"$FIGURES"
}

# kcommit SUBJECT: commit what changed in ./linux with the next date.
kcommit() {
	test_tick &&
	git -C linux -c core.looseCompression=1 commit -q -a -m "$1" &&
	git -C linux rev-parse HEAD >>series
}

# Edits, each checked: one that matches nothing fails the test.
append() {
	printf '%s\n' "$2" >>"linux/$1"
}

# replace_line FILE OLD NEW: OLD must be exactly one whole line of FILE.
replace_line() {
	OLD=$2 NEW=$3 awk '$0 == ENVIRON["OLD"] { print ENVIRON["NEW"]; n++; next }
		{ print } END { exit n != 1 }' "linux/$1" >"linux/$1.new" &&
	mv "linux/$1.new" "linux/$1"
}

cd "$TRASH" || exit 1
T0=$(now)
: >"$FIGURES"

test_expect_success 'a kernel repository made from linux-source-6.1' '
	mkdir linux &&
	tar -xJf "$TARBALL" -C linux --strip-components=1 &&
	git -C linux init -q &&
	git -C linux -c core.looseCompression=1 add -f . &&
	test_tick &&
	git -C linux -c core.looseCompression=1 commit -q \
		-m "Linux $(make -s -C linux kernelversion) (Debian linux-source-6.1)" &&
	git -C linux tag base
'
figure "repository: $(($(now) - T0)) s"

# tinyconfig, the console and initramfs the boot needs, and futexes for
# glibc (the agent in the guest is dynamically linked).
test_expect_success 'a tinyconfig that boots to the agent' '
	mkdir configs &&
	make -s -C linux O="$TRASH/cfg" tinyconfig >/dev/null &&
	linux/scripts/config --file cfg/.config -e 64BIT -e PRINTK -e TTY \
		-e SERIAL_8250 -e SERIAL_8250_CONSOLE -e BLK_DEV_INITRD \
		-e BINFMT_ELF -e BINFMT_SCRIPT -e PROC_FS -e SYSFS -e DEVTMPFS \
		-e DEVTMPFS_MOUNT -e FUTEX &&
	make -s -C linux O="$TRASH/cfg" olddefconfig >/dev/null &&
	for s in 64BIT SERIAL_8250_CONSOLE BLK_DEV_INITRD DEVTMPFS FUTEX; do
		grep -qx "CONFIG_$s=y" cfg/.config || return 1
	done &&
	cp cfg/.config configs/tiny-serial.config &&
	rm -rf cfg
'

test_expect_success 'ten commits: one slows getppid, four panic at boot' '
	: >series &&
	append Documentation/process/howto.rst "" &&
	append Documentation/process/howto.rst "A line added by the bisectd kernel test." &&
	kcommit "Documentation: howto: one more line" &&
	append drivers/net/dummy.c "/* dummy is not built by this config */" &&
	kcommit "net: dummy: a comment at the end" &&
	replace_line init/main.c \
		"	pr_notice(\"Kernel command line: %s\\n\", saved_command_line);" \
		"	pr_notice(\"Kernel command line (bisectd): %s\\n\", saved_command_line);" &&
	kcommit "init: reword the command line notice" &&
	replace_line kernel/sys.c "	pid = task_tgid_vnr(rcu_dereference(current->real_parent));" \
		"	for (pid = 0; pid < 100; pid++)
		barrier();
	pid = task_tgid_vnr(rcu_dereference(current->real_parent));" &&
	kcommit "kernel/sys: getppid: wait a little first" &&
	replace_line init/main.c "	if (ramdisk_execute_command) {" \
		"	panic(\"bisectd test: this commit panics at boot\");
	if (ramdisk_execute_command) {" &&
	kcommit "init: panic before running init" &&
	append lib/string.c "/* a comment at the end of lib/string.c */" &&
	kcommit "lib: string: a comment" &&
	append Documentation/process/howto.rst "And another." &&
	kcommit "Documentation: howto: another line" &&
	append kernel/sys.c "/* a comment at the end of kernel/sys.c */" &&
	kcommit "kernel/sys: a comment" &&
	replace_line init/main.c \
		"	panic(\"bisectd test: this commit panics at boot\");" "" &&
	kcommit "init: do not panic" &&
	append Documentation/process/howto.rst "And a last one." &&
	kcommit "Documentation: howto: a last line" &&
	test $(wc -l <series) = 10 &&
	find linux -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
'

culprit() {
	git -C linux log --format=%H --grep="getppid: wait a little" master
}
panicking() {
	sed -n 5,8p series
}

test_expect_success 'config, agent and job' '
	cat >bisectd.yaml <<-EOF &&
	repos:
	  - name: linux
	    path: linux
	    build:
	      command: make -s -j\$NPROC O=\$BUILD_DIR olddefconfig bzImage && gcc -static -O2 -o \$BUILD_DIR/syscall-bench $BISECTD_SRC/tests/kernel/syscall-bench.c
	      kconfig: configs/tiny-serial.config
	      artifacts: [arch/x86/boot/bzImage, syscall-bench]
	agents:
	  - name: tcg
	    transport: local
	    boot: qemu
	EOF
	cat >job.yaml <<-EOF
	testcase: syscall
	run: ./syscall-bench
	runs: 3
	boot_timeout: 180
	kernel_cmdline: noapic
	metric: syscall.relative_cost
	direction: lower
	EOF
'

T1=$(now)
test_expect_success 'the bisection names the culprit and skips the panics' '
	bisectctl bisect job.yaml --good base --bad master --wait --json \
		>out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit)" &&
	json_get out.json "\"\\n\".join(d[\"skipped\"])" >skipped &&
	test -s skipped &&
	while read -r oid; do
		panicking | grep -qx "$oid" || { echo "skipped $oid"; return 1; }
	done <skipped &&
	json_get out.json "d[\"change_pct\"]" >change &&
	awk "{ exit !(\$1 > 10 || \$1 < -10) }" change
'
T2=$(now)
figure "bisection: $((T2 - T1)) s ($(json_get out.json "d[\"builds\"]") builds, $(json_get out.json "d[\"runs\"]") runs), change $(cat change 2>/dev/null)%"

test_expect_success 'a panicking commit: its runs say why, the console shows it' '
	oid=$(head -n 1 skipped) &&
	db_query "SELECT error FROM runs WHERE commit_oid = '\''$oid'\''" \
		>errors &&
	grep -q "the kernel did not boot" errors &&
	grep -q "bisectd test: this commit panics at boot" errors &&
	test "$(sample_count "$oid" syscall.relative_cost)" = 0
'

test_expect_success 'the runs ran on the kernels that were built' '
	db_query "SELECT DISTINCT e.value FROM run_env e JOIN runs r
		ON e.run = r.id WHERE e.key = '\''kernel'\''" >kernels &&
	test "$(wc -l <kernels)" = 1 &&
	grep -qx "$(make -s -C state/slots/linux/0/tree kernelversion)" kernels &&
	db_query "SELECT count(*) FROM run_env WHERE key = '\''boot'\''
		AND value = '\''qemu'\''" >nboot &&
	test "$(cat nboot)" -gt 0
'

# Builds in the order they ran: the first is clean (empty build directory
# and ccache), the others reuse both.
db_query "SELECT commit_oid, printf('%.1f', seconds) FROM builds
	WHERE status = 'ok' ORDER BY finished, id" >builds 2>/dev/null
first=$(head -n 1 builds | cut -d'|' -f2)
rest=$(tail -n +2 builds | awk -F'|' '{ s += $2 } END { printf "%.1f", s }')
nrest=$(($(wc -l <builds) - 1))
figure "first build (clean): $first s"
figure "other $nrest builds: $rest s in all"
figure "$((nrest + 1)) builds as clean as the first: about $(awk -v f="$first" -v n="$nrest" 'BEGIN { printf "%.0f", f * (n + 1) }') s"

# Reproducible builds (issue 11): how many of the range's builds collapse
# onto an image already built, and which commits built their parent's image.
db_query "SELECT commit_oid, image_hash FROM builds WHERE status = 'ok'
	AND image_hash IS NOT NULL ORDER BY finished, id" >images 2>/dev/null
nimages=$(wc -l <images)
ndistinct=$(cut -d'|' -f2 images | sort -u | wc -l)
nparent=0 nsame=0
while IFS='|' read -r oid hash; do
	parent=$(git -C linux rev-parse -q --verify "$oid^1" 2>/dev/null) || continue
	phash=$(awk -F'|' -v p="$parent" '$1 == p { print $2; exit }' images)
	[ -n "$phash" ] || continue
	nparent=$((nparent + 1))
	[ "$phash" != "$hash" ] || nsame=$((nsame + 1))
done <images
figure "images: $nimages builds, $ndistinct distinct images: $((nimages - ndistinct)) collapse onto an image already built; $nsame of $nparent commits whose parent was built have their parent's image"
while IFS='|' read -r oid hash; do
	figure "image: $(echo "$hash" | cut -c1-12) $(git -C linux log -1 --format='%h %s' "$oid")"
done <images

if command -v ccache >/dev/null && [ -d state/ccache ]; then
	figure "ccache: $(CCACHE_DIR=state/ccache ccache -s | tr -s ' ' |
		grep -Ei '^ *(hits|misses|cache hit|cache miss)' | tr '\n' ' ')"
fi

test_expect_success 'later builds are incremental' '
	test "$nrest" -ge 2 &&
	awk -F"|" "NR == 1 { first = \$2; next } \$2 > first / 2 { bad = 1 }
		END { exit bad }" builds
'

T3=$(now)
test_expect_success 'a documentation commit builds the same image as its parent' '
	doc=$(sed -n 1p series) &&
	bisectctl compare base "$doc" job.yaml --wait >compare.out 2>&1 &&
	grep -q "identical to the build of the parent $(git -C linux rev-parse base)" \
		state/logs/build-*-"$doc".log
'
figure "compare base..doc: $(($(now) - T3)) s"
figure "total: $(($(now) - T0)) s"
sed 's/^/progress: /' progress >>"$FIGURES" 2>/dev/null

if [ -n "${BISECTD_KERNEL_CLEAN_BUILDS:-}" ]; then
	T4=$(now)
	head -n "$BISECTD_KERNEL_CLEAN_BUILDS" builds | cut -d'|' -f1 |
		xargs sh "$BISECTD_SRC/tests/kernel/clean-builds.sh" linux \
		configs/tiny-serial.config >clean 2>&1
	sed 's/^/clean build: /' clean >>"$FIGURES"
	figure "clean builds: $(($(now) - T4)) s"
fi

sed 's/^/# /' "$FIGURES"
test_done
