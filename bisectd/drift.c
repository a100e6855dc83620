/*
 * The drift check (bisectd/drift.h): every environment key of every run
 * being compared is classified, normalized and compared; a key with more
 * than one value among the runs is a difference, described with where
 * each value was seen. Used by `bisectctl compare` (refuse, or flag with
 * --allow-drift), by reports (flag at the top), and by the bisection
 * loop before it asks for another run.
 */
#include <jansson.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/drift.h"
#include "util/error.h"
#include "util/xalloc.h"

/* Keys whose difference can move a benchmark by itself. */
static const char *const drift_matters[] = {
	"model", "nr_cpu", "nr_node", "memory", "smt",
	"thp_enabled", "thp_defrag", "numa_balancing", "zone_reclaim_mode",
	"governor", "scaling_driver", "no_turbo", "cpufreq_boost",
	"cmdline", "kernel", "kernel_build", "kconfig", "compiler",
	NULL
};

/*
 * Quantities that move by themselves between boots and are compared
 * within a relative tolerance: memory moves with the kernel's own
 * reservations (a new kernel's memmap, crashkernel, firmware), and the
 * kernel's default min_free_kbytes is sqrt(16 * lowmem) of it. A missing
 * DIMM or a mem= is far more than 1%. Every other key, counts included
 * (nr_cpu, nr_hugepages), compares exactly.
 */
#define DRIFT_TOLERANCE_PCT	1.0

/* The run's bookkeeping, and what the artifacts say (per commit anyway). */
static const char *const drift_ignored[] = {
	"testcase", "monitors", "monitors_skipped", "monitors_unavailable",
	"knobs", "kconfig_source", "kernel_built", "kconfig_built",
	"compiler_built", "kernel_under_test",
	NULL
};

/* What belongs to the commit when the run's kernel was built from it. */
static const char *const drift_per_commit[] = {
	"kernel", "kernel_build", "kconfig", "compiler", NULL
};

static int
drift_in(const char *const *list, const char *key)
{
	size_t	i;

	for (i = 0; list[i] != NULL; i++) {
		if (strcmp(list[i], key) == 0)
			return 1;
	}
	return 0;
}

/* "node12.cpulist" and the like. */
static int
drift_node_key(const char *key)
{
	const char	*p;

	if (strncmp(key, "node", 4) != 0 || !isdigit((unsigned char)key[4]))
		return 0;
	for (p = key + 4; isdigit((unsigned char)*p); p++)
		;
	return strcmp(p, ".cpulist") == 0 || strcmp(p, ".memory") == 0 ||
	    strcmp(p, ".distance") == 0 ||
	    strncmp(p, ".hugepages-", 11) == 0;
}

/* The hugepage settings: THP's and khugepaged's, hugetlbfs pools. */
static int
drift_hugepage_key(const char *key)
{
	return strncmp(key, "thp_", 4) == 0 ||
	    strncmp(key, "hugepages-", 10) == 0;
}

static int
drift_memory_key(const char *key)
{
	size_t	len = strlen(key);

	return strcmp(key, "memory") == 0 || (drift_node_key(key) &&
	    len > 7 && strcmp(key + len - 7, ".memory") == 0);
}

enum drift_class
drift_key_class(const char *key)
{
	if (drift_in(drift_ignored, key))
		return DRIFT_IGNORED;
	if (drift_in(drift_matters, key) || strncmp(key, "sysctl.", 7) == 0 ||
	    drift_node_key(key) || drift_hugepage_key(key))
		return DRIFT_MATTERS;
	return DRIFT_NOTED;
}

int
drift_key_per_commit(const char *key)
{
	return drift_in(drift_per_commit, key);
}

