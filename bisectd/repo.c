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

/* Open addressing over the oid bytes, which are already uniform. */
struct repo_oidmap {
	git_oid		*oids;
	size_t		 nr;
	uint32_t	*slots;		/* index + 1; 0 is empty */
	size_t		 mask;
};

static pthread_once_t	repo_once = PTHREAD_ONCE_INIT;

static void
repo_init(void)
{
	git_libgit2_init();
}

static const char *
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

static int
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
static int
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

static struct repo_oidmap *
repo_oidmap_new(size_t nr)
{
	struct repo_oidmap	*m = xcalloc(1, sizeof *m);
	size_t			 size = 16;

	while (size < 2 * nr)
		size *= 2;
	m->oids = xcalloc(nr ? nr : 1, sizeof *m->oids);
	m->slots = xcalloc(size, sizeof *m->slots);
	m->mask = size - 1;
	return m;
}

static void
repo_oidmap_free(struct repo_oidmap *m)
{
	if (m == NULL)
		return;
	free(m->oids);
	free(m->slots);
	free(m);
}

static size_t
repo_oidmap_slot(const struct repo_oidmap *m, const git_oid *oid)
{
	uint64_t	h;

	memcpy(&h, oid->id, sizeof h);
	return (size_t)h & m->mask;
}

static size_t
repo_oidmap_get(const struct repo_oidmap *m, const git_oid *oid)
{
	size_t		s = repo_oidmap_slot(m, oid);
	uint32_t	v;

	while ((v = m->slots[s]) != 0) {
		if (memcmp(m->oids[v - 1].id, oid->id, GIT_OID_RAWSZ) == 0)
			return v - 1;
		s = (s + 1) & m->mask;
	}
	return (size_t)-1;
}

/* Returns the index of oid, adding it as the next one when it is new. */
static size_t
repo_oidmap_add(struct repo_oidmap *m, const git_oid *oid)
{
	size_t		s = repo_oidmap_slot(m, oid);
	uint32_t	v;

	while ((v = m->slots[s]) != 0) {
		if (memcmp(m->oids[v - 1].id, oid->id, GIT_OID_RAWSZ) == 0)
			return v - 1;
		s = (s + 1) & m->mask;
	}
	git_oid_cpy(&m->oids[m->nr], oid);
	m->slots[s] = (uint32_t)++m->nr;
	return m->nr - 1;
}

size_t
repo_range_find(const struct repo_range *rr, const char *hex)
{
	git_oid	oid;

	if (rr->map == NULL || !repo_is_hex_oid(hex) ||
	    git_oid_fromstr(&oid, hex) != 0)
		return (size_t)-1;
	return repo_oidmap_get(rr->map, &oid);
}

/*
 * The parents of a raw commit object: "tree X\n" then one "parent X\n"
 * line per parent. Reading them straight from the (cached) raw object is
 * much cheaper than a full git_commit parse of every commit in the range.
 */
static int
repo_raw_parents(const git_odb_object *obj, git_oid **parents, size_t *nr,
    size_t *alloc)
{
	const char	*p = git_odb_object_data((git_odb_object *)obj);
	size_t		 len = git_odb_object_size((git_odb_object *)obj);
	const size_t	 tree_len = 5 + GIT_OID_HEXSZ + 1;
	const size_t	 parent_len = 7 + GIT_OID_HEXSZ + 1;

	*nr = 0;
	if (len < tree_len || memcmp(p, "tree ", 5) != 0)
		return -1;
	p += tree_len;
	len -= tree_len;
	while (len >= parent_len && memcmp(p, "parent ", 7) == 0) {
		if (p[parent_len - 1] != '\n')
			return -1;
		ALLOC_GROW(*parents, *nr, *alloc);
		if (git_oid_fromstrn(&(*parents)[*nr], p + 7,
		    GIT_OID_HEXSZ) != 0)
			return -1;
		(*nr)++;
		p += parent_len;
		len -= parent_len;
	}
	return 0;
}

