/*
 * bisectd.yaml (DESIGN §3.1, docs/config.md). Every map is walked key by
 * key and an unknown key is an error naming it with its line and column,
 * so a typo ("sltos:") never silently falls back to a default. Relative
 * paths are made absolute against the config file's directory here, and
 * the defaults (workdir, db, the implicit local agent) are filled in, so
 * callers see a complete struct config.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <unistd.h>

#include "jobs/config-internal.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define CONFIG_MAX_ATTEMPTS	100
#define CONFIG_MAX_BUILD_SLOTS	64

/*
 * What config_load checks that config_parse cannot: that every file and
 * directory the config names is there, so that a daemon never starts on
 * a config it would fail on later, and nothing is created for a config
 * that is wrong (no database in a directory made up by a typo).
 */
int
config_check_path(const struct config_ctx *ctx, const char *key,
    const struct yamlnode *n, const char *path, enum config_need need,
    char **cause)
{
	struct stat	 st;
	char		*dir;
	int		 r = 0;

	if (!ctx->check)
		return 0;
	switch (need) {
	case CONFIG_NEED_DIR:
		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			r = yamlnode_error(cause, ctx->file, n, "'%s' names "
			    "'%s', which is not a directory%s", key, path,
			    errno == ENOENT ? " (it does not exist)" : "");
		break;
	case CONFIG_NEED_FILE:
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
		    access(path, R_OK) != 0)
			r = yamlnode_error(cause, ctx->file, n, "'%s' names "
			    "'%s', which is not a readable file%s", key, path,
			    errno == ENOENT ? " (it does not exist)" : "");
		break;
	case CONFIG_NEED_PARENT:
		dir = path_dirname(path);
		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
			r = yamlnode_error(cause, ctx->file, n, "'%s' is in "
			    "'%s', which is not a directory: bisectd creates "
			    "no directory but its workdir", key, dir);
		free(dir);
		break;
	case CONFIG_NEED_DIR_OR_NEW:
		if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode))
			r = yamlnode_error(cause, ctx->file, n, "'%s' names "
			    "'%s', which exists and is not a directory", key,
			    path);
		else if (lstat(path, &st) != 0)
			r = config_check_path(ctx, key, n, path,
			    CONFIG_NEED_PARENT, cause);
		break;
	}
	return r;
}

int
config_is_name(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++) {
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && strchr("_.-", *s) == NULL)
			return 0;
	}
	return 1;
}

int
config_string(const struct config_ctx *ctx, const char *key,
    const struct yamlnode *n, char **out, char **cause)
{
	if (n->type != YAMLNODE_SCALAR || n->null || *n->value == '\0')
		return yamlnode_error(cause, ctx->file, n,
		    "'%s' must be a non-empty string, not %s", key,
		    n->type == YAMLNODE_SCALAR && !n->null ? "an empty one" :
		    yamlnode_kind(n));
	free(*out);
	*out = xstrdup(n->value);
	return 0;
}

int
config_path(const struct config_ctx *ctx, const char *key,
    const struct yamlnode *n, char **out, char **cause)
{
	if (config_string(ctx, key, n, out, cause) != 0)
		return -1;
	if ((*out)[0] != '/') {
		const char	*rel = *out;
		char		*abs;

		while (strncmp(rel, "./", 2) == 0)
			rel += 2;
		abs = path_join(ctx->dir, rel);

		free(*out);
		*out = abs;
	}
	return 0;
}

int
config_int(const struct config_ctx *ctx, const char *key,
    const struct yamlnode *n, int min, int max, int *out, char **cause)
{
	const char	*s;
	long		 v = 0;

	if (n->type != YAMLNODE_SCALAR || n->null || *n->value == '\0')
		goto bad;
	for (s = n->value; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			goto bad;
		v = v * 10 + (*s - '0');
		if (v > max)
			goto bad;
	}
	if (v < min)
		goto bad;
	*out = (int)v;
	return 0;
bad:
	return yamlnode_error(cause, ctx->file, n,
	    "'%s' must be an integer from %d to %d, not %s%s%s", key, min, max,
	    n->type == YAMLNODE_SCALAR ? "'" : "",
	    n->type == YAMLNODE_SCALAR ? n->value : yamlnode_kind(n),
	    n->type == YAMLNODE_SCALAR ? "'" : "");
}

