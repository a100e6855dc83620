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

/* Hex digits from p (at most 16, before end): past them, the value in v. */
static const char *
perf_profile_hex(const char *p, const char *end, unsigned long long *v)
{
	const char	*start = p;
	int		 d;

	*v = 0;
	while (p < end && p - start < 16 && isxdigit((unsigned char)*p)) {
		d = isdigit((unsigned char)*p) ? *p - '0' :
		    tolower((unsigned char)*p) - 'a' + 10;
		*v = *v << 4 | (unsigned long long)d;
		p++;
	}
	return p;
}

struct perf_profile_ksym {
	unsigned long long	 addr;
	const char		*name;		/* into the map's text */
	size_t			 len;
};

static int
perf_profile_ksym_cmp(const void *a, const void *b)
{
	const struct perf_profile_ksym	*x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "ffffffff81000000 T _text" lines: the text symbols, sorted. */
static size_t
perf_profile_ksyms(const char *map, size_t len, struct perf_profile_ksym **out,
    unsigned long long *etext)
{
	struct perf_profile_ksym	*k = NULL;
	const char			*p = map, *end = map + len, *nl, *q;
	size_t				 nr = 0, alloc = 0, n;
	unsigned long long		 a;
	const char			*e;

	*etext = ULLONG_MAX;
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (nl - p < 20 || !isxdigit((unsigned char)*p))
			continue;
		e = perf_profile_hex(p, nl, &a);
		if (e >= nl || *e != ' ' || e + 3 >= nl || e[2] != ' ')
			continue;
		q = e + 3;
		n = (size_t)(nl - q);
		if (n == 6 && memcmp(q, "_etext", 6) == 0)
			*etext = a;
		if (strchr("tTwW", e[1]) == NULL || n == 0)
			continue;
		ALLOC_GROW(k, nr + 1, alloc);
		k[nr].addr = a;
		k[nr].name = q;
		k[nr].len = n;
		nr++;
	}
	if (nr > 0)
		qsort(k, nr, sizeof *k, perf_profile_ksym_cmp);
	*out = k;
	return nr;
}

/* The symbol at or below addr, NULL when there is none. */
static const struct perf_profile_ksym *
perf_profile_ksym_find(const struct perf_profile_ksym *k, size_t nr,
    unsigned long long etext, unsigned long long addr)
{
	size_t	lo = 0, hi = nr, mid;

	if (nr == 0 || addr < k[0].addr || addr >= etext)
		return NULL;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (k[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &k[lo];
}

int
perf_profile_symbolize(const char *map, size_t maplen, const char *text,
    size_t len, struct strbuf *out, size_t *named, char **cause)
{
	struct perf_profile_ksym	*k = NULL;
	const struct perf_profile_ksym	*s;
	const char			*p = text, *end = text + len, *nl, *f;
	const char			*fe;
	unsigned long long		 etext, a;
	size_t				 nr, n = 0;
	const char			*e;
	int				 chain;

	*named = 0;
	if ((nr = perf_profile_ksyms(map, maplen, &k, &etext)) == 0) {
		free(k);
		return error_set(cause, "the System.map holds no text symbol");
	}
	strbuf_reset(out);
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		/* a chain line: "COUNT frame;frame;..." */
		for (f = p; f < nl && isdigit((unsigned char)*f); f++)
			;
		chain = f > p && f < nl && *f == ' ';
		if (!chain) {
			strbuf_add(out, p, (size_t)(nl - p));
			strbuf_addch(out, '\n');
			continue;
		}
		strbuf_add(out, p, (size_t)(f + 1 - p));
		for (f++; f < nl; f = fe + 1) {
			if ((fe = memchr(f, ';', (size_t)(nl - f))) == NULL)
				fe = nl;
			s = NULL;
			if (fe - f > 2 && f[0] == '0' && f[1] == 'x') {
				e = perf_profile_hex(f + 2, fe, &a);
				if (e == fe)
					s = perf_profile_ksym_find(k, nr, etext,
					    a);
			}
			if (s != NULL) {
				strbuf_add(out, s->name, s->len);
				n++;
			} else
				strbuf_add(out, f, (size_t)(fe - f));
			if (fe < nl)
				strbuf_addch(out, ';');
		}
		strbuf_addch(out, '\n');
	}
	free(k);
	*named = n;
	return 0;
}
