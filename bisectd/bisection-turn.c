/*
 * A bisection's turn: the range's builds and samples read from the
 * database alone, each time, into the driver's input (the range's
 * commits), and the one check that ends a bisection before the driver
 * runs, a metric that no run of the job prints.
 */
#include <stdlib.h>
#include <string.h>

#include "bisectd/bisection-internal.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

void
bisection_turn_release(struct bisection_turn *t)
{
	size_t	i;

	for (i = 0; i < t->nr_touched; i++)
		store_series_release(&t->series[i]);
	free(t->series);
	free(t->touched);
	free(t->done);
	store_kernel_images_free(t->images, t->nr_images);
	memset(t, 0, sizeof *t);
}

/*
 * The range's commits start unknown, then get every build of the range,
 * sampled or not: a build the driver asked for alone (a want of 0
 * samples) tells it the commit's image, and commits of one image are one
 * test point (docs/bisection.md).
 */
static int
bisection_turn_images(struct store *st, struct bisection *bs,
    const struct store_bisection *b, struct bisection_turn *t, char **cause)
{
	struct bisect_commit	*c;
	size_t			 i, idx;

	for (i = 0; i < bs->range.nr_commits; i++) {
		c = &bs->range.commits[i];
		c->build = BISECT_BUILD_UNKNOWN;
		c->samples = NULL;
		c->nr_samples = 0;
		c->machines = NULL;
		c->times = NULL;
		c->boots = NULL;
		c->image = NULL;
	}
	if (store_kernel_images(st, b->repo, bs->recipe, &t->images,
	    &t->nr_images, cause) != 0)
		return -1;
	for (i = 0; i < t->nr_images; i++) {
		if ((idx = bisection_find(bs, t->images[i].commit_oid)) ==
		    (size_t)-1)
			continue;
		c = &bs->range.commits[idx];
		if (t->images[i].status == STORE_BUILD_OK) {
			c->build = BISECT_BUILD_OK;
			c->image = t->images[i].image_hash;
		} else if (t->images[i].status == STORE_BUILD_FAILED)
			c->build = BISECT_BUILD_FAILED;
		else {
			t->building = 1;
			if (bs->speculated == NULL || !bs->speculated[idx])
				t->asked = 1;
		}
	}
	return 0;
}

/*
 * After the commits with runs, those only built (their image told the
 * driver enough): they are tested commits too, in the log and the counts.
 */
static void
bisection_turn_built_only(const struct bisection *bs, struct bisection_turn *t)
{
	size_t	i, k, idx;

	t->nr_ran = t->nr_touched;
	for (i = 0; i < t->nr_images; i++) {
		if ((idx = bisection_find(bs, t->images[i].commit_oid)) ==
		    (size_t)-1 || bs->range.commits[idx].nr_samples > 0 ||
		    bs->range.commits[idx].build == BISECT_BUILD_UNKNOWN)
			continue;
		for (k = 0; k < t->nr_ran; k++)
			if (t->touched[k] == idx)
				break;
		if (k < t->nr_ran)
			continue;
		t->touched[t->nr_touched++] = idx;
	}
}

