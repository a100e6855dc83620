/*
 * The journal of a run's knobs (agents/knob-journal.h): each knob's old
 * value written durably before the knob is, removed once it is back, and
 * what a killed agent left put back by the next run.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/child.h"
#include "agents/inventory.h"
#include "agents/knob.h"
#include "agents/knob-journal.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/file.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

char *
knob_journal_dir(const char *root)
{
	const char	*v = getenv(KNOB_JOURNAL_ENV);

	if (v != NULL && v[0] == '/')
		return xstrdup(v);
	return inventory_path(root, KNOB_JOURNAL_DIR);
}

/* A knob file's journal: DIR/knob-HASH, FNV-1a of its full path. */
char *
knob_journal_path(const char *dir, const char *full)
{
	unsigned long long	 h = 14695981039346656037ULL;
	const unsigned char	*p;

	for (p = (const unsigned char *)full; *p != '\0'; p++) {
		h ^= *p;
		h *= 1099511628211ULL;
	}
	return xasprintf("%s/knob-%016llx", dir, h);
}

/* This boot's id under root; NULL when root has none. */
static char *
knob_journal_boot_id(const char *root)
{
	char	*full = inventory_path(root, "/proc/sys/kernel/random/boot_id");
	char	*v = knob_text(full);

	free(full);
	if (v != NULL)
		knob_normalize(v);
	if (v != NULL && v[0] == '\0') {
		free(v);
		v = NULL;
	}
	return v;
}

/* The rename or unlink of a journal made durable. */
static int
knob_journal_sync(const char *dir, char **cause)
{
	int	fd, r = 0;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    fsync(fd) == -1)
		r = error_errno(cause, "couldn't sync '%s'", dir);
	if (fd != -1)
		close(fd);
	return r;
}

/*
 * A knob's journal, one "key value" a line: the agent's pid, the boot's
 * id, the knob's name and full path, whether bracketed, the value it had
 * before the run ("old") and the run's ("new").
 */
struct knob_journal {
	long	 pid;
	char	*boot_id;
	char	*name;
	char	*path;
	int	 bracketed;
	char	*old;
	char	*new;
};

static void
knob_journal_release(struct knob_journal *j)
{
	free(j->boot_id);
	free(j->name);
	free(j->path);
	free(j->old);
	free(j->new);
	memset(j, 0, sizeof *j);
}

/* Written before the knob is: temporary, fsync, rename, the dir synced. */
int
knob_journal_write(const struct knob_set *ks, const struct knob *k,
    const char *full, char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		*boot = knob_journal_boot_id(ks->root), *want = knob_wanted(k);
	int		 r = -1;

	if (strchr(full, '\n') != NULL || strchr(k->name, '\n') != NULL) {
		error_set(cause, "its name or path has a newline");
		goto out;
	}
	strbuf_addf(&sb, "bisect-agent knob journal\npid %ld\nboot_id %s\n"
	    "name %s\npath %s\nbracketed %d\nold %s\nnew %s\n", (long)getpid(),
	    boot != NULL ? boot : "", k->name, full, k->bracketed, k->orig,
	    want);
	if (dir_create(ks->dir, cause) != 0 ||
	    file_write_atomic(k->journal, sb.buf, sb.len, cause) != 0 ||
	    knob_journal_sync(ks->dir, cause) != 0)
		goto out;
	r = 0;
out:
	strbuf_release(&sb);
	free(boot);
	free(want);
	return r;
}

/* 0 with *j, 1 when there is no journal, -1 with *cause. */
static int
knob_journal_read(const char *jpath, struct knob_journal *j, char **cause)
{
	struct stat	 st;
	char		*buf = NULL, *line, *save, *sp, **to;
	size_t		 len;
	int		 r = -1, magic = 0;

	memset(j, 0, sizeof *j);
	if (lstat(jpath, &st) == -1 && errno == ENOENT)
		return 1;
	if (file_read(jpath, &buf, &len, cause) != 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, "bisect-agent knob journal") == 0) {
			magic = 1;
			continue;
		}
		if ((sp = strchr(line, ' ')) == NULL)
			sp = line + strlen(line);
		to = NULL;
		if (strncmp(line, "pid ", 4) == 0)
			j->pid = strtol(sp + 1, NULL, 10);
		else if (strncmp(line, "bracketed ", 10) == 0)
			j->bracketed = atoi(sp + 1);
		else if (strncmp(line, "boot_id ", 8) == 0)
			to = &j->boot_id;
		else if (strncmp(line, "name ", 5) == 0)
			to = &j->name;
		else if (strncmp(line, "path ", 5) == 0)
			to = &j->path;
		else if (strncmp(line, "old", 3) == 0 && (line[3] == ' ' ||
		    line[3] == '\0'))
			to = &j->old;
		else if (strncmp(line, "new", 3) == 0 && (line[3] == ' ' ||
		    line[3] == '\0'))
			to = &j->new;
		if (to != NULL) {
			free(*to);
			*to = xstrdup(*sp != '\0' ? sp + 1 : "");
		}
	}
	if (!magic || j->name == NULL || j->path == NULL || j->old == NULL ||
	    j->path[0] != '/') {
		error_set(cause, "'%s' is not a knob journal", jpath);
		knob_journal_release(j);
		goto out;
	}
	if (j->boot_id != NULL && j->boot_id[0] == '\0') {
		free(j->boot_id);
		j->boot_id = NULL;
	}
	r = 0;
