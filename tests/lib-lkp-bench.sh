# Sourced by the tests of LKP's benchmarks (t0540-t0559), after
# test-lib.sh and lib-bisect.sh: a one-commit repository and a config
# with the local agent, a job run end to end with `bisectctl queue
# --commit HEAD --wait`, and readers of what it stored (values,
# instances, the run's environment) and of the real tool's output.log,
# which each test reads again by its own means (awk) to check the values.

# lkp_setup: ./repo (one commit) and ./bisectd.yaml.
lkp_setup() {
	git init -q repo && echo x >repo/x && git -C repo add x &&
	test_tick && git -C repo commit -q -m one &&
	cat >bisectd.yaml <<-\EOF
	repos:
	  - name: r
	    path: repo
	EOF
}

# lkp_needs PROGRAM...: each is installed (tools/install-deps check).
lkp_needs() {
	for p in "$@"; do
		command -v "$p" >/dev/null ||
			{ echo "missing $p: sh tools/install-deps check"; return 1; }
	done
}

# lkp_loop_why [PROGRAM...]: why an agent cannot make loop disks here
# (not root, no loop device, no mkfs.ext4) or a PROGRAM is missing;
# nothing when it can.
lkp_loop_why() {
	if [ "$(id -u)" != 0 ]; then
		echo "not root: loop devices and mount need it"
	elif ! [ -c /dev/loop-control ]; then
		echo "no /dev/loop-control (the loop module)"
	elif ! losetup -f >/dev/null 2>&1; then
		echo "losetup -f finds no free loop device"
	elif ! command -v mkfs.ext4 >/dev/null; then
		echo "no mkfs.ext4 (e2fsprogs)"
	else
		lkp_needs "$@"
	fi
}

# lkp_loop_agent DISK...: after lkp_setup, the local agent with those
# loop disks (each a YAML line: "hdd: [loop:1G]") in ./bisectd.yaml, and
# $TRASH/cleanup, run at exit whatever became of the test (a test that
# attaches more adds to it), unmounting and detaching what the agent
# made under $BISECT_AGENT_DISK_DIR.
lkp_loop_agent() {
	cat >"$TRASH/cleanup" <<-EOF &&
	for m in $BISECT_AGENT_DISK_DIR/fs-*; do umount "\$m"; done
	for d in \$(losetup -a | grep -F "$BISECT_AGENT_DISK_DIR/" | cut -d: -f1); do losetup -d "\$d"; done
	EOF
	test_at_exit 'sh "$TRASH/cleanup" 2>/dev/null' &&
	printf 'agents:\n  - name: local\n    transport: local\n    disks:\n' \
	    >>bisectd.yaml &&
	for d in "$@"; do
		printf '      %s\n' "$d" >>bisectd.yaml || return 1
	done
}

# lkp_run JOB.yaml: queue it at HEAD and wait; its run must be done.
lkp_run() {
	bisectctl queue "$1" --commit HEAD --wait >"$1.out" 2>"$1.err" ||
		{ cat "$1.out" "$1.err"; return 1; }
	lkp_run_dir=$(lkp_last_run) &&
	if grep "^error" "$lkp_run_dir/result"; then
		tail -n 20 "$lkp_run_dir/output.log"; return 1
	fi
}

# The result directory of the newest run.
lkp_last_run() {
	n=$(db_query "SELECT max(id) FROM runs") &&
	test -f "state/runs/$n/result/result" ||
		{ echo "no result for run '$n' under state/runs"; return 1; }
	echo "state/runs/$n/result"
}

# lkp_value TESTCASE METRIC: the stored value of the newest sample.
lkp_value() {
	db_query "SELECT s.value FROM samples s JOIN runs r ON s.run = r.id
		JOIN jobs j ON r.job = j.id WHERE j.testcase = '$1' AND
		s.metric = '$1.$2' ORDER BY s.rowid DESC LIMIT 1"
}

# lkp_instances TESTCASE METRIC: its instances as JSON ("" if none).
lkp_instances() {
	db_query "SELECT s.instances FROM samples s JOIN runs r ON s.run = r.id
		JOIN jobs j ON r.job = j.id WHERE j.testcase = '$1' AND
		s.metric = '$1.$2' ORDER BY s.rowid DESC LIMIT 1"
}

