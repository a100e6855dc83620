/*
 * Unit tests for the time and boot blocks (stats/bisect-block.c): a drift
 * that hits both sides of interleaved runs cancels, a burst confined to a
 * few runs of both sides comes out of them, a boot's offset is taken out
 * only when the boot ran more than one commit, and the nested F test of
 * units within commits against tests/unit/block-reference.py (SciPy).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/bisect.h"
#include "stats/bisect-block.h"
#include "stats/compare.h"
#include "stats/rng.h"
#include "tests/unit/reference.h"
#include "tests/unit/tap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MAXS	96

struct two {
	struct bisect_commit	 c[3];
	double			 x[3][MAXS], t[3][MAXS];
	const char		*b[3][MAXS];
};

/*
 * Commits 0 and 1 (and 2 when three), n runs each, interleaved in time
 * (run k of commit j at time 3k + j), levels lv[], noise sd 0.3%, and
 * what hit each time (a multiplicative factor of the time).
 */
static void
two_make(struct two *w, size_t nc, size_t n, const double *lv, struct rng *r,
    double (*hit)(double))
{
	size_t	j, k;

	memset(w, 0, sizeof *w);
	for (j = 0; j < nc; j++) {
		for (k = 0; k < n; k++) {
			w->t[j][k] = (double)(3 * k + j);
			w->x[j][k] = lv[j] * (1 + 0.003 * rng_normal(r)) *
			    hit(w->t[j][k]);
			w->b[j][k] = "boot-a";
		}
		w->c[j].samples = w->x[j];
		w->c[j].nr_samples = n;
		w->c[j].times = w->t[j];
		w->c[j].boots = w->b[j];
	}
}

static double
drift_hit(double t)
{
	return 1 + 0.10 * t / 144;
}

static double
burst_hit(double t)
{
	return t >= 36 && t < 54 ? 0.8 : 1;
}

static void
test_drift(void)
{
	struct bisect_block_fit	 bf;
	struct comparison	 raw, adj;
	struct two		 w;
	struct rng		 r;
	const double		 lv[2] = { 100, 99 };
	size_t			 n;

	rng_seed(&r, 11);
	two_make(&w, 2, 48, lv, &r, drift_hit);
	n = bisect_block_adjust(&bf, w.c, NULL, 2);
	ok(n > 0 && bf.windows.applied && bf.samples != NULL &&
	    bf.samples[0] != NULL && bf.samples[1] != NULL,
	    "drift: the windows are taken out (%zu fitted, p %g)", n,
	    bf.windows.p);
	compare_samples(&raw, w.x[0], 48, w.x[1], 48, NULL);
	if (bf.samples != NULL && bf.samples[0] != NULL &&
	    bf.samples[1] != NULL) {
		compare_samples(&adj, bf.samples[0], 48, bf.samples[1], 48,
		    NULL);
		ok(raw.p_value > 0.05 && adj.p_value < 1e-6 &&
		    adj.ci_lo < -1 && adj.ci_hi > -1,
		    "drift: -1%% hidden in the raw samples (p %.3g) is seen "
		    "with the drift out (%.2f%% [%.2f, %.2f], p %.3g)",
		    raw.p_value, adj.change_pct, adj.ci_lo, adj.ci_hi,
		    adj.p_value);
	} else
		ok(0, "drift: adjusted samples");
	bisect_block_fit_release(&bf);
}

static void
test_burst(void)
{
	struct bisect_block_fit	 bf;
	struct two		 w;
	struct rng		 r;
	const double		 lv[2] = { 100, 100 };
	double			 before = 0, after = 0;
	size_t			 j, k;

	rng_seed(&r, 12);
	two_make(&w, 2, 48, lv, &r, burst_hit);
	bisect_block_adjust(&bf, w.c, NULL, 2);
	ok(bf.windows.applied, "burst: the windows are taken out (p %g)",
	    bf.windows.p);
	for (j = 0; j < 2 && bf.samples != NULL && bf.samples[j] != NULL;
	    j++)
		for (k = 0; k < 48; k++) {
			if (!(w.t[j][k] >= 36 && w.t[j][k] < 54))
				continue;
			before += fabs(w.x[j][k] - 100);
			after += fabs(bf.samples[j][k] - 100);
		}
	ok(before > 0 && after < 0.5 * before,
	    "burst: a burst over one window of both sides comes out (off by %.1f -> %.1f)",
	    before, after);
	bisect_block_fit_release(&bf);

	/* the same runs without times: nothing to block on */
	for (j = 0; j < 2; j++) {
		w.c[j].times = NULL;
		w.c[j].boots = NULL;
	}
	ok(bisect_block_adjust(&bf, w.c, NULL, 2) == 0 && bf.samples == NULL,
	    "no times, no boots: samples left alone");
	bisect_block_fit_release(&bf);
}

