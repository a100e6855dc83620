/*
 * The scheduler's agents: their rows read once a turn, each ssh agent's
 * link kept running on the listening socket the daemon holds (and an old
 * config's link retired once idle), and the probes of the agents that
 * need one: never asked, down and due, or refused under an older config.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/transport.h"
#include "bisectd/placement.h"
#include "bisectd/scheduler.h"
#include "bisectd/worker.h"
#include "util/error.h"
#include "util/log.h"
#include "util/xalloc.h"

/* Is the agent's link one of an old config, still to be replaced? */
int
scheduler_agents_link_stale(const struct scheduler *s, const char *agent)
{
	size_t	i;

	for (i = 0; i < s->nr_children; i++) {
		if (s->children[i].kind == SCHEDULER_CHILD_LINK &&
		    s->children[i].stale &&
		    strcmp(s->children[i].agent, agent) == 0)
			return 1;
	}
	return 0;
}

/*
 * After a reload: a link of the old config is stopped once no run or
 * probe is left on its agent; the next turn starts the new one.
 */
static void
scheduler_agents_links_retire(struct scheduler *s)
{
	struct scheduler_child	*c;
	size_t			 i;

	for (i = 0; i < s->nr_children; i++) {
		c = &s->children[i];
		if (c->kind != SCHEDULER_CHILD_LINK || !c->stale ||
		    c->retired ||
		    scheduler_children_on(s, SCHEDULER_CHILD_RUN, c->agent) > 0 ||
		    scheduler_children_on(s, SCHEDULER_CHILD_PROBE,
		    c->agent) > 0)
			continue;
		log_info("agent '%s': its old link stops (pid %ld)", c->agent,
		    (long)c->pid);
		kill(c->pid, SIGTERM);
		c->retired = 1;
	}
}

/* This turn's view of the agents: their rows, by config index. */
int
scheduler_agents_load(struct scheduler *s, char **cause)
{
	struct store_agent	*rows = NULL;
	size_t			 nr = 0, i;
	int			 k;

	for (i = 0; i < s->ctx->config->nr_agents; i++)
		store_agent_release(&s->sv.agents[i]);
	if (store_agent_list(s->ctx->store, &rows, &nr, cause) != 0)
		return -1;
	for (i = 0; i < nr; i++) {
		k = placement_agent_index(&s->sv, rows[i].name);
		if (k >= 0) {
			s->sv.agents[k] = rows[i];
			memset(&rows[i], 0, sizeof rows[i]);
		}
	}
	store_agent_list_free(rows, nr);
	return 0;
}

/*
 * Keep each ssh agent's link running, and probe the agents that need it:
 * never asked since this scheduler started, down and due, or refused
 * under a configuration that has changed since.
 */
void
scheduler_agents_turn(struct scheduler *s)
{
	const struct config_agent	*a;
	const struct store_agent	*row;
	char				*cause = NULL, *stamp;
	int64_t				 now = (int64_t)time(NULL);
	size_t				 i;
	pid_t				 pid;
	int				 need;

	scheduler_agents_links_retire(s);
	for (i = 0; i < s->ctx->config->nr_agents; i++) {
		a = &s->ctx->config->agents[i];
		row = &s->sv.agents[i];
		/* its old link first finishes what it carries, and goes */
		if (scheduler_agents_link_stale(s, a->name))
			continue;
		if (s->link_fds[i] != -1 &&
		    scheduler_children_on(s, SCHEDULER_CHILD_LINK, a->name) == 0 &&
		    scheduler_now() >= s->link_after[i]) {
			s->link_after[i] = scheduler_now() + 1;
			if ((pid = worker_link(s->ctx, a->name, s->link_fds[i],
			    &cause)) == -1) {
				log_error("agent '%s': %s", a->name, cause);
				free(cause);
				cause = NULL;
			} else
				scheduler_child_add(s, pid, SCHEDULER_CHILD_LINK,
				    0, 0, NULL, a->name);
		}
		if (scheduler_children_on(s, SCHEDULER_CHILD_PROBE,
		    a->name) > 0)
			continue;
		if (row->name == NULL || row->state == STORE_AGENT_UNKNOWN)
			need = 1;
		else if (row->state == STORE_AGENT_DOWN)
			need = row->retry_at <= now;
		else if (row->state == STORE_AGENT_REFUSED) {
			stamp = worker_agent_stamp(a);
			need = row->stamp == NULL ||
			    strcmp(stamp, row->stamp) != 0;
			free(stamp);
		} else
			need = 0;
		if (!need)
			continue;
		if ((pid = worker_probe(s->ctx, a->name, &cause)) == -1) {
			log_error("agent '%s': %s", a->name, cause);
			free(cause);
			cause = NULL;
			continue;
		}
		scheduler_child_add(s, pid, SCHEDULER_CHILD_PROBE, 0, 0, NULL,
		    a->name);
	}
}

/*
 * Agents start unknown (to be probed), and each ssh agent gets the
 * listening socket of its link, which this process keeps so that a link
 * that dies can be restarted on it without its clients noticing.
 */
int
scheduler_agents_setup(struct scheduler *s, char **cause)
{
	const struct config_agent	*a;
	size_t				 i, n = s->ctx->config->nr_agents;

	s->link_fds = xcalloc(n + 1, sizeof *s->link_fds);
	s->link_after = xcalloc(n + 1, sizeof *s->link_after);
	s->sv.agents = xcalloc(n + 1, sizeof *s->sv.agents);
	for (i = 0; i < n; i++)
		s->link_fds[i] = -1;
	if (transport_link_setup(cause) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		a = &s->ctx->config->agents[i];
		if (store_agent_reset(s->ctx->store, a->name, cause) != 0)
			return -1;
		if (transport_link_wanted(a) &&
		    transport_link_listen(a, &s->link_fds[i], cause) != 0)
			return -1;
	}
	return 0;
}

void
scheduler_agents_free(struct scheduler *s)
{
	size_t	i;

	for (i = 0; s->link_fds != NULL && i < s->ctx->config->nr_agents;
	    i++) {
		if (s->link_fds[i] != -1)
			close(s->link_fds[i]);
		store_agent_release(&s->sv.agents[i]);
	}
	free(s->link_fds);
	free(s->link_after);
	free(s->sv.agents);
	transport_link_clear();
}
