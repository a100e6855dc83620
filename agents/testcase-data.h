/*
 * What running a program file (testcase-data.c: its parameters, argv and
 * setup steps) and reading its output back (testcase-data-parse.c)
 * share: the run's resolved parameters (docs/jobs.md, "Adapter files").
 */
#ifndef AGENTS_TESTCASE_DATA_H
#define AGENTS_TESTCASE_DATA_H

#include <stddef.h>

struct program;
struct testcase_ctx;

/* A parameter's value in a run. */
struct data_value {
	int	 set;
	double	 number;	/* NAN: not a number */
	char	*text;
};

struct data_run {
	const struct program		*p;
	const struct testcase_ctx	*ctx;
	struct data_value		*vals;	/* one per parameter */
	/* testcase_data_required: files are not looked for; what is unset */
	int				 check;
	const char			*missing;
};

void	 testcase_data_release(struct data_run *);
/* Each parameter's value in order: the job's, else its default. */
int	 testcase_data_resolve(struct data_run *, char **cause);
/* A template with its {NAME}s and {WORKDIR}... as one argument. */
int	 testcase_data_expand(struct data_run *, const char *tmpl, char **out,
	     char **cause);

#endif
