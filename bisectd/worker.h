/*
 * The child processes of the scheduler: one builds a commit, one carries
 * out a run on an agent, one probes an agent (asks for its inventory and
 * records whether it answered), one holds an ssh agent's connection (its
 * link). Each opens its own connection to the database and writes its
 * outcome in one transaction; the scheduler only reaps them.
 */
#ifndef BISECTD_WORKER_H
#define BISECTD_WORKER_H

#include <stdint.h>
#include <sys/types.h>

#include "bisectd/context.h"
#include "jobs/config.h"
#include "schema/store.h"

/* Fork a child that builds; returns its pid, or -1 with *cause. */
pid_t	worker_build(struct context *, int64_t build, char **cause);
pid_t	worker_run(struct context *, int64_t run, int64_t token,
	    const char *agent, char **cause);
pid_t	worker_probe(struct context *, const char *agent, char **cause);
/*
 * Fetch a tracked repository's branches (bisectd/tracker.c). A fetch with
 * no progress for 120 seconds (BISECTD_TEST_FETCH_STALL in tests) ends.
 */
pid_t	worker_fetch(struct context *, const char *repo, char **cause);
/* The link serves the connections made to the listening socket fd. */
pid_t	worker_link(struct context *, const char *agent, int fd,
	    char **cause);

/*
 * Probe an agent in this process and record the outcome in the store:
 * returns 0 (up, inventory refreshed), -1 (down) or TRANSPORT_REFUSED
 * (refused), with *cause saying why it is not up.
 */
int	worker_probe_now(struct store *, const struct config_agent *,
	    const char *agent_path, char **cause);
/*
 * After a transport failure: out of service for a while (rc -1), or
 * refused under its current configuration (rc TRANSPORT_REFUSED).
 */
void	worker_agent_failed(struct store *, const struct config_agent *,
	    int rc, const char *why);
/* The digest of an agent's configuration and key files that a refusal
 * stands under: allocated. */
char	*worker_agent_stamp(const struct config_agent *);
/* nr_node, nr_cpu and memory (bytes) from "bisect-agent info" lines;
 * 0 for a key that is missing. */
void	worker_inventory_parse(const char *, unsigned *nr_node,
	    unsigned *nr_cpu, unsigned long long *memory);

/*
 * Is an agent busy for good, so that its disturbed runs count rather than
 * being set aside? disturbed: its disturbed attempts in the last 30 s;
 * busy_since: the first disturbed attempt after its last undisturbed run
 * (0: none); now: Unix seconds. (docs/monitors.md, "Interference")
 */
int	 worker_busy_for_good(int disturbed, double busy_since, double now);

#endif
