#!/bin/sh
# A stand-in for qemu-system-x86_64 in the boot tests that need no kernel
# build (bisect-agent finds it through BISECT_AGENT_QEMU). It records its
# arguments and the initramfs's file list next to $FAKE_QEMU_LOG, unpacks
# the initramfs, and plays the guest the way the "kernel" file asks:
#   ok            speak the runner's protocol on stdout (the guest's ttyS1),
#                 running the initramfs's own bisect-agent with its own
#                 loader and libraries on the job, in the unpacked /work,
#                 with the initramfs's /usr/bin (its perf) first in PATH
#                 and the runner's BISECT_AGENT_GUEST
#   panic         print a panic on the console file and exit 0, as qemu
#                 -no-reboot does when the guest reboots (panic=-1)
#   hang          print on the console, then never answer
#   qemu-error    fail as qemu does when it cannot start (exit status 1)
#   release=R     as ok, but the guest says it runs kernel R
set -u
log=${FAKE_QEMU_LOG:?}
printf '%s\n' "$@" >"$log.argv"
kernel= initrd= console=
while [ $# -gt 0 ]; do
	case $1 in
	-kernel) kernel=$2; shift ;;
	-initrd) initrd=$2; shift ;;
	-serial) case $2 in file:*) console=${2#file:} ;; esac; shift ;;
	esac
	shift
done
mode=$(cat "$kernel")
cpio -t --quiet <"$initrd" >"$log.list"
echo "Linux version 6.1.0-fake (fake qemu)" >"$console"
case $mode in
panic)
	echo "Kernel panic - not syncing: fake panic at boot" >>"$console"
	echo "reboot: Restarting system" >>"$console"
	exit 0 ;;
hang)
	echo "hanging in early boot" >>"$console"
	echo $$ >"$log.pid"
	exec sleep 600 ;;
qemu-error)
	echo "qemu-system-x86_64: fake error: could not load kernel" >&2
	exit 1 ;;
release=*)
	release=${mode#release=} ;;
*)
	release=6.1.0-fake ;;
esac
root=$(mktemp -d "${TMPDIR:-/tmp}/fake-qemu.XXXXXX")
(cd "$root" && cpio -idm --quiet --no-absolute-filenames \
	--nonmatching 'dev/*' <"$initrd")
say() { echo "bisectd-guest $*"; }
say up "$release"
say uname-v "#1 fake"
loader=$(ls "$root"/bisectd/lib/ld-linux* 2>/dev/null | head -n 1)
(PATH=$root/usr/bin:$PATH BISECT_AGENT_GUEST=qemu; export PATH BISECT_AGENT_GUEST
cd "$root/work" && $loader ${loader:+--library-path "$root/bisectd/lib"} \
	"$root/bisectd/bisect-agent" run --workdir "$root/work" \
	"$root/bisectd/job.yaml" "$root/bisectd/result" \
	2>"$root/bisectd/agent.log")
rc=$?
for f in result output.log perf-profile.data; do
	if [ -f "$root/bisectd/result/$f" ]; then
		say file "$f"; base64 "$root/bisectd/result/$f"; say end "$f"
	fi
done
say file agent.log; base64 "$root/bisectd/agent.log"; say end agent.log
say done "$rc"
echo "reboot: Restarting system" >>"$console"
rm -rf "$root"
exit 0
