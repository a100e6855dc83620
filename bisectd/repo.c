/*
 * The repositories under test, through libgit2 and never a git subprocess:
 * revisions resolved to commits, a commit's subject and author, the range
 * `bad ^good` as the DAG the driver works on, and one persistent worktree
 * per repository kept in step with the commit being built (docs/design.md,
 * "File notes").
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>
#include <git2/sys/repository.h>

#include "bisectd/repo.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Inside the worktree: the commit checked out there, and its stat cache. */
#define REPO_MARKER	".bisectd-checkout"
#define REPO_INDEX	".bisectd-index"

#define REPO_EMPTY_TREE	"4b825dc642cb6eb9a060e54bf8d69288fbee4904"
#define REPO_EMPTY_BLOB	"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"

struct repo {
	git_repository	*git;
	char		*name;
};

static pthread_once_t	repo_once = PTHREAD_ONCE_INIT;

static void
repo_init(void)
{
	git_libgit2_init();
}

const char *
repo_git_error(void)
{
	const git_error	*e = git_error_last();

	return e != NULL && e->message != NULL ? e->message : "unknown error";
}

int
repo_open(const struct config_repo *cr, struct repo **out, char **cause)
{
	git_repository	*git = NULL;
	struct repo	*r;

	pthread_once(&repo_once, repo_init);
	if (git_repository_open_ext(&git, cr->path,
	    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) != 0)
		return error_set(cause, "couldn't open repository '%s' at '%s': %s",
		    cr->name, cr->path, repo_git_error());
	r = xcalloc(1, sizeof *r);
	r->git = git;
	r->name = xstrdup(cr->name);
	*out = r;
	return 0;
}

git_repository *
repo_git(struct repo *r)
{
	return r->git;
}

const char *
repo_name(const struct repo *r)
{
	return r->name;
}

void
repo_free(struct repo *r)
{
	if (r == NULL)
		return;
	git_repository_free(r->git);
	free(r->name);
	free(r);
}

int
repo_is_hex_oid(const char *s)
{
	size_t	i;

	for (i = 0; i < REPO_OID_HEX; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	}
	return s[i] == '\0';
}

int
repo_resolve(struct repo *r, const char *rev, char out[REPO_OID_HEX + 1],
    char **cause)
{
	git_object	*obj = NULL, *commit = NULL;
	int		 error, rv = -1;

	if ((error = git_revparse_single(&obj, r->git, rev)) != 0) {
		if (error == GIT_ENOTFOUND)
			error_set(cause, "couldn't resolve '%s' in repository '%s'",
			    rev, r->name);
		else
			error_set(cause,
			    "couldn't resolve '%s' in repository '%s': %s", rev,
			    r->name, repo_git_error());
		goto out;
	}
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) != 0) {
		error_set(cause, "couldn't resolve '%s' in repository '%s': "
		    "not a commit", rev, r->name);
		goto out;
	}
	git_oid_tostr(out, REPO_OID_HEX + 1, git_object_id(commit));
	rv = 0;
out:
	git_object_free(commit);
	git_object_free(obj);
	return rv;
}

/* A full hex oid is taken as it is; anything else goes through revparse. */
int
repo_oid(struct repo *r, const char *rev, git_oid *out, char **cause)
{
	char	hex[REPO_OID_HEX + 1];

	if (repo_is_hex_oid(rev))
		return git_oid_fromstr(out, rev) == 0 ? 0 :
		    error_set(cause, "couldn't resolve '%s' in repository '%s'",
		    rev, r->name);
	if (repo_resolve(r, rev, hex, cause) != 0)
		return -1;
	git_oid_fromstr(out, hex);
	return 0;
}

/*
 * The subject is git's (%s): the message's first paragraph, lines joined.
 * The time is the author's, as git log shows it.
 */
