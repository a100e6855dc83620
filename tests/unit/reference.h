/*
 * For the unit tests that check stats/ against a reference written with
 * NumPy and SciPy: find the reference script and run it on a file of
 * cases. Static functions, included by each such test (every
 * tests/unit/test-*.c is a program of its own).
 */
#ifndef TESTS_UNIT_REFERENCE_H
#define TESTS_UNIT_REFERENCE_H

#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

/* The reference script: $BISECTD_SRC, else next to the build tree, else cwd. */
static char *
script_find(const char *rel)
{
	const char	*src = getenv("BISECTD_SRC");
	char		 exe[PATH_MAX], *p, *path;
	ssize_t		 len;
	int		 up;

	if (src != NULL && *src != '\0')
		return xasprintf("%s/%s", src, rel);
	len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len > 0) {
		exe[len] = '\0';
		/* BUILD/tests/unit/test-NAME: three levels up */
		for (up = 0, p = exe; up < 4 && p != NULL; up++) {
			p = strrchr(exe, '/');
			if (p != NULL)
				*p = '\0';
		}
		if (p != NULL) {
			path = xasprintf("%s/%s", exe, rel);
			if (access(path, R_OK) == 0)
				return path;
			free(path);
		}
	}
	return xstrdup(rel);
}

/* Runs python3 SCRIPT FILE; its stdout into out. 0 when it exits 0. */
static int
script_run(const char *python, const char *script, const char *file,
    struct strbuf *out, int *status)
{
	char	 buf[65536];
	pid_t	 pid;
	ssize_t	 n;
	int	 fd[2];

	if (pipe(fd) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execl(python, python, script, file, (char *)NULL);
		fprintf(stderr, "exec '%s': %s\n", python, strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		strbuf_add(out, buf, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(*status) && WEXITSTATUS(*status) == 0 ? 0 : -1;
}

/*
 * Writes the cases in to a temporary file and runs the reference script
 * rel (below the source tree) on it with $BISECTD_PYTHON, else
 * /usr/bin/python3; its stdout into out. 0 when it exits 0.
 */
static inline int
reference_run(const char *rel, const struct strbuf *in, struct strbuf *out)
{
	char		 tmpl[] = "/tmp/bisectd-reference-XXXXXX", *script;
	const char	*python = getenv("BISECTD_PYTHON");
	int		 fd, status = 0, r = -1;

	if (python == NULL || *python == '\0')
		python = "/usr/bin/python3";
	if ((fd = mkstemp(tmpl)) < 0)
		return -1;
	if (write(fd, in->buf, in->len) == (ssize_t)in->len) {
		script = script_find(rel);
		r = script_run(python, script, tmpl, out, &status);
		free(script);
	}
	close(fd);
	unlink(tmpl);
	return r;
}

#endif
