/*
 * What the monitors share: reading a /proc or /sys file under the root,
 * parsing the kernel's formats into snapshots of named values (with a
 * column per CPU or node where the file has them), adding snapshots up
 * for means, and turning them into metrics. The parsers skip a line they
 * do not understand rather than fail, so a kernel that adds a field of a
 * new shape loses that field, not the monitor. They are tested on outputs
 * captured from a real machine (tests/fixtures/proc-capture).
 */
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/monitor.h"
#include "agents/result.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MONITOR_MAX_FILE	(16u << 20)
#define MONITOR_MAX_NODES	4096
#define MONITOR_MAX_COLS	65536

void
monitor_snap_release(struct monitor_snap *s)
{
	size_t	i;

	for (i = 0; i < s->nr; i++) {
		free(s->fields[i].name);
		free(s->fields[i].cols);
	}
	free(s->fields);
	memset(s, 0, sizeof *s);
}

/* Find or add; fields keep the order of the file, so try the next first. */
struct monitor_field *
monitor_snap_field(struct monitor_snap *s, const char *name, size_t len)
{
	struct monitor_field	*f;
	size_t			 i, k;

	for (k = 0; k < s->nr; k++) {
		i = (s->hint + k) % s->nr;
		f = &s->fields[i];
		if (strncmp(f->name, name, len) == 0 && f->name[len] == '\0') {
			s->hint = i + 1;
			return f;
		}
	}
	ALLOC_GROW(s->fields, s->nr, s->alloc);
	f = &s->fields[s->nr++];
	memset(f, 0, sizeof *f);
	f->name = xstrndup(name, len);
	s->hint = s->nr;
	return f;
}

const struct monitor_field *
monitor_snap_find(const struct monitor_snap *s, const char *name)
{
	size_t	i;

	for (i = 0; i < s->nr; i++) {
		if (strcmp(s->fields[i].name, name) == 0)
			return &s->fields[i];
	}
	return NULL;
}

static void
monitor_snap_field_col(struct monitor_field *f, double v)
{
	if (f->nr_cols >= MONITOR_MAX_COLS)
		return;
	f->cols = xreallocarray(f->cols, f->nr_cols + 1, sizeof *f->cols);
	f->cols[f->nr_cols++] = v;
}

void
monitor_snap_add(struct monitor_snap *acc, const struct monitor_snap *s)
{
	const struct monitor_field	*f;
	struct monitor_field		*a;
	size_t				 i, c;

	for (i = 0; i < s->nr; i++) {
		f = &s->fields[i];
		a = monitor_snap_field(acc, f->name, strlen(f->name));
		a->value += f->value;
		if (a->n == 0) {
			for (c = 0; c < f->nr_cols; c++)
				monitor_snap_field_col(a, f->cols[c]);
		} else {
			if (f->nr_cols < a->nr_cols)
				a->nr_cols = f->nr_cols;
			for (c = 0; c < a->nr_cols; c++)
				a->cols[c] += f->cols[c];
		}
		a->n++;
	}
}

/* A decimal number token at *p (leading blanks skipped); advances *p. */
static int
monitor_snap_number(const char **p, double *v)
{
	const char	*s = *p;
	char		*end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!(isdigit((unsigned char)*s) || (*s == '-' &&
	    isdigit((unsigned char)s[1]))))
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	if (errno != 0 || end == s || (*end != '\0' && *end != ' ' &&
	    *end != '\t' && *end != '\n'))
		return -1;
	*p = end;
	return 0;
}

static const char *
monitor_snap_line_end(const char *p)
{
	const char	*nl = strchr(p, '\n');

	return nl != NULL ? nl : p + strlen(p);
}

int
monitor_snap_parse_vmstat(struct monitor_snap *s, const char *text)
{
	const char	*line, *end, *p, *name;
	size_t		 len;
	double		 v;
	int		 n = 0;

	for (line = text; *line != '\0'; line = *end ? end + 1 : end) {
		end = monitor_snap_line_end(line);
		for (p = line; p < end && *p > ' ' && *p <= '~'; p++)
			;
		name = line;
		len = (size_t)(p - line);
		if (len == 0 || p == end || *p != ' ' ||
		    monitor_snap_number(&p, &v) != 0)
			continue;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p != end)
			continue;
		monitor_snap_field(s, name, len)->value = v;
		n++;
	}
	return n > 0 ? n : -1;
}

int
monitor_snap_parse_meminfo(struct monitor_snap *s, const char *text)
{
	const char	*line, *end, *p, *name;
	size_t		 len;
	double		 v;
	int		 n = 0;

	for (line = text; *line != '\0'; line = *end ? end + 1 : end) {
		end = monitor_snap_line_end(line);
		p = line;
		if (strncmp(p, "Node ", 5) == 0 &&
		    isdigit((unsigned char)p[5])) {
			for (p += 5; isdigit((unsigned char)*p); p++)
				;
			while (*p == ' ')
				p++;
		}
		name = p;
		while (p < end && *p != ':' && *p > ' ' && *p <= '~')
			p++;
		len = (size_t)(p - name);
		if (len == 0 || p == end || *p != ':')
			continue;
		p++;
		if (monitor_snap_number(&p, &v) != 0)
			continue;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p + 2 <= end && strncmp(p, "kB", 2) == 0)
			p += 2;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p != end)
			continue;
		monitor_snap_field(s, name, len)->value = v;
		n++;
	}
	return n > 0 ? n : -1;
}

