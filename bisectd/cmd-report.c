/*
 * bisectctl report: render a concluded bisection's report as text. Mail
 * (--email) and the web page (--html) are refused with a clear message
 * until they exist.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/cmd.h"
#include "bisectd/report.h"

static int
cmd_report_exec(const char *config, int argc, char **argv)
{
	static const struct option	 longopts[] = {
		{ "email", no_argument, NULL, 'e' },
		{ "html", required_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct context	*ctx = NULL;
	char		*cause = NULL, *headline = NULL, *body = NULL;
	int64_t		 id;
	int		 c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
		case 'h':
			fprintf(stderr, "error: --%s is not available in this "
			    "version; the text report is printed instead\n",
			    c == 'e' ? "email" : "html");
			return CMD_USAGE;
		default:
			return cmd_usage(&cmd_report_entry);
		}
	}
	if (optind + 1 != argc || cmd_parse_id(argv[optind], &id) != 0)
		return cmd_usage(&cmd_report_entry);
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	if (report_bisection(ctx, id, &headline, &body, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		r = CMD_USAGE;
	} else
		fputs(body, stdout);
	free(headline);
	free(body);
	free(cause);
	context_free(ctx);
	return r;
}

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "ID",
	.summary = "render a bisection's report",
	.exec = cmd_report_exec,
};
