/*
 * The testcase's environment (agents/agent-environ.c): the agent's own,
 * then the job's parameters under their LKP names, then the agent's
 * variables, which parameters cannot override. The job's values reach
 * the testcase only this way, never through a shell's parser.
 */
#ifndef AGENTS_AGENT_ENVIRON_H
#define AGENTS_AGENT_ENVIRON_H

struct inventory;
struct job;
struct result;

char	**agent_environ(const struct job *job, const struct inventory *inv,
	    const char *jobfile, const char *resultdir, const char *workdir);
/* An inline run: gets LKP's mount_points and partitions as variables. */
void	  agent_environ_disks(char ***envp, const struct result *r);
void	  agent_environ_free(char **envp);

#endif
