/*
 * Unit tests for the machine offsets the bisection driver takes out of
 * its samples (stats/bisect-machine.c): offsets recovered on synthetic
 * commit x machine tables, the identity when there is nothing to fit, a
 * machine with too few commits in common left alone, and the driver
 * seeing a change through the machines' offsets that it cannot see in
 * the pooled samples.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect.h"
#include "stats/bisect-machine.h"
#include "tests/unit/tap.h"
#include "util/xalloc.h"

static uint64_t	rng_state = 88172645463325252ULL;

static double
rng_uniform(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return ((double)(x >> 11) + 0.5) / 9007199254740992.0;
}

static double
rng_gauss(void)
{
	return sqrt(-2 * log(rng_uniform())) * cos(2 * M_PI * rng_uniform());
}

#define MAXS	64

struct table {
	size_t			 nr;
	struct bisect_commit	*c;
	double			(*x)[MAXS];
	const char		*(*m)[MAXS];
	size_t			*pstore;
};

static void
table_init(struct table *t, size_t nr)
{
	size_t	i;

	t->nr = nr;
	t->c = xcalloc(nr, sizeof *t->c);
	t->x = xcalloc(nr, sizeof *t->x);
	t->m = xcalloc(nr, sizeof *t->m);
	t->pstore = xcalloc(nr, sizeof *t->pstore);
	for (i = 0; i < nr; i++) {
		t->c[i].samples = t->x[i];
		t->c[i].machines = t->m[i];
		t->c[i].build = BISECT_BUILD_OK;
		t->c[i].parents = &t->pstore[i];
		if (i > 0) {
			t->pstore[i] = i - 1;
			t->c[i].nr_parents = 1;
		}
	}
}

static void
table_free(struct table *t)
{
	free(t->c);
	free(t->x);
	free(t->m);
	free(t->pstore);
	memset(t, 0, sizeof *t);
}

/* sample k of commit i on machine names[k % nm], at level * factor */
static void
table_add(struct table *t, size_t i, const char *const *names, size_t nm,
    const double *factor, double level, double sd, size_t n, int ratio)
{
	size_t	k, j;

	for (k = 0; k < n; k++) {
		j = t->c[i].nr_samples;
		t->m[i][j] = names[k % nm];
		t->x[i][j] = ratio ? level * factor[k % nm] *
		    (1 + sd * rng_gauss()) : level + factor[k % nm] +
		    sd * rng_gauss();
		t->c[i].nr_samples++;
	}
}

static const struct bisect_machine *
machine(const struct bisect_machine_fit *mf, const char *name)
{
	size_t	i;

	for (i = 0; i < mf->nr_machines; i++)
		if (strcmp(mf->machines[i].name, name) == 0)
			return &mf->machines[i];
	return NULL;
}

static double
sd_of(const double *x, size_t n)
{
	double	m = 0, s = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	for (i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (double)(n - 1));
}

/* Ratios recovered on an unbalanced table with outliers. */
static void
test_recover(void)
{
	static const char	*names[3] = { "fast", "mid", "slow" };
	static const double	 f[3] = { 1.03, 1.00, 0.98 };
	struct table		 t;
	struct bisect_machine_fit mf;
	const struct bisect_machine *a, *b, *c;
	double			(*copy)[MAXS];
	size_t			 i, k, j, wider = 0, exact = 1;
	double			 before = 0, after = 0, centre;

	table_init(&t, 30);
	for (i = 0; i < t.nr; i++)
		table_add(&t, i, names, 3, f, 900 + 200 * rng_uniform(), 0.01,
		    i == 0 || i == 29 ? 40 : 2 + i % 8, 1);
	/* two runs wildly off */
	t.x[0][5] *= 1.3;
	t.x[29][7] *= 0.7;
	copy = xcalloc(t.nr, sizeof *copy);
	memcpy(copy, t.x, t.nr * sizeof *copy);

	is_int(bisect_machine_adjust(&mf, t.c, t.nr), 3,
	    "three machines fitted");
	ok(mf.ratio, "positive samples: offsets are ratios");
	a = machine(&mf, "fast");
	b = machine(&mf, "mid");
	c = machine(&mf, "slow");
	ok(a != NULL && b != NULL && c != NULL && a->fitted && b->fitted &&
	    c->fitted, "every machine known and fitted");
	if (a == NULL || b == NULL || c == NULL)
		return;
	is_close((1 + a->offset) / (1 + b->offset), 1.03, 0.003,
	    "fast/mid recovered (true 1.03)");
	is_close((1 + c->offset) / (1 + b->offset), 0.98, 0.003,
	    "slow/mid recovered (true 0.98)");
	centre = log1p(a->offset) + log1p(b->offset) + log1p(c->offset);
	ok(fabs(centre) < 1e-9, "offsets centred (sum of logs %g)", centre);
	is_int(a->nr_commits, 30, "fast shares all 30 commits");
	ok(memcmp(copy, t.x, t.nr * sizeof *copy) == 0,
	    "the caller's samples are untouched");
	for (i = 0; i < t.nr; i++) {
		for (k = 0; k < t.c[i].nr_samples; k++) {
			const struct bisect_machine *mm = machine(&mf,
			    t.m[i][k]);

			if (fabs(mf.samples[i][k] * (1 + mm->offset) -
			    t.x[i][k]) > 1e-9 * t.x[i][k])
				exact = 0;
		}
		if (t.c[i].nr_samples >= 6) {
			before += sd_of(t.x[i], t.c[i].nr_samples);
			after += sd_of(mf.samples[i], t.c[i].nr_samples);
			j = sd_of(mf.samples[i], t.c[i].nr_samples) >
			    sd_of(t.x[i], t.c[i].nr_samples);
			wider += j;
		}
	}
	ok(exact, "every sample divided by 1 + its machine's offset");
	ok(after < 0.75 * before, "spread within commits down (%.1f -> %.1f)",
	    before, after);
	diag("%zu commits of 6+ samples wider after", wider);
	bisect_machine_fit_release(&mf);
	free(copy);
	table_free(&t);
}

