/*
 * One blocking factor of stats/bisect-block.c (the boots, or the time
 * windows): which of its levels can be fitted, their offsets by least
 * squares beside free commit levels, and an F test against the residual
 * that says whether they come out of the samples (docs/design.md, "File
 * notes").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include "stats/bisect-block-factor.h"
#include "util/xalloc.h"

static size_t
bisect_block_factor_root(size_t *up, size_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/*
 * Which levels of a factor can be fitted, as for machines: those sharing
 * enough commits with the other fitted ones (pruned until none falls
 * out), then only the largest group linked by shared commits. cnt is
 * rows x levels. Returns the number fitted.
 */
size_t
bisect_block_factor_select(unsigned char *fitted, const size_t *cnt,
    size_t rows, size_t m)
{
	size_t	*up, *size, *nsamp, r, j, k, shared, best = 0, nr = 0, first;
	int	 changed = 1, other;

	if (m == 0)
		return 0;
	up = xcalloc(m, sizeof *up);
	size = xcalloc(m, sizeof *size);
	nsamp = xcalloc(m, sizeof *nsamp);
	for (j = 0; j < m; j++) {
		fitted[j] = 1;
		for (r = 0; r < rows; r++)
			nsamp[j] += cnt[r * m + j];
	}
	while (changed) {
		changed = 0;
		for (j = 0; j < m; j++) {
			if (!fitted[j])
				continue;
			shared = 0;
			for (r = 0; r < rows; r++) {
				if (cnt[r * m + j] == 0)
					continue;
				other = 0;
				for (k = 0; k < m && !other; k++)
					other = k != j && fitted[k] &&
					    cnt[r * m + k] > 0;
				shared += other;
			}
			if (shared < BISECT_BLOCK_MIN_COMMITS) {
				fitted[j] = 0;
				changed = 1;
			}
		}
	}
	for (j = 0; j < m; j++)
		up[j] = j;
	for (r = 0; r < rows; r++) {
		first = BISECT_BLOCK_NONE;
		for (j = 0; j < m; j++) {
			if (cnt[r * m + j] == 0 || !fitted[j])
				continue;
			if (first == BISECT_BLOCK_NONE)
				first = j;
			else
				up[bisect_block_factor_root(up, j)] =
				    bisect_block_factor_root(up, first);
		}
	}
	for (j = 0; j < m; j++)
		if (fitted[j])
			size[bisect_block_factor_root(up, j)] += nsamp[j];
	for (j = 0; j < m; j++)
		if (size[bisect_block_factor_root(up, j)] >
		    size[bisect_block_factor_root(up, best)])
			best = j;
	best = bisect_block_factor_root(up, best);
	for (j = 0; j < m; j++) {
		if (fitted[j] && bisect_block_factor_root(up, j) != best)
			fitted[j] = 0;
		nr += fitted[j];
	}
	if (nr < 2) {
		memset(fitted, 0, m);
		nr = 0;
	}
	free(up);
	free(size);
	free(nsamp);
	return nr;
}

/*
 * The reduced normal equations C o = q of factor f beside the free
 * commit levels (see bisect_block_factor_ls), over the L fitted levels
 * map[] numbers; rss0 gets the sum of squares about the commits' means.
 * Returns 1 when every sample of the fitted commits lies in a fitted
 * level (C 1 = 0).
 */
static int
bisect_block_factor_normal(const struct bisect_block_data *d, size_t f,
    const size_t *map, size_t L, double *C, double *q, double *rss0)
{
	double	*rs, *rn, *N, x, sum, ss = 0;
	size_t	 i, j, k, r;
	int	 deficient = 1;

	rs = xcalloc(d->nr_rows + 1, sizeof *rs);
	rn = xcalloc(d->nr_rows + 1, sizeof *rn);
	N = xcalloc(L + 1, sizeof *N);
	for (i = 0; i < d->n; i++) {
		rs[d->com[i]] += d->y[i];
		rn[d->com[i]]++;
	}
	for (i = 0; i < d->n; i++) {
		x = d->y[i] - rs[d->com[i]] / rn[d->com[i]];
		ss += x * x;
		if (d->lvl[f][i] == BISECT_BLOCK_NONE ||
		    (k = map[d->lvl[f][i]]) == BISECT_BLOCK_NONE)
			continue;
		C[k * L + k]++;
		q[k] += d->y[i];
	}
	for (r = 0; r < d->nr_rows; r++) {
		memset(N, 0, L * sizeof *N);
		sum = 0;
		for (i = d->row_start[r]; i < d->row_start[r + 1]; i++)
			if (d->lvl[f][i] != BISECT_BLOCK_NONE &&
			    (k = map[d->lvl[f][i]]) != BISECT_BLOCK_NONE) {
				N[k]++;
				sum++;
			}
		if (sum == 0)
			continue;
		if (sum < rn[r])
			deficient = 0;
		for (j = 0; j < L; j++) {
			if (N[j] == 0)
				continue;
			q[j] -= N[j] * rs[r] / rn[r];
			for (k = 0; k < L; k++)
				C[j * L + k] -= N[j] * N[k] / rn[r];
		}
	}
	*rss0 = ss;
	free(rs);
	free(rn);
	free(N);
	return deficient;
}

/*
 * Gaussian elimination with partial pivoting on a copy of the L x L
 * matrix C: b becomes the solution of C o = b. Returns -1 when a pivot
 * is not above 1e-9 scale.
 */
