/*
 * The machine's inventory and environment, read from /proc and /sys under
 * a root path (DESIGN §3.5): a fixture tree in tests, "/" on a machine.
 * Nothing here is mandatory: a file that a kernel does not have (no NUMA,
 * no THP) leaves its key out, and the report shows the difference when
 * two runs disagree. Values are single lines; control characters in them
 * become spaces.
 */
#include <sys/stat.h>
#include <sys/utsname.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/inventory.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Larger than any /proc or /sys file read here (cpuinfo of 4096 CPUs). */
#define INVENTORY_MAX_FILE	(16u << 20)
#define INVENTORY_MAX_NODES	1024
#define INVENTORY_MAX_CPUS	8192

static void	inventory_hugepage_pools(struct inventory *, const char *,
		    const char *, const char *);

const char *
inventory_root(const char *explicit)
{
	const char	*env;

	if (explicit != NULL && explicit[0] != '\0')
		return explicit;
	if ((env = getenv("BISECT_AGENT_ROOT")) != NULL && env[0] != '\0')
		return env;
	return NULL;
}

void
inventory_set(struct inventory *inv, const char *key, const char *value)
{
	struct strbuf	sb = STRBUF_INIT;
	const char	*p;
	size_t		i;

	for (p = value; *p == ' ' || *p == '\t'; p++)
		;
	strbuf_addstr(&sb, p);
	strbuf_rtrim(&sb);
	for (i = 0; i < sb.len; i++) {
		if ((unsigned char)sb.buf[i] < ' ' || sb.buf[i] == 0x7f)
			sb.buf[i] = ' ';
	}
	for (i = 0; i < inv->nr_items; i++) {
		if (strcmp(inv->items[i].key, key) == 0) {
			free(inv->items[i].value);
			inv->items[i].value = strbuf_detach(&sb, NULL);
			return;
		}
	}
	ALLOC_GROW(inv->items, inv->nr_items, inv->alloc_items);
	inv->items[inv->nr_items].key = xstrdup(key);
	inv->items[inv->nr_items].value = strbuf_detach(&sb, NULL);
	inv->nr_items++;
}

const char *
inventory_get(const struct inventory *inv, const char *key)
{
	size_t	i;

	for (i = 0; i < inv->nr_items; i++) {
		if (strcmp(inv->items[i].key, key) == 0)
			return inv->items[i].value;
	}
	return NULL;
}

void
inventory_free(struct inventory *inv)
{
	size_t	i;

	if (inv == NULL)
		return;
	for (i = 0; i < inv->nr_items; i++) {
		free(inv->items[i].key);
		free(inv->items[i].value);
	}
	free(inv->items);
	free(inv);
}

char *
inventory_format(const struct inventory *inv)
{
	struct strbuf	sb = STRBUF_INIT;
	size_t		i;

	for (i = 0; i < inv->nr_items; i++)
		strbuf_addf(&sb, "%s %s\n", inv->items[i].key,
		    inv->items[i].value);
	return strbuf_detach(&sb, NULL);
}

char *
inventory_path(const char *root, const char *path)
{
	size_t	len;

	if (root == NULL)
		return xstrdup(path);
	len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		len--;
	return xasprintf("%.*s%s", (int)len, root, path);
}

