/*
 * Unit tests for bisectd/drift.c: which keys matter, how values are
 * normalized, and drift_compare on sets of runs -- identical runs, a THP
 * setting that differs between the sides (seed 000), a difference inside
 * one side, a noted-only difference, a kernel built from each commit
 * whose release may differ between commits but not within one, and the
 * tolerances: memory within 1%, counts and hugepage settings exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "bisectd/drift.h"
#include "tests/unit/tap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MAX_KEYS	16

struct env {
	char	*keys[MAX_KEYS];
	char	*values[MAX_KEYS];
	size_t	 nr;
};

/* "k=v;k=v;..." */
static void
env_set(struct env *e, const char *spec)
{
	char	*copy = xstrdup(spec), *p = copy, *eq, *next;

	memset(e, 0, sizeof *e);
	while (p != NULL && *p != '\0' && e->nr < MAX_KEYS) {
		eq = strchr(p, '=');
		next = strchr(eq + 1, ';');
		if (next != NULL)
			*next++ = '\0';
		e->keys[e->nr] = xstrndup(p, (size_t)(eq - p));
		e->values[e->nr] = xstrdup(eq + 1);
		e->nr++;
		p = next;
	}
	free(copy);
}

static void
env_free(struct env *e)
{
	size_t	i;

	for (i = 0; i < e->nr; i++) {
		free(e->keys[i]);
		free(e->values[i]);
	}
}

static void
run(struct drift_run *r, struct env *e, const char *label, const char *commit)
{
	r->label = label;
	r->boot = NULL;
	r->commit = commit;
	r->keys = e->keys;
	r->values = e->values;
	r->nr = e->nr;
}

static const struct drift_item *
item(const struct drift *d, const char *key)
{
	size_t	i;

	for (i = 0; i < d->nr; i++) {
		if (strcmp(d->items[i].key, key) == 0)
			return &d->items[i];
	}
	return NULL;
}

static void
test_classes(void)
{
	static const char *const matters[] = {
		"thp_enabled", "thp_defrag", "numa_balancing",
		"zone_reclaim_mode", "governor", "cmdline", "kernel", "kconfig",
		"compiler", "nr_cpu", "nr_node", "memory", "model",
		"sysctl.vm.swappiness", "node1.cpulist", "node0.memory",
		"sysctl.vm.nr_hugepages", "sysctl.vm.nr_overcommit_hugepages",
		"thp_shmem_enabled", "thp_khugepaged_defrag",
		"thp_khugepaged_max_ptes_none", "thp_hugepages-64kB.enabled",
		"hugepages-1048576kB.nr_hugepages",
		"hugepages-2048kB.nr_overcommit_hugepages",
		"node1.hugepages-2048kB.nr_hugepages",
	};
	size_t	i;

	for (i = 0; i < sizeof matters / sizeof matters[0]; i++)
		is_int(drift_key_class(matters[i]), DRIFT_MATTERS,
		    "'%s' matters", matters[i]);
	is_int(drift_key_class("hostname"), DRIFT_NOTED, "hostname is noted");
	is_int(drift_key_class("agent_version"), DRIFT_NOTED,
	    "agent_version is noted");
	is_int(drift_key_class("something_new"), DRIFT_NOTED,
	    "an unknown key is noted");
	is_int(drift_key_class("monitors"), DRIFT_IGNORED, "monitors: ignored");
	is_int(drift_key_class("kconfig_built"), DRIFT_IGNORED,
	    "kconfig_built: ignored");
	is_int(drift_key_class("node0.cpulistx"), DRIFT_NOTED,
	    "not a node key");
	ok(drift_key_per_commit("kernel") && drift_key_per_commit("kconfig") &&
	    !drift_key_per_commit("thp_enabled"), "per-commit keys");
}

static void
test_values(void)
{
	char	*v;

	v = drift_value("memory", "64G 68719476736");
	is_str(v, "64G", "memory: the rounded figure");
	free(v);
	v = drift_value("node1.memory", "32G 34359738368");
	is_str(v, "32G", "node memory: the rounded figure");
	free(v);
	v = drift_value("cmdline", "BOOT_IMAGE=/vmlinuz-3.16.0-rc1 root=/dev/sda1 "
	    "initrd=/x.img  numa_balancing=enable");
	is_str(v, "root=/dev/sda1 numa_balancing=enable",
	    "cmdline: BOOT_IMAGE= and initrd= dropped");
	free(v);
	v = drift_value("thp_enabled", "always");
	is_str(v, "always", "other values as they are");
	free(v);
}

