/*
 * Machine offsets for the bisection driver: log(value) = commit level +
 * machine offset + noise, fitted over all sampled commits by alternating
 * 20%-trimmed means, so that a faster machine does not read as noise
 * (docs/design.md, "File notes").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-machine.h"
#include "stats/bisect-block.h"
#include "util/xalloc.h"

#define BISECT_MACHINE_TRIM	0.2
#define BISECT_MACHINE_ITER	100

static int
bisect_machine_cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
bisect_machine_cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The mean of v[0..n) without its lowest and highest 20%; sorts v. */
static double
bisect_machine_tmean(double *v, size_t n)
{
	size_t	g, i;
	double	s = 0;

	qsort(v, n, sizeof *v, bisect_machine_cmp_double);
	g = (size_t)floor(BISECT_MACHINE_TRIM * (double)n);
	for (i = g; i < n - g; i++)
		s += v[i];
	return s / (double)(n - 2 * g);
}

static size_t
bisect_machine_find(const struct bisect_machine_fit *mf, const char *name)
{
	size_t	lo = 0, hi = mf->nr_machines, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(mf->machines[mid].name, name);
		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (size_t)-1;
}

static size_t
bisect_machine_root(size_t *up, size_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

void
bisect_machine_fit_release(struct bisect_machine_fit *mf)
{
	size_t	i;

	if (mf == NULL)
		return;
	for (i = 0; i < mf->nr_commits; i++)
		if (mf->samples != NULL)
			free(mf->samples[i]);
	free(mf->samples);
	free(mf->machines);
	bisect_block_fit_release(&mf->blocks);
	memset(mf, 0, sizeof *mf);
}

/*
 * Which machines can be fitted: those sharing enough commits with the
 * other fitted ones (pruned until none falls out), then only the largest
 * group linked by shared commits (by samples; the first by name on a tie).
 * cnt is commits x machines, the samples in each cell.
 */
static size_t
bisect_machine_select(struct bisect_machine_fit *mf, const size_t *cnt,
    size_t nr)
{
	size_t	 m = mf->nr_machines, c, j, k, shared, best = 0, nr_fitted = 0;
	size_t	*up = xcalloc(m, sizeof *up), *size = xcalloc(m, sizeof *size);
	size_t	 first;
	int	 changed = 1, other;

	for (j = 0; j < m; j++)
		mf->machines[j].fitted = 1;
	while (changed) {
		changed = 0;
		for (j = 0; j < m; j++) {
			if (!mf->machines[j].fitted)
				continue;
			shared = 0;
			for (c = 0; c < nr; c++) {
				if (cnt[c * m + j] == 0)
					continue;
				other = 0;
				for (k = 0; k < m && !other; k++)
					other = k != j && cnt[c * m + k] > 0 &&
					    mf->machines[k].fitted;
				shared += other;
			}
			mf->machines[j].nr_commits = shared;
			if (shared < BISECT_MACHINE_MIN_COMMITS) {
				mf->machines[j].fitted = 0;
				changed = 1;
			}
		}
	}
	for (j = 0; j < m; j++)
		up[j] = j;
	for (c = 0; c < nr; c++) {
		first = (size_t)-1;
		for (j = 0; j < m; j++) {
			if (cnt[c * m + j] == 0 || !mf->machines[j].fitted)
				continue;
			if (first == (size_t)-1)
				first = j;
			else
				up[bisect_machine_root(up, j)] =
				    bisect_machine_root(up, first);
		}
	}
	for (j = 0; j < m; j++)
		if (mf->machines[j].fitted)
			size[bisect_machine_root(up, j)] +=
			    mf->machines[j].nr_samples;
	for (j = 0; j < m; j++)
		if (size[bisect_machine_root(up, j)] >
		    size[bisect_machine_root(up, best)])
			best = j;
	best = bisect_machine_root(up, best);
	for (j = 0; j < m; j++) {
		if (mf->machines[j].fitted &&
		    bisect_machine_root(up, j) != best)
			mf->machines[j].fitted = 0;
		nr_fitted += mf->machines[j].fitted;
	}
	free(up);
	free(size);
	return nr_fitted;
}

/*
 * The two-way fit over the samples of fitted machines on commits with
 * two fitted machines or more (a commit seen by one machine tells
 * nothing of the machines). y, com and mac list those samples; off[]
 * gets each machine's offset, centred over the fitted machines.
 */
static void
bisect_machine_solve(struct bisect_machine_fit *mf, const double *y,
    const size_t *com, const size_t *mac, size_t n, size_t nr, double *off)
{
	size_t	 m = mf->nr_machines, i, j, c, it, *cstart, *mstart, *mfill;
	size_t	*midx;
	double	*lvl = xcalloc(nr + 1, sizeof *lvl), *buf, *nw, d, delta;
	double	 tol = 0, centre;

	buf = xcalloc(n + 1, sizeof *buf);
	nw = xcalloc(m, sizeof *nw);
	cstart = xcalloc(nr + 1, sizeof *cstart);
	mstart = xcalloc(m + 1, sizeof *mstart);
	mfill = xcalloc(m + 1, sizeof *mfill);
	midx = xcalloc(n + 1, sizeof *midx);
	/* the samples come grouped by commit; index them by machine too */
	for (i = 0; i < n; i++) {
		cstart[com[i] + 1] = i + 1;
		mstart[mac[i] + 1]++;
	}
	for (c = 1; c <= nr; c++)
		if (cstart[c] < cstart[c - 1])
			cstart[c] = cstart[c - 1];
	for (j = 0; j < m; j++)
		mstart[j + 1] += mstart[j];
	memcpy(mfill, mstart, m * sizeof *mfill);
	for (i = 0; i < n; i++)
		midx[mfill[mac[i]]++] = i;
	for (j = 0; j < m; j++)
		off[j] = 0;
	for (it = 0; it < BISECT_MACHINE_ITER; it++) {
		for (c = 0; c < nr; c++) {
			if (cstart[c + 1] == cstart[c])
				continue;
			for (i = cstart[c]; i < cstart[c + 1]; i++)
				buf[i - cstart[c]] = y[i] - off[mac[i]];
			lvl[c] = bisect_machine_tmean(buf,
			    cstart[c + 1] - cstart[c]);
		}
		if (it == 0) {
			for (i = 0; i < n; i++)
				tol += fabs(y[i] - off[mac[i]] - lvl[com[i]]);
			tol = 1e-9 * tol / (double)n;
		}
		centre = 0;
		for (j = 0; j < m; j++) {
			nw[j] = 0;
			if (!mf->machines[j].fitted)
				continue;
			for (i = mstart[j]; i < mstart[j + 1]; i++)
				buf[i - mstart[j]] = y[midx[i]] -
				    lvl[com[midx[i]]];
			nw[j] = bisect_machine_tmean(buf,
			    mstart[j + 1] - mstart[j]);
			centre += nw[j];
		}
		centre /= (double)mf->nr_fitted;
		delta = 0;
		for (j = 0; j < m; j++) {
			if (!mf->machines[j].fitted)
				continue;
			d = nw[j] - centre;
			if (fabs(d - off[j]) > delta)
				delta = fabs(d - off[j]);
			off[j] = d;
		}
		if (delta <= tol)
			break;
	}
	free(lvl);
	free(buf);
	free(nw);
	free(cstart);
	free(mstart);
	free(mfill);
	free(midx);
}

/*
 * The machines of every sample with a machine and a finite value (n at
 * most), sorted by name into mf->machines; rows[] gets the commits with
 * any, and mf->ratio says whether every such sample is positive. Returns
 * the number of those samples.
 */
static size_t
bisect_machine_names(struct bisect_machine_fit *mf,
    const struct bisect_commit *commits, size_t nr, size_t n, size_t *rows,
    size_t *nr_rows)
{
	const struct bisect_commit *cm;
	const char	**names = xcalloc(n, sizeof *names);
	size_t		 nr_names = 0, i, j, k;
	int		 ratio = 1;

	for (i = 0; i < nr; i++) {
		cm = &commits[i];
		if (cm->machines == NULL)
			continue;
		j = nr_names;
		for (k = 0; k < cm->nr_samples; k++) {
			if (cm->machines[k] == NULL ||
			    !isfinite(cm->samples[k]))
				continue;
			names[nr_names++] = cm->machines[k];
			if (cm->samples[k] <= 0)
				ratio = 0;
		}
		if (nr_names > j)
			rows[(*nr_rows)++] = i;
	}
	if (nr_names == 0)
		goto out;
	qsort(names, nr_names, sizeof *names, bisect_machine_cmp_name);
	mf->machines = xcalloc(nr_names, sizeof *mf->machines);
	for (i = 0; i < nr_names; i++) {
		if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
			continue;
		mf->machines[mf->nr_machines++].name = names[i];
	}
	mf->ratio = ratio;
out:
	free(names);
	return nr_names;
}

/*
 * Each sample's machine (id[], in the order bisect_machine_names met
 * them), and the samples in each cell of the table of the commits with a
 * known machine (rows) by machines.
 */
static void
bisect_machine_count(struct bisect_machine_fit *mf,
    const struct bisect_commit *commits, const size_t *rows, size_t nr_rows,
    size_t *id, size_t *cnt)
{
	const struct bisect_commit *cm;
	size_t	m = mf->nr_machines, r, j, k;

	for (r = 0, j = 0; r < nr_rows; r++) {
		cm = &commits[rows[r]];
		for (k = 0; k < cm->nr_samples; k++) {
			if (cm->machines[k] == NULL ||
			    !isfinite(cm->samples[k]))
				continue;
			id[j] = bisect_machine_find(mf, cm->machines[k]);
			cnt[r * m + id[j]]++;
			mf->machines[id[j]].nr_samples++;
			j++;
		}
	}
}

/* the fitted machines that sampled row r */
static size_t
bisect_machine_many(const struct bisect_machine_fit *mf, const size_t *cnt,
    size_t r)
{
	size_t	m = mf->nr_machines, c, many = 0;

	for (c = 0; c < m; c++)
		many += cnt[r * m + c] > 0 && mf->machines[c].fitted;
	return many;
}

/*
 * The samples of the fit, grouped by commit: those of fitted machines on
 * commits that two fitted machines or more sampled (log values when
 * mf->ratio). Returns their number.
 */
static size_t
bisect_machine_fit_samples(const struct bisect_machine_fit *mf,
    const struct bisect_commit *commits, const size_t *rows, size_t nr_rows,
    const size_t *cnt, const size_t *id, double *y, size_t *com, size_t *mac)
{
	const struct bisect_commit *cm;
	size_t	r, j, k, c, many, n = 0;
	double	x;

	for (r = 0, j = 0; r < nr_rows; r++) {
		cm = &commits[rows[r]];
		many = bisect_machine_many(mf, cnt, r);
		for (k = 0; k < cm->nr_samples; k++) {
			if (cm->machines[k] == NULL ||
			    !isfinite(cm->samples[k]))
				continue;
			c = id[j++];
			if (many < 2 || !mf->machines[c].fitted)
				continue;
			x = cm->samples[k];
			y[n] = mf->ratio ? log(x) : x;
			com[n] = r;
			mac[n++] = c;
		}
	}
	return n;
}

/* the samples with the offsets off[] (logs when mf->ratio) taken out */
static void
bisect_machine_take_out(struct bisect_machine_fit *mf,
    const struct bisect_commit *commits, size_t nr, const size_t *rows,
    size_t nr_rows, const size_t *cnt, const double *off)
{
	const struct bisect_commit *cm;
	size_t	r, i, k, c;
	double	x;

	mf->samples = xcalloc(nr, sizeof *mf->samples);
	for (r = 0; r < nr_rows; r++) {
		i = rows[r];
		cm = &commits[i];
		if (bisect_machine_many(mf, cnt, r) == 0)
			continue;
		mf->samples[i] = xcalloc(cm->nr_samples,
		    sizeof *mf->samples[i]);
		for (k = 0; k < cm->nr_samples; k++) {
			x = cm->samples[k];
			mf->samples[i][k] = x;
			if (cm->machines[k] == NULL || !isfinite(x) ||
			    (c = bisect_machine_find(mf, cm->machines[k])) ==
			    (size_t)-1 || !mf->machines[c].fitted)
				continue;
			mf->samples[i][k] = mf->ratio ? x * exp(-off[c]) :
			    x - off[c];
		}
	}
}

static size_t
bisect_machine_fit_machines(struct bisect_machine_fit *mf,
    const struct bisect_commit *commits, size_t nr)
{
	size_t	 nr_names, i, j, m, n = 0, nr_rows = 0;
	size_t	*cnt = NULL, *com = NULL, *mac = NULL, *id = NULL;
	size_t	*rows = NULL;
	double	*y = NULL, *off = NULL;

	memset(mf, 0, sizeof *mf);
	mf->nr_commits = nr;
	for (i = 0; i < nr; i++)
		if (commits[i].machines != NULL)
			n += commits[i].nr_samples;
	if (n == 0)
		goto out;
	rows = xcalloc(nr, sizeof *rows);
	nr_names = bisect_machine_names(mf, commits, nr, n, rows, &nr_rows);
	if (nr_names == 0)
		goto out;
	m = mf->nr_machines;
	id = xcalloc(nr_names, sizeof *id);
	cnt = xcalloc(nr_rows * m, sizeof *cnt);
	bisect_machine_count(mf, commits, rows, nr_rows, id, cnt);
	if (m < 2 || (mf->nr_fitted = bisect_machine_select(mf, cnt,
	    nr_rows)) < 2) {
		for (j = 0; j < m; j++)
			mf->machines[j].fitted = 0;
		mf->nr_fitted = 0;
		goto out;
	}
	y = xcalloc(nr_names, sizeof *y);
	com = xcalloc(nr_names, sizeof *com);
	mac = xcalloc(nr_names, sizeof *mac);
	n = bisect_machine_fit_samples(mf, commits, rows, nr_rows, cnt, id, y,
	    com, mac);
	off = xcalloc(m, sizeof *off);
	bisect_machine_solve(mf, y, com, mac, n, nr_rows, off);
	for (j = 0; j < m; j++)
		mf->machines[j].offset = !mf->machines[j].fitted ? 0 :
		    mf->ratio ? expm1(off[j]) : off[j];
	bisect_machine_take_out(mf, commits, nr, rows, nr_rows, cnt, off);
out:
	free(rows);
	free(id);
	free(cnt);
	free(y);
	free(com);
	free(mac);
	free(off);
	return mf->nr_fitted;
}

/*
 * The machines first, then the time and boot blocks on what the machines
 * left (stats/bisect-block.c): one set of adjusted samples for the driver.
 */
size_t
bisect_machine_adjust(struct bisect_machine_fit *mf,
    const struct bisect_commit *commits, size_t nr)
{
	size_t	machines, blocks, i;

	machines = bisect_machine_fit_machines(mf, commits, nr);
	if (!BISECT_BLOCK_IN_DRIVER)
		return machines;
	blocks = bisect_block_adjust(&mf->blocks, commits,
	    (const double *const *)mf->samples, nr);
	if (blocks == 0)
		return machines;
	if (mf->samples == NULL)
		mf->samples = xcalloc(nr, sizeof *mf->samples);
	for (i = 0; i < nr; i++) {
		if (mf->blocks.samples[i] == NULL)
			continue;
		free(mf->samples[i]);
		mf->samples[i] = mf->blocks.samples[i];
		mf->blocks.samples[i] = NULL;
	}
	return machines + blocks;
}