/* Fill the range's build states and samples from the database. */
int
bisection_turn_gather(struct services *s, struct bisection *bs,
    const struct store_bisection *b, struct bisection_turn *t, char **cause)
{
	struct store		 *st = s->ctx->store;
	struct bisect_commit	 *c;
	struct store_build	  build;
	char			**oids = NULL;
	size_t			  nr = 0, i, idx;
	int			  done, failed, found, r = -1;

	memset(&build, 0, sizeof build);
	if (bisection_turn_images(st, bs, b, t, cause) != 0)
		return -1;
	if (store_run_commits(st, b->job, b->repo, &oids, &nr, cause) != 0)
		return -1;
	t->touched = xcalloc(nr + t->nr_images + 1, sizeof *t->touched);
	t->series = xcalloc(nr + t->nr_images + 1, sizeof *t->series);
	t->done = xcalloc(nr + t->nr_images + 1, sizeof *t->done);
	for (i = 0; i < nr; i++) {
		if ((idx = bisection_find(bs, oids[i])) == (size_t)-1)
			continue;
		c = &bs->range.commits[idx];
		if (store_series_get(st, b->job, b->repo, oids[i], b->metric,
		    &t->series[t->nr_touched], cause) != 0)
			goto out;
		if (store_run_totals(st, b->job, b->repo, oids[i], &done,
		    &failed, cause) != 0)
			goto out;
		store_build_release(&build);
		if ((found = store_build_find(st, b->repo, oids[i], bs->recipe,
		    &build, cause)) < 0)
			goto out;
		if (found && build.status == STORE_BUILD_OK)
			c->build = BISECT_BUILD_OK;
		if ((found && build.status == STORE_BUILD_FAILED) ||
		    (failed > 0 && t->series[t->nr_touched].nr == 0))
			c->build = BISECT_BUILD_FAILED;
		c->samples = t->series[t->nr_touched].values;
		c->nr_samples = t->series[t->nr_touched].nr;
		/*
		 * Which agent ran each value: with several, the driver takes
		 * their offsets out of what it decides on; the values here,
		 * and those the steps and the report show, stay as taken.
		 */
		c->machines = (const char *const *)
		    t->series[t->nr_touched].agents;
		/* when and in which boot each ran (NAN, NULL: unknown) */
		c->times = t->series[t->nr_touched].starts;
		c->boots = (const char *const *)
		    t->series[t->nr_touched].boots;
		t->done[t->nr_touched] = done;
		t->nr_runs += (size_t)done;
		t->touched[t->nr_touched++] = idx;
	}
	bisection_turn_built_only(bs, t);
	r = 0;
out:
	store_build_release(&build);
	for (i = 0; i < nr; i++)
		free(oids[i]);
	free(oids);
	return r;
}

/*
 * A metric nothing prints: an inline testcase's metrics are known only
 * once it has run, so the first commit whose runs are done without a
 * single sample of it ends the bisection at once, saying what the runs
 * did print, instead of sampling on for nothing. 1 with *why, 0, -1.
 */
int
bisection_turn_metric_missing(struct services *s, const struct bisection *bs,
    const struct store_bisection *b, const struct bisection_turn *t,
    char **why, char **cause)
{
	struct store_series	*all = NULL;
	struct strbuf		 sb = STRBUF_INIT;
	size_t			 i, k, nr = 0, shown = 0;
	int			 r = 0;

	for (i = 0; i < t->nr_touched && r == 0; i++) {
		if (t->done[i] == 0 || t->series[i].nr > 0)
			continue;
		store_series_list_free(all, nr);
		all = NULL;
		nr = 0;
		if (store_series_all(s->ctx->store, b->job, b->repo,
		    bs->range.oids[t->touched[i]], &all, &nr, cause) != 0)
			return -1;
		if (nr == 0)
			continue;
		strbuf_addf(&sb, "no sample of '%s' in the %d done run%s of "
		    "%.12s; the runs printed: ", b->metric, t->done[i],
		    t->done[i] == 1 ? "" : "s", bs->range.oids[t->touched[i]]);
		for (k = 0; k < nr; k++) {
			if (strchr(all[k].metric, '.') == NULL ||
			    strncmp(all[k].metric, b->metric, (size_t)(strchr(
			    b->metric, '.') != NULL ? strchr(b->metric, '.') -
			    b->metric + 1 : 0)) != 0)
				continue;
			if (shown++ < 12)
				strbuf_addf(&sb, "%s%s", shown > 1 ? ", " : "",
				    all[k].metric);
		}
		if (shown == 0)
			strbuf_addstr(&sb, "no metric of the testcase (only the "
			    "monitors')");
		else if (shown > 12)
			strbuf_addf(&sb, " and %zu more", shown - 12);
		*why = strbuf_detach(&sb, NULL);
		r = 1;
	}
	store_series_list_free(all, nr);
	strbuf_release(&sb);
	return r;
}

