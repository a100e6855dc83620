/*
 * The parameters of a job (DESIGN §3.2, docs/jobs.md): the keys a job
 * file knows and how each value is checked and normalised as the file is
 * walked (jobs/job.c) -- durations become seconds, requirements get their
 * comparator, THP and NUMA settings must be one of the kernel's words --
 * and what is asked of an expanded job's parameters afterwards: a value
 * by its dotted key, whether a key is the testcase's own, whether a
 * machine meets the requires: map.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job-param.h"
#include "jobs/job.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define JOB_MAX_DURATION	(30U * 24 * 3600)

static const char *const job_param_directions[] = { "higher", "lower", NULL };
static const char *const job_param_thp_enabled[] = {
	"always", "madvise", "never", NULL
};
static const char *const job_param_thp_defrag[] = {
	"always", "defer", "defer+madvise", "madvise", "never", NULL
};
static const char *const job_param_zero_one[] = { "0", "1", NULL };
/* What becomes of a run disturbed by other load (docs/monitors.md). */
static const char *const job_param_disturbed[] = { "repeat", "keep", NULL };

int
job_param_is_name(const char *s, const char *extra)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++) {
		if (!isalnum((unsigned char)*s) && strchr(extra, *s) == NULL)
			return 0;
	}
	return 1;
}

static int
job_param_check_name(const struct job_param_key *k, const char *file,
    const char *key, const struct yamlnode *n, char **out, char **cause)
{
	if (!job_param_is_name(n->value, "_.-"))
		return yamlnode_error(cause, file, n,
		    "'%s' must be made of letters, digits, '_', '.' and '-', "
		    "not '%s'", key, n->value);
	*out = xstrdup(n->value);
	return 0;
}

static int
job_param_check_run(const struct job_param_key *k, const char *file,
    const char *key, const struct yamlnode *n, char **out, char **cause)
{
	const char	*s;

	for (s = n->value; isspace((unsigned char)*s); s++)
		;
	if (*s == '\0')
		return yamlnode_error(cause, file, n,
		    "'%s' is an empty command", key);
	*out = xstrdup(n->value);
	return 0;
}

static int
job_param_check_metric(const struct job_param_key *k, const char *file,
    const char *key, const struct yamlnode *n, char **out, char **cause)
{
	const unsigned char	*s = (const unsigned char *)n->value;

	if (*s == '\0')
		return yamlnode_error(cause, file, n, "'%s' is empty", key);
	for (; *s != '\0'; s++) {
		if (*s <= ' ' || *s == 0x7f)
			return yamlnode_error(cause, file, n,
			    "'%s' must not contain white space or control "
			    "characters: '%s'", key, n->value);
	}
	*out = xstrdup(n->value);
	return 0;
}

static int
job_param_check_choice(const struct job_param_key *k, const char *file,
    const char *key, const struct yamlnode *n, char **out, char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	size_t		 i;

	for (i = 0; k->choices[i] != NULL; i++) {
		if (strcmp(n->value, k->choices[i]) == 0) {
			*out = xstrdup(n->value);
			return 0;
		}
	}
	for (i = 0; k->choices[i] != NULL; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", k->choices[i]);
	yamlnode_error(cause, file, n, "'%s' must be one of %s, not '%s'", key,
	    sb.buf, n->value);
	strbuf_release(&sb);
	return -1;
}

int
job_param_uint(const char *s, size_t len, unsigned long long max,
    unsigned long long *out)
{
	unsigned long long	v = 0;
	size_t			i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v > max)
			return -1;
	}
	*out = v;
	return 0;
}

static int
job_param_check_runs(const struct job_param_key *k, const char *file,
    const char *key, const struct yamlnode *n, char **out, char **cause)
{
	unsigned long long	v;

	if (job_param_uint(n->value, strlen(n->value), JOB_MAX_RUNS, &v) != 0 ||
	    v == 0)
		return yamlnode_error(cause, file, n,
		    "'%s' must be an integer from 1 to %d, not '%s'", key,
		    JOB_MAX_RUNS, n->value);
	*out = xasprintf("%llu", v);
	return 0;
}