/* The distinct good ends, resolved, none of them bad itself. */
static int
repo_range_goods(struct repo *r, const char *const *good, size_t nr_good,
    const char *bad, const git_oid *bad_oid, git_oid *goods,
    const char **good_rev, size_t *nr_goods, char **cause)
{
	git_oid	oid;
	size_t	i, j;

	for (i = 0; i < nr_good; i++) {
		if (repo_oid(r, good[i], &oid, cause) != 0)
			return -1;
		if (git_oid_equal(&oid, bad_oid))
			return error_set(cause, "good '%s' and bad '%s' are the "
			    "same commit", good[i], bad);
		for (j = 0; j < *nr_goods; j++) {
			if (git_oid_equal(&goods[j], &oid))
				break;
		}
		if (j == *nr_goods) {
			good_rev[*nr_goods] = good[i];
			git_oid_cpy(&goods[(*nr_goods)++], &oid);
		}
	}
	return 0;
}

/* The candidates: every commit reachable from bad and from no good end. */
static int
repo_range_walk(struct repo *r, const char *bad, const git_oid *bad_oid,
    const git_oid *goods, const char **good_rev, size_t nr_goods,
    git_oid **cands, size_t *nr_cands, char **cause)
{
	git_revwalk	*walk = NULL;
	git_oid		 oid;
	size_t		 i, alloc = 0;
	int		 error, rv = -1;

	if (git_revwalk_new(&walk, r->git) != 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_NONE) != 0 ||
	    git_revwalk_push(walk, bad_oid) != 0) {
		error_set(cause, "couldn't walk from '%s' in repository '%s': %s",
		    bad, r->name, repo_git_error());
		goto out;
	}
	for (i = 0; i < nr_goods; i++) {
		if (git_revwalk_hide(walk, &goods[i]) != 0) {
			error_set(cause, "couldn't hide '%s' in repository "
			    "'%s': %s", good_rev[i], r->name, repo_git_error());
			goto out;
		}
	}
	while ((error = git_revwalk_next(&oid, walk)) == 0) {
		ALLOC_GROW(*cands, *nr_cands, alloc);
		git_oid_cpy(&(*cands)[(*nr_cands)++], &oid);
	}
	if (error != GIT_ITEROVER) {
		error_set(cause, "couldn't walk '%s' in repository '%s': %s",
		    bad, r->name, repo_git_error());
		goto out;
	}
	rv = 0;
out:
	git_revwalk_free(walk);
	return rv;
}

/*
 * Each candidate's parents inside the range, as indexes into
 * rr->parent_store from offsets[i]; good_seen marks the good ends that
 * are a candidate's parent.
 */
static int
repo_range_parents(struct repo *r, const struct repo_oidmap *map,
    const git_oid *cands, size_t nr_cands, struct repo_range *rr,
    size_t *offsets, unsigned char *good_seen, char **cause)
{
	git_odb		*odb = NULL;
	git_odb_object	*obj = NULL;
	git_oid		*parents = NULL;
	size_t		 parents_alloc = 0, nr_store = 0, store_alloc = 0;
	size_t		 i, j, k, idx;
	int		 rv = -1;

	if (git_repository_odb(&odb, r->git) != 0) {
		error_set(cause, "couldn't open the objects of repository "
		    "'%s': %s", r->name, repo_git_error());
		goto out;
	}
	for (i = 0; i < nr_cands; i++) {
		if (git_odb_read(&obj, odb, &cands[i]) != 0 ||
		    repo_raw_parents(obj, &parents, &k, &parents_alloc) != 0) {
			error_set(cause, "couldn't read the parents of '%s' in "
			    "repository '%s'", git_oid_tostr_s(&cands[i]),
			    r->name);
			goto out;
		}
		git_odb_object_free(obj);
		obj = NULL;
		offsets[i] = nr_store;
		for (j = 0; j < k; j++) {
			if ((idx = repo_oidmap_get(map, &parents[j])) ==
			    (size_t)-1)
				continue;
			if (idx >= nr_cands)
				good_seen[idx - nr_cands] = 1;
			ALLOC_GROW(rr->parent_store, nr_store, store_alloc);
			rr->parent_store[nr_store++] = idx;
		}
		rr->commits[i].nr_parents = nr_store - offsets[i];
	}
	rv = 0;
out:
	git_odb_object_free(obj);
	git_odb_free(odb);
	free(parents);
	return rv;
}

/*
 * A good end that is the parent of a candidate is an ancestor of bad;
 * any other must be asked (it may sit behind another good end).
 */
