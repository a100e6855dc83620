/*
 * Job files (DESIGN §3.2, docs/jobs.md). The YAML tree is walked once in
 * file order: every value is checked and normalised by its key
 * (jobs/job-param.c), scalars become fixed parameters and lists become
 * matrix axes. Expansion then takes the cartesian product, last axis
 * fastest, and gives each job its sorted parameters, its canonical text
 * and an id hashed from that text without the "runs:" line, so asking for
 * more samples keeps the job's identity.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job-param.h"
#include "jobs/job.h"
#include "jobs/yamlnode.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Jobs times file bytes: bounds the memory a matrix can take. */
#define JOB_MAX_TEXT		(64U << 20)

struct job_axis {
	char		 *key;
	unsigned	  line;		/* of the key */
	unsigned	  column;
	char		**values;
	size_t		  nr;
};

/* A job file after the walk, before expansion. */
struct job_spec {
	const char		*file;
	struct job_param	*fixed;
	size_t			 nr_fixed;
	size_t			 alloc_fixed;
	struct job_axis		*axes;
	size_t			 nr_axes;
	size_t			 alloc_axes;
	size_t			 nr_jobs;
};

static void
job_spec_release(struct job_spec *spec)
{
	size_t	i, j;

	for (i = 0; i < spec->nr_fixed; i++) {
		free(spec->fixed[i].key);
		free(spec->fixed[i].value);
	}
	free(spec->fixed);
	for (i = 0; i < spec->nr_axes; i++) {
		free(spec->axes[i].key);
		for (j = 0; j < spec->axes[i].nr; j++)
			free(spec->axes[i].values[j]);
		free(spec->axes[i].values);
	}
	free(spec->axes);
}

static void
job_spec_fixed(struct job_spec *spec, const char *key, char *value,
    const struct yamlnode *at)
{
	ALLOC_GROW(spec->fixed, spec->nr_fixed, spec->alloc_fixed);
	spec->fixed[spec->nr_fixed].key = xstrdup(key);
	spec->fixed[spec->nr_fixed].value = value;
	spec->fixed[spec->nr_fixed].line = at->line;
	spec->fixed[spec->nr_fixed].column = at->column;
	spec->nr_fixed++;
}

/* One value of key: a scalar is fixed, a list of scalars is an axis. */
static int
job_spec_value(struct job_spec *spec, const struct job_param_key *k,
    const char *key, const struct yamlnode *at, const struct yamlnode *n,
    char **cause)
{
	struct job_axis		*axis;
	const struct yamlnode	*item;
	char			*value = NULL;
	size_t			 i, j;

	if (n->type == YAMLNODE_SCALAR) {
		if (n->null)
			return yamlnode_error(cause, spec->file, n,
			    "'%s' has no value", key);
		if (k->check(k, spec->file, key, n, &value, cause) != 0)
			return -1;
		job_spec_fixed(spec, key, value, at);
		return 0;
	}
	if (n->type == YAMLNODE_MAPPING || !k->axis)
		return yamlnode_error(cause, spec->file, n,
		    "'%s' must be a scalar, not %s", key, yamlnode_kind(n));
	if (n->nr == 0)
		return yamlnode_error(cause, spec->file, n,
		    "'%s' is an empty list", key);
	if (spec->nr_jobs > JOB_MAX_JOBS / n->nr)
		return yamlnode_error(cause, spec->file, n,
		    "the matrix expands to more than %d jobs at '%s'",
		    JOB_MAX_JOBS, key);
	ALLOC_GROW(spec->axes, spec->nr_axes, spec->alloc_axes);
	axis = &spec->axes[spec->nr_axes++];
	axis->key = xstrdup(key);
	axis->line = at->line;
	axis->column = at->column;
	axis->values = xcalloc(n->nr, sizeof *axis->values);
	axis->nr = 0;
	for (i = 0; i < n->nr; i++) {
		item = n->items[i];
		if (item->type != YAMLNODE_SCALAR)
			return yamlnode_error(cause, spec->file, item,
			    "'%s' lists %s: matrix values must be scalars "
			    "(no nested lists or maps)", key,
			    yamlnode_kind(item));
		if (item->null)
			return yamlnode_error(cause, spec->file, item,
			    "'%s' lists an empty value", key);
		if (k->check(k, spec->file, key, item, &value, cause) != 0)
			return -1;
		for (j = 0; j < axis->nr; j++) {
			if (strcmp(axis->values[j], value) == 0) {
				free(value);
				return yamlnode_error(cause, spec->file, item,
				    "'%s' lists '%s' twice", key, item->value);
			}
		}
		axis->values[axis->nr++] = value;
	}
	spec->nr_jobs *= n->nr;
	return 0;
}

