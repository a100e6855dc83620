/*
 * stats/fdr against statsmodels: some 400 families of p-values from a
 * fixed seed (1 to 400 tests, ties, zeros and ones, a few true effects
 * among many nulls, NaNs left out) go through fdr_bh and through
 * statsmodels' multipletests(method="fdr_bh") (tests/unit/
 * fdr-reference.py); every adjusted value must agree to 1e-12 relative.
 * A missing statsmodels is a failure: make check installs it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/fdr.h"
#include "stats/rng.h"
#include "tests/unit/reference.h"
#include "tests/unit/tap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define NR_FAMILIES	400
#define REL		1e-12

struct family {
	size_t	 n;
	double	*p;
};

static void
family_make(struct rng *r, struct family *f, size_t k)
{
	size_t	i;
	double	u;

	f->n = 1 + (size_t)rng_below(r, k % 4 == 0 ? 400 : 40);
	f->p = xcalloc(f->n, sizeof *f->p);
	for (i = 0; i < f->n; i++) {
		u = rng_uniform(r);
		switch (rng_below(r, 10)) {
		case 0:				/* a true effect */
			f->p[i] = pow(u, 8) * 1e-3;
			break;
		case 1:				/* ties */
			f->p[i] = i > 0 ? f->p[i - 1] : u;
			break;
		case 2:
			f->p[i] = rng_below(r, 2) ? 0.0 : 1.0;
			break;
		default:			/* a null */
			f->p[i] = u;
		}
	}
}

static void
check_known(void)
{
	double	p[] = { 0.01, 0.04, 0.03, 0.005, NAN, 0.5 };
	double	q[6];

	fdr_bh(q, p, 6);
	/* m = 5: sorted 0.005 0.01 0.03 0.04 0.5 -> 0.025 0.025 0.05 0.05 0.5 */
	is_close(q[3], 0.025, 1e-15, "smallest p scaled by m");
	is_close(q[0], 0.025, 1e-15, "running minimum from above");
	is_close(q[2], 0.05, 1e-15, "third");
	is_close(q[1], 0.05, 1e-15, "fourth");
	is_close(q[5], 0.5, 1e-15, "largest unchanged");
	ok(isnan(q[4]), "a NaN p stays out of the family");
	fdr_bh(q, p, 0);
	ok(1, "an empty family is fine");
}

int
main(void)
{
	struct family	 fam[NR_FAMILIES];
	struct rng	 r;
	struct strbuf	 in = STRBUF_INIT, out = STRBUF_INIT;
	char		 path[] = "/tmp/bisectd-fdr-XXXXXX", *script, *line;
	char		*save = NULL, *tok, *save2;
	double		*q, want, worst = 0;
	size_t		 k, i, bad = 0;
	int		 fd, status;
	FILE		*f;

	check_known();
	rng_seed(&r, 20261202);
	for (k = 0; k < NR_FAMILIES; k++) {
		family_make(&r, &fam[k], k);
		for (i = 0; i < fam[k].n; i++)
			strbuf_addf(&in, "%s%.17g", i ? " " : "", fam[k].p[i]);
		strbuf_addch(&in, '\n');
	}
	if ((fd = mkstemp(path)) < 0 || (f = fdopen(fd, "w")) == NULL) {
		ok(0, "a file of cases");
		return tap_done();
	}
	fputs(in.buf, f);
	fclose(f);
	script = script_find("tests/unit/fdr-reference.py");
	ok(script_run("/usr/bin/python3", script, path, &out, &status) == 0,
	    "statsmodels computed the reference (python3-statsmodels)");
	unlink(path);
	line = strtok_r(out.buf, "\n", &save);
	for (k = 0; k < NR_FAMILIES && line != NULL; k++) {
		q = xcalloc(fam[k].n, sizeof *q);
		fdr_bh(q, fam[k].p, fam[k].n);
		tok = strtok_r(line, " ", &save2);
		for (i = 0; i < fam[k].n; i++) {
			if (tok == NULL) {
				bad++;
				break;
			}
			want = strtod(tok, NULL);
			if (fabs(q[i] - want) > REL * fmax(fabs(want), 1e-300)) {
				if (bad++ < 5)
					printf("# family %zu test %zu: %.17g, "
					    "statsmodels %.17g\n", k, i, q[i],
					    want);
			}
			if (want > 0 && fabs(q[i] - want) / want > worst)
				worst = fabs(q[i] - want) / want;
			tok = strtok_r(NULL, " ", &save2);
		}
		free(q);
		line = strtok_r(NULL, "\n", &save);
	}
	is_int((int)k, NR_FAMILIES, "every family had a reference line");
	ok(bad == 0, "%d families: every adjusted p within %g of statsmodels "
	    "(worst %.2g)", NR_FAMILIES, REL, worst);
	for (k = 0; k < NR_FAMILIES; k++)
		free(fam[k].p);
	free(script);
	strbuf_release(&in);
	strbuf_release(&out);
	return tap_done();
}