/*
 * One row of /proc/interrupts or /proc/softirqs after its "KEY:" token:
 * up to ncpu counts, then a description, named the way LKP's
 * stats/interrupts does.
 */
static void
monitor_snap_table_row(struct monitor_snap *s, const char *key, size_t klen,
    const char *p, const char *end, size_t ncpu)
{
	struct monitor_field	*f;
	struct strbuf		 name = STRBUF_INIT;
	double			 cols[256], *v = cols, x, total = 0;
	const char		*w;
	size_t			 nr = 0, i;
	int			 numeric = isdigit((unsigned char)key[0]);

	if (ncpu > sizeof cols / sizeof cols[0])
		v = xcalloc(ncpu, sizeof *v);
	while (nr < ncpu && monitor_snap_number(&p, &x) == 0 && p <= end) {
		v[nr++] = x;
		total += x;
	}
	if (nr == 0)
		goto out;
	strbuf_add(&name, key, klen);
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end)
		strbuf_addch(&name, ':');
	i = 0;
	while (p < end) {
		for (w = p; p < end && *p != ' ' && *p != '\t'; p++)
			;
		if (i++ > 0) {
			if (!numeric)
				strbuf_addch(&name, '_');
			else if (name.buf[name.len - 1] != ',')
				strbuf_addch(&name, '.');
		}
		strbuf_add(&name, w, (size_t)(p - w));
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
	}
	f = monitor_snap_field(s, name.buf, name.len);
	f->value = total;
	free(f->cols);
	f->cols = NULL;
	f->nr_cols = 0;
	if (nr == ncpu && ncpu > 0) {
		f->cols = xcalloc(nr, sizeof *f->cols);
		memcpy(f->cols, v, nr * sizeof *v);
		f->nr_cols = nr;
	}
out:
	if (v != cols)
		free(v);
	strbuf_release(&name);
}

int
monitor_snap_parse_table(struct monitor_snap *s, const char *text)
{
	const char	*line, *end, *p, *key;
	size_t		 ncpu = 0, klen;
	int		 header = 0;
	size_t		 before = s->nr;

	for (line = text; *line != '\0'; line = *end ? end + 1 : end) {
		end = monitor_snap_line_end(line);
		p = line;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (!header) {
			while (p < end && strncmp(p, "CPU", 3) == 0) {
				ncpu++;
				while (p < end && *p != ' ' && *p != '\t')
					p++;
				while (p < end && (*p == ' ' || *p == '\t'))
					p++;
			}
			if (ncpu == 0 || p != end)
				return -1;
			header = 1;
			continue;
		}
		key = p;
		while (p < end && *p != ':' && *p > ' ' && *p <= '~')
			p++;
		klen = (size_t)(p - key);
		if (klen == 0 || p == end || *p != ':')
			continue;
		monitor_snap_table_row(s, key, klen, p + 1, end, ncpu);
	}
	return header && s->nr > before ? (int)(s->nr - before) : -1;
}

int
monitor_snap_parse_stat(struct monitor_snap *s, const char *text)
{
	static const char *const states[] = {
		"user", "nice", "system", "idle", "iowait", "irq", "softirq",
		"steal", "guest", "guest_nice",
	};
	static const char *const firsts[] = {
		"intr", "ctxt", "processes", "procs_running", "procs_blocked",
		"softirq",
	};
	const char	*line, *end, *p;
	char		 name[32];
	struct monitor_field *f;
	size_t		 i, len;
	double		 v;
	int		 n = 0, percpu;

	for (line = text; *line != '\0'; line = *end ? end + 1 : end) {
		end = monitor_snap_line_end(line);
		if (strncmp(line, "cpu", 3) == 0) {
			p = line + 3;
			percpu = isdigit((unsigned char)*p);
			while (isdigit((unsigned char)*p))
				p++;
			if (*p != ' ')
				continue;
			for (i = 0; i < sizeof states / sizeof states[0]; i++) {
				if (monitor_snap_number(&p, &v) != 0 || p > end)
					break;
				snprintf(name, sizeof name, "cpu.%s", states[i]);
				f = monitor_snap_field(s, name, strlen(name));
				if (percpu)
					monitor_snap_field_col(f, v);
				else {
					f->value = v;
					n++;
				}
			}
			continue;
		}
		for (i = 0; i < sizeof firsts / sizeof firsts[0]; i++) {
			len = strlen(firsts[i]);
			if (strncmp(line, firsts[i], len) == 0 &&
			    line[len] == ' ')
				break;
		}
		if (i == sizeof firsts / sizeof firsts[0])
			continue;
		p = line + len;
		if (monitor_snap_number(&p, &v) != 0 || p > end)
			continue;
		monitor_snap_field(s, firsts[i], len)->value = v;
		n++;
	}
	return n > 0 ? n : -1;
}