static int
bisect_block_factor_solve(const double *C, double *b, size_t L, double scale)
{
	double	*A = xcalloc(L * L, sizeof *A), x;
	size_t	 i, j, k, piv;
	int	 ret = -1;

	memcpy(A, C, L * L * sizeof *A);
	for (k = 0; k < L; k++) {
		piv = k;
		for (j = k + 1; j < L; j++)
			if (fabs(A[j * L + k]) > fabs(A[piv * L + k]))
				piv = j;
		if (!(fabs(A[piv * L + k]) > 1e-9 * scale))
			goto out;
		if (piv != k) {
			for (j = 0; j < L; j++) {
				x = A[k * L + j];
				A[k * L + j] = A[piv * L + j];
				A[piv * L + j] = x;
			}
			x = b[k];
			b[k] = b[piv];
			b[piv] = x;
		}
		for (j = k + 1; j < L; j++) {
			x = A[j * L + k] / A[k * L + k];
			if (x == 0)
				continue;
			for (i = k; i < L; i++)
				A[j * L + i] -= x * A[k * L + i];
			b[j] -= x * b[k];
		}
	}
	for (k = L; k-- > 0;) {
		x = b[k];
		for (j = k + 1; j < L; j++)
			x -= A[k * L + j] * b[j];
		b[k] = x / A[k * L + k];
	}
	ret = 0;
out:
	free(A);
	return ret;
}

/*
 * Least squares for one factor beside the free commit levels: with the
 * commit levels eliminated, the offsets o of the fitted levels solve
 * C o = q, C = diag(n_l) - sum over commits of N_c N_c' / n_c and q the
 * levels' totals less what their commits' means predict (the reduced
 * normal equations of the unbalanced two-way layout). When every sample
 * of the fitted commits lies in a fitted level, C 1 = 0 and the offsets
 * are centred (C + 1 1' / L). The sum of squares the factor explains is
 * o' q on L - 1 (or L) degrees of freedom, tested by F against the
 * residual. Returns p, NaN when there is nothing to test.
 */
static double
bisect_block_factor_ls(const struct bisect_block_data *d, size_t f,
    size_t m, const unsigned char *fitted, double *off, size_t *dfout)
{
	size_t	*map = xcalloc(m + 1, sizeof *map), L = 0, j;
	double	*C, *q, *b, rss0 = 0, ssf = 0, scale = 0;
	double	 fstat, dfr, p = NAN;
	int	 deficient;
	gsl_error_handler_t *old;

	*dfout = 0;
	for (j = 0; j < m; j++)
		map[j] = fitted[j] ? L++ : BISECT_BLOCK_NONE;
	for (j = 0; j < m; j++)
		off[j] = 0;
	if (L < 2) {
		free(map);
		return NAN;
	}
	C = xcalloc(L * L, sizeof *C);
	q = xcalloc(L, sizeof *q);
	b = xcalloc(L, sizeof *b);
	deficient = bisect_block_factor_normal(d, f, map, L, C, q, &rss0);
	for (j = 0; j < L; j++)
		scale = fmax(scale, fabs(C[j * L + j]));
	if (deficient)
		for (j = 0; j < L * L; j++)
			C[j] += 1.0 / (double)L;
	/* b becomes o */
	memcpy(b, q, L * sizeof *b);
	if (bisect_block_factor_solve(C, b, L, scale) < 0)
		goto out;
	for (j = 0; j < L; j++)
		ssf += b[j] * q[j];
	for (j = 0; j < m; j++)
		if (map[j] != BISECT_BLOCK_NONE)
			off[j] = b[map[j]];
	*dfout = deficient ? L - 1 : L;
	dfr = (double)d->n - (double)d->nr_rows - (double)*dfout;
	if (dfr > 0 && rss0 - ssf > 0 && ssf > 0) {
		fstat = (ssf / (double)*dfout) / ((rss0 - ssf) / dfr);
		old = gsl_set_error_handler_off();
		p = gsl_cdf_fdist_Q(fstat, (double)*dfout, dfr);
		gsl_set_error_handler(old);
	}
out:
	free(map);
	free(C);
	free(q);
	free(b);
	return p;
}

/*
 * Fit factor f on what the one before left, and take its offsets out of
 * the samples only when they explain significantly more than noise.
 * Returns 1 when a sample changed.
 */
int
bisect_block_factor_take_out(struct bisect_block_factor *bk,
    struct bisect_block_data *d, size_t f, size_t m,
    const unsigned char *fitted)
{
	double	*off = xcalloc(m + 1, sizeof *off), x;
	size_t	 df, i, j;
	int	 changed = 0;

	bk->p = bisect_block_factor_ls(d, f, m, fitted, off, &df);
	bk->df = df;
	if (!(bk->p < BISECT_BLOCK_FACTOR_ALPHA))
		goto out;
	bk->applied = 1;
	for (i = 0; i < d->n; i++) {
		if (d->lvl[f][i] == BISECT_BLOCK_NONE ||
		    !fitted[d->lvl[f][i]])
			continue;
		x = off[d->lvl[f][i]];
		if (x != 0)
			changed = 1;
		d->y[i] -= x;
	}
	for (j = 0; j < m; j++)
		bk->offset[j] = off[j];
out:
	free(off);
	return changed;
}
