/*
 * The likelihood behind the bisection posterior: a Student-t (4 degrees
 * of freedom) location-scale family fitted to the range's ends, its scale
 * widened by the locations' uncertainty, so that one wild sample moves the
 * evidence by a bounded amount (docs/design.md, "File notes").
 */
#include <math.h>

#include "stats/bisect-model.h"
#include "stats/bisect-stat.h"

#define BISECT_MODEL_NU		4.0
#define BISECT_MODEL_NATS	3.0

double
bisect_model_scale(const double *const *x, const size_t *n, size_t groups)
{
	return bisect_stat_tscale(x, n, groups, BISECT_MODEL_NU);
}

/* the log-likelihood at loc, and the observed information (times s^2) */
static double
bisect_model_side(const double *x, size_t n, double loc, double s,
    double *info)
{
	double	z, nu = BISECT_MODEL_NU;
	size_t	i;

	*info = 0;
	for (i = 0; i < n; i++) {
		z = (x[i] - loc) / s;
		*info += (nu + 1) * (nu - z * z) / ((nu + z * z) * (nu + z * z));
	}
	if (*info < 0.5)
		*info = 0.5;
	return bisect_stat_tloglik(x, n, loc, s, nu);
}

double
bisect_model_level(const double *x, size_t n, double scale, double *loc)
{
	double	info;

	if (n == 0) {
		*loc = NAN;
		return 0;
	}
	*loc = bisect_stat_tloc(x, n, BISECT_MODEL_NU, scale);
	return bisect_model_side(x, n, *loc, scale, &info) - 0.5 * log(info);
}

void
bisect_model_fit(struct bisect_model *m, double scale, const double *good,
    size_t ng, const double *bad, size_t nb)
{
	double	v;

	m->scale = scale;
	m->loglik = bisect_model_level(good, ng, scale, &m->good) +
	    bisect_model_level(bad, nb, scale, &m->bad);
	/*
	 * var(t_nu) = nu / (nu - 2) scale^2; a location from n samples is
	 * off by about that over n.
	 */
	v = BISECT_MODEL_NU / (BISECT_MODEL_NU - 2);
	m->scale_good = scale * sqrt(1 + v / (double)(ng > 1 ? ng : 1));
	m->scale_bad = scale * sqrt(1 + v / (double)(nb > 1 ? nb : 1));
	m->effect = fabs(m->bad - m->good) / scale;
}

double
bisect_model_llr(const struct bisect_model *m, const double *x, size_t n)
{
	return bisect_stat_tloglik(x, n, m->bad, m->scale_bad,
	    BISECT_MODEL_NU) - bisect_stat_tloglik(x, n, m->good,
	    m->scale_good, BISECT_MODEL_NU);
}

unsigned
bisect_model_batch(const struct bisect_model *m, unsigned max)
{
	double	want;

	/* one sample moves the log odds by effect^2 / 2 on average */
	want = m->effect > 0 ? 2 * BISECT_MODEL_NATS / (m->effect * m->effect) :
	    (double)max;
	if (!(want < (double)max))
		want = max;
	if (want < 2)
		want = 2;
	return (unsigned)ceil(want);
}
