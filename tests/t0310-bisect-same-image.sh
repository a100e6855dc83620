#!/bin/sh
# Identical images are one test point (issue 11). Only the culprit changes
# what the fixture builds (its artifacts: bench.sh, speed, noise), so every
# other commit's image is its parent's. Commit 60's runs were disturbed
# (its samples made 5% worse, as a hog would): the noise points at it, but
# it ran its parent's image, so it is never the answer, and nothing more
# is run there. The revert of the culprit builds its parent's image: the
# check is decided by the build, with no runs.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_expect_success 'a disturbed commit of its parent'"'"'s image' '
	setup_bench --commits 160 --culprit 101 --change -5 &&
	liar=$(commit_oid "commit 60") &&
	bisectctl queue job.yaml --commit "$liar" --wait >queue.out \
		2>queue.err &&
	db_query "UPDATE samples SET value = value * 0.95
		WHERE metric = '"'"'microbench.score'"'"' AND run IN
		(SELECT id FROM runs WHERE commit_oid = '"'"'$liar'"'"')" &&
	before=$(sample_count "$liar" microbench.score) &&
	test "$before" -ge 3 &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	test "$(json_get out.json "d.get(\"culprit\")")" != "$liar" &&
	test "$(sample_count "$liar" microbench.score)" = "$before"
'

test_expect_success 'the builds found the split: runs only at the ends' '
	db_query "SELECT DISTINCT commit_oid FROM runs" | sort >ran &&
	{
		commit_oid "commit 60" &&
		commit_oid "commit 1" &&
		git -C repo rev-parse master
	} | sort >want &&
	test_cmp_lines ran want &&
	grep -q "(build)" progress
'

test_expect_success 'the revert builds the parent'"'"'s image: restored, not run' '
	test "$(json_get out.json "d[\"revert\"][\"same_image_as_parent\"]")" = True &&
	test "$(json_get out.json "d[\"revert\"][\"verdict\"]")" = restores &&
	test "$(json_get out.json "d[\"revert\"][\"n\"]")" = 0
'

test_done
