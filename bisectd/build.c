/*
 * Building a commit into the artifact cache. The repository's persistent
 * worktree is moved to the commit (only the files that differ are
 * rewritten), the recipe's command runs there with a persistent BUILD_DIR
 * so that builds are incremental, and the artifacts are copied into
 * WORKDIR/cache/REPO/RECIPE/OID. An entry is complete only once its marker
 * is written and the directory renamed into place, so a crash never leaves
 * a half entry that looks complete. A failed build is a result (the commit
 * is untestable), not an error.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisectd/build.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define BUILD_MARKER		".complete"
#define BUILD_RECIPE_LEN	16
#define BUILD_TAIL_LINES	20
#define BUILD_TAIL_BYTES	16384

extern char	**environ;

/* Paths of one build, all under the config's workdir. */
struct build_paths {
	char	*recipe;
	char	*cache;		/* WORKDIR/cache/REPO/RECIPE/OID */
	char	*tmp;		/* the same with .tmp.PID, while filling */
	char	*worktree;	/* WORKDIR/worktrees/REPO */
	char	*lock;		/* WORKDIR/worktrees/REPO.lock */
	char	*builddir;	/* WORKDIR/builddir/REPO-RECIPE */
	char	*logdir;
	char	*log;		/* WORKDIR/logs/build-RECIPE-OID.log */
};

static void
build_field(struct strbuf *sb, const char *name, const void *data, size_t len)
{
	strbuf_addf(sb, "%s %zu\n", name, len);
	strbuf_add(sb, data, len);
	strbuf_addch(sb, '\n');
}

/*
 * Length-prefixed fields so that no two recipes hash the same text. The
 * kconfig counts by its contents: the same path with other contents is
 * another recipe.
 */
char *
build_recipe_id(const struct config_repo *cr)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		 hex[HASH_HEX_LEN + 1], *kc = NULL;
	size_t		 i, len;

	if (cr->build_command != NULL)
		build_field(&sb, "command", cr->build_command,
		    strlen(cr->build_command));
	if (cr->kconfig != NULL) {
		if (file_read(cr->kconfig, &kc, &len, NULL) == 0)
			build_field(&sb, "kconfig", kc, len);
		else
			build_field(&sb, "kconfig-unreadable", cr->kconfig,
			    strlen(cr->kconfig));
		free(kc);
	}
	for (i = 0; i < cr->nr_artifacts; i++)
		build_field(&sb, "artifact", cr->artifacts[i],
		    strlen(cr->artifacts[i]));
	hash_sha256_hex(sb.buf, sb.len, hex);
	strbuf_release(&sb);
	hex[BUILD_RECIPE_LEN] = '\0';
	return xstrdup(hex);
}

char *
build_cache_dir(const struct config_repo *cr, const char *workdir,
    const char *oid)
{
	char	*recipe = build_recipe_id(cr), *dir;

	dir = xasprintf("%s/cache/%s/%s/%s", workdir, cr->name, recipe, oid);
	free(recipe);
	return dir;
}

static void
build_paths_init(struct build_paths *p, const struct build_request *req)
{
	const struct config_repo	*cr = req->repo;

	p->recipe = build_recipe_id(cr);
	p->cache = build_cache_dir(cr, req->workdir, req->oid);
	p->tmp = xasprintf("%s.tmp.%ld", p->cache, (long)getpid());
	p->worktree = xasprintf("%s/worktrees/%s", req->workdir, cr->name);
	p->lock = xasprintf("%s.lock", p->worktree);
	p->builddir = xasprintf("%s/builddir/%s-%s", req->workdir, cr->name,
	    p->recipe);
	p->logdir = xasprintf("%s/logs", req->workdir);
	p->log = xasprintf("%s/build-%s-%s.log", p->logdir, p->recipe,
	    req->oid);
}

static void
build_paths_release(struct build_paths *p)
{
	free(p->recipe);
	free(p->cache);
	free(p->tmp);
	free(p->worktree);
	free(p->lock);
	free(p->builddir);
	free(p->logdir);
	free(p->log);
}

