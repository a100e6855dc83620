/*
 * What testcase-check.c (the parameter check) and testcase-check-values.c
 * (the values a testcase's parameters and metric must have) share
 * (docs/jobs.md, "Every parameter is applied or refused").
 */
#ifndef AGENTS_TESTCASE_CHECK_H
#define AGENTS_TESTCASE_CHECK_H

#include <stddef.h>

struct job;
struct job_param;
struct testcase_adapter;

/* The nearest known name to key, for "did you mean". */
struct testcase_check_near {
	const char	*key;
	const char	*best;
	size_t		 distance;
};

void	 testcase_check_try(struct testcase_check_near *,
	     const char *const *list);
const struct job_param *testcase_check_param(const struct job *,
	     const char *key);
/* -1 with *cause "FILE:LINE:COL: msg" at p (or the file). */
int	 testcase_check_fail(char **cause, const struct job *,
	     const struct job_param *p, const char *msg);
/* Each declared parameter's value, and the installed perf's benchmarks. */
int	 testcase_check_values(const struct job *,
	     const struct testcase_adapter *, char **cause);
/* A headline metric named after the testcase is one it reports. */
int	 testcase_check_values_metric(const struct job *,
	     const struct testcase_adapter *, char **cause);

#endif
