/*
 * The sampler thread: while the testcase runs, it wakes every interval and
 * lets each sampling monitor take a reading (meminfo, the nr_* levels of
 * vmstat, CPU frequencies...), so that a level that moves during the run
 * is reported as its mean and not as whatever it was at the end. One
 * thread for all monitors, sleeping on a condition variable against the
 * monotonic clock, so that stopping it is immediate. It is created with
 * every signal blocked: the agent takes SIGCHLD and SIGTERM with
 * sigtimedwait in its main thread and must keep getting them there.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agents/monitor.h"
#include "util/error.h"
#include "util/xalloc.h"

struct monitor_sampler {
	pthread_t			  thread;
	pthread_mutex_t			  lock;
	pthread_cond_t			  cond;
	int				  stop;
	unsigned			  rounds;
	unsigned			  interval_ms;
	const struct monitor_ops	**ops;
	void				**states;
	size_t				  nr;
};

static void
monitor_sampler_deadline(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *
monitor_sampler_main(void *arg)
{
	struct monitor_sampler	*ms = arg;
	struct timespec		 deadline;
	size_t			 i;
	int			 stop;

	monitor_sampler_deadline(&deadline, ms->interval_ms);
	for (;;) {
		pthread_mutex_lock(&ms->lock);
		while (!ms->stop && pthread_cond_timedwait(&ms->cond,
		    &ms->lock, &deadline) != ETIMEDOUT)
			;
		stop = ms->stop;
		pthread_mutex_unlock(&ms->lock);
		if (stop)
			break;
		for (i = 0; i < ms->nr; i++) {
			if (ms->ops[i]->sample != NULL)
				ms->ops[i]->sample(ms->states[i]);
		}
		pthread_mutex_lock(&ms->lock);
		ms->rounds++;
		pthread_mutex_unlock(&ms->lock);
		monitor_sampler_deadline(&deadline, ms->interval_ms);
	}
	return NULL;
}

int
monitor_sampler_start(struct monitor_sampler **out,
    const struct monitor_ops *const *ops, void *const *states, size_t nr,
    unsigned interval_ms, char **cause)
{
	struct monitor_sampler	*ms = xcalloc(1, sizeof *ms);
	pthread_condattr_t	 attr;
	sigset_t		 all, old;
	int			 e;

	ms->ops = xcalloc(nr + 1, sizeof *ms->ops);
	ms->states = xcalloc(nr + 1, sizeof *ms->states);
	memcpy(ms->ops, ops, nr * sizeof *ops);
	memcpy(ms->states, states, nr * sizeof *states);
	ms->nr = nr;
	ms->interval_ms = interval_ms > 0 ? interval_ms : 1000;
	pthread_mutex_init(&ms->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ms->cond, &attr);
	pthread_condattr_destroy(&attr);

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&ms->thread, NULL, monitor_sampler_main, ms);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		errno = e;
		error_errno(cause, "couldn't start the monitor thread");
		pthread_cond_destroy(&ms->cond);
		pthread_mutex_destroy(&ms->lock);
		free(ms->ops);
		free(ms->states);
		free(ms);
		return -1;
	}
	*out = ms;
	return 0;
}

unsigned
monitor_sampler_rounds(struct monitor_sampler *ms)
{
	unsigned	rounds;

	pthread_mutex_lock(&ms->lock);
	rounds = ms->rounds;
	pthread_mutex_unlock(&ms->lock);
	return rounds;
}

unsigned
monitor_sampler_stop(struct monitor_sampler *ms)
{
	unsigned	rounds;

	if (ms == NULL)
		return 0;
	pthread_mutex_lock(&ms->lock);
	ms->stop = 1;
	pthread_cond_signal(&ms->cond);
	pthread_mutex_unlock(&ms->lock);
	pthread_join(ms->thread, NULL);
	rounds = ms->rounds;
	pthread_cond_destroy(&ms->cond);
	pthread_mutex_destroy(&ms->lock);
	free(ms->ops);
	free(ms->states);
	free(ms);
	return rounds;
}