static int
repo_range_ancestry(struct repo *r, const char *bad, const git_oid *bad_oid,
    const git_oid *goods, const char **good_rev, size_t nr_goods,
    const unsigned char *good_seen, char **cause)
{
	size_t	i;
	int	error;

	for (i = 0; i < nr_goods; i++) {
		if (good_seen[i])
			continue;
		error = git_graph_descendant_of(r->git, bad_oid, &goods[i]);
		if (error < 0)
			return error_set(cause, "couldn't relate '%s' and '%s' "
			    "in repository '%s': %s", good_rev[i], bad,
			    r->name, repo_git_error());
		if (error == 0)
			return error_set(cause, "good '%s' is not an ancestor "
			    "of bad '%s'", good_rev[i], bad);
	}
	return 0;
}

int
repo_range_load(struct repo *r, const char *const *good, size_t nr_good,
    const char *bad, struct repo_range *out, char **cause)
{
	git_oid			 bad_oid, *goods = NULL, *cands = NULL;
	struct repo_oidmap	*map = NULL;
	struct repo_range	 rr;
	const char		**good_rev = NULL;
	unsigned char		*good_seen = NULL;
	size_t			 nr_cands = 0, nr_goods = 0;
	size_t			 i, nr, *offsets = NULL;
	int			 rv = -1;

	memset(&rr, 0, sizeof rr);
	if (nr_good == 0)
		return error_set(cause, "no good commit given");
	if (repo_oid(r, bad, &bad_oid, cause) != 0)
		return -1;
	goods = xcalloc(nr_good, sizeof *goods);
	good_rev = xcalloc(nr_good, sizeof *good_rev);
	if (repo_range_goods(r, good, nr_good, bad, &bad_oid, goods, good_rev,
	    &nr_goods, cause) != 0 ||
	    repo_range_walk(r, bad, &bad_oid, goods, good_rev, nr_goods,
	    &cands, &nr_cands, cause) != 0)
		goto out;
	nr = nr_cands + nr_goods;
	if (nr > UINT32_MAX - 1) {
		error_set(cause, "range of '%s' is too large", bad);
		goto out;
	}
	map = repo_oidmap_new(nr);
	for (i = 0; i < nr_cands; i++)
		repo_oidmap_add(map, &cands[i]);
	for (i = 0; i < nr_goods; i++)
		repo_oidmap_add(map, &goods[i]);
	offsets = xcalloc(nr + 1, sizeof *offsets);
	good_seen = xcalloc(nr_goods, 1);
	rr.commits = xcalloc(nr, sizeof *rr.commits);
	if (repo_range_parents(r, map, cands, nr_cands, &rr, offsets,
	    good_seen, cause) != 0 ||
	    repo_range_ancestry(r, bad, &bad_oid, goods, good_rev, nr_goods,
	    good_seen, cause) != 0)
		goto out;
	rr.nr_commits = nr;
	rr.oids = xcalloc(nr, sizeof *rr.oids);
	for (i = 0; i < nr; i++) {
		git_oid_tostr(rr.oids[i], sizeof rr.oids[i], &map->oids[i]);
		rr.commits[i].name = rr.oids[i];
		rr.commits[i].build = BISECT_BUILD_UNKNOWN;
		if (i < nr_cands && rr.commits[i].nr_parents > 0)
			rr.commits[i].parents = rr.parent_store + offsets[i];
	}
	rr.bad = repo_oidmap_get(map, &bad_oid);
	rr.nr_good = nr_goods;
	rr.good = xcalloc(nr_goods, sizeof *rr.good);
	for (i = 0; i < nr_goods; i++)
		rr.good[i] = nr_cands + i;
	rr.map = map;
	map = NULL;
	*out = rr;
	memset(&rr, 0, sizeof rr);
	rv = 0;
out:
	repo_range_release(&rr);
	repo_oidmap_free(map);
	free(offsets);
	free(good_seen);
	free(cands);
	free(goods);
	free(good_rev);
	return rv;
}

void
repo_range_release(struct repo_range *rr)
{
	if (rr == NULL)
		return;
	free(rr->commits);
	free(rr->good);
	free(rr->oids);
	free(rr->parent_store);
	repo_oidmap_free(rr->map);
	memset(rr, 0, sizeof *rr);
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
