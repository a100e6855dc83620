/*
 * The slots of build hosts: WORKDIR/builders/NAME/K.lock, flocked by the
 * build that uses slot K of builder NAME, taken without waiting from the
 * builders in service (bisectd/builder-slot.h).
 */
#include <sys/file.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisectd/builder-slot.h"
#include "bisectd/builder-state.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

static int
builder_slot_usable(const char *workdir, const char *name)
{
	struct builder_state	bs;
	int			ok = 1;

	if (builder_state_read(workdir, name, &bs, NULL) != 0)
		return 1;
	if ((bs.state == BUILDER_DOWN || bs.state == BUILDER_REFUSED) &&
	    (int64_t)time(NULL) < bs.retry_at)
		ok = 0;
	builder_state_release(&bs);
	return ok;
}

int
builder_slot_take(const char *workdir, const struct config_agent *builders,
    size_t nr_builders, const char *skip, struct builder_slot *out,
    char **cause)
{
	char	*lock = NULL, *dir = NULL;
	size_t	 i, first;
	int	 k, fd;

	memset(out, 0, sizeof *out);
	out->lockfd = -1;
	/* start at a builder of this process, so that builds spread */
	first = nr_builders > 0 ? (size_t)getpid() % nr_builders : 0;
	for (i = 0; i < nr_builders; i++) {
		const struct config_agent *b =
		    &builders[(first + i) % nr_builders];

		if ((skip != NULL && skip[(first + i) % nr_builders]) ||
		    !builder_slot_usable(workdir, b->name))
			continue;
		free(dir);
		dir = xasprintf("%s/builders/%s", workdir, b->name);
		if (dir_create(dir, cause) != 0)
			goto fail;
		for (k = 0; k < b->slots; k++) {
			free(lock);
			lock = xasprintf("%s/%d.lock", dir, k);
			fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
			if (fd == -1) {
				error_errno(cause, "couldn't open '%s'", lock);
				goto fail;
			}
			if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
				out->builder = b;
				out->slot = k;
				out->lockfd = fd;
				free(lock);
				free(dir);
				return 0;
			}
			close(fd);
		}
	}
	free(lock);
	free(dir);
	return 1;
fail:
	free(lock);
	free(dir);
	return -1;
}

void
builder_slot_release(struct builder_slot *bs)
{
	if (bs->lockfd != -1)
		close(bs->lockfd);
	bs->lockfd = -1;
	bs->builder = NULL;
}

int
builder_slot_capacity(const struct config *cfg)
{
	size_t	i;
	int	n = cfg->build_slots > 0 ? cfg->build_slots : 1;

	for (i = 0; i < cfg->nr_builders; i++)
		n += cfg->builders[i].slots;
	return n;
}
