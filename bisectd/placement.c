/*
 * Where runs go (docs/agents.md, "Placing runs on agents"): a job's runs
 * spread over the agents that can run it through fixed positions, so every
 * commit has the same share of samples on each machine, and a job's
 * requires: matched against each agent's cached inventory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/monitor.h"
#include "agents/testcase.h"
#include "bisectd/jobcache.h"
#include "bisectd/placement.h"
#include "bisectd/worker.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static int
placement_job_requires(const struct job *job)
{
	size_t	i;

	for (i = 0; i < job->nr_params; i++) {
		if (strncmp(job->params[i].key, "requires.", 9) == 0 ||
		    strcmp(job->params[i].key, "need_memory") == 0)
			return 1;
	}
	return 0;
}

int
placement_job_placeable(struct context *ctx, const struct job *job,
    char **why)
{
	const struct config_agent	*a;
	struct store_agent		 row;
	struct strbuf			 reasons = STRBUF_INIT;
	char				*one, *cause = NULL;
	size_t				 i;
	int				 found, r = -1;

	memset(&row, 0, sizeof row);
	if (ctx->config->nr_agents == 0 && !placement_job_requires(job))
		return 1;
	for (i = 0; i < ctx->config->nr_agents; i++) {
		a = &ctx->config->agents[i];
		one = NULL;
		/* a monitor the agent's boot method cannot run (qemu) */
		if (monitor_job_boot(job, a->boot, &one) != 0 ||
		    !testcase_check_agent_fits(job, a, &one)) {
			strbuf_addf(&reasons, "%sagent '%s': %s", reasons.len ?
			    "; " : "", a->name, one);
			free(one);
			continue;
		}
		if (!placement_job_requires(job)) {
			r = 1;
			goto out;
		}
		store_agent_release(&row);
		if (store_agent_get(ctx->store, a->name, &row, &found,
		    &cause) != 0)
			goto out;
		if (!found || !row.has_inventory) {
			/* never inventoried: ask it now */
			if (worker_probe_now(ctx->store, a, ctx->agent_path,
			    &one) != 0) {
				strbuf_addf(&reasons, "%sagent '%s': no "
				    "inventory, it did not answer (%s)",
				    reasons.len ? "; " : "", a->name, one);
				free(one);
				continue;
			}
			store_agent_release(&row);
			if (store_agent_get(ctx->store, a->name, &row, &found,
			    &cause) != 0)
				goto out;
		}
		if (row.state == STORE_AGENT_REFUSED)
			one = xasprintf("refused (%s)", row.error);
		else if (job_param_requires_met(job, row.nr_node, row.nr_cpu,
		    row.memory, &one)) {
			r = 1;
			goto out;
		}
		strbuf_addf(&reasons, "%sagent '%s': %s", reasons.len ? "; " :
		    "", a->name, one);
		free(one);
	}
	*why = xasprintf("no agent can run it: %s", reasons.buf);
	r = 0;
out:
	if (r < 0) {
		error_set(why, "%s", cause);
		free(cause);
	}
	store_agent_release(&row);
	strbuf_release(&reasons);
	return r;
}

int
placement_agent_index(const struct services *s, const char *name)
{
	size_t	i;

	for (i = 0; i < s->ctx->config->nr_agents; i++) {
		if (strcmp(s->ctx->config->agents[i].name, name) == 0)
			return (int)i;
	}
	return -1;
}

static int
placement_agent_in(const struct services *s, size_t i,
    enum store_agent_state state)
{
	return s->agents[i].name != NULL &&
	    s->agents[i].state == state;
}

static int
placement_free_slots(const struct services *s, size_t i)
{
	const struct config_agent	*a = &s->ctx->config->agents[i];

	return (a->slots > 0 ? a->slots : 1) - services_runs_on(s, a->name);
}

/* The parsed job of a row (the context's cache: jobs never change). */
static const struct job *
placement_job(struct services *s, int64_t id)
{
	return jobcache_get(&s->ctx->jobs, s->ctx->store, id, NULL);
}

/*
 * May agent i run the job? 1 yes; 0 no, with *why; -1 not known yet (it
 * has no inventory and has not been asked since this scheduler started).
 */
static int
placement_eligible(const struct services *s, size_t i, const struct job *job,
    char **why)
{
	const struct store_agent	*row = &s->agents[i];
	const struct config_agent	*a = &s->ctx->config->agents[i];

	if (job != NULL && (monitor_job_boot(job, a->boot, why) != 0 ||
	    !testcase_check_agent_fits(job, a, why)))
		return 0;
	if (row->name != NULL && row->state == STORE_AGENT_REFUSED) {
		*why = xasprintf("refused (%s)", row->error != NULL ?
		    row->error : "no reason");
		return 0;
	}
	if (job == NULL || !placement_job_requires(job))
		return 1;
	if (row->name == NULL || !row->has_inventory) {
		if (row->name == NULL || row->state == STORE_AGENT_UNKNOWN)
			return -1;
		*why = xasprintf("never answered with its inventory (%s)",
		    row->error != NULL ? row->error : "no reason");
		return 0;
	}
	return job_param_requires_met(job, row->nr_node, row->nr_cpu,
	    row->memory, why);
}

