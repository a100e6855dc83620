/*
 * Building a commit into the artifact cache: a free build slot (a
 * persistent worktree and BUILD_DIR) is moved to the commit, the recipe's
 * command runs there, and the artifacts are copied into the cache, complete
 * only once renamed into place. A failed build is a result, not an error.
 * The steps are in docs/design.md, "File notes".
 */
#include <sys/file.h>
#include <sys/prctl.h>
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

#include "bisectd/build-kernel.h"
#include "bisectd/build-cache.h"
#include "bisectd/build-command.h"
#include "bisectd/build.h"
#include "bisectd/builder.h"
#include "bisectd/kconfig.h"
#include "agents/ssh-session.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define BUILD_RECIPE_LEN	16

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
 * another recipe. Only what is there is a field: without a fragment the
 * text is as before fragments existed. The compiler is a field of every
 * recipe with a command (a new compiler must not reuse old artifacts).
 */
char *
build_recipe(const struct config_repo *cr, const char *fragment)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		 hex[HASH_HEX_LEN + 1], *kc = NULL, *target = NULL;
	const char	*cc;
	size_t		 i, len;

	if (cr->build_command != NULL)
		build_field(&sb, "command", cr->build_command,
		    strlen(cr->build_command));
	if (cr->kconfig != NULL) {
		if ((target = kconfig_target(cr->kconfig)) != NULL)
			build_field(&sb, "kconfig-target", target,
			    strlen(target));
		else if (file_read(cr->kconfig, &kc, &len, NULL) == 0)
			build_field(&sb, "kconfig", kc, len);
		else
			build_field(&sb, "kconfig-unreadable", cr->kconfig,
			    strlen(cr->kconfig));
		free(kc);
		free(target);
	}
	if (fragment != NULL && *fragment != '\0')
		build_field(&sb, "kconfig-fragment", fragment,
		    strlen(fragment));
	for (i = 0; i < cr->nr_artifacts; i++)
		build_field(&sb, "artifact", cr->artifacts[i],
		    strlen(cr->artifacts[i]));
	if (cr->build_command != NULL) {
		cc = build_kernel_compiler();
		build_field(&sb, "compiler", cc, strlen(cc));
	}
	hash_sha256_hex(sb.buf, sb.len, hex);
	strbuf_release(&sb);
	hex[BUILD_RECIPE_LEN] = '\0';
	return xstrdup(hex);
}

char *
build_recipe_id(const struct config_repo *cr)
{
	return build_recipe(cr, NULL);
}

char *
build_job_recipe(const struct config_repo *cr, const struct job *job,
    char **fragment)
{
	char	*frag = NULL, *recipe;

	if (job != NULL)
		frag = kconfig_fragment(job);
	recipe = build_recipe(cr, frag);
	if (fragment != NULL)
		*fragment = frag;
	else
		free(frag);
	return recipe;
}

static void
build_paths_init(struct build_paths *p, const struct build_request *req,
    const char *fragment)
{
	const struct config_repo	*cr = req->repo;

	p->recipe = build_recipe(cr, fragment);
	p->cache = build_cache_dir_recipe(cr, req->workdir, p->recipe,
	    req->oid);
	p->tmp = xasprintf("%s.tmp.%ld", p->cache, (long)getpid());
	p->entry_lock = xasprintf("%s.lock", p->cache);
	p->slots = xasprintf("%s/slots/%s", req->workdir, cr->name);
	p->logdir = xasprintf("%s/logs", req->workdir);
	p->log = xasprintf("%s/build-%s-%s.log", p->logdir, p->recipe,
	    req->oid);
	p->slot = -1;
	p->lockfd[0] = p->lockfd[1] = -1;
}