int
repo_commit_read(struct repo *r, const char *oid, struct repo_commit *out,
    char **cause)
{
	git_commit		*c = NULL;
	const git_signature	*sig;
	const char		*summary;
	git_oid			 id;

	if (repo_oid(r, oid, &id, cause) != 0)
		return -1;
	if (git_commit_lookup(&c, r->git, &id) != 0)
		return error_set(cause, "couldn't read commit '%s' in repository "
		    "'%s': %s", oid, r->name, repo_git_error());
	memset(out, 0, sizeof *out);
	git_oid_tostr(out->oid, sizeof out->oid, &id);
	summary = git_commit_summary(c);
	out->subject = xstrdup(summary != NULL ? summary : "");
	sig = git_commit_author(c);
	out->author = xasprintf("%s <%s>", sig->name, sig->email);
	out->time = (time_t)sig->when.time;
	out->nr_parents = git_commit_parentcount(c);
	git_commit_free(c);
	return 0;
}

static int
repo_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The branches whose tip is oid or descends from it: local branches
 * (refs/heads/) and the tracked branches continuous mode fetched
 * (refs/bisectd/track/), by their short names, sorted, each once.
 */
int
repo_is_ancestor(struct repo *r, const char *a, const char *b, char **cause)
{
	git_oid	ida, idb;
	int	rc;

	if (repo_oid(r, a, &ida, cause) != 0 || repo_oid(r, b, &idb, cause) != 0)
		return -1;
	if (git_oid_equal(&ida, &idb))
		return 0;
	rc = git_graph_descendant_of(r->git, &idb, &ida);
	if (rc < 0)
		return error_set(cause, "couldn't relate '%s' and '%s' in "
		    "repository '%s': %s", a, b, r->name, repo_git_error());
	return rc;
}

