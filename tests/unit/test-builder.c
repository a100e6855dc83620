/*
 * Unit tests for bisectd/builder.c's bookkeeping: the state file's counts
 * and states, a down or refused builder passed over until its retry time,
 * a busy slot skipped, the skip list, and the scheduler's capacity.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisectd/builder.h"
#include "tests/unit/tap.h"
#include "util/file.h"

int
main(void)
{
	static char		 tmpl[] = "/tmp/bisectd-test-builder.XXXXXX";
	struct config_agent	 b[2];
	struct builder_state	 bs;
	struct builder_slot	 s1, s2, s3;
	struct config		 cfg;
	char			*dir = mkdtemp(tmpl), *cause = NULL;
	char			 skip[2] = { 0, 0 };

	memset(b, 0, sizeof b);
	b[0].name = "b1";
	b[0].slots = 1;
	b[1].name = "b2";
	b[1].slots = 1;

	ok(builder_state_read(dir, "b1", &bs, &cause) == 0 &&
	    strcmp(builder_state_name(bs.state), "unknown") == 0 && bs.builds == 0,
	    "a builder never used is unknown");
	builder_state_release(&bs);

	builder_state_note(dir, "b1", BUILDER_UP, NULL, "ED25519 key SHA256:x", 0,
	    BUILDER_COUNT_OK);
	builder_state_note(dir, "b1", BUILDER_UP, NULL, NULL, 0, BUILDER_COUNT_OK);
	builder_state_note(dir, "b1", BUILDER_UP, NULL, NULL, 0, BUILDER_COUNT_FAILED);
	builder_state_read(dir, "b1", &bs, NULL);
	is_str(builder_state_name(bs.state), "up", "up after a build");
	is_int(bs.builds, 2, "two builds counted");
	is_int(bs.failed, 1, "one failed build counted");
	is_str(bs.host_key, "ED25519 key SHA256:x", "the host key is kept");
	builder_state_release(&bs);

	builder_state_note(dir, BUILDER_LOCAL, BUILDER_KEEP, NULL, NULL, 0,
	    BUILDER_COUNT_OK);
	builder_state_read(dir, BUILDER_LOCAL, &bs, NULL);
	ok(strcmp(builder_state_name(bs.state), "up") == 0 && bs.builds == 1,
	    "local builds are counted under 'local'");
	builder_state_release(&bs);

	/* both free: one is taken, then the other */
	ok(builder_slot_take(dir, b, 2, NULL, &s1, &cause) == 0, "a slot taken");
	ok(builder_slot_take(dir, b, 2, NULL, &s2, &cause) == 0 &&
	    s2.builder != s1.builder, "the other builder's slot taken");
	ok(builder_slot_take(dir, b, 2, NULL, &s3, &cause) == 1,
	    "none free: 1 (build here)");
	builder_slot_release(&s1);
	builder_slot_release(&s2);

	builder_state_note(dir, "b1", BUILDER_DOWN, "connection lost", NULL, 3600,
	    BUILDER_COUNT_ERROR);
	builder_state_read(dir, "b1", &bs, NULL);
	ok(strcmp(builder_state_name(bs.state), "down") == 0 && bs.errors == 1 &&
	    bs.retry_at > 0 && bs.error != NULL &&
	    strcmp(bs.error, "connection lost") == 0,
	    "down with its error, one error counted, a retry time");
	is_int(bs.builds, 2, "the counts stay");
	builder_state_release(&bs);
	ok(builder_slot_take(dir, b, 2, NULL, &s1, &cause) == 0 &&
	    strcmp(s1.builder->name, "b2") == 0,
	    "a down builder is passed over");
	builder_slot_release(&s1);
	skip[1] = 1;
	ok(builder_slot_take(dir, b, 2, skip, &s1, &cause) == 1,
	    "skipped and down: none");
	builder_state_note(dir, "b1", BUILDER_REFUSED, "host key changed", NULL, -5,
	    BUILDER_COUNT_ERROR);
	/* retry_after <= 0 means the default 60 s */
	ok(builder_slot_take(dir, b, 2, skip, &s1, &cause) == 1,
	    "a refused builder is passed over too");
	builder_state_note(dir, "b1", BUILDER_UP, NULL, NULL, 0, BUILDER_COUNT_OK);
	ok(builder_slot_take(dir, b, 2, skip, &s1, &cause) == 0 &&
	    strcmp(s1.builder->name, "b1") == 0, "back up: taken");
	builder_slot_release(&s1);

	memset(&cfg, 0, sizeof cfg);
	cfg.build_slots = 2;
	b[1].slots = 3;
	cfg.builders = b;
	cfg.nr_builders = 2;
	is_int(builder_slot_capacity(&cfg), 6, "capacity: local slots and every "
	    "builder's");
	cfg.nr_builders = 0;
	cfg.build_slots = 0;
	is_int(builder_slot_capacity(&cfg), 1, "capacity without builders: 1");

	dir_remove_tree(dir, NULL);
	free(cause);
	return tap_done();
}
