/*
 * Reaching an agent: the transport named by the agent's config entry,
 * looked up in a table. "local" runs bisect-agent as a child process;
 * "ssh" reaches it over SSH (libssh2), through the agent's link when the
 * scheduler made one.
 */
#include <sys/random.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/boot.h"
#include "agents/disk.h"
#include "agents/result.h"
#include "agents/ssh-link.h"
#include "agents/transport-ops.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

static const struct transport_entry {
	const char			*name;
	const struct transport_ops	*ops;	/* NULL: not built yet */
} transport_table[] = {
	{ "local", &transport_local_ops },
	{ "ssh", &transport_ssh_ops },
};

int
transport_open(const struct config_agent *agent, const char *agent_path,
    struct transport **out, char **cause)
{
	const struct transport_entry	*e = NULL;
	struct transport		*t = NULL;
	const char			*kind;
	size_t				 i;
	int				 r = -1;

	kind = agent->transport != NULL ? agent->transport : "local";
	for (i = 0; i < sizeof transport_table / sizeof transport_table[0];
	    i++) {
		if (strcmp(transport_table[i].name, kind) == 0)
			e = &transport_table[i];
	}
	if (e == NULL) {
		error_set(cause, "agent '%s': unknown transport '%s'",
		    agent->name, kind);
		goto out;
	}
	if (e->ops == NULL) {
		error_set(cause, "agent '%s': the %s transport is not built "
		    "yet", agent->name, kind);
		goto out;
	}
	if (agent_path == NULL || agent_path[0] == '\0') {
		error_set(cause, "agent '%s': no bisect-agent program given",
		    agent->name);
		goto out;
	}
	t = xcalloc(1, sizeof *t);
	t->ops = e->ops;
	t->name = xstrdup(agent->name);
	t->agent_path = xstrdup(agent_path);
	if (t->ops->open != NULL && (r = t->ops->open(t, agent, cause)) != 0)
		goto out;
	*out = t;
	t = NULL;
	r = 0;
out:
	transport_close(t);
	return r;
}

int
transport_run(struct transport *t, const struct transport_job *job,
    struct result **out, char **cause)
{
	struct result	*res = NULL;
	int		 r;

	if ((r = t->ops->run(t, job, &res, cause)) == 0 && out != NULL) {
		*out = res;
		res = NULL;
	}
	result_free(res);
	return r;
}

int
transport_info(struct transport *t, char **out, char **cause)
{
	return t->ops->info(t, out, cause);
}

void
transport_close(struct transport *t)
{
	if (t == NULL)
		return;
	if (t->ops->close != NULL)
		t->ops->close(t);
	free(t->name);
	free(t->agent_path);
	free(t);
}

/* Set once by a scheduler; inherited by its children. */
static char	*transport_links;

const char *
transport_link_prefix(void)
{
	return transport_links;
}

int
transport_link_setup(char **cause)
{
	unsigned char	b[8];
	char		hex[17];
	size_t		i;

	if (getrandom(b, sizeof b, 0) != sizeof b)
		return error_errno(cause, "couldn't get random bytes");
	for (i = 0; i < sizeof b; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	free(transport_links);
	transport_links = xasprintf("bisectd-link.%ld.%s", (long)getpid(),
	    hex);
	return 0;
}

void
transport_link_clear(void)
{
	free(transport_links);
	transport_links = NULL;
}

int
transport_link_wanted(const struct config_agent *agent)
{
	return agent->transport != NULL &&
	    strcmp(agent->transport, "ssh") == 0;
}

int
transport_link_listen(const struct config_agent *agent, int *fd, char **cause)
{
	char	*address;
	int	 r;

	if (transport_links == NULL)
		return error_set(cause, "no links were set up");
	address = ssh_link_address(transport_links, agent->name);
	r = ssh_link_listen(address, fd, cause);
	free(address);
	return r;
}

int
transport_link_serve(int fd, const struct config_agent *agent,
    const char *agent_path, char **cause)
{
	struct ssh_session_opts	o;
	enum boot_method	boot = BOOT_NONE;
	char			**disks;
	size_t			nr_disks, i;
	int			r;

	if (agent->boot != NULL && boot_method_parse(agent->boot, &boot) != 0)
		return error_set(cause, "agent '%s': unknown boot method '%s'",
		    agent->name, agent->boot);
	transport_ssh_opts(agent, &o);
	disks = disk_agent_args(agent, &nr_disks);
	r = ssh_link_serve(fd, &o, agent->remote_dir, agent_path, boot,
	    disks, nr_disks, cause);
	for (i = 0; i < nr_disks; i++)
		free(disks[i]);
	free(disks);
	return r;
}

int
transport_run_dir_prepare(const struct transport_job *job, char **cause)
{
	char	*path = NULL;
	int	 r = -1;

	if (dir_create(job->run_dir, cause) != 0)
		goto out;
	path = path_join(job->run_dir, "job.yaml");
	if (file_write_atomic(path, job->job_text, strlen(job->job_text),
	    cause) != 0)
		goto out;
	free(path);
	path = path_join(job->run_dir, "result");
	if (dir_remove_tree(path, cause) != 0)
		goto out;
	r = 0;
out:
	free(path);
	return r;
}