char *
drift_value(const char *key, const char *value)
{
	struct strbuf	 sb = STRBUF_INIT;
	const char	*p, *w;
	size_t		 len;

	if (drift_memory_key(key))
		return xstrndup(value, strcspn(value, " "));
	if (strcmp(key, "cmdline") != 0)
		return xstrdup(value);
	for (p = value; *p != '\0';) {
		while (*p == ' ')
			p++;
		w = p;
		len = strcspn(p, " ");
		p += len;
		if (len == 0 || strncmp(w, "BOOT_IMAGE=", 11) == 0 ||
		    strncmp(w, "initrd=", 7) == 0)
			continue;
		strbuf_addf(&sb, "%s%.*s", sb.len ? " " : "", (int)len, w);
	}
	return strbuf_detach(&sb, NULL);
}

/* The exact figure of a quantity: memory's byte count, else the number. */
static int
drift_number(const char *key, const char *value, double *out)
{
	const char	*p = value;
	char		*end;

	if (drift_memory_key(key)) {
		p = strchr(value, ' ');
		if (p == NULL)
			return -1;
	}
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	*out = strtod(p, &end);
	while (*end == ' ')
		end++;
	return *end == '\0' ? 0 : -1;
}

static int
drift_tolerant(const char *key)
{
	return drift_memory_key(key) ||
	    strcmp(key, "sysctl.vm.min_free_kbytes") == 0;
}

int
drift_same(const char *key, const char *a, const char *b)
{
	char	*na, *nb;
	double	 x, y, big;
	int	 same;

	if (a == NULL || b == NULL)
		return a == b;
	if (drift_tolerant(key) && drift_number(key, a, &x) == 0 &&
	    drift_number(key, b, &y) == 0) {
		big = x > y ? x : y;
		return big == 0 || (x > y ? x - y : y - x) <=
		    big * DRIFT_TOLERANCE_PCT / 100;
	}
	na = drift_value(key, a);
	nb = drift_value(key, b);
	same = strcmp(na, nb) == 0;
	free(na);
	free(nb);
	return same;
}

/* How a value reads in a difference: memory to 0.01 GiB (or 1 MiB). */
static char *
drift_shown(const char *key, const char *value)
{
	double	x;

	if (!drift_memory_key(key) || drift_number(key, value, &x) != 0)
		return drift_value(key, value);
	if (x >= 1024.0 * 1024 * 1024)
		return xasprintf("%.2fG", x / (1024.0 * 1024 * 1024));
	return xasprintf("%.0fM", x / (1024.0 * 1024));
}

static const char *
drift_get(const struct drift_run *r, const char *key)
{
	size_t	i;

	for (i = 0; i < r->nr; i++) {
		if (strcmp(r->keys[i], key) == 0)
			return r->values[i];
	}
	return NULL;
}

static int
drift_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every key of every run, sorted, once. */
static char **
drift_keys(const struct drift_run *runs, size_t nr, size_t *nr_keys)
{
	char	**keys = NULL;
	size_t	  n = 0, alloc = 0, i, k, out;

	for (i = 0; i < nr; i++) {
		for (k = 0; k < runs[i].nr; k++) {
			ALLOC_GROW(keys, n, alloc);
			keys[n++] = runs[i].keys[k];
		}
	}
	if (n > 0)
		qsort(keys, n, sizeof *keys, drift_strcmp);
	for (i = out = 0; i < n; i++) {
		if (out == 0 || strcmp(keys[out - 1], keys[i]) != 0)
			keys[out++] = keys[i];
	}
	*nr_keys = out;
	return keys;
}

static void
drift_where(struct strbuf *sb, const char *label, size_t runs)
{
	strbuf_addf(sb, "%s (%zu run%s)", label, runs, runs == 1 ? "" : "s");
}

/*
 * The values of key over the runs selected (commit NULL: all), each with
 * the labels of the runs that had it. A run's value joins the first
 * distinct value it is the same as (drift_same: within the key's
 * tolerance). Returns how many distinct values.
 */