static void
test_boots(void)
{
	struct bisect_block_fit	 bf;
	struct bisect_commit	 c[3];
	double			 x[3][16];
	const char		*b[3][16];
	struct rng		 r;
	size_t			 j, k;
	int			 exact = 1;

	/* one machine rebooted once: both boots ran all three commits */
	rng_seed(&r, 13);
	memset(c, 0, sizeof c);
	for (j = 0; j < 3; j++) {
		for (k = 0; k < 16; k++) {
			b[j][k] = k < 8 ? "boot-1" : "boot-2";
			x[j][k] = (100 + j) * (k < 8 ? 1 : 1.05) *
			    (1 + 0.003 * rng_normal(&r));
		}
		c[j].samples = x[j];
		c[j].nr_samples = 16;
		c[j].boots = b[j];
	}
	bisect_block_adjust(&bf, c, NULL, 3);
	ok(bf.boots.applied && bf.boots.nr_fitted == 2 &&
	    fabs(bf.boots.offset[1] - bf.boots.offset[0] - log(1.05)) < 0.004,
	    "a boot shared by three commits: its offset comes out (%g)",
	    bf.boots.nr_fitted == 2 ? bf.boots.offset[1] -
	    bf.boots.offset[0] : NAN);
	bisect_block_fit_release(&bf);

	/* qemu: a boot per commit and batch, one of them 5% off */
	for (j = 0; j < 3; j++)
		for (k = 0; k < 16; k++) {
			static const char *const name[3][2] = {
				{ "q0a", "q0b" }, { "q1a", "q1b" },
				{ "q2a", "q2b" }
			};

			b[j][k] = name[j][k < 8 ? 0 : 1];
			x[j][k] = 100 * (j == 1 && k >= 8 ? 0.95 : 1) *
			    (1 + 0.003 * rng_normal(&r));
		}
	bisect_block_adjust(&bf, c, NULL, 3);
	ok(bf.boots.nr_fitted == 0 && !bf.boots.applied,
	    "boots of one commit each: no boot offset is fitted");
	for (j = 0; j < 3 && bf.samples != NULL; j++)
		if (bf.samples[j] != NULL)
			for (k = 0; k < 16; k++)
				exact &= bf.samples[j][k] == x[j][k] ||
				    BISECT_BLOCK_WIDEN;
	ok(exact, "and the samples keep the boot's offset");
	ok(bf.unit_p < BISECT_BLOCK_UNIT_ALPHA,
	    "the units test sees the boots differ more than runs (F %.1f, "
	    "p %.3g)", bf.unit_f, bf.unit_p);
	bisect_block_fit_release(&bf);
}

#define NR_CASES	300

static void
test_nested_reference(void)
{
	struct strbuf	 in = STRBUF_INIT, out = STRBUF_INIT;
	struct rng	 r;
	double		 (*y)[64] = xcalloc(NR_CASES, sizeof *y);
	size_t		 (*g)[64] = xcalloc(NR_CASES, sizeof *g);
	size_t		 (*u)[64] = xcalloc(NR_CASES, sizeof *u);
	size_t		 *n = xcalloc(NR_CASES, sizeof *n);
	char		 tmpl[] = "/tmp/bisectd-block.XXXXXX";
	char		*script, *line, *next, *end;
	const char	*python;
	unsigned	 id, seen = 0, bad = 0;
	size_t		 i, k, groups, units, per;
	double		 ref[4], got[4], sd;
	int		 fd, status, f;

	rng_seed(&r, 20261202);
	for (id = 0; id < NR_CASES; id++) {
		groups = 1 + rng_below(&r, 4);
		sd = rng_uniform(&r) * 0.05;
		for (k = 0; k < groups; k++) {
			units = 1 + rng_below(&r, 4);
			for (i = 0; i < units; i++) {
				double off = sd * rng_normal(&r);

				per = 1 + rng_below(&r, 5);
				while (per-- > 0 && n[id] < 64) {
					y[id][n[id]] = (100 + 3 * k) * (1 + off +
					    0.01 * rng_normal(&r));
					g[id][n[id]] = k;
					u[id][n[id]] = k * 8 + i;
					n[id]++;
				}
			}
		}
		strbuf_addf(&in, "%u %zu", id, n[id]);
		for (i = 0; i < n[id]; i++)
			strbuf_addf(&in, " %.17g", y[id][i]);
		for (i = 0; i < n[id]; i++)
			strbuf_addf(&in, " %zu", g[id][i]);
		for (i = 0; i < n[id]; i++)
			strbuf_addf(&in, " %zu", u[id][i]);
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
	script = script_find("tests/unit/block-reference.py");
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
		for (f = 0; f < 4; f++)
			ref[f] = strtod(end, &end);
		seen++;
		got[3] = bisect_block_nested_f(y[id], g[id], u[id], n[id],
		    &got[0], &got[1], &got[2]);
		for (f = 0; f < 4; f++) {
			if (isnan(ref[f]) && isnan(got[f]))
				continue;
			if (isnan(ref[f]) || isnan(got[f]) ||
			    fabs(got[f] - ref[f]) > 1e-9 * fmax(fabs(ref[f]),
			    f == 3 ? 1e-300 : 0)) {
				bad++;
				diag("case %u field %d: got %.17g, want %.17g",
				    id, f, got[f], ref[f]);
				break;
			}
		}
	}
	ok(seen == NR_CASES && bad == 0,
	    "nested F, df and p agree with SciPy to 1e-9 (%u cases, %u off)",
	    seen, bad);
out:
	unlink(tmpl);
	strbuf_release(&in);
	strbuf_release(&out);
	free(y);
	free(g);
	free(u);
	free(n);
}

int
main(void)
{
	test_drift();
	test_burst();
	test_boots();
	test_nested_reference();
	return tap_done();
}
