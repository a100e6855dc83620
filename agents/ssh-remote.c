/*
 * The ssh transport's work on a test machine (ssh-remote.h): the layout
 * under remote_dir, uploads renamed into place once complete, the one
 * quoted command that runs an attempt under a pseudo-terminal, its log
 * streamed into RUN_DIR/agent.log and its result fetched by SFTP into
 * RUN_DIR/result. docs/agents.md, "ssh", describes each step.
 */
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/result.h"
#include "agents/ssh-exec.h"
#include "agents/ssh-remote.h"
#include "agents/ssh-session.h"
#include "agents/ssh-sftp.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/xalloc.h"

#define REMOTE_LOG_TAIL		2000
#define REMOTE_MAX_INFO		(1u << 20)
#define REMOTE_INFO_TIMEOUT	60.0

struct remote_artifact {
	char	*dir;			/* local */
	char	 hash[HASH_HEX_LEN + 1];
};

struct ssh_remote {
	struct ssh_session	 *s;
	char			 *agent;
	char			 *remote_dir;
	char			 *agent_path;
	enum boot_method	  boot;
	char			**disks;	/* --disk arguments */
	size_t			  nr_disks;

	pthread_mutex_t		  mu;	/* everything below */
	char			 *base;	/* absolute; NULL: not prepared */
	char			  agent_hash[HASH_HEX_LEN + 1];
	char			 *agent_remote;	/* NULL: not uploaded */
	struct remote_artifact	 *hashes;	/* local dir -> hash */
	size_t			  nr_hashes;
	size_t			  alloc_hashes;
	char			**uploaded;	/* artifact hashes there */
	size_t			  nr_uploaded;
	size_t			  alloc_uploaded;
	char			**cleanup;	/* remote dirs to remove */
	size_t			  nr_cleanup;
	size_t			  alloc_cleanup;
	int			  swept;	/* stale runs removed */
};

struct ssh_remote *
ssh_remote_new(struct ssh_session *s, const char *agent,
    const char *remote_dir, const char *agent_path)
{
	struct ssh_remote	*r = xcalloc(1, sizeof *r);

	r->s = s;
	r->agent = xstrdup(agent);
	r->remote_dir = xstrdup(remote_dir != NULL ? remote_dir : ".bisectd");
	r->agent_path = xstrdup(agent_path);
	pthread_mutex_init(&r->mu, NULL);
	return r;
}

void
ssh_remote_free(struct ssh_remote *r)
{
	size_t	i;

	if (r == NULL)
		return;
	pthread_mutex_destroy(&r->mu);
	for (i = 0; i < r->nr_hashes; i++)
		free(r->hashes[i].dir);
	free(r->hashes);
	for (i = 0; i < r->nr_uploaded; i++)
		free(r->uploaded[i]);
	free(r->uploaded);
	for (i = 0; i < r->nr_cleanup; i++)
		free(r->cleanup[i]);
	free(r->cleanup);
	for (i = 0; i < r->nr_disks; i++)
		free(r->disks[i]);
	free(r->disks);
	free(r->agent);
	free(r->remote_dir);
	free(r->agent_path);
	free(r->base);
	free(r->agent_remote);
	free(r);
}

void
ssh_remote_set_boot(struct ssh_remote *r, enum boot_method boot)
{
	r->boot = boot;
}

void
ssh_remote_set_disks(struct ssh_remote *r, char *const *disks, size_t nr)
{
	size_t	i;

	for (i = 0; i < r->nr_disks; i++)
		free(r->disks[i]);
	free(r->disks);
	r->disks = xcalloc(nr + 1, sizeof *r->disks);
	for (i = 0; i < nr; i++)
		r->disks[i] = xstrdup(disks[i]);
	r->nr_disks = nr;
}

struct ssh_session *
ssh_remote_session(struct ssh_remote *r)
{
	return r->s;
}

void
ssh_remote_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

