/*
 * LKP's job file layer (docs/jobs.md "LKP job files"): "<< :" includes
 * are spliced into the tree where they stand, documents become hash_0
 * and hash_0 + hash_i, and the incremental keys (a.b.c:, a+:, a-:) are
 * applied, before jobs/job.c walks each result. What bisectd cannot
 * honour (ERB templates, "{{ }}" expressions, multi-host "if role"
 * sections) is refused with its name and position.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/job-doc.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define JOB_DOC_MAX_DOCS	JOB_MAX_JOBS
#define JOB_DOC_MAX_BYTES	(64U << 20)	/* all files read, in total */

struct job_doc_list {
	struct yamlnode	**v;
	size_t		  nr;
	size_t		  alloc;
};

static int job_doc_load(struct job_doc *, const char *file, const char *buf,
    size_t len, int depth, struct job_doc_list *, char **cause);

static const char *
job_doc_intern(struct job_doc *d, const char *s)
{
	ALLOC_GROW(d->files, d->nr_files, d->alloc_files);
	d->files[d->nr_files] = xstrdup(s);
	return d->files[d->nr_files++];
}

void
job_doc_release(struct job_doc *d)
{
	size_t	i;

	for (i = 0; i < d->nr_files; i++)
		free(d->files[i]);
	free(d->files);
	d->files = NULL;
	d->nr_files = d->alloc_files = 0;
}

static void
job_doc_list_add(struct job_doc_list *l, struct yamlnode *n)
{
	ALLOC_GROW(l->v, l->nr, l->alloc);
	l->v[l->nr++] = n;
}

/*
 * ERB and "{{ }}" are expanded by LKP on the text, before YAML sees it
 * (an unquoted "{{" is not even YAML): find them in the text, outside
 * comments.
 */
static int
job_doc_erb(const char *name, const char *buf, size_t len, char **cause)
{
	unsigned	line = 1, column = 1;
	size_t		i;
	int		bol = 1, comment = 0;

	for (i = 0; i < len; i++) {
		if (buf[i] == '#' && (bol || buf[i - 1] == ' ' ||
		    buf[i - 1] == '\t'))
			comment = 1;
		if (!comment && buf[i] == '{' && i + 1 < len &&
		    buf[i + 1] == '{')
			return error_set(cause, "%s:%u:%u: ruby expression "
			    "'{{ }}' is not supported: write the values out",
			    name, line, column);
		if (bol && buf[i] == '%' && (len - i < 5 ||
		    (strncmp(buf + i, "%YAML", 5) != 0 &&
		    strncmp(buf + i, "%TAG ", 5) != 0)))
			return error_set(cause, "%s:%u:%u: ERB line '%%' is "
			    "not supported: write the values out", name, line,
			    column);
		if (buf[i] == '<' && i + 1 < len && buf[i + 1] == '%')
			return error_set(cause, "%s:%u:%u: ERB template "
			    "'<%% %%>' is not supported: write the values out",
			    name, line, column);
		bol = buf[i] == '\n';
		if (bol)
			comment = 0;
		if (buf[i] == '\n') {
			line++;
			column = 1;
		} else if (((unsigned char)buf[i] & 0xc0) != 0x80)
			column++;
	}
	return 0;
}

static int
job_doc_read(struct job_doc *d, const char *path, char **buf, size_t *len,
    char **cause)
{
	if (d->opts != NULL && d->opts->read != NULL)
		return d->opts->read(path, buf, len, d->opts->payload, cause);
	if (access(path, F_OK) != 0)
		return 1;
	return file_read(path, buf, len, cause) == 0 ? 0 : -1;
}

static char *
job_doc_dirname(const char *file)
{
	const char	*slash = strrchr(file, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == file)
		return xstrdup("/");
	return xstrndup(file, (size_t)(slash - file));
}

/* Put key: value in map, replacing an earlier value of the same key. */
static void
job_doc_put(struct yamlnode *map, struct yamlnode *key, struct yamlnode *value)
{
	size_t	i;

	for (i = 0; i < map->nr; i += 2) {
		if (strcmp(map->items[i]->value, key->value) == 0) {
			yamlnode_free(map->items[i]);
			yamlnode_free(map->items[i + 1]);
			map->items[i] = key;
			map->items[i + 1] = value;
			return;
		}
	}
	ALLOC_GROW(map->items, map->nr + 1, map->alloc);
	map->items[map->nr++] = key;
	map->items[map->nr++] = value;
}

