/*
 * Job files (DESIGN §3.2, docs/jobs.md). Each of LKP's job hashes
 * (jobs/job-doc.c) is walked once in file order: every value is checked
 * by its key (jobs/job-param.c), scalars become fixed parameters, lists
 * matrix axes, LKP's program keys programs. The cartesian product, last
 * axis fastest, gives each job its sorted parameters, its canonical text
 * and an id hashed from that text without "runs:" (more samples, same job).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job-doc.h"
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
	const char	 *at_file;	/* the key's, if not the job's */
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
	const char		*testcase;	/* the root's, or NULL */
	const struct yamlnode	**programs;	/* LKP's program keys */
	size_t			 nr_programs;
	size_t			 alloc_programs;
};

static void
job_spec_release(struct job_spec *spec)
{
	size_t	i, j;

	/* fixed[i].file is borrowed from the tree. */
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
	free(spec->programs);
}

/* Where key is already set, or NULL: a key may be set once. */
static int
job_spec_has(const struct job_spec *spec, const char *key)
{
	size_t	i;

	for (i = 0; i < spec->nr_fixed; i++) {
		if (strcmp(spec->fixed[i].key, key) == 0)
			return 1;
	}
	for (i = 0; i < spec->nr_axes; i++) {
		if (strcmp(spec->axes[i].key, key) == 0)
			return 1;
	}
	return 0;
}

