/*
 * libFuzzer target for job files: job_parse on arbitrary bytes must not
 * crash or leak, every error must carry the "NAME:LINE:COL: " prefix, and
 * every job it accepts must re-parse from its canonical text to the same
 * single job (checked on the first and last few jobs of a large matrix).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job.h"

static int
fuzz_located(const char *cause)
{
	const char	*p;

	if (strncmp(cause, "fuzz:", 5) != 0)
		return 0;
	p = cause + 5;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != ':' || !isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return strncmp(p, ": ", 2) == 0;
}

static void
fuzz_roundtrip(const struct job *job)
{
	struct job	**again = NULL;
	size_t		  nr = 0, i;
	char		 *cause = NULL;

	if (job_parse("canonical", job->canonical, strlen(job->canonical),
	    &again, &nr, &cause) != 0 || nr != 1)
		abort();
	if (again[0]->nr_params != job->nr_params ||
	    strcmp(again[0]->canonical, job->canonical) != 0 ||
	    strcmp(again[0]->id, job->id) != 0)
		abort();
	for (i = 0; i < job->nr_params; i++) {
		if (strcmp(again[0]->params[i].key, job->params[i].key) != 0 ||
		    strcmp(again[0]->params[i].value,
		    job->params[i].value) != 0)
			abort();
	}
	job_list_free(again, nr);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job	**jobs = NULL;
	size_t		  nr = 0, i;
	char		 *cause = NULL, *d;

	if (job_parse("fuzz", (const char *)data, size, &jobs, &nr,
	    &cause) != 0) {
		if (cause == NULL || jobs != NULL || nr != 0 ||
		    !fuzz_located(cause))
			abort();
		free(cause);
		return 0;
	}
	if (nr == 0 || nr > JOB_MAX_JOBS)
		abort();
	for (i = 0; i < nr; i++) {
		if (i < 4 || i + 2 >= nr)
			fuzz_roundtrip(jobs[i]);
		d = job_describe(jobs[i]);
		free(d);
	}
	job_list_free(jobs, nr);
	return 0;
}
