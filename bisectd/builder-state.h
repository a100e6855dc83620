/*
 * The scheduler's view of each build host (builders: in the config) and of
 * its own builds ("local"): WORKDIR/builders/NAME.state, with the state
 * (up, down until retry_at after a lost connection, refused after a
 * refused host key or login), the host key last verified and the counts
 * that bisectctl builders shows.
 */
#ifndef BISECTD_BUILDER_STATE_H
#define BISECTD_BUILDER_STATE_H

#include <stdint.h>

#define BUILDER_LOCAL	"local"

/* What became of one attempt, for the counts. */
enum builder_count {
	BUILDER_COUNT_NONE = 0,
	BUILDER_COUNT_OK,		/* built */
	BUILDER_COUNT_FAILED,		/* the command failed */
	BUILDER_COUNT_ERROR,		/* an error of the attempt */
};

/* A builder's state; the file keeps its name. */
enum builder_status {
	BUILDER_KEEP = -1,		/* builder_state_note: as it is */
	BUILDER_UNKNOWN,
	BUILDER_UP,
	BUILDER_DOWN,			/* a lost connection */
	BUILDER_REFUSED,		/* a refused host key or login */
};

struct builder_state {
	enum builder_status state;
	int64_t	 since;
	int64_t	 retry_at;		/* down, refused: skipped until then */
	long	 builds, failed, errors;
	char	*host_key;		/* the key last verified */
	char	*error;			/* why down or refused */
};

const char *builder_state_name(enum builder_status);
/* The state of builder name (or BUILDER_LOCAL); unknown with no file. */
int	 builder_state_read(const char *workdir, const char *name,
	     struct builder_state *, char **cause);
void	 builder_state_release(struct builder_state *);
/*
 * Record an attempt's end: BUILDER_KEEP keeps the state (local builds),
 * else it becomes state (down and refused are retried after retry_after
 * seconds) with error (NULL for none) and host_key (NULL: kept). Best
 * effort: a state that cannot be written is logged.
 */
void	 builder_state_note(const char *workdir, const char *name,
	     enum builder_status, const char *error, const char *host_key,
	     int retry_after, enum builder_count);

#endif
