/*
 * The engine behind the monitors that read /proc and /sys files: read the
 * sources at start, at every sampling interval when asked, and at stop;
 * report counters as the difference between stop and start and levels as
 * the mean of every reading. A monitor is a spec (its prefix, its parser,
 * which fields are levels) and the list of its files.
 */
#ifndef AGENTS_MONITOR_FILE_H
#define AGENTS_MONITOR_FILE_H

#include <stddef.h>

#include "agents/monitor.h"
#include "util/strbuf.h"

struct monitor_file;

struct monitor_file_spec {
	const char	*prefix;	/* metric prefix: "proc-vmstat" */
	int		(*parse)(struct monitor_snap *, const char *);
	/* 1 for a level (reported as a mean); NULL: every field counts. */
	int		(*is_level)(const char *name);
	int		 sample;	/* read at every interval too */
	/* Replaces the default reporting when not NULL. */
	void		(*emit)(struct monitor_file *, struct result *);
};

struct monitor_file {
	const struct monitor_file_spec	 *spec;
	char				 *root;
	char				**paths;	/* under the root */
	char				**tags;		/* field prefix: "node0." */
	size_t				  nr;
	struct monitor_snap		  first;	/* at start */
	struct monitor_snap		  last;		/* at stop */
	struct monitor_snap		  acc;		/* every reading */
	struct strbuf			  buf;
	char				 *error;	/* of a failed sample */
};

/* Start: read every source once; -1 with *cause if one cannot be read. */
int	 monitor_file_start(void **state, const struct monitor_file_spec *,
	     const char *root, char **paths, char **tags, size_t nr,
	     char **cause);
void	 monitor_file_sample(void *state);
int	 monitor_file_stop(void *state, const struct monitor_exit *,
	     struct result *, char **cause);
void	 monitor_file_free(void *state);
/* One reading of every source into s (released first). */
int	 monitor_file_read(struct monitor_file *, struct monitor_snap *s,
	     char **cause);
/* One source, the file at path (under root), untagged. */
int	 monitor_file_start_one(void **state,
	     const struct monitor_file_spec *, const char *root,
	     const char *path, char **cause);
/* Per-node sources: PATTERN with %u for the node, tags "nodeN.". */
int	 monitor_file_start_nodes(void **state,
	     const struct monitor_file_spec *, const char *root,
	     const char *pattern, char **cause);

#endif
