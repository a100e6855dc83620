/*
 * Program files (docs/jobs.md, "Adapter files"): a benchmark described
 * as data -- its typed parameters and defaults, the argv built from
 * them, the Debian package, the line patterns or JSON paths that read
 * its output, and its metrics with their directions. The files under
 * jobs/library/programs/ are compiled in and parsed once; the agent runs
 * them (agents/testcase-data.c), bisectctl checks jobs against them and
 * jobs/metric.c learns their metrics' directions from them.
 */
#ifndef JOBS_PROGRAM_H
#define JOBS_PROGRAM_H

#include <stddef.h>

#include "jobs/metric.h"

struct expr;

#define PROGRAM_MAX_LINE	4096	/* longer output lines are skipped */
#define PROGRAM_MAX_CAPTURES	16	/* per pattern */

enum program_type {
	PROGRAM_COUNT,		/* N or N% of the CPUs */
	PROGRAM_SIZE,		/* 64M: bytes */
	PROGRAM_DURATION,	/* 60s, 5m: seconds */
	PROGRAM_INTEGER,
	PROGRAM_WORD,		/* one of choices */
	PROGRAM_STRING,
	PROGRAM_FILE,		/* an absolute path */
};

struct program_param {
	char			 *name;
	enum program_type	  type;
	char			 *dflt;		/* as a job writes it; or NULL */
	struct expr		 *dflt_expr;	/* "=EXPR"; or NULL */
	char			**choices;	/* word */
	size_t			  nr_choices;
	long long		  min, max;	/* integer */
	char			 *required;	/* why a job must give it */
};

enum program_cond {
	PROGRAM_ARG_PLAIN,	/* text is a template */
	PROGRAM_ARG_SET,	/* text is a parameter name */
	PROGRAM_ARG_EQ,		/* parameter text equals value */
	PROGRAM_ARG_NE,
};

struct program_arg {
	enum program_cond	 cond;
	char			*text;
	char			*value;
	struct program_arg	*then, *otherwise;
	size_t			 nr_then, nr_otherwise;
};

enum program_token_kind {
	PROGRAM_TOKEN_CHAR,	/* a literal character */
	PROGRAM_TOKEN_BLANK,	/* one or more blanks */
	PROGRAM_TOKEN_NUMBER,	/* capture */
	PROGRAM_TOKEN_WORD,	/* capture */
	PROGRAM_TOKEN_SKIP,	/* any text, the shortest */
};

struct program_token {
	enum program_token_kind	 kind;
	char			 c;
	unsigned		 capture;	/* index into names */
};

struct program_line {
	char			 *text;
	struct program_token	 *tokens;
	size_t			  nr_tokens;
	char			**names;	/* of the captures */
	int			 *is_word;
	size_t			  nr_names;
	int			  record;
};

struct program_capture {
	double		 number;
	const char	*word;		/* in the line, not terminated */
	size_t		 word_len;
};

enum program_step_kind {
	PROGRAM_STEP_RUN,		/* must succeed */
	PROGRAM_STEP_BACKGROUND,	/* a server, killed after the run */
	PROGRAM_STEP_WAIT,		/* retried until it succeeds */
};

/* One command of "setup:", run before argv. */
struct program_step {
	enum program_step_kind	 kind;
	unsigned		 tries;		/* wait */
	struct program_arg	*argv;
	size_t			 nr_argv;
};

struct program_var {
	char	*name;
	char	*path;		/* dotted, inside a record */
};

struct program_metric {
	char			*name;		/* may hold {VAR} */
	char			*group;		/* VAR, or NULL */
	struct expr		*value;		/* or NULL */
	struct expr		*instances;	/* or NULL */
	int			 optional;
	struct metric_info	 info;		/* pattern: PROGRAM.NAME glob */
};

struct program {
	char			 *name;
	char			 *package;
	char			 *description;
	char			**programs;	/* LKP's others it does too */
	size_t			  nr_programs;
	struct program_param	 *params;
	size_t			  nr_params;
	char			**mkdir;
	size_t			  nr_mkdir;
	char			 *repeat;	/* N times, when it has a value */
	char			 *repeat_for;	/* else for S seconds, when set */
	struct program_step	 *steps;	/* setup: */
	size_t			  nr_steps;
	struct program_arg	 *argv;
	size_t			  nr_argv;
	char			 *from;		/* NULL: the run's output */
	struct program_line	 *lines;
	size_t			  nr_lines;
	char			 *json_records;	/* NULL: lines */
	struct program_var	 *json_vars;
	size_t			  nr_json_vars;
	struct program_metric	 *metrics;
	size_t			  nr_metrics;
};

/* Parse one program file; errors are "NAME:LINE:COL: message". */
int	 program_parse(const char *name, const char *buf, size_t len,
	     struct program **out, char **cause);
void	 program_free(struct program *);

/*
 * The built-in programs, parsed at the first call. -1 with *cause if one
 * of them does not parse (a build that let a bad file in).
 */
int	 program_table(const struct program *const **out, size_t *nr,
	     char **cause);
/* The built-in program for a testcase, or NULL. */
const struct program *program_find(const char *name);
const struct program_param *program_param(const struct program *,
	     const char *name);
/*
 * Whether name is one of the LKP programs the file does as well as its
 * own ("programs: [iperf-server]"): their markers and options are its.
 */
int	 program_covers(const struct program *, const char *name);
/* A built-in program's metric by its full name, or NULL. */
const struct metric_info *program_metric_info(const char *metric);
/* Whether name is a template built-in ({workdir}, {nr_cpu}...). */
int	 program_is_builtin(const char *name);

/*
 * A value as the job writes it, checked against the parameter's type.
 * With nr_cpu 0 only its form is checked (a count is not resolved);
 * otherwise *number gets its value (count: tasks, size: bytes,
 * duration: seconds, integer) and *text its template text.
 */
int	 program_value(const struct program_param *, const char *value,
	     unsigned nr_cpu, double *number, char **text, char **cause);

/* Compile a line pattern; match it against one line (no newline). */
int	 program_line_compile(const char *text, struct program_line *out,
	     char **cause);
void	 program_line_release(struct program_line *);
/* 1 with caps[0..nr_names) filled, or 0 for no match. */
int	 program_line_match(const struct program_line *, const char *line,
	     size_t len, struct program_capture *caps);

#endif
