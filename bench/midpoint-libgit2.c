/*
 * Benchmark: `git rev-list --bisect` against repo_range_load and
 * bisect_midpoint through libgit2 on a generated 100,000-commit history,
 * each timed from cold, with and without a commit-graph; the target is
 * ours <= 1.5x git's (docs/design.md, "File notes", has the usage).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bisectd/repo.h"
#include "stats/bisect.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define BENCH_SIDE_EVERY	20	/* a merge every this many commits */
#define BENCH_SIDE_LEN		3	/* commits on each side branch */
#define BENCH_SIDE_BACK		10	/* the side forks this far back */
#define BENCH_DATE		1700000000L

static void
midpoint_libgit2_commit(FILE *f, const char *ref, long mark, long date,
    long from, long merge)
{
	char	msg[64], data[32];

	snprintf(msg, sizeof msg, "commit %ld\n", mark);
	snprintf(data, sizeof data, "%ld\n", mark);
	fprintf(f, "commit %s\nmark :%ld\n"
	    "author A U Thor <author@example.com> %ld +0000\n"
	    "committer C O Mitter <committer@example.com> %ld +0000\n"
	    "data %zu\n%s", ref, mark, date, date, strlen(msg), msg);
	if (from > 0)
		fprintf(f, "from :%ld\n", from);
	if (merge > 0)
		fprintf(f, "merge :%ld\n", merge);
	fprintf(f, "M 644 inline f\ndata %zu\n%s\n", strlen(data), data);
}

/*
 * The history: a main line where every BENCH_SIDE_EVERY-th commit merges
 * a side branch of BENCH_SIDE_LEN commits forked BENCH_SIDE_BACK commits
 * earlier. Marks are the creation order, dates one second apart.
 */
static int
midpoint_libgit2_generate(const char *dir, long nr, char **cause)
{
	char	*cmd;
	FILE	*f;
	long	*main_marks, nr_main = 0, mark = 0, fork_at, i;
	int	 status;

	cmd = xasprintf("cd '%s' && git init -q --bare . && "
	    "git fast-import --quiet", dir);
	f = popen(cmd, "w");
	free(cmd);
	if (f == NULL)
		return error_errno(cause, "couldn't run git fast-import");
	main_marks = xcalloc((size_t)nr + 1, sizeof *main_marks);
	while (mark < nr) {
		if (nr_main > BENCH_SIDE_BACK &&
		    nr_main % BENCH_SIDE_EVERY == 0 &&
		    mark + BENCH_SIDE_LEN + 1 <= nr) {
			fork_at = main_marks[nr_main - BENCH_SIDE_BACK];
			for (i = 0; i < BENCH_SIDE_LEN; i++) {
				mark++;
				midpoint_libgit2_commit(f, "refs/heads/side",
				    mark, BENCH_DATE + mark, i == 0 ?
				    fork_at : 0, 0);
			}
			mark++;
			midpoint_libgit2_commit(f, "refs/heads/main", mark,
			    BENCH_DATE + mark, 0, mark - 1);
		} else {
			mark++;
			midpoint_libgit2_commit(f, "refs/heads/main", mark,
			    BENCH_DATE + mark, 0, 0);
		}
		main_marks[nr_main++] = mark;
	}
	fprintf(f, "reset refs/tags/good\nfrom :1\n\n");
	free(main_marks);
	status = pclose(f);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return error_set(cause, "git fast-import failed");
	return 0;
}

/*
 * bisect_midpoint takes the candidates alone, with no parent outside
 * them, while a repo_range also holds the good ends and the edges to
 * them: drop those (the copy is timed with the rest).
 */
static size_t
midpoint_libgit2_midpoint(const struct repo_range *rr)
{
	struct bisect_commit	*view;
	size_t			*store, n = rr->nr_commits - rr->nr_good;
	size_t			 i, j, k = 0, pick;

	for (i = 0; i < n; i++)
		k += rr->commits[i].nr_parents;
	view = xcalloc(n ? n : 1, sizeof *view);
	store = xcalloc(k ? k : 1, sizeof *store);
	for (i = 0, k = 0; i < n; i++) {
		view[i] = rr->commits[i];
		view[i].parents = store + k;
		view[i].nr_parents = 0;
		for (j = 0; j < rr->commits[i].nr_parents; j++) {
			if (rr->commits[i].parents[j] >= n)
				continue;
			store[k++] = rr->commits[i].parents[j];
			view[i].nr_parents++;
		}
	}
	pick = bisect_midpoint(view, n, NULL);
	free(store);
	free(view);
	return pick;
}

static char *
midpoint_libgit2_capture(const char *cmd)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		 buf[4096];
	FILE		*p = popen(cmd, "r");
	size_t		 n;

	if (p == NULL)
		return xstrdup("");
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		strbuf_add(&sb, buf, n);
	pclose(p);
	strbuf_rtrim(&sb);
	return strbuf_detach(&sb, NULL);
}

/* "dist=" of a commit in `git rev-list --bisect-all`, or -1. */
static long
midpoint_libgit2_dist(const char *all, const char *oid)
{
	const char	*p = strstr(all, oid);

	if (p == NULL || (p = strstr(p, "(dist=")) == NULL)
		return -1;
	return atol(p + 6);
}

/*
 * Both picks against the best distance git computes for every commit
 * (--bisect-all). git rev-list --bisect stops at the first commit within
 * ~0.1% of half way, so its pick may be a little off the best.
 */
