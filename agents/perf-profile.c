/*
 * The perf-profile metrics (agents/perf-profile.h) from perf report's
 * folded call chains: each chain line is "COUNT root;caller;...;leaf".
 * The chains are summed into a table of symbols (self and children
 * counts) and a tree of paths from the root (calltrace counts); the rows
 * at or above the threshold, largest first, become the run's metrics.
 */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agents/perf-profile.h"
#include "agents/result-index.h"
#include "agents/result.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define PERF_PROFILE_NONE	SIZE_MAX
/* No count is believed past this: the sums cannot overflow. */
#define PERF_PROFILE_MAX_COUNT	1000000000000ULL
/* Frames kept of one chain: deeper ones are the root side, cut. */
#define PERF_PROFILE_MAX_DEPTH	512

struct perf_profile_sym {
	char			*name;
	unsigned long long	 self;
	unsigned long long	 children;
	size_t			 seen;	/* the chain that counted it last */
};

/* A path from the root: the node of its last frame. */
struct perf_profile_node {
	size_t			 sym;
	size_t			 parent;
	size_t			 child;
	size_t			 next;
	unsigned long long	 count;
};

struct perf_profile {
	struct perf_profile_sym		*syms;
	size_t				 nr_syms;
	size_t				 alloc_syms;
	struct result_index		 index;
	struct perf_profile_node	*nodes;
	size_t				 nr_nodes;
	size_t				 alloc_nodes;
	unsigned long long		 total;
	size_t				 chains;
};

struct perf_profile_row {
	size_t			 at;
	unsigned long long	 count;
};

static void
perf_profile_release(struct perf_profile *pp)
{
	size_t	i;

	for (i = 0; i < pp->nr_syms; i++)
		free(pp->syms[i].name);
	free(pp->syms);
	result_index_release(&pp->index);
	free(pp->nodes);
	memset(pp, 0, sizeof *pp);
}

/* What perf prints for a frame it could not name. */
static int
perf_profile_unresolved(const char *f, size_t len)
{
	return len == 0 || (len == 1 && f[0] == '0') ||
	    (len > 2 && f[0] == '0' && f[1] == 'x') ||
	    (len == 9 && memcmp(f, "[unknown]", 9) == 0);
}

static size_t
perf_profile_sym(struct perf_profile *pp, const char *f, size_t len)
{
	char	*name = xstrndup(f, len);
	size_t	 at;

	if ((at = result_index_find(&pp->index, name)) != RESULT_INDEX_NONE) {
		free(name);
		return at;
	}
	ALLOC_GROW(pp->syms, pp->nr_syms + 1, pp->alloc_syms);
	memset(&pp->syms[pp->nr_syms], 0, sizeof pp->syms[pp->nr_syms]);
	pp->syms[pp->nr_syms].name = name;
	pp->syms[pp->nr_syms].seen = PERF_PROFILE_NONE;
	result_index_add(&pp->index, name, pp->nr_syms);
	return pp->nr_syms++;
}

static size_t
perf_profile_child(struct perf_profile *pp, size_t parent, size_t sym)
{
	struct perf_profile_node	*n;
	size_t				 at;

	for (at = pp->nodes[parent].child; at != PERF_PROFILE_NONE;
	    at = pp->nodes[at].next) {
		if (pp->nodes[at].sym == sym)
			return at;
	}
	ALLOC_GROW(pp->nodes, pp->nr_nodes + 1, pp->alloc_nodes);
	n = &pp->nodes[pp->nr_nodes];
	n->sym = sym;
	n->parent = parent;
	n->child = PERF_PROFILE_NONE;
	n->next = pp->nodes[parent].child;
	n->count = 0;
	pp->nodes[parent].child = pp->nr_nodes;
	return pp->nr_nodes++;
}

/* One "COUNT a;b;c" line; 0 when it is not one (headers, entries). */
static int
perf_profile_chain(struct perf_profile *pp, const char *line, size_t len)
{
	const char		*f[PERF_PROFILE_MAX_DEPTH], *p, *end = line + len;
	size_t			 flen[PERF_PROFILE_MAX_DEPTH];
	size_t			 nr = 0, i, first, sym, node;
	unsigned long long	 count = 0;

	for (p = line; p < end && isdigit((unsigned char)*p); p++) {
		count = count * 10 + (unsigned long long)(*p - '0');
		if (count > PERF_PROFILE_MAX_COUNT)
			return 0;
	}
	if (p == line || p >= end || *p != ' ' || count == 0)
		return 0;
	p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (p >= end)
		return 0;
	/* the last PERF_PROFILE_MAX_DEPTH frames: the leaf side */
	while (p <= end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));

		if (semi == NULL)
			semi = end;
		if (nr == PERF_PROFILE_MAX_DEPTH) {
			memmove(f, f + 1, (nr - 1) * sizeof *f);
			memmove(flen, flen + 1, (nr - 1) * sizeof *flen);
			nr--;
		}
		f[nr] = p;
		flen[nr++] = (size_t)(semi - p);
		p = semi + 1;
	}
	if (pp->total + count > PERF_PROFILE_MAX_COUNT)
		return 0;
	pp->total += count;
	pp->chains++;
	/* below the last frame perf could not name: what is trusted */
	for (first = nr; first > 0 &&
	    !perf_profile_unresolved(f[first - 1], flen[first - 1]); first--)
		;
	node = 0;
	for (i = first; i < nr; i++) {
		sym = perf_profile_sym(pp, f[i], flen[i]);
		if (pp->syms[sym].seen != pp->chains) {
			pp->syms[sym].seen = pp->chains;
			pp->syms[sym].children += count;
		}
		if (i + 1 == nr)
			pp->syms[sym].self += count;
		node = perf_profile_child(pp, node, sym);
		pp->nodes[node].count += count;
	}
	return 1;
}

