/*
 * libFuzzer target for bisectd.yaml: config_parse on arbitrary bytes must
 * not crash or leak, every error must carry the "NAME:LINE:COL: " prefix,
 * and every accepted config must have absolute paths and an agent.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/config.h"

static int
fuzz_located(const char *cause)
{
	const char	*p;

	if (strncmp(cause, "fuzz:", 5) != 0)
		return 0;
	p = cause + 5;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != ':' || !isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return strncmp(p, ": ", 2) == 0;
}

static void
fuzz_absolute(const char *path)
{
	if (path != NULL && path[0] != '/')
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config	*cfg = NULL;
	char		*cause = NULL;
	size_t		 i;

	if (config_parse("fuzz", "/fuzz", (const char *)data, size, &cfg,
	    &cause) != 0) {
		if (cause == NULL || cfg != NULL || !fuzz_located(cause))
			abort();
		free(cause);
		return 0;
	}
	if (cfg->nr_agents == 0 || cfg->db == NULL || cfg->workdir == NULL)
		abort();
	fuzz_absolute(cfg->db);
	fuzz_absolute(cfg->workdir);
	for (i = 0; i < cfg->nr_repos; i++) {
		fuzz_absolute(cfg->repos[i].path);
		fuzz_absolute(cfg->repos[i].kconfig);
		if (config_repo_find(cfg, cfg->repos[i].name) !=
		    &cfg->repos[i])
			abort();
	}
	for (i = 0; i < cfg->nr_agents; i++) {
		fuzz_absolute(cfg->agents[i].identity);
		fuzz_absolute(cfg->agents[i].known_hosts);
		if (config_agent_find(cfg, cfg->agents[i].name) !=
		    &cfg->agents[i])
			abort();
	}
	config_free(cfg);
	return 0;
}