static void
ssh_remote_random_hex(char out[17])
{
	unsigned char	b[8];
	size_t		i;

	if (getrandom(b, sizeof b, 0) != sizeof b) {
		unsigned long	x = (unsigned long)getpid() ^
				    (unsigned long)ssh_session_now();

		memcpy(b, &x, sizeof b < sizeof x ? sizeof b : sizeof x);
	}
	for (i = 0; i < sizeof b; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* Names, kinds, modes and contents, in name order: a set's identity. */
static int
ssh_remote_hash_visit(const struct dir_walk_entry *e, void *arg, char **cause)
{
	struct hash	*h = arg;
	char		*head;

	if (S_ISDIR(e->st->st_mode)) {
		head = xasprintf("d %s\n", e->rel);
		hash_update(h, head, strlen(head) + 1);
		free(head);
		return 0;
	}
	if (!S_ISREG(e->st->st_mode))
		return error_set(cause, "refusing to upload '%s': not a "
		    "regular file or a directory", e->path);
	head = xasprintf("f %s %o %lld\n", e->rel,
	    (unsigned)(e->st->st_mode & 0777), (long long)e->st->st_size);
	hash_update(h, head, strlen(head) + 1);
	free(head);
	return hash_file(h, e->path, 1, cause);
}

static int
ssh_remote_hash(const char *path, int tree, char out[HASH_HEX_LEN + 1],
    char **cause)
{
	struct hash	*h = hash_new();
	struct dir_walk	 w = {
		ssh_remote_hash_visit, NULL, h, SSH_SFTP_MAX_DEPTH,
	};
	int		 r;

	r = tree ? dir_walk(path, &w, cause) : hash_file(h, path, 1, cause);
	if (r == 0)
		hash_finish(h, out);
	else
		hash_free(h);
	return r;
}

/* With r->mu held: the directories, once per connection. */
static int
ssh_remote_prepare_locked(struct ssh_remote *r, double deadline, char **cause)
{
	static const char	*subdirs[] = { "bin", "artifacts", "runs" };
	char			*home = NULL, *p = NULL;
	size_t			 i;
	int			 ret = -1;

	if (r->base != NULL)
		return 0;
	if (r->remote_dir[0] == '/')
		p = xstrdup(r->remote_dir);
	else {
		if (ssh_sftp_realpath(r->s, ".", &home, deadline, cause) != 0)
			goto out;
		p = path_join(home, r->remote_dir);
	}
	if (ssh_sftp_mkdir_p(r->s, p, 0700, deadline, cause) != 0)
		goto out;
	for (i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++) {
		char	*d = path_join(p, subdirs[i]);
		int	 k = ssh_sftp_mkdir(r->s, d, 0700, deadline, cause);

		free(d);
		if (k != 0)
			goto out;
	}
	r->base = p;
	p = NULL;
	ret = 0;
out:
	free(home);
	free(p);
	return ret;
}

/* Upload local to a temporary name next to final, then rename it there. */
static int
ssh_remote_install(struct ssh_remote *r, const char *local, const char *final,
    int tree, double deadline, char **cause)
{
	char	 rnd[17], *dir = path_dirname(final), *tmp, *name;
	int	 exists, ret = -1;

	ssh_remote_random_hex(rnd);
	name = xasprintf(".tmp-%s", rnd);
	tmp = path_join(dir, name);
	if (tree)
		ret = ssh_sftp_put_tree(r->s, local, tmp, deadline, cause);
	else
		ret = ssh_sftp_put_file(r->s, local, tmp, 0755, deadline,
		    cause);
	if (ret == 0)
		ret = ssh_sftp_rename(r->s, tmp, final, &exists, deadline,
		    cause);
	if (ret != 0 || exists) {
		/* another upload won, or this one failed: sweep it later */
		ALLOC_GROW(r->cleanup, r->nr_cleanup, r->alloc_cleanup);
		r->cleanup[r->nr_cleanup++] = tmp;
		tmp = NULL;
	}
	free(tmp);
	free(name);
	free(dir);
	return ret;
}

static int
ssh_remote_ensure_agent(struct ssh_remote *r, double deadline, char **cause)
{
	unsigned long long	 size;
	unsigned long		 mode;
	struct stat		 st;
	char			*path = NULL, *file = NULL;
	int			 exists, ret = -1;

	if (r->agent_remote != NULL)
		return 0;
	if (stat(r->agent_path, &st) != 0) {
		error_errno(cause, "the agent program '%s'", r->agent_path);
		goto out;
	}
	if (r->agent_hash[0] == '\0' &&
	    ssh_remote_hash(r->agent_path, 0, r->agent_hash, cause) != 0)
		goto out;
	file = xasprintf("bisect-agent-%.16s", r->agent_hash);
	path = xasprintf("%s/bin/%s", r->base, file);
	if (ssh_sftp_stat(r->s, path, &exists, &size, &mode, deadline,
	    cause) != 0)
		goto out;
	if (!exists || size != (unsigned long long)st.st_size ||
	    (mode & 0111) == 0) {
		if (ssh_remote_install(r, r->agent_path, path, 0, deadline,
		    cause) != 0) {
			error_prefix(cause, "uploading the agent program");
			goto out;
		}
	}
	r->agent_remote = path;
	path = NULL;
	ret = 0;
out:
	free(path);
	free(file);
	return ret;
}

/* The remote directory holding the artifact set of local dir. */
static int
ssh_remote_ensure_artifacts(struct ssh_remote *r, const char *dir, char **out,
    double deadline, char **cause)
{
	struct remote_artifact	*a = NULL;
	char			*path = NULL;
	size_t			 i;
	int			 exists, ret = -1;

	for (i = 0; i < r->nr_hashes; i++) {
		if (strcmp(r->hashes[i].dir, dir) == 0)
			a = &r->hashes[i];
	}
	if (a == NULL) {
		ALLOC_GROW(r->hashes, r->nr_hashes, r->alloc_hashes);
		a = &r->hashes[r->nr_hashes];
		if (ssh_remote_hash(dir, 1, a->hash, cause) != 0) {
			error_prefix(cause, "the artifacts");
			goto out;
		}
		a->dir = xstrdup(dir);
		r->nr_hashes++;
	}
	path = xasprintf("%s/artifacts/%s", r->base, a->hash);
	for (i = 0; i < r->nr_uploaded; i++) {
		if (strcmp(r->uploaded[i], a->hash) == 0)
			goto done;
	}
	if (ssh_sftp_stat(r->s, path, &exists, NULL, NULL, deadline,
	    cause) != 0)
		goto out;
	if (!exists && ssh_remote_install(r, dir, path, 1, deadline,
	    cause) != 0) {
		error_prefix(cause, "uploading the artifacts");
		goto out;
	}
	ALLOC_GROW(r->uploaded, r->nr_uploaded, r->alloc_uploaded);
	r->uploaded[r->nr_uploaded++] = xstrdup(a->hash);
done:
	*out = path;
	path = NULL;
	ret = 0;
out:
	free(path);
	return ret;
}

/* "rm -rf -- OLD...; " for attempts that are over, and a stale sweep. */
static void
ssh_remote_cleanup_words(struct ssh_remote *r, struct strbuf *sb)
{
	size_t	i;
	char	*runs;

	if (r->nr_cleanup > 0) {
		strbuf_addstr(sb, "rm -rf --");
		for (i = 0; i < r->nr_cleanup; i++) {
			strbuf_addch(sb, ' ');
			ssh_remote_quote(sb, r->cleanup[i]);
			free(r->cleanup[i]);
		}
		strbuf_addstr(sb, "; ");
		r->nr_cleanup = 0;
	}
	if (!r->swept) {
		/* attempts left by connections that died, a day on */
		runs = path_join(r->base, "runs");
		strbuf_addstr(sb, "find ");
		ssh_remote_quote(sb, runs);
		strbuf_addstr(sb, " -mindepth 1 -maxdepth 1 -mtime +0 -exec "
		    "rm -rf -- {} + 2>/dev/null; ");
		free(runs);
		r->swept = 1;
	}
}

/* exec /bin/sh -c 'INNER': the login shell parses only that. */
static char *
ssh_remote_command(const struct strbuf *inner)
{
	struct strbuf	sb = STRBUF_INIT;

	strbuf_addstr(&sb, "exec /bin/sh -c ");
	ssh_remote_quote(&sb, inner->buf);
	return strbuf_detach(&sb, NULL);
}

/* Local preparation: RUN_DIR/job.yaml, no stale result, a fresh log. */
static int
ssh_remote_local_prepare(const struct transport_job *job, int *logfd,
    char **cause)
{
	char	*path = NULL;
	int	 r = -1;

	if (transport_run_dir_prepare(job, cause) != 0)
		goto out;
	path = path_join(job->run_dir, "agent.log");
	*logfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (*logfd == -1) {
		error_errno(cause, "couldn't create '%s'", path);
		goto out;
	}
	r = 0;
out:
	free(path);
	return r;
}

/* With r->mu held: everything the attempt needs over there. */
static int
ssh_remote_stage(struct ssh_remote *r, const struct transport_job *job,
    const char *rdir, struct strbuf *inner, double deadline, char **cause)
{
	char	*art = NULL, *work = NULL, *jobpath = NULL, *res = NULL;
	char	*from = NULL;
	size_t	 i;
	int	 ret = -1;

	if (ssh_remote_prepare_locked(r, deadline, cause) != 0 ||
	    ssh_remote_ensure_agent(r, deadline, cause) != 0)
		goto out;
	if (job->artifact_dir != NULL && ssh_remote_ensure_artifacts(r,
	    job->artifact_dir, &art, deadline, cause) != 0)
		goto out;
	if (ssh_sftp_mkdir(r->s, rdir, 0700, deadline, cause) != 0)
		goto out;
	jobpath = path_join(rdir, "job.yaml");
	if (ssh_sftp_put_buffer(r->s, job->job_text, strlen(job->job_text),
	    jobpath, 0600, deadline, cause) != 0)
		goto out;
	work = path_join(rdir, "work");
	res = path_join(rdir, "result");
	strbuf_addstr(inner, "umask 022; ");
	ssh_remote_cleanup_words(r, inner);
	strbuf_addstr(inner, "mkdir -p -- ");
	ssh_remote_quote(inner, work);
	strbuf_addstr(inner, " && ");
	if (art != NULL) {
		from = path_join(art, ".");
		strbuf_addstr(inner, "cp -pR -- ");
		ssh_remote_quote(inner, from);
		strbuf_addch(inner, ' ');
		ssh_remote_quote(inner, work);
		strbuf_addstr(inner, "/ && ");
	}
	strbuf_addstr(inner, "exec ");
	ssh_remote_quote(inner, r->agent_remote);
	strbuf_addstr(inner, " run --workdir ");
	ssh_remote_quote(inner, work);
	if (r->boot == BOOT_QEMU)
		strbuf_addstr(inner, " --boot qemu");
	for (i = 0; i < r->nr_disks; i++) {
		strbuf_addstr(inner, " --disk ");
		ssh_remote_quote(inner, r->disks[i]);
	}
	strbuf_addch(inner, ' ');
	ssh_remote_quote(inner, jobpath);
	strbuf_addch(inner, ' ');
	ssh_remote_quote(inner, res);
	ret = 0;
out:
	free(art);
	free(work);
	free(jobpath);
	free(res);
	free(from);
	return ret;
}

/*
 * Exit 126 or 127 from the command that starts the agent: the shell over
 * there could not run the program it was given (not executable there, or
 * it, its interpreter or its dynamic loader is missing). The machine's
 * set-up is at fault, and no retry changes it: the agent is refused.
 */
static int
ssh_remote_cannot_run(const struct ssh_remote *r,
    const struct ssh_exec_exit *ex, const char *err, char **cause)
{
	if (ex->signal != NULL || (ex->status != 126 && ex->status != 127))
		return 0;
	error_set(cause, "agent '%s': the agent program '%s' cannot be run "
	    "there (exit %d%s%s): %s", r->agent, r->agent_remote != NULL ?
	    r->agent_remote : r->agent_path, ex->status, err != NULL &&
	    *err != '\0' ? ": " : "", err != NULL ? err : "",
	    ex->status == 126 ? "it is not executable there; is remote_dir "
	    "on a noexec mount?" : "it, its interpreter or a library it "
	    "needs is missing on that machine");
	return 1;
}

static char *
ssh_remote_describe_exit(const struct ssh_exec_exit *ex)
{
	if (ex->signal != NULL)
		return xasprintf("was killed by signal %s", ex->signal);
	return xasprintf("exited with status %d", ex->status);
}

/* A run's remote directory, removed once the connection is idle. */
static void
ssh_remote_cleanup_add(struct ssh_remote *r, char *rdir)
{
	pthread_mutex_lock(&r->mu);
	ALLOC_GROW(r->cleanup, r->nr_cleanup, r->alloc_cleanup);
	r->cleanup[r->nr_cleanup++] = rdir;
	pthread_mutex_unlock(&r->mu);
}

/*
 * The run's directory over there (*rdir, a name of its own under runs/)
 * with the job staged in it, and the agent's command line in *inner.
 */
static int
ssh_remote_run_stage(struct ssh_remote *r, const struct transport_job *job,
    char **rdir, struct strbuf *inner, double deadline, char **why)
{
	char	rnd[17], id[HASH_HEX_LEN + 1];
	int	ret;

	hash_sha256_hex(job->run_dir, strlen(job->run_dir), id);
	ssh_remote_random_hex(rnd);
	pthread_mutex_lock(&r->mu);
	if (ssh_remote_prepare_locked(r, deadline, why) != 0) {
		pthread_mutex_unlock(&r->mu);
		return -1;
	}
	*rdir = xasprintf("%s/runs/%.12s-%s", r->base, id, rnd);
	ret = ssh_remote_stage(r, job, *rdir, inner, deadline, why);
	pthread_mutex_unlock(&r->mu);
	return ret != 0 ? -1 : 0;
}

int
ssh_remote_run(struct ssh_remote *r, const struct transport_job *job,
    int cancel_fd, struct result **out, char **cause)
{
	struct strbuf		 inner = STRBUF_INIT, sb = STRBUF_INIT;
	struct ssh_exec_sink	 k;
	struct ssh_exec_exit	 ex;
	struct result		*res = NULL;
	char			*rdir = NULL, *cmd = NULL, *remote_res = NULL;
	char			*local_res = NULL, *log = NULL, *why = NULL;
	char			*how = NULL, *dl_why = NULL;
	double			 deadline;
	int			 logfd = -1, skipped = 0, ret = -1;

	memset(&ex, 0, sizeof ex);
	deadline = job->timeout > 0 ? ssh_session_now() + job->timeout : 0;
	if (ssh_remote_local_prepare(job, &logfd, &why) != 0)
		goto fail;
	log = path_join(job->run_dir, "agent.log");
	local_res = path_join(job->run_dir, "result");
	if (ssh_remote_run_stage(r, job, &rdir, &inner, deadline, &why) != 0)
		goto fail;
	cmd = ssh_remote_command(&inner);
	memset(&k, 0, sizeof k);
	k.fd = logfd;
	k.crlf = 1;
	if (ssh_exec_run(r->s, cmd, 1, &k, deadline, cancel_fd, &ex, &why) != 0) {
		if (strcmp(why, "timed out") == 0) {
			strbuf_addf(&sb, "agent '%s': run timed out after %us",
			    r->agent, job->timeout);
			file_tail_append(&sb, log, REMOTE_LOG_TAIL);
			error_set(cause, "%s", sb.buf);
			goto out;
		}
		goto fail;
	}
	remote_res = path_join(rdir, "result");
	if (ssh_sftp_get_tree(r->s, remote_res, local_res, &skipped, deadline,
	    &why) != 0) {
		if (ssh_session_dead(r->s, NULL))
			goto fail;
		/* said below if the result is not usable (a cap, say) */
		dl_why = why;
		why = NULL;
	}
	ssh_remote_cleanup_add(r, rdir);
	rdir = NULL;
	if (skipped > 0)
		dprintf(logfd, "bisectd: %d entries of the result directory "
		    "were not fetched (not regular files, or bad names)\n",
		    skipped);
	free(why);
	why = NULL;
	if (result_load(local_res, &res, &why) != 0) {
		if (ssh_remote_cannot_run(r, &ex, NULL, cause)) {
			strbuf_addstr(&sb, *cause);
			file_tail_append(&sb, log, REMOTE_LOG_TAIL);
			error_set(cause, "%s", sb.buf);
			ret = SSH_SESSION_REFUSED;
			goto out;
		}
		how = ssh_remote_describe_exit(&ex);
		strbuf_addf(&sb, "agent '%s': bisect-agent %s without a usable "
		    "result (%s)", r->agent, how, dl_why != NULL ? dl_why : why);
		file_tail_append(&sb, log, REMOTE_LOG_TAIL);
		error_set(cause, "%s", sb.buf);
		goto out;
	}
	if (out != NULL) {
		*out = res;
		res = NULL;
	}
	ret = 0;
	goto out;
fail:
	error_set(cause, "agent '%s': %s", r->agent, why != NULL ? why :
	    "failed");
out:
	if (rdir != NULL)
		ssh_remote_cleanup_add(r, rdir);
	if (logfd != -1)
		close(logfd);
	result_free(res);
	strbuf_release(&inner);
	strbuf_release(&sb);
	free(cmd);
	free(dl_why);
	free(remote_res);
	free(local_res);
	free(log);
	free(why);
	free(how);
	free(ex.signal);
	return ret;
}

int
ssh_remote_info(struct ssh_remote *r, char **out, char **cause)
{
	struct strbuf		 inner = STRBUF_INIT, o = STRBUF_INIT;
	struct strbuf		 e = STRBUF_INIT;
	struct ssh_exec_sink	 k;
	struct ssh_exec_exit	 ex;
	char			*cmd = NULL, *why = NULL, *how = NULL;
	double			 deadline;
	int			 ret = -1;

	memset(&ex, 0, sizeof ex);
	deadline = ssh_session_now() + REMOTE_INFO_TIMEOUT;
	pthread_mutex_lock(&r->mu);
	ret = ssh_remote_prepare_locked(r, deadline, &why) == 0 &&
	    ssh_remote_ensure_agent(r, deadline, &why) == 0 ? 0 : -1;
	if (ret == 0) {
		ssh_remote_cleanup_words(r, &inner);
		strbuf_addstr(&inner, "exec ");
		ssh_remote_quote(&inner, r->agent_remote);
		strbuf_addstr(&inner, " info");
	}
	pthread_mutex_unlock(&r->mu);
	if (ret != 0)
		goto fail;
	ret = -1;
	cmd = ssh_remote_command(&inner);
	memset(&k, 0, sizeof k);
	k.fd = -1;
	k.out = &o;
	k.err = &e;
	k.max = REMOTE_MAX_INFO;
	if (ssh_exec_run(r->s, cmd, 0, &k, deadline, -1, &ex, &why) != 0)
		goto fail;
	strbuf_rtrim(&e);
	if (ssh_remote_cannot_run(r, &ex, e.buf, cause)) {
		ret = SSH_SESSION_REFUSED;
		goto out;
	}
	if (ex.status != 0) {
		how = ssh_remote_describe_exit(&ex);
		error_set(cause, "agent '%s': bisect-agent info %s%s%s",
		    r->agent, how, e.len ? ": " : "", e.buf);
		goto out;
	}
	*out = strbuf_detach(&o, NULL);
	ret = 0;
	goto out;
fail:
	error_set(cause, "agent '%s': %s", r->agent, why != NULL ? why :
	    "failed");
out:
	strbuf_release(&inner);
	strbuf_release(&o);
	strbuf_release(&e);
	free(cmd);
	free(why);
	free(how);
	free(ex.signal);
	return ret;
}

int
ssh_remote_exec(struct ssh_remote *r, const char *const argv[], char **out,
    double deadline, char **cause)
{
	struct strbuf		 inner = STRBUF_INIT, o = STRBUF_INIT;
	struct strbuf		 e = STRBUF_INIT, words = STRBUF_INIT;
	struct ssh_exec_sink	 k;
	struct ssh_exec_exit	 ex;
	char			*cmd = NULL, *how = NULL;
	size_t			 i;
	int			 ret = -1;

	memset(&ex, 0, sizeof ex);
	strbuf_addstr(&inner, "exec");
	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			strbuf_addch(&words, ' ');
		strbuf_addstr(&words, argv[i]);
		strbuf_addch(&inner, ' ');
		ssh_remote_quote(&inner, argv[i]);
	}
	cmd = ssh_remote_command(&inner);
	memset(&k, 0, sizeof k);
	k.fd = -1;
	k.out = &o;
	k.err = &e;
	k.max = REMOTE_MAX_INFO;
	if (ssh_exec_run(r->s, cmd, 0, &k, deadline, -1, &ex, cause) != 0) {
		error_prefix(cause, "'%s'", words.buf);
		goto out;
	}
	if (ex.signal != NULL || ex.status != 0) {
		how = ssh_remote_describe_exit(&ex);
		strbuf_rtrim(&e);
		error_set(cause, "'%s' %s%s%s", words.buf, how,
		    e.len ? ": " : "", e.buf);
		goto out;
	}
	if (out != NULL)
		*out = strbuf_detach(&o, NULL);
	ret = 0;
out:
	strbuf_release(&inner);
	strbuf_release(&o);
	strbuf_release(&e);
	strbuf_release(&words);
	free(cmd);
	free(how);
	free(ex.signal);
	return ret;
}

int
ssh_remote_artifacts(struct ssh_remote *r, const char *dir, char **out,
    double deadline, char **cause)
{
	int	ret;

	pthread_mutex_lock(&r->mu);
	ret = ssh_remote_prepare_locked(r, deadline, cause) == 0 &&
	    ssh_remote_ensure_artifacts(r, dir, out, deadline, cause) == 0 ?
	    0 : -1;
	pthread_mutex_unlock(&r->mu);
	return ret;
}