/* By value, then by position, so the later of two equal names is found. */
static int
job_cmp_node(const void *a, const void *b)
{
	const struct yamlnode	*x = *(const struct yamlnode *const *)a;
	const struct yamlnode	*y = *(const struct yamlnode *const *)b;
	int			 c = strcmp(x->value, y->value);

	if (c != 0)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->column < y->column ? -1 : x->column > y->column;
}

/* A list of names, or an LKP-style map whose keys are the names. */
static int
job_spec_monitors(struct job_spec *spec, const struct yamlnode *n,
    char **cause)
{
	const struct yamlnode	 *name, *opts, **names = NULL;
	struct strbuf		  sb = STRBUF_INIT;
	size_t			  nr = 0, i, step;
	int			  r = -1;

	if (n->type == YAMLNODE_SCALAR)
		return yamlnode_error(cause, spec->file, n,
		    "'monitors' must be a list or a map of monitor names, "
		    "not %s", yamlnode_kind(n));
	step = n->type == YAMLNODE_MAPPING ? 2 : 1;
	names = xcalloc(n->nr / step + 1, sizeof *names);
	for (i = 0; i < n->nr; i += step) {
		name = n->items[i];
		if (name->type != YAMLNODE_SCALAR || name->null) {
			yamlnode_error(cause, spec->file, name,
			    "'monitors' lists %s: monitor names are scalars",
			    yamlnode_kind(name));
			goto out;
		}
		if (!isalnum((unsigned char)name->value[0]) ||
		    !job_param_is_name(name->value, "_.-")) {
			yamlnode_error(cause, spec->file, name,
			    "'monitors' lists '%s': names are letters, digits, "
			    "'_', '.' and '-'", name->value);
			goto out;
		}
		if (step == 2) {
			opts = n->items[i + 1];
			if (!(opts->type == YAMLNODE_SCALAR && opts->null) &&
			    !(opts->type == YAMLNODE_MAPPING &&
			    opts->nr == 0)) {
				yamlnode_error(cause, spec->file, opts,
				    "'monitors.%s': monitor options are not "
				    "supported", name->value);
				goto out;
			}
		}
		names[nr++] = name;
	}
	qsort(names, nr, sizeof *names, job_cmp_node);
	for (i = 0; i < nr; i++) {
		if (i > 0 &&
		    strcmp(names[i - 1]->value, names[i]->value) == 0) {
			yamlnode_error(cause, spec->file, names[i],
			    "'monitors' lists '%s' twice", names[i]->value);
			goto out;
		}
		strbuf_addf(&sb, "%s%s", i ? "," : "", names[i]->value);
	}
	job_spec_fixed(spec, "monitors", strbuf_detach(&sb, NULL), n);
	r = 0;
out:
	strbuf_release(&sb);
	free(names);
	return r;
}

/* requires:, sysctl:, kconfig: flattened to dotted keys. */
static int
job_spec_map(struct job_spec *spec, const char *map,
    const struct yamlnode *n, char **cause)
{
	const struct job_param_key	*k;
	const struct yamlnode		*key;
	char				*dotted;
	size_t				 i;
	int				 r;

	if (n->type != YAMLNODE_MAPPING)
		return yamlnode_error(cause, spec->file, n,
		    "'%s' must be a map, not %s", map, yamlnode_kind(n));
	for (i = 0; i < n->nr; i += 2) {
		key = n->items[i];
		if (job_param_map_key(spec->file, map, key, &k, cause) != 0)
			return -1;
		dotted = xasprintf("%s.%s", map, key->value);
		r = job_spec_value(spec, k, dotted, key, n->items[i + 1],
		    cause);
		free(dotted);
		if (r != 0)
			return -1;
	}
	return 0;
}

static int
job_spec_walk(struct job_spec *spec, const struct yamlnode *root,
    char **cause)
{
	const struct job_param_key	*k;
	const struct yamlnode		*key, *value;
	size_t				 i;
	int				 have_testcase = 0;

	if (root == NULL || (root->type == YAMLNODE_SCALAR && root->null)) {
		if (root == NULL)
			return error_set(cause, "%s:1:1: empty job file: "
			    "'testcase' is required", spec->file);
		return yamlnode_error(cause, spec->file, root,
		    "empty job file: 'testcase' is required");
	}
	if (root->type != YAMLNODE_MAPPING)
		return yamlnode_error(cause, spec->file, root,
		    "a job file is a map of keys such as 'testcase', not %s",
		    yamlnode_kind(root));
	for (i = 0; i < root->nr; i += 2) {
		key = root->items[i];
		value = root->items[i + 1];
		if (!isalnum((unsigned char)key->value[0]) &&
		    key->value[0] != '_')
			goto bad_key;
		if (!job_param_is_name(key->value, "_-"))
			goto bad_key;
		if (strcmp(key->value, "monitors") == 0) {
			if (job_spec_monitors(spec, value, cause) != 0)
				return -1;
			continue;
		}
		if (strcmp(key->value, "requires") == 0 ||
		    strcmp(key->value, "sysctl") == 0 ||
		    strcmp(key->value, "kconfig") == 0) {
			if (job_spec_map(spec, key->value, value, cause) != 0)
				return -1;
			continue;
		}
		k = job_param_key(key->value);
		if (value->type == YAMLNODE_MAPPING && k->name == NULL)
			return yamlnode_error(cause, spec->file, value,
			    "'%s' is a map: only 'requires', 'sysctl' and "
			    "'kconfig' take maps", key->value);
		if (job_spec_value(spec, k, key->value, key, value,
		    cause) != 0)
			return -1;
		if (strcmp(key->value, "testcase") == 0)
			have_testcase = 1;
	}
	if (!have_testcase)
		return yamlnode_error(cause, spec->file, root,
		    "missing 'testcase'");
	return 0;

bad_key:
	return yamlnode_error(cause, spec->file, key,
	    "invalid key '%s': parameter names are letters, digits, '_' and "
	    "'-'", key->value);
}