# lkp_metrics TESTCASE: the names stored for its newest run, sorted.
lkp_metrics() {
	db_query "SELECT s.metric FROM samples s WHERE s.run = (SELECT max(r.id)
		FROM runs r JOIN jobs j ON r.job = j.id WHERE j.testcase = '$1')
		ORDER BY s.metric"
}

# lkp_same A B [TOLERANCE]: two numbers agree (relative, default 1e-9).
lkp_same() {
	awk -v a="$1" -v b="$2" -v t="${3:-1e-9}" 'BEGIN {
		d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a);
		if (a == "" || b == "" || d > t * (m > 1 ? m : 1)) {
			printf "# %s != %s\n", a, b; exit 1 } }'
}

# lkp_names TESTCASE NAME...: every NAME is stored as TESTCASE.NAME.
lkp_names() {
	t=$1; shift
	lkp_metrics "$t" >names
	for n in "$@"; do
		grep -qxF "$t.$n" names || { echo "no $t.$n in:"; cat names; return 1; }
	done
}

# lkp_count_instances TESTCASE METRIC: how many instances it has.
lkp_count_instances() {
	lkp_instances "$1" "$2" | "$PYTHON3" -c 'import json, sys
t = sys.stdin.read().strip()
print(len(json.loads(t)) if t else 0)'
}

# lkp_sum_instances TESTCASE METRIC
lkp_sum_instances() {
	lkp_instances "$1" "$2" | "$PYTHON3" -c 'import json, sys
print(repr(sum(json.loads(sys.stdin.read()))))'
}

# lkp_run_env RUN KEY: a run's environment value.
lkp_run_env() {
	db_query "SELECT value FROM run_env WHERE run = $1 AND key = '$2'"
}

# lkp_disks_gone MOUNTS DIR: nothing under DIR is mounted (in the mount
# table MOUNTS), attached to a loop device or left in DIR.
lkp_disks_gone() {
	if grep -F " $2/" "$1"; then
		echo "still mounted"; return 1
	fi
	if losetup -a | grep -F "$2/"; then
		echo "still attached"; return 1
	fi
	if [ -n "$(ls -A "$2" 2>/dev/null)" ]; then
		ls -la "$2"; return 1
	fi
}

# lkp_fio_disk_run RUN DIR: fio-basic's run RUN wrote on 1HDD, a loop
# device mounted under DIR/fs-*, with the run's file system, and its
# write_bw_MBps is the sum of fio.json's two jobs' bandwidth there.
lkp_fio_disk_run() {
	_dir=state/runs/$1/result &&
	! grep "^error" $_dir/result &&
	_fs=$(lkp_run_env $1 fs) &&
	test "$(lkp_run_env $1 disk)" = 1HDD &&
	case "$(lkp_run_env $1 partitions)" in /dev/loop*) ;; *) false ;; esac &&
	_mnt=$(lkp_run_env $1 mount_points) &&
	case "$_mnt" in "$2"/fs-*) ;; *) false ;; esac &&
	lkp_run_env $1 mounted | grep -q "^/dev/loop[0-9]* $_mnt $_fs " &&
	"$PYTHON3" -c "import json, sys
d = json.load(open(sys.argv[1]))
jobs = d['jobs']
assert len(jobs) == 2, len(jobs)
assert all(j['job options']['directory'] == sys.argv[2] + '/fio' for j in jobs), jobs[0]['job options']
print(repr(sum(j['write']['bw'] for j in jobs) / 1024))
" $_dir/fio.json "$_mnt" >want &&
	_v=$(db_query "SELECT value FROM samples WHERE run = $1 AND
		metric = 'fio-basic.write_bw_MBps'") &&
	lkp_same "$_v" "$(cat want)" 1e-9
}

# lkp_fio_disk_job FSS: fio-basic as LKP writes it, 1HDD with every file
# system of FSS (a YAML list's inside), into fio.yaml.
lkp_fio_disk_job() {
	cat >fio.yaml <<-EOF
	suite: fio-basic
	testcase: fio-basic
	category: benchmark
	runtime: 1s
	runs: 1
	monitors: []
	disk: 1HDD
	fs: [$1]
	nr_task: 2
	fio-setup-basic:
	  rw: write
	  bs: 4k
	  ioengine: sync
	  test_size: 64M
	  time_based: tb
	fio:
	EOF
}