static int
build_is_complete(const char *cache)
{
	char	*marker = path_join(cache, BUILD_MARKER);
	int	 rv = file_exists(marker);

	free(marker);
	return rv;
}

/* An artifact names a path inside the tree: relative, no "..". */
static int
build_artifact_valid(const char *a)
{
	const char	*p = a;
	size_t		 n;

	if (*a == '\0' || *a == '/')
		return 0;
	while (*p != '\0') {
		n = strcspn(p, "/");
		if (n == 2 && strncmp(p, "..", 2) == 0)
			return 0;
		p += n;
		if (*p == '/')
			p++;
	}
	return 1;
}

static double
build_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The inherited environment with BUILD_DIR, SRC_DIR and NPROC set. */
static char **
build_env(const char *srcdir, const char *builddir)
{
	char	**env;
	size_t	  n = 0, i;
	long	  nproc = sysconf(_SC_NPROCESSORS_ONLN);

	while (environ[n] != NULL)
		n++;
	env = xcalloc(n + 4, sizeof *env);
	for (n = 0, i = 0; environ[i] != NULL; i++) {
		if (strncmp(environ[i], "BUILD_DIR=", 10) == 0 ||
		    strncmp(environ[i], "SRC_DIR=", 8) == 0 ||
		    strncmp(environ[i], "NPROC=", 6) == 0)
			continue;
		env[n++] = xstrdup(environ[i]);
	}
	env[n++] = xasprintf("BUILD_DIR=%s", builddir);
	env[n++] = xasprintf("SRC_DIR=%s", srcdir);
	env[n++] = xasprintf("NPROC=%ld", nproc > 0 ? nproc : 1);
	env[n] = NULL;
	return env;
}

static void
build_env_free(char **env)
{
	size_t	i;

	for (i = 0; env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

/*
 * Run the command under /bin/sh in its own process group, output to logfd,
 * and wait for it. What it leaves running in its group is killed: it would
 * write into BUILD_DIR under the next build.
 */
static int
build_spawn(const char *cmd, const char *srcdir, const char *builddir,
    int logfd, int *status, char **cause)
{
	char		**env = build_env(srcdir, builddir);
	char		 *argv[] = { "sh", "-c", (char *)cmd, NULL };
	sigset_t	  none;
	siginfo_t	  info;
	pid_t		  pid;
	int		  sig, devnull, rv = -1;

	if ((pid = fork()) == -1) {
		error_errno(cause, "couldn't fork");
		goto out;
	}
	if (pid == 0) {
		setpgid(0, 0);
		for (sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if ((devnull = open("/dev/null", O_RDONLY)) != -1)
			dup2(devnull, 0);
		dup2(logfd, 1);
		dup2(logfd, 2);
		if (chdir(srcdir) == -1) {
			dprintf(2, "bisectd: couldn't enter '%s'\n", srcdir);
			_exit(126);
		}
		execve("/bin/sh", argv, env);
		dprintf(2, "bisectd: couldn't run /bin/sh\n");
		_exit(127);
	}
	setpgid(pid, pid);
	/*
	 * Wait without reaping: while the leader is a zombie its group id
	 * cannot be reused, so the kill reaches only what the build left.
	 */
	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) == -1) {
		if (errno != EINTR) {
			error_errno(cause, "couldn't wait for the build");
			goto out;
		}
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) == -1) {
		if (errno != EINTR) {
			error_errno(cause, "couldn't wait for the build");
			goto out;
		}
	}
	rv = 0;
out:
	build_env_free(env);
	return rv;
}

/* The last lines of the log, for the record. */
static char *
build_log_tail(const char *path)
{
	char	 buf[BUILD_TAIL_BYTES + 1], *p;
	off_t	 size;
	ssize_t	 n;
	int	 fd, lines = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return xstrdup("");
	size = lseek(fd, 0, SEEK_END);
	if (size > BUILD_TAIL_BYTES)
		lseek(fd, size - BUILD_TAIL_BYTES, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, BUILD_TAIL_BYTES);
	close(fd);
	if (n <= 0)
		return xstrdup("");
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	for (p = buf + n; p > buf; p--) {
		if (p[-1] == '\n' && ++lines == BUILD_TAIL_LINES)
			break;
	}
	return xstrdup(p);
}