static int
job_cmp_param(const void *a, const void *b)
{
	return strcmp(((const struct job_param *)a)->key,
	    ((const struct job_param *)b)->key);
}

/* The canonical text; *idtext gets the same without the "runs:" line. */
static void
job_canonical(const struct job_param *params, size_t nr, char **canonical,
    char **idtext)
{
	struct strbuf	 sb = STRBUF_INIT, id = STRBUF_INIT;
	struct strbuf	 line = STRBUF_INIT;
	const char	*dot, *group = NULL, *name;
	size_t		 glen = 0, i;
	char		*copy, *tok, *save;

	for (i = 0; i < nr; i++) {
		strbuf_reset(&line);
		name = params[i].key;
		if ((dot = strchr(name, '.')) != NULL) {
			if (group == NULL || (size_t)(dot - name) != glen ||
			    strncmp(group, name, glen) != 0) {
				group = name;
				glen = (size_t)(dot - name);
				strbuf_add(&line, name, glen);
				strbuf_addstr(&line, ":\n");
			}
			strbuf_addstr(&line, "  ");
			name = dot + 1;
		} else
			group = NULL;
		yamlnode_quote(&line, name);
		strbuf_addstr(&line, ": ");
		if (strcmp(params[i].key, "monitors") == 0) {
			strbuf_addch(&line, '[');
			copy = xstrdup(params[i].value);
			for (tok = strtok_r(copy, ",", &save); tok != NULL;
			    tok = strtok_r(NULL, ",", &save)) {
				if (line.buf[line.len - 1] != '[')
					strbuf_addstr(&line, ", ");
				yamlnode_quote(&line, tok);
			}
			free(copy);
			strbuf_addch(&line, ']');
		} else
			yamlnode_quote(&line, params[i].value);
		strbuf_addch(&line, '\n');
		strbuf_add(&sb, line.buf, line.len);
		if (strcmp(params[i].key, "runs") != 0)
			strbuf_add(&id, line.buf, line.len);
	}
	strbuf_release(&line);
	*canonical = strbuf_detach(&sb, NULL);
	*idtext = strbuf_detach(&id, NULL);
}

static char **
job_split_monitors(const char *value, size_t *nr)
{
	char	**v = NULL, *copy, *tok, *save;
	size_t	  alloc = 0;

	*nr = 0;
	copy = xstrdup(value);
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		ALLOC_GROW(v, *nr, alloc);
		v[(*nr)++] = xstrdup(tok);
	}
	free(copy);
	return v;
}