/* The contents of ROOT/path, or NULL when it cannot be read. */
char *
inventory_read(const char *root, const char *path)
{
	struct stat	 st;
	char		*full = inventory_path(root, path), *buf = NULL;
	size_t		 len;

	if (stat(full, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > INVENTORY_MAX_FILE ||
	    file_read(full, &buf, &len, NULL) != 0 ||
	    memchr(buf, '\0', len) != NULL) {
		free(buf);
		buf = NULL;
	}
	free(full);
	return buf;
}

/* The first line of ROOT/path, trimmed, or NULL. */
char *
inventory_read_line(const char *root, const char *path)
{
	char	*buf = inventory_read(root, path), *nl;

	if (buf == NULL)
		return NULL;
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
	return buf;
}

/* The value of "key<blanks>: value" in a cpuinfo-like text, or NULL. */
static char *
inventory_field(const char *text, const char *key)
{
	const char	*line = text, *p, *nl;
	size_t		 klen = strlen(key);

	while (line != NULL && *line != '\0') {
		nl = strchr(line, '\n');
		if (strncmp(line, key, klen) == 0) {
			for (p = line + klen; *p == ' ' || *p == '\t'; p++)
				;
			if (*p == ':') {
				p++;
				return xstrndup(p, nl != NULL ?
				    (size_t)(nl - p) : strlen(p));
			}
		}
		line = nl != NULL ? nl + 1 : NULL;
	}
	return NULL;
}

/* The [bracketed] choice of a sysfs setting such as THP's enabled. */
char *
inventory_bracketed(const char *root, const char *path)
{
	char	*buf = inventory_read_line(root, path), *open, *close;
	char	*v = NULL;

	if (buf == NULL)
		return NULL;
	if ((open = strchr(buf, '[')) != NULL &&
	    (close = strchr(open, ']')) != NULL)
		v = xstrndup(open + 1, (size_t)(close - open - 1));
	else
		v = xstrdup(buf);
	free(buf);
	return v;
}

long
inventory_cpulist_count(const char *s)
{
	unsigned long	 a, b;
	long		 n = 0;
	char		*end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0' || *s == '\n')
		return 0;
	for (;;) {
		if (!isdigit((unsigned char)*s))
			return -1;
		errno = 0;
		a = strtoul(s, &end, 10);
		b = a;
		if (errno != 0 || a > 1000000)
			return -1;
		if (*end == '-') {
			s = end + 1;
			if (!isdigit((unsigned char)*s))
				return -1;
			b = strtoul(s, &end, 10);
			if (errno != 0 || b < a || b > 1000000)
				return -1;
		}
		n += (long)(b - a + 1);
		s = end;
		if (*s == ',') {
			s++;
			continue;
		}
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		return *s == '\0' ? n : -1;
	}
}

/* "64G 68719476736": rounded to the nearest GiB (MiB below 1 GiB). */
static char *
inventory_memory(unsigned long long kb)
{
	unsigned long long	bytes = kb * 1024;

	if (bytes >= (1ULL << 30))
		return xasprintf("%lluG %llu", (bytes + (1ULL << 29)) >> 30,
		    bytes);
	return xasprintf("%lluM %llu", (bytes + (1ULL << 19)) >> 20, bytes);
}

/* The kB figure of "...MemTotal:   NNN kB" in a meminfo text. */
static int
inventory_memtotal(const char *text, unsigned long long *kb)
{
	const char	*p = strstr(text, "MemTotal:");
	char		*end;

	if (p == NULL)
		return -1;
	p += strlen("MemTotal:");
	while (*p == ' ' || *p == '\t')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*kb = strtoull(p, &end, 10);
	if (errno != 0 || *kb > (1ULL << 50))
		return -1;
	return 0;
}

static void
inventory_cpu(struct inventory *inv, const char *root)
{
	static const char *const	 model_keys[] = {
		"model name", "Processor", "cpu model", "cpu", NULL
	};
	char				*cpuinfo, *v = NULL, *online, *p;
	long				 n = -1;
	int				 i;

	cpuinfo = inventory_read(root, "/proc/cpuinfo");
	for (i = 0; cpuinfo != NULL && model_keys[i] != NULL; i++) {
		if ((v = inventory_field(cpuinfo, model_keys[i])) != NULL)
			break;
	}
	if (v != NULL)
		inventory_set(inv, "model", v);
	free(v);

	online = inventory_read_line(root, "/sys/devices/system/cpu/online");
	if (online != NULL)
		n = inventory_cpulist_count(online);
	if (n <= 0 && cpuinfo != NULL) {
		n = 0;
		for (p = cpuinfo; (p = strstr(p, "processor")) != NULL; p++) {
			if (p == cpuinfo || p[-1] == '\n')
				n++;
		}
	}
	if (n > 0) {
		v = xasprintf("%ld", n);
		inventory_set(inv, "nr_cpu", v);
		free(v);
	}
	free(online);
	free(cpuinfo);
}

/* "hugepages-NkB" names by their size. */
static int
inventory_size_cmp(const void *a, const void *b)
{
	unsigned long	x = strtoul(*(char *const *)a + 10, NULL, 10);
	unsigned long	y = strtoul(*(char *const *)b + 10, NULL, 10);

	return x < y ? -1 : x > y;
}

static int
inventory_node_cmp(const void *a, const void *b)
{
	unsigned	x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

static void
inventory_nodes(struct inventory *inv, const char *root)
{
	struct dirent		*de;
	DIR			*d;
	unsigned		 nodes[INVENTORY_MAX_NODES];
	unsigned long long	 kb;
	size_t			 nr = 0, i;
	char			*dir, *path, *v, *key, *end;
	unsigned long		 n;

	dir = inventory_path(root, "/sys/devices/system/node");
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL && nr < INVENTORY_MAX_NODES) {
			if (strncmp(de->d_name, "node", 4) != 0 ||
			    !isdigit((unsigned char)de->d_name[4]))
				continue;
			n = strtoul(de->d_name + 4, &end, 10);
			if (*end == '\0' && n < 1000000)
				nodes[nr++] = (unsigned)n;
		}
		closedir(d);
	}
	free(dir);
	qsort(nodes, nr, sizeof nodes[0], inventory_node_cmp);
	v = xasprintf("%zu", nr > 0 ? nr : 1);
	inventory_set(inv, "nr_node", v);
	free(v);
	for (i = 0; i < nr; i++) {
		path = xasprintf("/sys/devices/system/node/node%u/cpulist",
		    nodes[i]);
		if ((v = inventory_read_line(root, path)) != NULL) {
			key = xasprintf("node%u.cpulist", nodes[i]);
			inventory_set(inv, key, v);
			free(key);
			free(v);
		}
		free(path);
		path = xasprintf("/sys/devices/system/node/node%u/meminfo",
		    nodes[i]);
		if ((v = inventory_read(root, path)) != NULL &&
		    inventory_memtotal(v, &kb) == 0) {
			free(v);
			v = inventory_memory(kb);
			key = xasprintf("node%u.memory", nodes[i]);
			inventory_set(inv, key, v);
			free(key);
		}
		free(v);
		free(path);
		path = xasprintf("/sys/devices/system/node/node%u/distance",
		    nodes[i]);
		if ((v = inventory_read_line(root, path)) != NULL) {
			key = xasprintf("node%u.distance", nodes[i]);
			inventory_set(inv, key, v);
			free(key);
			free(v);
		}
		free(path);
		path = xasprintf("/sys/devices/system/node/node%u/hugepages",
		    nodes[i]);
		key = xasprintf("node%u.", nodes[i]);
		inventory_hugepage_pools(inv, root, path, key);
		free(key);
		free(path);
	}
}

