/*
 * The scheduler (DESIGN §2): a loop that reads the database, decides what
 * to start (builds, runs, bisection steps), starts long work in child
 * processes and reaps them. bisectd runs it until told to stop; bisectctl
 * --wait runs it in-process until its own request is finished.
 */
#ifndef BISECTD_SCHEDULER_H
#define BISECTD_SCHEDULER_H

#include <stdint.h>
#include <sys/types.h>

#include "bisectd/context.h"
#include "bisectd/services.h"

struct tracker;

enum scheduler_child_kind {
	SCHEDULER_CHILD_BUILD,
	SCHEDULER_CHILD_RUN,
	SCHEDULER_CHILD_PROBE,		/* asks an agent for its inventory */
	SCHEDULER_CHILD_LINK,		/* holds an ssh agent's connection */
	SCHEDULER_CHILD_FETCH,		/* fetches a tracked repository */
};

struct scheduler_child {
	pid_t				 pid;
	enum scheduler_child_kind	 kind;
	int64_t				 id;
	int64_t				 token;
	char				*repo;
	char				*agent;
	int				 stale;	/* a link under an old config */
	int				 retired; /* told to stop */
};

/* A dead child's work whose requeue could not be written yet (disk full). */
struct scheduler_orphan {
	enum scheduler_child_kind	 kind;
	int64_t				 id;
	int64_t				 token;
	char				*why;
	unsigned			 tries;
};

struct scheduler {
	struct context		*ctx;
	struct services		 sv;		/* what its callees get */
	struct scheduler_orphan	*orphans;
	size_t			 nr_orphans;
	size_t			 alloc_orphans;
	struct scheduler_child	*children;
	size_t			 nr_children;
	size_t			 alloc_children;
	struct tracker		*tracker;	/* continuous mode */
	int			*link_fds;	/* by agent: listening, or -1 */
	double			*link_after;	/* by agent: restart after */
};

struct scheduler_opts {
	int64_t		  wait_request;	/* 0: run until signalled */
	/* called once per turn, e.g. to print progress */
	void		(*tick)(struct scheduler *, void *payload);
	void		 *payload;
};

int	scheduler_run(struct context *, const struct scheduler_opts *,
	    char **cause);
/*
 * Wait for a request to finish: run the scheduler in-process while no
 * daemon holds the lock, else follow the daemon's progress in the database.
 */
int	scheduler_wait(struct context *, int64_t request,
	    void (*tick)(struct context *, int64_t, void *), void *payload,
	    char **cause);

/*
 * Within the scheduler (scheduler.c, scheduler-agents.c): the monotonic
 * clock, the children it keeps, and the agents' turn.
 */
double	scheduler_now(void);
void	scheduler_child_add(struct scheduler *, pid_t pid,
	    enum scheduler_child_kind, int64_t id, int64_t token,
	    const char *repo, const char *agent);
int	scheduler_children_on(const struct scheduler *,
	    enum scheduler_child_kind, const char *agent);
int	scheduler_agents_setup(struct scheduler *, char **cause);
void	scheduler_agents_free(struct scheduler *);
int	scheduler_agents_load(struct scheduler *, char **cause);
void	scheduler_agents_turn(struct scheduler *);
/* Is the agent's link one of an old config, still to be replaced? */
int	scheduler_agents_link_stale(const struct scheduler *,
	    const char *agent);

#endif
