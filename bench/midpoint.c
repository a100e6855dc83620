/*
 * Benchmark: bisect_midpoint against `git rev-list --bisect` on a
 * generated history of --commits commits with merges, in the same run; both
 * picks must split the range equally well, and it fails when ours takes
 * more than 1.5 times git's (docs/design.md, "File notes").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "stats/bisect.h"
#include "util/xalloc.h"

static uint64_t	rng_state = 88172645463325252ULL;

static size_t
midpoint_rng_below(size_t n)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return (size_t)(x % n);
}

/* mainline plus topic branches; returns the number of merges */
static size_t
midpoint_history_write(FILE *f, size_t n, size_t *nr_commits)
{
	size_t	mark = 0, main_tip, tip, base_back, len, merges = 0;
	size_t	*main = xcalloc(n + 1, sizeof *main), nr_main = 0;

#define COMMIT(from, merge) do {					\
	mark++;								\
	fprintf(f, "commit refs/heads/master\nmark :%zu\n"		\
	    "committer C O Mitter <c@example.com> %zu +0000\ndata 0\n",	\
	    mark, (size_t)1700000000 + mark);				\
	if ((from) != 0)						\
		fprintf(f, "from :%zu\n", (size_t)(from));		\
	if ((merge) != 0)						\
		fprintf(f, "merge :%zu\n", (size_t)(merge));		\
	fprintf(f, "\n");						\
} while (0)

	COMMIT(0, 0);
	main[nr_main++] = mark;
	while (mark < n) {
		main_tip = main[nr_main - 1];
		if (midpoint_rng_below(10) < 7) {
			COMMIT(main_tip, 0);
			main[nr_main++] = mark;
			continue;
		}
		base_back = midpoint_rng_below(nr_main < 31 ? nr_main : 31);
		tip = main[nr_main - 1 - base_back];
		for (len = 1 + midpoint_rng_below(8); len > 0; len--) {
			COMMIT(tip, 0);
			tip = mark;
		}
		COMMIT(main_tip, tip);
		main[nr_main++] = mark;
		merges++;
	}
	fprintf(f, "reset refs/heads/master\nfrom :%zu\n\n", main[nr_main - 1]);
#undef COMMIT
	*nr_commits = mark;
	free(main);
	return merges;
}

/* open addressing over the binary oids */
struct oidmap {
	size_t	 cap;
	char	(*key)[41];
	size_t	*val;
};

static size_t
midpoint_oidmap_slot(const struct oidmap *m, const char *oid)
{
	size_t	h = strtoull((char[17]){ oid[0], oid[1], oid[2], oid[3],
	    oid[4], oid[5], oid[6], oid[7], oid[8], oid[9], oid[10], oid[11],
	    oid[12], oid[13], oid[14], oid[15], 0 }, NULL, 16);

	h &= m->cap - 1;
	while (m->key[h][0] != '\0' && strncmp(m->key[h], oid, 40) != 0)
		h = (h + 1) & (m->cap - 1);
	return h;
}

struct range {
	size_t			 nr;
	char			(*oid)[41];
	struct bisect_commit	*commits;
	size_t			*parents;
};