static char *
monitor_snap_path(const char *root, const char *path)
{
	size_t	len;

	if (root == NULL)
		return xstrdup(path);
	len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		len--;
	return xasprintf("%.*s%s", (int)len, root, path);
}

int
monitor_snap_read(const char *root, const char *path, struct strbuf *sb,
    char **cause)
{
	char	*full = monitor_snap_path(root, path);
	int	 fd, r = -1;

	strbuf_reset(sb);
	if ((fd = open(full, O_RDONLY | O_CLOEXEC)) == -1) {
		error_errno(cause, "couldn't open '%s'", full);
		goto out;
	}
	if (fd_read_all(fd, sb, (size_t)MONITOR_MAX_FILE + 1) == -1) {
		error_errno(cause, "couldn't read '%s'", full);
		goto out;
	}
	if (sb->len > MONITOR_MAX_FILE) {
		error_set(cause, "'%s' is larger than %u bytes", full,
		    MONITOR_MAX_FILE);
		goto out;
	}
	if (memchr(sb->buf, '\0', sb->len) != NULL) {
		error_set(cause, "'%s' holds a NUL byte", full);
		goto out;
	}
	r = 0;
out:
	if (fd != -1)
		close(fd);
	free(full);
	return r;
}

static int
monitor_snap_node_cmp(const void *a, const void *b)
{
	unsigned	x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

int
monitor_snap_nodes(const char *root, unsigned **out, char **cause)
{
	struct dirent	*de;
	DIR		*d;
	char		*dir = monitor_snap_path(root, "/sys/devices/system/node");
	char		*end;
	unsigned	*v = NULL;
	size_t		 nr = 0, alloc = 0;
	unsigned long	 n;

	if ((d = opendir(dir)) == NULL) {
		error_errno(cause, "couldn't open '%s'", dir);
		free(dir);
		return -1;
	}
	while ((de = readdir(d)) != NULL && nr < MONITOR_MAX_NODES) {
		if (strncmp(de->d_name, "node", 4) != 0 ||
		    !isdigit((unsigned char)de->d_name[4]))
			continue;
		n = strtoul(de->d_name + 4, &end, 10);
		if (*end != '\0' || n >= 1000000)
			continue;
		ALLOC_GROW(v, nr, alloc);
		v[nr++] = (unsigned)n;
	}
	closedir(d);
	if (nr == 0) {
		error_set(cause, "no NUMA nodes in '%s'", dir);
		free(dir);
		free(v);
		return -1;
	}
	free(dir);
	qsort(v, nr, sizeof *v, monitor_snap_node_cmp);
	*out = v;
	return (int)nr;
}

static struct result_metric *
monitor_snap_metric(struct result *r, const char *prefix, const char *name)
{
	char			*full = xasprintf("%s.%s", prefix, name);
	struct result_metric	*m = NULL;

	if (result_name_valid(full))
		m = result_metric(r, full);
	free(full);
	return m;
}

void
monitor_snap_emit_delta(struct result *r, const char *prefix,
    const struct monitor_snap *before, const struct monitor_snap *after,
    int (*is_level)(const char *), int level)
{
	const struct monitor_field	*a, *b;
	struct result_metric		*m;
	size_t				 i, c;

	for (i = 0; i < after->nr; i++) {
		a = &after->fields[i];
		if (is_level != NULL && !is_level(a->name) != !level)
			continue;
		if ((m = monitor_snap_metric(r, prefix, a->name)) == NULL)
			continue;
		b = monitor_snap_find(before, a->name);
		m->value = a->value - (b != NULL ? b->value : 0);
		if (a->nr_cols < 2 || (b != NULL && b->nr_cols != a->nr_cols))
			continue;
		for (c = 0; c < a->nr_cols; c++)
			result_metric_add_instance(m, a->cols[c] -
			    (b != NULL ? b->cols[c] : 0));
	}
}

void
monitor_snap_emit_mean(struct result *r, const char *prefix,
    const struct monitor_snap *acc, int (*is_level)(const char *),
    int level)
{
	const struct monitor_field	*a;
	struct result_metric		*m;
	size_t				 i, c;

	for (i = 0; i < acc->nr; i++) {
		a = &acc->fields[i];
		if (a->n == 0 || (is_level != NULL &&
		    !is_level(a->name) != !level))
			continue;
		if ((m = monitor_snap_metric(r, prefix, a->name)) == NULL)
			continue;
		m->value = a->value / (double)a->n;
		if (a->nr_cols < 2)
			continue;
		for (c = 0; c < a->nr_cols; c++)
			result_metric_add_instance(m, a->cols[c] /
			    (double)a->n);
	}
}