static void
job_doc_del(struct yamlnode *map, const char *key)
{
	size_t	i;

	for (i = 0; i < map->nr; i += 2) {
		if (strcmp(map->items[i]->value, key) == 0) {
			yamlnode_free(map->items[i]);
			yamlnode_free(map->items[i + 1]);
			memmove(map->items + i, map->items + i + 2,
			    (map->nr - i - 2) * sizeof *map->items);
			map->nr -= 2;
			return;
		}
	}
}

/* Move every key of src into dst (src is freed). */
static void
job_doc_merge_into(struct yamlnode *dst, struct yamlnode *src)
{
	size_t	i;

	for (i = 0; i < src->nr; i += 2)
		job_doc_put(dst, src->items[i], src->items[i + 1]);
	src->nr = 0;
	yamlnode_free(src);
}

static struct yamlnode *
job_doc_new_map(const struct yamlnode *at)
{
	struct yamlnode	*n = xcalloc(1, sizeof *n);

	n->type = YAMLNODE_MAPPING;
	n->line = at->line;
	n->column = at->column;
	n->file = at->file;
	return n;
}

/* "{file: F, ignore: [k...], key: value...}": ignore and overrides. */
static int
job_doc_include_apply(const char *file, const struct yamlnode *spec,
    struct yamlnode *doc, char **cause)
{
	const struct yamlnode	*k, *v, *item;
	size_t			 i, j;

	if (spec->type != YAMLNODE_MAPPING)
		return 0;
	for (i = 0; i < spec->nr; i += 2) {
		k = spec->items[i];
		v = spec->items[i + 1];
		if (strcmp(k->value, "file") == 0)
			continue;
		if (strcmp(k->value, "ignore") != 0) {
			job_doc_put(doc, yamlnode_copy(k), yamlnode_copy(v));
			continue;
		}
		if (v->type == YAMLNODE_MAPPING)
			return yamlnode_error(cause, file, v, "'<<.ignore' "
			    "must be a key or a list of keys, not a map");
		for (j = 0; j < (v->type == YAMLNODE_SCALAR ? 1 : v->nr); j++) {
			item = v->type == YAMLNODE_SCALAR ? v : v->items[j];
			if (item->type != YAMLNODE_SCALAR || item->null)
				return yamlnode_error(cause, file, item,
				    "'<<.ignore' lists %s: keys are scalars",
				    yamlnode_kind(item));
			job_doc_del(doc, item->value);
		}
	}
	return 0;
}

/* The documents of the file that the "<<" at key names. */
static int
job_doc_include(struct job_doc *d, const char *file, const struct yamlnode *key,
    const struct yamlnode *spec, int depth, struct job_doc_list *out,
    char **cause)
{
	const struct yamlnode	*name = spec;
	struct strbuf		 tried = STRBUF_INIT;
	char			*dir = NULL, *path = NULL, *buf = NULL;
	size_t			 len = 0, i, ndirs;
	int			 found = 1, r = -1;

	if (d->opts != NULL && d->opts->no_include) {
		yamlnode_error(cause, file, key, "include '<<' is not allowed "
		    "here");
		goto out;
	}
	if (depth >= JOB_MAX_INCLUDE_DEPTH) {
		yamlnode_error(cause, file, key, "includes nested deeper than "
		    "%d files", JOB_MAX_INCLUDE_DEPTH);
		goto out;
	}
	if (spec->type == YAMLNODE_MAPPING)
		name = yamlnode_map_get(spec, "file");
	if (name == NULL || name->type != YAMLNODE_SCALAR || name->null ||
	    *name->value == '\0') {
		yamlnode_error(cause, file, name != NULL ? name : spec,
		    "include '<<' must name a file: '<< : FILE' or "
		    "'<< : {file: FILE, ...}'");
		goto out;
	}
	dir = job_doc_dirname(file);
	ndirs = d->opts != NULL ? d->opts->nr_include_dirs : 0;
	for (i = 0; i <= ndirs && found != 0; i++) {
		free(path);
		if (name->value[0] == '/')
			path = xstrdup(name->value);
		else
			path = xasprintf("%s/%s", i == 0 ? dir :
			    d->opts->include_dirs[i - 1], name->value);
		strbuf_addf(&tried, "%s%s", i ? ", " : "", path);
		if ((found = job_doc_read(d, path, &buf, &len, cause)) < 0)
			goto out;
		if (name->value[0] == '/')
			break;
	}
	if (found != 0) {
		yamlnode_error(cause, file, name, "included file '%s' not "
		    "found (tried %s)", name->value, tried.buf);
		goto out;
	}
	if (d->bytes > JOB_DOC_MAX_BYTES - len) {
		yamlnode_error(cause, file, name, "includes read more than "
		    "%u MiB", JOB_DOC_MAX_BYTES >> 20);
		goto out;
	}
	d->bytes += len;
	if (job_doc_load(d, job_doc_intern(d, path), buf, len, depth + 1, out,
	    cause) != 0)
		goto out;
	for (i = 0; i < out->nr; i++) {
		if (out->v[i]->type != YAMLNODE_MAPPING) {
			yamlnode_error(cause, path, out->v[i], "an included "
			    "document must be a map, not %s",
			    yamlnode_kind(out->v[i]));
			goto out;
		}
		if (job_doc_include_apply(file, spec, out->v[i], cause) != 0)
			goto out;
	}
	r = 0;
out:
	strbuf_release(&tried);
	free(dir);
	free(path);
	free(buf);
	return r;
}