int
repo_branches_containing(struct repo *r, const char *oid, char ***out,
    size_t *nr, char **cause)
{
	static const char	*globs[] = {
		"refs/heads/*", "refs/bisectd/track/*"
	};
	static const char	*prefixes[] = {
		"refs/heads/", "refs/bisectd/track/"
	};
	git_reference_iterator	*it = NULL;
	git_reference		*ref, *peeled;
	git_oid			 id, tip;
	char			**v = NULL;
	size_t			 n = 0, alloc = 0, i, k;
	int			 rc, ret = -1;

	if (repo_oid(r, oid, &id, cause) != 0)
		return -1;
	for (i = 0; i < 2; i++) {
		if (git_reference_iterator_glob_new(&it, r->git, globs[i]) != 0) {
			error_set(cause, "couldn't list the branches of "
			    "repository '%s': %s", r->name, repo_git_error());
			goto out;
		}
		while ((rc = git_reference_next(&ref, it)) == 0) {
			peeled = NULL;
			if (git_reference_resolve(&peeled, ref) == 0 &&
			    git_reference_target(peeled) != NULL) {
				tip = *git_reference_target(peeled);
				if (git_oid_equal(&tip, &id) ||
				    git_graph_descendant_of(r->git, &tip,
				    &id) == 1) {
					ALLOC_GROW(v, n, alloc);
					v[n++] = xstrdup(git_reference_name(ref) +
					    strlen(prefixes[i]));
				}
			}
			git_reference_free(peeled);
			git_reference_free(ref);
		}
		git_reference_iterator_free(it);
		it = NULL;
		if (rc != GIT_ITEROVER) {
			error_set(cause, "couldn't list the branches of "
			    "repository '%s': %s", r->name, repo_git_error());
			goto out;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof *v, repo_name_cmp);
	for (i = k = 0; i < n; i++) {
		if (k > 0 && strcmp(v[k - 1], v[i]) == 0)
			free(v[i]);
		else
			v[k++] = v[i];
	}
	*out = v;
	*nr = k;
	v = NULL;
	n = 0;
	ret = 0;
out:
	git_reference_iterator_free(it);
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return ret;
}

void
repo_commit_release(struct repo_commit *c)
{
	if (c == NULL)
		return;
	free(c->subject);
	free(c->author);
	c->subject = c->author = NULL;
}

/*
 * The worktree's marker: "OID\n" when OID is checked out; "FROM TO\n"
 * while moving from FROM (or "-", unknown) to TO, so that an interrupted
 * checkout is recognised and repaired.
 */
enum repo_marker {
	REPO_MARKER_NONE,
	REPO_MARKER_CLEAN,
	REPO_MARKER_MOVING,
};

static enum repo_marker
repo_marker_read(const char *path, git_oid *from, git_oid *to)
{
	char	*buf = NULL;
	size_t	 len;
	enum repo_marker m = REPO_MARKER_NONE;

	if (file_read(path, &buf, &len, NULL) != 0)
		return REPO_MARKER_NONE;
	if (len == REPO_OID_HEX + 1 && buf[REPO_OID_HEX] == '\n') {
		buf[REPO_OID_HEX] = '\0';
		if (repo_is_hex_oid(buf) && git_oid_fromstr(from, buf) == 0)
			m = REPO_MARKER_CLEAN;
	} else if (len == 2 * REPO_OID_HEX + 2 && buf[REPO_OID_HEX] == ' ' &&
	    buf[2 * REPO_OID_HEX + 1] == '\n') {
		buf[REPO_OID_HEX] = buf[2 * REPO_OID_HEX + 1] = '\0';
		if (repo_is_hex_oid(buf) && git_oid_fromstr(from, buf) == 0 &&
		    repo_is_hex_oid(buf + REPO_OID_HEX + 1) &&
		    git_oid_fromstr(to, buf + REPO_OID_HEX + 1) == 0)
			m = REPO_MARKER_MOVING;
	}
	free(buf);
	return m;
}

static int
repo_marker_write(const char *path, const git_oid *from, const git_oid *to,
    char **cause)
{
	char	 a[REPO_OID_HEX + 1], b[REPO_OID_HEX + 1];
	char	*s;
	int	 rv;

	if (from == NULL)
		memset(a, '-', REPO_OID_HEX);
	else
		git_oid_fmt(a, from);
	a[REPO_OID_HEX] = '\0';
	if (to == NULL)
		s = xasprintf("%s\n", a);
	else {
		git_oid_tostr(b, sizeof b, to);
		s = xasprintf("%s %s\n", a, b);
	}
	rv = file_write_atomic(path, s, strlen(s), cause);
	free(s);
	return rv;
}

static int
repo_tree_of(struct repo *r, const git_oid *oid, git_tree **out)
{
	git_commit	*c = NULL;
	int		 rv;

	if (git_commit_lookup(&c, r->git, oid) != 0)
		return -1;
	rv = git_commit_tree(out, c);
	git_commit_free(c);
	return rv;
}

static void
repo_entry_from_stat(git_index_entry *e, const struct stat *st)
{
	e->ctime.seconds = (int32_t)st->st_ctim.tv_sec;
	e->ctime.nanoseconds = (uint32_t)st->st_ctim.tv_nsec;
	e->mtime.seconds = (int32_t)st->st_mtim.tv_sec;
	e->mtime.nanoseconds = (uint32_t)st->st_mtim.tv_nsec;
	e->dev = (uint32_t)st->st_dev;
	e->ino = (uint32_t)st->st_ino;
	e->uid = (uint32_t)st->st_uid;
	e->gid = (uint32_t)st->st_gid;
	e->file_size = (uint32_t)st->st_size;
}

static int
repo_entry_is_smudged(const git_index_entry *e)
{
	git_oid	empty;

	git_oid_fromstr(&empty, REPO_EMPTY_BLOB);
	return e->file_size == 0 && !git_oid_equal(&e->id, &empty);
}

static int
repo_entry_stat_matches(const git_index_entry *e, const struct stat *st)
{
	if (repo_entry_is_smudged(e))
		return 0;
	if (e->mode == GIT_FILEMODE_LINK ? !S_ISLNK(st->st_mode) :
	    !S_ISREG(st->st_mode))
		return 0;
	if (S_ISREG(st->st_mode) &&
	    !(e->mode == GIT_FILEMODE_BLOB_EXECUTABLE) != !(st->st_mode & 0100))
		return 0;
	return e->mtime.seconds == (int32_t)st->st_mtim.tv_sec &&
	    e->mtime.nanoseconds == (uint32_t)st->st_mtim.tv_nsec &&
	    e->file_size == (uint32_t)st->st_size &&
	    e->ino == (uint32_t)st->st_ino;
}

/* Does the file at path (lstat in st) hold the blob of entry e? */
static int
repo_entry_content_matches(const git_index_entry *e, const char *path,
    const struct stat *st)
{
	git_oid	oid;
	char	link[PATH_MAX];
	ssize_t	n;

	if (e->mode == GIT_FILEMODE_LINK) {
		if (!S_ISLNK(st->st_mode) ||
		    (n = readlink(path, link, sizeof link)) < 0 ||
		    git_odb_hash(&oid, link, (size_t)n, GIT_OBJECT_BLOB) != 0)
			return 0;
	} else {
		if (!S_ISREG(st->st_mode) ||
		    !(e->mode == GIT_FILEMODE_BLOB_EXECUTABLE) !=
		    !(st->st_mode & 0100) ||
		    git_odb_hashfile(&oid, path, GIT_OBJECT_BLOB) != 0)
			return 0;
	}
	return git_oid_equal(&oid, &e->id);
}

/*
 * Bring the stat cache up to date with the files before checking out.
 * libgit2 1.5 trusts a file whose stat data matches the index; for any
 * other, it hashes the file at the repository's own work tree path, not at
 * target_directory (and a bare repository has none), so it cannot see a
 * file changed here. Hence: a file whose stat data changed is hashed here;
 * same blob -> its stat data is refreshed, else the file is removed and
 * checkout writes it again when the target has it.
 */
static int
repo_index_refresh(git_index *idx, const char *dir, char **cause)
{
	const git_index_entry	*e;
	git_index_entry		 copy;
	struct stat		 st;
	char			*path;
	size_t			 i;
	int			 changed = 0, rv = 0;

	for (i = 0; rv == 0 && i < git_index_entrycount(idx); i++) {
		e = git_index_get_byindex(idx, i);
		if (git_index_entry_stage(e) != 0 ||
		    e->mode == GIT_FILEMODE_COMMIT)
			continue;
		path = path_join(dir, e->path);
		if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode) &&
		    !repo_entry_stat_matches(e, &st)) {
			if (repo_entry_content_matches(e, path, &st)) {
				copy = *e;
				repo_entry_from_stat(&copy, &st);
				if (git_index_add(idx, &copy) != 0)
					rv = error_set(cause, "couldn't update "
					    "index entry '%s': %s", e->path,
					    repo_git_error());
				changed = 1;
			} else if (unlink(path) == -1 && errno != ENOENT)
				rv = error_errno(cause, "couldn't remove '%s'",
				    path);
		}
		free(path);
	}
	/*
	 * Written and read back, the index's own date passes the entries
	 * just refreshed, which libgit2 would otherwise take as racy.
	 */
	if (rv == 0 && changed && (git_index_write(idx) != 0 ||
	    git_index_read(idx, 1) != 0))
		rv = error_set(cause, "couldn't write index '%s': %s",
		    git_index_path(idx), repo_git_error());
	return rv;
}

