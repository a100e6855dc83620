/*
 * Kernel configurations for builds: the recipe's base (a config file, or a
 * defconfig target such as tinyconfig that make writes), the fragment a
 * job adds with its kconfig: map (as LKP does), their merge into the
 * .config that the build's `make olddefconfig` completes, and the check
 * that the fragment's values survived it.
 */
#ifndef BISECTD_KCONFIG_H
#define BISECTD_KCONFIG_H

#include <stddef.h>

#include "jobs/job.h"

/*
 * The job's kconfig: map as a fragment: one line a symbol, sorted by name,
 * each ending in a newline. "n" becomes "# CONFIG_X is not set"; y, m,
 * decimal and 0x hex numbers and values already in double quotes are
 * written as they are; any other value is quoted. NULL when the job has
 * no kconfig: map. Allocated.
 */
char	*kconfig_fragment(const struct job *);

/*
 * When the recipe's kconfig names no file but a make target (its last
 * component is letters, digits and '_' ending in "config", and no such
 * file exists: tinyconfig, defconfig, x86_64_defconfig), that target.
 * NULL for a file. Allocated.
 */
char	*kconfig_target(const char *path);

/*
 * The base config with the fragment laid over it: every line of the base
 * that sets a symbol of the fragment (or says it is not set) is dropped,
 * and the fragment is appended. fragment may be NULL. Allocated.
 */
char	*kconfig_merge(const char *base, size_t len, const char *fragment);

/*
 * The fragment's symbols whose value the final .config does not have, one
 * line each: "CONFIG_X=y requested, is not set". A symbol asked to be n
 * may be absent (its dependencies are off). NULL when every value held.
 */
char	*kconfig_check(const char *config, size_t len, const char *fragment);

/*
 * The symbol a config line sets: "CONFIG_X=..." and "# CONFIG_X is not
 * set" both name CONFIG_X. Returns its length (0: no symbol) and sets *sym
 * to its start within line.
 */
size_t	 kconfig_line_symbol(const char *line, size_t len, const char **sym);

#endif