/* "60s", "5m", "1h", "1d" or plain seconds, normalised to plain seconds. */
static int
job_param_check_duration(const struct job_param_key *k, const char *file,
    const char *key, const struct yamlnode *n, char **out, char **cause)
{
	const char		*s = n->value;
	size_t			 len = strlen(s);
	unsigned long long	 v, mult = 1;

	if (len > 0 && strchr("smhd", s[len - 1]) != NULL) {
		mult = s[len - 1] == 'd' ? 86400 : s[len - 1] == 'h' ? 3600 :
		    s[len - 1] == 'm' ? 60 : 1;
		len--;
	}
	if (job_param_uint(s, len, JOB_MAX_DURATION, &v) != 0 || v == 0 ||
	    v * mult > JOB_MAX_DURATION)
		return yamlnode_error(cause, file, n,
		    "'%s' must be a duration like 60s, 5m, 1h or 1d (at most "
		    "30 days), not '%s'", key, s);
	*out = xasprintf("%llu", v * mult);
	return 0;
}

/*
 * A requirement "[OP]NUMBER[UNIT]": OP one of >=, <=, >, <, = (">=" when
 * absent); UNIT K, M, G or T (powers of 1024) for memory only. On success
 * the parts are returned; the normalised text is OP NUMBER UNIT.
 */
static int
job_param_require_parse(const char *s, int memory, char op[3],
    unsigned long long *number, char *unit, unsigned long long *bytes)
{
	unsigned long long	v, mult = 1;
	size_t			len;
	const char		*p;

	while (*s == ' ')
		s++;
	if (strncmp(s, ">=", 2) == 0 || strncmp(s, "<=", 2) == 0) {
		memcpy(op, s, 2);
		op[2] = '\0';
		s += 2;
	} else if (*s == '>' || *s == '<' || *s == '=') {
		op[0] = *s++;
		op[1] = '\0';
	} else
		memcpy(op, ">=", 3);
	while (*s == ' ')
		s++;
	len = strlen(s);
	while (len > 0 && s[len - 1] == ' ')
		len--;
	*unit = '\0';
	if (memory && len > 0 && (p = strchr("KMGTkmgt", s[len - 1])) != NULL) {
		*unit = (char)toupper((unsigned char)*p);
		mult = 1ULL << (10 * (strchr("KMGT", *unit) - "KMGT" + 1));
		len--;
	}
	if (job_param_uint(s, len, ULLONG_MAX / 1024 / 10, &v) != 0 ||
	    v > ULLONG_MAX / mult)
		return -1;
	*number = v;
	if (bytes != NULL)
		*bytes = v * mult;
	return 0;
}

static int
job_param_check_require(const struct job_param_key *k, const char *file,
    const char *key, const struct yamlnode *n, char **out, char **cause)
{
	int			 memory = strcmp(k->name, "memory") == 0;
	unsigned long long	 number;
	char			 op[3], unit;

	if (job_param_require_parse(n->value, memory, op, &number, &unit,
	    NULL) != 0)
		return yamlnode_error(cause, file, n,
		    "'%s' must be like '%s', not '%s'", key,
		    memory ? ">=32G" : ">=2", n->value);
	if (unit != '\0')
		*out = xasprintf("%s%llu%c", op, number, unit);
	else
		*out = xasprintf("%s%llu", op, number);
	return 0;
}

/*
 * LKP's need_memory: "N" bytes, "N" with K, M, G, T or P (B or not, any
 * case; powers of 1024), or "N%": N/100 GiB per CPU of the machine, as
 * LKP's filters/need_memory reads it. Normalised to "NU" or "N%".
 */
