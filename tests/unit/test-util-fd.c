/*
 * Unit tests for util/fd.c: reads and writes whole, through short counts
 * and through signals that interrupt them (a timer without SA_RESTART).
 */
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/tap.h"
#include "util/fd.h"
#include "util/strbuf.h"

static volatile sig_atomic_t	ticks;

static void
on_tick(int sig)
{
	ticks++;
}

/* A timer that interrupts blocking calls every 5ms until stopped. */
static void
ticker(int on)
{
	struct sigaction	sa;
	struct itimerval	it;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on ? on_tick : SIG_DFL;
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof it);
	if (on) {
		it.it_interval.tv_usec = 5000;
		it.it_value.tv_usec = 5000;
	}
	setitimer(ITIMER_REAL, &it, NULL);
}

/* A child that writes text into fd after 100ms, in two pieces. */
static pid_t
late_writer(int fd, const char *text)
{
	struct timespec	ts = { 0, 100 * 1000 * 1000 };
	size_t		half = strlen(text) / 2;
	pid_t		pid;

	if ((pid = fork()) == 0) {
		nanosleep(&ts, NULL);
		if (write(fd, text, half) != (ssize_t)half)
			_exit(1);
		nanosleep(&ts, NULL);
		if (write(fd, text + half, strlen(text) - half) < 0)
			_exit(1);
		_exit(0);
	}
	return pid;
}

int
main(void)
{
	struct strbuf	sb = STRBUF_INIT;
	char		buf[64];
	int		p[2], st;
	ssize_t		n;
	pid_t		pid;

	ok(pipe(p) == 0, "pipe");
	pid = late_writer(p[1], "interrupted");
	close(p[1]);
	ticks = 0;
	ticker(1);
	n = fd_read(p[0], buf, sizeof buf);
	ok(n > 0 && memcmp(buf, "inter", (size_t)n) == 0,
	    "fd_read: the data, not EINTR (%d ticks)", (int)ticks);
	ok(ticks > 0, "the timer did interrupt");
	ok(fd_read_all(p[0], &sb, SIZE_MAX) == 0, "fd_read_all to the end");
	is_str(sb.buf, "rupted", "what was left");
	ticker(0);
	waitpid(pid, &st, 0);
	is_int(fd_read(p[0], buf, sizeof buf), 0, "at the end: 0");
	close(p[0]);

	ok(pipe(p) == 0, "pipe");
	ok(fd_write_all(p[1], "0123456789", 10) == 0, "fd_write_all");
	close(p[1]);
	strbuf_reset(&sb);
	ok(fd_read_all(p[0], &sb, 4) == 0 && sb.len >= 4,
	    "fd_read_all stops once it holds max");
	close(p[0]);

	ok(pipe(p) == 0, "pipe");
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	ok(fd_write_all(p[1], "x", 1) == -1 && errno == EPIPE,
	    "a write that fails: -1 with errno");
	close(p[1]);
	strbuf_release(&sb);
	return tap_done();
}
