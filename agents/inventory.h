/*
 * What a test machine is and how it is set up, as "key value" pairs:
 * model, nr_cpu, memory, NUMA nodes, kernel, THP and NUMA balancing
 * settings (docs/agents.md lists them). bisect-agent info prints it and
 * every run records it. All of /sys and /proc is read under a root path,
 * so tests describe a two-node, 48-CPU machine with a fixture tree.
 */
#ifndef AGENTS_INVENTORY_H
#define AGENTS_INVENTORY_H

#include <stddef.h>

#define BISECT_AGENT_VERSION	"0.1.0"

struct inventory_item {
	char	*key;
	char	*value;
};

struct inventory {
	struct inventory_item	*items;
	size_t			 nr_items;
	size_t			 alloc_items;
};

/* The root to read under: explicit, else $BISECT_AGENT_ROOT, else NULL. */
const char	*inventory_root(const char *explicit);
/* root NULL: the running system (uname for kernel and hostname). */
int		 inventory_collect(const char *root, struct inventory **out,
		     char **cause);
void		 inventory_free(struct inventory *);
const char	*inventory_get(const struct inventory *, const char *key);
/* "key value\n" lines, allocated. */
char		*inventory_format(const struct inventory *);
/* CPUs in a cpulist such as "0-11,24-35"; -1 if it is not one. */
long		 inventory_cpulist_count(const char *);
/* Set (or replace) a key; control characters become spaces. */
void		 inventory_set(struct inventory *, const char *key,
		     const char *value);

/* ROOT/path (root NULL: path itself), allocated. */
char		*inventory_path(const char *root, const char *path);
/* The contents, or the first line, of ROOT/path; NULL if unreadable. */
char		*inventory_read(const char *root, const char *path);
char		*inventory_read_line(const char *root, const char *path);
/* The [bracketed] choice of "always [madvise] never", else the line. */
char		*inventory_bracketed(const char *root, const char *path);
/*
 * "/proc/sys/vm/swappiness" for "vm.swappiness" (dots become slashes,
 * as sysctl(8) does, unless the name has a slash already); NULL for a
 * name that is not a sysctl name or that would leave /proc/sys (".."
 * components).
 */
char		*inventory_sysctl_path(const char *name);
/* Record sysctl.NAME with its value (white space collapsed), if readable. */
void		 inventory_sysctl(struct inventory *, const char *root,
		     const char *name);

/*
 * The running kernel (agents/inventory-kernel.c): compiler and build
 * string from ROOT/proc/version, kconfig hash from ROOT/proc/config.gz or
 * ROOT/boot/config-RELEASE.
 */
void		 inventory_kernel(struct inventory *, const char *root);
/*
 * What the artifacts in workdir say about a kernel built here: its
 * release from a bzImage's header (kernel_built), the hash and compiler
 * of its .config (kconfig_built, compiler_built; the .config is copied
 * to config_copy when not NULL), and kernel_under_test 1 when the running
 * kernel is that build, or $BISECT_AGENT_KERNEL_UNDER_TEST is 1.
 */
void		 inventory_kernel_build(struct inventory *, const char *workdir,
		     const char *config_copy);
/* The release in a bzImage's setup header, allocated; NULL if none. */
char		*inventory_kernel_bzimage_release(const char *path);

#endif
