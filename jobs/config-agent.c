/*
 * An entry of agents: or builders: in bisectd.yaml (docs/config.md): its
 * transport, ssh settings, slots, timeouts, boot and test disks, with the
 * defaults of an entry and the checks that need the whole entry (an ssh
 * agent's host and key, a kexec agent's one slot, disks only unbooted).
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/config-internal.h"
#include "util/xalloc.h"

static const char *const config_transports[] = { "local", "ssh", NULL };
static const char *const config_boots[] = { "none", "qemu", "kexec", NULL };
static const char *const config_ssh_keys[] = {
	"host", "port", "user", "identity", "known_hosts",
	"trust_on_first_use", "connect_timeout", "keepalive",
	"silence_timeout", "remote_dir", NULL
};

#define CONFIG_MAX_TIMEOUT	86400


/* A loop disk's size: "8G" (K M G T, powers of 1024), 256M to 16T. */
static int
config_agent_disk_size(const char *s, unsigned long long *out)
{
	unsigned long long	v = 0;
	const char		*p = s;
	int			shift = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (1ULL << 44))
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	switch (*p) {
	case 'K': shift = 10; p++; break;
	case 'M': shift = 20; p++; break;
	case 'G': shift = 30; p++; break;
	case 'T': shift = 40; p++; break;
	case '\0': break;
	default: return -1;
	}
	if (*p != '\0' || v > (1ULL << 44) >> shift)
		return -1;
	v <<= shift;
	if (v < (256ULL << 20) || v > (16ULL << 40))
		return -1;
	*out = v;
	return 0;
}

/*
 * disks: {hdd: [/dev/sdb1, loop:8G], ssd: [...]}: the test disks of an
 * agent, LKP's hdd_partitions and ssd_partitions. A device must be a
 * block device when the agent is local (the only machine the config can
 * be checked against); "loop:SIZE" is a sparse file on a loop device.
 */
static int
config_agent_disks(const struct config_ctx *ctx, const struct yamlnode *n,
    struct config_agent *agent, char **cause)
{
	const struct yamlnode	*kind, *list, *item;
	struct config_disk	*d;
	struct stat		 st;
	size_t			 i, j, k, nr = 0;