out:
	free(buf);
	return r;
}

int
knob_journal_remove(const char *jpath, char **cause)
{
	char	*dir;
	int	 r;

	if (unlink(jpath) == -1 && errno != ENOENT)
		return error_errno(cause, "couldn't remove '%s'", jpath);
	dir = path_dirname(jpath);
	r = knob_journal_sync(dir, cause);
	free(dir);
	return r;
}

/*
 * What a journal says put back, its knob's file held by the caller (no
 * run has it): the old value written and read back, the journal
 * removed, a note in done and on stderr. A journal of an earlier boot is
 * only removed (the boot reset the knob), as is one whose file is gone.
 * 0 (also when there is no journal), or -1 with *cause: the journal
 * stays for the next run.
 */
int
knob_journal_replay(const char *root, const char *jpath, struct strbuf *done,
    char **cause)
{
	struct knob_journal	 j;
	struct stat		 st;
	struct strbuf		 note = STRBUF_INIT;
	char			*boot = NULL, *now = NULL, *back = NULL;
	int			 r = -1, got;

	if ((got = knob_journal_read(jpath, &j, cause)) != 0)
		return got > 0 ? 0 : -1;
	boot = knob_journal_boot_id(root);
	if (j.boot_id != NULL && boot != NULL && strcmp(j.boot_id, boot) != 0)
		strbuf_addf(&note, "%s '%s' left at '%s' by pid %ld in an "
		    "earlier boot: not written (the boot reset it)", j.name,
		    j.path, j.new != NULL ? j.new : "", j.pid);
	else if ((now = knob_value(j.path, j.bracketed)) == NULL) {
		if (stat(j.path, &st) == 0 || errno != ENOENT) {
			error_set(cause, "'%s' (%s) cannot be read to put back "
			    "'%s'", j.path, j.name, j.old);
			goto out;
		}
		strbuf_addf(&note, "%s '%s' left by pid %ld: the file is "
		    "gone, nothing to put back", j.name, j.path, j.pid);
	} else {
		if (knob_write_full(j.path, j.old, cause) != 0) {
			error_prefix(cause, "%s", j.name);
			goto out;
		}
		back = knob_value(j.path, j.bracketed);
		if (back == NULL || strcmp(back, j.old) != 0) {
			error_set(cause, "%s: wrote '%s' back to '%s' but it "
			    "reads '%s'", j.name, j.old, j.path,
			    back != NULL ? back : "(unreadable)");
			goto out;
		}
		strbuf_addf(&note, "%s '%s' %s -> %s (left by pid %ld)",
		    j.name, j.path, now, j.old, j.pid);
	}
	if (knob_journal_remove(jpath, cause) != 0)
		goto out;
	fprintf(stderr, "bisect-agent: knob of a killed run put back: %s\n",
	    note.buf);
	strbuf_addf(done, "%s%s", done->len ? "; " : "", note.buf);
	r = 0;
out:
	strbuf_release(&note);
	knob_journal_release(&j);
	free(boot);
	free(now);
	free(back);
	return r;
}

int
knob_journal_reap(const char *root, char **done, char **cause)
{
	struct strbuf		 notes = STRBUF_INIT, failed = STRBUF_INIT;
	struct knob_journal	 j;
	struct dirent		*e;
	DIR			*d;
	char			*dir = knob_journal_dir(root), *jpath, *why = NULL, *tmp;
	int			 fd, got, r = 0;

	*done = NULL;
	if ((d = opendir(dir)) == NULL) {
		if (errno != ENOENT)
			r = error_errno(cause, "couldn't open '%s'", dir);
		free(dir);
		return r;
	}
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "knob-", 5) != 0)
			continue;
		jpath = path_join(dir, e->d_name);
		/* a killed agent's journal that was never renamed */
		if ((tmp = strstr(e->d_name, ".tmp.")) != NULL) {
			if (!child_agent_alive(strtol(tmp + 5, NULL, 10)))
				unlink(jpath);
			free(jpath);
			continue;
		}
		if ((got = knob_journal_read(jpath, &j, &why)) != 0) {
			if (got < 0)
				strbuf_addf(&failed, "%s%s", failed.len ?
				    "; " : "", why);
			free(why);
			why = NULL;
			free(jpath);
			continue;
		}
		/* a run that holds the knob has it, or has put it back */
		got = knob_lock_file(j.path, &fd, &why);
		if (got == 0 && fd == -1 && j.pid != (long)getpid() &&
		    child_agent_alive(j.pid))
			got = 1;	/* not lockable: its agent decides */
		if (got == 0 &&
		    knob_journal_replay(root, jpath, &notes, &why) != 0)
			got = -1;
		if (got < 0)
			strbuf_addf(&failed, "%s%s", failed.len ? "; " : "",
			    why);
		free(why);
		why = NULL;
		if (fd != -1)
			close(fd);
		knob_journal_release(&j);
		free(jpath);
	}
	closedir(d);
	if (notes.len > 0)
		*done = strbuf_detach(&notes, NULL);
	if (failed.len > 0)
		r = error_set(cause, "couldn't put back the knobs of a killed "
		    "run: %s", failed.buf);
	strbuf_release(&notes);
	strbuf_release(&failed);
	free(dir);
	return r;
}
