/*
 * An entry of repos: in bisectd.yaml (docs/config.md): the repository's
 * name, path, fetch remote, tracked branches, tree name and URL, and its
 * build recipe (command, kconfig, artifacts).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/config-internal.h"

/*
 * A kconfig that names a make target (tinyconfig, x86_64_defconfig): no
 * file, the kernel tree makes the base (bisectd/kconfig.c reads it the
 * same way, when no such file exists).
 */
static int
config_repo_is_kconfig_target(const char *value)
{
	size_t	len = strlen(value), i;

	if (strchr(value, '/') != NULL || len < 6 ||
	    strcmp(value + len - 6, "config") != 0)
		return 0;
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)value[i]) && value[i] != '_')
			return 0;
	}
	return 1;
}

static int
config_repo_build(const struct config_ctx *ctx, const char *where,
    const struct yamlnode *n, struct config_repo *repo, char **cause)
{
	const struct yamlnode	*key, *value;
	size_t			 i;
	int			 r = 0;

	if (config_map(ctx, where, n, cause) != 0)
		return -1;
	for (i = 0; r == 0 && i < n->nr; i += 2) {
		key = n->items[i];
		value = n->items[i + 1];
		if (strcmp(key->value, "command") == 0)
			r = config_string(ctx, "command", value,
			    &repo->build_command, cause);
		else if (strcmp(key->value, "kconfig") == 0) {
			r = config_path(ctx, "kconfig", value, &repo->kconfig,
			    cause);
			if (r == 0 &&
			    !config_repo_is_kconfig_target(value->value))
				r = config_check_path(ctx, "kconfig", value,
				    repo->kconfig, CONFIG_NEED_FILE, cause);
		} else if (strcmp(key->value, "artifacts") == 0) {
			r = config_list(ctx, "artifacts", value,
			    &repo->artifacts, &repo->nr_artifacts, cause);
			for (size_t j = 0; r == 0 && j < repo->nr_artifacts;
			    j++) {
				if (repo->artifacts[j][0] == '/' ||
				    strncmp(repo->artifacts[j], "../", 3) == 0 ||
				    strstr(repo->artifacts[j], "/../") != NULL)
					r = yamlnode_error(cause, ctx->file,
					    value->type == YAMLNODE_SEQUENCE ?
					    value->items[j] : value,
					    "artifact '%s' must be a path inside "
					    "the build directory, not outside it",
					    repo->artifacts[j]);
			}
		}
		else
			r = config_unknown(ctx, where, key,
			    "command, kconfig, artifacts", cause);
	}
	return r;
}

/* A tree's name as mail subjects show it, "[linux-next:master]". */
static int
config_repo_tree(const struct config_ctx *ctx, const struct yamlnode *n,
    char **out, char **cause)
{
	const char	*p;

	if (config_string(ctx, "tree", n, out, cause) != 0)
		return -1;
	for (p = *out; *p != '\0'; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("_.-/", *p) != NULL))
			return yamlnode_error(cause, ctx->file, n,
			    "'tree' must be made of letters, digits, '_', '.', "
			    "'/' and '-', not '%s'", *out);
	}
	return 0;
}

int
config_repo(const struct config_ctx *ctx, const struct yamlnode *n,
    size_t idx, struct config *cfg, const struct yamlnode **names,
    char **cause)
{
	struct config_repo	*repo = &cfg->repos[idx];
	const struct yamlnode	*key, *value;
	char			 where[64], build[80];
	size_t			 i;
	int			 r = 0;

	snprintf(where, sizeof where, "repos[%zu]", idx);
	snprintf(build, sizeof build, "repos[%zu].build", idx);
	if (config_map(ctx, where, n, cause) != 0)
		return -1;
	for (i = 0; r == 0 && i < n->nr; i += 2) {
		key = n->items[i];
		value = n->items[i + 1];
		if (strcmp(key->value, "name") == 0) {
			r = config_string(ctx, "name", value, &repo->name,
			    cause);
			names[idx] = value;
		} else if (strcmp(key->value, "path") == 0) {
			r = config_path(ctx, "path", value, &repo->path, cause);
			if (r == 0)
				r = config_check_path(ctx, "path", value,
				    repo->path, CONFIG_NEED_DIR, cause);
		}
		else if (strcmp(key->value, "fetch") == 0)
			r = config_string(ctx, "fetch", value, &repo->fetch,
			    cause);
		else if (strcmp(key->value, "track") == 0)
			r = config_list(ctx, "track", value, &repo->track,
			    &repo->nr_track, cause);
		else if (strcmp(key->value, "tree") == 0)
			r = config_repo_tree(ctx, value, &repo->tree, cause);
		else if (strcmp(key->value, "url") == 0)
			r = config_url(ctx, "url", value, &repo->url, cause);
		else if (strcmp(key->value, "build") == 0)
			r = config_repo_build(ctx, build, value, repo, cause);
		else
			r = config_unknown(ctx, where, key,
			    "name, path, fetch, track, tree, url, build", cause);
	}
	if (r != 0)
		return -1;
	if (repo->name == NULL)
		return yamlnode_error(cause, ctx->file, n,
		    "'%s' has no 'name'", where);
	if (!config_is_name(repo->name))
		return yamlnode_error(cause, ctx->file, names[idx],
		    "repository name '%s' must be made of letters, digits, "
		    "'_', '.' and '-'", repo->name);
	for (i = 0; i < idx; i++) {
		if (strcmp(cfg->repos[i].name, repo->name) == 0)
			return yamlnode_error(cause, ctx->file, names[idx],
			    "duplicate repository name '%s' (first at %u:%u)",
			    repo->name, names[i]->line, names[i]->column);
	}
	if (repo->path == NULL)
		return yamlnode_error(cause, ctx->file, n,
		    "repository '%s' has no 'path'", repo->name);
	return 0;
}

