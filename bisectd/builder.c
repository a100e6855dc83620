/*
 * One build on a build host over ssh: push the commit, check it out, run
 * the command, and bring the artifacts back with every file's digest
 * checked (bisectd/builder.h; the layout there is in docs/kernel.md).
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/ssh-exec.h"
#include "agents/ssh-session.h"
#include "agents/ssh-sftp.h"
#include "bisectd/build-kernel.h"
#include "bisectd/builder.h"
#include "bisectd/kconfig.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define BUILDER_OUT_MAX		(1u << 20)	/* a phase's report */
#define BUILDER_ERR_MAX		(64u << 10)	/* stderr kept for the log */

void
builder_result_release(struct builder_result *res)
{
	free(res->failure);
	free(res->missing);
	free(res->kernel_release);
	free(res->host_key);
	memset(res, 0, sizeof *res);
}

/* s as one single-quoted shell word. */
static void
builder_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

static void
builder_var(struct strbuf *sb, const char *name, const char *value)
{
	strbuf_addf(sb, "%s=", name);
	builder_quote(sb, value);
	strbuf_addch(sb, '\n');
}

/*
 * The environment build_kernel_env makes, said in sh: "K=V" exported,
 * "?K=V" only where unset, "-K" unset. The local PATH means nothing on
 * the builder: ccache's directory goes in front of the builder's own.
 */
static void
builder_env(struct strbuf *sb, char *const *env)
{
	const char	*e, *eq;

	for (; env != NULL && *env != NULL; env++) {
		e = **env == '?' || **env == '-' ? *env + 1 : *env;
		if (**env == '-') {
			strbuf_addf(sb, "unset %s\n", e);
			continue;
		}
		if ((eq = strchr(e, '=')) == NULL)
			continue;
		if (strncmp(e, "PATH=", 5) == 0) {
			strbuf_addf(sb, "[ -x %s/gcc ] && "
			    "PATH=%s:$PATH && export PATH\n",
			    BUILD_KERNEL_CCACHE, BUILD_KERNEL_CCACHE);
			continue;
		}
		if (**env == '?')
			strbuf_addf(sb, "[ -n \"${%.*s+set}\" ] || ",
			    (int)(eq - e), e);
		strbuf_addf(sb, "{ %.*s=", (int)(eq - e), e);
		builder_quote(sb, eq + 1);
		strbuf_addf(sb, "; export %.*s; }\n", (int)(eq - e), e);
	}
}

/* The script's variables: its paths, the commit, the command, the env. */
static void
builder_script_vars(struct strbuf *sb, const struct builder_job *job,
    const char *root, const char *out)
{
	const struct config_repo	*cr = job->repo;
	char				*s, **env;

	builder_var(sb, "R", root);
	s = xasprintf("%s/git/%s.git", root, cr->name);
	builder_var(sb, "G", s);
	free(s);
	s = xasprintf("%s/slots/%s/%d", root, cr->name, job->slot->slot);
	builder_var(sb, "S", s);
	free(s);
	builder_var(sb, "OID", job->oid);
	builder_var(sb, "O", out);
	strbuf_addstr(sb, "T=$S/tree\n");
	strbuf_addf(sb, "B=$S/build-%s\n", job->recipe);
	builder_var(sb, "CMD", cr->build_command != NULL ?
	    cr->build_command : "");
	strbuf_addstr(sb, "BUILD_DIR=$B SRC_DIR=$T\n"
	    "NPROC=$(nproc 2>/dev/null || echo 1)\n"
	    "export BUILD_DIR SRC_DIR NPROC\n");
	/* the builder's own ccache and slots, as locally (build-kernel.c) */
	s = xasprintf("%s/slots/%s/%d/build-%s", root, cr->name,
	    job->slot->slot, job->recipe);
	env = build_kernel_env(root, s, job->kernel);
	free(s);
	builder_env(sb, env);
	build_kernel_env_free(env);
}

/*
 * The collect phase: the artifacts (a kernel's .config, symbols and
 * release too) gathered in $O, each listed with its SHA-256.
 */
