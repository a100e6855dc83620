/*
 * The "ssh" transport. In a process started under a scheduler that set up
 * links (transport_link_setup), every call goes to the agent's link, the
 * process holding its one connection (agents/ssh-link.c), so a run costs
 * no handshake. Elsewhere (bisectctl agents, a benchmark) the transport
 * connects by itself when opened and uses that connection until closed.
 * Either way the work on the machine is agents/ssh-remote.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "agents/ssh-link.h"
#include "agents/ssh-remote.h"
#include "agents/ssh-session.h"
#include "agents/transport-ops.h"
#include "util/error.h"
#include "util/xalloc.h"

#define SSH_INFO_TIMEOUT	60

struct transport_ssh {
	char			*link;		/* its link's address, or NULL */
	struct ssh_session	*s;		/* without a link */
	struct ssh_remote	*r;
};

void
transport_ssh_opts(const struct config_agent *a, struct ssh_session_opts *o)
{
	memset(o, 0, sizeof *o);
	o->name = a->name;
	o->host = a->host;
	o->port = a->port > 0 ? a->port : 22;
	o->user = a->user;
	o->identity = a->identity;
	o->known_hosts = a->known_hosts;
	o->tofu = a->tofu;
	o->connect_timeout = a->connect_timeout > 0 ?
	    (unsigned)a->connect_timeout : 10;
	o->keepalive = a->keepalive > 0 ? (unsigned)a->keepalive : 10;
	o->silence_timeout = a->silence_timeout > 0 ?
	    (unsigned)a->silence_timeout : 30;
}

static int
transport_ssh_open(struct transport *t, const struct config_agent *a,
    char **cause)
{
	struct transport_ssh	*ts = xcalloc(1, sizeof *ts);
	struct ssh_session_opts	 o;
	const char		*prefix = transport_link_prefix();
	int			 r;

	t->data = ts;
	if (a->host == NULL || a->user == NULL || a->identity == NULL ||
	    a->known_hosts == NULL)
		return error_set(cause, "agent '%s': an ssh agent needs 'host', "
		    "'user', 'identity' and 'known_hosts'", a->name);
	if (prefix != NULL) {
		ts->link = ssh_link_address(prefix, a->name);
		return 0;
	}
	transport_ssh_opts(a, &o);
	if ((r = ssh_session_open(&o, &ts->s, cause)) != 0)
		return r;
	ts->r = ssh_remote_new(ts->s, a->name, a->remote_dir, t->agent_path);
	return 0;
}

static int
transport_ssh_run(struct transport *t, const struct transport_job *job,
    char **cause)
{
	struct transport_ssh	*ts = t->data;

	if (ts->link != NULL)
		return ssh_link_run(ts->link, job, cause);
	return ssh_remote_run(ts->r, job, -1, cause);
}

static int
transport_ssh_info(struct transport *t, char **out, char **cause)
{
	struct transport_ssh	*ts = t->data;

	if (ts->link != NULL)
		return ssh_link_info(ts->link, SSH_INFO_TIMEOUT, out, cause);
	return ssh_remote_info(ts->r, out, cause);
}

static void
transport_ssh_close(struct transport *t)
{
	struct transport_ssh	*ts = t->data;

	if (ts == NULL)
		return;
	ssh_remote_free(ts->r);
	ssh_session_free(ts->s);
	free(ts->link);
	free(ts);
	t->data = NULL;
}

const struct transport_ops transport_ssh_ops = {
	.name = "ssh",
	.open = transport_ssh_open,
	.run = transport_ssh_run,
	.info = transport_ssh_info,
	.close = transport_ssh_close,
};
