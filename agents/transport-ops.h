/*
 * Inside agents/transport*.c only: a transport is a table of operations
 * (like tmux's cmd entries), so "ssh" slots in beside "local".
 */
#ifndef AGENTS_TRANSPORT_OPS_H
#define AGENTS_TRANSPORT_OPS_H

#include "agents/transport.h"

struct transport_ops {
	const char	*name;
	int		(*open)(struct transport *, const struct config_agent *,
			    char **cause);
	/* on 0, *out is the result read from RUN_DIR/result/ */
	int		(*run)(struct transport *, const struct transport_job *,
			    struct result **out, char **cause);
	int		(*info)(struct transport *, char **out, char **cause);
	void		(*close)(struct transport *);
};

struct transport {
	const struct transport_ops	*ops;
	char				*name;		/* the agent's */
	char				*agent_path;
	void				*data;		/* the ops' own */
};

extern const struct transport_ops transport_local_ops;
extern const struct transport_ops transport_ssh_ops;

struct ssh_session_opts;

/* The links' address prefix set by transport_link_setup, or NULL. */
const char	*transport_link_prefix(void);
/* An ssh agent's session options (borrowing the config's strings). */
void		 transport_ssh_opts(const struct config_agent *,
		     struct ssh_session_opts *);

#endif