static void
builder_script_collect(struct strbuf *sb, const struct builder_job *job)
{
	const struct config_repo	*cr = job->repo;
	size_t				 i;

	if (cr->nr_artifacts == 0)
		strbuf_addstr(sb, "\tcp -a \"$T/.\" \"$O/\" || exit 125\n");
	for (i = 0; i < cr->nr_artifacts; i++) {
		strbuf_addstr(sb, "\ta=");
		builder_quote(sb, cr->artifacts[i]);
		strbuf_addch(sb, '\n');
		if (cr->build_command != NULL)
			strbuf_addstr(sb, "\tif [ -e \"$B/$a\" ] || "
			    "[ -L \"$B/$a\" ]; then f=$B/$a; else f=$T/$a; "
			    "fi\n");
		else
			strbuf_addstr(sb, "\tf=$T/$a\n");
		strbuf_addstr(sb,
		    "\tif ! [ -e \"$f\" ] && ! [ -L \"$f\" ]; then\n"
		    "\t\techo \"missing $a\"; exit 0\n"
		    "\tfi\n"
		    "\tmkdir -p \"$O/$(dirname \"$a\")\" && "
		    "cp -a \"$f\" \"$O/$a\" || exit 125\n");
	}
	if (job->kernel) {
		strbuf_addf(sb, "\t[ ! -e \"$B/%s\" ] || cp \"$B/%s\" "
		    "\"$O/%s\" || exit 125\n", BUILD_KERNEL_CONFIG,
		    BUILD_KERNEL_CONFIG, BUILD_KERNEL_CONFIG);
		strbuf_addf(sb, "\t[ ! -e \"$B/%s\" ] || [ -e \"$O/%s\" ] || "
		    "cp \"$B/%s\" \"$O/%s\" || exit 125\n",
		    BUILD_KERNEL_SYMBOLS, BUILD_KERNEL_SYMBOLS,
		    BUILD_KERNEL_SYMBOLS, BUILD_KERNEL_SYMBOLS);
		strbuf_addstr(sb, "\tfor d in \"$B\" \"$T\"; do\n"
		    "\t\tif [ -s \"$d/include/config/kernel.release\" ]; "
		    "then\n"
		    "\t\t\techo \"release $(cat "
		    "\"$d/include/config/kernel.release\")\"; break\n"
		    "\t\tfi\n"
		    "\tdone\n");
	}
	strbuf_addstr(sb,
	    "\tcd \"$O\" || exit 125\n"
	    "\tfind . ! -type f ! -type d | sed 's/^/other /'\n"
	    "\tfind . -type f -perm -u+x | sed 's/^/exec /'\n"
	    "\tfind . -type f -exec sha256sum {} + | sed 's/^/file /' "
	    "|| exit 125 ;;\n"
	    "clean)\n"
	    "\trm -rf \"$O\" ;;\n"
	    "esac\n");
}

/*
 * The script every phase runs (sh build.sh PHASE): have, ref, prepare,
 * build, collect, clean. A build's process group is in the slot's pgid
 * file while it runs, and killed by the next phase of the slot: a build
 * whose connection was cut must not go on writing in the tree.
 */
