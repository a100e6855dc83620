/*
 * Rank tests and robust fits for the bisection driver. Benchmark samples
 * are few, often skewed, sometimes bimodal, and now and then wildly off
 * (a run that hit a cron job): the driver decides with ranks (Mann-Whitney
 * U, Hodges-Lehmann) and weighs evidence with a Student-t likelihood,
 * whose influence is bounded, rather than with means and a normal model.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/bisect-stat.h"
#include "util/xalloc.h"

static int
bisect_stat_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Put the k-th smallest of v[0..n) at v[k], smaller ones before it and
 * larger ones after (quickselect, median-of-three pivots): linear time,
 * where sorting every pooled group for its median was the driver's cost.
 */
static void
bisect_stat_select(double *v, size_t n, size_t k)
{
	size_t	lo = 0, hi = n - 1, i, j, mid;
	double	pivot, t;

#define SWAP(a, b) do { t = v[a]; v[a] = v[b]; v[b] = t; } while (0)
	while (hi > lo) {
		mid = lo + (hi - lo) / 2;
		if (v[mid] < v[lo])
			SWAP(mid, lo);
		if (v[hi] < v[lo])
			SWAP(hi, lo);
		if (v[hi] < v[mid])
			SWAP(hi, mid);
		pivot = v[mid];
		i = lo;
		j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				SWAP(i, j);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
#undef SWAP
}

double
bisect_stat_median(const double *x, size_t n)
{
	double	*v, m, below;
	size_t	 i;

	if (n == 0)
		return NAN;
	v = xcalloc(n, sizeof *v);
	memcpy(v, x, n * sizeof *v);
	bisect_stat_select(v, n, n / 2);
	m = v[n / 2];
	if (n % 2 == 0) {
		/* the largest of the lower half */
		below = v[0];
		for (i = 1; i < n / 2; i++)
			if (v[i] > below)
				below = v[i];
		m = (below + m) / 2;
	}
	free(v);
	return m;
}

/*
 * P(U >= u) for sizes n1, n2 without ties: the number of arrangements
 * with U = k is the coefficient of q^k in the Gaussian binomial
 * [n1 + n2 choose n1]_q, built as a product of (1 - q^(n2+i)) / (1 - q^i).
 */
static double
bisect_stat_mw_exact_sf(double u, size_t n1, size_t n2)
{
	size_t	 max = n1 * n2, i, k;
	double	*c, total = 0, tail = 0;

	c = xcalloc(max + 1, sizeof *c);
	c[0] = 1;
	for (i = 1; i <= n1; i++) {
		size_t up = n2 + i;

		for (k = max; k >= up; k--)
			c[k] -= c[k - up];
		for (k = i; k <= max; k++)
			c[k] += c[k - i];
	}
	for (k = 0; k <= max; k++) {
		total += c[k];
		if ((double)k >= u - 1e-9)
			tail += c[k];
	}
	free(c);
	return tail / total;
}

double
bisect_stat_mw(const double *a, size_t na, const double *b, size_t nb,
    enum bisect_stat_alt alt)
{
	double	*all, r1 = 0, u1, u2, u, tie = 0, mu, s, z, p, f = 1;
	size_t	*idx = NULL, n = na + nb, i, j, t;
	int	 ties = 0;

	if (na == 0 || nb == 0)
		return 1;
	/* ranks of the pooled values, x = b first as scipy's (x, y) */
	all = xcalloc(n, sizeof *all);
	memcpy(all, b, nb * sizeof *all);
	memcpy(all + nb, a, na * sizeof *all);
	idx = xcalloc(n, sizeof *idx);
	for (i = 0; i < n; i++)
		idx[i] = i;
	/* insertion sort of indices by value: n is small */
	for (i = 1; i < n; i++) {
		size_t v = idx[i];

		for (j = i; j > 0 && (all[idx[j - 1]] > all[v] ||
		    (all[idx[j - 1]] == all[v] && idx[j - 1] > v)); j--)
			idx[j] = idx[j - 1];
		idx[j] = v;
	}
	for (i = 0; i < n; i = j) {
		double rank;

		for (j = i + 1; j < n && all[idx[j]] == all[idx[i]]; j++)
			;
		t = j - i;
		if (t > 1) {
			ties = 1;
			tie += (double)t * t * t - (double)t;
		}
		rank = (double)(i + 1 + j) / 2;
		for (t = i; t < j; t++)
			if (idx[t] < nb)
				r1 += rank;
	}
	free(all);
	free(idx);

	u1 = r1 - (double)nb * (nb + 1) / 2;
	u2 = (double)na * nb - u1;
	if (alt == BISECT_STAT_GREATER)
		u = u1;
	else if (alt == BISECT_STAT_LESS)
		u = u2;
	else {
		u = u1 > u2 ? u1 : u2;
		f = 2;
	}
	if (!ties && !(na > 8 && nb > 8))
		p = bisect_stat_mw_exact_sf(u, nb, na);
	else {
		mu = (double)na * nb / 2;
		s = sqrt((double)na * nb / 12 *
		    ((double)(n + 1) - tie / ((double)n * (n - 1))));
		if (s == 0)
			return 1;
		z = (u - mu - 0.5) / s;
		p = gsl_cdf_ugaussian_Q(z);
	}
	p *= f;
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

void
bisect_stat_hl(const double *a, size_t na, const double *b, size_t nb,
    double confidence, double *shift, double *lo, double *hi)
{
	double	*d, z, kf;
	size_t	 m = na * nb, i, j, k;

	if (m == 0) {
		*shift = *lo = *hi = NAN;
		return;
	}
	d = xcalloc(m, sizeof *d);
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			d[i * nb + j] = b[j] - a[i];
	qsort(d, m, sizeof *d, bisect_stat_cmp);
	*shift = m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;
	z = gsl_cdf_ugaussian_Qinv((1 - confidence) / 2);
	kf = floor((double)m / 2 - z * sqrt((double)m * (na + nb + 1) / 12));
	k = kf < 1 ? 1 : (size_t)kf;
	if (k > m)
		k = m;
	*lo = d[k - 1];
	*hi = d[m - k];
	free(d);
}

double
bisect_stat_tlogpdf(double x, double loc, double scale, double nu)
{
	double z = (x - loc) / scale;

	return lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * log(nu * M_PI) -
	    log(scale) - (nu + 1) / 2 * log1p(z * z / nu);
}

/*
 * A fit's starting scale from the absolute residuals r[0 .. n-1]: their
 * MAD as a normal sigma, else (half of them 0) their mean absolute value
 * as one, and never below floor_s.
 */
static double
bisect_stat_start_scale(const double *r, size_t n, double floor_s)
{
	double	s;
	size_t	i;

	s = 1.482602218505602 * bisect_stat_median(r, n);
	if (!(s > floor_s)) {
		for (i = 0, s = 0; i < n; i++)
			s += r[i];
		s = s / (double)n * 1.2533141373155;
	}
	return s > floor_s ? s : floor_s;
}

double
bisect_stat_tloglik(const double *x, size_t n, double loc, double scale,
    double nu)
{
	double	sum = 0, z;
	size_t	i;

	for (i = 0; i < n; i++) {
		z = (x[i] - loc) / scale;
		sum += log1p(z * z / nu);
	}
	return (double)n * (lgamma((nu + 1) / 2) - lgamma(nu / 2) -
	    0.5 * log(nu * M_PI) - log(scale)) - (nu + 1) / 2 * sum;
}

void
bisect_stat_tfit(const double *const *x, const size_t *n, size_t groups,
    double nu, double *loc, double *scale)
{
	double	*r, s, floor_s, sw, swx, swr, w, z, prev;
	size_t	 g, i, total = 0, k, it;

	for (g = 0; g < groups; g++)
		total += n[g];
	if (total == 0) {
		for (g = 0; g < groups; g++)
			loc[g] = NAN;
		*scale = NAN;
		return;
	}
	r = xcalloc(total, sizeof *r);
	floor_s = 0;
	for (g = 0, k = 0; g < groups; g++) {
		loc[g] = n[g] ? bisect_stat_median(x[g], n[g]) : 0;
		for (i = 0; i < n[g]; i++) {
			r[k++] = fabs(x[g][i] - loc[g]);
			if (fabs(x[g][i]) > floor_s)
				floor_s = fabs(x[g][i]);
		}
	}
	/* a scale never below a millionth of the values' magnitude */
	floor_s = floor_s * 1e-6 + 1e-300;
	s = bisect_stat_start_scale(r, total, floor_s);
	free(r);

	for (it = 0; it < 200; it++) {
		prev = s;
		swr = 0;
		for (g = 0; g < groups; g++) {
			if (n[g] == 0)
				continue;
			sw = swx = 0;
			for (i = 0; i < n[g]; i++) {
				z = (x[g][i] - loc[g]) / s;
				w = (nu + 1) / (nu + z * z);
				sw += w;
				swx += w * x[g][i];
			}
			loc[g] = swx / sw;
			for (i = 0; i < n[g]; i++) {
				z = (x[g][i] - loc[g]) / s;
				w = (nu + 1) / (nu + z * z);
				swr += w * (x[g][i] - loc[g]) * (x[g][i] - loc[g]);
			}
		}
		s = sqrt(swr / (double)total);
		if (!(s > floor_s))
			s = floor_s;
		if (fabs(s - prev) <= 1e-12 * prev)
			break;
	}
	*scale = s;
}

void
bisect_stat_tfit2(const double *x, const double *w1, size_t n, double nu,
    double loc[2], double *scale)
{
	double	*v, s, prev, sw[2], swx[2], swr, w, z, floor_s = 0;
	size_t	 i, k, g, nv[2], it;

	if (n == 0) {
		loc[0] = loc[1] = *scale = NAN;
		return;
	}
	/* start: the medians of the samples more likely at each level */
	v = xcalloc(n, sizeof *v);
	for (g = 0; g < 2; g++) {
		for (i = 0, k = 0; i < n; i++)
			if ((g == 1) == (w1[i] >= 0.5))
				v[k++] = x[i];
		nv[g] = k;
		loc[g] = k ? bisect_stat_median(v, k) : NAN;
	}
	for (g = 0; g < 2; g++)
		if (nv[g] == 0)
			loc[g] = loc[1 - g];
	for (i = 0; i < n; i++) {
		g = w1[i] >= 0.5;
		v[i] = fabs(x[i] - loc[g]);
		if (fabs(x[i]) > floor_s)
			floor_s = fabs(x[i]);
	}
	floor_s = floor_s * 1e-6 + 1e-300;
	s = bisect_stat_start_scale(v, n, floor_s);
	free(v);

	for (it = 0; it < 200; it++) {
		prev = s;
		for (g = 0; g < 2; g++) {
			sw[g] = swx[g] = 0;
			for (i = 0; i < n; i++) {
				double wg = g ? w1[i] : 1 - w1[i];

				if (wg <= 0)
					continue;
				z = (x[i] - loc[g]) / s;
				w = wg * (nu + 1) / (nu + z * z);
				sw[g] += w;
				swx[g] += w * x[i];
			}
			if (sw[g] > 0)
				loc[g] = swx[g] / sw[g];
		}
		swr = 0;
		for (i = 0; i < n; i++)
			for (g = 0; g < 2; g++) {
				double wg = g ? w1[i] : 1 - w1[i];

				if (wg <= 0)
					continue;
				z = (x[i] - loc[g]) / s;
				w = wg * (nu + 1) / (nu + z * z);
				swr += w * (x[i] - loc[g]) * (x[i] - loc[g]);
			}
		s = sqrt(swr / (double)n);
		if (!(s > floor_s))
			s = floor_s;
		if (fabs(s - prev) <= 1e-12 * prev)
			break;
	}
	*scale = s;
}

/*
 * The mean of the middle half: a start for the t location that neither a
 * wild sample nor a bimodal sample throws off (the median of a bimodal
 * sample jumps from one mode to the other).
 */
static double
bisect_stat_midmean(const double *x, size_t n)
{
	double	*v, sum = 0;
	size_t	 lo, hi, i;

	v = xcalloc(n, sizeof *v);
	memcpy(v, x, n * sizeof *v);
	lo = n / 4;
	hi = n - n / 4;
	/* ranks lo..hi-1: select lo, then the rest among the larger ones */
	bisect_stat_select(v, n, lo);
	bisect_stat_select(v + lo, n - lo, hi - 1 - lo);
	for (i = lo; i < hi; i++)
		sum += v[i];
	free(v);
	return sum / (double)(hi - lo);
}

static double
bisect_stat_tloc_from(const double *x, size_t n, double nu, double scale,
    double loc)
{
	double	prev, sw, swx, w, z;
	size_t	i, it;

	for (it = 0; it < 200; it++) {
		prev = loc;
		sw = swx = 0;
		for (i = 0; i < n; i++) {
			z = (x[i] - loc) / scale;
			w = (nu + 1) / (nu + z * z);
			sw += w;
			swx += w * x[i];
		}
		loc = swx / sw;
		if (fabs(loc - prev) <= 1e-10 * scale)
			break;
	}
	return loc;
}

static double
bisect_stat_tll(const double *x, size_t n, double nu, double scale,
    double loc)
{
	double	ll = 0, z;
	size_t	i;

	for (i = 0; i < n; i++) {
		z = (x[i] - loc) / scale;
		ll -= log1p(z * z / nu);
	}
	return ll;
}

/*
 * The t likelihood of a location can have several maxima (two samples
 * far apart have one each and a minimum half-way): start from the
 * midmean and the median, and from every sample when there are few, and
 * keep the best.
 */
double
bisect_stat_tloc(const double *x, size_t n, double nu, double scale)
{
	double	best, best_ll, loc, ll;
	size_t	i;

	if (n == 0)
		return NAN;
	best = bisect_stat_tloc_from(x, n, nu, scale,
	    bisect_stat_midmean(x, n));
	best_ll = bisect_stat_tll(x, n, nu, scale, best);
	for (i = 0; n <= 8 && i <= n; i++) {
		loc = bisect_stat_tloc_from(x, n, nu, scale, i == n ?
		    bisect_stat_median(x, n) : x[i]);
		ll = bisect_stat_tll(x, n, nu, scale, loc);
		if (ll > best_ll + 1e-12 * fabs(best_ll)) {
			best = loc;
			best_ll = ll;
		}
	}
	return best;
}

double
bisect_stat_tscale(const double *const *x, const size_t *n, size_t groups,
    double nu)
{
	double	*loc, *r, s, prev, swr, w, z, floor_s = 0;
	size_t	 g, i, k, total = 0, used = 0, it;

	for (g = 0; g < groups; g++)
		if (n[g] >= 2) {
			total += n[g];
			used++;
		}
	if (total <= used)
		return 0;
	loc = xcalloc(groups, sizeof *loc);
	r = xcalloc(total, sizeof *r);
	for (g = 0, k = 0; g < groups; g++) {
		if (n[g] < 2)
			continue;
		loc[g] = bisect_stat_midmean(x[g], n[g]);
		for (i = 0; i < n[g]; i++) {
			r[k++] = fabs(x[g][i] - loc[g]);
			if (fabs(x[g][i]) > floor_s)
				floor_s = fabs(x[g][i]);
		}
	}
	floor_s = floor_s * 1e-6 + 1e-300;
	/* MAD of residuals from medians, which sit on one sample for n odd */
	s = 1.482602218505602 * bisect_stat_median(r, total) *
	    sqrt((double)total / (double)(total - used));
	if (!(s > floor_s)) {
		for (k = 0, s = 0; k < total; k++)
			s += r[k];
		s = s / (double)(total - used) * 1.2533141373155;
	}
	if (!(s > floor_s))
		s = floor_s;
	for (it = 0; it < 200; it++) {
		prev = s;
		swr = 0;
		for (g = 0; g < groups; g++) {
			double sw = 0, swx = 0;

			if (n[g] < 2)
				continue;
			for (i = 0; i < n[g]; i++) {
				z = (x[g][i] - loc[g]) / s;
				w = (nu + 1) / (nu + z * z);
				sw += w;
				swx += w * x[g][i];
			}
			loc[g] = swx / sw;
			for (i = 0; i < n[g]; i++) {
				z = (x[g][i] - loc[g]) / s;
				w = (nu + 1) / (nu + z * z);
				swr += w * (x[g][i] - loc[g]) *
				    (x[g][i] - loc[g]);
			}
		}
		s = sqrt(swr / (double)(total - used));
		if (!(s > floor_s))
			s = floor_s;
		if (fabs(s - prev) <= 1e-12 * prev)
			break;
	}
	free(loc);
	free(r);
	return s;
}