static int
perf_profile_row_cmp(const void *x, const void *y)
{
	const struct perf_profile_row	*a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static void
perf_profile_add(struct result *r, const char *name, double pct)
{
	struct result_metric	*m;

	if (!result_name_valid(name))
		return;
	m = result_metric(r, name);
	m->value += pct;
}

/* The rows of one kind: counts[i] for i < nr, largest first. */
static void
perf_profile_emit(struct result *r, const struct perf_profile *pp,
    const char *kind, struct perf_profile_row *rows, size_t nr)
{
	struct strbuf	 name = STRBUF_INIT;
	const char	*sym;
	size_t		 i, shown = 0, at;
	double		 pct;

	qsort(rows, nr, sizeof *rows, perf_profile_row_cmp);
	for (i = 0; i < nr && shown < PERF_PROFILE_MAX_ROWS; i++) {
		pct = 100.0 * (double)rows[i].count / (double)pp->total;
		if (pct < PERF_PROFILE_MIN_PCT)
			break;
		strbuf_reset(&name);
		strbuf_addf(&name, "perf-profile.%s.cycles-pp", kind);
		if (strcmp(kind, "calltrace") == 0) {
			for (at = rows[i].at; at != 0 &&
			    name.len <= RESULT_MAX_NAME;
			    at = pp->nodes[at].parent) {
				strbuf_addch(&name, '.');
				strbuf_addstr(&name,
				    pp->syms[pp->nodes[at].sym].name);
			}
		} else {
			sym = pp->syms[rows[i].at].name;
			strbuf_addf(&name, ".%s", sym);
		}
		if (!result_name_valid(name.buf))
			continue;
		perf_profile_add(r, name.buf, pct);
		shown++;
	}
	strbuf_release(&name);
}

long
perf_profile_parse(struct result *r, const char *text, size_t len,
    char **cause)
{
	struct perf_profile	 pp;
	struct perf_profile_row	*rows = NULL;
	const char		*p = text, *end = text + len, *nl;
	size_t			 i, nr;
	long			 ret = -1;

	memset(&pp, 0, sizeof pp);
	pp.nodes = xcalloc(1, sizeof *pp.nodes);
	pp.alloc_nodes = 1;
	pp.nr_nodes = 1;
	pp.nodes[0].sym = PERF_PROFILE_NONE;
	pp.nodes[0].parent = PERF_PROFILE_NONE;
	pp.nodes[0].child = PERF_PROFILE_NONE;
	pp.nodes[0].next = PERF_PROFILE_NONE;
	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		perf_profile_chain(&pp, p, (size_t)(nl - p));
		p = nl + 1;
	}
	if (pp.total == 0) {
		error_set(cause, "perf report listed no call chain");
		goto out;
	}
	rows = xcalloc(pp.nr_syms > pp.nr_nodes ? pp.nr_syms : pp.nr_nodes,
	    sizeof *rows);
	for (i = 0, nr = 0; i < pp.nr_syms; i++) {
		if (pp.syms[i].self == 0)
			continue;
		rows[nr].at = i;
		rows[nr++].count = pp.syms[i].self;
	}
	perf_profile_emit(r, &pp, "self", rows, nr);
	for (i = 0, nr = 0; i < pp.nr_syms; i++) {
		rows[nr].at = i;
		rows[nr++].count = pp.syms[i].children;
	}
	perf_profile_emit(r, &pp, "children", rows, nr);
	for (i = 1, nr = 0; i < pp.nr_nodes; i++) {
		rows[nr].at = i;
		rows[nr++].count = pp.nodes[i].count;
	}
	perf_profile_emit(r, &pp, "calltrace", rows, nr);
	ret = pp.total > (unsigned long long)LONG_MAX ? LONG_MAX :
	    (long)pp.total;
out:
	free(rows);
	perf_profile_release(&pp);
	return ret;
}