	if (config_map(ctx, "disks", n, cause) != 0)
		return -1;
	for (i = 0; i < n->nr; i += 2) {
		list = n->items[i + 1];
		nr += list->type == YAMLNODE_SEQUENCE ? list->nr : 1;
	}
	if (nr > CONFIG_MAX_ITEMS)
		return yamlnode_error(cause, ctx->file, n, "'disks' lists more "
		    "than %d disks", CONFIG_MAX_ITEMS);
	agent->disks = xcalloc(nr + 1, sizeof *agent->disks);
	for (i = 0; i < n->nr; i += 2) {
		kind = n->items[i];
		list = n->items[i + 1];
		if (strcmp(kind->value, "hdd") != 0 &&
		    strcmp(kind->value, "ssd") != 0)
			return yamlnode_error(cause, ctx->file, kind, "unknown "
			    "disk kind '%s' in 'disks' (known: hdd, ssd, as "
			    "LKP's 'disk: 1HDD', '1SSD')", kind->value);
		if (list->type != YAMLNODE_SEQUENCE &&
		    (list->type != YAMLNODE_SCALAR || list->null))
			return yamlnode_error(cause, ctx->file, list, "'disks.%s' "
			    "must be a list of devices (/dev/sdb1) or loop "
			    "disks (loop:8G), not %s", kind->value,
			    yamlnode_kind(list));
		for (j = 0; j < (list->type == YAMLNODE_SEQUENCE ? list->nr :
		    1); j++) {
			item = list->type == YAMLNODE_SEQUENCE ?
			    list->items[j] : list;
			if (item->type != YAMLNODE_SCALAR || item->null)
				return yamlnode_error(cause, ctx->file, item,
				    "'disks.%s' lists %s: a disk is a device "
				    "or loop:SIZE", kind->value,
				    yamlnode_kind(item));
			d = &agent->disks[agent->nr_disks];
			if (strncmp(item->value, "loop:", 5) == 0) {
				if (config_agent_disk_size(item->value + 5,
				    &d->loop_size) != 0)
					return yamlnode_error(cause, ctx->file,
					    item, "'disks.%s': '%s' must be "
					    "loop:SIZE with SIZE from 256M to "
					    "16T (K M G T)", kind->value,
					    item->value);
			} else {
				if (strncmp(item->value, "/dev/", 5) != 0 ||
				    strstr(item->value, "/../") != NULL ||
				    strspn(item->value, "abcdefghijklmnopqrstu"
				    "vwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				    "/_.:-") != strlen(item->value))
					return yamlnode_error(cause, ctx->file,
					    item, "'disks.%s': '%s' is neither "
					    "a device under /dev/ nor loop:SIZE",
					    kind->value, item->value);
				for (k = 0; k < agent->nr_disks; k++) {
					if (agent->disks[k].device != NULL &&
					    strcmp(agent->disks[k].device,
					    item->value) == 0)
						return yamlnode_error(cause,
						    ctx->file, item, "'disks' "
						    "lists '%s' twice",
						    item->value);
				}
				if (ctx->check && (agent->transport == NULL ||
				    strcmp(agent->transport, "local") == 0) &&
				    (stat(item->value, &st) == -1 ||
				    !S_ISBLK(st.st_mode)))
					return yamlnode_error(cause, ctx->file,
					    item, "'disks.%s': '%s' is not a "
					    "block device on this machine",
					    kind->value, item->value);
				d->device = xstrdup(item->value);
			}
			d->kind = xstrdup(kind->value);
			agent->nr_disks++;
		}
	}
	return 0;
}

/* The defaults of an agent entry (the implicit local one included). */
void
config_agent_defaults(struct config_agent *agent)
{
	agent->port = 22;
	agent->slots = 1;
	agent->connect_timeout = 10;
	agent->keepalive = 10;
	agent->silence_timeout = 30;
	agent->probe_interval = 60;
	agent->run_margin = 120;
}

/* The nodes of an entry that its checks after the walk point at. */
struct config_agent_nodes {
	const struct yamlnode	*ssh_key;	/* the first ssh-only key */
	const struct yamlnode	*silence;
	const struct yamlnode	*slots;
	const struct yamlnode	*disks;
};

/* One key of an entry; names[idx] is set by its name. */
static int
config_agent_key(const struct config_ctx *ctx, const char *where,
    const struct yamlnode *key, const struct yamlnode *value,
    struct config_agent *agent, int builder, struct config_agent_nodes *nn,
    const struct yamlnode **name, char **cause)
{
	size_t	j;

	if (builder && (strcmp(key->value, "transport") == 0 ||
	    strcmp(key->value, "boot") == 0 ||
	    strcmp(key->value, "run_margin") == 0))
		return yamlnode_error(cause, ctx->file, key, "'%s' does "
		    "not apply to a builder (builders are reached "
		    "over ssh, build and run nothing): known keys are "
		    "name, host, port, user, identity, known_hosts, "
		    "trust_on_first_use, slots, connect_timeout, "
		    "keepalive, silence_timeout, remote_dir, "
		    "probe_interval", key->value);
	for (j = 0; config_ssh_keys[j] != NULL; j++) {
		if (nn->ssh_key == NULL &&
		    strcmp(key->value, config_ssh_keys[j]) == 0)
			nn->ssh_key = key;
	}
	if (strcmp(key->value, "name") == 0) {
		*name = value;
		return config_string(ctx, "name", value, &agent->name, cause);
	}
	if (strcmp(key->value, "transport") == 0)
		return config_choice(ctx, "transport", value,
		    config_transports, &agent->transport, cause);
	if (strcmp(key->value, "host") == 0)
		return config_string(ctx, "host", value, &agent->host, cause);
	if (strcmp(key->value, "port") == 0)
		return config_int(ctx, "port", value, 1, 65535, &agent->port,
		    cause);
	if (strcmp(key->value, "user") == 0)
		return config_string(ctx, "user", value, &agent->user, cause);
	if (strcmp(key->value, "identity") == 0)
		return config_path(ctx, "identity", value, &agent->identity,
		    cause);
	if (strcmp(key->value, "known_hosts") == 0)
		return config_path(ctx, "known_hosts", value,
		    &agent->known_hosts, cause);
	if (strcmp(key->value, "trust_on_first_use") == 0)
		return config_bool(ctx, "trust_on_first_use", value,
		    &agent->tofu, cause);
	if (strcmp(key->value, "boot") == 0)
		return config_choice(ctx, "boot", value, config_boots,
		    &agent->boot, cause);
	if (strcmp(key->value, "slots") == 0) {
		nn->slots = value;
		return config_int(ctx, "slots", value, 1, CONFIG_MAX_SLOTS,
		    &agent->slots, cause);
	}
	if (strcmp(key->value, "connect_timeout") == 0)
		return config_int(ctx, "connect_timeout", value, 1,
		    CONFIG_MAX_TIMEOUT, &agent->connect_timeout, cause);
	if (strcmp(key->value, "keepalive") == 0)
		return config_int(ctx, "keepalive", value, 1,
		    CONFIG_MAX_TIMEOUT, &agent->keepalive, cause);
	if (strcmp(key->value, "silence_timeout") == 0) {
		nn->silence = value;
		return config_int(ctx, "silence_timeout", value, 2,
		    CONFIG_MAX_TIMEOUT, &agent->silence_timeout, cause);
	}
	if (strcmp(key->value, "remote_dir") == 0)
		return config_string(ctx, "remote_dir", value,
		    &agent->remote_dir, cause);
	if (strcmp(key->value, "probe_interval") == 0)
		return config_int(ctx, "probe_interval", value, 1,
		    CONFIG_MAX_TIMEOUT, &agent->probe_interval, cause);
	if (strcmp(key->value, "run_margin") == 0)
		return config_int(ctx, "run_margin", value, 1,
		    CONFIG_MAX_TIMEOUT, &agent->run_margin, cause);
	if (!builder && strcmp(key->value, "disks") == 0) {
		nn->disks = value;
		return 0;
	}
	return config_unknown(ctx, where, key, builder ?
	    "name, transport, host, port, user, identity, "
	    "known_hosts, trust_on_first_use, boot, slots, "
	    "connect_timeout, keepalive, silence_timeout, "
	    "remote_dir, probe_interval, run_margin" :
	    "name, transport, host, port, user, identity, "
	    "known_hosts, trust_on_first_use, boot, slots, "
	    "connect_timeout, keepalive, silence_timeout, "
	    "remote_dir, probe_interval, run_margin, disks",
	    cause);
}

/* The entry's name: there, well formed, and not an earlier entry's. */
static int
config_agent_name(const struct config_ctx *ctx, const struct yamlnode *n,
    size_t idx, const struct config_agent *list, const char *kind,
    const char *where, const struct yamlnode **names, char **cause)
{
	const struct config_agent	*agent = &list[idx];
	size_t				 i;

	if (agent->name == NULL)
		return yamlnode_error(cause, ctx->file, n,
		    "'%s' has no 'name'", where);
	if (!config_is_name(agent->name))
		return yamlnode_error(cause, ctx->file, names[idx],
		    "%s name '%s' must be made of letters, digits, '_', "
		    "'.' and '-'", kind, agent->name);
	for (i = 0; i < idx; i++) {
		if (strcmp(list[i].name, agent->name) == 0)
			return yamlnode_error(cause, ctx->file, names[idx],
			    "duplicate %s name '%s' (first at %u:%u)", kind,
			    agent->name, names[i]->line, names[i]->column);
	}
	return 0;
}

/* What an ssh entry must say, once its keys are read. */
static int
config_agent_ssh(const struct config_ctx *ctx, const struct yamlnode *n,
    struct config_agent *agent, const char *kind,
    const struct config_agent_nodes *nn, char **cause)
{
	const char	*missing = NULL;

	if (agent->host == NULL)
		missing = "host";
	else if (agent->user == NULL)
		missing = "user";
	else if (agent->identity == NULL)
		missing = "identity";
	else if (agent->known_hosts == NULL)
		missing = "known_hosts";
	if (missing != NULL)
		return yamlnode_error(cause, ctx->file, n,
		    "ssh %s '%s' has no '%s'", kind, agent->name, missing);
	if (agent->silence_timeout <= agent->keepalive)
		return yamlnode_error(cause, ctx->file, nn->silence != NULL ?
		    nn->silence : n, "'silence_timeout' (%ds) must be longer "
		    "than 'keepalive' (%ds) on %s '%s'",
		    agent->silence_timeout, agent->keepalive, kind,
		    agent->name);
	if (agent->remote_dir == NULL)
		agent->remote_dir = xstrdup(".bisectd");
	return 0;
}

/*
 * An entry of agents: or, with builder set, of builders: (machines that
 * build over the same ssh transport: always ssh, never booted, no runs).
 */
int
config_agent(const struct config_ctx *ctx, const struct yamlnode *n,
    size_t idx, struct config_agent *list, int builder,
    const struct yamlnode **names, char **cause)
{
	struct config_agent		*agent = &list[idx];
	struct config_agent_nodes	 nn;
	const char			*kind;
	char				 where[64];
	size_t				 i;

	kind = builder ? "builder" : "agent";
	snprintf(where, sizeof where, "%s[%zu]", builder ? "builders" :
	    "agents", idx);
	if (config_map(ctx, where, n, cause) != 0)
		return -1;
	config_agent_defaults(agent);
	memset(&nn, 0, sizeof nn);
	for (i = 0; i < n->nr; i += 2) {
		if (config_agent_key(ctx, where, n->items[i],
		    n->items[i + 1], agent, builder, &nn, &names[idx],
		    cause) != 0)
			return -1;
	}
	if (config_agent_name(ctx, n, idx, list, kind, where, names,
	    cause) != 0)
		return -1;
	/* "local" names the scheduler's own builds (bisectctl builders) */
	if (builder && strcmp(agent->name, "local") == 0)
		return yamlnode_error(cause, ctx->file, names[idx],
		    "builder name 'local' is taken by the scheduler's own "
		    "builds");
	if (agent->transport == NULL)
		agent->transport = xstrdup(builder ? "ssh" : "local");
	if (agent->boot == NULL)
		agent->boot = xstrdup("none");
	/* after transport: a local agent's devices are checked here */
	if (nn.disks != NULL && config_agent_disks(ctx, nn.disks, agent,
	    cause) != 0)
		return -1;
	if (nn.disks != NULL && strcmp(agent->boot, "none") != 0)
		return yamlnode_error(cause, ctx->file, nn.disks, "agent '%s' "
		    "boots its kernel (%s): its 'disks' would be set up "
		    "outside the booted kernel; disks are for agents with "
		    "'boot: none'", agent->name, agent->boot);
	/* each run reboots the whole machine: two at once cannot be */
	if (strcmp(agent->boot, "kexec") == 0 && agent->slots > 1)
		return yamlnode_error(cause, ctx->file, nn.slots, "agent '%s' "
		    "boots with kexec, which reboots the machine for every "
		    "run: it has one slot, not %d", agent->name, agent->slots);
	if (strcmp(agent->transport, "local") == 0) {
		if (nn.ssh_key != NULL)
			return yamlnode_error(cause, ctx->file, nn.ssh_key,
			    "'%s' only applies to transport 'ssh' (agent '%s' "
			    "is local)", nn.ssh_key->value, agent->name);
		return 0;
	}
	return config_agent_ssh(ctx, n, agent, kind, &nn, cause);
}