static char *
builder_script(const struct builder_job *job, const char *root,
    const char *out)
{
	const struct config_repo	*cr = job->repo;
	struct strbuf			 sb = STRBUF_INIT;
	char				*target = NULL;

	strbuf_addstr(&sb, "# written by bisectd for one build\nset -u\n");
	builder_script_vars(&sb, job, root, out);
	strbuf_addstr(&sb,
	    "if [ -s \"$S/pgid\" ]; then\n"
	    "\tkill -KILL -\"$(cat \"$S/pgid\")\" 2>/dev/null\n"
	    "\trm -f \"$S/pgid\"\n"
	    "fi\n"
	    "case $1 in\n"
	    "have)\n"
	    "\t[ -d \"$G\" ] || git init -q --bare \"$G\" >&2 || exit 125\n"
	    "\tif git --git-dir=\"$G\" cat-file -e \"$OID^{commit}\" "
	    "2>/dev/null; then\n"
	    "\t\techo have\n"
	    "\telse\n"
	    "\t\tgit --git-dir=\"$G\" for-each-ref "
	    "--format='%(objectname)' refs/bisectd/\n"
	    "\tfi ;;\n"
	    "ref)\n"
	    "\tgit --git-dir=\"$G\" update-ref \"refs/bisectd/$OID\" \"$OID\" "
	    ">&2 || exit 125 ;;\n"
	    "prepare)\n"
	    "\tmkdir -p \"$T\" \"$B\" || exit 125\n"
	    "\tGIT_DIR=$G GIT_WORK_TREE=$T GIT_INDEX_FILE=$S/index "
	    "git read-tree --reset -u \"$OID\" || exit 125\n"
	    "\techo \"bisectd: checked out $OID in $T\"\n");
	if (job->kernel) {
		strbuf_addf(&sb, "\trm -rf \"$B/%s\"\n", BUILD_KERNEL_MODDIR);
		if (cr->kconfig != NULL &&
		    (target = kconfig_target(cr->kconfig)) != NULL) {
			strbuf_addstr(&sb, "\techo \"bisectd: base config: "
			    "make ");
			strbuf_addstr(&sb, target);
			strbuf_addstr(&sb, "\"\n\t(cd \"$T\" && make -s "
			    "O=\"$B\" ");
			strbuf_addstr(&sb, target);
			strbuf_addstr(&sb, " </dev/null 2>&1) || exit 3\n");
		}
	}
	strbuf_addstr(&sb, "\t;;\n"
	    "build)\n"
	    "\tcd \"$T\" || exit 125\n"
	    "\tsetsid sh -c \"$CMD\" </dev/null 2>&1 &\n"
	    "\tpid=$!\n"
	    "\techo \"$pid\" >\"$S/pgid\"\n"
	    "\twait \"$pid\"\n"
	    "\tst=$?\n"
	    "\tkill -KILL -\"$pid\" 2>/dev/null\n"
	    "\trm -f \"$S/pgid\"\n"
	    "\texit \"$st\" ;;\n"
	    "collect)\n"
	    "\trm -rf \"$O\" && mkdir -p \"$O\" || exit 125\n");
	builder_script_collect(&sb, job);
	free(target);
	return strbuf_detach(&sb, NULL);
}

struct builder_conn {
	struct ssh_session	*s;
	const char		*name;
	char			*script;	/* remote path */
	int			 logfd;
};

/*
 * Run one phase: its stdout into out (or the log when out is NULL), its
 * stderr appended to the log. 0 with *status, -1 when the connection
 * failed.
 */
static int
builder_phase(struct builder_conn *c, const char *phase, struct strbuf *out,
    int *status, int *sig, char **cause)
{
	struct strbuf		 err = STRBUF_INIT;
	struct ssh_exec_sink	 sink;
	struct ssh_exec_exit	 ex;
	struct strbuf		 cmd = STRBUF_INIT;
	int			 r;

	memset(&sink, 0, sizeof sink);
	memset(&ex, 0, sizeof ex);
	sink.fd = out == NULL ? c->logfd : -1;
	sink.out = out;
	sink.err = &err;
	sink.max = out != NULL ? BUILDER_OUT_MAX : BUILDER_ERR_MAX;
	strbuf_addstr(&cmd, "sh ");
	builder_quote(&cmd, c->script);
	strbuf_addf(&cmd, " %s", phase);
	r = ssh_exec_run(c->s, cmd.buf, 0, &sink, 0, -1, &ex, cause);
	if (err.len > 0 && c->logfd != -1 &&
	    write(c->logfd, err.buf, err.len) < 0)
		log_debug("builder '%s': couldn't write the log", c->name);
	if (r == 0) {
		*status = ex.status;
		if (sig != NULL)
			*sig = ex.signal != NULL ? SIGKILL : 0;
		if (ex.status == -1 && sig == NULL)
			r = error_set(cause, "phase '%s' on builder '%s' was "
			    "killed by signal %s", phase, c->name,
			    ex.signal != NULL ? ex.signal : "?");
	} else
		error_prefix(cause, "builder '%s', phase '%s'", c->name,
		    phase);
	free(ex.signal);
	strbuf_release(&err);
	strbuf_release(&cmd);
	return r;
}

static int
builder_phase_ok(struct builder_conn *c, const char *phase,
    struct strbuf *out, char **cause)
{
	int	status;

	if (builder_phase(c, phase, out, &status, NULL, cause) != 0)
		return -1;
	if (status != 0)
		return error_set(cause, "phase '%s' on builder '%s' exited "
		    "with status %d (see the build log)", phase, c->name,
		    status);
	return 0;
}

