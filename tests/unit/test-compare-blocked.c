/*
 * compare_blocked: runs of two commits spread over several machines.
 * Generated cases (2 to 5 machines with offsets up to 20% of the level,
 * unbalanced, machines that ran one side only, negative levels, one
 * machine, the machine confounded with the side) against
 * tests/unit/blocked-reference.py, which fits the same model by NumPy's
 * least squares on an explicit design matrix; then what blocking is for:
 * machine offsets no longer hide a change that the plain test misses.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/compare.h"
#include "stats/rng.h"
#include "tests/unit/reference.h"
#include "tests/unit/tap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define NR_CASES	600
#define REL		1e-9

struct bcase {
	double	 alpha;
	size_t	 na, nb;
	double	*a, *b;
	size_t	*ma, *mb;
};

static void
case_add(struct bcase *c, struct rng *r, int side, size_t machine,
    double level)
{
	if (side == 0) {
		c->a[c->na] = level + level * 0.01 * rng_normal(r);
		c->ma[c->na++] = machine;
	} else {
		c->b[c->nb] = level + level * 0.01 * rng_normal(r);
		c->mb[c->nb++] = machine;
	}
}

static void
case_make(struct bcase *c, struct rng *r, unsigned id)
{
	static const double	alphas[] = { 0.05, 0.01, 0.1 };
	size_t			k, m, j, per_a, per_b;
	double			mu, offset, shift;

	memset(c, 0, sizeof *c);
	c->alpha = alphas[id % 3];
	c->a = xcalloc(64, sizeof *c->a);
	c->b = xcalloc(64, sizeof *c->b);
	c->ma = xcalloc(64, sizeof *c->ma);
	c->mb = xcalloc(64, sizeof *c->mb);
	mu = (id % 7 == 0 ? -1 : 1) * pow(10, (double)rng_below(r, 7));
	shift = (rng_uniform(r) - 0.5) * 0.06;
	k = id % 11 == 0 ? 1 : 2 + rng_below(r, 4);
	for (m = 0; m < k; m++) {
		offset = (rng_uniform(r) - 0.5) * 0.4;
		per_a = 1 + rng_below(r, 5);
		per_b = 1 + rng_below(r, 5);
		/* some machines ran one side only; one case in 13 all do */
		if (id % 13 == 0 || (m > 0 && rng_below(r, 4) == 0)) {
			if ((m + id) % 2 == 0)
				per_a = 0;
			else
				per_b = 0;
		}
		for (j = 0; j < per_a; j++)
			case_add(c, r, 0, 10 + m * 7, mu * (1 + offset));
		for (j = 0; j < per_b; j++)
			case_add(c, r, 1, 10 + m * 7,
			    mu * (1 + offset) * (1 + shift));
	}
	/* both sides need two samples for the plain comparison */
	while (c->na < 2)
		case_add(c, r, 0, 10, mu);
	while (c->nb < 2)
		case_add(c, r, 1, 10, mu * (1 + shift));
}

static void
case_write(struct strbuf *sb, unsigned id, const struct bcase *c)
{
	size_t	i;

	strbuf_addf(sb, "%u %.17g %zu %zu", id, c->alpha, c->na, c->nb);
	for (i = 0; i < c->na; i++)
		strbuf_addf(sb, " %.17g", c->a[i]);
	for (i = 0; i < c->na; i++)
		strbuf_addf(sb, " %zu", c->ma[i]);
	for (i = 0; i < c->nb; i++)
		strbuf_addf(sb, " %.17g", c->b[i]);
	for (i = 0; i < c->nb; i++)
		strbuf_addf(sb, " %zu", c->mb[i]);
	strbuf_addch(sb, '\n');
}

static int
close_enough(double got, double want, double scale)
{
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got);
	if (isinf(want) || isinf(got))
		return got == want;
	return fabs(got - want) <= REL * fmax(fabs(want), scale);
}

