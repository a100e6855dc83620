/*
 * The engine of the file monitors (agents/monitor-file.h): readings of a
 * monitor's sources at start, at each interval and at stop, and the
 * default reporting -- counters as stop minus start, levels as the mean
 * of all readings. A failed reading in the sampler thread is kept and
 * reported at stop: a file that vanishes mid-run makes the monitor's
 * figures unreliable, and the run must say so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/monitor-file.h"
#include "agents/result.h"
#include "util/error.h"
#include "util/xalloc.h"

int
monitor_file_read(struct monitor_file *mf, struct monitor_snap *s,
    char **cause)
{
	struct monitor_snap		 one;
	const struct monitor_field	*f;
	struct monitor_field		*t;
	char				*name;
	size_t				 i, k;

	monitor_snap_release(s);
	memset(&one, 0, sizeof one);
	for (i = 0; i < mf->nr; i++) {
		if (monitor_snap_read(mf->root, mf->paths[i], &mf->buf,
		    cause) != 0)
			return -1;
		monitor_snap_release(&one);
		if (mf->spec->parse(&one, mf->buf.buf) < 0) {
			monitor_snap_release(&one);
			return error_set(cause, "'%s' is not in the format "
			    "of %s", mf->paths[i], mf->spec->prefix);
		}
		for (k = 0; k < one.nr; k++) {
			f = &one.fields[k];
			name = xasprintf("%s%s", mf->tags[i], f->name);
			t = monitor_snap_field(s, name, strlen(name));
			free(name);
			t->value = f->value;
			free(t->cols);
			t->cols = NULL;
			t->nr_cols = f->nr_cols;
			if (f->nr_cols > 0) {
				t->cols = xcalloc(f->nr_cols, sizeof *t->cols);
				memcpy(t->cols, f->cols,
				    f->nr_cols * sizeof *f->cols);
			}
		}
	}
	monitor_snap_release(&one);
	return 0;
}

static void
monitor_file_free_sources(char **paths, char **tags, size_t nr)
{
	size_t	i;

	for (i = 0; i < nr; i++) {
		free(paths[i]);
		free(tags[i]);
	}
	free(paths);
	free(tags);
}

int
monitor_file_start(void **state, const struct monitor_file_spec *spec,
    const char *root, char **paths, char **tags, size_t nr, char **cause)
{
	struct monitor_file	*mf = xcalloc(1, sizeof *mf);

	mf->spec = spec;
	mf->root = root != NULL ? xstrdup(root) : NULL;
	mf->paths = paths;
	mf->tags = tags;
	mf->nr = nr;
	strbuf_init(&mf->buf);
	if (monitor_file_read(mf, &mf->first, cause) != 0) {
		monitor_file_free(mf);
		return -1;
	}
	monitor_snap_add(&mf->acc, &mf->first);
	*state = mf;
	return 0;
}

int
monitor_file_start_one(void **state, const struct monitor_file_spec *spec,
    const char *root, const char *path, char **cause)
{
	char	**paths = xcalloc(1, sizeof *paths);
	char	**tags = xcalloc(1, sizeof *tags);

	paths[0] = xstrdup(path);
	tags[0] = xstrdup("");
	return monitor_file_start(state, spec, root, paths, tags, 1, cause);
}

int
monitor_file_start_nodes(void **state, const struct monitor_file_spec *spec,
    const char *root, const char *pattern, char **cause)
{
	unsigned	*nodes = NULL;
	char		**paths, **tags;
	int		  n, i;

	if ((n = monitor_snap_nodes(root, &nodes, cause)) < 0)
		return -1;
	paths = xcalloc((size_t)n, sizeof *paths);
	tags = xcalloc((size_t)n, sizeof *tags);
	for (i = 0; i < n; i++) {
		paths[i] = xasprintf(pattern, nodes[i]);
		tags[i] = xasprintf("node%u.", nodes[i]);
	}
	free(nodes);
	return monitor_file_start(state, spec, root, paths, tags, (size_t)n,
	    cause);
}

void
monitor_file_sample(void *state)
{
	struct monitor_file	*mf = state;
	struct monitor_snap	 s;
	char			*cause = NULL;

	memset(&s, 0, sizeof s);
	if (!mf->spec->sample || mf->error != NULL)
		return;
	if (monitor_file_read(mf, &s, &cause) != 0)
		mf->error = cause;
	else
		monitor_snap_add(&mf->acc, &s);
	monitor_snap_release(&s);
}

int
monitor_file_stop(void *state, const struct monitor_exit *e,
    struct result *r, char **cause)
{
	struct monitor_file	*mf = state;

	(void)e;
	if (mf->error != NULL)
		return error_set(cause, "a reading during the run failed: %s",
		    mf->error);
	if (monitor_file_read(mf, &mf->last, cause) != 0)
		return -1;
	monitor_snap_add(&mf->acc, &mf->last);
	if (mf->spec->emit != NULL) {
		mf->spec->emit(mf, r);
		return 0;
	}
	monitor_snap_emit_delta(r, mf->spec->prefix, &mf->first, &mf->last,
	    mf->spec->is_level, 0);
	if (mf->spec->is_level != NULL)
		monitor_snap_emit_mean(r, mf->spec->prefix, &mf->acc,
		    mf->spec->is_level, 1);
	return 0;
}

void
monitor_file_free(void *state)
{
	struct monitor_file	*mf = state;

	if (mf == NULL)
		return;
	monitor_file_free_sources(mf->paths, mf->tags, mf->nr);
	monitor_snap_release(&mf->first);
	monitor_snap_release(&mf->last);
	monitor_snap_release(&mf->acc);
	strbuf_release(&mf->buf);
	free(mf->root);
	free(mf->error);
	free(mf);
}