static int
job_param_memory_parse(const char *s, unsigned long long *number,
    char *unit)
{
	size_t		 len = strlen(s);
	const char	*p;

	*unit = '\0';
	if (len > 0 && s[len - 1] == '%') {
		*unit = '%';
		len--;
	} else {
		if (len > 1 && (s[len - 1] == 'B' || s[len - 1] == 'b') &&
		    strchr("KMGTPkmgtp", s[len - 2]) != NULL)
			len--;
		if (len > 0 && (p = strchr("KMGTPkmgtp", s[len - 1])) != NULL) {
			*unit = (char)toupper((unsigned char)*p);
			len--;
		} else if (len > 0 && (s[len - 1] == 'B' || s[len - 1] == 'b'))
			len--;
	}
	return job_param_uint(s, len, 1ULL << 40, number);
}

static int
job_param_check_memory(const struct job_param_key *k, const char *file,
    const char *key, const struct yamlnode *n, char **out, char **cause)
{
	unsigned long long	number;
	char			unit;

	if (job_param_memory_parse(n->value, &number, &unit) != 0)
		return yamlnode_error(cause, file, n,
		    "'%s' must be a memory size like 300MB, 4G or 50%% (of "
		    "1 GiB per CPU), not '%s'", key, n->value);
	if (unit != '\0')
		*out = xasprintf("%llu%c", number, unit);
	else
		*out = xasprintf("%llu", number);
	return 0;
}

static int
job_param_check_any(const struct job_param_key *k, const char *file,
    const char *key, const struct yamlnode *n, char **out, char **cause)
{
	*out = xstrdup(n->value);
	return 0;
}

/* The known scalar keys; anything else is a testcase parameter. */
static const struct job_param_key job_param_keys[] = {
	{ "category", job_param_check_name, NULL, 0 },
	{ "direction", job_param_check_choice, job_param_directions, 0 },
	{ "disturbed", job_param_check_choice, job_param_disturbed, 0 },
	{ "metric", job_param_check_metric, NULL, 0 },
	{ "monitor_delay", job_param_check_duration, NULL, 1 },
	{ "need_memory", job_param_check_memory, NULL, 1 },
	{ "numa_balancing", job_param_check_choice, job_param_zero_one, 1 },
	{ "run", job_param_check_run, NULL, 0 },
	{ "runs", job_param_check_runs, NULL, 0 },
	{ "runtime", job_param_check_duration, NULL, 1 },
	{ "suite", job_param_check_name, NULL, 0 },
	{ "testcase", job_param_check_name, NULL, 0 },
	{ "testtime", job_param_check_duration, NULL, 1 },
	{ "thp_defrag", job_param_check_choice, job_param_thp_defrag, 1 },
	{ "thp_enabled", job_param_check_choice, job_param_thp_enabled, 1 },
	{ "timeout", job_param_check_duration, NULL, 1 },
};
static const struct job_param_key job_param_generic = {
	NULL, job_param_check_any, NULL, 1
};

static const struct job_param_key job_param_requires[] = {
	{ "memory", job_param_check_require, NULL, 0 },
	{ "nr_cpu", job_param_check_require, NULL, 0 },
	{ "nr_node", job_param_check_require, NULL, 0 },
};
static const struct job_param_key job_param_sysctl = {
	NULL, job_param_check_any, NULL, 1
};
static const struct job_param_key job_param_kconfig = {
	NULL, job_param_check_any, NULL, 1
};

/* The key of a top-level name: a known one, or a testcase parameter. */
const struct job_param_key *
job_param_key(const char *name)
{
	size_t	i;

	for (i = 0; i < nitems(job_param_keys); i++) {
		if (strcmp(name, job_param_keys[i].name) == 0)
			return &job_param_keys[i];
	}
	return &job_param_generic;
}