/*
 * Push the commit: a pack of what the builder lacks (everything reachable
 * from oid but not from the refs it says it has), written by libgit2 and
 * uploaded into its clone's objects/pack, the index last.
 */
static int
builder_push(struct builder_conn *c, const struct builder_job *job,
    const char *root, char **cause)
{
	struct strbuf	 have = STRBUF_INIT;
	git_repository	*gr = repo_git(job->git);
	git_packbuilder	*pb = NULL;
	git_revwalk	*walk = NULL;
	git_oid		 oid, h;
	char		 tmpl[] = "/tmp/bisectd-pack.XXXXXX", *line, *next;
	char		*lpack = NULL, *lidx = NULL, *rdir = NULL;
	char		*rtmp = NULL, *rfinal = NULL, *ext;
	const char	*name;
	int		 exists, i, rv = -1, made = 0;

	if (builder_phase_ok(c, "have", &have, cause) != 0)
		goto out;
	if (strncmp(have.buf, "have", 4) == 0) {
		rv = 0;
		goto out;
	}
	if (git_oid_fromstr(&oid, job->oid) != 0 ||
	    git_revwalk_new(&walk, gr) != 0 ||
	    git_revwalk_push(walk, &oid) != 0) {
		error_set(cause, "couldn't walk '%s': %s", job->oid,
		    git_error_last() != NULL ? git_error_last()->message :
		    "?");
		goto out;
	}
	for (line = have.buf; *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) == NULL)
			next = line + strlen(line);
		else
			*next++ = '\0';
		/* what the builder has and this repository knows */
		if (git_oid_fromstr(&h, line) == 0)
			(void)git_revwalk_hide(walk, &h);
	}
	git_error_clear();
	if (mkdtemp(tmpl) == NULL) {
		error_errno(cause, "couldn't make a directory for the pack");
		goto out;
	}
	made = 1;
	if (git_packbuilder_new(&pb, gr) != 0 ||
	    git_packbuilder_insert_walk(pb, walk) != 0 ||
	    git_packbuilder_write(pb, tmpl, 0644, NULL, NULL) != 0 ||
	    (name = git_packbuilder_name(pb)) == NULL) {
		error_set(cause, "couldn't pack '%s' for builder '%s': %s",
		    job->oid, c->name, git_error_last() != NULL ?
		    git_error_last()->message : "?");
		goto out;
	}
	dprintf(job->logfd, "bisectd: pushing %zu objects to builder '%s'\n",
	    (size_t)git_packbuilder_object_count(pb), c->name);
	rdir = xasprintf("%s/git/%s.git/objects/pack", root, job->repo->name);
	for (i = 0; i < 2; i++) {
		ext = i == 0 ? "pack" : "idx";
		free(lpack);
		lpack = xasprintf("%s/pack-%s.%s", tmpl, name, ext);
		free(rtmp);
		rtmp = xasprintf("%s/.tmp-%ld-pack-%s.%s", rdir,
		    (long)getpid(), name, ext);
		free(rfinal);
		rfinal = xasprintf("%s/pack-%s.%s", rdir, name, ext);
		if (ssh_sftp_put_file(c->s, lpack, rtmp, 0444, 0,
		    cause) != 0 ||
		    ssh_sftp_rename(c->s, rtmp, rfinal, &exists, 0,
		    cause) != 0)
			goto out;
	}
	if (builder_phase_ok(c, "ref", NULL, cause) != 0)
		goto out;
	rv = 0;
out:
	if (made) {
		lidx = xstrdup(tmpl);
		dir_remove_tree(lidx, NULL);
	}
	git_packbuilder_free(pb);
	git_revwalk_free(walk);
	strbuf_release(&have);
	free(lpack);
	free(lidx);
	free(rdir);
	free(rtmp);
	free(rfinal);
	return rv;
}