static void
build_paths_release(struct build_paths *p)
{
	free(p->recipe);
	free(p->cache);
	free(p->tmp);
	free(p->entry_lock);
	free(p->slots);
	free(p->worktree);
	free(p->lock);
	free(p->builddir);
	free(p->logdir);
	free(p->log);
	if (p->lockfd[0] != -1)
		close(p->lockfd[0]);
	if (p->lockfd[1] != -1)
		close(p->lockfd[1]);
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

/* Returns 1 when wait is 0 and another holds the lock. */
static int
build_lock(const char *path, int wait, int *fdp, char **cause)
{
	char	*dir = path_dirname(path);
	int	 fd, rv = -1;

	if (dir_create(dir, cause) != 0)
		goto out;
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) == -1) {
		error_errno(cause, "couldn't open '%s'", path);
		goto out;
	}
	while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) == -1) {
		if (errno == EWOULDBLOCK && !wait) {
			close(fd);
			rv = 1;
			goto out;
		}
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

/*
 * Take a free build slot of the repository, or wait for one: slot K is
 * SLOTS/K/tree and SLOTS/K/build-RECIPE, siblings so that the path from
 * the build directory to the tree is the same in every slot (ccache, with
 * its base directory at WORKDIR/slots, hits across slots).
 */
static int
build_slot_take(struct build_paths *p, int nr_slots, char **cause)
{
	char	*lock = NULL;
	int	 k, r = -1;

	if (nr_slots < 1)
		nr_slots = 1;
	for (k = 0; k < nr_slots && p->slot == -1; k++) {
		free(lock);
		lock = xasprintf("%s/%d.lock", p->slots, k);
		if ((r = build_lock(lock, 0, &p->lockfd[1], cause)) < 0)
			goto out;
		if (r == 0)
			p->slot = k;
	}
	if (p->slot == -1) {
		/* all busy: wait for the one this process maps to */
		k = (int)(getpid() % nr_slots);
		free(lock);
		lock = xasprintf("%s/%d.lock", p->slots, k);
		if (build_lock(lock, 1, &p->lockfd[1], cause) != 0)
			goto out;
		p->slot = k;
	}
	p->worktree = xasprintf("%s/%d/tree", p->slots, p->slot);
	p->lock = lock;
	lock = NULL;
	p->builddir = xasprintf("%s/%d/build-%s", p->slots, p->slot,
	    p->recipe);
	r = 0;
out:
	free(lock);
	return r;
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
 * A kernel recipe's .config before the command: the base (the kconfig
 * file, or what `make TARGET` writes, or nothing) with the job's fragment
 * laid over it. Modules installed by an earlier build are removed so that
 * INSTALL_MOD_PATH holds only this build's. Returns 1 when make failed on
 * the target (a failed build), 0 when ready.
 */
static int
build_kernel_config(const struct config_repo *cr, const struct build_paths *p,
    const char *fragment, char *const *extra, int logfd, char **cause)
{
	char	*config = path_join(p->builddir, BUILD_KERNEL_CONFIG);
	char	*target = NULL, *cmd = NULL, *base = NULL, *merged = NULL;
	char	*moddir = path_join(p->builddir, BUILD_KERNEL_MODDIR);
	size_t	 len = 0;
	int	 status, r = -1;

	if (dir_remove_tree(moddir, cause) != 0)
		goto out;
	if (cr->kconfig != NULL &&
	    (target = kconfig_target(cr->kconfig)) != NULL) {
		cmd = xasprintf("make -s O=\"$BUILD_DIR\" %s", target);
		build_log(logfd, "base config: %s", cmd);
		if (build_command_run(cmd, p->worktree, p->builddir,
		    p->lockfd, extra, logfd, &status, cause) != 0)
			goto out;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			build_log(logfd, "make %s failed", target);
			r = 1;
			goto out;
		}
		if (file_read(config, &base, &len, cause) != 0)
			goto out;
	} else if (cr->kconfig != NULL) {
		build_log(logfd, "base config: %s", cr->kconfig);
		if (file_read(cr->kconfig, &base, &len, cause) != 0)
			goto out;
	} else
		build_log(logfd, "base config: none, the fragment alone");
	if (fragment != NULL)
		build_log(logfd, "the job's kconfig:\n%s", fragment);
	merged = kconfig_merge(base != NULL ? base : "", len, fragment);
	if (file_write_atomic(config, merged, strlen(merged), cause) != 0)
		goto out;
	r = 0;
out:
	free(config);
	free(target);
	free(cmd);
	free(base);
	free(merged);
	free(moddir);
	return r;
}

/* What olddefconfig did to the fragment, said in the log. */
static void
build_kernel_check(const struct build_paths *p, const char *fragment,
    int logfd, struct build_output *out)
{
	char	*config = path_join(p->builddir, BUILD_KERNEL_CONFIG);
	char	*buf = NULL;
	size_t	 len;

	if (fragment != NULL && file_read(config, &buf, &len, NULL) == 0 &&
	    (out->kconfig_warnings = kconfig_check(buf, len,
	    fragment)) != NULL)
		build_log(logfd, "warning: the final .config differs from "
		    "the job's kconfig:\n%s", out->kconfig_warnings);
	free(buf);
	free(config);
}

/*
 * The entry's recorded hash and release, and the first parent whose entry
 * of the same recipe has the same image: then the commit cannot have
 * changed what runs.
 */