/* The file of a node when an include brought it, else NULL. Borrowed. */
static char *
job_spec_at_file(const struct job_spec *spec, const struct yamlnode *at)
{
	if (at->file == NULL || strcmp(at->file, spec->file) == 0)
		return NULL;
	return (char *)at->file;
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
	spec->fixed[spec->nr_fixed].file = job_spec_at_file(spec, at);
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

	if (job_spec_has(spec, key))
		return yamlnode_error(cause, spec->file, n,
		    "'%s' is set twice (a program's option and a key of the "
		    "same name)", key);
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
	axis->at_file = job_spec_at_file(spec, at);
	axis->values = xcalloc(n->nr, sizeof *axis->values);
	axis->nr = 0;
	for (i = 0; i < n->nr; i++) {
		item = n->items[i];
		if (item->type != YAMLNODE_SCALAR)
			return yamlnode_error(cause, spec->file, item,
			    "'%s' lists %s: matrix values must be scalars "
			    "(no nested lists or maps)", key,
			    yamlnode_kind(item));
		/* LKP's empty item: one job without the key. */
		if (item->null)
			value = NULL;
		else if (k->check(k, spec->file, key, item, &value,
		    cause) != 0)
			return -1;
		for (j = 0; j < axis->nr; j++) {
			if (axis->values[j] == NULL || value == NULL) {
				if (axis->values[j] != value)
					continue;
				return yamlnode_error(cause, spec->file, item,
				    "'%s' lists an empty value twice", key);
			}
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

static void
job_spec_program(struct job_spec *spec, const struct yamlnode *name)
{
	ALLOC_GROW(spec->programs, spec->nr_programs, spec->alloc_programs);
	spec->programs[spec->nr_programs++] = name;
}

/*
 * The sorted names of a list, or of an LKP-style map whose keys are the
 * names, joined with commas as parameter key ("monitors", "programs").
 * more: names found elsewhere (program keys), nr_more of them.
 */
static int
job_spec_names(struct job_spec *spec, const char *key,
    const struct yamlnode *n, const struct yamlnode **more, size_t nr_more,
    char **cause)
{
	const struct yamlnode	 *name, *opts, **names = NULL;
	struct strbuf		  sb = STRBUF_INIT;
	size_t			  nr = 0, i, step;
	int			  r = -1;

	if (n != NULL && n->type == YAMLNODE_SCALAR)
		return yamlnode_error(cause, spec->file, n,
		    "'%s' must be a list or a map of names, not %s", key,
		    yamlnode_kind(n));
	step = n != NULL && n->type == YAMLNODE_MAPPING ? 2 : 1;
	names = xcalloc((n != NULL ? n->nr / step : 0) + nr_more + 1,
	    sizeof *names);
	for (i = 0; i < nr_more; i++)
		names[nr++] = more[i];
	for (i = 0; n != NULL && i < n->nr; i += step) {
		name = n->items[i];
		if (name->type != YAMLNODE_SCALAR || name->null) {
			yamlnode_error(cause, spec->file, name,
			    "'%s' lists %s: names are scalars", key,
			    yamlnode_kind(name));
			goto out;
		}
		/* Program names are keys, which may start with '_'. */
		if ((!isalnum((unsigned char)name->value[0]) &&
		    (strcmp(key, "programs") != 0 ||
		    name->value[0] != '_')) ||
		    !job_param_is_name(name->value, "_.-")) {
			yamlnode_error(cause, spec->file, name,
			    "'%s' lists '%s': names are letters, digits, "
			    "'_', '.' and '-'", key, name->value);
			goto out;
		}
		if (step == 2) {
			opts = n->items[i + 1];
			if (!(opts->type == YAMLNODE_SCALAR && opts->null) &&
			    !(opts->type == YAMLNODE_MAPPING &&
			    opts->nr == 0)) {
				yamlnode_error(cause, spec->file, opts,
				    "'%s.%s': options are not supported here",
				    key, name->value);
				goto out;
			}
		}
		names[nr++] = name;
	}
	qsort(names, nr, sizeof *names, job_cmp_node);
	for (i = 0; i < nr; i++) {
		if (i > 0 &&
		    strcmp(names[i - 1]->value, names[i]->value) == 0) {
			/* A program is both a key and in "programs:". */
			if (nr_more > 0)
				continue;
			yamlnode_error(cause, spec->file, names[i],
			    "'%s' lists '%s' twice", key, names[i]->value);
			goto out;
		}
		strbuf_addf(&sb, "%s%s", i ? "," : "", names[i]->value);
	}
	job_spec_fixed(spec, key, strbuf_detach(&sb, NULL),
	    n != NULL ? n : more[0]);
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

/*
 * An LKP program map (docs/jobs.md "Programs"): the testcase's own
 * program gives plain parameters, as LKP hands its options to the
 * program; any other program's options are dotted under its name
 * (perf-profile.delay), nested maps further dotted. An option without a
 * value is the empty string, as LKP exports it.
 */
static int
job_spec_program_map(struct job_spec *spec, const char *prefix,
    const struct yamlnode *n, int own, char **cause)
{
	const struct job_param_key	*k = job_param_key("");
	const struct yamlnode		*key, *value;
	struct yamlnode			 empty;
	char				*name;
	size_t				 i;
	int				 r;

	for (i = 0; i < n->nr; i += 2) {
		key = n->items[i];
		value = n->items[i + 1];
		if (!isalnum((unsigned char)key->value[0]) ||
		    !job_param_is_name(key->value, own ? "_-" : "_.-"))
			return yamlnode_error(cause, spec->file, key,
			    "invalid option '%s.%s': option names are letters, "
			    "digits, '_'%s and '-'", prefix, key->value,
			    own ? "" : ", '.'");
		name = own ? xstrdup(key->value) :
		    xasprintf("%s.%s", prefix, key->value);
		if (value->type == YAMLNODE_MAPPING) {
			if (own) {
				free(name);
				return yamlnode_error(cause, spec->file, value,
				    "'%s.%s' is a map: the testcase's options "
				    "are scalars or lists", prefix, key->value);
			}
			r = job_spec_program_map(spec, name, value, 0, cause);
		} else if (value->type == YAMLNODE_SCALAR && value->null) {
			empty = *value;
			empty.value = (char *)"";
			empty.null = 0;
			r = job_spec_value(spec, k, name, key, &empty, cause);
		} else
			r = job_spec_value(spec, k, name, key, value, cause);
		free(name);
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
	const struct yamlnode		*key, *value, *tc, *programs = NULL;
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
	tc = yamlnode_map_get(root, "testcase");
	if (tc != NULL && tc->type == YAMLNODE_SCALAR && !tc->null)
		spec->testcase = tc->value;
	for (i = 0; i < root->nr; i += 2) {
		key = root->items[i];
		value = root->items[i + 1];
		if (!isalnum((unsigned char)key->value[0]) &&
		    key->value[0] != '_')
			goto bad_key;
		if (!job_param_is_name(key->value, "_-") ||
		    key->value[strlen(key->value) - 1] == '-')
			goto bad_key;
		if (strcmp(key->value, "monitors") == 0) {
			if (job_spec_names(spec, "monitors", value, NULL, 0,
			    cause) != 0)
				return -1;
			continue;
		}
		if (strcmp(key->value, "programs") == 0) {
			programs = value;
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
		/* LKP's "runtime:" alone: the program's default. */
		if ((strcmp(key->value, "runtime") == 0 ||
		    strcmp(key->value, "timeout") == 0) &&
		    value->type == YAMLNODE_SCALAR && value->null)
			continue;
		if (k->name == NULL && (value->type == YAMLNODE_MAPPING ||
		    (value->type == YAMLNODE_SCALAR && value->null))) {
			job_spec_program(spec, key);
			if (value->type == YAMLNODE_MAPPING &&
			    job_spec_program_map(spec, key->value, value,
			    spec->testcase != NULL &&
			    strcmp(spec->testcase, key->value) == 0,
			    cause) != 0)
				return -1;
			continue;
		}
		if (job_spec_value(spec, k, key->value, key, value,
		    cause) != 0)
			return -1;
		if (strcmp(key->value, "testcase") == 0)
			have_testcase = 1;
	}
	if (!have_testcase)
		return yamlnode_error(cause, spec->file, root,
		    "missing 'testcase'");
	if ((programs != NULL || spec->nr_programs > 0) &&
	    job_spec_names(spec, "programs", programs, spec->programs,
	    spec->nr_programs, cause) != 0)
		return -1;
	return 0;

bad_key:
	return yamlnode_error(cause, spec->file, key,
	    "invalid key '%s': parameter names are letters, digits, '_' and "
	    "'-' (not last)", key->value);
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
		if (strcmp(params[i].key, "monitors") == 0 ||
		    strcmp(params[i].key, "programs") == 0) {
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
		if (spec->fixed[i].file != NULL)
			job->params[i].file = xstrdup(spec->fixed[i].file);
	}
	job->nr_axes = spec->nr_axes;
	job->axes = xcalloc(spec->nr_axes + 1, sizeof *job->axes);
	job->nr_params = i;
	for (a = spec->nr_axes; a-- > 0; ) {
		nr = spec->axes[a].nr;
		v = spec->axes[a].values[idx % nr];
		job->axes[a] = xstrdup(spec->axes[a].key);
		idx /= nr;
		if (v == NULL)
			continue;
		job->params[job->nr_params].key = xstrdup(spec->axes[a].key);
		job->params[job->nr_params].value = xstrdup(v);
		job->params[job->nr_params].line = spec->axes[a].line;
		job->params[job->nr_params].column = spec->axes[a].column;
		if (spec->axes[a].at_file != NULL)
			job->params[job->nr_params].file =
			    xstrdup(spec->axes[a].at_file);
		job->nr_params++;
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
	if ((v = job_param(job, "programs")) != NULL)
		job->programs = job_split_monitors(v, &job->nr_programs);

	job_canonical(job->params, job->nr_params, &job->canonical, &idtext);
	hash_sha256_hex(idtext, strlen(idtext), hex);
	free(idtext);
	job->id = xstrndup(hex, 16);
	return job;
}

/* The jobs of one LKP job hash, appended to *jobs. */
static int
job_parse_hash(const char *name, size_t len, const struct yamlnode *root,
    struct job ***jobs, size_t *nr, size_t *alloc, size_t *repeats,
    char **cause)
{
	struct job_spec	 spec;
	size_t		 i, j;
	int		 r = -1;

	memset(&spec, 0, sizeof spec);
	spec.file = name;
	spec.nr_jobs = 1;
	if (job_spec_walk(&spec, root, cause) != 0)
		goto out;
	if (*nr + spec.nr_jobs > JOB_MAX_JOBS) {
		yamlnode_error(cause, name, root, "the documents expand to "
		    "more than %d jobs", JOB_MAX_JOBS);
		goto out;
	}
	if ((*nr + spec.nr_jobs > 1) &&
	    (*nr + spec.nr_jobs) * len > JOB_MAX_TEXT) {
		yamlnode_error(cause, name, root, "the matrix of %zu jobs is "
		    "too large for a file of %zu bytes", *nr + spec.nr_jobs,
		    len);
		goto out;
	}
	for (i = 0; i < spec.nr_jobs; i++) {
		ALLOC_GROW(*jobs, *nr, *alloc);
		(*jobs)[*nr] = job_spec_expand(&spec, i);
		for (j = 0; j < *nr; j++) {
			if (strcmp((*jobs)[j]->id, (*jobs)[*nr]->id) == 0)
				break;
		}
		if (j < *nr) {
			job_free((*jobs)[*nr]);
			(*repeats)++;
			continue;
		}
		(*nr)++;
	}
	r = 0;
out:
	job_spec_release(&spec);
	return r;
}

int
job_parse_with(const char *name, const char *buf, size_t len,
    const struct job_options *opts, struct job ***out, size_t *nr,
    char **cause)
{
	struct job_doc	  doc;
	struct yamlnode	**roots = NULL;
	struct job	**jobs = NULL;
	size_t		  nr_roots = 0, nr_jobs = 0, alloc = 0, repeats = 0, i;
	int		  r = -1;

	memset(&doc, 0, sizeof doc);
	doc.opts = opts;
	*out = NULL;
	*nr = 0;
	if (job_doc_split(&doc, name, buf, len, &roots, &nr_roots,
	    cause) != 0)
		goto out;
	for (i = 0; i < nr_roots; i++) {
		/* Bounded by every byte read, the includes' too. */
		if (job_parse_hash(name, doc.bytes, roots[i], &jobs, &nr_jobs,
		    &alloc, &repeats, cause) != 0)
			goto out;
	}
	if (opts != NULL && opts->nr_repeats != NULL)
		*opts->nr_repeats = repeats;
	*out = jobs;
	*nr = nr_jobs;
	jobs = NULL;
	r = 0;
out:
	job_list_free(jobs, nr_jobs);
	yamlnode_list_free(roots, nr_roots);
	job_doc_release(&doc);
	return r;
}

int
job_parse(const char *name, const char *buf, size_t len, struct job ***out,
    size_t *nr, char **cause)
{
	return job_parse_with(name, buf, len, NULL, out, nr, cause);
}

int
job_load_with(const char *path, const struct job_options *opts,
    struct job ***out, size_t *nr, char **cause)
{
	char	*buf = NULL;
	size_t	 len;
	int	 r;

	*out = NULL;
	*nr = 0;
	if (file_read(path, &buf, &len, cause) != 0)
		return -1;
	r = job_parse_with(path, buf, len, opts, out, nr, cause);
	free(buf);
	return r;
}

int
job_load(const char *path, struct job ***out, size_t *nr, char **cause)
{
	return job_load_with(path, NULL, out, nr, cause);
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
	for (i = 0; i < job->nr_programs; i++)
		free(job->programs[i]);
	free(job->programs);
	for (i = 0; i < job->nr_params; i++) {
		free(job->params[i].key);
		free(job->params[i].value);
		free(job->params[i].file);
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
