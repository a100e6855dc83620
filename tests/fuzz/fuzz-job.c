/*
 * libFuzzer target for job files: job_parse on arbitrary bytes must not
 * crash or leak, every error must carry the "NAME:LINE:COL: " prefix, and
 * every job it accepts must re-parse from its canonical text to the same
 * single job (checked on the first and last few jobs of a large matrix).
 * LKP includes are served from memory, never from the file system: two
 * fixed files and "self.yaml", the input itself.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job.h"
#include "util/xalloc.h"

static const char *const fuzz_files[][2] = {
	{ "./a.yaml", "testcase: t\nfs: [a, b]\nt:\n  x: 1\n---\nfs: c\n" },
	{ "/inc/b.yaml", "perf-profile:\n  delay: 1\nruns: 2\n" },
};

struct fuzz_input {
	const uint8_t	*data;
	size_t		 size;
};

static int
fuzz_read(const char *path, char **buf, size_t *len, void *payload,
    char **cause)
{
	const struct fuzz_input	*in = payload;
	size_t			 i;

	(void)cause;
	if (strcmp(path, "./self.yaml") == 0) {
		*buf = xstrndup((const char *)in->data, in->size);
		*len = in->size;
		return 0;
	}
	for (i = 0; i < sizeof fuzz_files / sizeof fuzz_files[0]; i++) {
		if (strcmp(path, fuzz_files[i][0]) == 0) {
			*buf = xstrdup(fuzz_files[i][1]);
			*len = strlen(*buf);
			return 0;
		}
	}
	return 1;
}

static int
fuzz_located(const char *cause)
{
	static const char *const names[] = {
		"fuzz:", "./self.yaml:", "./a.yaml:", "/inc/b.yaml:"
	};
	const char	*p = NULL;
	size_t		 i;

	for (i = 0; i < sizeof names / sizeof names[0] && p == NULL; i++) {
		if (strncmp(cause, names[i], strlen(names[i])) == 0)
			p = cause + strlen(names[i]);
	}
	if (p == NULL)
		return 0;
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
	static const char *const dirs[] = { "/inc" };
	struct fuzz_input	  in = { data, size };
	struct job_options	  opts;
	struct job		**jobs = NULL;
	size_t			  nr = 0, i;
	char			 *cause = NULL, *d;

	memset(&opts, 0, sizeof opts);
	opts.read = fuzz_read;
	opts.payload = &in;
	opts.include_dirs = dirs;
	opts.nr_include_dirs = 1;
	if (job_parse_with("fuzz", (const char *)data, size, &opts, &jobs, &nr,
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