static size_t
drift_values(const struct drift_run *runs, size_t nr, const char *key,
    const char *commit, struct strbuf *text)
{
	const char	**raw = xcalloc(nr + 1, sizeof *raw);
	size_t		 *cls = xcalloc(nr + 1, sizeof *cls);
	char		 *shown;
	size_t		  i, j, k, n = 0, count;
	int		  seen;

	for (i = 0; i < nr; i++) {
		cls[i] = SIZE_MAX;
		if (commit != NULL && strcmp(runs[i].commit, commit) != 0)
			continue;
		raw[i] = drift_get(&runs[i], key);
		for (j = 0; j < i; j++) {
			if (cls[j] == j && drift_same(key, raw[j], raw[i]))
				break;
		}
		cls[i] = j < i ? j : i;
	}
	strbuf_reset(text);
	for (i = 0; i < nr; i++) {
		if (cls[i] != i)
			continue;
		n++;
		shown = raw[i] != NULL ? drift_shown(key, raw[i]) :
		    xstrdup("(unset)");
		strbuf_addf(text, "%s%s at ", n > 1 ? " | " : "", shown);
		free(shown);
		for (j = i, seen = 0; j < nr; j++) {
			if (cls[j] != i)
				continue;
			for (k = i; k < j; k++) {
				if (cls[k] == i &&
				    strcmp(runs[k].label, runs[j].label) == 0)
					break;
			}
			if (k < j)
				continue;
			for (k = j, count = 0; k < nr; k++)
				count += cls[k] == i &&
				    strcmp(runs[k].label, runs[j].label) == 0;
			if (seen++)
				strbuf_addstr(text, ", ");
			drift_where(text, runs[j].label, count);
		}
	}
	free(raw);
	free(cls);
	return n;
}

/*
 * How a tolerant quantity that took several values moved (issue 11, item
 * 7). The runs are grouped, by side (their label) or by boot (agent and
 * boot id; a run whose boot is not recorded is a group of its own); each
 * group's values make a range. Returns 1 when the ranges of all groups
 * overlap, widened by the tolerance, and sets *spread when a group's own
 * range is wider than the tolerance.
 *
 * By boot: memory that changes with no reboot is the host hot-plugging or
 * ballooning a VM's memory, not a setting of the machine; a boot that came
 * up with other memory (a DIMM, mem=) is a range apart. By side: a VM that
 * reads 8.34G, then 8.71G, then 8.46G at good and at bad alike moved with
 * time, noise both sides share; memory that parts the sides (5.5G at good,
 * 62G at bad) does not overlap.
 */
static int
drift_ranges_overlap(const struct drift_run *runs, size_t nr,
    const char *key, int by_boot, int *spread)
{
	const char	**group = xcalloc(nr + 1, sizeof *group);
	double		 *lo = xcalloc(nr + 1, sizeof *lo);
	double		 *hi = xcalloc(nr + 1, sizeof *hi);
	const char	 *v, *g;
	double		  x, slack = 1 + DRIFT_TOLERANCE_PCT / 100;
	size_t		  n = 0, i, j;
	int		  overlap = 0;

	*spread = 0;
	for (i = 0; i < nr; i++) {
		if ((v = drift_get(&runs[i], key)) == NULL ||
		    drift_number(key, v, &x) != 0)
			goto out;
		g = by_boot ? runs[i].boot : runs[i].label;
		for (j = 0; g != NULL && j < n; j++) {
			if (group[j] != NULL && strcmp(group[j], g) == 0)
				break;
		}
		if (g == NULL || j == n) {
			group[n] = g;
			lo[n] = hi[n] = x;
			n++;
			continue;
		}
		lo[j] = x < lo[j] ? x : lo[j];
		hi[j] = x > hi[j] ? x : hi[j];
	}
	for (i = 0; i < n; i++) {
		*spread |= hi[i] > lo[i] * slack;
		for (j = i + 1; j < n; j++) {
			if (hi[i] * slack < lo[j] || hi[j] * slack < lo[i])
				goto out;
		}
	}
	overlap = 1;
out:
	free(group);
	free(lo);
	free(hi);
	return overlap;
}

/*
 * Whether a tolerant quantity's change is noted only, with why added to
 * text: it changed within boots whose ranges agree, or it moved on every
 * side alike.
 */