static void
test_compare(void)
{
	struct env		 e[6];
	struct drift_run	 r[6];
	struct drift		 d;
	const struct drift_item	*it;
	struct strbuf		 sb = STRBUF_INIT;
	size_t			 i;

	env_set(&e[0], "thp_enabled=always;kernel=3.16;hostname=ivb44;"
	    "memory=64G 68719476736;monitors=time");
	env_set(&e[1], "thp_enabled=always;kernel=3.16;hostname=ivb44;"
	    "memory=64G 68719476000;monitors=time meminfo");
	env_set(&e[2], "thp_enabled=never;kernel=3.16;hostname=ivb44;"
	    "memory=64G 68719476736");
	env_set(&e[3], "thp_enabled=never;kernel=3.16;hostname=ivb45;"
	    "memory=64G 68719476736");
	run(&r[0], &e[0], "A", "a");
	run(&r[1], &e[1], "A", "a");
	run(&r[2], &e[2], "B", "b");
	run(&r[3], &e[3], "B", "b");

	drift_compare(&d, r, 2);
	is_int(d.nr, 0, "two runs alike: no drift (memory rounded, "
	    "monitors ignored)");
	drift_release(&d);

	drift_compare(&d, r, 4);
	is_int(d.nr_matter, 1, "one difference that matters");
	it = item(&d, "thp_enabled");
	ok(it != NULL && it->matters, "thp_enabled differs");
	is_str(it != NULL ? it->text : NULL,
	    "always at A (2 runs) | never at B (2 runs)",
	    "the text says where each value was");
	it = item(&d, "hostname");
	ok(it != NULL && !it->matters, "hostname is noted only");
	is_str(it != NULL ? it->text : NULL,
	    "ivb44 at A (2 runs), B (1 run) | ivb45 at B (1 run)",
	    "several places for one value");
	drift_format(&sb, &d, "  ");
	is_str(sb.buf, "  thp_enabled: always at A (2 runs) | never at B "
	    "(2 runs)\n  hostname: ivb44 at A (2 runs), B (1 run) | ivb45 at "
	    "B (1 run) (noted only)\n", "formatted, what matters first");
	strbuf_release(&sb);
	drift_release(&d);

	run(&r[1], &e[2], "A", "a");
	drift_compare(&d, r, 2);
	it = item(&d, "thp_enabled");
	ok(it != NULL && it->matters, "drift inside one side is drift too");
	drift_release(&d);
	for (i = 0; i < 4; i++)
		env_free(&e[i]);

	env_set(&e[0], "kernel=3.16.0-00001-ga;kconfig=aaaa;kernel_under_test=1;"
	    "thp_enabled=always");
	env_set(&e[1], "kernel=3.16.0-00001-ga;kconfig=aaaa;kernel_under_test=1;"
	    "thp_enabled=always");
	env_set(&e[2], "kernel=3.16.0-00002-gb;kconfig=bbbb;kernel_under_test=1;"
	    "thp_enabled=always");
	env_set(&e[3], "kernel=3.16.0-00009-gc;kconfig=bbbb;kernel_under_test=1;"
	    "thp_enabled=always");
	env_set(&e[4], "kernel=3.16.0-00002-gb;kconfig=bbbb;"
	    "thp_enabled=always");
	run(&r[0], &e[0], "good", "a");
	run(&r[1], &e[1], "good", "a");
	run(&r[2], &e[2], "bad", "b");
	drift_compare(&d, r, 3);
	is_int(d.nr, 0, "kernels built from each commit: the release may "
	    "differ between commits");
	drift_release(&d);
	run(&r[3], &e[3], "bad", "b");
	drift_compare(&d, r, 4);
	ok(item(&d, "kernel") != NULL && item(&d, "kernel")->matters,
	    "but not between runs of one commit");
	drift_release(&d);
	run(&r[3], &e[4], "bad", "b");
	drift_compare(&d, r, 4);
	ok(item(&d, "kernel") != NULL,
	    "nor when one run did not boot its commit's kernel");
	drift_release(&d);
	for (i = 0; i < 5; i++)
		env_free(&e[i]);

	drift_compare(&d, r, 0);
	is_int(d.nr, 0, "no runs, no drift");
	drift_release(&d);
}