static void
build_note_image(const struct build_request *req, struct repo *repo,
    const struct build_paths *p, int logfd, struct build_output *out)
{
	struct build_kernel_meta	 meta, pm;
	char				 parent[REPO_OID_HEX + 1];
	char				*rev, *dir = NULL;

	memset(&pm, 0, sizeof pm);
	if (build_kernel_meta_read(p->cache, &meta) != 0)
		return;
	out->image_hash = meta.image_hash;
	out->kernel_release = meta.kernel_release;
	out->artifacts_hash = meta.artifacts_hash;
	rev = xasprintf("%s^1", req->oid);
	if (repo_resolve(repo, rev, parent, NULL) == 0) {
		dir = build_cache_dir_recipe(req->repo, req->workdir,
		    p->recipe, parent);
		if (build_cache_complete(dir) &&
		    build_kernel_meta_read(dir, &pm) == 0 &&
		    pm.image_hash != NULL && out->image_hash != NULL &&
		    strcmp(pm.image_hash, out->image_hash) == 0) {
			out->same_as = xstrdup(parent);
			if (logfd != -1)
				build_log(logfd, "the image is identical to "
				    "the build of the parent %s: this commit "
				    "cannot have changed what runs", parent);
		}
	}
	build_kernel_meta_release(&pm);
	free(rev);
	free(dir);
}

/* The build's log, opened once (its directory made first). */
static int
build_log_open(const struct build_paths *p, int *logfd, char **cause)
{
	if (*logfd != -1)
		return 0;
	if (dir_create(p->logdir, cause) != 0)
		return -1;
	*logfd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (*logfd == -1)
		return error_errno(cause, "couldn't create '%s'", p->log);
	return 0;
}

static void
build_remote_job(const struct build_request *req,
    const struct build_paths *p, const struct builder_slot *slot,
    struct repo *repo, const char *fragment, int kernel, int logfd,
    struct builder_job *job)
{
	memset(job, 0, sizeof *job);
	job->slot = slot;
	job->repo = req->repo;
	job->git = repo;
	job->oid = req->oid;
	job->recipe = p->recipe;
	job->fragment = fragment;
	job->kernel = kernel;
	job->tmp = p->tmp;
	job->logfd = logfd;
}

/*
 * A builder's finished build: a failed one is the commit's (*failure),
 * a good one is checked (a kernel's .config) and sealed into the cache;
 * the builder's counts say which.
 */
static int
build_remote_result(const struct build_request *req, struct build_paths *p,
    const char *builder, struct builder_result *res, const char *fragment,
    int kernel, int logfd, struct build_output *out, char **failure,
    char **missing, char **cause)
{
	if (res->failure != NULL) {
		dir_remove_tree(p->tmp, NULL);
		*failure = res->failure;
		res->failure = NULL;
		*missing = res->missing;
		res->missing = NULL;
		builder_state_note(req->workdir, builder, BUILDER_UP, NULL,
		    res->host_key, 0, BUILDER_COUNT_FAILED);
		return 0;
	}
	if (kernel) {
		/* what olddefconfig did, read from the downloaded .config */
		free(p->builddir);
		p->builddir = xstrdup(p->tmp);
		build_kernel_check(p, fragment, logfd, out);
	}
	if (build_cache_seal(req->repo, p, req->oid, res->kernel_release,
	    cause) != 0) {
		builder_state_note(req->workdir, builder, BUILDER_UP, NULL,
		    res->host_key, 0, BUILDER_COUNT_ERROR);
		return -1;
	}
	builder_state_note(req->workdir, builder, BUILDER_UP, NULL,
	    res->host_key, 0, BUILDER_COUNT_OK);
	return 0;
}

/*
 * The build on a builder: 1 when no builder is free (build here), 0 when
 * it ran to an outcome (out->outcome, *failure), -1 when the attempt
 * failed on a builder that was reached.
 */
