/*
 * Delivering report mails: the outbox table holds each message, rendered
 * once, until an SMTP server has accepted it (libcurl). Failures are
 * retried with exponential backoff; a mail is marked sent right after the
 * server's final reply to its data. Only the holder of the scheduler lock
 * (bisectd, or a bisectctl that took the lock) sends, so no two processes
 * ever send one mail. docs/reports.md describes the guarantees.
 */
#ifndef BISECTD_OUTBOX_H
#define BISECTD_OUTBOX_H

#include <stdint.h>

#include "bisectd/context.h"

#define OUTBOX_MAX_ATTEMPTS	30	/* then 'failed': about a day */
#define OUTBOX_BACKOFF_MIN	60	/* seconds before the 2nd attempt */
#define OUTBOX_BACKOFF_MAX	3600

/* Seconds to wait after the attempts-th failed attempt. */
int64_t	 outbox_backoff(int attempts);
/*
 * Queue the mail of bisection id's report, unless a mail with its
 * Message-ID is in the outbox already (sent or not): *mail is that mail,
 * *added 1 when it was queued now. Threads under the first mail about the
 * same commit. Needs no lock.
 */
int	 outbox_queue(struct context *, int64_t id, int64_t *mail, int *added,
	     char **cause);
/*
 * One attempt at a queued mail, now. 0: delivered and marked sent.
 * 1: not delivered, *cause says why; the mail stays queued with its next
 * attempt later, or is failed for good (a 5xx refusal, or the last
 * attempt). -1: the outbox could not be read or written. The caller holds
 * the scheduler lock.
 */
int	 outbox_send(struct context *, int64_t mail, char **cause);
/*
 * Once per process, with the lock held: mails left in 'sending' lost
 * their sender mid-attempt; queue them again (outbox_flush calls it).
 */
int	 outbox_recover(struct context *, char **cause);
/*
 * Send every queued mail whose next attempt is due; stop at the first
 * failed delivery (the server is likely down: the rest wait for their
 * turn). Call it from the scheduler loop, with the lock held; it is one
 * indexed SELECT when nothing is due. -1 only when the outbox cannot be
 * read or written; failed deliveries are logged and recorded.
 */
int	 outbox_flush(struct context *, char **cause);

#endif