/*
 * The governor of every CPU: one name when they agree, else each distinct
 * name once, in CPU order ("performance,powersave").
 */
static void
inventory_governor(struct inventory *inv, const char *root)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		*path, *v, *p;
	size_t		 len;
	unsigned	 cpu, misses = 0;

	for (cpu = 0; cpu < INVENTORY_MAX_CPUS && misses < 64; cpu++) {
		path = xasprintf("/sys/devices/system/cpu/cpu%u/cpufreq/"
		    "scaling_governor", cpu);
		v = inventory_read_line(root, path);
		free(path);
		if (v == NULL) {
			misses++;
			continue;
		}
		misses = 0;
		len = strlen(v);
		for (p = sb.buf; (p = strstr(p, v)) != NULL; p += len) {
			if ((p == sb.buf || p[-1] == ',') &&
			    (p[len] == '\0' || p[len] == ','))
				break;
		}
		if (p == NULL && len > 0)
			strbuf_addf(&sb, "%s%s", sb.len ? "," : "", v);
		free(v);
	}
	if (sb.len > 0)
		inventory_set(inv, "governor", sb.buf);
	strbuf_release(&sb);
}

/* KEY from the first line of ROOT/path, when it exists. */
static void
inventory_line(struct inventory *inv, const char *root, const char *key,
    const char *path)
{
	char	*v;

	if ((v = inventory_read_line(root, path)) != NULL) {
		inventory_set(inv, key, v);
		free(v);
	}
}

