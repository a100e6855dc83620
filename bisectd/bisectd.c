/*
 * bisectd: the daemon. It takes the scheduler lock of its database and
 * runs the scheduler loop until SIGTERM or SIGINT; SIGHUP re-reads its
 * config (bisectd/reload.c). Without --foreground it
 * detaches and logs to WORKDIR/bisectd.log. It prints a readiness line,
 * "bisectd: ready", once it holds the lock.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisectd/context.h"
#include "bisectd/lock.h"
#include "bisectd/scheduler.h"
#include "util/file.h"
#include "util/log.h"
#include "util/term.h"
#include "util/version.h"

static int
bisectd_usage(FILE *f)
{
	fprintf(f, "usage: bisectd [-c FILE] [--foreground] | --version | "
	    "--help\n");
	return f == stdout ? 0 : 2;
}

static void
bisectd_daemonize(const char *logpath)
{
	int	fd;

	if (fork() != 0)
		_exit(0);
	setsid();
	if (fork() != 0)
		_exit(0);
	fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd == -1)
		log_fatal("couldn't open log '%s'", logpath);
	dup2(fd, STDERR_FILENO);
	close(fd);
	fd = open("/dev/null", O_RDWR);
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	close(fd);
}

int
main(int argc, char **argv)
{
	struct context		*ctx = NULL;
	struct scheduler_opts	 opts;
	const char		*config = NULL;
	char			*cause = NULL, *lock, *logpath;
	int			 i, foreground = 0, fd = -1, held;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			config = argv[++i];
		else if (strcmp(argv[i], "--foreground") == 0 ||
		    strcmp(argv[i], "-f") == 0)
			foreground = 1;
		else if (strcmp(argv[i], "--version") == 0) {
			printf("bisectd %s\n", BISECTD_VERSION);
			return 0;
		} else if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0)
			return bisectd_usage(stdout);
		else
			return bisectd_usage(stderr);
	}
	term_filter_std();
	log_setup("bisectd", 1, LOG_INFO);
	if (context_open(config, &ctx, &cause) != 0)
		log_fatal("%s", cause);
	lock = context_lock_path(ctx);
	if ((held = lock_try(lock, &fd, &cause)) < 0)
		log_fatal("%s", cause);
	if (held == 1)
		log_fatal("another scheduler holds '%s'", lock);
	if (!foreground) {
		/* No SQLite connection may cross a fork: reopen after it. */
		logpath = path_join(ctx->config->workdir, "bisectd.log");
		if (dir_create(ctx->config->workdir, &cause) != 0)
			log_fatal("%s", cause);
		lock_release(fd);
		context_free(ctx);
		bisectd_daemonize(logpath);
		free(logpath);
		if (context_open(config, &ctx, &cause) != 0)
			log_fatal("%s", cause);
		if ((held = lock_try(lock, &fd, &cause)) != 0)
			log_fatal("%s", held < 0 ? cause : "lost the lock");
	}
	log_info("bisectd: ready (database %s, pid %ld)", ctx->config->db,
	    (long)getpid());
	memset(&opts, 0, sizeof opts);
	if (scheduler_run(ctx, &opts, &cause) != 0) {
		log_error("%s", cause);
		free(cause);
		lock_release(fd);
		context_free(ctx);
		free(lock);
		return 1;
	}
	log_info("bisectd: stopped");
	lock_release(fd);
	context_free(ctx);
	free(lock);
	return 0;
}