/*
 * Make the index the tree just checked out, keeping the stat data of the
 * entries that did not change, and smudge those written too recently to be
 * told apart from a later change in the same second (git's racy-git rule).
 */
static int
repo_index_save(git_index *idx, git_tree *tree)
{
	const git_index_entry	*e;
	git_index_entry		 copy;
	size_t			 i;
	time_t			 now;

	if (git_index_read_tree(idx, tree) != 0)
		return -1;
	now = time(NULL);
	for (i = 0; i < git_index_entrycount(idx); i++) {
		e = git_index_get_byindex(idx, i);
		if (e->file_size == 0 || (time_t)e->mtime.seconds < now)
			continue;
		copy = *e;
		copy.file_size = 0;
		if (git_index_add(idx, &copy) != 0)
			return -1;
	}
	return 0;
}

static int
repo_checkout_one(struct repo *r, git_index *idx, git_tree *baseline,
    git_tree *target, const char *dir)
{
	git_checkout_options	opts = GIT_CHECKOUT_OPTIONS_INIT;
	int			error;

	opts.checkout_strategy = GIT_CHECKOUT_FORCE |
	    GIT_CHECKOUT_DONT_WRITE_INDEX;
	opts.disable_filters = 1;
	opts.target_directory = dir;
	opts.baseline = baseline;
	if ((error = git_repository_set_index(r->git, idx)) != 0)
		return error;
	error = git_checkout_tree(r->git, (git_object *)target, &opts);
	if (error == 0)
		error = repo_index_save(idx, target);
	git_repository_set_index(r->git, NULL);
	return error;
}