/* A kernel's .config on the builder: its base with the job's fragment. */
static int
builder_kconfig(struct builder_conn *c, const struct builder_job *job,
    const char *root, char **cause)
{
	const struct config_repo	*cr = job->repo;
	struct strbuf			 base = STRBUF_INIT;
	struct strbuf			 cmd = STRBUF_INIT;
	struct ssh_exec_sink		 sink;
	struct ssh_exec_exit		 ex;
	char				*target = NULL, *buf = NULL;
	char				*merged = NULL, *remote = NULL;
	size_t				 len = 0;
	int				 rv = -1;

	memset(&ex, 0, sizeof ex);
	remote = xasprintf("%s/slots/%s/%d/build-%s/%s", root, cr->name,
	    job->slot->slot, job->recipe, BUILD_KERNEL_CONFIG);
	if (cr->kconfig != NULL &&
	    (target = kconfig_target(cr->kconfig)) != NULL) {
		memset(&sink, 0, sizeof sink);
		sink.fd = -1;
		sink.out = &base;
		sink.max = 64u << 20;
		strbuf_addstr(&cmd, "cat ");
		builder_quote(&cmd, remote);
		if (ssh_exec_run(c->s, cmd.buf, 0, &sink, 0, -1, &ex,
		    cause) != 0)
			goto out;
		if (ex.status != 0) {
			error_set(cause, "no %s on builder '%s' after make %s",
			    BUILD_KERNEL_CONFIG, c->name, target);
			goto out;
		}
		buf = strbuf_detach(&base, &len);
	} else if (cr->kconfig != NULL) {
		dprintf(job->logfd, "bisectd: base config: %s\n", cr->kconfig);
		if (file_read(cr->kconfig, &buf, &len, cause) != 0)
			goto out;
	} else
		dprintf(job->logfd, "bisectd: base config: none, the "
		    "fragment alone\n");
	if (job->fragment != NULL)
		dprintf(job->logfd, "bisectd: the job's kconfig:\n%s\n",
		    job->fragment);
	merged = kconfig_merge(buf != NULL ? buf : "", len, job->fragment);
	if (ssh_sftp_put_buffer(c->s, merged, strlen(merged), remote, 0644, 0,
	    cause) != 0)
		goto out;
	rv = 0;
out:
	free(ex.signal);
	strbuf_release(&base);
	strbuf_release(&cmd);
	free(target);
	free(buf);
	free(merged);
	free(remote);
	return rv;
}

/* Count the regular files under dir; -1 on anything else. */
static int
builder_count_files(const char *dir, long *n, char **cause)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	char		*p;
	int		 rv = 0;

	if ((d = opendir(dir)) == NULL)
		return error_errno(cause, "couldn't read '%s'", dir);
	while (rv == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		p = path_join(dir, de->d_name);
		if (lstat(p, &st) == -1)
			rv = error_errno(cause, "couldn't stat '%s'", p);
		else if (S_ISDIR(st.st_mode))
			rv = builder_count_files(p, n, cause);
		else if (S_ISREG(st.st_mode))
			(*n)++;
		else
			rv = error_set(cause, "'%s' is not a regular file", p);
		free(p);
	}
	closedir(d);
	return rv;
}

/* A path the builder names under the download: relative, no "..". */
static int
builder_rel_ok(const char *p)
{
	size_t	n;

	if (*p == '\0' || *p == '/')
		return 0;
	while (*p != '\0') {
		n = strcspn(p, "/");
		if (n == 2 && strncmp(p, "..", 2) == 0)
			return 0;
		p += n;
		if (*p == '/')
			p++;
	}
	return 1;
}

/*
 * The collect phase's report against what was downloaded: every file the
 * builder listed has the SHA-256 it said, and there is no other.
 */
static int
builder_verify(const struct builder_job *job, const char *name, char *report,
    struct builder_result *res, char **cause)
{
	char	*line, *next, *sp, *path, hex[HASH_HEX_LEN + 1];
	long	 listed = 0, found = 0;
	int	 rv = -1;