static void
test_same(void)
{
	ok(drift_same("memory", "5G 5905580032", "6G 5909123072"),
	    "memory: 0.06%% apart is the same, across the GiB rounding");
	ok(drift_same("node1.memory", "32G 34359738368", "32G 34190000000"),
	    "node memory: 0.5%% apart is the same");
	ok(!drift_same("memory", "64G 68719476736", "62G 66571993088"),
	    "memory: 3%% apart differs (a DIMM)");
	ok(!drift_same("node0.memory", "64G 68719476736", "64G 67800000000"),
	    "node memory: 1.3%% apart differs though both read 64G");
	ok(drift_same("memory", "64G", "64G") && !drift_same("memory", "5G",
	    "6G"), "memory without its byte count: the rounded figure");
	ok(drift_same("sysctl.vm.min_free_kbytes", "90112", "90200"),
	    "min_free_kbytes follows memory: within 1%%");
	ok(!drift_same("sysctl.vm.min_free_kbytes", "90112", "67584"),
	    "min_free_kbytes set otherwise differs");
	ok(!drift_same("nr_cpu", "48", "47"), "counts compare exactly");
	ok(!drift_same("sysctl.vm.nr_hugepages", "0", "16384"),
	    "nr_hugepages 0 and 16384 differ");
	ok(!drift_same("sysctl.vm.nr_hugepages", "16384", "16383"),
	    "nr_hugepages: one page short differs");
	ok(!drift_same("sysctl.vm.swappiness", "60", "61"),
	    "other sysctls exactly");
	ok(!drift_same("thp_shmem_enabled", "never", "advise"),
	    "shmem_enabled exactly");
	ok(drift_same("cmdline", "BOOT_IMAGE=/a root=/dev/sda1",
	    "BOOT_IMAGE=/b root=/dev/sda1"), "cmdline as normalized");
	ok(!drift_same("memory", NULL, "64G 68719476736") &&
	    drift_same("memory", NULL, NULL), "unset differs from set");
}

static void
test_compare_tolerance(void)
{
	struct env		 e[4];
	struct drift_run	 r[4];
	struct drift		 d;
	const struct drift_item	*it;
	size_t			 i;

	env_set(&e[0], "memory=5G 5905580032;node0.memory=5G 5905580032;"
	    "sysctl.vm.nr_hugepages=0;thp_khugepaged_defrag=1");
	env_set(&e[1], "memory=6G 5909123072;node0.memory=6G 5909123072;"
	    "sysctl.vm.nr_hugepages=0;thp_khugepaged_defrag=1");
	env_set(&e[2], "memory=6G 5909123072;node0.memory=6G 5909123072;"
	    "sysctl.vm.nr_hugepages=16384;thp_khugepaged_defrag=0");
	env_set(&e[3], "memory=62G 66571993088;node0.memory=5G 5905580032;"
	    "sysctl.vm.nr_hugepages=0;thp_khugepaged_defrag=1");
	run(&r[0], &e[0], "good", "a");
	run(&r[1], &e[1], "bad", "b");
	drift_compare(&d, r, 2);
	is_int(d.nr, 0, "memory 0.06%% apart, '5G | 6G' rounded: no drift");
	drift_release(&d);

	run(&r[1], &e[2], "bad", "b");
	drift_compare(&d, r, 2);
	is_int(d.nr_matter, 2, "nr_hugepages and khugepaged defrag matter");
	it = item(&d, "sysctl.vm.nr_hugepages");
	is_str(it != NULL ? it->text : NULL,
	    "0 at good (1 run) | 16384 at bad (1 run)",
	    "nr_hugepages 0 -> 16384 is drift");
	ok(item(&d, "thp_khugepaged_defrag") != NULL, "defrag 1 -> 0 too");
	drift_release(&d);

	run(&r[1], &e[1], "good", "a");
	run(&r[2], &e[3], "bad", "b");
	drift_compare(&d, r, 3);
	it = item(&d, "memory");
	ok(d.nr_matter == 1 && it != NULL && it->matters,
	    "memory 5.5G -> 62G is drift, and only memory");
	is_str(it != NULL ? it->text : NULL,
	    "5.50G at good (2 runs) | 62.00G at bad (1 run)",
	    "shown to 0.01G, the close values as one");
	drift_release(&d);
	for (i = 0; i < 4; i++)
		env_free(&e[i]);

	/* A host that hot-plugs the VM's memory while the runs go on. */
	env_set(&e[0], "node0.memory=8G 8955000000");
	env_set(&e[1], "node0.memory=9G 9351000000");
	env_set(&e[2], "node0.memory=9G 9223000000");
	env_set(&e[3], "node0.memory=9G 9351000000");
	run(&r[0], &e[0], "good", "a");
	run(&r[1], &e[1], "good", "a");
	run(&r[2], &e[2], "bad", "b");
	run(&r[3], &e[3], "bad", "b");
	drift_compare(&d, r, 4);
	it = item(&d, "node0.memory");
	ok(d.nr_matter == 0 && it != NULL && !it->matters,
	    "memory moving on both sides alike is noted, not drift");
	ok(it != NULL && strstr(it->text, "on every side alike") != NULL,
	    "and the text says it moved with time");
	drift_release(&d);
	run(&r[1], &e[0], "good", "a");
	drift_compare(&d, r, 4);
	it = item(&d, "node0.memory");
	ok(d.nr_matter == 1 && it != NULL && it->matters,
	    "memory that parts the sides (8.34G at good, 8.59-8.71G at bad) "
	    "matters");
	drift_release(&d);
	for (i = 0; i < 4; i++)
		env_free(&e[i]);
}

int
main(void)
{
	test_classes();
	test_values();
	test_compare();
	test_same();
	test_compare_tolerance();
	return tap_done();
}
