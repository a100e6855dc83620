/*
 * Loading the config and opening its database, shared by bisectd and every
 * bisectctl command. The agent program is looked for next to our own
 * executable first (an uninstalled build), then $BISECT_AGENT, then PATH.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisectd/context.h"
#include "bisectd/jobcache.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

static char *
context_agent_path(void)
{
	char		 self[PATH_MAX];
	const char	*env = getenv("BISECT_AGENT");
	char		*dir, *p;
	ssize_t		 n;

	if (env != NULL && *env != '\0')
		return xstrdup(env);
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		dir = path_dirname(self);
		p = path_join(dir, "bisect-agent");
		free(dir);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return xstrdup("bisect-agent");
}

int
context_open(const char *config_path, struct context **out, char **cause)
{
	struct context	*ctx = xcalloc(1, sizeof *ctx);
	char		*path = NULL;
	int		 r = -1;

	if (config_find(config_path, &path, cause) != 0)
		goto out;
	if (config_load(path, &ctx->config, cause) != 0)
		goto out;
	if (store_open(ctx->config->db, &ctx->store, cause) != 0)
		goto out;
	ctx->agent_path = context_agent_path();
	*out = ctx;
	ctx = NULL;
	r = 0;
out:
	context_free(ctx);
	free(path);
	return r;
}

void
context_free(struct context *ctx)
{
	if (ctx == NULL)
		return;
	store_close(ctx->store);
	jobcache_free(ctx->jobs);
	config_free(ctx->config);
	free(ctx->agent_path);
	free(ctx);
}

char *
context_lock_path(const struct context *ctx)
{
	return xasprintf("%s.lock", ctx->config->db);
}