int
job_param_map_key(const char *file, const char *map,
    const struct yamlnode *key, const struct job_param_key **out,
    char **cause)
{
	size_t	i;

	*out = NULL;
	if (strcmp(map, "requires") == 0) {
		for (i = 0; i < nitems(job_param_requires); i++) {
			if (strcmp(key->value, job_param_requires[i].name) == 0)
				*out = &job_param_requires[i];
		}
		if (*out == NULL)
			return yamlnode_error(cause, file, key,
			    "unknown key 'requires.%s' (known: memory, "
			    "nr_cpu, nr_node)", key->value);
	} else if (strcmp(map, "sysctl") == 0) {
		if (key->value[0] == '.' || key->value[0] == '/' ||
		    key->value[0] == '-' ||
		    !job_param_is_name(key->value, "_./-"))
			return yamlnode_error(cause, file, key,
			    "invalid sysctl name 'sysctl.%s'", key->value);
		*out = &job_param_sysctl;
	} else {
		if (strncmp(key->value, "CONFIG_", 7) != 0 ||
		    !job_param_is_name(key->value + 7, "_"))
			return yamlnode_error(cause, file, key,
			    "invalid kconfig symbol 'kconfig.%s': expected "
			    "CONFIG_NAME", key->value);
		*out = &job_param_kconfig;
	}
	return 0;
}

const char *
job_param(const struct job *job, const char *key)
{
	size_t	lo = 0, hi = job->nr_params, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(key, job->params[mid].key);
		if (c == 0)
			return job->params[mid].value;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int
job_param_is_testcase(const char *key)
{
	static const char *const bookkeeping[] = {
		"testcase", "category", "run", "metric", "direction", "runs",
		"timeout", "monitors", "programs", "suite", "disturbed",
		"need_memory", "cluster"
	};
	size_t	i;

	for (i = 0; i < nitems(bookkeeping); i++) {
		if (strcmp(key, bookkeeping[i]) == 0)
			return 0;
	}
	return strncmp(key, "requires.", 9) != 0 &&
	    strncmp(key, "kconfig.", 8) != 0;
}

static int
job_param_require_holds(const char *spec, int memory, unsigned long long have)
{
	unsigned long long	number, want;
	char			op[3], unit;

	if (job_param_require_parse(spec, memory, op, &number, &unit,
	    &want) != 0)
		return 0;
	if (strcmp(op, ">=") == 0)
		return have >= want;
	if (strcmp(op, "<=") == 0)
		return have <= want;
	if (strcmp(op, ">") == 0)
		return have > want;
	if (strcmp(op, "<") == 0)
		return have < want;
	return have == want;
}

int
job_param_requires_met(const struct job *job, unsigned nr_node, unsigned nr_cpu,
    unsigned long long memory, char **why)
{
	static const char	*keys[] = {
		"requires.nr_node", "requires.nr_cpu", "requires.memory"
	};
	unsigned long long	 have[] = { nr_node, nr_cpu, memory };
	unsigned long long	 number, need;
	const char		*v;
	char			 unit;
	size_t			 i;

	for (i = 0; i < nitems(keys); i++) {
		v = job_param(job, keys[i]);
		if (v != NULL && !job_param_require_holds(v, i == 2, have[i])) {
			if (why != NULL)
				*why = xasprintf("'%s' is '%s', the machine "
				    "has %llu", keys[i], v, have[i]);
			return 0;
		}
	}
	if ((v = job_param(job, "need_memory")) != NULL) {
		if (job_param_memory_parse(v, &number, &unit) != 0) {
			if (why != NULL)
				*why = xasprintf("'need_memory' is '%s', not "
				    "a memory size", v);
			return 0;
		}
		if (unit == '%')
			need = (unsigned long long)nr_cpu * number / 100 << 30;
		else if (unit != '\0')
			need = number << (10 * (strchr("KMGTP", unit) -
			    "KMGTP" + 1));
		else
			need = number;
		if (memory < need) {
			if (why != NULL)
				*why = xasprintf("'need_memory' is '%s' (%llu "
				    "bytes), the machine has %llu", v, need,
				    memory);
			return 0;
		}
	}
	return 1;
}
