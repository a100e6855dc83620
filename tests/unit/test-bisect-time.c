/*
 * Unit tests for stats/bisect-time.c: Spearman's test against SciPy
 * (tests/unit/time-reference.py), a drift shared by neighbours in time
 * found and taken out over the reference's runs, independent noise left
 * alone, and the reference want put beside a lone want of the search.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect.h"
#include "stats/bisect-time.h"
#include "tests/unit/reference.h"
#include "tests/unit/tap.h"

static uint64_t	rng_state = 0x71e5;

static double
rng_uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double
rng_gauss(void)
{
	double	u = rng_uniform(), v = rng_uniform();

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

#define NR_CASES	200
#define MAX_N		60

static void
test_spearman_reference(void)
{
	double		(*x)[MAX_N] = xcalloc(NR_CASES, sizeof *x);
	double		(*y)[MAX_N] = xcalloc(NR_CASES, sizeof *y);
	size_t		 n[NR_CASES], i;
	struct strbuf	 in = STRBUF_INIT, out = STRBUF_INIT;
	char		 tmpl[] = "/tmp/time-reference-XXXXXX", *script, *line;
	char		*next, *end;
	const char	*python;
	unsigned	 id, seen = 0, bad = 0, c;
	int		 fd, status;
	double		 ref_rho, ref_p, got_p, got_rho;

	for (c = 0; c < NR_CASES; c++) {
		double corr = rng_uniform() * 1.5 - 0.5;

		n[c] = 3 + (size_t)(rng_uniform() * (MAX_N - 3));
		for (i = 0; i < n[c]; i++) {
			x[c][i] = rng_gauss();
			y[c][i] = corr * x[c][i] + rng_gauss();
			/* rounded: ties, the mid-ranks' path */
			if (c % 4 == 3) {
				x[c][i] = round(x[c][i] * 2) / 2;
				y[c][i] = round(y[c][i] * 2) / 2;
			}
		}
		strbuf_addf(&in, "%u %zu", c, n[c]);
		for (i = 0; i < n[c]; i++)
			strbuf_addf(&in, " %.17g", x[c][i]);
		for (i = 0; i < n[c]; i++)
			strbuf_addf(&in, " %.17g", y[c][i]);
		strbuf_addch(&in, '\n');
	}
	if ((fd = mkstemp(tmpl)) < 0 ||
	    write(fd, in.buf, in.len) != (ssize_t)in.len) {
		ok(0, "cases written to %s", tmpl);
		goto out;
	}
	close(fd);
	if ((python = getenv("BISECTD_PYTHON")) == NULL || *python == '\0')
		python = "/usr/bin/python3";
	script = script_find("tests/unit/time-reference.py");
	status = 0;
	if (!ok(script_run(python, script, tmpl, &out, &status) == 0,
	    "reference ran: %s %s", python, script)) {
		free(script);
		goto out;
	}
	free(script);
	for (line = out.buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		id = (unsigned)strtoul(line, &end, 10);
		if (id >= NR_CASES)
			break;
		ref_rho = strtod(end, &end);
		ref_p = strtod(end, &end);
		seen++;
		got_p = bisect_time_spearman(x[id], y[id], n[id], &got_rho);
		if (isnan(ref_p) && isnan(got_p))
			continue;
		if (isnan(ref_p) || isnan(got_p) ||
		    fabs(got_p - ref_p) > 1e-9 * fmax(ref_p, 1e-300) ||
		    fabs(got_rho - ref_rho) > 1e-9) {
			bad++;
			diag("case %u: got rho %.17g p %.17g, want %.17g %.17g",
			    id, got_rho, got_p, ref_rho, ref_p);
		}
	}
	ok(seen == NR_CASES && bad == 0, "Spearman's rho and one-sided p agree "
	    "with SciPy to 1e-9 (%u cases, with and without ties, %u off)",
	    seen, bad);
out:
	unlink(tmpl);
	strbuf_release(&in);
	strbuf_release(&out);
	free(x);
	free(y);
}

/*
 * Commits 0 (good), 1 (searched) and 2 (bad, the reference), their runs
 * as pair batches 0/2 then 1/2, 40 pairs each, on a machine whose speed
 * moves every 8 runs, by N(0, walk) (0: independent noise).
 */
struct three {
	double			 v[3][100];
	double			 t[3][100];
	size_t			 parents[3];
	struct bisect_commit	 c[3];
};

