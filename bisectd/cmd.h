/*
 * bisectctl's commands: one file each (cmd-NAME.c), registered in the table
 * of bisectctl.c. A command returns its exit status: 0 success, 1 internal
 * failure, 2 bad input (CMD_USAGE).
 */
#ifndef BISECTD_CMD_H
#define BISECTD_CMD_H

#include <stdint.h>

#include "bisectd/context.h"

#define CMD_OK		0
#define CMD_FAILED	1
#define CMD_USAGE	2

struct cmd_entry {
	const char	*name;
	const char	*usage;
	const char	*summary;
	int		(*exec)(const char *config, int argc, char **argv);
};

extern const struct cmd_entry	cmd_queue_entry;
extern const struct cmd_entry	cmd_bisect_entry;
extern const struct cmd_entry	cmd_compare_entry;
extern const struct cmd_entry	cmd_status_entry;
extern const struct cmd_entry	cmd_show_entry;
extern const struct cmd_entry	cmd_report_entry;
extern const struct cmd_entry	cmd_agents_entry;
extern const struct cmd_entry	cmd_log_entry;
extern const struct cmd_entry	cmd_check_entry;

/* Helpers shared by the commands (bisectd/cmd.c). */
int	cmd_open(const char *config, struct context **out);
int	cmd_usage(const struct cmd_entry *);
int	cmd_parse_id(const char *s, int64_t *id);
/* Print a bisection's progress line on stderr when it changes. */
struct cmd_progress {
	char	*last;
};
void	cmd_progress_tick(struct context *, int64_t request, void *payload);
/* Print the compare tables of a finished queue or compare request. */
int	cmd_print_compare(struct context *, int64_t request, int all);

#endif