/* Settings every run records, besides those a job sets (sysctl.NAME). */
static const char *const inventory_sysctls[] = {
	"vm.swappiness", "vm.overcommit_memory", "vm.dirty_ratio",
	"vm.dirty_background_ratio", "vm.min_free_kbytes",
	"kernel.sched_autogroup_enabled", "kernel.randomize_va_space",
	"vm.nr_hugepages", "vm.nr_overcommit_hugepages",
};

/* THP's settings besides enabled and defrag: thp_NAME, NAME's / as _. */
static const char *const inventory_thp[] = {
	"shmem_enabled", "use_zero_page", "hpage_pmd_size",
	"khugepaged/defrag", "khugepaged/max_ptes_none",
	"khugepaged/max_ptes_swap", "khugepaged/max_ptes_shared",
	"khugepaged/pages_to_scan", "khugepaged/scan_sleep_millisecs",
	"khugepaged/alloc_sleep_millisecs",
};

#define INVENTORY_THP	"/sys/kernel/mm/transparent_hugepage"

void
inventory_sysctl(struct inventory *inv, const char *root, const char *name)
{
	char	*path, *key, *v, *p, *q;

	if ((path = inventory_sysctl_path(name)) == NULL)
		return;
	if ((v = inventory_read(root, path)) != NULL) {
		for (p = q = v; *p != '\0'; p++) {
			if (*p == ' ' || *p == '\t' || *p == '\n') {
				if (q > v && q[-1] != ' ')
					*q++ = ' ';
			} else
				*q++ = *p;
		}
		while (q > v && q[-1] == ' ')
			q--;
		*q = '\0';
		key = xasprintf("sysctl.%s", name);
		inventory_set(inv, key, v);
		free(key);
		free(v);
	}
	free(path);
}

char *
inventory_sysctl_path(const char *name)
{
	const char	*p, *c;
	char		*path, *q, *rel;
	size_t		 len;

	for (p = name; *p != '\0'; p++) {
		if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '-' ||
		    *p == '.' || *p == '/'))
			return NULL;
	}
	path = xasprintf("/proc/sys/%s", name);
	rel = path + strlen("/proc/sys/");
	if (strchr(name, '/') == NULL) {
		for (q = rel; *q != '\0'; q++) {
			if (*q == '.')
				*q = '/';
		}
	}
	for (c = rel;; c += len + 1) {
		len = strcspn(c, "/");
		if (len == 0 || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.')) {
			free(path);
			return NULL;
		}
		if (c[len] == '\0')
			break;
	}
	return path;
}

/* The names "hugepages-NkB" in ROOT/dir, sorted; NULL-terminated. */
static char **
inventory_hugepage_sizes(const char *root, const char *dir)
{
	struct dirent	 *de;
	DIR		 *d;
	char		 *path = inventory_path(root, dir), **names = NULL;
	size_t		  nr = 0, alloc = 0;

	if ((d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL && nr < INVENTORY_MAX_NODES) {
			if (strncmp(de->d_name, "hugepages-", 10) != 0 ||
			    !isdigit((unsigned char)de->d_name[10]))
				continue;
			ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = xstrdup(de->d_name);
		}
		closedir(d);
	}
	free(path);
	ALLOC_GROW(names, nr + 1, alloc);
	names[nr] = NULL;
	if (nr > 1)
		qsort(names, nr, sizeof *names, inventory_size_cmp);
	return names;
}

