/*
 * The noise of bench/bisect-sim: run k of a commit drawn around its true
 * mean under the scenario's model (gaussian, heavy-tailed, bimodal, drift,
 * CPU-hog bursts seen or hidden, boots), and each machine's offset
 * (docs/design.md, "File notes", bench/bisect-sim.c, has the models).
 */
#include <gsl/gsl_randist.h>

#include "bench/bisect-sim.h"

const char	*sim_noise_machine[MAX_SAMPLES];

/*
 * Run k of a commit whose true mean is mean; *disturbed (may be NULL) is
 * set when the interference monitor would flag the run.
 */
double
sim_noise_sample(struct sim_noise *s, double mean, size_t k, int *disturbed)
{
	double	e = gsl_ran_gaussian(s->rng, SD);

	if (disturbed != NULL)
		*disturbed = 0;

	switch (s->noise) {
	case GAUSS:
		break;
	case HEAVY:
		if (gsl_rng_uniform(s->rng) < 0.05)
			e += gsl_rng_uniform(s->rng) < 0.5 ? 0.30 : -0.30;
		break;
	case BIMODAL:
		e += gsl_rng_uniform(s->rng) < 0.5 ? 2 * SD : -2 * SD;
		break;
	case DRIFT:
		s->drift += gsl_ran_gaussian(s->rng, 0.1 * SD);
		e += s->drift;
		break;
	case BURST:
	case HIDDEN:
		if (s->burst_left == 0 && gsl_rng_uniform(s->rng) < 1.0 / 12) {
			s->burst_left = 2 + (unsigned)gsl_rng_uniform_int(s->rng,
			    5);
			s->burst = 0.05 + 0.15 * gsl_rng_uniform(s->rng);
		}
		if (s->burst_left > 0) {
			e -= s->burst;
			s->burst_left--;
			if (disturbed != NULL && s->noise == BURST)
				*disturbed = 1;
		}
		break;
	case BOOT:
		e += s->boot_offset;
		break;
	}
	s->clock++;
	if (s->machines > 1)
		mean *= s->factor[k % s->machines];
	return mean * (1 + e);
}
