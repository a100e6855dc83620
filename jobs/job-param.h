/*
 * Internal to jobs/: the keys a job file knows and how each value is
 * checked (jobs/job-param.c), for the walk over the YAML tree in
 * jobs/job.c. Not part of the module's API (jobs/job.h).
 */
#ifndef JOBS_JOB_PARAM_H
#define JOBS_JOB_PARAM_H

#include <stddef.h>

#include "jobs/yamlnode.h"

#define nitems(a)		(sizeof (a) / sizeof (a)[0])

struct job_param_key;
/* Check one scalar of key; *out gets its normalised value. */
typedef int (*job_param_check_fn)(const struct job_param_key *,
    const char *file, const char *key, const struct yamlnode *, char **out,
    char **cause);

struct job_param_key {
	const char		 *name;		/* NULL: any name */
	job_param_check_fn	  check;
	const char *const	 *choices;
	int			  axis;		/* a list is a matrix axis */
};

/* Letters, digits and the characters of extra; not empty. */
int	 job_param_is_name(const char *s, const char *extra);
/*
 * The key of a top-level name: a known one (runtime, thp_enabled...), or
 * the generic testcase parameter, whose name is NULL.
 */
const struct job_param_key *job_param_key(const char *name);
/*
 * The key of a name inside the map requires:, sysctl: or kconfig:, or -1
 * with *cause pointing at the name.
 */
int	 job_param_map_key(const char *file, const char *map,
	     const struct yamlnode *key, const struct job_param_key **out,
	     char **cause);

/* Decimal digits only, at most max; no sign, no spaces. 0, or -1. */
int	 job_param_uint(const char *s, size_t len, unsigned long long max,
	     unsigned long long *out);

#endif