static void
inventory_name_list_free(char **names)
{
	size_t	i;

	for (i = 0; names != NULL && names[i] != NULL; i++)
		free(names[i]);
	free(names);
}

/*
 * A pool's persistent pages, what vm.nr_hugepages sets: its nr_hugepages
 * less its surplus_hugepages. The pool's nr_hugepages counts the surplus
 * pages a process holds under vm.nr_overcommit_hugepages while it holds
 * them (usemem -U of another job on the machine), which is no setting.
 */
static void
inventory_hugepage_persistent(struct inventory *inv, const char *root,
    const char *key, const char *pool)
{
	char			*path, *total, *surplus, *v, *end;
	unsigned long long	 t, s;

	path = xasprintf("%s/nr_hugepages", pool);
	total = inventory_read_line(root, path);
	free(path);
	path = xasprintf("%s/surplus_hugepages", pool);
	surplus = inventory_read_line(root, path);
	free(path);
	if (total != NULL && surplus != NULL) {
		t = strtoull(total, &end, 10);
		if (*end == '\0' && (s = strtoull(surplus, &end, 10), *end ==
		    '\0') && s <= t) {
			v = xasprintf("%llu", t - s);
			free(total);
			total = v;
		}
	}
	if (total != NULL)
		inventory_set(inv, key, total);
	free(total);
	free(surplus);
}

/*
 * PREFIXhugepages-NkB.nr_hugepages (the persistent pages) and
 * .nr_overcommit_hugepages for every size of hugetlbfs pool under
 * ROOT/dir (a node has no overcommit file).
 */
static void
inventory_hugepage_pools(struct inventory *inv, const char *root,
    const char *dir, const char *prefix)
{
	char	**sizes, *path, *key;
	size_t	  i;

	sizes = inventory_hugepage_sizes(root, dir);
	for (i = 0; sizes[i] != NULL; i++) {
		path = xasprintf("%s/%s", dir, sizes[i]);
		key = xasprintf("%s%s.nr_hugepages", prefix, sizes[i]);
		inventory_hugepage_persistent(inv, root, key, path);
		free(key);
		free(path);
		path = xasprintf("%s/%s/nr_overcommit_hugepages", dir,
		    sizes[i]);
		key = xasprintf("%s%s.nr_overcommit_hugepages", prefix,
		    sizes[i]);
		inventory_line(inv, root, key, path);
		free(key);
		free(path);
	}
	inventory_name_list_free(sizes);
}

/*
 * Every hugepage setting: THP's (shmem_enabled, khugepaged's defrag and
 * scan limits, each mTHP size's enabled and shmem_enabled), the pools of
 * every size machine-wide (vm.nr_hugepages is a sysctl; the nodes' pools
 * are read with the nodes).
 */
static void
inventory_hugepages(struct inventory *inv, const char *root)
{
	char	**sizes, *path, *key, *v, *p;
	size_t	  i, f;

	for (i = 0; i < sizeof inventory_thp / sizeof inventory_thp[0]; i++) {
		path = xasprintf(INVENTORY_THP "/%s", inventory_thp[i]);
		key = xasprintf("thp_%s", inventory_thp[i]);
		for (p = key; *p != '\0'; p++) {
			if (*p == '/')
				*p = '_';
		}
		if ((v = inventory_bracketed(root, path)) != NULL) {
			inventory_set(inv, key, v);
			free(v);
		}
		free(key);
		free(path);
	}
	sizes = inventory_hugepage_sizes(root, INVENTORY_THP);
	for (i = 0; sizes[i] != NULL; i++) {
		for (f = 0; f < 2; f++) {
			path = xasprintf(INVENTORY_THP "/%s/%s", sizes[i],
			    f == 0 ? "enabled" : "shmem_enabled");
			key = xasprintf("thp_%s.%s", sizes[i],
			    f == 0 ? "enabled" : "shmem_enabled");
			if ((v = inventory_bracketed(root, path)) != NULL) {
				inventory_set(inv, key, v);
				free(v);
			}
			free(key);
			free(path);
		}
	}
	inventory_name_list_free(sizes);
	inventory_hugepage_pools(inv, root, "/sys/kernel/mm/hugepages", "");
}

