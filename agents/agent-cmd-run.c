/*
 * bisect-agent run [--workdir DIR] [--boot none|qemu] [--disk ...] JOBFILE
 * RESULTDIR: one expanded job, run here (agents/agent-job.c) or in a kernel
 * it boots (agents/boot.c), its text kept as RESULTDIR/job.yaml and
 * RESULTDIR/result written last (docs/agents.md).
 */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent-cmd.h"
#include "agents/agent-job.h"
#include "agents/boot.h"
#include "agents/disk.h"
#include "agents/inventory.h"
#include "agents/result.h"
#include "jobs/job.h"
#include "util/file.h"
#include "util/path.h"

#define AGENT_CMD_RUN_MAX_JOB	(1u << 20)

struct agent_cmd_run_options {
	char			*workdir;
	struct disk_decl	 disks[DISK_MAX];
	size_t			 nr_disks;
	enum boot_method	 boot;
};

/* The options: AGENT_EXIT_OK, or the code to exit with (said why). */
static int
agent_cmd_run_parse(int argc, char **argv, struct agent_cmd_run_options *o)
{
	static const struct option	 opts[] = {
		{ "workdir", required_argument, NULL, 'w' },
		{ "boot", required_argument, NULL, 'b' },
		{ "disk", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	char				*cause = NULL;
	int				 c, code;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+w:b:d:", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			free(o->workdir);
			o->workdir = path_absolute(optarg, NULL);
			break;
		case 'd':
			if (o->nr_disks == DISK_MAX)
				return agent_cmd_fail(AGENT_EXIT_USAGE, "more "
				    "than %d --disk", DISK_MAX);
			if (disk_decl_parse(optarg, &o->disks[o->nr_disks],
			    &cause) != 0) {
				code = agent_cmd_fail(AGENT_EXIT_USAGE, "%s",
				    cause);
				free(cause);
				return code;
			}
			o->nr_disks++;
			break;
		case 'b':
			if (boot_method_parse(optarg, &o->boot) != 0)
				return agent_cmd_fail(AGENT_EXIT_USAGE,
				    "unknown boot method '%s' (none, qemu, "
				    "kexec)", optarg);
			break;
		default:
			agent_cmd_usage();
			return AGENT_EXIT_USAGE;
		}
	}
	if (o->nr_disks > 0 && o->boot != BOOT_NONE)
		return agent_cmd_fail(AGENT_EXIT_USAGE, "--disk is for runs "
		    "without a boot: the disks would be set up outside the "
		    "booted kernel");
	if (argc - optind != 2) {
		agent_cmd_usage();
		return AGENT_EXIT_USAGE;
	}
	return AGENT_EXIT_OK;
}

/* One expanded job, from a regular file; *buf keeps its text. */
static int
agent_cmd_run_jobfile(const char *jobfile, char **buf, size_t *len,
    struct job ***jobs, size_t *nr)
{
	struct stat	 st;
	char		*cause = NULL;
	int		 code;

