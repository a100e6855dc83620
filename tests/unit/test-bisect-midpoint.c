/*
 * Unit tests for bisect_midpoint and bisect_weights: against git itself on
 * generated histories with merges (git fast-import into temporary
 * repositories, fixed dates; `git rev-list --bisect` and `--bisect-all`
 * give git's choice and every commit's distance), and against a brute
 * force on random DAGs, with skipped commits and in shuffled order.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/bisect.h"
#include "tests/unit/tap.h"
#include "util/xalloc.h"

static uint64_t	rng_state;

static uint64_t
rng_next(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static size_t
rng_below(size_t n)
{
	return (size_t)(rng_next() % n);
}

/* A DAG held as parent lists, for both the git and the in-memory tests. */
struct dag {
	size_t	  nr;
	size_t	**parents;
	size_t	 *nr_parents;
};

static void
dag_free(struct dag *d)
{
	size_t	i;

	for (i = 0; i < d->nr; i++)
		free(d->parents[i]);
	free(d->parents);
	free(d->nr_parents);
	memset(d, 0, sizeof *d);
}

static size_t
dag_add(struct dag *d, const size_t *parents, size_t n)
{
	size_t	i = d->nr++;

	d->parents = xreallocarray(d->parents, d->nr, sizeof *d->parents);
	d->nr_parents = xreallocarray(d->nr_parents, d->nr,
	    sizeof *d->nr_parents);
	d->parents[i] = xcalloc(n ? n : 1, sizeof **d->parents);
	if (n != 0)
		memcpy(d->parents[i], parents, n * sizeof *parents);
	d->nr_parents[i] = n;
	return i;
}

/*
 * A history like a kernel tree's: a mainline, topic branches forked from
 * a recent mainline commit and merged back, now and then an octopus or a
 * merge between two topics. Commit i's parents are all below i.
 */
static void
dag_generate(struct dag *d, size_t n, unsigned merge_pct)
{
	size_t	*main = NULL, nr_main = 0, alloc_main = 0, p[4], tip, len, k;
	size_t	 tips[2];

	memset(d, 0, sizeof *d);
	ALLOC_GROW(main, nr_main, alloc_main);
	main[nr_main++] = dag_add(d, NULL, 0);
	while (d->nr < n) {
		if (rng_below(100) >= merge_pct) {
			p[0] = main[nr_main - 1];
			ALLOC_GROW(main, nr_main, alloc_main);
			main[nr_main++] = dag_add(d, p, 1);
			continue;
		}
		for (k = 0; k < 2; k++) {
			tip = main[nr_main - 1 - rng_below(nr_main < 20 ?
			    nr_main : 20)];
			for (len = 1 + rng_below(6); len > 0; len--) {
				p[0] = tip;
				tip = dag_add(d, p, 1);
			}
			tips[k] = tip;
		}
		p[0] = main[nr_main - 1];
		p[1] = tips[0];
		k = 2;
		if (rng_below(8) == 0)
			p[k++] = tips[1];
		else if (rng_below(4) == 0) {
			/* a merge of topic 0 into topic 1 first */
			size_t q[2] = { tips[1], tips[0] };

			p[1] = dag_add(d, q, 2);
		}
		ALLOC_GROW(main, nr_main, alloc_main);
		main[nr_main++] = dag_add(d, p, k);
	}
	free(main);
}

/* ancestors-or-self of i inside in[] (brute force) */
static size_t
dag_count(const struct dag *d, size_t i, const unsigned char *in,
    unsigned char *seen, size_t *stack)
{
	size_t	sp = 0, n = 0, x, k, q;

	memset(seen, 0, d->nr);
	stack[sp++] = i;
	seen[i] = 1;
	while (sp > 0) {
		x = stack[--sp];
		n++;
		for (k = 0; k < d->nr_parents[x]; k++) {
			q = d->parents[x][k];
			if (seen[q] || (in != NULL && !in[q]))
				continue;
			seen[q] = 1;
			stack[sp++] = q;
		}
	}
	return n;
}

static int
run(const char *cmd)
{
	int	r = system(cmd);

	return r == 0 ? 0 : -1;
}