/*
 * A map with its includes spliced in, appended to out. At the top level
 * an included file of several documents splits the map: what precedes
 * the "<<" joins the first document, what follows it the last, as LKP's
 * textual splice has it.
 */
static int
job_doc_resolve(struct job_doc *d, const char *file, const struct yamlnode *map,
    int depth, int top, struct job_doc_list *out, char **cause)
{
	struct job_doc_list	 inc, sub;
	struct yamlnode		*cur = job_doc_new_map(map);
	const struct yamlnode	*key, *value;
	size_t			 i, j;
	int			 r = -1;

	memset(&inc, 0, sizeof inc);
	memset(&sub, 0, sizeof sub);
	for (i = 0; i < map->nr; i += 2) {
		key = map->items[i];
		value = map->items[i + 1];
		if (strcmp(key->value, "<<") != 0) {
			if (value->type != YAMLNODE_MAPPING) {
				job_doc_put(cur, yamlnode_copy(key),
				    yamlnode_copy(value));
				continue;
			}
			if (job_doc_resolve(d, file, value, depth, 0, &sub,
			    cause) != 0)
				goto out;
			job_doc_put(cur, yamlnode_copy(key), sub.v[--sub.nr]);
			continue;
		}
		if (job_doc_include(d, file, key, value, depth, &inc,
		    cause) != 0)
			goto out;
		if (inc.nr > 1 && !top) {
			yamlnode_error(cause, file, key, "an included file of "
			    "%zu documents can only be included at the top "
			    "level", inc.nr);
			goto out;
		}
		if (out->nr + inc.nr > JOB_DOC_MAX_DOCS) {
			yamlnode_error(cause, file, key, "more than %d "
			    "documents", JOB_DOC_MAX_DOCS);
			goto out;
		}
		for (j = 0; j < inc.nr; j++) {
			if (j > 0) {
				job_doc_list_add(out, cur);
				cur = inc.v[j];
			} else
				job_doc_merge_into(cur, inc.v[j]);
			inc.v[j] = NULL;
		}
		inc.nr = 0;
	}
	job_doc_list_add(out, cur);
	cur = NULL;
	r = 0;
out:
	yamlnode_free(cur);
	yamlnode_list_free(inc.v, inc.nr);
	yamlnode_list_free(sub.v, sub.nr);
	return r;
}

static int
job_doc_load(struct job_doc *d, const char *file, const char *buf, size_t len,
    int depth, struct job_doc_list *out, char **cause)
{
	struct yamlnode	**docs = NULL;
	size_t		  nr = 0, i;
	int		  r = -1;

	if (job_doc_erb(file, buf, len, cause) != 0)
		return -1;
	if (yamlnode_parse_stream(file, buf, len, &docs, &nr, cause) != 0)
		return -1;
	for (i = 0; i < nr; i++) {
		yamlnode_set_file(docs[i], file);
		if (docs[i]->type != YAMLNODE_MAPPING) {
			job_doc_list_add(out, docs[i]);
			docs[i] = NULL;
			continue;
		}
		if (job_doc_resolve(d, file, docs[i], depth, 1, out,
		    cause) != 0)
			goto out;
	}
	r = 0;
out:
	yamlnode_list_free(docs, nr);
	return r;
}

