/*
 * LKP's eatmem for the vm-scalability worker (agents/testcase-vmscale.h):
 * memory taken from the case before it runs, held locked by a child per
 * node until the case is done.
 */
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/testcase-vmscale.h"

/*
 * LKP's eatmem: per node, eatmem_size / nr_node bytes mapped, populated
 * and locked (bound to the node where there are several), held by a
 * child until the case is done. The pids in pids[] (nr_node of them,
 * 0 where none started); -1 when one could not hold its share.
 */
int
testcase_vmscale_eatmem_start(unsigned long long bytes, unsigned nr_node,
    pid_t *pids)
{
	unsigned long	 mask[16];
	unsigned	 i;
	size_t		 share = (size_t)(bytes / nr_node);
	int		 fds[2], bad = 0;
	char		 c;
	void		*p;

	if (pipe(fds) == -1) {
		perror("vm-scalability: eatmem: pipe");
		return -1;
	}
	for (i = 0; i < nr_node; i++) {
		fflush(NULL);
		if ((pids[i] = fork()) == -1) {
			pids[i] = 0;
			bad = 1;
			break;
		}
		if (pids[i] != 0)
			continue;
		close(fds[0]);
		memset(mask, 0, sizeof mask);
		if (nr_node > 1 && i < 16 * 8 * sizeof mask[0]) {
			mask[i / (8 * sizeof mask[0])] = 1UL << (i % (8 *
			    sizeof mask[0]));
			/* MPOL_BIND is 2 */
			if (syscall(SYS_set_mempolicy, 2, mask,
			    (unsigned long)(16 * 8 * sizeof mask[0])) != 0) {
				dprintf(2, "vm-scalability: eatmem: couldn't "
				    "bind to node %u: %s\n", i, strerror(errno));
				_exit(1);
			}
		}
		p = mmap(NULL, share, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		    MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED || mlock(p, share) != 0) {
			dprintf(2, "vm-scalability: eatmem: couldn't hold %zu "
			    "bytes locked: %s\n", share, strerror(errno));
			_exit(1);
		}
		memset(p, 1, share);
		printf("eatmem: %zu bytes locked (node %u)\n", share, i);
		fflush(stdout);
		if (write(fds[1], "*", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	/* each holder says it holds its share, or exits (EOF) */
	for (i = 0; !bad && i < nr_node; i++)
		if (read(fds[0], &c, 1) != 1)
			bad = 1;
	close(fds[0]);
	return bad ? -1 : 0;
}

void
testcase_vmscale_eatmem_stop(pid_t *pids, unsigned nr_node)
{
	unsigned	i;
	int		st;

	for (i = 0; i < nr_node; i++) {
		if (pids[i] <= 0)
			continue;
		kill(pids[i], SIGKILL);
		while (waitpid(pids[i], &st, 0) == -1 && errno == EINTR)
			;
	}
}
