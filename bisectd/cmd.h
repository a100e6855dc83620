/*
 * bisectctl's commands: one file each (cmd-NAME.c), registered in the table
 * of bisectctl.c. A command returns its exit status: 0 success, 1 internal
 * failure, 2 bad input (CMD_USAGE).
 */
#ifndef BISECTD_CMD_H
#define BISECTD_CMD_H

#include <stdint.h>

#include <jansson.h>

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
extern const struct cmd_entry	cmd_builders_entry;
extern const struct cmd_entry	cmd_log_entry;
extern const struct cmd_entry	cmd_check_entry;

/* Helpers shared by the commands (bisectd/cmd.c). */
int	cmd_open(const char *config, struct context **out);
int	cmd_usage(const struct cmd_entry *);
int	cmd_parse_id(const char *s, int64_t *id);
/*
 * The progress of a --wait on stderr: the request's own state (a
 * bisection's step, or what a queue or compare request waits for), its
 * runs done, running and wanted, the time taken and an estimate of the
 * time left. On a terminal one line rewrites itself (at most once a
 * second); otherwise a plain line is printed whenever the state changes.
 * Zero it before the first tick; cmd_progress_done ends the line.
 */
struct cmd_progress {
	char		*last;		/* the last state printed */
	int		 kind;		/* 0 unknown, 1 bisection, 2 other */
	int		 tty;		/* -1 unknown */
	int		 shown;		/* a terminal line is open */
	long long	 start_ms;
	long long	 drawn_ms;
	int		 done0;		/* runs done at the first tick */
};
void	cmd_progress_tick(struct context *, int64_t request, void *payload);
void	cmd_progress_done(struct cmd_progress *);
/*
 * Print the compare tables of a queue or compare request, or with json
 * one object: {"request", "drift": [...], "comparisons": [{"job",
 * "description", "table"}]} (report_compare_json).
 */
int	cmd_print_compare(struct context *, int64_t request, int all,
	    int json);
/*
 * The scheduler's own builds and each builder (cmd-builders.c): into ja
 * when not NULL, else printed (brief: one line each, for status).
 */
int	cmd_builders_list(struct context *, json_t *ja, int brief,
	    char **cause);
/* One JSON document on stdout, as every --json prints it. */
void	cmd_print_json(json_t *);

#endif