/* Write d into a new repository at dir with fast-import; marks are i + 1. */
static int
repo_create(const char *dir, const struct dag *d)
{
	char	*cmd;
	FILE	*f;
	size_t	 i, k;
	int	 r;

	cmd = xasprintf("git init -q '%s'", dir);
	r = run(cmd);
	free(cmd);
	if (r != 0)
		return -1;
	cmd = xasprintf("git -C '%s' fast-import --quiet --export-marks='%s/"
	    "marks'", dir, dir);
	f = popen(cmd, "w");
	free(cmd);
	if (f == NULL)
		return -1;
	for (i = 0; i < d->nr; i++) {
		fprintf(f, "commit refs/heads/b%zu\nmark :%zu\n", i, i + 1);
		fprintf(f, "committer C O Mitter <c@example.com> %zu +0000\n",
		    (size_t)1700000000 + i * 60);
		fprintf(f, "data 0\n");
		for (k = 0; k < d->nr_parents[i]; k++)
			fprintf(f, "%s :%zu\n", k == 0 ? "from" : "merge",
			    d->parents[i][k] + 1);
		fprintf(f, "\n");
	}
	return pclose(f) == 0 ? 0 : -1;
}

/* The oid of every mark, read back from the marks file. */
static char **
repo_oids(const char *dir, size_t nr)
{
	char	 *path, line[128], **oids;
	FILE	 *f;
	size_t	  mark;

	path = xasprintf("%s/marks", dir);
	f = fopen(path, "r");
	free(path);
	if (f == NULL)
		return NULL;
	oids = xcalloc(nr, sizeof *oids);
	while (fgets(line, sizeof line, f) != NULL) {
		char oid[64];

		if (sscanf(line, ":%zu %63s", &mark, oid) == 2 && mark >= 1 &&
		    mark <= nr)
			oids[mark - 1] = xstrdup(oid);
	}
	fclose(f);
	return oids;
}

struct range {
	size_t			 nr;
	char			**oid;
	size_t			**parents;
	struct bisect_commit	*commits;
};

static void
range_free(struct range *r)
{
	size_t	i;

	for (i = 0; i < r->nr; i++) {
		free(r->oid[i]);
		free(r->parents[i]);
	}
	free(r->oid);
	free(r->parents);
	free(r->commits);
	memset(r, 0, sizeof *r);
}

static size_t
range_find(const struct range *r, const char *oid)
{
	size_t	i;

	for (i = 0; i < r->nr; i++)
		if (strcmp(r->oid[i], oid) == 0)
			return i;
	return (size_t)-1;
}

/* Parse `git rev-list --parents REVS` into r, in git's order. */
static int
range_load(struct range *r, const char *dir, const char *revs)
{
	char	*cmd, *line = NULL, *tok, *save;
	size_t	 cap = 0, alloc = 0, i, k, p;
	FILE	*f;
	char	***tokens = NULL;
	size_t	 *nr_tokens = NULL;

	memset(r, 0, sizeof *r);
	cmd = xasprintf("git -C '%s' rev-list --parents %s", dir, revs);
	f = popen(cmd, "r");
	free(cmd);
	if (f == NULL)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		ALLOC_GROW(r->oid, r->nr, alloc);
		tokens = xreallocarray(tokens, alloc, sizeof *tokens);
		nr_tokens = xreallocarray(nr_tokens, alloc, sizeof *nr_tokens);
		tokens[r->nr] = NULL;
		nr_tokens[r->nr] = 0;
		k = 0;
		for (tok = strtok_r(line, " \n", &save); tok != NULL;
		    tok = strtok_r(NULL, " \n", &save)) {
			tokens[r->nr] = xreallocarray(tokens[r->nr], k + 1,
			    sizeof **tokens);
			tokens[r->nr][k++] = xstrdup(tok);
		}
		nr_tokens[r->nr] = k;
		r->oid[r->nr] = xstrdup(tokens[r->nr][0]);
		r->nr++;
	}
	free(line);
	pclose(f);
	r->parents = xcalloc(r->nr ? r->nr : 1, sizeof *r->parents);
	r->commits = xcalloc(r->nr ? r->nr : 1, sizeof *r->commits);
	for (i = 0; i < r->nr; i++) {
		r->parents[i] = xcalloc(nr_tokens[i], sizeof **r->parents);
		r->commits[i].name = r->oid[i];
		r->commits[i].parents = r->parents[i];
		for (k = 1; k < nr_tokens[i]; k++) {
			p = range_find(r, tokens[i][k]);
			if (p != (size_t)-1)
				r->parents[i][r->commits[i].nr_parents++] = p;
		}
		for (k = 0; k < nr_tokens[i]; k++)
			free(tokens[i][k]);
		free(tokens[i]);
	}
	free(tokens);
	free(nr_tokens);
	return 0;
}

