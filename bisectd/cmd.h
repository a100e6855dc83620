/*
 * bisectctl's commands: one file each (cmd-NAME.c), registered in the table
 * of bisectctl.c, each entry declaring its options, which cmd_exec parses
 * for all of them (as tmux's cmd entries do). A command returns its exit
 * status: 0 success, 1 internal failure, 2 bad input (CMD_USAGE).
 */
#ifndef BISECTD_CMD_H
#define BISECTD_CMD_H

#include <stdint.h>

#include <jansson.h>

#include "bisectd/context.h"

#define CMD_OK		0
#define CMD_FAILED	1
#define CMD_USAGE	2

/* An option's flags: it takes a value; it has -LETTER too. */
#define CMD_ARG		0x1
#define CMD_SHORT	0x2

/* --NAME, known to the command as its letter. */
struct cmd_option {
	const char	*name;
	int		 letter;
	int		 flags;
};

/* A command's options and how many arguments follow them (-1: any). */
struct cmd_entry_args {
	const struct cmd_option	*options;	/* ends with a NULL name */
	int			 lower;
	int			 upper;
};

/* The options of a command that has --json ('j') alone. */
extern const struct cmd_option	cmd_options_json[];

/* What cmd_exec parsed for a command: its options, then its arguments. */
struct cmd_args {
	int			  argc;
	char			**argv;
	struct cmd_args_value {
		int		  letter;
		const char	 *value;	/* NULL without CMD_ARG */
	}			 *values;
	size_t			  nr_values;
};

struct cmd_entry {
	const char		*name;
	const char		*usage;
	const char		*summary;
	struct cmd_entry_args	 args;
	int			(*exec)(const char *config, struct cmd_args *);
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

/*
 * Run a command: its options parsed by its table entry (getopt_long:
 * options and arguments in any order, "--" ends the options), a usage
 * error (CMD_USAGE) when they do not fit, else the command's exit status.
 * argv[0] is the command's name.
 */
int	cmd_exec(const struct cmd_entry *, const char *config, int argc,
	    char **argv);
/* How many times the option was given. */
int	cmd_args_has(const struct cmd_args *, int letter);
/* Its last value, or NULL. */
const char *cmd_args_get(const struct cmd_args *, int letter);
/* Every value of a repeated option, in order: the array is the caller's. */
size_t	cmd_args_values(const struct cmd_args *, int letter,
	    const char ***out);

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