/* A sample <= 0: offsets in the metric's units, subtracted. */
static void
test_additive(void)
{
	static const char	*names[3] = { "a", "b", "c" };
	static const double	 off[3] = { 5, 0, -3 };
	struct table		 t;
	struct bisect_machine_fit mf;
	size_t			 i;

	table_init(&t, 12);
	for (i = 0; i < t.nr; i++)
		table_add(&t, i, names, 3, off, 20 * rng_gauss(), 1, 9, 0);
	t.x[3][0] = -40;
	is_int(bisect_machine_adjust(&mf, t.c, t.nr), 3, "additive: fitted");
	ok(!mf.ratio, "additive: a negative sample, offsets subtracted");
	is_close(mf.machines[0].offset - mf.machines[1].offset, 5, 0.1,
	    "additive: a - b recovered (5)");
	is_close(mf.machines[2].offset - mf.machines[1].offset, -3, 0.15,
	    "additive: c - b recovered (-3)");
	is_close(mf.samples[4][0], t.x[4][0] - mf.machines[0].offset, 1e-12,
	    "additive: a sample less its machine's offset");
	bisect_machine_fit_release(&mf);
	table_free(&t);
}

/* Nothing to fit: the identity. */
static void
test_identity(void)
{
	static const char	*one[1] = { "only" };
	static const char	*two[2] = { "a", "b" };
	static const double	 f[2] = { 1, 1.1 };
	struct table		 t;
	struct bisect_machine_fit mf;
	size_t			 i;

	table_init(&t, 8);
	for (i = 0; i < t.nr; i++)
		table_add(&t, i, one, 1, f, 100, 0.01, 5, 1);
	is_int(bisect_machine_adjust(&mf, t.c, t.nr), 0, "one machine: 0");
	ok(mf.samples == NULL && mf.nr_machines == 1 &&
	    !mf.machines[0].fitted, "one machine: no adjusted samples");
	bisect_machine_fit_release(&mf);

	for (i = 0; i < t.nr; i++)
		t.c[i].machines = NULL;
	is_int(bisect_machine_adjust(&mf, t.c, t.nr), 0,
	    "machines unknown: 0");
	ok(mf.samples == NULL && mf.nr_machines == 0,
	    "machines unknown: nothing fitted");
	bisect_machine_fit_release(&mf);
	table_free(&t);

	/* two machines with a single commit in common */
	table_init(&t, 6);
	for (i = 0; i < t.nr; i++)
		table_add(&t, i, i < 3 ? &two[0] : &two[1], 1, f, 100, 0.01,
		    4, 1);
	t.m[2][0] = two[1];
	is_int(bisect_machine_adjust(&mf, t.c, t.nr), 0,
	    "one commit in common: 0");
	ok(mf.samples == NULL && mf.nr_machines == 2 &&
	    mf.machines[0].nr_commits == 1, "one commit in common: left alone");
	bisect_machine_fit_release(&mf);
	is_int(bisect_machine_adjust(&mf, t.c, 0), 0, "no commits: 0");
	bisect_machine_fit_release(&mf);
	table_free(&t);
}

