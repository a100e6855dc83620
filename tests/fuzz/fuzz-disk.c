/*
 * libFuzzer target for LKP's disk keys (agents/disk.c): the input is
 * parsed as a job file (no includes) and each job's disk, fs, fs2 and
 * mount_option are read as the check and the agent read them; it is
 * also tried as a "disk:" value and as a --disk argument. Whatever the
 * bytes, an accepted request is 1 to DISK_MAX disks of hdd or ssd or
 * none, its file system one bisect-agent makes, check's description
 * agrees with it, and a refusal has a message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agents/disk.h"
#include "jobs/job.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_disk_job(const struct job *job, int adapter)
{
	static const char *const fss[] = { "ext2", "ext3", "ext4", "xfs",
	    "btrfs", "tmpfs", NULL };
	struct disk_want	 w;
	const char		*key = NULL;
	char			*cause = NULL, *desc;
	size_t			 i;
	int			 known = 0;

	if (disk_job(job, adapter, &w, &key, &cause) != 0) {
		if (cause == NULL || key == NULL)
			abort();
		free(cause);
		return;
	}
	if (cause != NULL || w.nr > DISK_MAX)
		abort();
	if (w.nr > 0 && strcmp(w.kind, "hdd") != 0 &&
	    strcmp(w.kind, "ssd") != 0)
		abort();
	if (adapter && w.nr > 1)
		abort();
	for (i = 0; w.fs != NULL && fss[i] != NULL; i++)
		known |= strcmp(w.fs, fss[i]) == 0;
	if (w.fs != NULL && !known)
		abort();
	if (w.mount_option != NULL && w.fs == NULL)
		abort();
	/* check describes the job as the agent will run it */
	if (adapter != (job->run == NULL))
		return;
	desc = disk_describe(job);
	if ((desc != NULL) != (w.nr > 0 || w.fs != NULL))
		abort();
	free(desc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job_options	  opts;
	struct disk_decl	  d;
	struct job		**jobs = NULL;
	char			 *cause = NULL, *s;
	char			  kind[4];
	size_t			  nr = 0, i;
	unsigned		  n = 0;

	memset(&opts, 0, sizeof opts);
	opts.no_include = 1;
	if (job_parse_with("fuzz", (const char *)data, size, &opts, &jobs, &nr,
	    &cause) == 0) {
		for (i = 0; i < nr; i++) {
			fuzz_disk_job(jobs[i], 0);
			fuzz_disk_job(jobs[i], 1);
		}
		job_list_free(jobs, nr);
	}
	free(cause);
	cause = NULL;
	s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	if (disk_spec_parse(s, &n, kind, &cause) == 0) {
		if (n == 0 || n > DISK_MAX || (strcmp(kind, "hdd") != 0 &&
		    strcmp(kind, "ssd") != 0) || cause != NULL)
			abort();
	} else if (cause == NULL)
		abort();
	free(cause);
	cause = NULL;
	if (disk_decl_parse(s, &d, &cause) == 0) {
		if (cause != NULL || (d.device == NULL && (d.loop_size <
		    (256ULL << 20) || d.loop_size > (16ULL << 40))) ||
		    (d.device != NULL && strncmp(d.device, "/dev/", 5) != 0))
			abort();
		disk_decl_release(&d);
	} else if (cause == NULL)
		abort();
	free(cause);
	free(s);
	return 0;
}