/* Leftovers of builds of this entry that died before their rename. */
static void
build_remove_stale(const char *cache)
{
	char		*parent = path_dirname(cache), *prefix, *p;
	const char	*base = strrchr(cache, '/') + 1;
	struct dirent	*de;
	DIR		*d;

	if ((d = opendir(parent)) == NULL) {
		free(parent);
		return;
	}
	prefix = xasprintf("%s.tmp.", base);
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		p = path_join(parent, de->d_name);
		dir_remove_tree(p, NULL);
		free(p);
	}
	closedir(d);
	free(prefix);
	free(parent);
}

static int
build_copy_artifact(const struct build_paths *p, const char *a, int in_build,
    char **cause)
{
	struct stat	 st;
	char		*from = NULL, *to, *parent;
	int		 rv = -1;

	if (in_build)
		from = path_join(p->builddir, a);
	if (from == NULL || lstat(from, &st) == -1) {
		free(from);
		from = path_join(p->worktree, a);
		if (lstat(from, &st) == -1) {
			free(from);
			return 1;
		}
	}
	to = path_join(p->tmp, a);
	parent = path_dirname(to);
	if (dir_create(parent, cause) == 0 &&
	    dir_copy_tree(from, to, cause) == 0)
		rv = 0;
	free(parent);
	free(to);
	free(from);
	return rv;
}

/*
 * Fill the temporary entry, mark it complete, flush it and rename it into
 * place. Returns 1 with *missing set when an artifact is not there.
 */
