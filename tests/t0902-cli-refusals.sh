#!/bin/sh
# Bad requests and bad configs are refused before anything is written:
# exit 2, the message at its FILE:LINE:COL where there is a file, no new
# row in the database, and no database (or directory) made for a config
# that is wrong. The daemon does not start on such a config either.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

requests() {
	db_query "SELECT count(*) FROM requests" 2>/dev/null || echo 0
}

test_expect_success 'setup' '
	setup_bench --commits 12 --culprit 8 --change -8 &&
	bisectctl status >/dev/null &&
	test "$(requests)" = 0
'

test_expect_success 'good and bad the same commit: exit 2, nothing queued' '
	test_expect_code 2 bisectctl bisect job.yaml --good master \
		--bad master --wait 2>err &&
	grep -q "^error: good .master. and bad .master. are the same commit" err &&
	test_expect_code 2 bisectctl bisect job.yaml --good master \
		--bad master 2>err &&
	test "$(requests)" = 0
'

test_expect_success 'swapped ends: exit 2, said as swapped, said once' '
	test_expect_code 2 bisectctl bisect job.yaml --good master \
		--bad master~6 2>err &&
	grep -q "^error: good .master. descends from bad .master~6.: the ends are swapped" err &&
	test "$(grep -c swapped err)" = 1 &&
	test "$(requests)" = 0
'

test_expect_success 'ends on unrelated histories: exit 2' '
	git -C repo checkout -q --orphan other &&
	git -C repo commit -q --allow-empty -m "unrelated root" &&
	git -C repo checkout -q master &&
	test_expect_code 2 bisectctl bisect job.yaml --good other \
		--bad master 2>err &&
	grep -q "^error: good .other. is not an ancestor of bad .master." err &&
	test "$(requests)" = 0
'

# refused CONFIG LINE:COL TEXT: the config is refused with that message,
# and neither a database nor a state directory appears.
refused() {
	rm -rf nostate &&
	test_expect_code 2 bisectctl -c "$1" status 2>err &&
	grep -q "^error: $1:$2: $3" err || { cat err; return 1; }
	test ! -e nostate && test ! -e nostate.db
}

test_expect_success 'a repository path that does not exist' '
	printf "workdir: nostate\nrepos:\n  - name: x\n    path: nothere\n" >c1.yaml &&
	refused c1.yaml 4:11 ".path. names .*nothere., which is not a directory (it does not exist)"
'

test_expect_success 'a database in a directory that does not exist is not made' '
	printf "db: /nonexistent-bisectd/dir/x.db\n" >c2.yaml &&
	refused c2.yaml 1:5 ".db. is in ./nonexistent-bisectd/dir., which is not a directory" &&
	test ! -e /nonexistent-bisectd
'

test_expect_success 'a web directory that is a file' '
	: >afile &&
	printf "workdir: nostate\nweb: afile\n" >c3.yaml &&
	refused c3.yaml 2:6 ".web. names .*afile., which exists and is not a directory"
'

test_expect_success 'an SMTP URL that is not one' '
	printf "workdir: nostate\nmail:\n  smtp: 127.0.0.1:25\n  from: a@b\n  to: c@d\n" >c4.yaml &&
	refused c4.yaml 3:9 ".smtp. must be an smtp:// or smtps:// URL"
'

test_expect_success 'an artifact outside the build directory' '
	printf "workdir: nostate\nrepos:\n  - name: x\n    path: repo\n    build:\n      artifacts: [bench.sh, /etc/passwd]\n" >c5.yaml &&
	refused c5.yaml 6:29 "artifact ./etc/passwd. must be a path inside the build directory"
'

test_expect_success 'a kconfig that is not there' '
	printf "workdir: nostate\nrepos:\n  - name: x\n    path: repo\n    build:\n      kconfig: configs/none\n" >c6.yaml &&
	refused c6.yaml 6:16 ".kconfig. names .*configs/none., which is not a readable file"
'

test_expect_success 'a continuous job file that is not there; the daemon does not start' '
	printf "workdir: nostate\nrepos:\n  - name: x\n    path: repo\n    track: [master]\ncontinuous:\n  jobs: [nojob.yaml]\n" >c7.yaml &&
	refused c7.yaml 7:10 ".jobs. names .*nojob.yaml., which is not a readable file" &&
	test_expect_code 1 bisectd -c c7.yaml --foreground 2>derr &&
	grep -q "nojob.yaml" derr &&
	! grep -q "ready" derr &&
	test ! -e nostate
'

test_expect_success 'control bytes from a job file reach the terminal escaped' '
	printf "testcase: microbench\nrun: sh bench.sh\nruns: \"\\\\e[2J\\\\e[31mmany\\\\r\"\n" >esc.yaml &&
	grep -q "e\[2J" esc.yaml &&
	test_expect_code 2 bisectctl bisect esc.yaml --good master~3 \
		--bad master 2>err &&
	! grep -q "$(printf "\033")" err &&
	! grep -q "$(printf "\r")" err &&
	grep -q "\\\\x1b\[2J\\\\x1b\[31mmany" err &&
	test "$(requests)" = 0
'

test_expect_success 'a metric nothing prints ends the bisection at its first runs' '
	sed "s/^metric: microbench.score$/metric: microbench.nosuch/" job.yaml >nosuch.yaml &&
	grep -q "^metric: microbench.nosuch$" nosuch.yaml &&
	test_expect_code 1 bisectctl bisect nosuch.yaml --good master~6 \
		--bad master --wait >ns.out 2>ns.err &&
	grep -q "no sample of .microbench.nosuch. in the [0-9]* done runs\{0,1\} of [0-9a-f]\{12\}; the runs printed: microbench.other, microbench.score" ns.err &&
	test "$(db_query "SELECT count(*) FROM runs WHERE job = (SELECT id FROM jobs WHERE metric = \"microbench.nosuch\")")" -le 6
'

test_expect_success 'compare and queue --wait do not exit 0 when every run failed' '
	printf "testcase: failing\nrun: exit 3\nruns: 1\n" >fail.yaml &&
	printf "scheduler:\n  max_attempts: 1\n" >>bisectd.yaml &&
	test_expect_code 1 bisectctl compare master~2 master fail.yaml \
		--wait >cmp.out 2>cmp.err &&
	grep -q "^error: compare [0-9]* has no samples at 2 of its commits" cmp.err &&
	grep -q "^no samples at [0-9a-f]\{12\}: 1 run failed, 0 done" cmp.out &&
	test_expect_code 1 bisectctl queue fail.yaml --commit master~1 \
		--wait >q.out 2>q.err &&
	grep -q "^error: request [0-9]* has no samples at 1 of its commits" q.err
'

test_done
