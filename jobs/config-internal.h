/*
 * What the files of the config parser share (config.c, config-repo.c,
 * config-agent.c, config-mail.c): the walk's context, the readers of a
 * key's value, each an error naming the key with its line and column, and
 * the entry parsers config.c's walk calls. jobs/config.h is the API.
 */
#ifndef JOBS_CONFIG_INTERNAL_H
#define JOBS_CONFIG_INTERNAL_H

#include <stddef.h>

#include "jobs/config.h"
#include "jobs/yamlnode.h"

#define CONFIG_MAX_SLOTS	1024
#define CONFIG_MAX_ITEMS	1024	/* repos, agents: names are unique */

struct config_ctx {
	const char	*file;
	const char	*dir;		/* absolute */
	int		 check;	/* config_load: the files must be there */
	const struct yamlnode *db;	/* for the check after the walk */
	const struct yamlnode *workdir;
};

enum config_need {
	CONFIG_NEED_DIR,	/* an existing directory */
	CONFIG_NEED_FILE,	/* a readable regular file */
	CONFIG_NEED_PARENT,	/* a directory that holds it exists */
	CONFIG_NEED_DIR_OR_NEW,	/* a directory, or nothing yet */
};

/* config.c: the readers; 0, or -1 with *cause. */
int	config_check_path(const struct config_ctx *, const char *key,
	    const struct yamlnode *, const char *path, enum config_need,
	    char **cause);
/* Letters, digits, '_', '.' and '-': 1, else 0. */
int	config_is_name(const char *s);
int	config_string(const struct config_ctx *, const char *key,
	    const struct yamlnode *, char **out, char **cause);
int	config_path(const struct config_ctx *, const char *key,
	    const struct yamlnode *, char **out, char **cause);
int	config_int(const struct config_ctx *, const char *key,
	    const struct yamlnode *, int min, int max, int *out,
	    char **cause);
int	config_bool(const struct config_ctx *, const char *key,
	    const struct yamlnode *, int *out, char **cause);
int	config_choice(const struct config_ctx *, const char *key,
	    const struct yamlnode *, const char *const *choices, char **out,
	    char **cause);
int	config_list(const struct config_ctx *, const char *key,
	    const struct yamlnode *, char ***out, size_t *nr, char **cause);
int	config_map(const struct config_ctx *, const char *key,
	    const struct yamlnode *, char **cause);
int	config_unknown(const struct config_ctx *, const char *where,
	    const struct yamlnode *key, const char *known, char **cause);
int	config_url(const struct config_ctx *, const char *key,
	    const struct yamlnode *, char **out, char **cause);

/* config-repo.c: repos[idx]; names[] holds each entry's name node. */
int	config_repo(const struct config_ctx *, const struct yamlnode *,
	    size_t idx, struct config *, const struct yamlnode **names,
	    char **cause);
/* config-agent.c: agents[idx], or with builder set builders[idx]. */
int	config_agent(const struct config_ctx *, const struct yamlnode *,
	    size_t idx, struct config_agent *list, int builder,
	    const struct yamlnode **names, char **cause);
void	config_agent_defaults(struct config_agent *);
/* config-mail.c: mail:. */
int	config_mail(const struct config_ctx *, const struct yamlnode *,
	    struct config_mail *, char **cause);

#endif
