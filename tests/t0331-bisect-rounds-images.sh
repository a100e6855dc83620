#!/bin/sh
# Several slots and identical images (issues 11 and 13). Only the culprit
# changes what the fixture builds, so every commit's image is the good
# end's or the bad end's. With 3 slots the first step picks three points
# beside the ends before any build is done; their images, once built,
# are the ends', so their runs would be the ends' runs again. The step
# builds them first and asks the driver again with the images known: no
# run is ever taken at a commit other than the two ends. (--allow-drift:
# other tests on this machine may change its hugepages meanwhile.)
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_expect_success 'setup: 3 slots, two images' '
	setup_bench --commits 120 --culprit 77 --change -5 &&
	cat >>bisectd.yaml <<-EOF &&
	agents:
	  - name: local
	    transport: local
	    slots: 3
	EOF
	grep -q "slots: 3" bisectd.yaml
'

test_expect_success 'three slots: the culprit is found' '
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" --bad master --allow-drift --wait --json \
		>out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)"
'

test_expect_success 'the first step built its points alone, three at once' '
	grep -E "testing [0-9a-f]{7} \(build\), [0-9a-f]{7} \(build\), [0-9a-f]{7} \(build\)" \
		progress &&
	grep -m 1 "commits left" progress >first &&
	grep -q "(build)" first &&
	! grep -q "runs)" first
'

test_expect_success 'runs only at the ends: none at a point of an end'"'"'s image' '
	db_query "SELECT DISTINCT commit_oid FROM runs" | sort >ran &&
	{
		commit_oid "commit 1" &&
		git -C repo rev-parse master
	} | sort >want &&
	cat ran >&2 &&
	test_cmp_lines ran want &&
	n=$(db_query "SELECT count(DISTINCT commit_oid) FROM builds
		WHERE status = '\''ok'\''") &&
	echo "# $n commits built, runs at 2" &&
	test "$n" -gt 4
'

test_done