/* Incremental keys: "a.b.c", "a+", "a-" (not "+" or "-" alone). */
static int
job_doc_special(const char *key)
{
	size_t	len = strlen(key);

	if (len > 1 && (key[len - 1] == '+' || key[len - 1] == '-'))
		return key[len - 1];
	return strchr(key, '.') != NULL ? '.' : 0;
}

/*
 * The map that holds the last component of the dotted path, made on the
 * way when create (a scalar in the way is replaced by a map, as LKP
 * does); NULL when absent. *last points into path.
 */
static struct yamlnode *
job_doc_parent(struct yamlnode *root, char *path, const struct yamlnode *at,
    int create, char **last)
{
	struct yamlnode	*map = root, *v, *k;
	char		*dot;

	while ((dot = strchr(path, '.')) != NULL) {
		*dot = '\0';
		v = yamlnode_map_get(map, path);
		if (v == NULL || v->type != YAMLNODE_MAPPING) {
			if (!create)
				return NULL;
			k = yamlnode_copy(at);
			free(k->value);
			k->value = xstrdup(path);
			v = job_doc_new_map(at);
			job_doc_put(map, k, v);
		}
		map = v;
		path = dot + 1;
	}
	*last = path;
	return map;
}

static int
job_doc_scalar_in(const struct yamlnode *seq, const char *s)
{
	size_t	i;

	for (i = 0; i < seq->nr; i++) {
		if (seq->items[i]->type == YAMLNODE_SCALAR &&
		    strcmp(seq->items[i]->value, s) == 0)
			return 1;
	}
	return 0;
}

static void
job_doc_append(struct yamlnode *seq, const struct yamlnode *v)
{
	size_t	i, n = v->type == YAMLNODE_SEQUENCE ? v->nr : 1;

	for (i = 0; i < n; i++) {
		const struct yamlnode *item =
		    v->type == YAMLNODE_SEQUENCE ? v->items[i] : v;

		if (item->type == YAMLNODE_SCALAR &&
		    job_doc_scalar_in(seq, item->value))
			continue;
		ALLOC_GROW(seq->items, seq->nr, seq->alloc);
		seq->items[seq->nr++] = yamlnode_copy(item);
	}
}

/* Apply one incremental key to root. */
static int
job_doc_revise(const char *file, struct yamlnode *root,
    const struct yamlnode *key, const struct yamlnode *value, char **cause)
{
	struct yamlnode	*map, *old, *seq, *k;
	char		*path = xstrdup(key->value), *last;
	int		 kind = job_doc_special(key->value), r = -1;
	size_t		 i, n;

	if (kind != '.')
		path[strlen(path) - 1] = '\0';
	if (*path == '\0' || *path == '.' || path[strlen(path) - 1] == '.' ||
	    strstr(path, "..") != NULL) {
		yamlnode_error(cause, file, key, "invalid key '%s': an empty "
		    "part in a dotted key", key->value);
		goto out;
	}
	map = job_doc_parent(root, path, key, kind != '-', &last);
	if (map == NULL) {
		r = 0;
		goto out;
	}
	old = yamlnode_map_get(map, last);
	k = yamlnode_copy(key);
	free(k->value);
	k->value = xstrdup(last);
	if (kind == '.' || (kind == '+' && (old == NULL || old->null))) {
		job_doc_put(map, k, yamlnode_copy(value));
	} else if (kind == '+') {
		seq = xcalloc(1, sizeof *seq);
		seq->type = YAMLNODE_SEQUENCE;
		seq->line = value->line;
		seq->column = value->column;
		seq->file = value->file;
		job_doc_append(seq, old);
		job_doc_append(seq, value);
		job_doc_put(map, k, seq);
	} else {
		yamlnode_free(k);
		if (old == NULL) {
			r = 0;
			goto out;
		}
		if (value->type == YAMLNODE_SCALAR && value->null) {
			job_doc_del(map, last);
			r = 0;
			goto out;
		}
		n = value->type == YAMLNODE_SCALAR ? 1 : value->nr;
		for (i = 0; i < n; i += value->type == YAMLNODE_MAPPING ? 2 :
		    1) {
			const struct yamlnode *d = value->type ==
			    YAMLNODE_SCALAR ? value : value->items[i];
			size_t j;

			if (d->type != YAMLNODE_SCALAR)
				continue;
			if (old->type == YAMLNODE_MAPPING)
				job_doc_del(old, d->value);
			else if (old->type == YAMLNODE_SEQUENCE) {
				for (j = old->nr; j-- > 0; ) {
					if (old->items[j]->type !=
					    YAMLNODE_SCALAR || strcmp(
					    old->items[j]->value, d->value))
						continue;
					yamlnode_free(old->items[j]);
					memmove(old->items + j, old->items +
					    j + 1, (old->nr - j - 1) *
					    sizeof *old->items);
					old->nr--;
				}
			}
		}
	}
	r = 0;
out:
	free(path);
	return r;
}

