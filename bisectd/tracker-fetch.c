/*
 * The fetch child of continuous mode: one repository's tracked branches
 * fetched into refs/bisectd/track/, pruned when gone upstream, the child
 * ended by a stall without progress, and the cause of a failure left in a
 * note that the daemon reads (tracker_fetched).
 */
#include <git2.h>

#include <sys/stat.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisectd/repo.h"
#include "bisectd/tracker.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

static char	tracker_fetch_stall[128];

static void
tracker_fetch_stalled(int sig)
{
	ssize_t	w;

	(void)sig;
	w = write(STDERR_FILENO, tracker_fetch_stall,
	    strlen(tracker_fetch_stall));
	(void)w;
	_exit(3);
}

/* Any progress of the transfer puts the stall off again. */
static int
tracker_fetch_progress(const git_indexer_progress *stats, void *payload)
{
	(void)stats;
	alarm(*(unsigned *)payload);
	return 0;
}

static int
tracker_fetch_sideband(const char *str, int len, void *payload)
{
	(void)str;
	(void)len;
	alarm(*(unsigned *)payload);
	return 0;
}

/* Where a fetch child leaves the cause of its failure. */
char *
tracker_fetch_note(const struct config *cfg, const char *repo)
{
	char	*name = xasprintf("fetch-%s.error", repo);
	char	*path = path_join(cfg->workdir, name);

	free(name);
	return path;
}

/*
 * A remote that is a local path is looked at first: libgit2 says
 * "unsupported URL protocol" for one that does not exist.
 */
static int
tracker_fetch_local(const struct config_repo *cr, char **cause)
{
	const char	*p = cr->fetch;
	struct stat	 sb;

	if (strncmp(p, "file://", 7) == 0)
		p += 7;
	else if (p[0] != '/' && strncmp(p, "./", 2) != 0 &&
	    strncmp(p, "../", 3) != 0)
		return 0;
	if (stat(p, &sb) != 0)
		return error_set(cause, "couldn't fetch in repository '%s': no "
		    "such repository '%s': %s", cr->name, p, strerror(errno));
	return 0;
}

/*
 * In the fetch child: fetch the tracked branches, their tips landing in
 * refs/bisectd/track/ (pruned when the branch is gone upstream). A fetch
 * that makes no progress for `stall` seconds (a remote that accepted the
 * connection and went quiet) ends the child.
 */
int
tracker_fetch_repo(const struct config *cfg, const struct config_repo *cr,
    unsigned stall, char **cause)
{
	git_repository		*repo = NULL;
	git_remote		*remote = NULL;
	git_fetch_options	 opts = GIT_FETCH_OPTIONS_INIT;
	git_strarray		 specs;
	char			**refspecs = NULL, *note;
	size_t			 i;
	int			 r = -1;

	git_libgit2_init();
	snprintf(tracker_fetch_stall, sizeof tracker_fetch_stall, "bisectd: "
	    "repository '%s': fetch stalled: no progress for %u seconds\n",
	    cr->name, stall);
	signal(SIGALRM, tracker_fetch_stalled);
	alarm(stall);
	if (git_repository_open(&repo, cr->path) != 0) {
		error_set(cause, "couldn't open in repository '%s': %s",
		    cr->name, repo_git_error());
		goto out;
	}
	if (git_remote_lookup(&remote, repo, cr->fetch) != 0) {
		if (tracker_fetch_local(cr, cause) != 0)
			goto out;
		if (git_remote_create_anonymous(&remote, repo,
		    cr->fetch) != 0) {
			error_set(cause, "couldn't find the remote in "
			    "repository '%s': %s", cr->name, repo_git_error());
			goto out;
		}
	}
	refspecs = xcalloc(cr->nr_track + 1, sizeof *refspecs);
	for (i = 0; i < cr->nr_track; i++)
		refspecs[i] = xasprintf("+refs/heads/%s:refs/bisectd/track/%s",
		    cr->track[i], cr->track[i]);
	specs.strings = refspecs;
	specs.count = cr->nr_track;
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	opts.prune = GIT_FETCH_PRUNE;
	opts.callbacks.transfer_progress = tracker_fetch_progress;
	opts.callbacks.sideband_progress = tracker_fetch_sideband;
	opts.callbacks.payload = &stall;
	if (git_remote_fetch(remote, &specs, &opts, "bisectd fetch") != 0) {
		error_set(cause, "couldn't fetch in repository '%s': %s",
		    cr->name, repo_git_error());
		goto out;
	}
	r = 0;
out:
	alarm(0);
	note = tracker_fetch_note(cfg, cr->name);
	if (r != 0)
		(void)file_write_atomic(note, *cause, strlen(*cause), NULL);
	else
		(void)unlink(note);
	free(note);
	for (i = 0; refspecs != NULL && i < cr->nr_track; i++)
		free(refspecs[i]);
	free(refspecs);
	git_remote_free(remote);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return r;
}