static int
build_collect(const struct config_repo *cr, const struct build_paths *p,
    const char *oid, char **missing, char **cause)
{
	char	*parent = path_dirname(p->cache), *s = NULL, *marker = NULL;
	size_t	 i;
	int	 fd, r, rv = -1;

	build_remove_stale(p->cache);
	if (dir_create(parent, cause) != 0 || dir_create(p->tmp, cause) != 0)
		goto out;
	if (cr->nr_artifacts == 0) {
		if (dir_copy_tree(p->worktree, p->tmp, cause) != 0)
			goto out;
		s = path_join(p->tmp, ".bisectd-checkout");
		unlink(s);
		free(s);
		s = path_join(p->tmp, ".bisectd-index");
		unlink(s);
		free(s);
		s = NULL;
	}
	for (i = 0; i < cr->nr_artifacts; i++) {
		r = build_copy_artifact(p, cr->artifacts[i],
		    cr->build_command != NULL, cause);
		if (r == 1) {
			*missing = xstrdup(cr->artifacts[i]);
			dir_remove_tree(p->tmp, NULL);
			rv = 1;
			goto out;
		}
		if (r != 0)
			goto out;
	}
	marker = path_join(p->tmp, BUILD_MARKER);
	s = xasprintf("%s %s\n", oid, p->recipe);
	if (file_write_atomic(marker, s, strlen(s), cause) != 0)
		goto out;
	if ((fd = open(p->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		syncfs(fd);
		close(fd);
	}
	if (rename(p->tmp, p->cache) == -1) {
		/* Another build of the same entry, or a half one to replace. */
		if (!build_is_complete(p->cache) &&
		    (dir_remove_tree(p->cache, cause) != 0 ||
		    rename(p->tmp, p->cache) == -1)) {
			error_errno(cause, "couldn't rename '%s' to '%s'",
			    p->tmp, p->cache);
			goto out;
		}
		dir_remove_tree(p->tmp, NULL);
	}
	if ((fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		fsync(fd);
		close(fd);
	}
	rv = 0;
out:
	if (rv == -1)
		dir_remove_tree(p->tmp, NULL);
	free(marker);
	free(s);
	free(parent);
	return rv;
}

static int
build_lock(const char *path, int *fdp, char **cause)
{
	char	*dir = path_dirname(path);
	int	 fd, rv = -1;

	if (dir_create(dir, cause) != 0)
		goto out;
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) == -1) {
		error_errno(cause, "couldn't open '%s'", path);
		goto out;
	}
	while (flock(fd, LOCK_EX) == -1) {
		if (errno != EINTR) {
			error_errno(cause, "couldn't lock '%s'", path);
			close(fd);
			goto out;
		}
	}
	*fdp = fd;
	rv = 0;
out:
	free(dir);
	return rv;
}

static void
build_log(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
build_log(int fd, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	dprintf(fd, "bisectd: ");
	vdprintf(fd, fmt, ap);
	dprintf(fd, "\n");
	va_end(ap);
}

/*
 * One build at a time per repository (they share its worktree): the lock
 * is taken before the checkout and held until the artifacts are copied.
 */
int
build_run(const struct build_request *req, struct repo *repo,
    struct build_output *out, char **cause)
{
	const struct config_repo	*cr = req->repo;
	struct build_paths		 p;
	char				*missing = NULL, *failure = NULL;
	char				*config = NULL;
	double				 t0 = build_now();
	size_t				 i;
	int				 lockfd = -1, logfd = -1, status, r;
	int				 rv = -1;

	memset(out, 0, sizeof *out);
	memset(&p, 0, sizeof p);
	for (i = 0; i < cr->nr_artifacts; i++) {
		if (!build_artifact_valid(cr->artifacts[i]))
			return error_set(cause, "artifact '%s' of repository "
			    "'%s' is not a relative path inside the tree",
			    cr->artifacts[i], cr->name);
	}
	build_paths_init(&p, req);
	out->log_path = xstrdup(p.log);
	if (build_is_complete(p.cache))
		goto done;
	if (build_lock(p.lock, &lockfd, cause) != 0)
		goto out;
	if (build_is_complete(p.cache))
		goto done;

	if (repo_checkout(repo, req->oid, p.worktree, cause) != 0) {
		error_prefix(cause, "building '%s'", req->oid);
		goto out;
	}
	if (dir_create(p.builddir, cause) != 0 ||
	    dir_create(p.logdir, cause) != 0)
		goto out;
	logfd = open(p.log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd == -1) {
		error_errno(cause, "couldn't create '%s'", p.log);
		goto out;
	}
	build_log(logfd, "building %s of %s (recipe %s)", req->oid, cr->name,
	    p.recipe);
	if (cr->build_command != NULL) {
		if (cr->kconfig != NULL) {
			config = path_join(p.builddir, ".config");
			if (file_copy(cr->kconfig, config, cause) != 0)
				goto out;
		}
		build_log(logfd, "running: %s", cr->build_command);
		if (build_spawn(cr->build_command, p.worktree, p.builddir,
		    logfd, &status, cause) != 0)
			goto out;
		if (WIFSIGNALED(status))
			failure = xasprintf("build killed by signal %d",
			    WTERMSIG(status));
		else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failure = xasprintf("build exited with status %d",
			    WEXITSTATUS(status));
	} else
		build_log(logfd, "no build command: artifacts come from the "
		    "tree");

	if (failure == NULL) {
		if ((r = build_collect(cr, &p, req->oid, &missing, cause)) < 0)
			goto out;
		if (r == 1)
			failure = xasprintf("artifact '%s' not found", missing);
	}
	if (failure != NULL) {
		build_log(logfd, "%s", failure);
		out->outcome = BUILD_FAILED;
		out->log_tail = missing != NULL ? xstrdup(failure) :
		    build_log_tail(p.log);
	} else {
		build_log(logfd, "done");
		out->log_tail = build_log_tail(p.log);
	}
done:
	if (out->outcome == BUILD_OK)
		out->artifact_dir = xstrdup(p.cache);
	out->seconds = build_now() - t0;
	rv = 0;
out:
	if (rv != 0)
		build_output_release(out);
	if (logfd != -1)
		close(logfd);
	if (lockfd != -1)
		close(lockfd);
	build_paths_release(&p);
	free(config);
	free(missing);
	free(failure);
	return rv;
}

void
build_output_release(struct build_output *out)
{
	if (out == NULL)
		return;
	free(out->artifact_dir);
	free(out->log_path);
	free(out->log_tail);
	memset(out, 0, sizeof *out);
}