static char *
git_line(const char *dir, const char *args)
{
	char	*cmd, buf[256];
	FILE	*f;
	char	*out = NULL;

	cmd = xasprintf("git -C '%s' %s", dir, args);
	f = popen(cmd, "r");
	free(cmd);
	if (f == NULL)
		return NULL;
	if (fgets(buf, sizeof buf, f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		out = xstrdup(buf);
	}
	pclose(f);
	return out;
}

/* git's dist= for every commit of the range, -1 where git printed none */
static long *
git_dists(const char *dir, const char *revs, const struct range *r)
{
	char	*cmd, *line = NULL, oid[64], *p;
	size_t	 cap = 0, i;
	long	*dist, dv;
	FILE	*f;

	dist = xcalloc(r->nr ? r->nr : 1, sizeof *dist);
	for (i = 0; i < r->nr; i++)
		dist[i] = -1;
	cmd = xasprintf("git -C '%s' rev-list --bisect-all %s", dir, revs);
	f = popen(cmd, "r");
	free(cmd);
	if (f == NULL)
		return dist;
	while (getline(&line, &cap, f) > 0) {
		/* "<oid> (dist=N)", or "<oid> (refs, dist=N)" */
		if (sscanf(line, "%63s", oid) != 1 ||
		    (p = strstr(line, "dist=")) == NULL ||
		    sscanf(p, "dist=%ld", &dv) != 1)
			continue;
		i = range_find(r, oid);
		if (i != (size_t)-1)
			dist[i] = dv;
	}
	free(line);
	pclose(f);
	return dist;
}

static size_t
dist_of(const size_t *w, size_t i, size_t nr)
{
	return w[i] < nr - w[i] ? w[i] : nr - w[i];
}

static void
test_against_git(const char *tmp, unsigned seed, size_t n, unsigned merge_pct,
    int two_goods)
{
	struct dag	 d;
	struct range	 r;
	char		*dir, **oids = NULL, *revs = NULL, *pick = NULL;
	size_t		 good, good2, bad, i, ours, theirs, *w = NULL;
	size_t		 best_d = 0, nr_best = 0, mismatch = 0;
	long		*dist = NULL;

	rng_state = 0x9e3779b97f4a7c15ULL * (seed + 1);
	dag_generate(&d, n, merge_pct);
	dir = xasprintf("%s/repo-%u", tmp, seed);
	memset(&r, 0, sizeof r);
	if (!ok(repo_create(dir, &d) == 0, "seed %u: fast-import %zu commits",
	    seed, d.nr))
		goto out;
	oids = repo_oids(dir, d.nr);
	good = d.nr / 10 + rng_below(d.nr / 5);
	good2 = d.nr / 3 + rng_below(d.nr / 3);
	bad = d.nr - 1 - rng_below(d.nr / 20 + 1);
	if (two_goods)
		revs = xasprintf("%s ^%s ^%s", oids[bad], oids[good],
		    oids[good2]);
	else
		revs = xasprintf("%s ^%s", oids[bad], oids[good]);
	i = range_load(&r, dir, revs) == 0;
	if (!ok(i && r.nr > 0, "seed %u: range of %zu commits", seed, r.nr))
		goto out;

	w = xcalloc(r.nr, sizeof *w);
	ok(bisect_weights(w, r.commits, r.nr, NULL) == 0, "seed %u: weights",
	    seed);
	dist = git_dists(dir, revs, &r);
	for (i = 0; i < r.nr; i++)
		if (dist[i] != (long)dist_of(w, i, r.nr)) {
			if (mismatch++ < 3)
				diag("%s: git %ld, ours %zu", r.oid[i], dist[i],
				    dist_of(w, i, r.nr));
		}
	is_int(mismatch, 0, "seed %u: every dist= agrees with git "
	    "--bisect-all (%zu commits, merges %u%%%s)", seed, r.nr,
	    merge_pct, two_goods ? ", two good ends" : "");

	for (i = 0; i < r.nr; i++) {
		size_t di = dist_of(w, i, r.nr);

		if (di > best_d || i == 0) {
			best_d = di;
			nr_best = 1;
		} else if (di == best_d)
			nr_best++;
	}
	{
		char *args = xasprintf("rev-list --bisect %s", revs);

		pick = git_line(dir, args);
		free(args);
	}
	ours = bisect_midpoint(r.commits, r.nr, NULL);
	theirs = pick != NULL ? range_find(&r, pick) : (size_t)-1;
	if (!ok(ours != (size_t)-1 && theirs != (size_t)-1,
	    "seed %u: both pick a commit", seed))
		goto out;
	is_int(dist_of(w, ours, r.nr), dist_of(w, theirs, r.nr),
	    "seed %u: our pick splits the range as well as git's", seed);
	if (nr_best == 1)
		is_str(r.oid[ours], r.oid[theirs],
		    "seed %u: the best is unique: the same commit as git", seed);
out:
	free(pick);
	free(dist);
	free(w);
	range_free(&r);
	if (oids != NULL)
		for (i = 0; i < d.nr; i++)
			free(oids[i]);
	free(oids);
	free(revs);
	free(dir);
	dag_free(&d);
}

/*
 * Random DAGs in memory, shuffled so the array is not in topological
 * order; weights and the skip-aware choice against a brute force.
 */
static void
test_brute_force(unsigned seed, size_t n)
{
	struct dag		 d;
	struct bisect_commit	*c;
	size_t			*perm, *inv, **pp, i, k, *w, *bw, *stack;
	size_t			 best, best_d, got, mismatch = 0;
	unsigned char		*skip, *seen;

	rng_state = 0xdeadbeefcafeULL * (seed + 7);
	dag_generate(&d, n, 15 + seed % 30);
	perm = xcalloc(d.nr, sizeof *perm);
	inv = xcalloc(d.nr, sizeof *inv);
	for (i = 0; i < d.nr; i++)
		perm[i] = i;
	for (i = d.nr - 1; i > 0; i--) {
		k = rng_below(i + 1);
		size_t t = perm[i];
		perm[i] = perm[k];
		perm[k] = t;
	}
	for (i = 0; i < d.nr; i++)
		inv[perm[i]] = i;
	c = xcalloc(d.nr, sizeof *c);
	pp = xcalloc(d.nr, sizeof *pp);
	for (i = 0; i < d.nr; i++) {
		size_t o = perm[i];

		pp[i] = xcalloc(d.nr_parents[o] + 1, sizeof **pp);
		for (k = 0; k < d.nr_parents[o]; k++)
			pp[i][k] = inv[d.parents[o][k]];
		c[i].parents = pp[i];
		c[i].nr_parents = d.nr_parents[o];
	}
	w = xcalloc(d.nr, sizeof *w);
	bw = xcalloc(d.nr, sizeof *bw);
	seen = xcalloc(d.nr, 1);
	stack = xcalloc(d.nr, sizeof *stack);
	skip = xcalloc(d.nr, 1);
	ok(bisect_weights(w, c, d.nr, NULL) == 0, "shuffled dag %u: weights",
	    seed);
	for (i = 0; i < d.nr; i++) {
		bw[i] = dag_count(&d, perm[i], NULL, seen, stack);
		if (bw[i] != w[i])
			mismatch++;
	}
	is_int(mismatch, 0, "shuffled dag %u (%zu commits): weights equal "
	    "the brute force", seed, d.nr);

	for (k = 0; k < 4; k++) {
		unsigned pct = k == 3 ? 100 : 10 + 25 * k;

		for (i = 0; i < d.nr; i++)
			skip[i] = rng_below(100) < pct;
		best = (size_t)-1;
		best_d = 0;
		for (i = 0; i < d.nr; i++) {
			if (skip[i])
				continue;
			if (best == (size_t)-1 || dist_of(bw, i, d.nr) > best_d) {
				best = i;
				best_d = dist_of(bw, i, d.nr);
			}
		}
		got = bisect_midpoint(c, d.nr, skip);
		is_int(got, best, "shuffled dag %u, %u%% skipped: the best "
		    "unskipped commit, lowest index on a tie", seed, pct);
	}
	for (i = 0; i < d.nr; i++)
		free(pp[i]);
	free(pp);
	free(c);
	free(perm);
	free(inv);
	free(w);
	free(bw);
	free(seen);
	free(stack);
	free(skip);
	dag_free(&d);
}

static void
test_edges(void)
{
	struct bisect_commit	c[3];
	size_t			p0[1] = { 1 }, p1[1] = { 0 }, p2[1] = { 7 };
	size_t			w[3];
	char			*cause = NULL;

	memset(c, 0, sizeof c);
	is_int(bisect_midpoint(c, 0, NULL), -1, "empty range: nothing");
	is_int(bisect_midpoint(c, 1, NULL), 0, "one commit: that one");
	c[0].parents = p0;
	c[0].nr_parents = 1;
	c[1].parents = p1;
	c[1].nr_parents = 1;
	is_int(bisect_midpoint(c, 2, NULL), -1, "a cycle: nothing");
	ok(bisect_weights(w, c, 2, &cause) == -1 && cause != NULL &&
	    strstr(cause, "cycle") != NULL, "a cycle is an error");
	free(cause);
	cause = NULL;
	c[0].nr_parents = 0;
	c[1].parents = p2;
	ok(bisect_weights(w, c, 2, &cause) == -1 && cause != NULL,
	    "a parent out of range is an error");
	free(cause);
	/* linear 0 <- 1 <- 2: weights 1, 2, 3 */
	c[1].parents = p1;
	c[2].parents = (size_t[]){ 1 };
	c[2].nr_parents = 1;
	ok(bisect_weights(w, c, 3, NULL) == 0 && w[0] == 1 && w[1] == 2 &&
	    w[2] == 3, "a line of three");
	is_int(bisect_midpoint(c, 3, NULL), 0, "of three, the first of two "
	    "equal splits");
	is_int(bisect_midpoint(c, 3, (unsigned char[]){ 1, 0, 0 }), 1,
	    "skipping it, the next best");
	is_int(bisect_midpoint(c, 3, (unsigned char[]){ 1, 1, 1 }), -1,
	    "all skipped: nothing");
}

int
main(void)
{
	char		 tmpl[] = "/tmp/bisectd-test-midpoint.XXXXXX";
	char		*tmp, *rm;
	unsigned	 seed;
	static const struct {
		size_t		n;
		unsigned	merge_pct;
		int		two_goods;
	} cases[] = {
		{ 40, 30, 0 }, { 200, 10, 0 }, { 300, 40, 1 }, { 500, 25, 0 },
		{ 800, 15, 1 }, { 1000, 50, 0 }, { 2000, 20, 0 },
		{ 3000, 30, 1 },
	};

	test_edges();
	for (seed = 0; seed < 12; seed++)
		test_brute_force(seed, 50 + 150 * seed);

	tmp = mkdtemp(tmpl);
	if (tmp == NULL) {
		ok(0, "mkdtemp");
		return tap_done();
	}
	setenv("HOME", tmp, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	for (seed = 0; seed < sizeof cases / sizeof cases[0]; seed++)
		test_against_git(tmp, seed, cases[seed].n,
		    cases[seed].merge_pct, cases[seed].two_goods);
	rm = xasprintf("rm -rf '%s'", tmp);
	run(rm);
	free(rm);
	return tap_done();
}