static void
against_reference(void)
{
	struct bcase		*cases = xcalloc(NR_CASES, sizeof *cases);
	struct compare_opts	 opts;
	struct comparison	 c, plain;
	struct strbuf		 in = STRBUF_INIT, out = STRBUF_INIT;
	struct rng		 r;
	char			 tmpl[] = "/tmp/bisectd-blocked.XXXXXX";
	char			*script, *line, *next, *end;
	const char		*python;
	double			 ref[6], got[6];
	unsigned		 id, seen = 0, bad = 0, blocked = 0, plain_ok = 0;
	long			 blocks;
	int			 fd, status, f;

	rng_seed(&r, 20261130);
	for (id = 0; id < NR_CASES; id++) {
		case_make(&cases[id], &r, id);
		case_write(&in, id, &cases[id]);
	}
	if ((fd = mkstemp(tmpl)) < 0 ||
	    write(fd, in.buf, in.len) != (ssize_t)in.len) {
		ok(0, "cases written to %s", tmpl);
		goto out;
	}
	close(fd);
	if ((python = getenv("BISECTD_PYTHON")) == NULL || *python == '\0')
		python = "/usr/bin/python3";
	script = script_find("tests/unit/blocked-reference.py");
	status = 0;
	if (!ok(script_run(python, script, tmpl, &out, &status) == 0,
	    "reference ran: %s %s", python, script)) {
		free(script);
		goto out;
	}
	free(script);
	memset(&opts, 0, sizeof opts);
	for (line = out.buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		id = (unsigned)strtoul(line, &end, 10);
		if (id >= NR_CASES)
			break;
		blocks = strtol(end, &end, 10);
		for (f = 0; f < 6; f++)
			ref[f] = strtod(end, &end);
		seen++;
		opts.alpha = cases[id].alpha;
		if (compare_blocked(&c, cases[id].a, cases[id].ma,
		    cases[id].na, cases[id].b, cases[id].mb, cases[id].nb,
		    &opts) != 0) {
			bad++;
			diag("case %u: compare_blocked failed", id);
			continue;
		}
		if (blocks == 0) {
			/* not blocked: exactly the plain comparison */
			compare_samples(&plain, cases[id].a, cases[id].na,
			    cases[id].b, cases[id].nb, &opts);
			if (c.blocks == 0 && c.p_value == plain.p_value &&
			    c.change_pct == plain.change_pct)
				plain_ok++;
			else {
				bad++;
				diag("case %u: should not be blocked", id);
			}
			continue;
		}
		blocked++;
		got[0] = c.change_pct;
		got[1] = c.t;
		got[2] = c.df;
		got[3] = c.p_value;
		got[4] = c.ci_lo;
		got[5] = c.ci_hi;
		for (f = 0; f < 6; f++) {
			/* p near 0 and the interval: relative to its width */
			if (!close_enough(got[f], ref[f], f == 3 ? 1e-300 :
			    f >= 4 ? fabs(ref[5] - ref[4]) : 0)) {
				bad++;
				diag("case %u field %d: got %.17g, want %.17g",
				    id, f, got[f], ref[f]);
				break;
			}
		}
		if (f == 6 && (long)c.blocks != blocks) {
			bad++;
			diag("case %u: %u blocks, want %ld", id, c.blocks,
			    blocks);
		}
	}
	is_int(seen, NR_CASES, "the reference answered every case");
	ok(blocked > NR_CASES / 2 && plain_ok > 30,
	    "%u blocked cases, %u left plain", blocked, plain_ok);
	is_int(bad, 0, "every field within %g of NumPy/SciPy's", REL);
out:
	unlink(tmpl);
	for (id = 0; id < NR_CASES; id++) {
		free(cases[id].a);
		free(cases[id].b);
		free(cases[id].ma);
		free(cases[id].mb);
	}
	free(cases);
	strbuf_release(&in);
	strbuf_release(&out);
}

/*
 * Three machines 5% apart, a -1% change at 0.5% noise, each commit run
 * twice on each: the machines' spread swamps the plain test; blocked, the
 * change is plain to see, and its interval holds the truth.
 */
static void
blocking_helps(void)
{
	static const double	offset[] = { 0, 0.05, -0.05 };
	struct compare_opts	opts;
	struct comparison	plain, blocked;
	struct rng		r;
	double			a[6], b[6];
	size_t			ma[6], mb[6], i;
	unsigned		trial, found_plain = 0, found_blocked = 0;
	unsigned		covered = 0;

	memset(&opts, 0, sizeof opts);
	opts.direction = 1;
	rng_seed(&r, 7);
	for (trial = 0; trial < 200; trial++) {
		for (i = 0; i < 6; i++) {
			ma[i] = mb[i] = i / 2;
			a[i] = 1000 * (1 + offset[i / 2]) *
			    (1 + 0.005 * rng_normal(&r));
			b[i] = 1000 * (1 + offset[i / 2]) * 0.99 *
			    (1 + 0.005 * rng_normal(&r));
		}
		compare_samples(&plain, a, 6, b, 6, &opts);
		compare_blocked(&blocked, a, ma, 6, b, mb, 6, &opts);
		found_plain += plain.verdict == COMPARE_REGRESSION;
		found_blocked += blocked.verdict == COMPARE_REGRESSION;
		covered += blocked.ci_lo <= -1 && -1 <= blocked.ci_hi;
	}
	diag("-1%% on 3 machines 5%% apart: plain finds %u/200, blocked "
	    "%u/200; the interval holds -1%% %u/200", found_plain,
	    found_blocked, covered);
	ok(found_plain < 40, "the plain test mostly misses it");
	ok(found_blocked > 140, "blocked, it is found (power about 0.85)");
	ok(covered >= 180, "the 95%% interval covers the truth");
	is_int(blocked.blocks, 3, "three machines");
}

int
main(void)
{
	against_reference();
	blocking_helps();
	return tap_done();
}