static int
build_remote(const struct build_request *req, const char *fragment,
    struct build_paths *p, int kernel, struct repo *repo,
    struct build_output *out, char **failure, char **missing, int *logfd,
    char **cause)
{
	struct builder_slot	 slot;
	struct builder_job	 job;
	struct builder_result	 res;
	char			*skip = xcalloc(req->nr_builders + 1, 1);
	char			*err = NULL, *why = NULL;
	int			 connected, r, rv = -1;
	size_t			 i;

	memset(&res, 0, sizeof res);
	memset(&slot, 0, sizeof slot);
	slot.lockfd = -1;
	for (;;) {
		builder_slot_release(&slot);
		builder_result_release(&res);
		free(err);
		err = NULL;
		r = builder_slot_take(req->workdir, req->builders, req->nr_builders,
		    skip, &slot, cause);
		if (r != 0) {
			rv = r;
			goto out;
		}
		for (i = 0; i < req->nr_builders; i++) {
			if (slot.builder == &req->builders[i])
				skip[i] = 1;
		}
		if (build_log_open(p, logfd, cause) != 0)
			goto out;
		build_log(*logfd, "building %s of %s (recipe %s) on builder "
		    "'%s', slot %d", req->oid, req->repo->name, p->recipe,
		    slot.builder->name, slot.slot);
		build_cache_remove_stale(p->cache);
		why = path_dirname(p->cache);
		r = dir_create(why, cause);
		free(why);
		why = NULL;
		if (r != 0)
			goto out;
		dir_remove_tree(p->tmp, NULL);
		build_remote_job(req, p, &slot, repo, fragment, kernel, *logfd,
		    &job);
		r = builder_build(&job, &res, &connected, &err);
		if (r == SSH_SESSION_REFUSED || (r != 0 && !connected)) {
			/* nothing was built there: the next one, at once */
			log_warn("builder '%s': %s; building elsewhere",
			    slot.builder->name, err);
			build_log(*logfd, "builder '%s' %s: %s; building "
			    "elsewhere", slot.builder->name,
			    r == SSH_SESSION_REFUSED ? "refused us" :
			    "not reached", err);
			builder_state_note(req->workdir, slot.builder->name,
			    r == SSH_SESSION_REFUSED ? BUILDER_REFUSED :
			    BUILDER_DOWN, err, NULL,
			    slot.builder->probe_interval, BUILDER_COUNT_ERROR);
			continue;
		}
		break;
	}
	if (r != 0) {
		dir_remove_tree(p->tmp, NULL);
		builder_state_note(req->workdir, slot.builder->name,
		    BUILDER_DOWN, err, res.host_key,
		    slot.builder->probe_interval, BUILDER_COUNT_ERROR);
		error_set(cause, "%s", err);
		goto out;
	}
	rv = build_remote_result(req, p, slot.builder->name, &res, fragment,
	    kernel, *logfd, out, failure, missing, cause);
out:
	builder_slot_release(&slot);
	builder_result_release(&res);
	free(skip);
	free(err);
	return rv;
}

/*
 * One build at a time per entry, and per slot (a worktree): the entry's
 * lock, then a slot's, are taken before the checkout and held until the
 * artifacts are copied. The entry is looked at again under its lock: a
 * build of the same entry that held it has filled it.
 */
int
build_run(const struct build_request *req, struct repo *repo,
    struct build_output *out, char **cause)
{
	return build_run_kconfig(req, NULL, NULL, repo, out, cause);
}

/*
 * A local build's slot moved to the commit, its directories made and its
 * log open (the remote attempt's, when one was tried first).
 */
static int
build_local_prepare(const struct build_request *req, struct build_paths *p,
    struct repo *repo, int *logfd, char **cause)
{
	if (build_slot_take(p, req->slots, cause) != 0)
		return -1;
	if (repo_checkout(repo, req->oid, p->worktree, cause) != 0) {
		error_prefix(cause, "building '%s'", req->oid);
		return -1;
	}
	if (dir_create(p->builddir, cause) != 0 ||
	    build_log_open(p, logfd, cause) != 0)
		return -1;
	build_log(*logfd, "building %s of %s (recipe %s) in slot %d",
	    req->oid, req->repo->name, p->recipe, p->slot);
	return 0;
}

/*
 * The recipe's command in the slot (a kernel's .config first, its image
 * checked after). A failure of the commit sets *failure; -1 is an error
 * of the attempt.
 */
static int
build_run_command(const struct config_repo *cr, struct build_paths *p,
    const char *fragment, int kernel, char **extra, int logfd,
    struct build_output *out, char **failure, char **cause)
{
	int	status, r;