static int
drift_moved_noted(const struct drift_run *runs, size_t nr, const char *key,
    struct strbuf *text)
{
	int	spread;

	if (drift_ranges_overlap(runs, nr, key, 1, &spread) && spread) {
		strbuf_addstr(text, "; it changed within one boot (memory "
		    "hot-plugged or ballooned by the host)");
		return 1;
	}
	if (drift_ranges_overlap(runs, nr, key, 0, &spread)) {
		strbuf_addstr(text, "; it moved while the runs went on, on "
		    "every side alike");
		return 1;
	}
	return 0;
}

static void
drift_add(struct drift *d, const char *key, int matters, const char *text)
{
	d->items = xreallocarray(d->items, d->nr + 1, sizeof *d->items);
	d->items[d->nr].key = xstrdup(key);
	d->items[d->nr].matters = matters;
	d->items[d->nr].text = xstrdup(text);
	d->nr++;
	d->nr_matter += matters != 0;
}

void
drift_compare(struct drift *d, const struct drift_run *runs, size_t nr)
{
	struct strbuf		 text = STRBUF_INIT;
	char			**keys;
	const char		 *v;
	enum drift_class	  class;
	size_t			  nr_keys, i, k;
	int			  built = nr > 0, matters;

	memset(d, 0, sizeof *d);
	for (i = 0; i < nr; i++) {
		v = drift_get(&runs[i], "kernel_under_test");
		built = built && v != NULL && strcmp(v, "1") == 0;
	}
	keys = drift_keys(runs, nr, &nr_keys);
	for (k = 0; k < nr_keys; k++) {
		if ((class = drift_key_class(keys[k])) == DRIFT_IGNORED)
			continue;
		if (!built || !drift_key_per_commit(keys[k])) {
			if (drift_values(runs, nr, keys[k], NULL, &text) <= 1)
				continue;
			matters = class == DRIFT_MATTERS;
			if (matters && drift_tolerant(keys[k]))
				matters = !drift_moved_noted(runs, nr, keys[k],
				    &text);
			drift_add(d, keys[k], matters, text.buf);
			continue;
		}
		for (i = 0; i < nr; i++) {
			if (drift_values(runs, nr, keys[k], runs[i].commit,
			    &text) > 1) {
				drift_add(d, keys[k], class == DRIFT_MATTERS,
				    text.buf);
				break;
			}
		}
	}
	free(keys);
	strbuf_release(&text);
}

void
drift_release(struct drift *d)
{
	size_t	i;

	for (i = 0; i < d->nr; i++) {
		free(d->items[i].key);
		free(d->items[i].text);
	}
	free(d->items);
	memset(d, 0, sizeof *d);
}

void
drift_format(struct strbuf *sb, const struct drift *d, const char *indent)
{
	size_t	i;
	int	pass;

	for (pass = 1; pass >= 0; pass--) {
		for (i = 0; i < d->nr; i++) {
			if (d->items[i].matters != pass)
				continue;
			strbuf_addf(sb, "%s%s: %s%s\n", indent, d->items[i].key,
			    d->items[i].text, pass ? "" : " (noted only)");
		}
	}
}