	for (line = report; *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) == NULL)
			next = line + strlen(line);
		else
			*next++ = '\0';
		if (strncmp(line, "missing ", 8) == 0) {
			res->missing = xstrdup(line + 8);
			res->failure = xasprintf("artifact '%s' not found",
			    line + 8);
			return 0;
		}
		if (strncmp(line, "release ", 8) == 0) {
			free(res->kernel_release);
			res->kernel_release = xstrdup(line + 8);
			continue;
		}
		if (strncmp(line, "other ", 6) == 0)
			return error_set(cause, "artifact '%s' on builder '%s' "
			    "is neither a regular file nor a directory (not "
			    "copied from a builder)", line + 6, name);
		if (strncmp(line, "exec ./", 7) == 0) {
			/* SFTP downloads drop the mode: executables get it */
			if (!builder_rel_ok(line + 7))
				return error_set(cause, "builder '%s' named "
				    "an artifact '%s'", name, line + 7);
			path = path_join(job->tmp, line + 7);
			if (chmod(path, 0755) == -1) {
				error_errno(cause, "couldn't make '%s' "
				    "executable", path);
				free(path);
				goto out;
			}
			free(path);
			continue;
		}
		if (strncmp(line, "file ", 5) != 0)
			continue;
		line += 5;
		/* sha256sum: HEX, two spaces, ./PATH */
		if (strlen(line) < HASH_HEX_LEN + 4 ||
		    line[HASH_HEX_LEN] != ' ' ||
		    (sp = line + HASH_HEX_LEN + 2)[0] != '.' || sp[1] != '/' ||
		    !builder_rel_ok(sp + 2))
			return error_set(cause, "builder '%s' listed an "
			    "artifact as '%s'", name, line);
		path = path_join(job->tmp, sp + 2);
		struct hash *h = hash_new();

		if (hash_file(h, path, 1, cause) != 0) {
			hash_free(h);
			free(path);
			error_prefix(cause, "artifact '%s' from builder '%s'",
			    sp + 2, name);
			goto out;
		}
		hash_finish(h, hex);
		if (strncmp(hex, line, HASH_HEX_LEN) != 0) {
			error_set(cause, "digest mismatch: artifact '%s' "
			    "from builder '%s' has sha256 %s, the builder "
			    "said %.*s", sp + 2, name, hex, HASH_HEX_LEN,
			    line);
			free(path);
			goto out;
		}
		free(path);
		listed++;
	}
	if (builder_count_files(job->tmp, &found, cause) != 0)
		goto out;
	if (found != listed) {
		error_set(cause, "digest mismatch: %ld files came from "
		    "builder '%s', it listed %ld", found, name, listed);
		goto out;
	}
	dprintf(job->logfd, "bisectd: %ld artifact file%s from builder '%s', "
	    "each sha256 checked\n", listed, listed == 1 ? "" : "s", name);
	rv = 0;
out:
	return rv;
}

static void
builder_session_opts(const struct config_agent *b, struct ssh_session_opts *o)
{
	memset(o, 0, sizeof *o);
	o->name = b->name;
	o->host = b->host;
	o->port = b->port;
	o->user = b->user;
	o->identity = b->identity;
	o->known_hosts = b->known_hosts;
	o->tofu = b->tofu;
	o->connect_timeout = (unsigned)b->connect_timeout;
	o->keepalive = (unsigned)b->keepalive;
	o->silence_timeout = (unsigned)b->silence_timeout;
}

/*
 * The builder's directories for the slot and the artifacts, and the slot's
 * build.sh uploaded: *root is the remote_dir's real path, *out where the
 * artifacts are gathered before the download.
 */
static int
builder_remote_setup(struct builder_conn *c, const struct builder_job *job,
    char **root, char **out, char **cause)
{
	const struct config_agent	*b = job->slot->builder;
	char				*dir = NULL, *script = NULL;
	int				 rv = -1;

	if (ssh_sftp_mkdir_p(c->s, b->remote_dir, 0755, 0, cause) != 0 ||
	    ssh_sftp_realpath(c->s, b->remote_dir, root, 0, cause) != 0)
		goto out;
	dir = xasprintf("%s/slots/%s/%d", *root, job->repo->name,
	    job->slot->slot);
	if (ssh_sftp_mkdir_p(c->s, dir, 0755, 0, cause) != 0)
		goto out;
	free(dir);
	dir = xasprintf("%s/out/%s", *root, job->repo->name);
	if (ssh_sftp_mkdir_p(c->s, dir, 0755, 0, cause) != 0)
		goto out;
	*out = xasprintf("%s/%s-%s.%ld", dir, job->recipe, job->oid,
	    (long)getpid());
	c->script = xasprintf("%s/slots/%s/%d/build.sh", *root,
	    job->repo->name, job->slot->slot);
	script = builder_script(job, *root, *out);
	if (ssh_sftp_put_buffer(c->s, script, strlen(script), c->script, 0644,
	    0, cause) != 0)
		goto out;
	rv = 0;
out:
	free(dir);
	free(script);
	return rv;
}

