/*
 * The "ssh" transport: under a scheduler that set up links, every call goes
 * to the agent's link, the process holding its one connection
 * (agents/ssh-link.c); elsewhere it connects by itself. The work on the
 * machine is agents/ssh-remote.c's; boot: kexec is agents/ssh-boot.c's
 * (docs/agents.md, "ssh", "One connection per agent: links").
 */
#include <stdlib.h>
#include <string.h>

#include "agents/boot.h"
#include "agents/disk.h"
#include "agents/result.h"
#include "agents/ssh-boot.h"
#include "agents/ssh-link.h"
#include "agents/ssh-remote.h"
#include "agents/ssh-session.h"
#include "agents/transport-ops.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

#define SSH_INFO_TIMEOUT	60

struct transport_ssh {
	char			*link;		/* its link's address, or NULL */
	struct ssh_session	*s;		/* without a link */
	struct ssh_remote	*r;
	struct ssh_session_opts	 opts;		/* to connect again, */
	char			*strings[5];	/* with its strings */
	char			*remote_dir;
	enum boot_method	 boot;
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
	char			**disks;
	size_t			  nr_disks, i;
	int			 r;

	t->data = ts;
	if (a->host == NULL || a->user == NULL || a->identity == NULL ||
	    a->known_hosts == NULL)
		return error_set(cause, "agent '%s': an ssh agent needs 'host', "
		    "'user', 'identity' and 'known_hosts'", a->name);
	if (a->boot != NULL && boot_method_parse(a->boot, &ts->boot) != 0)
		return error_set(cause, "agent '%s': unknown boot method '%s' "
		    "(none, qemu, kexec)", a->name, a->boot);
	if (ts->boot == BOOT_KEXEC && a->slots > 1)
		return error_set(cause, "agent '%s': boot: kexec reboots the "
		    "machine for each run: it takes 'slots: 1', not %d",
		    a->name, a->slots);
	if (prefix != NULL) {
		ts->link = ssh_link_address(prefix, a->name);
		return 0;
	}
	transport_ssh_opts(a, &o);
	if ((r = ssh_session_open(&o, &ts->s, cause)) != 0)
		return r;
	ts->r = ssh_remote_new(ts->s, a->name, a->remote_dir, t->agent_path);
	ssh_remote_set_boot(ts->r, ts->boot == BOOT_QEMU ? BOOT_QEMU :
	    BOOT_NONE);
	disks = disk_agent_args(a, &nr_disks);
	ssh_remote_set_disks(ts->r, disks, nr_disks);
	for (i = 0; i < nr_disks; i++)
		free(disks[i]);
	free(disks);
	ts->opts = o;
	ts->opts.name = ts->strings[0] = xstrdup(o.name);
	ts->opts.host = ts->strings[1] = xstrdup(o.host);
	ts->opts.user = ts->strings[2] = xstrdup(o.user);
	ts->opts.identity = ts->strings[3] = xstrdup(o.identity);
	ts->opts.known_hosts = ts->strings[4] = xstrdup(o.known_hosts);
	ts->remote_dir = a->remote_dir != NULL ? xstrdup(a->remote_dir) :
	    NULL;
	return 0;
}

static struct ssh_remote *
transport_ssh_boot_remote(void *arg)
{
	struct transport	*t = arg;
	struct transport_ssh	*ts = t->data;

	if (ts->s == NULL || ssh_session_dead(ts->s, NULL))
		return NULL;
	return ts->r;
}

/* Without a link: a new connection of our own after the reboot. */
static int
transport_ssh_boot_reconnect(void *arg, unsigned limit, char **cause)
{
	struct transport	*t = arg;
	struct transport_ssh	*ts = t->data;
	struct ssh_session_opts	 o = ts->opts;
	int			 r;

	ssh_remote_free(ts->r);
	ssh_session_free(ts->s);
	ts->r = NULL;
	ts->s = NULL;
	if (limit > 0 && limit < o.connect_timeout)
		o.connect_timeout = limit;
	if ((r = ssh_session_open(&o, &ts->s, cause)) != 0)
		return r;
	ts->r = ssh_remote_new(ts->s, t->name, ts->remote_dir, t->agent_path);
	return 0;
}

/* The link's process checked the result it left in RUN_DIR: read here. */
static int
transport_ssh_link_run(struct transport *t, const struct transport_job *job,
    struct result **out, char **cause)
{
	struct transport_ssh	*ts = t->data;
	char			*dir, *why = NULL;
	int			 r;

	if ((r = ssh_link_run(ts->link, job, cause)) != 0)
		return r;
	dir = path_join(job->run_dir, "result");
	if ((r = result_load(dir, out, &why)) != 0) {
		error_set(cause, "agent '%s': the result its link left: %s",
		    t->name, why);
		free(why);
	}
	free(dir);
	return r;
}

static int
transport_ssh_run(struct transport *t, const struct transport_job *job,
    struct result **out, char **cause)
{
	struct transport_ssh	*ts = t->data;
	struct ssh_boot_conn	 bc;

	if (ts->link != NULL)
		return transport_ssh_link_run(t, job, out, cause);
	if (ts->boot == BOOT_KEXEC) {
		bc.remote = transport_ssh_boot_remote;
		bc.reconnect = transport_ssh_boot_reconnect;
		bc.arg = t;
		return ssh_boot_kexec_run(&bc, t->name, ts->opts.user, job, -1,
		    out, cause);
	}
	if (ts->r == NULL)
		return error_set(cause, "agent '%s': not connected", t->name);
	return ssh_remote_run(ts->r, job, -1, out, cause);
}

static int
transport_ssh_info(struct transport *t, char **out, char **cause)
{
	struct transport_ssh	*ts = t->data;

	if (ts->link != NULL)
		return ssh_link_info(ts->link, SSH_INFO_TIMEOUT, out, cause);
	if (ts->r == NULL)
		return error_set(cause, "agent '%s': not connected", t->name);
	return ssh_remote_info(ts->r, out, cause);
}

static void
transport_ssh_close(struct transport *t)
{
	struct transport_ssh	*ts = t->data;
	size_t			 i;

	if (ts == NULL)
		return;
	ssh_remote_free(ts->r);
	ssh_session_free(ts->s);
	free(ts->link);
	free(ts->remote_dir);
	for (i = 0; i < sizeof ts->strings / sizeof ts->strings[0]; i++)
		free(ts->strings[i]);
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
