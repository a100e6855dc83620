/*
 * boot: kexec over ssh (ssh-boot.h): the image goes up by its hash with
 * the run's artifacts and kexec -l loads it from there; the outcomes are
 * boot_kexec's and the qemu boot's (docs/design.md, "File notes").
 */
#include <sys/random.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/boot-kexec.h"
#include "agents/boot.h"
#include "agents/result.h"
#include "agents/ssh-boot.h"
#include "agents/ssh-sftp.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/file.h"
#include "util/log.h"
#include "util/xalloc.h"

#define SSH_BOOT_EXEC_TIMEOUT	60.0	/* uname, kexec -l: seconds */
#define SSH_BOOT_BACKOFF_FIRST	0.2	/* seconds between connects, */
#define SSH_BOOT_BACKOFF_MAX	5.0	/* doubling up to this */

struct ssh_boot {
	const struct ssh_boot_conn	*conn;
	int				 refused;
};

static void
ssh_boot_nap(double seconds)
{
	struct timespec	ts;

	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0)
		;
}

static int
ssh_boot_exec(void *arg, const char *const argv[], char **out, char **cause)
{
	struct ssh_boot		*b = arg;
	struct ssh_remote	*r = b->conn->remote(b->conn->arg);

	if (r == NULL)
		return error_set(cause, "the connection is lost");
	return ssh_remote_exec(r, argv, out, ssh_session_now() +
	    SSH_BOOT_EXEC_TIMEOUT, cause);
}

/* The image went up with the artifact set: check that it is there whole. */
static int
ssh_boot_upload(void *arg, const char *local, const char *remote,
    char **cause)
{
	struct ssh_boot		*b = arg;
	struct ssh_remote	*r = b->conn->remote(b->conn->arg);
	struct stat		 st;
	unsigned long long	 size = 0;
	int			 exists;

	if (r == NULL)
		return error_set(cause, "the connection is lost");
	if (stat(local, &st) != 0)
		return error_errno(cause, "couldn't stat '%s'", local);
	if (ssh_sftp_stat(ssh_remote_session(r), remote, &exists, &size, NULL,
	    ssh_session_now() + SSH_BOOT_EXEC_TIMEOUT, cause) != 0)
		return -1;
	if (!exists || size != (unsigned long long)st.st_size)
		return error_set(cause, "'%s' is not on the machine whole (%llu "
		    "of %lld bytes)", remote, exists ? size : 0,
		    (long long)st.st_size);
	return 0;
}

/* Connect again, with a backoff, until timeout: 0, 1 (not back) or -1. */
static int
ssh_boot_reconnect(void *arg, unsigned timeout, char **cause)
{
	struct ssh_boot	*b = arg;
	double		 deadline = ssh_session_now() + timeout, left;
	double		 delay = SSH_BOOT_BACKOFF_FIRST;
	char		*why = NULL;
	int		 rc;

	for (;;) {
		left = deadline - ssh_session_now();
		free(why);
		why = NULL;
		rc = b->conn->reconnect(b->conn->arg, left < 1 ? 1 :
		    (unsigned)(left + 0.999), &why);
		if (rc == 0)
			break;
		if (rc == SSH_SESSION_REFUSED) {
			b->refused = 1;
			error_set(cause, "%s", why);
			free(why);
			return -1;
		}
		left = deadline - ssh_session_now();
		if (left <= 0) {
			log_info("%s", why);
			break;
		}
		ssh_boot_nap(delay < left ? delay : left);
		delay = delay * 2 < SSH_BOOT_BACKOFF_MAX ? delay * 2 :
		    SSH_BOOT_BACKOFF_MAX;
	}
	free(why);
	return rc == 0 ? 0 : 1;
}

/* RUN_DIR as a run leaves it, with a result made here. */
static int
ssh_boot_save(const struct transport_job *job, const struct result *res,
    const char *note, char **cause)
{
	char	*path = NULL;
	int	 r = -1;

	if (transport_run_dir_prepare(job, cause) != 0)
		goto out;
	path = path_join(job->run_dir, "agent.log");
	if (file_write_atomic(path, note, strlen(note), cause) != 0)
		goto out;
	free(path);
	path = path_join(job->run_dir, "result");
	if (result_save(path, res, cause) != 0)
		goto out;
	r = 0;
out:
	free(path);
	return r;
}

/* The boot's facts into the result the run fetched (res), saved again. */
static int
ssh_boot_annotate(const struct transport_job *job, const struct result *boot,
    struct result *res, const char *note, char **cause)
{
	char		*dir = path_join(job->run_dir, "result");
	char		*log = path_join(job->run_dir, "agent.log");
	size_t		 i;
	int		 fd, r = -1;

	for (i = 0; i < boot->nr_env; i++)
		result_env_set(res, boot->env[i].key, boot->env[i].value);
	if (result_save(dir, res, cause) != 0)
		goto out;
	if ((fd = open(log, O_WRONLY | O_APPEND | O_CLOEXEC)) != -1) {
		dprintf(fd, "%s", note);
		close(fd);
	}
	r = 0;
out:
	free(dir);
	free(log);
	return r;
}