static void
midpoint_libgit2_compare(const char *dir, const char *git_pick,
    const char *ours)
{
	char	*cmd, *all;

	cmd = xasprintf("git -C '%s' rev-list --bisect-all main ^good", dir);
	all = midpoint_libgit2_capture(cmd);
	printf("midpoint: git --bisect %.12s (dist=%ld), ours %.12s "
	    "(dist=%ld), best in --bisect-all dist=%ld\n", git_pick,
	    midpoint_libgit2_dist(all, git_pick), ours,
	    midpoint_libgit2_dist(all, ours),
	    atol(strstr(all, "(dist=") != NULL ?
	    strstr(all, "(dist=") + 6 : "-1"));
	free(all);
	free(cmd);
}

/*
 * One round: reps timings of each side, alternated, each from cold (a new
 * git process; a new repository handle for us). Prints the medians.
 */
static int
midpoint_libgit2_round(const char *dir, int reps, const char *label)
{
	struct config_repo	 cr;
	struct repo_range	 rr;
	struct repo		*r = NULL;
	const char		*good[] = { "good" };
	char			*cmd, *git_pick = NULL, *cause = NULL;
	double			*t_git, *t_ours, t0, t1, g, o;
	double			 t_load = 0, t_mid = 0;
	size_t			 pick, nr_range = 0;
	int			 i, rv = -1;

	t_git = xcalloc((size_t)reps, sizeof *t_git);
	t_ours = xcalloc((size_t)reps, sizeof *t_ours);
	cmd = xasprintf("git -C '%s' rev-list --bisect main ^good", dir);
	memset(&cr, 0, sizeof cr);
	cr.name = "bench";
	cr.path = (char *)dir;
	printf("-- %s\n", label);
	for (i = 0; i < reps; i++) {
		t0 = bench_now();
		free(git_pick);
		git_pick = midpoint_libgit2_capture(cmd);
		t_git[i] = bench_now() - t0;

		t0 = bench_now();
		if (repo_open(&cr, &r, &cause) != 0 ||
		    repo_range_load(r, good, 1, "main", &rr, &cause) != 0) {
			fprintf(stderr, "midpoint-libgit2: %s\n", cause);
			goto out;
		}
		t1 = bench_now();
		pick = midpoint_libgit2_midpoint(&rr);
		t_ours[i] = bench_now() - t0;
		t_load += t1 - t0;
		t_mid += bench_now() - t1;
		nr_range = rr.nr_commits - rr.nr_good;
		if (i == reps - 1 && pick < rr.nr_commits)
			midpoint_libgit2_compare(dir, git_pick, rr.oids[pick]);
		repo_range_release(&rr);
		repo_free(r);
		r = NULL;
	}
	g = bench_median(t_git, (size_t)reps);
	o = bench_median(t_ours, (size_t)reps);
	printf("range: %zu candidates; %d repetitions, median\n", nr_range,
	    reps);
	printf("git rev-list --bisect:             %8.1f ms\n", g * 1e3);
	printf("repo_range_load + bisect_midpoint: %8.1f ms "
	    "(load %.1f ms, midpoint %.1f ms, mean)\n", o * 1e3,
	    t_load / reps * 1e3, t_mid / reps * 1e3);
	printf("ratio ours/git: %.2f (target <= 1.50: %s)\n", o / g,
	    o <= 1.5 * g ? "met" : "MISSED");
	rv = 0;
out:
	repo_free(r);
	free(git_pick);
	free(cause);
	free(cmd);
	free(t_git);
	free(t_ours);
	return rv;
}

int
main(int argc, char **argv)
{
	char		 tmpl[] = "/tmp/bisectd-bench-midpoint.XXXXXX";
	char		*dir, *cause = NULL, *cmd;
	double		 t0;
	long		 nr = 100000;
	int		 reps = 5, keep = 0, ch, rv = 1;

	while ((ch = getopt(argc, argv, "kn:r:")) != -1) {
		switch (ch) {
		case 'k':
			keep = 1;
			break;
		case 'n':
			nr = atol(optarg);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: midpoint-libgit2 [-k] "
			    "[-n commits] [-r repetitions]\n");
			return 2;
		}
	}
	if (nr < 2 * BENCH_SIDE_EVERY || reps < 1) {
		fprintf(stderr, "midpoint-libgit2: too few commits or "
		    "repetitions\n");
		return 2;
	}
	if ((dir = mkdtemp(tmpl)) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	t0 = bench_now();
	if (midpoint_libgit2_generate(dir, nr, &cause) != 0) {
		fprintf(stderr, "midpoint-libgit2: %s\n", cause);
		goto out;
	}
	printf("history: %ld commits, a merge every %d (side branches of %d), "
	    "generated in %.1f s\n", nr, BENCH_SIDE_EVERY, BENCH_SIDE_LEN,
	    bench_now() - t0);
	if (midpoint_libgit2_round(dir, reps,
	    "one pack, as git fast-import leaves it") != 0)
		goto out;

	/* A clone after git gc has a commit-graph; git's walk uses it. */
	cmd = xasprintf("git -C '%s' commit-graph write --reachable "
	    "2>/dev/null", dir);
	ch = system(cmd);
	free(cmd);
	if (ch != 0) {
		fprintf(stderr, "midpoint-libgit2: git commit-graph failed\n");
		goto out;
	}
	if (midpoint_libgit2_round(dir, reps,
	    "with a commit-graph, as after git gc "
	    "(libgit2 1.5 does not read it)") != 0)
		goto out;
	rv = 0;
out:
	free(cause);
	if (keep)
		printf("repository kept in %s\n", dir);
	else
		dir_remove_tree(dir, NULL);
	return rv;
}
