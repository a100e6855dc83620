/*
 * bisectctl: the command-line client. Requests go into the database; with
 * --wait, when no daemon holds the scheduler lock, the client runs the
 * scheduler itself until its request is done (the embedded default).
 */
#include <stdio.h>
#include <string.h>

#include "bisectd/cmd.h"
#include "util/log.h"
#include "util/term.h"
#include "util/version.h"

static const struct cmd_entry *cmd_table[] = {
	&cmd_queue_entry,
	&cmd_bisect_entry,
	&cmd_compare_entry,
	&cmd_status_entry,
	&cmd_show_entry,
	&cmd_report_entry,
	&cmd_agents_entry,
	&cmd_builders_entry,
	&cmd_log_entry,
	&cmd_check_entry,
	NULL
};

static int
bisectctl_usage(FILE *f)
{
	size_t	i;

	fprintf(f, "usage: bisectctl [-c FILE] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; cmd_table[i] != NULL; i++)
		fprintf(f, "  %-8s %s\n", cmd_table[i]->name,
		    cmd_table[i]->summary);
	return CMD_USAGE;
}

/*
 * Every command answers --help (or -h) wherever it stands among the
 * command's arguments, before the command parses them: exit 0, stdout.
 */
static int
bisectctl_help_wanted(int argc, char **argv)
{
	int	i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	}
	return 0;
}

static int
bisectctl_help(const struct cmd_entry *entry)
{
	printf("usage: bisectctl [-c FILE] %s%s%s\n\n%s.\n\n"
	    "See bisectctl(1) and docs/cli.md for the options, the output and "
	    "the exit status.\n", entry->name, entry->usage[0] ? " " : "",
	    entry->usage, entry->summary);
	return CMD_OK;
}

int
main(int argc, char **argv)
{
	const char	*config = NULL;
	size_t		 i;
	int		 arg = 1;

	term_filter_std();
	log_setup("bisectctl", 0, LOG_INFO);
	while (arg < argc && argv[arg][0] == '-') {
		if (strcmp(argv[arg], "-c") == 0 && arg + 1 < argc) {
			config = argv[arg + 1];
			arg += 2;
		} else if (strcmp(argv[arg], "-h") == 0 ||
		    strcmp(argv[arg], "--help") == 0) {
			bisectctl_usage(stdout);
			return 0;
		} else if (strcmp(argv[arg], "--version") == 0) {
			printf("bisectctl %s\n", BISECTD_VERSION);
			return 0;
		} else
			return bisectctl_usage(stderr);
	}
	if (arg >= argc)
		return bisectctl_usage(stderr);
	for (i = 0; cmd_table[i] != NULL; i++) {
		if (strcmp(cmd_table[i]->name, argv[arg]) != 0)
			continue;
		if (bisectctl_help_wanted(argc - arg, argv + arg))
			return bisectctl_help(cmd_table[i]);
		return cmd_exec(cmd_table[i], config, argc - arg,
		    argv + arg);
	}
	fprintf(stderr, "error: unknown command '%s'\n", argv[arg]);
	return bisectctl_usage(stderr);
}