/* Job number idx of the product, last axis varying fastest. */
static struct job *
job_spec_expand(const struct job_spec *spec, size_t idx)
{
	struct job	*job = xcalloc(1, sizeof *job);
	char		 hex[HASH_HEX_LEN + 1], *idtext;
	const char	*v;
	size_t		 i, a, nr;

	job->file = xstrdup(spec->file);
	job->nr_params = spec->nr_fixed + spec->nr_axes;
	job->params = xcalloc(job->nr_params, sizeof *job->params);
	for (i = 0; i < spec->nr_fixed; i++) {
		job->params[i].key = xstrdup(spec->fixed[i].key);
		job->params[i].value = xstrdup(spec->fixed[i].value);
		job->params[i].line = spec->fixed[i].line;
		job->params[i].column = spec->fixed[i].column;
	}
	job->nr_axes = spec->nr_axes;
	job->axes = xcalloc(spec->nr_axes + 1, sizeof *job->axes);
	for (a = spec->nr_axes; a-- > 0; ) {
		nr = spec->axes[a].nr;
		job->params[i + a].key = xstrdup(spec->axes[a].key);
		job->params[i + a].value =
		    xstrdup(spec->axes[a].values[idx % nr]);
		job->params[i + a].line = spec->axes[a].line;
		job->params[i + a].column = spec->axes[a].column;
		job->axes[a] = xstrdup(spec->axes[a].key);
		idx /= nr;
	}
	qsort(job->params, job->nr_params, sizeof *job->params,
	    job_cmp_param);

	job->testcase = xstrdup(job_param(job, "testcase"));
	if ((v = job_param(job, "category")) != NULL)
		job->category = xstrdup(v);
	if ((v = job_param(job, "run")) != NULL)
		job->run = xstrdup(v);
	if ((v = job_param(job, "metric")) != NULL)
		job->metric = xstrdup(v);
	if ((v = job_param(job, "direction")) != NULL)
		job->direction = strcmp(v, "higher") == 0 ?
		    JOB_DIRECTION_HIGHER : JOB_DIRECTION_LOWER;
	v = job_param(job, "runs");
	job->runs = v != NULL ? (unsigned)strtoul(v, NULL, 10) : 3;
	if ((v = job_param(job, "runtime")) != NULL)
		job->runtime = (unsigned)strtoul(v, NULL, 10);
	if ((v = job_param(job, "timeout")) != NULL)
		job->timeout = (unsigned)strtoul(v, NULL, 10);
	if ((v = job_param(job, "monitors")) != NULL)
		job->monitors = job_split_monitors(v, &job->nr_monitors);

	job_canonical(job->params, job->nr_params, &job->canonical, &idtext);
	hash_sha256_hex(idtext, strlen(idtext), hex);
	free(idtext);
	job->id = xstrndup(hex, 16);
	return job;
}

int
job_parse(const char *name, const char *buf, size_t len, struct job ***out,
    size_t *nr, char **cause)
{
	struct job_spec	  spec;
	struct yamlnode	 *root = NULL;
	struct job	**jobs = NULL;
	size_t		  i;
	int		  r = -1;

	memset(&spec, 0, sizeof spec);
	spec.file = name;
	spec.nr_jobs = 1;
	*out = NULL;
	*nr = 0;
	if (yamlnode_parse(name, buf, len, &root, cause) != 0)
		goto out;
	if (job_spec_walk(&spec, root, cause) != 0)
		goto out;
	if (spec.nr_jobs > 1 && spec.nr_jobs * len > JOB_MAX_TEXT) {
		yamlnode_error(cause, name, root, "the matrix of %zu jobs is "
		    "too large for a file of %zu bytes", spec.nr_jobs, len);
		goto out;
	}
	jobs = xcalloc(spec.nr_jobs, sizeof *jobs);
	for (i = 0; i < spec.nr_jobs; i++)
		jobs[i] = job_spec_expand(&spec, i);
	*out = jobs;
	*nr = spec.nr_jobs;
	r = 0;
out:
	yamlnode_free(root);
	job_spec_release(&spec);
	return r;
}

int
job_load(const char *path, struct job ***out, size_t *nr, char **cause)
{
	char	*buf = NULL;
	size_t	 len;
	int	 r;

	*out = NULL;
	*nr = 0;
	if (file_read(path, &buf, &len, cause) != 0)
		return -1;
	r = job_parse(path, buf, len, out, nr, cause);
	free(buf);
	return r;
}

void
job_free(struct job *job)
{
	size_t	i;

	if (job == NULL)
		return;
	free(job->id);
	free(job->file);
	free(job->testcase);
	free(job->category);
	free(job->run);
	free(job->metric);
	for (i = 0; i < job->nr_monitors; i++)
		free(job->monitors[i]);
	free(job->monitors);
	for (i = 0; i < job->nr_params; i++) {
		free(job->params[i].key);
		free(job->params[i].value);
	}
	free(job->params);
	for (i = 0; i < job->nr_axes; i++)
		free(job->axes[i]);
	free(job->axes);
	free(job->canonical);
	free(job);
}

void
job_list_free(struct job **jobs, size_t nr)
{
	size_t	i;

	if (jobs == NULL)
		return;
	for (i = 0; i < nr; i++)
		job_free(jobs[i]);
	free(jobs);
}

char *
job_describe(const struct job *job)
{
	struct strbuf	sb = STRBUF_INIT;
	const char	*v;
	size_t		i;

	strbuf_addstr(&sb, job->testcase);
	for (i = 0; i < job->nr_axes; i++) {
		v = job_param(job, job->axes[i]);
		strbuf_addf(&sb, "/%s=%s", job->axes[i], v != NULL ? v : "");
	}
	return strbuf_detach(&sb, NULL);
}

const char *
job_direction_name(enum job_direction d)
{
	switch (d) {
	case JOB_DIRECTION_HIGHER:
		return "higher";
	case JOB_DIRECTION_LOWER:
		return "lower";
	default:
		return "unknown";
	}
}
