#!/bin/sh
# bisectctl check builds every adapter's argv as the run would, but
# creates nothing: the directories a program file's mkdir: names (redis,
# kernbench) or fio's work directory are not made in the current
# directory.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'check of each adapter testcase leaves the directory as it was' '
	mkdir here && cd here &&
	for t in redis kernbench kbuild fio-basic dbench tbench pgbench fsmark \
	    sysbench-fileio iperf hackbench vm-scalability; do
		case $t in
		kernbench|kbuild) printf "testcase: %s\nsrc: /nonexistent\n" "$t" ;;
		*) printf "testcase: %s\n" "$t" ;;
		esac >"../$t.yaml" &&
		BISECTD_CONFIG=/nonexistent bisectctl check "../$t.yaml" >/dev/null 2>&1
		test -z "$(ls -A)" || { echo "# $t left: $(ls -A)"; return 1; }
	done
'

test_done
