/*
 * The commands of bisect-agent, in the table of agents/agent-cmd.c: each
 * takes argc and argv from its own name on and returns the program's exit
 * code. What they share: the exit codes, the usage text, and the one line
 * on stderr that says why a command failed.
 */
#ifndef AGENTS_AGENT_CMD_H
#define AGENTS_AGENT_CMD_H

#define AGENT_EXIT_OK		0
#define AGENT_EXIT_FAILURE	1	/* no result written */
#define AGENT_EXIT_USAGE	2	/* bad arguments or job file */

struct agent_cmd_entry {
	const char	*name;
	int		(*exec)(int, char **);
};

/* The command called name, or NULL. */
const struct agent_cmd_entry *agent_cmd_find(const char *name);
void	 agent_cmd_usage(void);
/* "bisect-agent: MESSAGE" on stderr; returns code. */
int	 agent_cmd_fail(int code, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

int	 agent_cmd_run(int argc, char **argv);
int	 agent_cmd_info(int argc, char **argv);

#endif