int
repo_checkout(struct repo *r, const char *oid, const char *dir, char **cause)
{
	git_index		*idx = NULL;
	git_tree		*target = NULL, *base = NULL, *moving = NULL;
	git_oid			 id, from, to, empty;
	enum repo_marker	 state;
	char			*marker, *idxpath;
	int			 rv = -1;

	marker = path_join(dir, REPO_MARKER);
	idxpath = path_join(dir, REPO_INDEX);
	if (repo_oid(r, oid, &id, cause) != 0)
		goto out;
	if (repo_tree_of(r, &id, &target) != 0) {
		error_set(cause, "couldn't read the tree of '%s' in repository "
		    "'%s': %s", oid, r->name, repo_git_error());
		goto out;
	}
	if (dir_create(dir, cause) != 0)
		goto out;

	state = repo_marker_read(marker, &from, &to);
	if (state == REPO_MARKER_MOVING &&
	    (repo_tree_of(r, &to, &moving) != 0 ||
	    repo_tree_of(r, &from, &base) != 0))
		state = REPO_MARKER_NONE;
	else if (state == REPO_MARKER_CLEAN && repo_tree_of(r, &from, &base) != 0)
		state = REPO_MARKER_NONE;
	if (state == REPO_MARKER_NONE) {
		git_tree_free(base);
		git_tree_free(moving);
		base = moving = NULL;
	}
	if (git_index_open(&idx, idxpath) != 0) {
		if (unlink(idxpath) == -1 ||
		    git_index_open(&idx, idxpath) != 0) {
			error_set(cause, "couldn't open index '%s': %s",
			    idxpath, repo_git_error());
			goto out;
		}
	}
	if (repo_index_refresh(idx, dir, cause) != 0)
		goto out;

	/*
	 * Interrupted between FROM and TO: the files of both may be there.
	 * Put FROM back with TO as the baseline, which removes what only TO
	 * has, and go on from a known FROM.
	 */
	if (state == REPO_MARKER_MOVING &&
	    repo_checkout_one(r, idx, moving, base, dir) != 0) {
		error_set(cause, "couldn't check out '%s' into '%s': %s",
		    git_oid_tostr_s(&from), dir, repo_git_error());
		goto out;
	}

	if (base == NULL) {
		/* A full checkout: every file of the target is compared. */
		git_oid_fromstr(&empty, REPO_EMPTY_TREE);
		if (git_tree_lookup(&base, r->git, &empty) != 0) {
			error_set(cause, "couldn't read the empty tree: %s",
			    repo_git_error());
			goto out;
		}
	}
	if (repo_marker_write(marker, state == REPO_MARKER_NONE ? NULL : &from,
	    &id, cause) != 0)
		goto out;
	if (repo_checkout_one(r, idx, base, target, dir) != 0) {
		error_set(cause, "couldn't check out '%s' into '%s': %s", oid,
		    dir, repo_git_error());
		goto out;
	}
	if (git_index_write(idx) != 0) {
		error_set(cause, "couldn't write index '%s': %s", idxpath,
		    repo_git_error());
		goto out;
	}
	if (repo_marker_write(marker, &id, NULL, cause) != 0)
		goto out;
	rv = 0;
out:
	git_index_free(idx);
	git_tree_free(target);
	git_tree_free(base);
	git_tree_free(moving);
	free(marker);
	free(idxpath);
	return rv;
}