/*
 * The recipe's command on the builder: 0 to go on, 1 when the commit's
 * build failed (res->failure), -1 on an error of the attempt.
 */
static int
builder_run_command(struct builder_conn *c, const struct builder_job *job,
    struct builder_result *res, char **cause)
{
	const struct config_agent	*b = job->slot->builder;
	int				 status, sig;

	if (job->repo->build_command == NULL)
		return 0;
	dprintf(job->logfd, "bisectd: running on builder '%s': %s\n",
	    b->name, job->repo->build_command);
	if (builder_phase(c, "build", NULL, &status, &sig, cause) != 0)
		return -1;
	res->exit_status = status;
	/* as locally: a signal is the machine's doing, tried again */
	if (sig != 0 || status > 128) {
		res->signal = sig != 0 ? sig : status - 128;
		return error_set(cause, "build killed by signal %d on "
		    "builder '%s'", res->signal, b->name);
	}
	if (status != 0) {
		res->failure = xasprintf("build exited with status %d",
		    status);
		return 1;
	}
	return 0;
}

int
builder_build(const struct builder_job *job, struct builder_result *res,
    int *connected, char **cause)
{
	const struct config_agent	*b = job->slot->builder;
	struct ssh_session_opts		 o;
	struct builder_conn		 c;
	struct strbuf			 report = STRBUF_INIT;
	char				*root = NULL, *out = NULL;
	int				 status, skipped = 0, r, rv = -1;

	memset(res, 0, sizeof *res);
	memset(&c, 0, sizeof c);
	*connected = 0;
	builder_session_opts(b, &o);
	c.name = b->name;
	c.logfd = job->logfd;
	if ((r = ssh_session_open(&o, &c.s, cause)) != 0) {
		rv = r;
		goto out;
	}
	*connected = 1;
	res->host_key = xstrdup(ssh_session_host_key(c.s));
	dprintf(job->logfd, "bisectd: on builder '%s' (%s@%s port %d, host "
	    "key %s), slot %d\n", b->name, b->user, b->host, b->port,
	    res->host_key, job->slot->slot);
	if (builder_remote_setup(&c, job, &root, &out, cause) != 0)
		goto out;
	if (builder_push(&c, job, root, cause) != 0)
		goto out;
	if (builder_phase(&c, "prepare", NULL, &status, NULL, cause) != 0)
		goto out;
	if (status == 3) {
		res->failure = xstrdup("the base config's make target failed");
		rv = 0;
		goto out;
	}
	if (status != 0) {
		error_set(cause, "couldn't check '%s' out on builder '%s' "
		    "(status %d, see the build log)", job->oid, b->name,
		    status);
		goto out;
	}
	if (job->kernel && builder_kconfig(&c, job, root, cause) != 0)
		goto out;
	if ((r = builder_run_command(&c, job, res, cause)) != 0) {
		rv = r > 0 ? 0 : -1;
		goto out;
	}
	if (builder_phase_ok(&c, "collect", &report, cause) != 0)
		goto out;
	if (strstr(report.buf, "missing ") == report.buf ||
	    strstr(report.buf, "\nmissing ") != NULL) {
		rv = builder_verify(job, b->name, report.buf, res, cause);
		goto out;
	}
	if (ssh_sftp_get_tree(c.s, out, job->tmp, &skipped, 0, cause) != 0) {
		error_prefix(cause, "downloading the artifacts from builder "
		    "'%s'", b->name);
		goto out;
	}
	if (builder_verify(job, b->name, report.buf, res, cause) != 0)
		goto out;
	rv = 0;
out:
	if (c.s != NULL && out != NULL && c.script != NULL &&
	    !ssh_session_dead(c.s, NULL)) {
		char	*ignored = NULL;

		if (builder_phase(&c, "clean", NULL, &status, NULL,
		    &ignored) != 0)
			free(ignored);
	}
	if (rv != 0 && job->logfd != -1 && cause != NULL && *cause != NULL)
		dprintf(job->logfd, "bisectd: %s\n", *cause);
	ssh_session_free(c.s);
	strbuf_release(&report);
	free(c.script);
	free(root);
	free(out);
	return rv;
}
