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

#endif