static int
midpoint_range_load(struct range *r, const char *dir, const char *revs, double *secs)
{
	struct oidmap	 map;
	char		*cmd, *line = NULL, *p;
	size_t		 cap = 0, alloc = 0, nr_edges = 0, alloc_edges = 0;
	size_t		*nr_par = NULL, *raw = NULL, i, k, h, off;
	char		(*rawoid)[41] = NULL;
	FILE		*f;
	double		 t0 = bench_now();

	memset(r, 0, sizeof *r);
	cmd = xasprintf("git -C '%s' rev-list --parents %s", dir, revs);
	f = popen(cmd, "r");
	free(cmd);
	if (f == NULL)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		if (r->nr == alloc) {
			alloc = alloc ? alloc * 2 : 1024;
			r->oid = xreallocarray(r->oid, alloc, sizeof *r->oid);
			nr_par = xreallocarray(nr_par, alloc, sizeof *nr_par);
		}
		memcpy(r->oid[r->nr], line, 40);
		r->oid[r->nr][40] = '\0';
		nr_par[r->nr] = 0;
		for (p = line + 40; *p == ' '; p += 41) {
			if (nr_edges == alloc_edges) {
				alloc_edges = alloc_edges ? alloc_edges * 2 :
				    1024;
				rawoid = xreallocarray(rawoid, alloc_edges,
				    sizeof *rawoid);
			}
			memcpy(rawoid[nr_edges], p + 1, 40);
			rawoid[nr_edges++][40] = '\0';
			nr_par[r->nr]++;
		}
		r->nr++;
	}
	free(line);
	if (pclose(f) != 0 || r->nr == 0)
		return -1;

	map.cap = 1;
	while (map.cap < 2 * r->nr)
		map.cap <<= 1;
	map.key = xcalloc(map.cap, sizeof *map.key);
	map.val = xcalloc(map.cap, sizeof *map.val);
	for (i = 0; i < r->nr; i++) {
		h = midpoint_oidmap_slot(&map, r->oid[i]);
		memcpy(map.key[h], r->oid[i], 41);
		map.val[h] = i;
	}
	r->commits = xcalloc(r->nr, sizeof *r->commits);
	r->parents = xcalloc(nr_edges ? nr_edges : 1, sizeof *r->parents);
	raw = r->parents;
	for (i = 0, off = 0, k = 0; i < r->nr; i++) {
		size_t j, first = k;

		for (j = 0; j < nr_par[i]; j++, off++) {
			h = midpoint_oidmap_slot(&map, rawoid[off]);
			if (map.key[h][0] != '\0')
				raw[k++] = map.val[h];
		}
		r->commits[i].name = r->oid[i];
		r->commits[i].parents = raw + first;
		r->commits[i].nr_parents = k - first;
	}
	free(map.key);
	free(map.val);
	free(rawoid);
	free(nr_par);
	*secs = bench_now() - t0;
	return 0;
}

