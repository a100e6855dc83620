/*
 * Boots as the unit of evidence. A boot that ran a commit's batch adds
 * its own offset to every run of it; when boots differ more than runs do,
 * three runs in one boot tell hardly more than one, and the driver, which
 * counts samples as independent, would trust a commit's side on one boot.
 * So each boot's mean is one sample, and a commit's side rests on more
 * than one boot.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-block.h"
#include "stats/bisect-boot.h"
#include "util/xalloc.h"

void
bisect_boot_release(struct bisect_boot_units *bu)
{
	size_t	i;

	if (bu == NULL)
		return;
	if (bu->samples != NULL)
		for (i = 0; i < bu->nr; i++)
			free(bu->samples[i]);
	free(bu->samples);
	free(bu->units);
	memset(bu, 0, sizeof *bu);
}

/* the index of boot b among the first n distinct of names[] */
static size_t
bisect_boot_find(const char *const *names, size_t n, const char *b)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], b) == 0)
			return i;
	return n;
}

int
bisect_boot_units(struct bisect_boot_units *bu, struct bisect_commit *out,
    const struct bisect_commit *commits, const double *const *samples,
    size_t nr)
{
	double		*y = NULL, *sum;
	size_t		*grp = NULL, *unit = NULL, n = 0, total = 0, units = 0;
	size_t		 i, k, u, *cnt;
	const char	**names;
	const double	*x;
	int		 ratio = 1;

	memset(bu, 0, sizeof *bu);
	bu->nr = nr;
	bu->f = bu->df1 = bu->df2 = bu->p = NAN;
	for (i = 0; i < nr; i++) {
		if (commits[i].boots == NULL)
			continue;
		x = samples != NULL && samples[i] != NULL ? samples[i] :
		    commits[i].samples;
		for (k = 0; k < commits[i].nr_samples; k++) {
			total++;
			if (!(x[k] > 0))
				ratio = 0;
		}
	}
	if (total == 0)
		return 0;
	y = xcalloc(total, sizeof *y);
	grp = xcalloc(total, sizeof *grp);
	unit = xcalloc(total, sizeof *unit);
	names = xcalloc(total, sizeof *names);
	for (i = 0; i < nr; i++) {
		size_t nb = 0;

		if (commits[i].boots == NULL)
			continue;
		x = samples != NULL && samples[i] != NULL ? samples[i] :
		    commits[i].samples;
		for (k = 0; k < commits[i].nr_samples; k++) {
			const char *b = commits[i].boots[k] != NULL ?
			    commits[i].boots[k] : "";

			if ((u = bisect_boot_find(names, nb, b)) == nb)
				names[nb++] = b;
			y[n] = ratio ? log(x[k]) : x[k];
			grp[n] = i;
			unit[n++] = units + u;
		}
		units += nb;
	}
	bu->p = bisect_block_nested_f(y, grp, unit, n, &bu->f, &bu->df1,
	    &bu->df2);
	if (!(bu->p < BISECT_BOOT_ALPHA))
		goto out;
	bu->used = 1;
	bu->samples = xcalloc(nr, sizeof *bu->samples);
	bu->units = xcalloc(nr, sizeof *bu->units);
	memcpy(out, commits, nr * sizeof *out);
	for (i = 0; i < nr; i++) {
		size_t nb = 0;

		if (samples != NULL && samples[i] != NULL)
			out[i].samples = samples[i];
		bu->units[i] = out[i].nr_samples;
		if (commits[i].boots == NULL || commits[i].nr_samples == 0)
			continue;
		x = out[i].samples;
		sum = xcalloc(commits[i].nr_samples, sizeof *sum);
		cnt = xcalloc(commits[i].nr_samples, sizeof *cnt);
		for (k = 0; k < commits[i].nr_samples; k++) {
			const char *b = commits[i].boots[k] != NULL ?
			    commits[i].boots[k] : "";

			if ((u = bisect_boot_find(names, nb, b)) == nb)
				names[nb++] = b;
			sum[u] += x[k];
			cnt[u]++;
		}
		for (u = 0; u < nb; u++)
			sum[u] /= (double)cnt[u];
		free(cnt);
		bu->samples[i] = sum;
		bu->units[i] = nb;
		out[i].samples = sum;
		out[i].nr_samples = nb;
		out[i].times = NULL;
		out[i].boots = NULL;
		out[i].machines = NULL;
	}
out:
	free(y);
	free(grp);
	free(unit);
	free(names);
	return bu->used;
}

void
bisect_boot_wants(const struct bisect_boot_units *bu,
    const struct bisect_commit *raw, struct bisect_want *w, size_t nr)
{
	size_t	i, c;

	if (!bu->used)
		return;
	for (i = 0; i < nr; i++) {
		c = w[i].commit;
		if (c >= bu->nr || raw[c].boots == NULL || w[i].samples == 0)
			continue;
		if (raw[c].nr_samples == 0) {
			w[i].samples = BISECT_BOOT_RUNS;
			continue;
		}
		if (w[i].samples > bu->units[c])
			w[i].samples = (unsigned)raw[c].nr_samples +
			    BISECT_BOOT_RUNS;
	}
}