/* A machine that ran one commit only, and two unlinked groups. */
static void
test_left_alone(void)
{
	static const char	*names[4] = { "a", "b", "c", "d" };
	static const double	 f[4] = { 1.02, 1, 0.97, 1.05 };
	struct table		 t;
	struct bisect_machine_fit mf;
	const struct bisect_machine *z;
	size_t			 i;

	table_init(&t, 10);
	for (i = 0; i < t.nr; i++)
		table_add(&t, i, names, 3, f, 100 + i, 0.005, 6, 1);
	/* z: two runs of commit 4 */
	t.m[4][t.c[4].nr_samples] = "z";
	t.x[4][t.c[4].nr_samples++] = 150;
	t.m[4][t.c[4].nr_samples] = "z";
	t.x[4][t.c[4].nr_samples++] = 151;
	/* and commit 7's machines unknown */
	t.c[7].machines = NULL;
	is_int(bisect_machine_adjust(&mf, t.c, t.nr), 3,
	    "one-commit machine: the others fitted");
	z = machine(&mf, "z");
	ok(z != NULL && !z->fitted && z->offset == 0 && z->nr_commits == 1,
	    "one-commit machine: left alone, offset 0");
	ok(mf.samples[4][6] == 150 && mf.samples[4][7] == 151,
	    "one-commit machine: its samples as taken");
	ok(mf.samples[7] == NULL && mf.samples[6] != NULL,
	    "machines unknown for one commit: its samples as taken");
	is_close((1 + machine(&mf, "a")->offset) /
	    (1 + machine(&mf, "c")->offset), 1.02 / 0.97, 0.003,
	    "one-commit machine: a/c still recovered");
	bisect_machine_fit_release(&mf);
	table_free(&t);

	/* a and b on commits 0-5, c and d on 6-9: only a and b */
	table_init(&t, 10);
	for (i = 0; i < t.nr; i++)
		table_add(&t, i, i < 6 ? &names[0] : &names[2], 2,
		    i < 6 ? &f[0] : &f[2], 100 + i, 0.005, 6, 1);
	is_int(bisect_machine_adjust(&mf, t.c, t.nr), 2,
	    "unlinked groups: the larger one fitted");
	ok(machine(&mf, "a")->fitted && machine(&mf, "b")->fitted &&
	    !machine(&mf, "c")->fitted && !machine(&mf, "d")->fitted,
	    "unlinked groups: c and d left alone");
	ok(mf.samples[7] == NULL && mf.samples[2] != NULL,
	    "unlinked groups: their commits' samples as taken");
	bisect_machine_fit_release(&mf);
	table_free(&t);
}

/*
 * Three machines 5% apart, a -1% change at 0.3% noise, 12 runs of each
 * end: pooled, the ends overlap and the driver wants more of them; with
 * the machines it sees the change and moves into the range. Renaming
 * the machines changes nothing.
 */
static void
test_driver(void)
{
	static const char	*names[3] = { "m1", "m2", "m3" };
	static const char	*renamed[3] = { "zz", "aa", "mm" };
	static const double	 f[3] = { 1.05, 1.0, 0.95 };
	struct table		 t;
	struct bisect_input	 in;
	struct bisect_result	 res, res2;
	size_t			 good = 0, i;
	int			 inside, same;

	table_init(&t, 64);
	for (i = 1; i + 1 < t.nr; i++)
		t.c[i].build = BISECT_BUILD_UNKNOWN;
	table_add(&t, 0, names, 3, f, 1000, 0.003, 12, 1);
	table_add(&t, 63, names, 3, f, 990, 0.003, 12, 1);
	memset(&in, 0, sizeof in);
	in.commits = t.c;
	in.nr_commits = t.nr;
	in.bad = 63;
	in.good = &good;
	in.nr_good = 1;
	in.direction = 1;
	in.initial_runs = 3;
	in.max_runs = 40;

	ok(bisect_decide(&res, &in) == 0 && res.status == BISECT_CONTINUE &&
	    res.nr_wants == 1, "blocked: continue");
	inside = res.nr_wants == 1 && res.wants[0].commit != 0 &&
	    res.wants[0].commit != 63;
	ok(inside, "blocked: the change is seen, a commit inside is wanted");
	ok(res.p_value < 0.001 && res.change_pct < -0.7 &&
	    res.change_pct > -1.3, "blocked: change %.2f%% p %g",
	    res.change_pct, res.p_value);

	for (i = 0; i < 12; i++) {
		t.m[0][i] = renamed[i % 3];
		t.m[63][i] = renamed[i % 3];
	}
	ok(bisect_decide(&res2, &in) == 0 && res2.nr_wants == res.nr_wants &&
	    res2.wants[0].commit == res.wants[0].commit &&
	    res2.wants[0].samples == res.wants[0].samples,
	    "blocked: the machines' names do not matter");
	bisect_result_release(&res2);

	t.c[0].machines = NULL;
	t.c[63].machines = NULL;
	ok(bisect_decide(&res2, &in) == 0 &&
	    res2.status == BISECT_CONTINUE, "pooled: continue");
	same = res2.nr_wants >= 1 && (res2.wants[0].commit == 0 ||
	    res2.wants[0].commit == 63);
	ok(same, "pooled: the ends overlap, more of them wanted (p %g)",
	    res2.p_value);
	bisect_result_release(&res);
	bisect_result_release(&res2);
	table_free(&t);
}

int
main(void)
{
	test_recover();
	test_additive();
	test_identity();
	test_left_alone();
	test_driver();
	return tap_done();
}
