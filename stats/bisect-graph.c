/*
 * The DAG of a bisection range and sums over ancestors: single-parent
 * chains collapsed into nodes, their ancestor sets propagated 64 at a time
 * as bit masks in topological order, without git's per-merge walks
 * (docs/design.md, "File notes").
 */
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-graph.h"
#include "util/error.h"
#include "util/xalloc.h"

#define NONE ((size_t)-1)

static void
bisect_graph_zero(struct bisect_graph *g)
{
	memset(g, 0, sizeof *g);
}

void
bisect_graph_release(struct bisect_graph *g)
{
	free(g->index);
	free(g->member);
	free(g->parent_off);
	free(g->parents);
	free(g->order);
	free(g->chain);
	free(g->chain_pos);
	free(g->chain_first);
	free(g->chain_members);
	free(g->chain_parent_off);
	free(g->chain_parents);
	free(g->mask);
	free(g->sum);
	free(g->stamp);
	free(g->queue);
	bisect_graph_zero(g);
}

/* Kahn's algorithm, lowest member first among the ready ones. */
static int
bisect_graph_sort(struct bisect_graph *g, const size_t *child_off,
    const size_t *children, char **cause)
{
	size_t	*left, head = 0, tail = 0, m, k, c;
	int	 r = -1;

	left = xcalloc(g->nr ? g->nr : 1, sizeof *left);
	for (m = 0; m < g->nr; m++) {
		left[m] = g->parent_off[m + 1] - g->parent_off[m];
		if (left[m] == 0)
			g->order[tail++] = m;
	}
	while (head < tail) {
		m = g->order[head++];
		for (k = child_off[m]; k < child_off[m + 1]; k++) {
			c = children[k];
			if (--left[c] == 0)
				g->order[tail++] = c;
		}
	}
	if (tail != g->nr) {
		error_set(cause, "the commit graph has a cycle");
		goto out;
	}
	r = 0;
out:
	free(left);
	return r;
}

static void
bisect_graph_chains(struct bisect_graph *g, const size_t *nr_children)
{
	size_t	 i, m, p, c, k, n, *count, *fill;

	for (i = 0; i < g->nr; i++) {
		m = g->order[i];
		p = NONE;
		if (g->parent_off[m + 1] - g->parent_off[m] == 1)
			p = g->parents[g->parent_off[m]];
		if (p != NONE && nr_children[p] == 1) {
			g->chain[m] = g->chain[p];
			g->chain_pos[m] = g->chain_pos[p] + 1;
		} else {
			g->chain[m] = g->nr_chains++;
			g->chain_pos[m] = 0;
		}
	}

	/* members of each chain, in order */
	g->chain_first = xcalloc(g->nr_chains + 1, sizeof *g->chain_first);
	for (m = 0; m < g->nr; m++)
		g->chain_first[g->chain[m] + 1]++;
	for (c = 0; c < g->nr_chains; c++)
		g->chain_first[c + 1] += g->chain_first[c];
	g->chain_members = xcalloc(g->nr ? g->nr : 1,
	    sizeof *g->chain_members);
	for (m = 0; m < g->nr; m++)
		g->chain_members[g->chain_first[g->chain[m]] +
		    g->chain_pos[m]] = m;

	/* parent chains of each chain's first commit */
	count = xcalloc(g->nr_chains + 1, sizeof *count);
	for (c = 0; c < g->nr_chains; c++) {
		m = g->chain_members[g->chain_first[c]];
		count[c + 1] = g->parent_off[m + 1] - g->parent_off[m];
	}
	for (c = 0; c < g->nr_chains; c++)
		count[c + 1] += count[c];
	n = count[g->nr_chains];
	g->chain_parent_off = count;
	g->chain_parents = xcalloc(n ? n : 1, sizeof *g->chain_parents);
	fill = g->chain_parents;
	for (c = 0; c < g->nr_chains; c++) {
		m = g->chain_members[g->chain_first[c]];
		for (k = g->parent_off[m]; k < g->parent_off[m + 1]; k++)
			*fill++ = g->chain[g->parents[k]];
	}
}

