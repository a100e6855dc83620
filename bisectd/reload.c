/*
 * SIGHUP: the config again (docs/design.md, "Reloading the config"). A
 * file that fails bisectd's start-up checks, or would move the database or
 * the work directory, leaves the old config in force; a good one is in
 * force from the next turn, and an agent whose connection changed keeps its
 * old link until nothing is left on it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/transport.h"
#include "bisectd/reload.h"
#include "bisectd/scheduler.h"
#include "util/error.h"
#include "util/log.h"
#include "util/xalloc.h"

static int
reload_same_string(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

int
reload_agent_same_link(const struct config_agent *a,
    const struct config_agent *b)
{
	return reload_same_string(a->transport, b->transport) &&
	    reload_same_string(a->host, b->host) && a->port == b->port &&
	    reload_same_string(a->user, b->user) &&
	    reload_same_string(a->identity, b->identity) &&
	    reload_same_string(a->known_hosts, b->known_hosts) &&
	    a->tofu == b->tofu && a->connect_timeout == b->connect_timeout &&
	    a->keepalive == b->keepalive &&
	    a->silence_timeout == b->silence_timeout &&
	    reload_same_string(a->remote_dir, b->remote_dir) &&
	    reload_same_string(a->boot, b->boot);
}

/*
 * The file again, by the absolute name it was loaded under, without its
 * "./" steps: "/srv/./bisectd.yaml" would put the config's directory,
 * and every relative path in it, at "/srv/.", not where they were.
 */
static char *
reload_path(const char *path)
{
	char	*p = xstrdup(path), *q;
	size_t	 len;

	while ((q = strstr(p, "/./")) != NULL)
		memmove(q, q + 2, strlen(q + 2) + 1);
	len = strlen(p);
	if (len > 2 && strcmp(p + len - 2, "/.") == 0)
		p[len - 2] = '\0';
	return p;
}

/* What a running daemon cannot change: where its state is. */
static int
reload_check_state(const struct config *old, const struct config *new,
    char **cause)
{
	if (strcmp(old->db, new->db) != 0)
		return error_set(cause, "%s: 'db' moved from '%s' to '%s': "
		    "a running daemon keeps its database; restart it to "
		    "move", new->path, old->db, new->db);
	if (strcmp(old->workdir, new->workdir) != 0)
		return error_set(cause, "%s: 'workdir' moved from '%s' to "
		    "'%s': a running daemon keeps its work directory; "
		    "restart it to move", new->path, old->workdir,
		    new->workdir);
	return 0;
}

/* The link children of an agent that is gone or reached another way. */
static void
reload_links_retire(struct scheduler *s, const struct config *new)
{
	const struct config_agent	*was, *now;
	struct scheduler_child		*c;
	size_t				 i;

	for (i = 0; i < s->nr_children; i++) {
		c = &s->children[i];
		if (c->kind != SCHEDULER_CHILD_LINK || c->stale)
			continue;
		was = config_agent_find(s->ctx->config, c->agent);
		now = config_agent_find(new, c->agent);
		if (was != NULL && now != NULL &&
		    reload_agent_same_link(was, now))
			continue;
		c->stale = 1;
		log_info("agent '%s': its link is replaced once the work on "
		    "it is done (%s)", c->agent, now == NULL ?
		    "no longer in the config" : "its settings changed");
	}
}

int
reload_config(struct scheduler *s, char **cause)
{
	struct config			*old = s->ctx->config, *new = NULL;
	const struct config_agent	*a, *was;
	struct store_agent		*rows = NULL;
	int				*fds = NULL, r = -1;
	double				*after = NULL;
	size_t				 i, j, n;
	char				*why = NULL, *path = NULL;

	if (old->path == NULL)
		return error_set(cause, "the config was not loaded from a "
		    "file");
	path = reload_path(old->path);
	if (config_load(path, &new, cause) != 0 ||
	    reload_check_state(old, new, cause) != 0)
		goto out;
	n = new->nr_agents;
	fds = xcalloc(n + 1, sizeof *fds);
	after = xcalloc(n + 1, sizeof *after);
	rows = xcalloc(n + 1, sizeof *rows);
	for (i = 0; i < n; i++) {
		a = &new->agents[i];
		fds[i] = -1;
		for (j = 0; j < old->nr_agents; j++) {
			if (strcmp(old->agents[j].name, a->name) == 0)
				break;
		}
		was = j < old->nr_agents ? &old->agents[j] : NULL;
		if (was != NULL && s->link_fds[j] != -1 &&
		    transport_link_wanted(a)) {
			/* the same socket: its clients never notice */
			fds[i] = s->link_fds[j];
			s->link_fds[j] = -1;
			after[i] = s->link_after[j];
		} else if (transport_link_wanted(a) &&
		    transport_link_listen(a, &fds[i], &why) != 0) {
			log_error("agent '%s': %s", a->name, why);
			free(why);
			why = NULL;
		}
		if (was != NULL && reload_agent_same_link(was, a))
			continue;
		/* new, or reached another way: probe it under the new one */
		if (store_agent_reset(s->ctx->store, a->name, &why) != 0) {
			log_error("agent '%s': %s", a->name, why);
			free(why);
			why = NULL;
		}
	}
	reload_links_retire(s, new);
	for (j = 0; j < old->nr_agents; j++) {
		if (s->link_fds[j] != -1)
			close(s->link_fds[j]);
		store_agent_release(&s->sv.agents[j]);
	}
	free(s->link_fds);
	free(s->link_after);
	free(s->sv.agents);
	s->link_fds = fds;
	s->link_after = after;
	s->sv.agents = rows;
	fds = NULL;
	after = NULL;
	rows = NULL;
	s->ctx->config = new;
	log_info("bisectd: config '%s' reloaded (%zu repositories, %zu "
	    "agents); work already started goes on under the old one",
	    new->path, new->nr_repos, new->nr_agents);
	new = old;
	s->sv.progress = 1;
	r = 0;
out:
	config_free(new);
	free(path);
	free(fds);
	free(after);
	free(rows);
	return r;
}
