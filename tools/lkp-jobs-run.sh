#!/bin/sh
# The run figure of docs/jobs.md "lkp-tests' job files, run": every job
# file under an lkp-tests checkout's jobs/ whose testcase is a program
# bisectd has, queued as it is written through `bisectctl queue --commit
# HEAD --wait` on the local agent, with a short-runtime override: in a
# copy of jobs/, every "runtime:" and "testtime:" value is 1s and every
# "iterations:" and "nr_loops:" 1 (a list of durations becomes 1s, 2s,
# ...), sysbench-fileio's "period:" (its runtime) 1s, and every
# "test_size:" and sysbench-fileio's "size:" 256M, to fit the
# agent's loop disks: the config's local agent declares disks: {hdd:
# [loop:4G], ssd: [loop:4G]} (LKP_RUN_DISK_SIZE, sparse files under the
# work directory, BISECT_AGENT_DISK_DIR), so that a job's "disk: 1HDD"
# and "fs:" are made and mounted; and it is queued as a file that
# includes it and adds "runs: 1", "runtime: 1s" when its testcase takes
# a runtime (the file's own, if any, is overridden), "disturbed: keep"
# (on a shared machine a run that other load disturbed is kept, marked,
# rather than repeated), "timeout: 10m" (the default, 3 * runtime + 60 s,
# is 63 s with the 1 s runtime: one hackbench of 1000 loops, which
# run_for_time does not cut short, took longer at a load of 190) and
# "loops: 1000" for hackbench (whose LKP files
# set no runtime: 30000 * nr_cpu / nr_threads messages). A file runs end
# to end when queue accepts it and every run is done
# without an error and with stored metrics of its testcase. Prints a
# markdown table per file and the counts; the first refusal or error of
# each file names why.
#
# With LKP_RUN_SAMPLE=K, the stress-ng files (some 600 jobs) are sampled:
# of each list in them (test:, method:...), K items evenly spaced (the
# first, then every N/K-th) are kept in the copy, and the file's row
# says how many of its jobs ran.
#
#   [LKP_RUN_SAMPLE=K] [LKP_RUN_DISK_SIZE=4G] tools/lkp-jobs-run.sh BISECTCTL LKP_SRC [jobs/FILE.yaml...]
set -e
unset BISECTD_CONFIG
B=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/lkp-jobs-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 143' INT TERM HUP
cd "$work"

cp -r "$SRC/jobs" jobs
find jobs -name '*.yaml' -exec sed -i -E \
    -e 's/^([ ]*)(runtime|testtime):[ ]*[0-9]+[smhd]?[ ]*(#.*)?$/\1\2: 1s/' \
    -e 's/^([ ]*)(iterations|nr_loops):[ ]*[0-9]+[ ]*(#.*)?$/\1\2: 1/' \
    -e 's/^([ ]*)test_size:[ ]*[0-9]+[KMGTkmgt]?[ ]*(#.*)?$/\1test_size: 256M/' {} +
find jobs -name 'sysbench-fileio*.yaml' -exec sed -i -E \
    -e 's/^([ ]*)period:[ ]*[0-9]+[smhd]?[ ]*(#.*)?$/\1period: 1s/' \
    -e 's/^([ ]*)size:[ ]*[0-9]+[KMGTkmgt]?[ ]*(#.*)?$/\1size: 256M/' {} +
# a list of durations (testtime: [60s]): 1s, 2s... (as many, all distinct)
for y in $(find jobs -name '*.yaml'); do
	awk '/^[ ]*(runtime|testtime):[ ]*(#.*)?$/ { list = 1; n = 0; print; next }
	    list && /^[ ]*- [0-9]+[smhd]?[ ]*(#.*)?$/ {
		    sub(/- .*/, "- " ++n "s"); print; next }
	    { list = 0; print }' "$y" >"$y.short" && mv "$y.short" "$y"