/*
 * hash_0 revised by hash_i (NULL for hash_0 alone): plain keys replace,
 * then the incremental keys of both, hash_0's first, in file order.
 */
static int
job_doc_combine(const char *file, const struct yamlnode *base,
    const struct yamlnode *rev, struct yamlnode **out, char **cause)
{
	const struct yamlnode	*srcs[2] = { base, rev };
	struct yamlnode		*job = job_doc_new_map(base);
	size_t			 s, i;

	*out = NULL;
	for (s = 0; s < 2; s++) {
		for (i = 0; srcs[s] != NULL && i < srcs[s]->nr; i += 2) {
			if (job_doc_special(srcs[s]->items[i]->value))
				continue;
			job_doc_put(job, yamlnode_copy(srcs[s]->items[i]),
			    yamlnode_copy(srcs[s]->items[i + 1]));
		}
	}
	for (s = 0; s < 2; s++) {
		for (i = 0; srcs[s] != NULL && i < srcs[s]->nr; i += 2) {
			if (!job_doc_special(srcs[s]->items[i]->value))
				continue;
			if (job_doc_revise(file, job, srcs[s]->items[i],
			    srcs[s]->items[i + 1], cause) != 0) {
				yamlnode_free(job);
				return -1;
			}
		}
	}
	*out = job;
	return 0;
}

/*
 * A list of maps under a key (pts: [{test: [...]}, {test: ...}]) is LKP's
 * list of alternative option sets: one job hash per item, in which the
 * item's own lists are axes again.
 */
static int
job_doc_fanout(const char *file, struct yamlnode *job, struct job_doc_list *out,
    char **cause)
{
	struct yamlnode	*v, *copy;
	size_t		 i, j;
	int		 maps;

	for (i = 0; i < job->nr; i += 2) {
		v = job->items[i + 1];
		if (v->type != YAMLNODE_SEQUENCE)
			continue;
		for (j = 0, maps = v->nr > 0; j < v->nr; j++)
			maps &= v->items[j]->type == YAMLNODE_MAPPING;
		if (!maps)
			continue;
		for (j = 0; j < v->nr; j++) {
			if (out->nr >= JOB_DOC_MAX_DOCS) {
				yamlnode_error(cause, file, v, "more than %d "
				    "option sets", JOB_DOC_MAX_DOCS);
				goto fail;
			}
			copy = yamlnode_copy(job);
			yamlnode_free(copy->items[i + 1]);
			copy->items[i + 1] = yamlnode_copy(v->items[j]);
			if (job_doc_fanout(file, copy, out, cause) != 0)
				goto fail;
		}
		yamlnode_free(job);
		return 0;
	}
	job_doc_list_add(out, job);
	return 0;
fail:
	yamlnode_free(job);
	return -1;
}

/* "{{ }}" left in a scalar (a quoted one): LKP's, not ours. */
static int
job_doc_refuse(const char *file, const struct yamlnode *n, char **cause)
{
	size_t	i;

	if (n->type == YAMLNODE_SCALAR) {
		if (strstr(n->value, "{{") != NULL)
			return yamlnode_error(cause, file, n, "ruby expression "
			    "'{{ }}' is not supported: write the values out");
		return 0;
	}
	for (i = 0; i < n->nr; i++) {
		if (job_doc_refuse(file, n->items[i], cause) != 0)
			return -1;
	}
	return 0;
}

/* The index of the first "if ..." key of a map, or its nr. */
static size_t
job_doc_find_if(const struct yamlnode *job)
{
	size_t	i;

	for (i = 0; i < job->nr; i += 2) {
		if (strncmp(job->items[i]->value, "if ", 3) == 0)
			break;
	}
	return i;
}

/*
 * "if role server:" sections. With "cluster: cs-localhost" one machine
 * has every role, so each section's keys join the job where it stands,
 * as LKP runs them there; any other cluster is several machines, which
 * a bisectd job is not.
 */
