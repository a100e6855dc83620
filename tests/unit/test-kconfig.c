/*
 * Unit tests for bisectd/kconfig.c: a job's kconfig: map as a fragment
 * (values y, m, n, numbers, strings; a matrix axis gives each job its own
 * fragment), the merge over a base that already sets some of the symbols,
 * the check of a final .config against the fragment, config line symbols,
 * and which kconfig paths are make targets.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisectd/kconfig.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/xalloc.h"

static char *
fragment_of(const char *text, size_t which, size_t *nr_out)
{
	struct job	**jobs = NULL;
	size_t		  nr = 0;
	char		 *cause = NULL, *f = NULL;

	if (job_parse("job.yaml", text, strlen(text), &jobs, &nr,
	    &cause) != 0) {
		diag("job_parse: %s", cause);
		free(cause);
		return NULL;
	}
	if (which < nr)
		f = kconfig_fragment(jobs[which]);
	if (nr_out != NULL)
		*nr_out = nr;
	job_list_free(jobs, nr);
	return f;
}

static void
test_fragment(void)
{
	char	*f;
	size_t	 nr;

	f = fragment_of("testcase: t\nrun: true\nkconfig:\n"
	    "  CONFIG_SMP: n\n  CONFIG_PRINTK: y\n  CONFIG_E1000: m\n"
	    "  CONFIG_NR_CPUS: 64\n  CONFIG_PHYSICAL_START: 0x1000000\n"
	    "  CONFIG_LOCALVERSION: -bisect\n"
	    "  CONFIG_CMDLINE: '\"console=ttyS0\"'\n"
	    "  CONFIG_DEFAULT_HOSTNAME: say \"hi\"\n", 0, NULL);
	is_str(f, "CONFIG_CMDLINE=\"console=ttyS0\"\n"
	    "CONFIG_DEFAULT_HOSTNAME=\"say \\\"hi\\\"\"\n"
	    "CONFIG_E1000=m\n"
	    "CONFIG_LOCALVERSION=\"-bisect\"\n"
	    "CONFIG_NR_CPUS=64\n"
	    "CONFIG_PHYSICAL_START=0x1000000\n"
	    "CONFIG_PRINTK=y\n"
	    "# CONFIG_SMP is not set\n", "fragment: sorted, values by kind");
	free(f);

	f = fragment_of("testcase: t\nrun: true\n", 0, NULL);
	ok(f == NULL, "no kconfig: map, no fragment");
	free(f);

	f = fragment_of("testcase: t\nrun: true\nkconfig:\n"
	    "  CONFIG_PREEMPT: [y, n]\n", 1, &nr);
	is_int(nr, 2, "a kconfig axis expands");
	is_str(f, "# CONFIG_PREEMPT is not set\n", "second job's fragment");
	free(f);
}

static void
test_merge(void)
{
	const char	*base = "#\n# Automatically generated\n#\n"
	    "CONFIG_64BIT=y\n# CONFIG_SMP is not set\nCONFIG_NR_CPUS=8\n"
	    "CONFIG_SMPX=y\n# CONFIG_PRINTK is not set";
	char		*m;

	m = kconfig_merge(base, strlen(base), "CONFIG_SMP=y\n"
	    "CONFIG_PRINTK=y\nCONFIG_NEW=m\n");
	is_str(m, "#\n# Automatically generated\n#\nCONFIG_64BIT=y\n"
	    "CONFIG_NR_CPUS=8\nCONFIG_SMPX=y\n"
	    "# bisectd: the job's kconfig\nCONFIG_SMP=y\nCONFIG_PRINTK=y\n"
	    "CONFIG_NEW=m\n", "fragment replaces the base's lines, not "
	    "longer names");
	free(m);

	m = kconfig_merge(base, strlen(base), NULL);
	is_str(m, "#\n# Automatically generated\n#\nCONFIG_64BIT=y\n"
	    "# CONFIG_SMP is not set\nCONFIG_NR_CPUS=8\nCONFIG_SMPX=y\n"
	    "# CONFIG_PRINTK is not set\n", "no fragment: the base, "
	    "newline-terminated");
	free(m);

	m = kconfig_merge("", 0, "CONFIG_A=y");
	is_str(m, "# bisectd: the job's kconfig\nCONFIG_A=y\n",
	    "no base: the fragment alone");
	free(m);
}

static void
test_check(void)
{
	const char	*final = "CONFIG_64BIT=y\nCONFIG_SMP=y\n"
	    "# CONFIG_KASAN is not set\nCONFIG_NR_CPUS=64\n";
	char		*w;

	w = kconfig_check(final, strlen(final), "CONFIG_SMP=y\n"
	    "CONFIG_NR_CPUS=64\n# CONFIG_GONE is not set\n");
	ok(w == NULL, "all values held (an absent n is fine)");
	free(w);

	w = kconfig_check(final, strlen(final), "CONFIG_KASAN=y\n"
	    "CONFIG_NR_CPUS=32\nCONFIG_MISSING=m\n# CONFIG_SMP is not set\n");
	is_str(w, "CONFIG_KASAN=y requested, the final .config has "
	    "# CONFIG_KASAN is not set\n"
	    "CONFIG_NR_CPUS=32 requested, the final .config has "
	    "CONFIG_NR_CPUS=64\n"
	    "CONFIG_MISSING=m requested, is not in the final .config\n"
	    "# CONFIG_SMP is not set requested, the final .config has "
	    "CONFIG_SMP=y\n", "each refused value named");
	free(w);
}

static void
test_symbol(void)
{
	const char	*sym;
	struct {
		const char	*line;
		const char	*sym;
	} t[] = {
		{ "CONFIG_A=y", "CONFIG_A" },
		{ "CONFIG_A_B1=\"x y\"", "CONFIG_A_B1" },
		{ "# CONFIG_A is not set", "CONFIG_A" },
		{ "# CONFIG_A is not set ", NULL },
		{ "#CONFIG_A is not set", NULL },
		{ "CONFIG_=y", NULL },
		{ "CONFIG_A", NULL },
		{ "CONFIG_A y", NULL },
		{ "# General setup", NULL },
		{ "", NULL },
	};
	size_t		 i, n;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		n = kconfig_line_symbol(t[i].line, strlen(t[i].line), &sym);
		if (t[i].sym == NULL)
			is_int(n, 0, "'%s' sets no symbol", t[i].line);
		else
			ok(n == strlen(t[i].sym) &&
			    strncmp(sym, t[i].sym, n) == 0, "'%s' sets %s",
			    t[i].line, t[i].sym);
	}
}

static void
test_target(void)
{
	char	 tmpl[] = "/tmp/bisectd-test-kconfig.XXXXXX", *dir, *p, *t;

	dir = mkdtemp(tmpl);
	p = path_join(dir, "tinyconfig");
	t = kconfig_target(p);
	is_str(t, "tinyconfig", "a missing 'tinyconfig' is the target");
	free(t);
	file_write_atomic(p, "CONFIG_A=y\n", 11, NULL);
	t = kconfig_target(p);
	ok(t == NULL, "an existing file is a file");
	free(t);
	unlink(p);
	free(p);
	p = path_join(dir, "x86_64_defconfig");
	t = kconfig_target(p);
	is_str(t, "x86_64_defconfig", "x86_64_defconfig");
	free(t);
	free(p);
	p = path_join(dir, "x86-64.config");
	t = kconfig_target(p);
	ok(t == NULL, "other names are files (missing ones fail the build)");
	free(t);
	free(p);
	rmdir(dir);
}

int
main(void)
{
	test_fragment();
	test_merge();
	test_check();
	test_symbol();
	test_target();
	return tap_done();
}
