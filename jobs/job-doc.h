/*
 * Internal to jobs/: LKP's layer over the YAML tree (jobs/job-doc.c).
 * A job file's documents, with its "<< :" includes spliced in and its
 * incremental keys (a.b.c:, a+:, a-:) applied, become the maps that
 * jobs/job.c walks: hash_0 alone, then hash_0 + hash_i for each later
 * document. Not part of the module's API (jobs/job.h).
 */
#ifndef JOBS_JOB_DOC_H
#define JOBS_JOB_DOC_H

#include <stddef.h>

#include "jobs/job.h"
#include "jobs/yamlnode.h"

struct job_doc {
	const struct job_options *opts;
	char			**files;	/* names nodes point at */
	size_t			  nr_files;
	size_t			  alloc_files;
	size_t			  bytes;	/* read so far */
};

/*
 * The maps to walk, one per LKP job hash. The nodes borrow their file
 * names from doc, which must outlive them.
 */
int	 job_doc_split(struct job_doc *, const char *name, const char *buf,
	     size_t len, struct yamlnode ***out, size_t *nr, char **cause);
void	 job_doc_release(struct job_doc *);

#endif
