/*
 * The environment a testcase runs with (agents/agent-environ.h), built as
 * a NULL-terminated array of KEY=VALUE strings for execve: a later value
 * of a key replaces the earlier one in place.
 */
#include <stdlib.h>
#include <string.h>

#include "agents/agent-environ.h"
#include "agents/inventory.h"
#include "agents/result.h"
#include "agents/testcase.h"
#include "jobs/job.h"
#include "util/xalloc.h"

extern char **environ;

/* LKP style: lowercase parameter names, exported as they are. */
static int
agent_environ_name(const char *key)
{
	return testcase_check_env_name(key) && strcmp(key, "run") != 0 &&
	    strcmp(key, "monitors") != 0;
}

static void
agent_environ_add(char ***envp, size_t *nr, size_t *alloc, const char *key,
    const char *value)
{
	size_t	klen = strlen(key), i;

	for (i = 0; i < *nr; i++) {
		if (strncmp((*envp)[i], key, klen) == 0 &&
		    (*envp)[i][klen] == '=') {
			free((*envp)[i]);
			(*envp)[i] = xasprintf("%s=%s", key, value);
			return;
		}
	}
	ALLOC_GROW(*envp, *nr + 1, *alloc);
	(*envp)[(*nr)++] = xasprintf("%s=%s", key, value);
	(*envp)[*nr] = NULL;
}

char **
agent_environ(const struct job *job, const struct inventory *inv,
    const char *jobfile, const char *resultdir, const char *workdir)
{
	char		**envp = NULL, *eq, *key;
	size_t		  nr = 0, alloc = 0, i;
	const char	 *v;

	ALLOC_GROW(envp, 1, alloc);
	envp[0] = NULL;
	for (i = 0; environ[i] != NULL; i++) {
		if ((eq = strchr(environ[i], '=')) == NULL)
			continue;
		key = xstrndup(environ[i], (size_t)(eq - environ[i]));
		agent_environ_add(&envp, &nr, &alloc, key, eq + 1);
		free(key);
	}
	for (i = 0; i < job->nr_params; i++) {
		if (agent_environ_name(job->params[i].key))
			agent_environ_add(&envp, &nr, &alloc,
			    job->params[i].key, job->params[i].value);
	}
	if ((v = inventory_get(inv, "nr_cpu")) != NULL)
		agent_environ_add(&envp, &nr, &alloc, "nr_cpu", v);
	if ((v = inventory_get(inv, "nr_node")) != NULL)
		agent_environ_add(&envp, &nr, &alloc, "nr_node", v);
	agent_environ_add(&envp, &nr, &alloc, "BISECT_AGENT_VERSION",
	    BISECT_AGENT_VERSION);
	agent_environ_add(&envp, &nr, &alloc, "BISECT_AGENT_TESTCASE",
	    job->testcase);
	agent_environ_add(&envp, &nr, &alloc, "BISECT_AGENT_JOB", jobfile);
	agent_environ_add(&envp, &nr, &alloc, "BISECT_AGENT_RESULT_DIR",
	    resultdir);
	agent_environ_add(&envp, &nr, &alloc, "BISECT_AGENT_WORKDIR", workdir);
	return envp;
}

void
agent_environ_disks(char ***envp, const struct result *r)
{
	static const char *const keys[] = { "mount_points", "partitions",
	    NULL };
	const char	*v;
	size_t		 nr, alloc, i;

	for (nr = 0; (*envp)[nr] != NULL; nr++)
		;
	alloc = nr + 1;
	for (i = 0; keys[i] != NULL; i++) {
		if ((v = result_env_get(r, keys[i])) != NULL)
			agent_environ_add(envp, &nr, &alloc, keys[i], v);
	}
}

void
agent_environ_free(char **envp)
{
	size_t	i;

	for (i = 0; envp != NULL && envp[i] != NULL; i++)
		free(envp[i]);
	free(envp);
}