/*
 * A job's positions (see 0004-agents.sql), made on its first run from the
 * agents that can run it, rotated by the job's id so that jobs start on
 * different machines. *nr is 0 while an agent's inventory is awaited;
 * *impossible is set, with *why, when no agent can run the job.
 */
static int
placement_positions(struct services *s, int64_t id, const struct job *job,
    char ***pos, size_t *nr, int *impossible, char **why, char **cause)
{
	struct strbuf	 reasons = STRBUF_INIT;
	size_t		*eligible = NULL, n = 0, i;
	char		*one;
	int		 waiting = 0, e, r = -1;

	*impossible = 0;
	if (store_job_agents_get(s->ctx->store, id, pos, nr, cause) != 0)
		return -1;
	if (*nr > 0)
		return 0;
	free(*pos);
	*pos = NULL;
	eligible = xcalloc(s->ctx->config->nr_agents + 1, sizeof *eligible);
	for (i = 0; i < s->ctx->config->nr_agents; i++) {
		one = NULL;
		e = placement_eligible(s, i, job, &one);
		if (e == 1)
			eligible[n++] = i;
		else if (e < 0)
			waiting = 1;
		else
			strbuf_addf(&reasons, "%sagent '%s': %s", reasons.len ?
			    "; " : "", s->ctx->config->agents[i].name, one);
		free(one);
	}
	if (waiting) {
		r = 0;
		goto out;
	}
	if (n == 0) {
		*impossible = 1;
		*why = xasprintf("no agent can run this job: %s", reasons.buf);
		r = 0;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (store_job_agents_set(s->ctx->store, id, (int)i,
		    s->ctx->config->agents[eligible[(i + (size_t)id) %
		    n]].name, cause) != 0)
			goto out;
	}
	r = store_job_agents_get(s->ctx->store, id, pos, nr, cause);
out:
	strbuf_release(&reasons);
	free(eligible);
	return r;
}

/*
 * Where the run goes: its position's agent when that one is up (and then
 * only when it has a free slot: a run never goes elsewhere because its
 * machine is busy). When that agent is out of service, the position moves
 * to another agent that is up -- but only while the job has no finished
 * run on the agent it leaves (or that agent is refused for good or gone
 * from the config): otherwise commits already measured there would be
 * compared with commits measured elsewhere, and the run waits for its
 * machine to come back. Returns the config index, or -1 to wait.
 */
static int
placement_place(struct services *s, const struct store_run *run,
    const struct job *job, char **pos, size_t nr_pos, char **cause)
{
	size_t	 p = (size_t)run->seq % nr_pos, i, k;
	char	*why;
	int	 cur, done = 0, best = -1, best_n = 0, n, e;

	cur = placement_agent_index(s, pos[p]);
	if (cur >= 0 && placement_agent_in(s, (size_t)cur, STORE_AGENT_UP))
		return placement_free_slots(s, (size_t)cur) > 0 ? cur : -1;
	if (cur >= 0 && (s->agents[cur].name == NULL ||
	    placement_agent_in(s, (size_t)cur, STORE_AGENT_UNKNOWN)))
		return -1;
	if (cur >= 0 &&
	    !placement_agent_in(s, (size_t)cur, STORE_AGENT_REFUSED)) {
		if (store_run_done_on(s->ctx->store, run->job, pos[p], &done,
		    cause) != 0)
			return -2;
		if (done > 0)
			return -1;
	}
	for (i = 0; i < s->ctx->config->nr_agents; i++) {
		if ((int)i == cur || !placement_agent_in(s, i, STORE_AGENT_UP))
			continue;
		why = NULL;
		e = placement_eligible(s, i, job, &why);
		free(why);
		if (e != 1)
			continue;
		for (n = 0, k = 0; k < nr_pos; k++)
			n += strcmp(pos[k], s->ctx->config->agents[i].name) == 0;
		if (best == -1 || n < best_n) {
			best = (int)i;
			best_n = n;
		}
	}
	if (best == -1)
		return -1;
	log_info("job %lld: runs at position %zu move from agent '%s' (%s) "
	    "to '%s'", (long long)run->job, p, pos[p], cur >= 0 &&
	    s->agents[cur].error != NULL ? s->agents[cur].error :
	    "no longer configured", s->ctx->config->agents[best].name);
	if (store_job_agents_set(s->ctx->store, run->job, (int)p,
	    s->ctx->config->agents[best].name, cause) != 0)
		return -2;
	free(pos[p]);
	pos[p] = xstrdup(s->ctx->config->agents[best].name);
	return placement_free_slots(s, (size_t)best) > 0 ? best : -1;
}

int
placement_find(struct services *s, const struct store_run *run, int *agent,
    char **why, char **cause)
{
	const struct job	 *job = placement_job(s, run->job);
	char			**pos = NULL;
	size_t			  nr_pos = 0;
	int			  impossible = 0, r = -1;

	*agent = -1;
	if (placement_positions(s, run->job, job, &pos, &nr_pos, &impossible,
	    why, cause) != 0)
		goto out;
	if (impossible) {
		r = 1;
		goto out;
	}
	if (nr_pos > 0 && (*agent = placement_place(s, run, job, pos, nr_pos,
	    cause)) == -2)
		goto out;
	if (*agent < 0)
		*agent = -1;
	r = 0;
out:
	while (nr_pos > 0)
		free(pos[--nr_pos]);
	free(pos);
	return r;
}

