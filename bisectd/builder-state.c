/*
 * The scheduler's view of each build host (and of its own builds, as
 * "local"): a small state file per builder under WORKDIR/builders with
 * its state, the host key last verified, and its counts of builds, failed
 * builds and attempts that ended in an error (bisectd/builder-state.h).
 */
#include <sys/file.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisectd/builder-state.h"
#include "util/error.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const builder_state_names[] = {
	"unknown", "up", "down", "refused",
};

const char *
builder_state_name(enum builder_status state)
{
	return builder_state_names[state];
}

static enum builder_status
builder_state_parse(const char *s)
{
	size_t	i;

	for (i = 0; i < sizeof builder_state_names /
	    sizeof builder_state_names[0]; i++) {
		if (strcmp(s, builder_state_names[i]) == 0)
			return (enum builder_status)i;
	}
	return BUILDER_UNKNOWN;
}

static char *
builder_state_path(const char *workdir, const char *name, const char *ext)
{
	return xasprintf("%s/builders/%s.%s", workdir, name, ext);
}

void
builder_state_release(struct builder_state *bs)
{
	free(bs->host_key);
	free(bs->error);
	memset(bs, 0, sizeof *bs);
}

int
builder_state_read(const char *workdir, const char *name,
    struct builder_state *bs, char **cause)
{
	char	*path = builder_state_path(workdir, name, "state");
	char	*buf = NULL, *line, *next, *sp;
	size_t	 len;
	int	 rv = -1;

	int	 seen = 0;

	memset(bs, 0, sizeof *bs);
	bs->state = BUILDER_UNKNOWN;
	if (!file_exists(path)) {
		rv = 0;
		goto out;
	}
	if (file_read(path, &buf, &len, cause) != 0)
		goto out;
	for (line = buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((sp = strchr(line, ' ')) == NULL)
			continue;
		*sp++ = '\0';
		if (strcmp(line, "state") == 0 && !seen) {
			bs->state = builder_state_parse(sp);
			seen = 1;
		}
		else if (strcmp(line, "since") == 0)
			bs->since = strtoll(sp, NULL, 10);
		else if (strcmp(line, "retry_at") == 0)
			bs->retry_at = strtoll(sp, NULL, 10);
		else if (strcmp(line, "builds") == 0)
			bs->builds = strtol(sp, NULL, 10);
		else if (strcmp(line, "failed") == 0)
			bs->failed = strtol(sp, NULL, 10);
		else if (strcmp(line, "errors") == 0)
			bs->errors = strtol(sp, NULL, 10);
		else if (strcmp(line, "host_key") == 0 && bs->host_key == NULL)
			bs->host_key = xstrdup(sp);
		else if (strcmp(line, "error") == 0 && bs->error == NULL)
			bs->error = xstrdup(sp);
	}
	rv = 0;
out:
	free(buf);
	free(path);
	return rv;
}

/* One line of the state file: no newline may split it. */
static void
builder_state_line(struct strbuf *sb, const char *key, const char *value)
{
	const char	*p;

	if (value == NULL)
		return;
	strbuf_addf(sb, "%s ", key);
	for (p = value; *p != '\0'; p++)
		strbuf_addch(sb, *p == '\n' || *p == '\r' ? ' ' : *p);
	strbuf_addch(sb, '\n');
}

void
builder_state_note(const char *workdir, const char *name,
    enum builder_status state, const char *error, const char *host_key,
    int retry_after, enum builder_count count)
{
	struct builder_state	 bs;
	struct strbuf		 sb = STRBUF_INIT;
	char			*lock = builder_state_path(workdir, name, "lock");
	char			*path = builder_state_path(workdir, name, "state");
	char			*dir = path_dirname(path), *cause = NULL;
	int64_t			 now = (int64_t)time(NULL);
	int			 fd = -1;

	memset(&bs, 0, sizeof bs);
	if (dir_create(dir, &cause) != 0)
		goto out;
	if ((fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) == -1) {
		error_errno(&cause, "couldn't open '%s'", lock);
		goto out;
	}
	while (flock(fd, LOCK_EX) == -1 && errno == EINTR)
		;
	if (builder_state_read(workdir, name, &bs, &cause) != 0)
		goto out;
	if (state != BUILDER_KEEP) {
		if (bs.state != state) {
			bs.state = state;
			bs.since = now;
		}
		bs.retry_at = state == BUILDER_UP ? 0 :
		    now + (retry_after > 0 ? retry_after : 60);
		free(bs.error);
		bs.error = error != NULL ? xstrdup(error) : NULL;
		if (host_key != NULL) {
			free(bs.host_key);
			bs.host_key = xstrdup(host_key);
		}
	} else if (bs.state == BUILDER_UNKNOWN) {
		bs.state = BUILDER_UP;
		bs.since = now;
	}
	if (count == BUILDER_COUNT_OK)
		bs.builds++;
	else if (count == BUILDER_COUNT_FAILED)
		bs.failed++;
	else if (count == BUILDER_COUNT_ERROR)
		bs.errors++;
	builder_state_line(&sb, "state", builder_state_names[bs.state]);
	strbuf_addf(&sb, "since %lld\nretry_at %lld\nbuilds %ld\nfailed %ld\n"
	    "errors %ld\n", (long long)bs.since, (long long)bs.retry_at,
	    bs.builds, bs.failed, bs.errors);
	builder_state_line(&sb, "host_key", bs.host_key);
	builder_state_line(&sb, "error", bs.error);
	file_write_atomic(path, sb.buf, sb.len, &cause);
out:
	if (cause != NULL)
		log_warn("builder '%s': couldn't record its state: %s", name,
		    cause);
	if (fd != -1)
		close(fd);
	builder_state_release(&bs);
	strbuf_release(&sb);
	free(cause);
	free(dir);
	free(path);
	free(lock);
}