static void
ssh_boot_token(char out[17])
{
	unsigned char	b[8];
	size_t		i;

	if (getrandom(b, sizeof b, 0) != sizeof b) {
		unsigned long	x = (unsigned long)getpid() ^
				    (unsigned long)(ssh_session_now() * 1e6);

		memcpy(b, &x, sizeof b < sizeof x ? sizeof b : sizeof x);
	}
	for (i = 0; i < sizeof b; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static char *
ssh_boot_line(struct ssh_boot *b, const char *const argv[], char **cause)
{
	char	*out = NULL;

	if (ssh_boot_exec(b, argv, &out, cause) != 0)
		return NULL;
	out[strcspn(out, "\n")] = '\0';
	return out;
}

/* The build's artifacts uploaded (*art: their remote directory). */
static int
ssh_boot_kexec_upload(const struct ssh_boot_conn *conn, const char *agent,
    const struct transport_job *job, char **art, char **cause)
{
	struct ssh_remote	*r;
	char			*why = NULL;
	double			 deadline;
	int			 rc;

	if (conn->remote(conn->arg) == NULL &&
	    (rc = conn->reconnect(conn->arg, 0, &why)) != 0) {
		error_set(cause, "agent '%s': %s", agent, why);
		free(why);
		return rc;
	}
	r = conn->remote(conn->arg);
	deadline = job->timeout > 0 ? ssh_session_now() + job->timeout : 0;
	if (ssh_remote_artifacts(r, job->artifact_dir, art, deadline,
	    &why) != 0) {
		error_set(cause, "agent '%s': %s", agent, why);
		free(why);
		return -1;
	}
	return 0;
}

/* What boot_kexec is given; the release is checked after the boot. */
static void
ssh_boot_kexec_params(struct boot_kexec_params *p, const struct job *job,
    const char *user, const char *image, const char *remote_image,
    const char *token)
{
	memset(p, 0, sizeof *p);
	p->image = image;
	p->remote_image = remote_image;
	p->release = NULL;	/* a wrong one is a failed run */
	p->token = token;
	p->append = job_param(job, "kernel_cmdline");
	p->sudo = user == NULL || strcmp(user, "root") != 0;
	p->boot_timeout = boot_timeout(job);
	p->fallback_timeout = TRANSPORT_KEXEC_FALLBACK;
}

/*
 * A kexec that failed: SSH_SESSION_REFUSED or -1 with *cause when the
 * machine cannot be reached, 1 when it is there and refused (a failed
 * run: res and *note say why).
 */
static int
ssh_boot_kexec_failed(const struct ssh_boot_conn *conn,
    const struct ssh_boot *b, const char *agent, const char *why,
    struct result *res, char **note, char **cause)
{
	struct ssh_remote	*r;

	if (b->refused) {
		error_set(cause, "agent '%s': after the kexec reboot: %s",
		    agent, why);
		return SSH_SESSION_REFUSED;
	}
	r = conn->remote(conn->arg);
	if (r == NULL || ssh_session_dead(ssh_remote_session(r), NULL))
		return error_set(cause, "agent '%s': boot kexec: %s", agent,
		    why);
	/* The machine is there and refused: a failed run. */
	result_set_error(res, "boot kexec: %s", why);
	*note = xasprintf("bisectd: %s\n", res->error);
	return 1;
}

/*
 * The kernel the machine booted into: its release and version in the
 * result's environment, with the boot's seconds. 0 when it is the build's
 * (*note says so), 1 when it is another (a failed run, *note and res say
 * why), -1 when the machine could not be asked.
 */
static int
ssh_boot_kexec_check(struct ssh_boot *b, const char *agent,
    const char *image, const char *release, double elapsed,
    struct result *res, char **note, char **cause)
{
	const char	*uname_r[] = { "uname", "-r", NULL };
	const char	*uname_v[] = { "uname", "-v", NULL };
	char		*running = NULL, *version = NULL, *why = NULL;
	char		 secs[32];
	int		 r = -1;

	if ((running = ssh_boot_line(b, uname_r, &why)) == NULL ||
	    (version = ssh_boot_line(b, uname_v, &why)) == NULL) {
		error_set(cause, "agent '%s': after the kexec reboot: %s",
		    agent, why);
		goto out;
	}
	snprintf(secs, sizeof secs, "%.3f", elapsed);
	result_env_set(res, "boot_seconds", secs);
	result_env_set(res, "kernel_version", version);
	if (release != NULL && strcmp(running, release) != 0) {
		result_set_error(res, "the machine ran kernel '%s', the build "
		    "made '%s'", running, release);
		*note = xasprintf("bisectd: %s\n", res->error);
		r = 1;
		goto out;
	}
	log_info("agent '%s': booted '%s' (%s) with kexec in %.1fs", agent,
	    running, image, elapsed);
	*note = xasprintf("bisectd: booted kernel '%s' with kexec in %.1fs\n",
	    running, elapsed);
	r = 0;
out:
	free(running);
	free(version);
	free(why);
	return r;
}

/*
 * The job run on the booted kernel, in what is left of its time; the
 * boot's environment and note added to what it fetched.
 */
static int
ssh_boot_kexec_test(const struct ssh_boot_conn *conn, const char *agent,
    const struct transport_job *job, double elapsed, int cancel_fd,
    struct result *res, const char *note, struct result **out, char **cause)
{
	struct transport_job	 tj;
	struct ssh_remote	*r;
	struct result		*fetched = NULL;
	char			*why = NULL;
	int			 rc;

	tj = *job;
	if (tj.timeout > 0)
		tj.timeout = tj.timeout > (unsigned)elapsed + 1 ?
		    tj.timeout - (unsigned)elapsed : 1;
	if ((r = conn->remote(conn->arg)) == NULL)
		return error_set(cause, "agent '%s': the connection is lost",
		    agent);
	if ((rc = ssh_remote_run(r, &tj, cancel_fd, &fetched, cause)) != 0)
		return rc;
	if (ssh_boot_annotate(job, res, fetched, note, &why) != 0) {
		error_set(cause, "agent '%s': %s", agent, why);
		free(why);
		result_free(fetched);
		return -1;
	}
	if (out != NULL) {
		*out = fetched;
		fetched = NULL;
	}
	result_free(fetched);
	return 0;
}

int
ssh_boot_kexec_run(const struct ssh_boot_conn *conn, const char *agent,
    const char *user, const struct transport_job *job, int cancel_fd,
    struct result **out, char **cause)
{
	const struct boot_kexec_ops	 ops = {
		ssh_boot_exec, ssh_boot_upload, ssh_boot_reconnect, NULL,
	};
	struct boot_kexec_params	 p;
	struct ssh_boot			 b;
	struct result			*res = NULL;
	struct job			**jobs = NULL;
	size_t				 nr = 0;
	char				 token[17], *note = NULL;
	char				*image = NULL, *local_image = NULL;
	char				*art = NULL, *remote_image = NULL;
	char				*release = NULL, *hash = NULL;
	char				*why = NULL, *bcause = NULL;
	double				 started, elapsed;
	int				 rc, ret = -1;

	memset(&b, 0, sizeof b);
	b.conn = conn;
	if (job_parse("job.yaml", job->job_text, strlen(job->job_text),
	    &jobs, &nr, &bcause) != 0 || nr != 1) {
		error_set(cause, "agent '%s': boot kexec: %s", agent,
		    bcause != NULL ? bcause : "not exactly one job");
		goto out;
	}
	res = result_new();
	result_env_set(res, "boot", "kexec");
	if (job->artifact_dir == NULL || (image =
	    boot_kernel_image(job->artifact_dir, jobs[0])) == NULL) {
		result_set_error(res, "boot kexec: no kernel image among the "
		    "artifacts (arch/x86/boot/bzImage, bzImage, vmlinuz, or "
		    "the job's kernel:)");
		note = xasprintf("bisectd: %s\n", res->error);
		goto save;
	}
	if ((hash = boot_image_hash(job->artifact_dir)) != NULL)
		result_env_set(res, "kernel_sha256", hash);
	release = boot_expected_release(job->artifact_dir);
	if ((ret = ssh_boot_kexec_upload(conn, agent, job, &art,
	    cause)) != 0)
		goto out;
	ret = -1;
	local_image = path_join(job->artifact_dir, image);
	remote_image = path_join(art, image);
	ssh_boot_token(token);
	ssh_boot_kexec_params(&p, jobs[0], user, local_image, remote_image,
	    token);
	started = ssh_session_now();
	rc = boot_kexec(&ops, &b, &p, &why, &bcause);
	if (rc == 1) {
		result_set_untestable(res, "the kernel did not boot: %s", why);
		note = xasprintf("bisectd: kexec into '%s': %s\n", image, why);
		goto save;
	}
	if (rc != 0) {
		if ((ret = ssh_boot_kexec_failed(conn, &b, agent, bcause, res,
		    &note, cause)) == 1)
			goto save;
		goto out;
	}
	elapsed = ssh_session_now() - started;
	switch (ssh_boot_kexec_check(&b, agent, image, release, elapsed, res,
	    &note, cause)) {
	case -1:
		goto out;
	case 1:
		goto save;
	}
	ret = ssh_boot_kexec_test(conn, agent, job, elapsed, cancel_fd, res,
	    note, out, cause);
	goto out;
save:
	if (ssh_boot_save(job, res, note, &bcause) != 0) {
		error_set(cause, "agent '%s': run directory '%s': %s", agent,
		    job->run_dir, bcause);
		goto out;
	}
	if (out != NULL) {
		*out = res;
		res = NULL;
	}
	ret = 0;
out:
	job_list_free(jobs, nr);
	result_free(res);
	free(image);
	free(local_image);
	free(art);
	free(remote_image);
	free(release);
	free(hash);
	free(why);
	free(bcause);
	free(note);
	return ret;
}