/* The kernel and host name: uname on this system, files under a root. */
static void
inventory_uname(struct inventory *inv, const char *root)
{
	struct utsname	 u;
	char		*v;

	if (root == NULL) {
		if (uname(&u) == 0) {
			inventory_set(inv, "hostname", u.nodename);
			inventory_set(inv, "kernel", u.release);
		}
		return;
	}
	if ((v = inventory_read_line(root, "/proc/sys/kernel/hostname"))) {
		inventory_set(inv, "hostname", v);
		free(v);
	}
	if ((v = inventory_read_line(root, "/proc/sys/kernel/osrelease"))) {
		inventory_set(inv, "kernel", v);
		free(v);
	}
}

int
inventory_collect(const char *root, struct inventory **out, char **cause)
{
	struct inventory	*inv = NULL;
	struct stat		 st;
	unsigned long long	 kb;
	char			*v;
	size_t			 i;
	int			 r = -1;

	if (root != NULL && (stat(root, &st) == -1 || !S_ISDIR(st.st_mode))) {
		error_set(cause, "root '%s' is not a directory", root);
		goto out;
	}
	inv = xcalloc(1, sizeof *inv);
	inventory_uname(inv, root);
	inventory_cpu(inv, root);
	if ((v = inventory_read(root, "/proc/meminfo")) != NULL &&
	    inventory_memtotal(v, &kb) == 0) {
		free(v);
		v = inventory_memory(kb);
		inventory_set(inv, "memory", v);
	}
	free(v);
	inventory_nodes(inv, root);
	if ((v = inventory_bracketed(root,
	    "/sys/kernel/mm/transparent_hugepage/enabled")) != NULL) {
		inventory_set(inv, "thp_enabled", v);
		free(v);
	}
	if ((v = inventory_bracketed(root,
	    "/sys/kernel/mm/transparent_hugepage/defrag")) != NULL) {
		inventory_set(inv, "thp_defrag", v);
		free(v);
	}
	if ((v = inventory_read_line(root,
	    "/proc/sys/kernel/numa_balancing")) != NULL) {
		inventory_set(inv, "numa_balancing", v);
		free(v);
	}
	inventory_hugepages(inv, root);
	inventory_line(inv, root, "zone_reclaim_mode",
	    "/proc/sys/vm/zone_reclaim_mode");
	inventory_governor(inv, root);
	inventory_line(inv, root, "scaling_driver",
	    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver");
	inventory_line(inv, root, "no_turbo",
	    "/sys/devices/system/cpu/intel_pstate/no_turbo");
	inventory_line(inv, root, "cpufreq_boost",
	    "/sys/devices/system/cpu/cpufreq/boost");
	inventory_line(inv, root, "smt", "/sys/devices/system/cpu/smt/control");
	for (i = 0; i < sizeof inventory_sysctls / sizeof inventory_sysctls[0];
	    i++)
		inventory_sysctl(inv, root, inventory_sysctls[i]);
	inventory_kernel(inv, root);
	if ((v = inventory_read_line(root, "/proc/cmdline")) != NULL) {
		inventory_set(inv, "cmdline", v);
		free(v);
	}
	inventory_set(inv, "agent_version", BISECT_AGENT_VERSION);
	*out = inv;
	inv = NULL;
	r = 0;
out:
	inventory_free(inv);
	return r;
}