static int
job_doc_roles(const char *file, struct yamlnode *job, char **cause)
{
	const struct yamlnode	*cluster = yamlnode_map_get(job, "cluster");
	struct yamlnode		*key, *value, *merged;
	size_t			 i, j, m;
	int			 localhost;

	localhost = cluster != NULL && cluster->type == YAMLNODE_SCALAR &&
	    strcmp(cluster->value, "cs-localhost") == 0;
	while ((i = job_doc_find_if(job)) < job->nr) {
		key = job->items[i];
		if (!localhost)
			return yamlnode_error(cause, file, key, "multi-host "
			    "section '%s' is not supported: a job runs on one "
			    "machine (only with 'cluster: cs-localhost', where "
			    "it has every role)", key->value);
		if (strncmp(key->value, "if role ", 8) != 0)
			return yamlnode_error(cause, file, key, "condition "
			    "'%s' is not supported: only 'if role NAME'",
			    key->value);
		value = job->items[i + 1];
		if (value->type == YAMLNODE_SCALAR && value->null)
			value = NULL;
		else if (value->type != YAMLNODE_MAPPING)
			return yamlnode_error(cause, file, value, "'%s' must be "
			    "a map of keys, not %s", key->value,
			    yamlnode_kind(value));
		/* The job again, the section's keys in the section's place. */
		merged = job_doc_new_map(job);
		for (j = 0; j < job->nr; j += 2) {
			if (j != i) {
				job_doc_put(merged, job->items[j],
				    job->items[j + 1]);
				continue;
			}
			for (m = 0; value != NULL && m < value->nr; m += 2)
				job_doc_put(merged, yamlnode_copy(
				    value->items[m]), yamlnode_copy(
				    value->items[m + 1]));
			yamlnode_free(job->items[j]);
			yamlnode_free(job->items[j + 1]);
		}
		free(job->items);
		job->items = merged->items;
		job->nr = merged->nr;
		job->alloc = merged->alloc;
		merged->items = NULL;
		merged->nr = 0;
		yamlnode_free(merged);
	}
	return 0;
}

int
job_doc_split(struct job_doc *d, const char *name, const char *buf,
    size_t len, struct yamlnode ***out, size_t *nr, char **cause)
{
	struct job_doc_list	 docs, jobs;
	struct yamlnode		*job;
	size_t			 i;
	int			 r = -1;

	memset(&docs, 0, sizeof docs);
	memset(&jobs, 0, sizeof jobs);
	*out = NULL;
	*nr = 0;
	d->bytes = len;
	if (job_doc_load(d, job_doc_intern(d, name), buf, len, 0, &docs,
	    cause) != 0)
		goto out;
	if (docs.nr == 0) {
		job_doc_list_add(&jobs, NULL);
		goto done;
	}
	if (docs.nr > 1 && docs.nr * len > JOB_DOC_MAX_BYTES) {
		yamlnode_error(cause, name, docs.v[0], "%zu documents are too "
		    "many for a file of %zu bytes", docs.nr, len);
		goto out;
	}
	for (i = 0; i < docs.nr; i++) {
		if (docs.v[i]->type == YAMLNODE_MAPPING)
			continue;
		if (docs.nr == 1) {
			job_doc_list_add(&jobs, docs.v[0]);
			docs.v[0] = NULL;
			goto done;
		}
		yamlnode_error(cause, name, docs.v[i], "document %zu of %zu "
		    "is %s, not a map of keys", i + 1, docs.nr,
		    yamlnode_kind(docs.v[i]));
		goto out;
	}
	for (i = 0; i < docs.nr; i++) {
		if (job_doc_combine(name, docs.v[0], i > 0 ? docs.v[i] : NULL,
		    &job, cause) != 0)
			goto out;
		if (job_doc_refuse(name, job, cause) != 0 ||
		    job_doc_roles(name, job, cause) != 0) {
			yamlnode_free(job);
			goto out;
		}
		if (job_doc_fanout(name, job, &jobs, cause) != 0)
			goto out;
	}
done:
	*out = jobs.v;
	*nr = jobs.nr;
	jobs.v = NULL;
	jobs.nr = 0;
	r = 0;
out:
	yamlnode_list_free(docs.v, docs.nr);
	yamlnode_list_free(jobs.v, jobs.nr);
	return r;
}