	if (cr->build_command == NULL) {
		build_log(logfd, "no build command: artifacts come from the "
		    "tree");
		return 0;
	}
	if (kernel && (r = build_kernel_config(cr, p, fragment, extra, logfd,
	    cause)) != 0) {
		if (r < 0)
			return -1;
		*failure = xstrdup("the base config's make target failed");
	}
	if (*failure == NULL) {
		build_log(logfd, "running: %s", cr->build_command);
		if (build_command_run(cr->build_command, p->worktree,
		    p->builddir, p->lockfd, extra, logfd, &status,
		    cause) != 0)
			return -1;
		/*
		 * A signal is the machine's doing (the OOM killer, a stop),
		 * not the commit's: an error of this attempt, retried up to
		 * max_attempts, not an untestable commit.
		 */
		if (WIFSIGNALED(status)) {
			build_log(logfd, "build killed by signal %d: tried "
			    "again", WTERMSIG(status));
			return error_set(cause, "build killed by signal %d",
			    WTERMSIG(status));
		} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			*failure = xasprintf("build exited with status %d",
			    WEXITSTATUS(status));
	}
	if (*failure == NULL && kernel)
		build_kernel_check(p, fragment, logfd, out);
	return 0;
}

int
build_run_kconfig(const struct build_request *req, const char *fragment,
    const char *recipe, struct repo *repo, struct build_output *out,
    char **cause)
{
	const struct config_repo	*cr = req->repo;
	struct build_paths		 p;
	char				*missing = NULL, *failure = NULL;
	char				**extra = NULL;
	double				 t0 = build_now();
	size_t				 i;
	int				 logfd = -1, r;
	int				 kernel, remote = 0, rv = -1;

	memset(out, 0, sizeof *out);
	memset(&p, 0, sizeof p);
	for (i = 0; i < cr->nr_artifacts; i++) {
		if (!build_artifact_valid(cr->artifacts[i]))
			return error_set(cause, "artifact '%s' of repository "
			    "'%s' is not a relative path inside the tree",
			    cr->artifacts[i], cr->name);
	}
	build_paths_init(&p, req, fragment);
	if (recipe != NULL && strcmp(recipe, p.recipe) != 0) {
		error_set(cause, "the build's recipe '%s' is not the "
		    "config's '%s' for repository '%s': the build recipe, the "
		    "job's kconfig or the compiler changed", recipe,
		    p.recipe, cr->name);
		goto out;
	}
	kernel = cr->kconfig != NULL || fragment != NULL;
	out->log_path = xstrdup(p.log);
	if (build_cache_complete(p.cache))
		goto done;
	if (build_lock(p.entry_lock, 1, &p.lockfd[0], cause) != 0)
		goto out;
	if (build_cache_complete(p.cache))
		goto done;
	if (req->nr_builders > 0) {
		if ((r = build_remote(req, fragment, &p, kernel, repo, out,
		    &failure, &missing, &logfd, cause)) < 0)
			goto out;
		if (r == 0) {
			remote = 1;
			goto outcome;
		}
		if (logfd != -1)
			build_log(logfd, "no builder free: building here");
	}
	if (build_local_prepare(req, &p, repo, &logfd, cause) != 0)
		goto out;
	extra = build_kernel_env(req->workdir, p.builddir, kernel);
	if (build_run_command(cr, &p, fragment, kernel, extra, logfd, out,
	    &failure, cause) != 0)
		goto out;

	if (failure == NULL) {
		if ((r = build_cache_collect(cr, &p, req->oid, kernel, &missing,
		    cause)) < 0)
			goto out;
		if (r == 1)
			failure = xasprintf("artifact '%s' not found", missing);
	}
outcome:
	builder_state_note(req->workdir, BUILDER_LOCAL, BUILDER_KEEP, NULL,
	    NULL, 0, remote ? BUILDER_COUNT_NONE : failure != NULL ?
	    BUILDER_COUNT_FAILED : BUILDER_COUNT_OK);
	if (failure != NULL) {
		build_log(logfd, "%s", failure);
		out->outcome = BUILD_FAILED;
		out->log_tail = missing != NULL ? xstrdup(failure) :
		    build_command_log_tail(p.log);
	} else {
		build_note_image(req, repo, &p, logfd, out);
		build_log(logfd, "done: image %s%s%s", out->image_hash,
		    out->kernel_release != NULL ? ", kernel " : "",
		    out->kernel_release != NULL ? out->kernel_release : "");
		out->log_tail = build_command_log_tail(p.log);
	}
done:
	if (out->outcome == BUILD_OK) {
		out->artifact_dir = xstrdup(p.cache);
		if (out->image_hash == NULL)
			build_note_image(req, repo, &p, -1, out);
	}
	out->seconds = build_now() - t0;
	rv = 0;
out:
	if (rv != 0)
		build_output_release(out);
	if (logfd != -1)
		close(logfd);
	build_kernel_env_free(extra);
	build_paths_release(&p);
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
	free(out->image_hash);
	free(out->kernel_release);
	free(out->artifacts_hash);
	free(out->same_as);
	free(out->kconfig_warnings);
	memset(out, 0, sizeof *out);
}
