/*
 * bisectd.yaml (DESIGN §3.1): the database, the work directory, the
 * repositories with their build recipes, the agents and the mail settings.
 * Relative paths are resolved against the config file's directory when
 * loaded, so every path in a struct config is absolute.
 */
#ifndef JOBS_CONFIG_H
#define JOBS_CONFIG_H

#include <stddef.h>

struct config_repo {
	char	 *name;
	char	 *path;			/* absolute */
	char	 *fetch;		/* remote name or URL; NULL */
	char	 *tree;			/* in mail subjects; NULL: name */
	char	 *url;			/* the tree's URL in reports; NULL */
	char	**track;
	size_t	  nr_track;
	char	 *build_command;	/* NULL: nothing to build */
	char	 *kconfig;		/* absolute; NULL */
	char	**artifacts;		/* relative to BUILD_DIR or the tree */
	size_t	  nr_artifacts;
};

/*
 * A test disk an agent offers jobs that ask for LKP's "disk: 1HDD": a
 * partition of the machine, or a loop-backed scratch disk (a sparse file
 * of loop_size bytes the agent makes and removes around each run).
 */
struct config_disk {
	char			*kind;		/* "hdd" or "ssd" */
	char			*device;	/* "/dev/sdb1"; NULL: a loop disk */
	unsigned long long	 loop_size;	/* bytes, for a loop disk */
};

struct config_agent {
	char	*name;
	char	*transport;		/* "local" or "ssh" */
	char	*host;
	int	 port;			/* 22 */
	char	*user;
	char	*identity;		/* absolute */
	char	*known_hosts;		/* absolute */
	char	*boot;			/* "none", "qemu", "kexec" */
	int	 slots;			/* 1 */
	int	 tofu;			/* trust_on_first_use: 0 */
	/* ssh: seconds; see docs/agents.md */
	int	 connect_timeout;	/* TCP connect + handshake + auth: 10 */
	int	 keepalive;		/* ping an idle connection: 10 */
	int	 silence_timeout;	/* no answer this long: lost: 30 */
	char	*remote_dir;		/* on the agent; relative: to its */
					/* login directory: ".bisectd" */
	/* every transport: the longest wait between probes of an agent */
	/* that stopped answering (the first waits 1s, then doubling): 60 */
	int	 probe_interval;
	/* every transport: seconds a run may take beyond the testcase's */
	/* own timeout (copying, booting, the agent's kill grace): 120 */
	int	 run_margin;
	/* disks: the test disks jobs may take, in the order declared */
	struct config_disk	*disks;
	size_t			 nr_disks;
};

struct config_mail {
	char	 *smtp;
	char	 *from;
	char	**to;
	size_t	  nr_to;
	char	**cc;
	size_t	  nr_cc;
	int	  author;		/* also mail the commit's author: 0 */
	char	 *reported_by;		/* the Reported-by: tag; NULL: from */
	char	 *closes;		/* Closes: prefix of the Message-ID */
};

/*
 * Continuous mode: the job files tested on the tracked branches' new
 * commits, how often the branches are fetched, and which commits are
 * tested (every new commit, or only the newest of each fetch).
 */
struct config_continuous {
	char	**jobs;			/* absolute paths; none: off */
	size_t	  nr_jobs;
	int	  interval;		/* seconds between fetches; 300 */
	int	  every;		/* 1: every commit; 0: tips only */
	int	  max_new;		/* commits per branch per fetch; 50 */
	char	**base;			/* revisions tested first, as LKP's */
	size_t	  nr_base;		/* base (release tags) */
};

struct config {
	char			*path;	/* the file loaded, or NULL */
	char			*dir;	/* its directory */
	char			*db;	/* absolute; default WORKDIR/bisectd.db */
	char			*workdir; /* absolute; default DIR/state */
	struct config_repo	*repos;
	size_t			 nr_repos;
	struct config_agent	*agents; /* never empty: implicit "local" */
	size_t			 nr_agents;
	struct config_agent	*builders; /* builders:, ssh only; none: */
	size_t			 nr_builders; /* every build is local */
	struct config_mail	 mail;	/* all NULL without mail: */
	int			 max_attempts; /* scheduler:; 3 */
	int			 build_slots; /* scheduler:; builds of a
						    repository at once; 1 */
	struct config_continuous continuous;
	char			*web;	/* reports' pages written here; NULL */
	char			**job_include;	/* absolute: where job files' */
	size_t			  nr_job_include; /* "<< :" includes are found */
};

/*
 * Find the config file: explicit, then $BISECTD_CONFIG, then
 * ./bisectd.yaml, then /etc/bisectd/bisectd.yaml. Errors when none exists.
 */
int	 config_find(const char *explicit, char **out, char **cause);
/* Errors are "FILE:LINE:COL: message naming the key". */
int	 config_load(const char *path, struct config **out, char **cause);
int	 config_parse(const char *name, const char *dir, const char *buf,
	     size_t len, struct config **out, char **cause);
void	 config_free(struct config *);
/* By name; NULL name means the only repository (NULL if several). */
const struct config_repo *config_repo_find(const struct config *,
	     const char *name);
const struct config_agent *config_agent_find(const struct config *,
	     const char *name);
const struct config_agent *config_builder_find(const struct config *,
	     const char *name);

#endif