int
bisect_graph_init(struct bisect_graph *g, const struct bisect_commit *commits,
    size_t nr, const unsigned char *in, char **cause)
{
	size_t	 i, j, m, p, k, n_edges = 0, *child_off = NULL;
	size_t	*children = NULL, *nr_children = NULL, *fill = NULL;
	int	 r = -1;

	bisect_graph_zero(g);
	g->member = xcalloc(nr ? nr : 1, sizeof *g->member);
	g->index = xcalloc(nr ? nr : 1, sizeof *g->index);
	for (i = 0; i < nr; i++) {
		g->member[i] = NONE;
		if (in == NULL || in[i]) {
			g->member[i] = g->nr;
			g->index[g->nr++] = i;
		}
	}
	for (m = 0; m < g->nr; m++) {
		i = g->index[m];
		if (commits[i].nr_parents != 0 && commits[i].parents == NULL) {
			error_set(cause, "commit %zu has no parent array", i);
			goto out;
		}
		for (j = 0; j < commits[i].nr_parents; j++) {
			p = commits[i].parents[j];
			if (p >= nr) {
				error_set(cause, "commit %zu has parent %zu out "
				    "of range", i, p);
				goto out;
			}
			if (g->member[p] != NONE)
				n_edges++;
		}
	}

	g->parent_off = xcalloc(g->nr + 1, sizeof *g->parent_off);
	g->parents = xcalloc(n_edges ? n_edges : 1, sizeof *g->parents);
	nr_children = xcalloc(g->nr ? g->nr : 1, sizeof *nr_children);
	n_edges = 0;
	for (m = 0; m < g->nr; m++) {
		i = g->index[m];
		g->parent_off[m] = n_edges;
		for (j = 0; j < commits[i].nr_parents; j++) {
			p = g->member[commits[i].parents[j]];
			if (p == NONE)
				continue;
			/* a parent named twice is one edge */
			for (k = g->parent_off[m]; k < n_edges; k++)
				if (g->parents[k] == p)
					break;
			if (k < n_edges)
				continue;
			g->parents[n_edges++] = p;
			nr_children[p]++;
		}
	}
	g->parent_off[g->nr] = n_edges;

	child_off = xcalloc(g->nr + 1, sizeof *child_off);
	for (m = 0; m < g->nr; m++)
		child_off[m + 1] = child_off[m] + nr_children[m];
	children = xcalloc(n_edges ? n_edges : 1, sizeof *children);
	fill = xcalloc(g->nr ? g->nr : 1, sizeof *fill);
	for (m = 0; m < g->nr; m++)
		for (k = g->parent_off[m]; k < g->parent_off[m + 1]; k++) {
			p = g->parents[k];
			children[child_off[p] + fill[p]++] = m;
		}

	g->order = xcalloc(g->nr ? g->nr : 1, sizeof *g->order);
	if (bisect_graph_sort(g, child_off, children, cause) != 0)
		goto out;
	g->chain = xcalloc(g->nr ? g->nr : 1, sizeof *g->chain);
	g->chain_pos = xcalloc(g->nr ? g->nr : 1, sizeof *g->chain_pos);
	bisect_graph_chains(g, nr_children);

	g->mask = xcalloc(g->nr_chains ? g->nr_chains : 1, sizeof *g->mask);
	g->sum = xcalloc(g->nr_chains ? g->nr_chains : 1, sizeof *g->sum);
	g->stamp = xcalloc(g->nr ? g->nr : 1, sizeof *g->stamp);
	g->queue = xcalloc(g->nr ? g->nr : 1, sizeof *g->queue);
	r = 0;
out:
	free(child_off);
	free(children);
	free(nr_children);
	free(fill);
	if (r != 0)
		bisect_graph_release(g);
	return r;
}

void
bisect_graph_sums(struct bisect_graph *g, const double *w, double *out)
{
	double		 table[8][256], *total = g->sum, acc;
	uint64_t	*mask = g->mask, bits;
	size_t		 K = g->nr_chains, b, c, k, j, v, end, m, off;
	/* each chain's own total */
	for (c = 0; c < K; c++) {
		acc = 0;
		for (k = g->chain_first[c]; k < g->chain_first[c + 1]; k++)
			acc += w[g->chain_members[k]];
		total[c] = acc;
	}

	/* out[] of each chain's first member: its strict ancestor chains */
	for (m = 0; m < g->nr; m++)
		out[m] = 0;
	for (b = 0; b < K; b += 64) {
		end = b + 64 < K ? b + 64 : K;
		for (j = 0; j < 8; j++) {
			table[j][0] = 0;
			for (v = 1; v < 256; v++) {
				size_t low = (size_t)__builtin_ctz((unsigned)v);
				size_t src = b + j * 8 + low;

				table[j][v] = table[j][v & (v - 1)] +
				    (src < end ? total[src] : 0);
			}
		}
		for (c = b; c < K; c++) {
			bits = c < end ? (uint64_t)1 << (c - b) : 0;
			for (k = g->chain_parent_off[c];
			    k < g->chain_parent_off[c + 1]; k++)
				if (g->chain_parents[k] >= b)
					bits |= mask[g->chain_parents[k]];
			mask[c] = bits;
			if (c < end)
				bits &= ~((uint64_t)1 << (c - b));
			if (bits == 0)
				continue;
			acc = 0;
			for (j = 0; j < 8; j++)
				acc += table[j][(bits >> (8 * j)) & 0xff];
			out[g->chain_members[g->chain_first[c]]] += acc;
		}
	}

	/* along each chain, a running sum */
	for (c = 0; c < K; c++) {
		off = g->chain_first[c];
		acc = out[g->chain_members[off]];
		for (k = off; k < g->chain_first[c + 1]; k++) {
			m = g->chain_members[k];
			acc += w[m];
			out[m] = acc;
		}
	}
}

void
bisect_graph_ancestors(struct bisect_graph *g, size_t m,
    void (*fn)(size_t, void *), void *payload)
{
	size_t	head = 0, tail = 0, x, k, p;

	if (++g->stamp_now == 0) {
		memset(g->stamp, 0, g->nr * sizeof *g->stamp);
		g->stamp_now = 1;
	}
	g->stamp[m] = g->stamp_now;
	g->queue[tail++] = m;
	while (head < tail) {
		x = g->queue[head++];
		fn(x, payload);
		for (k = g->parent_off[x]; k < g->parent_off[x + 1]; k++) {
			p = g->parents[k];
			if (g->stamp[p] == g->stamp_now)
				continue;
			g->stamp[p] = g->stamp_now;
			g->queue[tail++] = p;
		}
	}
}