/* A label that is a whole object name reads better abbreviated. */
static int
drift_full_oid(const char *s)
{
	return strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

/* The boot a run ran in, "AGENT BOOT_ID", or NULL when not recorded. */
static char *
drift_boot(const struct store_run_env *env)
{
	if (env->boot_id == NULL || env->boot_id[0] == '\0')
		return NULL;
	return xasprintf("%s %s", env->agent != NULL ? env->agent : "",
	    env->boot_id);
}

int
drift_check(struct store *st, int64_t job, const char *repo,
    const char *const *oids, const char *const *labels, size_t nr,
    struct drift *out, char **cause)
{
	struct store_run_env	**envs = xcalloc(nr + 1, sizeof *envs);
	size_t			 *nr_envs = xcalloc(nr + 1, sizeof *nr_envs);
	struct drift_run	 *runs = NULL;
	char			**names = xcalloc(nr + 1, sizeof *names);
	char			**boots = NULL;
	size_t			  n = 0, alloc = 0, balloc = 0, i, k;
	int			  r = -1;

	memset(out, 0, sizeof *out);
	for (i = 0; i < nr; i++) {
		if (labels != NULL && labels[i] != NULL &&
		    !drift_full_oid(labels[i]))
			names[i] = xstrdup(labels[i]);
		else
			names[i] = xasprintf("%.10s", oids[i]);
		if (store_env_runs(st, job, repo, oids[i], &envs[i],
		    &nr_envs[i], cause) != 0)
			goto out;
		for (k = 0; k < nr_envs[i]; k++) {
			ALLOC_GROW(runs, n, alloc);
			ALLOC_GROW(boots, n, balloc);
			boots[n] = drift_boot(&envs[i][k]);
			runs[n].boot = boots[n];
			runs[n].label = names[i];
			runs[n].commit = oids[i];
			runs[n].keys = envs[i][k].keys;
			runs[n].values = envs[i][k].values;
			runs[n].nr = envs[i][k].nr;
			n++;
		}
	}
	drift_compare(out, runs, n);
	r = 0;
out:
	for (i = 0; i < nr; i++) {
		store_run_env_list_free(envs[i], nr_envs[i]);
		free(names[i]);
	}
	for (i = 0; i < n; i++)
		free(boots[i]);
	free(boots);
	free(envs);
	free(nr_envs);
	free(names);
	free(runs);
	return r;
}

static int
drift_allowed(struct context *ctx, int64_t id)
{
	struct store_request	 rq;
	json_t			*args;
	int			 allowed = 0;

	memset(&rq, 0, sizeof rq);
	if (store_request_get(ctx->store, id, &rq, NULL) != 0)
		return 0;
	if (rq.args != NULL && (args = json_loads(rq.args, 0, NULL)) != NULL) {
		allowed = json_is_true(json_object_get(args, "allow_drift"));
		json_decref(args);
	}
	store_request_release(&rq);
	return allowed;
}

int
drift_bisection_check(struct context *ctx, const struct store_bisection *b,
    const char (*oids)[REPO_OID_HEX + 1], const size_t *idx, size_t nr_idx,
    char **why, char **cause)
{
	const char	**list = xcalloc(nr_idx + 2, sizeof *list);
	char		**labels = xcalloc(nr_idx + 2, sizeof *labels);
	struct strbuf	  sb = STRBUF_INIT;
	struct drift	  d;
	size_t		  n = 0, i;
	int		  r = -1;

	memset(&d, 0, sizeof d);
	list[n] = b->good;
	labels[n++] = xasprintf("good %.10s", b->good);
	list[n] = b->bad;
	labels[n++] = xasprintf("bad %.10s", b->bad);
	for (i = 0; i < nr_idx; i++) {
		if (strcmp(oids[idx[i]], b->good) == 0 ||
		    strcmp(oids[idx[i]], b->bad) == 0)
			continue;
		list[n] = oids[idx[i]];
		labels[n++] = xasprintf("%.10s", oids[idx[i]]);
	}
	if (drift_check(ctx->store, b->job, b->repo, list,
	    (const char *const *)labels, n, &d, cause) != 0)
		goto out;
	r = 0;
	if (d.nr_matter == 0 || drift_allowed(ctx, b->id))
		goto out;
	strbuf_addstr(&sb, "the bisection's runs did not run in the same "
	    "environment, so their figures cannot be compared:\n");
	drift_format(&sb, &d, "    ");
	strbuf_addstr(&sb, "make the machine's settings agree (a job can set "
	    "thp_enabled, thp_defrag, numa_balancing and sysctl: itself), or "
	    "ask for the bisection with drift allowed");
	free(*why);
	*why = strbuf_detach(&sb, NULL);
	r = 1;
out:
	for (i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(list);
	drift_release(&d);
	strbuf_release(&sb);
	return r;
}