	if (stat(jobfile, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > AGENT_CMD_RUN_MAX_JOB)
		return agent_cmd_fail(AGENT_EXIT_USAGE, "job file '%s' is not "
		    "a regular file of at most %u bytes", jobfile,
		    AGENT_CMD_RUN_MAX_JOB);
	if (file_read(jobfile, buf, len, &cause) != 0 ||
	    job_parse(jobfile, *buf, *len, jobs, nr, &cause) != 0) {
		code = agent_cmd_fail(AGENT_EXIT_USAGE, "%s", cause);
		free(cause);
		return code;
	}
	if (*nr != 1)
		return agent_cmd_fail(AGENT_EXIT_USAGE, "job file '%s' expands "
		    "to %zu jobs; the agent runs one expanded job", jobfile,
		    *nr);
	return AGENT_EXIT_OK;
}

/* RESULTDIR made, its old result gone and the job as run in job.yaml. */
static int
agent_cmd_run_resultdir(const char *resultdir, const char *buf, size_t len)
{
	char	*path = NULL, *cause = NULL;
	int	 code = AGENT_EXIT_FAILURE;

	if (dir_create(resultdir, &cause) != 0) {
		code = agent_cmd_fail(AGENT_EXIT_FAILURE, "%s", cause);
		goto out;
	}
	path = path_join(resultdir, "result");
	if (unlink(path) == -1 && errno != ENOENT) {
		code = agent_cmd_fail(AGENT_EXIT_FAILURE, "couldn't remove "
		    "'%s': %s", path, strerror(errno));
		goto out;
	}
	free(path);
	path = path_join(resultdir, "job.yaml");
	if (file_write_atomic(path, buf, len, &cause) != 0) {
		code = agent_cmd_fail(AGENT_EXIT_FAILURE, "%s", cause);
		goto out;
	}
	code = AGENT_EXIT_OK;
out:
	free(path);
	free(cause);
	return code;
}

int
agent_cmd_run(int argc, char **argv)
{
	struct agent_cmd_run_options	  o;
	struct job			**jobs = NULL;
	struct result			 *r = NULL;
	struct agent_job		  aj;
	struct stat			  st;
	char				  self[4096];
	ssize_t				  n;
	char				 *jobfile = NULL, *resultdir = NULL;
	char				 *buf = NULL, *cause = NULL;
	size_t				  nr = 0, len, i;
	int				  code, ran, interrupted = 0;

	memset(&o, 0, sizeof o);
	o.boot = BOOT_NONE;
	if ((code = agent_cmd_run_parse(argc, argv, &o)) != AGENT_EXIT_OK)
		goto out;
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0) {
		code = agent_cmd_fail(AGENT_EXIT_FAILURE, "couldn't find the "
		    "agent's own program: %s", strerror(errno));
		goto out;
	}
	self[n] = '\0';
	jobfile = path_absolute(argv[optind], NULL);
	resultdir = path_absolute(argv[optind + 1], NULL);
	if (o.workdir == NULL && (o.workdir = getcwd(NULL, 0)) == NULL) {
		code = agent_cmd_fail(AGENT_EXIT_FAILURE, "couldn't get the "
		    "current directory: %s", strerror(errno));
		goto out;
	}
	if (stat(o.workdir, &st) == -1 || !S_ISDIR(st.st_mode)) {
		code = agent_cmd_fail(AGENT_EXIT_USAGE, "workdir '%s' is not "
		    "a directory", o.workdir);
		goto out;
	}
	if ((code = agent_cmd_run_jobfile(jobfile, &buf, &len, &jobs,
	    &nr)) != AGENT_EXIT_OK ||
	    (code = agent_cmd_run_resultdir(resultdir, buf, len)) !=
	    AGENT_EXIT_OK)
		goto out;

	r = result_new();
	memset(&aj, 0, sizeof aj);
	aj.job = jobs[0];
	aj.jobfile = jobfile;
	aj.resultdir = resultdir;
	aj.workdir = o.workdir;
	aj.self = self;
	aj.root = inventory_root(NULL);
	aj.disks = o.disks;
	aj.nr_disks = o.nr_disks;
	if (o.boot != BOOT_NONE)
		ran = boot_run(o.boot, jobs[0], jobfile, o.workdir, resultdir,
		    r, &cause);
	else
		ran = agent_job_run(&aj, r, &interrupted, &cause);
	if (ran != 0) {
		code = agent_cmd_fail(AGENT_EXIT_FAILURE, "%s", cause);
		goto out;
	}
	if (result_save(resultdir, r, &cause) != 0) {
		code = agent_cmd_fail(AGENT_EXIT_FAILURE, "%s", cause);
		goto out;
	}
	code = AGENT_EXIT_OK;
out:
	job_list_free(jobs, nr);
	result_free(r);
	for (i = 0; i < o.nr_disks; i++)
		disk_decl_release(&o.disks[i]);
	free(o.workdir);
	free(jobfile);
	free(resultdir);
	free(buf);
	free(cause);
	return code;
}
