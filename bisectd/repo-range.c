/*
 * The range `bad ^good` as the DAG the driver works on (bisectd/repo.h:
 * repo_range_load): the commits in topological order, each one's parents
 * inside the range as indices, read from the raw commit objects, with an
 * oid -> index map for the lookups.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "bisectd/repo.h"
#include "util/error.h"
#include "util/xalloc.h"

/* Open addressing over the oid bytes, which are already uniform. */
struct repo_oidmap {
	git_oid		*oids;
	size_t		 nr;
	uint32_t	*slots;		/* index + 1; 0 is empty */
	size_t		 mask;
};

static struct repo_oidmap *
repo_range_map_new(size_t nr)
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
repo_range_map_free(struct repo_oidmap *m)
{
	if (m == NULL)
		return;
	free(m->oids);
	free(m->slots);
	free(m);
}

static size_t
repo_range_map_slot(const struct repo_oidmap *m, const git_oid *oid)
{
	uint64_t	h;

	memcpy(&h, oid->id, sizeof h);
	return (size_t)h & m->mask;
}

/* The index of oid, or (size_t)-1 with *slot the free slot it would take. */
static size_t
repo_range_map_find(const struct repo_oidmap *m, const git_oid *oid,
    size_t *slot)
{
	size_t		s = repo_range_map_slot(m, oid);
	uint32_t	v;

	while ((v = m->slots[s]) != 0) {
		if (memcmp(m->oids[v - 1].id, oid->id, GIT_OID_RAWSZ) == 0)
			return v - 1;
		s = (s + 1) & m->mask;
	}
	*slot = s;
	return (size_t)-1;
}

static size_t
repo_range_map_get(const struct repo_oidmap *m, const git_oid *oid)
{
	size_t	s;

	return repo_range_map_find(m, oid, &s);
}

/* Returns the index of oid, adding it as the next one when it is new. */
static size_t
repo_range_map_add(struct repo_oidmap *m, const git_oid *oid)
{
	size_t	s, i;

	if ((i = repo_range_map_find(m, oid, &s)) != (size_t)-1)
		return i;
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
	return repo_range_map_get(rr->map, &oid);
}

/*
 * The parents of a raw commit object: "tree X\n" then one "parent X\n"
 * line per parent. Reading them straight from the (cached) raw object is
 * much cheaper than a full git_commit parse of every commit in the range.
 */
static int
repo_range_raw_parents(const git_odb_object *obj, git_oid **parents, size_t *nr,
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

	if (git_revwalk_new(&walk, repo_git(r)) != 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_NONE) != 0 ||
	    git_revwalk_push(walk, bad_oid) != 0) {
		error_set(cause, "couldn't walk from '%s' in repository '%s': %s",
		    bad, repo_name(r), repo_git_error());
		goto out;
	}
	for (i = 0; i < nr_goods; i++) {
		if (git_revwalk_hide(walk, &goods[i]) != 0) {
			error_set(cause, "couldn't hide '%s' in repository "
			    "'%s': %s", good_rev[i], repo_name(r), repo_git_error());
			goto out;
		}
	}
	while ((error = git_revwalk_next(&oid, walk)) == 0) {
		ALLOC_GROW(*cands, *nr_cands, alloc);
		git_oid_cpy(&(*cands)[(*nr_cands)++], &oid);
	}
	if (error != GIT_ITEROVER) {
		error_set(cause, "couldn't walk '%s' in repository '%s': %s",
		    bad, repo_name(r), repo_git_error());
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

	if (git_repository_odb(&odb, repo_git(r)) != 0) {
		error_set(cause, "couldn't open the objects of repository "
		    "'%s': %s", repo_name(r), repo_git_error());
		goto out;
	}
	for (i = 0; i < nr_cands; i++) {
		if (git_odb_read(&obj, odb, &cands[i]) != 0 ||
		    repo_range_raw_parents(obj, &parents, &k, &parents_alloc) != 0) {
			error_set(cause, "couldn't read the parents of '%s' in "
			    "repository '%s'", git_oid_tostr_s(&cands[i]),
			    repo_name(r));
			goto out;
		}
		git_odb_object_free(obj);
		obj = NULL;
		offsets[i] = nr_store;
		for (j = 0; j < k; j++) {
			if ((idx = repo_range_map_get(map, &parents[j])) ==
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
		error = git_graph_descendant_of(repo_git(r), bad_oid, &goods[i]);
		if (error < 0)
			return error_set(cause, "couldn't relate '%s' and '%s' "
			    "in repository '%s': %s", good_rev[i], bad,
			    repo_name(r), repo_git_error());
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
	map = repo_range_map_new(nr);
	for (i = 0; i < nr_cands; i++)
		repo_range_map_add(map, &cands[i]);
	for (i = 0; i < nr_goods; i++)
		repo_range_map_add(map, &goods[i]);
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
	rr.bad = repo_range_map_get(map, &bad_oid);
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
	repo_range_map_free(map);
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
	repo_range_map_free(rr->map);
	memset(rr, 0, sizeof *rr);
}
