/*
 * A program parameter's value checked against its type (docs/jobs.md,
 * "Adapter files"): counts (or a percentage of the CPUs), sizes,
 * durations, integers within their bounds, words among their choices,
 * text and absolute paths.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job-param.h"
#include "jobs/program.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define PROGRAM_MAX_COUNT	1000000
#define PROGRAM_MAX_DURATION	(30ULL * 24 * 3600)
#define PROGRAM_MAX_STRING	4096

static int
program_value_clean(const char *s)
{
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return 0;
	}
	return 1;
}

/* A count, or a percentage of nr_cpu (NAN while nr_cpu is unknown). */
static int
program_value_count(const struct program_param *pp, const char *v,
    size_t len, unsigned nr_cpu, double *number, char **cause)
{
	unsigned long long	n;

	if (len > 0 && v[len - 1] == '%')
		len--;
	if (job_param_uint(v, len, PROGRAM_MAX_COUNT, &n) != 0 || n == 0)
		return error_set(cause, "'%s' must be a count or a "
		    "percentage of the CPUs (like 4 or 100%%), not "
		    "'%s'", pp->name, v);
	if (v[len] == '%' && nr_cpu > 0) {
		n = n * nr_cpu / 100;
		if (n == 0)
			n = 1;
		if (n > PROGRAM_MAX_COUNT)
			return error_set(cause, "'%s' asks for %llu "
			    "tasks, more than %d", pp->name, n,
			    PROGRAM_MAX_COUNT);
	}
	if (v[len] == '%' && nr_cpu == 0)
		return 0;
	*number = (double)n;
	return 0;
}

static int
program_value_size(const struct program_param *pp, const char *v,
    size_t len, double *number, char **cause)
{
	unsigned long long	n;
	int			shift = 0;

	if (len > 0 && strchr("KMGTkmgt", v[len - 1]) != NULL) {
		shift = 10 * (int)(strchr("KMGT",
		    toupper((unsigned char)v[len - 1])) - "KMGT" + 1);
		len--;
	}
	if (job_param_uint(v, len, (~0ULL >> shift) >> 1, &n) != 0 ||
	    n == 0)
		return error_set(cause, "'%s' must be a size like 64M "
		    "or 1G, not '%s'", pp->name, v);
	*number = (double)(n << shift);
	return 0;
}

static int
program_value_duration(const struct program_param *pp, const char *v,
    size_t len, double *number, char **cause)
{
	unsigned long long	n, mult = 1;

	if (len > 0 && strchr("smhd", v[len - 1]) != NULL) {
		mult = v[len - 1] == 'd' ? 86400 : v[len - 1] == 'h' ?
		    3600 : v[len - 1] == 'm' ? 60 : 1;
		len--;
	}
	if (job_param_uint(v, len, PROGRAM_MAX_DURATION, &n) != 0 ||
	    n == 0 || n * mult > PROGRAM_MAX_DURATION)
		return error_set(cause, "'%s' must be a duration like "
		    "60s, 5m or 1h, not '%s'", pp->name, v);
	*number = (double)(n * mult);
	return 0;
}

static int
program_value_integer(const struct program_param *pp, const char *v,
    size_t len, double *number, char **cause)
{
	unsigned long long	n;
	long long		sn;
	int			neg = v[0] == '-';

	if (job_param_uint(v + neg, len - (size_t)neg, LLONG_MAX, &n) != 0)
		return error_set(cause, "'%s' must be an integer, not "
		    "'%s'", pp->name, v);
	sn = neg ? -(long long)n : (long long)n;
	if (sn < pp->min || sn > pp->max)
		return error_set(cause, "'%s' must be an integer from "
		    "%lld to %lld, not '%s'", pp->name, pp->min,
		    pp->max, v);
	*number = (double)sn;
	return 0;
}

static int
program_value_word(const struct program_param *pp, const char *v,
    char **cause)
{
	struct strbuf	sb = STRBUF_INIT;
	size_t		i;

	for (i = 0; i < pp->nr_choices; i++) {
		if (strcmp(pp->choices[i], v) == 0)
			break;
		strbuf_addf(&sb, "%s%s", i ? ", " : "", pp->choices[i]);
	}
	if (i == pp->nr_choices)
		error_set(cause, "'%s' must be one of %s, not '%s'",
		    pp->name, sb.buf, v);
	strbuf_release(&sb);
	return i == pp->nr_choices ? -1 : 0;
}

int
program_value(const struct program_param *pp, const char *v,
    unsigned nr_cpu, double *number, char **text, char **cause)
{
	size_t	len = strlen(v);
	int	r = 0;

	*number = NAN;
	switch (pp->type) {
	case PROGRAM_COUNT:
		r = program_value_count(pp, v, len, nr_cpu, number, cause);
		break;
	case PROGRAM_SIZE:
		r = program_value_size(pp, v, len, number, cause);
		break;
	case PROGRAM_DURATION:
		r = program_value_duration(pp, v, len, number, cause);
		break;
	case PROGRAM_INTEGER:
		r = program_value_integer(pp, v, len, number, cause);
		break;
	case PROGRAM_WORD:
		r = program_value_word(pp, v, cause);
		break;
	case PROGRAM_STRING:
		if (len > PROGRAM_MAX_STRING || !program_value_clean(v))
			return error_set(cause, "'%s' must be text without "
			    "control characters, at most %d bytes", pp->name,
			    PROGRAM_MAX_STRING);
		break;
	case PROGRAM_FILE:
		if (v[0] != '/' || len > PROGRAM_MAX_STRING ||
		    !program_value_clean(v))
			return error_set(cause, "'%s' must be an absolute "
			    "path, not '%s'", pp->name, v);
		break;
	}
	if (r != 0)
		return -1;
	if (text != NULL) {
		if (!isnan(*number))
			*text = xasprintf("%.0f", *number);
		else
			*text = xstrdup(v);
	}
	return 0;
}