static char *
midpoint_git_line(const char *dir, const char *args, double *secs)
{
	char	*cmd, buf[256], *out = NULL;
	FILE	*f;
	double	 t0 = bench_now();

	cmd = xasprintf("git -C '%s' %s", dir, args);
	f = popen(cmd, "r");
	free(cmd);
	if (f == NULL)
		return NULL;
	if (fgets(buf, sizeof buf, f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		out = xstrdup(buf);
	}
	if (pclose(f) != 0) {
		free(out);
		out = NULL;
	}
	*secs = bench_now() - t0;
	return out;
}

/*
 * For scale, one bisect_decide on the same range in mid-bisection: the
 * good end appended, the ends and 20 commits along the way sampled.
 */
static void
midpoint_decide_time(const struct range *r)
{
	struct bisect_commit	*c;
	struct bisect_input	 in;
	struct bisect_result	 res;
	double			*s, t0;
	size_t			 n = r->nr + 1, i, k, good = r->nr, x;

	c = xcalloc(n, sizeof *c);
	memcpy(c, r->commits, r->nr * sizeof *c);
	s = xcalloc(22 * 12, sizeof *s);
	for (k = 0; k < 22; k++) {
		x = k == 0 ? 0 : k == 1 ? good : midpoint_rng_below(r->nr);
		for (i = 0; i < 12; i++)
			s[k * 12 + i] = (k == 0 || (k > 1 && x < r->nr / 3) ?
			    970 : 1000) + (double)midpoint_rng_below(41) - 20;
		c[x].build = BISECT_BUILD_OK;
		c[x].samples = s + k * 12;
		c[x].nr_samples = k < 2 ? 12 : 5;
	}
	memset(&in, 0, sizeof in);
	in.commits = c;
	in.nr_commits = n;
	in.bad = 0;
	in.good = &good;
	in.nr_good = 1;
	in.direction = 1;
	in.slots = 1;
	in.initial_runs = 3;
	in.max_runs = 100;
	t0 = bench_now();
	bisect_decide(&res, &in);
	printf("bisect_decide on that range, 22 commits sampled: %.3f s "
	    "(%s)\n", bench_now() - t0, bisect_status_name(res.status));
	bisect_result_release(&res);
	free(s);
	free(c);
}

/*
 * bisect_midpoint against git's pick on the range revs: the split each
 * makes and their times (git's in tg, reps_git of them). 0 when ours is
 * within 1.5 times git's and splits at least as evenly.
 */
static int
midpoint_compare(const char *repo, const char *revs, const char *pick,
    double *tg, int reps_git)
{
	struct range	 r;
	size_t		 i, ours = 0, theirs, *w = NULL;
	double		 tm[7], tload = 0, t0, g, m;
	int		 status = 1, reps_ours = 7;

	memset(&r, 0, sizeof r);
	if (midpoint_range_load(&r, repo, revs, &tload) != 0) {
		fprintf(stderr, "midpoint: can't load the range\n");
		goto out;
	}
	for (i = 0; i < (size_t)reps_ours; i++) {
		t0 = bench_now();
		ours = bisect_midpoint(r.commits, r.nr, NULL);
		tm[i] = bench_now() - t0;
	}
	w = xcalloc(r.nr, sizeof *w);
	bisect_weights(w, r.commits, r.nr, NULL);
	for (theirs = 0; theirs < r.nr; theirs++)
		if (strcmp(r.oid[theirs], pick) == 0)
			break;
	if (ours >= r.nr || theirs >= r.nr) {
		fprintf(stderr, "midpoint: no pick\n");
		goto out;
	}
#define DIST(x) (w[x] < r.nr - w[x] ? w[x] : r.nr - w[x])
	printf("range: %zu commits; split: ours %zu/%zu, git's %zu/%zu\n",
	    r.nr, DIST(ours), r.nr, DIST(theirs), r.nr);
	g = bench_median(tg, reps_git);
	m = bench_median(tm, reps_ours);
	printf("git rev-list --bisect        %8.3f s  (median of %d)\n",
	    g, reps_git);
	printf("bisect_midpoint              %8.3f s  (median of %d; "
	    "on the DAG parsed from git rev-list --parents)\n", m,
	    reps_ours);
	printf("  (loading that DAG: git rev-list --parents + parse "
	    "%.3f s)\n", tload);
	printf("ratio ours/git: %.3f (target <= 1.5): %s\n", m / g,
	    m <= 1.5 * g && DIST(ours) >= DIST(theirs) ? "ok" : "FAIL");
	if (m <= 1.5 * g && DIST(ours) >= DIST(theirs))
		status = 0;
#undef DIST
	midpoint_decide_time(&r);
out:
	free(w);
	free(r.oid);
	free(r.commits);
	free(r.parents);
	return status;
}

int
main(int argc, char **argv)
{
	char		 tmpl[] = "/tmp/bisectd-bench-midpoint.XXXXXX";
	char		*dir, *cmd, *pick = NULL, *bad = NULL, *good = NULL;
	char		*revs = NULL, *args, *repo = NULL;
	size_t		 n = 100000, merges, i;
	double		 tg[3], t0;
	int		 status = 1, reps_git = 3;
	FILE		*f;

	for (i = 1; i < (size_t)argc; i++) {
		if (strcmp(argv[i], "--commits") == 0 && i + 1 < (size_t)argc)
			n = strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: midpoint [--commits N]\n");
			return 2;
		}
	}
	dir = mkdtemp(tmpl);
	if (dir == NULL) {
		perror("mkdtemp");
		return 1;
	}
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("HOME", dir, 1);
	cmd = xasprintf("git init -q '%s/repo' && git -C '%s/repo' fast-import "
	    "--quiet", dir, dir);
	f = popen(cmd, "w");
	free(cmd);
	if (f == NULL)
		goto out;
	t0 = bench_now();
	merges = midpoint_history_write(f, n, &n);
	if (pclose(f) != 0) {
		fprintf(stderr, "midpoint: fast-import failed\n");
		goto out;
	}
	printf("history: %zu commits, %zu merges (fast-import %.1f s)\n", n,
	    merges, bench_now() - t0);

	repo = xasprintf("%s/repo", dir);
	bad = midpoint_git_line(repo, "rev-parse master", &t0);
	good = midpoint_git_line(repo, "rev-list --max-parents=0 master", &t0);
	if (bad == NULL || good == NULL)
		goto out;
	revs = xasprintf("%s ^%s", bad, good);
	args = xasprintf("rev-list --bisect %s", revs);
	for (i = 0; i < (size_t)reps_git; i++) {
		free(pick);
		pick = midpoint_git_line(repo, args, &tg[i]);
	}
	free(args);
	if (pick == NULL)
		goto out;
	status = midpoint_compare(repo, revs, pick, tg, reps_git);
out:
	free(repo);
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "midpoint: can't remove %s\n", dir);
	free(cmd);
	free(pick);
	free(bad);
	free(good);
	free(revs);
	return status;
}
