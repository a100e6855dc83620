/*
 * Unit tests for the rule that stops repeating disturbed runs on a
 * machine that is busy for good (bisectd/worker.c, docs/monitors.md
 * "Interference"): no undisturbed run for 30 s and at least 5 disturbed
 * attempts in the last 30 s; a burst shorter than that, or a lone
 * disturbed attempt after a quiet spell, is still set aside.
 */
#include "bisectd/worker.h"
#include "tests/unit/tap.h"

int
main(void)
{
	double	now = 1764650000;

	ok(worker_busy_for_good(7, now - 45, now), "45 s of nothing but "
	    "disturbed runs, 7 of them: busy for good");
	ok(worker_busy_for_good(5, now - 30, now), "exactly 30 s and 5 "
	    "attempts: busy for good");
	ok(!worker_busy_for_good(12, now - 10, now), "a 10 s burst: still "
	    "set aside");
	ok(!worker_busy_for_good(4, now - 300, now), "few attempts lately: "
	    "still set aside");
	ok(!worker_busy_for_good(9, 0, now), "an undisturbed run since: "
	    "still set aside");
	return tap_done();
}