static void
three_make(struct three *h, double walk)
{
	double	speed = 0, clock = 0;
	size_t	i, k, side;
	static const double level[3] = { 1000, 1000, 970 };

	memset(h, 0, sizeof *h);
	for (i = 0; i < 3; i++) {
		h->parents[i] = i - 1;
		h->c[i].parents = &h->parents[i];
		h->c[i].nr_parents = i > 0;
		h->c[i].build = BISECT_BUILD_OK;
		h->c[i].samples = h->v[i];
		h->c[i].times = h->t[i];
	}
	for (k = 0; k < 80; k++) {
		size_t	pair[2] = { k < 40 ? 0 : 1, 2 };

		side = rng_uniform() < 0.5;
		for (i = 0; i < 2; i++) {
			struct bisect_commit *c = &h->c[pair[i ^ side]];
			size_t x = pair[i ^ side];

			if ((size_t)clock % 8 == 0)
				speed = walk * rng_gauss();
			h->v[x][c->nr_samples] = level[x] * (1 + speed +
			    0.002 * rng_gauss());
			h->t[x][c->nr_samples] = clock++;
			c->nr_samples++;
		}
	}
}

static double
sd(const double *x, size_t n)
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

static void
test_adjust(void)
{
	struct three		*h = xcalloc(1, sizeof *h);
	struct bisect_commit	 out[3];
	struct bisect_time	 bt;
	struct bisect_want	*w;
	size_t			 good = 0, nw;
	double			 raw, adj;
	int			 r;

	three_make(h, 0.03);
	r = bisect_time_adjust(&bt, out, h->c, 3, 2, &good, 1);
	ok(r == 1, "a speed shared by neighbours: found (rho %.2f, p %.2g, "
	    "%zu pairs)", bt.rho, bt.p, bt.pairs);
	ok(out[0].samples == h->c[0].samples, "the good end left as taken");
	ok(out[2].samples == h->c[2].samples, "the reference left as taken");
	raw = sd(h->c[1].samples, h->c[1].nr_samples);
	adj = sd(out[1].samples, out[1].nr_samples);
	ok(out[1].samples != h->c[1].samples && adj < raw / 2,
	    "the searched commit over its partners: sd %.1f, as taken %.1f",
	    adj, raw);
	w = xcalloc(1, sizeof *w);
	w[0].commit = 1;
	w[0].samples = 45;
	nw = 1;
	bisect_time_wants(&bt, h->c, &good, 1, &w, &nw);
	ok(nw == 2 && w[1].commit == 2 && w[1].samples == 85,
	    "a lone want gets the reference beside it, as many new runs");
	w[0].commit = 0;
	nw = 1;
	bisect_time_wants(&bt, h->c, &good, 1, &w, &nw);
	ok(nw == 1, "a want of the good end does not");
	free(w);
	bisect_time_release(&bt);

	three_make(h, 0);
	r = bisect_time_adjust(&bt, out, h->c, 3, 2, &good, 1);
	ok(r == 0, "independent noise: nothing taken out (p %.2g)", bt.p);
	bisect_time_release(&bt);
	three_make(h, 0.03);
	h->c[1].times = NULL;
	ok(bisect_time_adjust(&bt, out, h->c, 3, 2, &good, 1) == 0,
	    "samples without times: nothing done");
	bisect_time_release(&bt);
	free(h);
}

/*
 * The one-slot drift gate: a lone want of the search gets one run of the
 * bad end beside it, and where the bad end's runs, in groups of three in
 * time, change level, the search's samples are read over the bad end's
 * runs nearest them.
 */