done
# the sample: K items of every list of the stress-ng files, evenly spaced
cp -r jobs jobs-full
if [ -n "${LKP_RUN_SAMPLE:-}" ]; then
	for y in jobs/stress-ng/*.yaml; do
		[ -f "$y" ] || continue
		awk -v k="$LKP_RUN_SAMPLE" '
		    function item(l) { return l ~ /^[ ]*- / }
		    function skip(l) { return l ~ /^[ ]*(#.*)?$/ }
		    NR == FNR { if (item($0)) { if (!in_list) { in_list = 1; n++ }
				cnt[n]++ } else if (!skip($0)) in_list = 0
			next }
		    FNR == 1 { in_list = 0; n = 0 }
		    item($0) { if (!in_list) { in_list = 1; n++; i = 0 }
			c = cnt[n]; keep = c <= k || i == 0 ||
			    int(i * k / c) != int((i - 1) * k / c); i++
			if (keep) print; next }
		    !skip($0) { in_list = 0 }
		    { print }' "$y" "$y" >"$y.sample" && mv "$y.sample" "$y"
	done
fi
git init -q repo && echo x >repo/x && git -C repo add x &&
    GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
    git -C repo -c user.name=lkp -c user.email=lkp@localhost commit -q -m one
BISECT_AGENT_DISK_DIR=$work/disks
export BISECT_AGENT_DISK_DIR
cat >bisectd.yaml <<EOF
repos:
  - name: r
    path: $work/repo
job_include: [$work/jobs]
agents:
  - name: local
    transport: local
    disks:
      hdd: [loop:${LKP_RUN_DISK_SIZE:-4G}]
      ssd: [loop:${LKP_RUN_DISK_SIZE:-4G}]
EOF

if [ $# -eq 0 ]; then
	(cd "$SRC" && find jobs -name '*.yaml' | LC_ALL=C sort) >files
else
	printf '%s\n' "$@" >files
fi

# A testcase bisectd has: a job of it is one the agent runs by an adapter.
has_program() {
	printf 'testcase: %s\n' "$1" >probe.yaml
	BISECTD_CONFIG=/nonexistent "$B" check --format-only --json probe.yaml \
	    2>/dev/null | grep -q '"kind": "adapter"'
}

db() {
	sqlite3 -cmd ".timeout 30000" state/bisectd.db "$1"
}

first_error() {
	grep '^error: ' "$1" | head -n 1 | sed -e 's/^error: //' -e 's/|/\\|/g'
}

printf '| file | jobs | result |\n|---|---|---|\n'
total=0 ran=0 refused=0 failed=0
while read -r f; do
	tc=$(sed -n 's/^testcase:[ ]*\([A-Za-z0-9_.-]*\).*/\1/p' "jobs/${f#jobs/}" |
	    head -n 1)
	[ -n "$tc" ] && has_program "$tc" || continue
	total=$((total + 1))
	q=run.yaml
	# before the include: LKP splices it as text, so these are hash_0's
	# and the file's own keys (made short above) win over them
	{ echo "runs: 1"; echo "disturbed: keep"; echo "timeout: 10m"
	  echo "runtime: 1s"
	  [ "$tc" != hackbench ] || echo "loops: 1000"; echo "<< : $f"; } >"$q"
	# runtime only for a testcase that takes it, as a key: a file that
	# gives it as its program's option has had its value made 1s above
	if BISECTD_CONFIG=/nonexistent "$B" check -I jobs "$q" 2>&1 >/dev/null |
	    grep -q -e "unknown parameter 'runtime'" \
	    -e "'runtime' is set twice"; then
		grep -v '^runtime: ' "$q" >"$q.new" && mv "$q.new" "$q"
	fi
	if ! BISECTD_CONFIG=/nonexistent "$B" check --format-only -I jobs "$q" \
	    >check.out 2>check.err; then
		refused=$((refused + 1))
		printf '| %s | | refused: %s |\n' "$f" "$(first_error check.err)"
		continue
	fi
	n=$(grep -c '^job ' check.out || true)
	of=
	if [ -n "${LKP_RUN_SAMPLE:-}" ] && [ "${f#jobs/stress-ng/}" != "$f" ]; then
		all=$(BISECTD_CONFIG=/nonexistent "$B" check --format-only \
		    -I jobs-full "jobs-full/${f#jobs/}" 2>/dev/null |
		    grep -c '^job ' || true)
		of=" (a sample: $n of its $all jobs)"
		n="$n of $all"
	fi
	prev=$(db "SELECT coalesce(max(id), 0) FROM runs" 2>/dev/null || echo 0)
	if "$B" queue "$q" --commit HEAD --wait >q.out 2>q.err; then
		rc=0
	else
		rc=$?
	fi
	if [ "$rc" = 2 ]; then
		refused=$((refused + 1))
		printf '| %s | %s | refused: %s |\n' "$f" "$n" "$(first_error q.err)"
		continue
	fi
	runs=$(db "SELECT count(*) FROM runs WHERE id > $prev")
	good=$(db "SELECT count(*) FROM runs r WHERE r.id > $prev AND
	    r.status = 'done' AND r.error IS NULL AND EXISTS (SELECT 1 FROM
	    samples s WHERE s.run = r.id AND s.metric LIKE '$tc.%')")
	if [ "$rc" = 0 ] && [ "$runs" -gt 0 ] && [ "$good" = "$runs" ]; then
		ran=$((ran + 1))
		printf '| %s | %s | ran: %s runs, each with %s.* metrics%s |\n' \
		    "$f" "$n" "$runs" "$tc" "$of"
	else
		failed=$((failed + 1))
		why=$(db "SELECT coalesce(error, status) FROM runs WHERE id > $prev
		    AND NOT (status = 'done' AND error IS NULL) ORDER BY id LIMIT 1" |
		    head -n 1 | cut -c 1-200 | sed 's/|/\\|/g')
		[ -n "$why" ] || why=$(first_error q.err)
		printf '| %s | %s | failed: %s of %s runs good (exit %s): %s |\n' \
		    "$f" "$n" "$good" "$runs" "$rc" "$why"
	fi
done <files
printf '\n| LKP job files whose testcase bisectd has | %d |\n|---|---|\n' "$total"
printf '| run end to end (`queue --wait`, every run done with metrics) | %d |\n' "$ran"
printf '| refused by check or queue, with the reason | %d |\n' "$refused"
printf '| queued, but a run failed | %d |\n' "$failed"
