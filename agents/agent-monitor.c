/*
 * The monitors of one run (agents/agent-monitor.h). LKP's monitor_delay
 * starts its monitors that many seconds into the test (lib/job.sh wakes
 * them then); here all but time and interference, which measure the whole
 * testcase and the machine's disturbance, start then with a sampler of
 * their own, and env monitors_not_started names them when the testcase
 * ends first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent-monitor.h"
#include "agents/result.h"
#include "jobs/job.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define AGENT_MONITOR_INTERVAL	1000	/* ms between monitor readings */

/* Seconds of monitor_delay (normalised by jobs/job-param.c); 0: none. */
static unsigned
agent_monitor_delay(const struct job *job)
{
	const char	*v = job_param(job, "monitor_delay");
	char		*end;
	unsigned long	 n;

	if (v == NULL || *v < '0' || *v > '9')
		return 0;
	n = strtoul(v, &end, 10);
	return *end == '\0' && n <= 30UL * 24 * 3600 ? (unsigned)n : 0;
}

/* Move every monitor but time and interference from mons into late. */
static void
agent_monitor_late_split(const struct monitor_ops **mons, size_t *nr,
    struct agent_monitor_late *late)
{
	size_t	i, kept = 0;

	for (i = 0; i < *nr; i++) {
		if (mons[i] == &monitor_time_ops ||
		    mons[i] == &monitor_interference_ops)
			mons[kept++] = mons[i];
		else
			late->mons[late->nr++] = mons[i];
	}
	*nr = kept;
}

/* env KEY gets " VALUE" after what the first start gave it. */
static void
agent_monitor_env_append(struct result *r, const char *key, const char *before,
    const char *added)
{
	char	*v;

	if (added == NULL || *added == '\0') {
		if (before != NULL)
			result_env_set(r, key, before);
		return;
	}
	if (before == NULL || *before == '\0') {
		result_env_set(r, key, added);
		return;
	}
	v = xasprintf("%s %s", before, added);
	result_env_set(r, key, v);
	free(v);
}

void
agent_monitor_late_start(void *arg, int pgid, double at)
{
	struct agent_monitor_late	*late = arg;
	const char		*v;
	char			*ran, *gone = NULL, *cause = NULL, *at_text;
	size_t			 i;
	int			 sampling = 0;

	ran = xstrdup((v = result_env_get(late->r, "monitors")) != NULL ?
	    v : "");
	if ((v = result_env_get(late->r, "monitors_unavailable")) != NULL)
		gone = xstrdup(v);
	monitor_start_all(late->mrun, late->r, late->mons, late->state,
	    &late->nr);
	late->started = 1;
	/* when they started, in seconds after the testcase's fork */
	at_text = xasprintf("%.3f", at);
	result_env_set(late->r, "monitors_delayed_started", at_text);
	free(at_text);
	agent_monitor_env_append(late->r, "monitors", ran,
	    result_env_get(late->r, "monitors"));
	/* set again only when one of these is unavailable (names differ) */
	v = result_env_get(late->r, "monitors_unavailable");
	agent_monitor_env_append(late->r, "monitors_unavailable", gone,
	    v != NULL && (gone == NULL || strcmp(v, gone) != 0) ? v : NULL);
	for (i = 0; i < late->nr; i++) {
		sampling |= late->mons[i]->sample != NULL;
		if (late->mons[i]->attach != NULL)
			late->mons[i]->attach(late->state[i], pgid);
	}
	if (sampling && monitor_sampler_start(&late->sampler, late->mons,
	    (void *const *)late->state, late->nr, AGENT_MONITOR_INTERVAL,
	    &cause) != 0) {
		result_set_error(late->r, "monitor_delay: %s", cause);
		free(cause);
	}
	free(ran);
	free(gone);
}

/* The monitors the testcase ended before: env monitors_not_started. */
static void
agent_monitor_late_missed(struct agent_monitor_late *late, unsigned delay)
{
	struct strbuf	sb = STRBUF_INIT;
	char		*why;
	size_t		i;

	if (late->started || late->nr == 0)
		return;
	for (i = 0; i < late->nr; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", late->mons[i]->name);
	result_env_set(late->r, "monitors_not_started", sb.buf);
	why = xasprintf("the testcase ended before monitor_delay (%us)",
	    delay);
	result_env_set(late->r, "monitors_not_started_why", why);
	free(why);
	strbuf_release(&sb);
	late->nr = 0;
}

void
agent_monitor_init(struct agent_monitor *am)
{
	memset(am, 0, sizeof *am);
}

int
agent_monitor_start(struct agent_monitor *am, const struct monitor_run *mrun,
    struct result *r, char **cause)
{
	size_t	i;
	int	sampling = 0;

	am->mrun = *mrun;
	am->delay = agent_monitor_delay(mrun->job);
	am->nr = monitor_select(mrun->job, r, am->mons, AGENT_MONITOR_MAX);
	if (am->delay > 0) {
		agent_monitor_late_split(am->mons, &am->nr, &am->late);
		am->late.mrun = &am->mrun;
		am->late.r = r;
	}
	monitor_start_all(&am->mrun, r, am->mons, am->state, &am->nr);
	for (i = 0; i < am->nr; i++)
		sampling |= am->mons[i]->sample != NULL;
	if (sampling && monitor_sampler_start(&am->sampler, am->mons,
	    (void *const *)am->state, am->nr, AGENT_MONITOR_INTERVAL,
	    cause) != 0)
		return -1;
	return 0;
}

void
agent_monitor_sampler_stop(struct agent_monitor *am)
{
	monitor_sampler_stop(am->sampler);
	am->sampler = NULL;
	monitor_sampler_stop(am->late.sampler);
	am->late.sampler = NULL;
}

void
agent_monitor_stop(struct agent_monitor *am, const struct monitor_exit *exit,
    struct result *r)
{
	const struct monitor_ops *m;
	void			 *st;
	char			 *mcause = NULL;
	size_t			  i;

	if (am->delay > 0) {
		result_env_set(r, "monitor_delay", job_param(am->mrun.job,
		    "monitor_delay"));
		agent_monitor_late_missed(&am->late, am->delay);
	}
	for (i = 0; i < am->nr + am->late.nr; i++) {
		m = i < am->nr ? am->mons[i] : am->late.mons[i - am->nr];
		st = i < am->nr ? am->state[i] : am->late.state[i - am->nr];
		if (m->stop(st, exit, r, &mcause) != 0) {
			result_set_error(r, "monitor '%s': %s", m->name,
			    mcause);
			free(mcause);
			mcause = NULL;
		}
	}
}

void
agent_monitor_free(struct agent_monitor *am)
{
	size_t	i;

	agent_monitor_sampler_stop(am);
	for (i = 0; i < am->nr; i++) {
		if (am->mons[i]->free != NULL)
			am->mons[i]->free(am->state[i]);
	}
	for (i = 0; am->late.started && i < am->late.nr; i++) {
		if (am->late.mons[i]->free != NULL)
			am->late.mons[i]->free(am->late.state[i]);
	}
}