int
config_bool(const struct config_ctx *ctx, const char *key,
    const struct yamlnode *n, int *out, char **cause)
{
	static const char	*yes[] = {
		"true", "True", "TRUE", "yes", "on"
	};
	static const char	*no[] = {
		"false", "False", "FALSE", "no", "off"
	};
	size_t			 i;

	if (n->type == YAMLNODE_SCALAR && !n->null) {
		for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
			if (strcmp(n->value, yes[i]) == 0) {
				*out = 1;
				return 0;
			}
			if (strcmp(n->value, no[i]) == 0) {
				*out = 0;
				return 0;
			}
		}
	}
	return yamlnode_error(cause, ctx->file, n,
	    "'%s' must be true or false, not %s%s%s", key,
	    n->type == YAMLNODE_SCALAR && !n->null ? "'" : "",
	    n->type == YAMLNODE_SCALAR && !n->null ? n->value :
	    yamlnode_kind(n),
	    n->type == YAMLNODE_SCALAR && !n->null ? "'" : "");
}

int
config_choice(const struct config_ctx *ctx, const char *key,
    const struct yamlnode *n, const char *const *choices, char **out,
    char **cause)
{
	struct strbuf	sb = STRBUF_INIT;
	size_t		i;

	if (config_string(ctx, key, n, out, cause) != 0)
		return -1;
	for (i = 0; choices[i] != NULL; i++) {
		if (strcmp(*out, choices[i]) == 0)
			return 0;
	}
	for (i = 0; choices[i] != NULL; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", choices[i]);
	yamlnode_error(cause, ctx->file, n, "'%s' must be one of %s, not '%s'",
	    key, sb.buf, n->value);
	strbuf_release(&sb);
	return -1;
}

/* A list of strings; a single string is taken as a list of one. */
int
config_list(const struct config_ctx *ctx, const char *key,
    const struct yamlnode *n, char ***out, size_t *nr, char **cause)
{
	size_t	i;

	if (n->type == YAMLNODE_SCALAR && !n->null) {
		*out = xcalloc(1, sizeof **out);
		*nr = 1;
		return config_string(ctx, key, n, &(*out)[0], cause);
	}
	if (n->type != YAMLNODE_SEQUENCE)
		return yamlnode_error(cause, ctx->file, n,
		    "'%s' must be a list of strings, not %s", key,
		    yamlnode_kind(n));
	*out = xcalloc(n->nr + 1, sizeof **out);
	for (i = 0; i < n->nr; i++) {
		if (config_string(ctx, key, n->items[i], &(*out)[i],
		    cause) != 0)
			return -1;
		*nr = i + 1;
	}
	return 0;
}

int
config_map(const struct config_ctx *ctx, const char *key,
    const struct yamlnode *n, char **cause)
{
	if (n->type != YAMLNODE_MAPPING)
		return yamlnode_error(cause, ctx->file, n,
		    "'%s' must be a map, not %s", key, yamlnode_kind(n));
	return 0;
}

int
config_unknown(const struct config_ctx *ctx, const char *where,
    const struct yamlnode *key, const char *known, char **cause)
{
	if (where == NULL)
		return yamlnode_error(cause, ctx->file, key,
		    "unknown key '%s' (known: %s)", key->value, known);
	return yamlnode_error(cause, ctx->file, key,
	    "unknown key '%s' in '%s' (known: %s)", key->value, where, known);
}

/* An http(s) URL with nothing a header or a terminal would act on. */
int
config_url(const struct config_ctx *ctx, const char *key,
    const struct yamlnode *n, char **out, char **cause)
{
	const char	*p;

	if (config_string(ctx, key, n, out, cause) != 0)
		return -1;
	if (strncmp(*out, "https://", 8) != 0 &&
	    strncmp(*out, "http://", 7) != 0)
		return yamlnode_error(cause, ctx->file, n,
		    "'%s' must be an http:// or https:// URL, not '%s'", key,
		    *out);
	for (p = *out; *p != '\0'; p++) {
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return yamlnode_error(cause, ctx->file, n,
			    "'%s' must not hold spaces or control characters",
			    key);
	}
	return 0;
}

/* repos:, agents: and builders:, lists of maps. */
static int
config_list_of_maps(const struct config_ctx *ctx, const char *key,
    const struct yamlnode *n, struct config *cfg, char **cause)
{
	const struct yamlnode	**names = NULL;
	size_t			  i;
	int			  r = -1, repos = strcmp(key, "repos") == 0;
	int			  builders = strcmp(key, "builders") == 0;

	if (n->type == YAMLNODE_SCALAR && n->null)
		return 0;
	if (n->type != YAMLNODE_SEQUENCE)
		return yamlnode_error(cause, ctx->file, n,
		    "'%s' must be a list of maps, not %s", key,
		    yamlnode_kind(n));
	if (n->nr > CONFIG_MAX_ITEMS)
		return yamlnode_error(cause, ctx->file, n,
		    "'%s' has more than %d entries", key, CONFIG_MAX_ITEMS);
	names = xcalloc(n->nr + 1, sizeof *names);
	if (repos)
		cfg->repos = xcalloc(n->nr + 1, sizeof *cfg->repos);
	else if (builders)
		cfg->builders = xcalloc(n->nr + 1, sizeof *cfg->builders);
	else
		cfg->agents = xcalloc(n->nr + 1, sizeof *cfg->agents);
	for (i = 0; i < n->nr; i++) {
		if (repos) {
			cfg->nr_repos = i + 1;
			if (config_repo(ctx, n->items[i], i, cfg, names,
			    cause) != 0)
				goto out;
		} else if (builders) {
			cfg->nr_builders = i + 1;
			if (config_agent(ctx, n->items[i], i, cfg->builders, 1,
			    names, cause) != 0)
				goto out;
		} else {
			cfg->nr_agents = i + 1;
			if (config_agent(ctx, n->items[i], i, cfg->agents, 0,
			    names, cause) != 0)
				goto out;
		}
	}
	r = 0;
out:
	free(names);
	return r;
}

static int
config_scheduler(const struct config_ctx *ctx, const struct yamlnode *n,
    struct config *cfg, char **cause)
{
	size_t	i;

	if (config_map(ctx, "scheduler", n, cause) != 0)
		return -1;
	for (i = 0; i < n->nr; i += 2) {
		if (strcmp(n->items[i]->value, "max_attempts") == 0) {
			if (config_int(ctx, "max_attempts", n->items[i + 1],
			    1, CONFIG_MAX_ATTEMPTS, &cfg->max_attempts,
			    cause) != 0)
				return -1;
		} else if (strcmp(n->items[i]->value, "build_slots") == 0) {
			if (config_int(ctx, "build_slots", n->items[i + 1],
			    1, CONFIG_MAX_BUILD_SLOTS, &cfg->build_slots,
			    cause) != 0)
				return -1;
		} else
			return config_unknown(ctx, "scheduler", n->items[i],
			    "max_attempts, build_slots", cause);
	}
	return 0;
}

static int
config_continuous(const struct config_ctx *ctx, const struct yamlnode *n,
    struct config_continuous *c, char **cause)
{
	static const char *const	 policies[] = { "every", "tips", NULL };
	const struct yamlnode		*key, *value;
	char				*policy = NULL;
	size_t				 i;
	int				 r = 0;

	if (config_map(ctx, "continuous", n, cause) != 0)
		return -1;
	for (i = 0; r == 0 && i < n->nr; i += 2) {
		key = n->items[i];
		value = n->items[i + 1];
		if (strcmp(key->value, "jobs") == 0) {
			r = config_list(ctx, "jobs", value, &c->jobs,
			    &c->nr_jobs, cause);
			for (size_t j = 0; r == 0 && j < c->nr_jobs; j++) {
				char	*abs = path_absolute(c->jobs[j],
					    ctx->dir);

				free(c->jobs[j]);
				c->jobs[j] = abs;
				r = config_check_path(ctx, "jobs",
				    value->type == YAMLNODE_SEQUENCE ?
				    value->items[j] : value, abs,
				    CONFIG_NEED_FILE, cause);
			}
		} else if (strcmp(key->value, "interval") == 0)
			r = config_int(ctx, "interval", value, 1, 86400 * 7,
			    &c->interval, cause);
		else if (strcmp(key->value, "max_new") == 0)
			r = config_int(ctx, "max_new", value, 1, 100000,
			    &c->max_new, cause);
		else if (strcmp(key->value, "base") == 0)
			r = config_list(ctx, "base", value, &c->base,
			    &c->nr_base, cause);
		else if (strcmp(key->value, "policy") == 0) {
			r = config_choice(ctx, "policy", value, policies,
			    &policy, cause);
			if (r == 0)
				c->every = strcmp(policy, "every") == 0;
		} else
			r = config_unknown(ctx, "continuous", key,
			    "jobs, interval, policy, max_new, base", cause);
	}
	free(policy);
	return r;
}

static int
config_walk(struct config_ctx *ctx, const struct yamlnode *root,
    struct config *cfg, char **cause)
{
	const struct yamlnode	*key, *value;
	size_t			 i;
	int			 r = 0;

	if (root == NULL || (root->type == YAMLNODE_SCALAR && root->null))
		return 0;
	if (root->type != YAMLNODE_MAPPING)
		return yamlnode_error(cause, ctx->file, root,
		    "a config file is a map of keys such as 'repos', not %s",
		    yamlnode_kind(root));
	for (i = 0; r == 0 && i < root->nr; i += 2) {
		key = root->items[i];
		value = root->items[i + 1];
		if (strcmp(key->value, "db") == 0) {
			r = config_path(ctx, "db", value, &cfg->db, cause);
			ctx->db = value;
		} else if (strcmp(key->value, "workdir") == 0) {
			r = config_path(ctx, "workdir", value, &cfg->workdir,
			    cause);
			ctx->workdir = value;
		}
		else if (strcmp(key->value, "repos") == 0 ||
		    strcmp(key->value, "agents") == 0 ||
		    strcmp(key->value, "builders") == 0)
			r = config_list_of_maps(ctx, key->value, value, cfg,
			    cause);
		else if (strcmp(key->value, "mail") == 0)
			r = config_mail(ctx, value, &cfg->mail, cause);
		else if (strcmp(key->value, "scheduler") == 0)
			r = config_scheduler(ctx, value, cfg, cause);
		else if (strcmp(key->value, "continuous") == 0)
			r = config_continuous(ctx, value, &cfg->continuous,
			    cause);
		else if (strcmp(key->value, "web") == 0) {
			r = config_path(ctx, "web", value, &cfg->web, cause);
			if (r == 0)
				r = config_check_path(ctx, "web", value,
				    cfg->web, CONFIG_NEED_DIR_OR_NEW, cause);
		} else if (strcmp(key->value, "job_include") == 0) {
			r = config_list(ctx, "job_include", value,
			    &cfg->job_include, &cfg->nr_job_include, cause);
			for (size_t j = 0; r == 0 &&
			    j < cfg->nr_job_include; j++) {
				char	*abs = path_absolute(
					    cfg->job_include[j], ctx->dir);

				free(cfg->job_include[j]);
				cfg->job_include[j] = abs;
			}
		} else
			r = config_unknown(ctx, NULL, key,
			    "db, workdir, repos, agents, builders, mail, "
			    "scheduler, continuous, web, job_include", cause);
	}
	return r;
}

static char *
config_absolute_dir(const char *dir)
{
	char	cwd[PATH_MAX];

	if (dir != NULL && dir[0] == '/')
		return xstrdup(dir);
	if (getcwd(cwd, sizeof cwd) == NULL)
		return xstrdup(dir != NULL ? dir : ".");
	if (dir == NULL || strcmp(dir, ".") == 0 || *dir == '\0')
		return xstrdup(cwd);
	if (strncmp(dir, "./", 2) == 0)
		dir += 2;
	return path_join(cwd, dir);
}

/* The database and the workdir, once both are known (config_load only). */
static int
config_check_state(const struct config_ctx *ctx, const struct config *cfg,
    const struct yamlnode *root, char **cause)
{
	char	*dir;
	int	 r;

	if (!ctx->check)
		return 0;
	if (config_check_path(ctx, "workdir", ctx->workdir != NULL ?
	    ctx->workdir : root, cfg->workdir, CONFIG_NEED_DIR_OR_NEW,
	    cause) != 0)
		return -1;
	dir = path_dirname(cfg->db);
	r = strcmp(dir, cfg->workdir) == 0 ? 0 : config_check_path(ctx, "db",
	    ctx->db != NULL ? ctx->db : root, cfg->db, CONFIG_NEED_PARENT,
	    cause);
	free(dir);
	return r;
}

static int
config_parse_checked(const char *name, const char *dir, const char *buf,
    size_t len, int check, struct config **out, char **cause)
{
	struct config		*cfg = xcalloc(1, sizeof *cfg);
	struct config_ctx	 ctx;
	struct yamlnode		*root = NULL;
	int			 r = -1;

	*out = NULL;
	memset(&ctx, 0, sizeof ctx);
	ctx.check = check;
	cfg->dir = config_absolute_dir(dir);
	cfg->max_attempts = 3;
	cfg->build_slots = 1;
	cfg->continuous.interval = 300;
	cfg->continuous.every = 1;
	cfg->continuous.max_new = 50;
	ctx.file = name;
	ctx.dir = cfg->dir;
	if (yamlnode_parse(name, buf, len, &root, cause) != 0)
		goto out;
	if (config_walk(&ctx, root, cfg, cause) != 0)
		goto out;
	if (cfg->workdir == NULL)
		cfg->workdir = path_join(cfg->dir, "state");
	if (cfg->db == NULL)
		cfg->db = path_join(cfg->workdir, "bisectd.db");
	if (config_check_state(&ctx, cfg, root, cause) != 0)
		goto out;
	if (cfg->nr_agents == 0) {
		free(cfg->agents);
		cfg->agents = xcalloc(1, sizeof *cfg->agents);
		cfg->nr_agents = 1;
		cfg->agents[0].name = xstrdup("local");
		cfg->agents[0].transport = xstrdup("local");
		cfg->agents[0].boot = xstrdup("none");
		config_agent_defaults(&cfg->agents[0]);
	}
	*out = cfg;
	cfg = NULL;
	r = 0;
out:
	yamlnode_free(root);
	config_free(cfg);
	return r;
}

int
config_parse(const char *name, const char *dir, const char *buf, size_t len,
    struct config **out, char **cause)
{
	return config_parse_checked(name, dir, buf, len, 0, out, cause);
}

int
config_load(const char *path, struct config **out, char **cause)
{
	char	*buf = NULL, *dir = NULL;
	size_t	 len;
	int	 r = -1;

	*out = NULL;
	if (file_read(path, &buf, &len, cause) != 0)
		goto out;
	dir = path_dirname(path);
	if (config_parse_checked(path, dir, buf, len, 1, out, cause) != 0)
		goto out;
	(*out)->path = path_absolute(path, NULL);
	r = 0;
out:
	free(dir);
	free(buf);
	return r;
}

int
config_find(const char *explicit, char **out, char **cause)
{
	const char	*env = getenv("BISECTD_CONFIG");
	const char	*candidates[] = {
		"./bisectd.yaml", "/etc/bisectd/bisectd.yaml"
	};
	struct strbuf	 tried = STRBUF_INIT;
	size_t		 i;

	*out = NULL;
	if (explicit != NULL) {
		if (file_exists(explicit)) {
			*out = xstrdup(explicit);
			return 0;
		}
		return error_set(cause, "config file '%s' not found", explicit);
	}
	if (env != NULL && *env != '\0') {
		if (file_exists(env)) {
			*out = xstrdup(env);
			return 0;
		}
		return error_set(cause, "config file '%s' (from "
		    "$BISECTD_CONFIG) not found", env);
	}
	for (i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
		if (file_exists(candidates[i])) {
			*out = xstrdup(candidates[i]);
			strbuf_release(&tried);
			return 0;
		}
		strbuf_addf(&tried, "%s'%s'", i ? ", " : "", candidates[i]);
	}
	error_set(cause, "no config file: tried %s (use -c FILE or "
	    "$BISECTD_CONFIG)", tried.buf);
	strbuf_release(&tried);
	return -1;
}

static void
config_strv_free(char **v, size_t nr)
{
	size_t	i;

	for (i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

void
config_free(struct config *cfg)
{
	struct config_repo	*repo;
	struct config_agent	*agent;
	size_t			 i, j;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->nr_repos; i++) {
		repo = &cfg->repos[i];
		free(repo->name);
		free(repo->path);
		free(repo->fetch);
		free(repo->tree);
		free(repo->url);
		config_strv_free(repo->track, repo->nr_track);
		free(repo->build_command);
		free(repo->kconfig);
		config_strv_free(repo->artifacts, repo->nr_artifacts);
	}
	free(cfg->repos);
	for (i = 0; i < cfg->nr_agents + cfg->nr_builders; i++) {
		agent = i < cfg->nr_agents ? &cfg->agents[i] :
		    &cfg->builders[i - cfg->nr_agents];
		free(agent->name);
		free(agent->transport);
		free(agent->host);
		free(agent->user);
		free(agent->identity);
		free(agent->known_hosts);
		free(agent->boot);
		free(agent->remote_dir);
		for (j = 0; j < agent->nr_disks; j++) {
			free(agent->disks[j].kind);
			free(agent->disks[j].device);
		}
		free(agent->disks);
	}
	free(cfg->agents);
	free(cfg->builders);
	free(cfg->mail.smtp);
	free(cfg->mail.from);
	free(cfg->mail.reported_by);
	free(cfg->mail.closes);
	config_strv_free(cfg->mail.to, cfg->mail.nr_to);
	config_strv_free(cfg->mail.cc, cfg->mail.nr_cc);
	config_strv_free(cfg->continuous.jobs, cfg->continuous.nr_jobs);
	config_strv_free(cfg->job_include, cfg->nr_job_include);
	free(cfg->web);
	config_strv_free(cfg->continuous.base, cfg->continuous.nr_base);
	free(cfg->path);
	free(cfg->dir);
	free(cfg->db);
	free(cfg->workdir);
	free(cfg);
}

const struct config_repo *
config_repo_find(const struct config *cfg, const char *name)
{
	size_t	i;

	if (name == NULL)
		return cfg->nr_repos == 1 ? &cfg->repos[0] : NULL;
	for (i = 0; i < cfg->nr_repos; i++) {
		if (strcmp(cfg->repos[i].name, name) == 0)
			return &cfg->repos[i];
	}
	return NULL;
}

const struct config_agent *
config_agent_find(const struct config *cfg, const char *name)
{
	size_t	i;

	for (i = 0; i < cfg->nr_agents; i++) {
		if (strcmp(cfg->agents[i].name, name) == 0)
			return &cfg->agents[i];
	}
	return NULL;
}

const struct config_agent *
config_builder_find(const struct config *cfg, const char *name)
{
	size_t	i;

	for (i = 0; i < cfg->nr_builders; i++) {
		if (strcmp(cfg->builders[i].name, name) == 0)
			return &cfg->builders[i];
	}
	return NULL;
}