static void
test_sentinel(void)
{
	struct three		*h = xcalloc(1, sizeof *h);
	struct bisect_commit	 out[3];
	struct bisect_time	 bt;
	struct bisect_want	*w;
	size_t			 good = 0, nw, k, g, n1 = 0, n2 = 0;
	double			 m, lo, hi, clock = 0;

	three_make(h, 0);
	memset(&bt, 0, sizeof bt);
	bt.nr = 3;
	bt.ref = 2;
	w = xcalloc(1, sizeof *w);
	w[0].commit = 1;
	w[0].samples = (unsigned)h->c[1].nr_samples + 1;
	nw = 1;
	bisect_time_sentinel(&bt, h->c, 1, &good, 1, &w, &nw);
	ok(nw == 1, "none beside one new run just after the bad end's runs");
	w[0].samples = (unsigned)h->c[1].nr_samples + BISECT_TIME_EVERY;
	bisect_time_sentinel(&bt, h->c, 1, &good, 1, &w, &nw);
	ok(nw == 2 && w[0].commit == 1 && w[1].commit == 2 &&
	    w[1].samples == h->c[2].nr_samples + BISECT_TIME_SENTINEL,
	    "a lone want of the search of %d new runs gets %d run of the bad "
	    "end beside it (%zu wants, the bad end to %u)", BISECT_TIME_EVERY,
	    BISECT_TIME_SENTINEL, nw, nw == 2 ? w[1].samples : 0);
	nw = 1;
	w[0].samples = (unsigned)h->c[1].nr_samples + 1;
	h->c[2].nr_samples -= 3;	/* 3 of commit 1's runs after its last */
	bisect_time_sentinel(&bt, h->c, 1, &good, 1, &w, &nw);
	ok(nw == 2, "one new run, 3 runs after the bad end's last: the "
	    "sentinel");
	h->c[2].nr_samples += 3;
	nw = 1;
	w[0].samples = (unsigned)h->c[1].nr_samples + BISECT_TIME_EVERY;
	bisect_time_sentinel(&bt, h->c, 0, &good, 1, &w, &nw);
	ok(nw == 1, "none without times");
	w[0].commit = 0;
	w[0].samples = (unsigned)h->c[0].nr_samples + 3;
	bisect_time_sentinel(&bt, h->c, 1, &good, 1, &w, &nw);
	ok(nw == 1, "none beside a want of the good end");
	w[0].commit = 2;
	w[0].samples = (unsigned)h->c[2].nr_samples + 3;
	bisect_time_sentinel(&bt, h->c, 1, &good, 1, &w, &nw);
	ok(nw == 1, "none beside a want of the bad end");
	w[0].commit = 1;
	w[0].samples = (unsigned)h->c[1].nr_samples;
	bisect_time_sentinel(&bt, h->c, 1, &good, 1, &w, &nw);
	ok(nw == 1, "none beside a want of no new run");
	w[0].samples = (unsigned)h->c[1].nr_samples + 3;
	bt.used = 1;
	bisect_time_sentinel(&bt, h->c, 1, &good, 1, &w, &nw);
	ok(nw == 1, "none once a test has fired (the pairs take over)");
	ok(bisect_time_block(&bt, out, h->c, &good, 1) == 0,
	    "no blocking over the neighbour test's pairs");
	free(w);

	/*
	 * The bad end 3% lower every batch, a batch of 3 runs of commit 1
	 * (at the good level) and 3 of the bad end: 6 batches.
	 */
	memset(h, 0, sizeof *h);
	for (k = 0; k < 3; k++) {
		h->parents[k] = k - 1;
		h->c[k].parents = &h->parents[k];
		h->c[k].nr_parents = k > 0;
		h->c[k].build = BISECT_BUILD_OK;
		h->c[k].samples = h->v[k];
		h->c[k].times = h->t[k];
	}
	for (g = 0; g < 6; g++) {
		m = 1 - 0.03 * (double)g;
		for (k = 0; k < 3; k++) {
			h->v[1][n1] = 1000 * m * (1 + 0.002 * rng_gauss());
			h->t[1][n1++] = clock++;
			h->v[2][n2] = 970 * m * (1 + 0.002 * rng_gauss());
			h->t[2][n2++] = clock++;
		}
	}
	h->c[1].nr_samples = n1;
	h->c[2].nr_samples = n2;
	memset(&bt, 0, sizeof bt);
	bt.nr = 3;
	bt.ref = 2;
	ok(bisect_time_block(&bt, out, h->c, &good, 1) == 1 && bt.used,
	    "a bad end whose level moves by batches: blocked");
	lo = INFINITY;
	hi = -INFINITY;
	for (k = 0; k < n1; k++) {
		if (out[1].samples[k] < lo)
			lo = out[1].samples[k];
		if (out[1].samples[k] > hi)
			hi = out[1].samples[k];
	}
	m = 970 * 0.925;
	ok(out[1].samples != h->c[1].samples && lo > 1000 / 970.0 * m * 0.99 &&
	    hi < 1000 / 970.0 * m * 1.01, "the searched commit over the bad "
	    "end's runs beside it: %.1f to %.1f, the good level at the bad "
	    "end's median %.1f", lo, hi, 1000 / 970.0 * m);
	ok(out[2].samples == h->c[2].samples, "the bad end left as taken");
	bisect_time_release(&bt);
	for (k = 0; k < n2; k++)
		h->v[2][k] = 970 * (1 + 0.002 * rng_gauss());
	for (k = 0; k < n1; k++)
		h->v[1][k] = 1000 * (1 + 0.002 * rng_gauss());
	memset(&bt, 0, sizeof bt);
	bt.nr = 3;
	bt.ref = 2;
	ok(bisect_time_block(&bt, out, h->c, &good, 1) == 0 && !bt.used,
	    "a bad end of one level: nothing taken out");
	bisect_time_release(&bt);
	free(h);
}

int
main(void)
{
	test_spearman_reference();
	test_adjust();
	test_sentinel();
	return tap_done();
}
