/*
 * The results of one run and their file, RESULTDIR/result: a versioned,
 * line-oriented text that bisect-agent writes and the daemon reads back
 * (docs/agents.md). This file keeps a result in memory and writes it:
 * only what the reader (agents/result-parse.c) accepts, through
 * file_write_atomic, so that a reader sees the whole file or none of it.
 * The number grammar both share is here too.
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/result-index.h"
#include "agents/result.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct result *
result_new(void)
{
	struct result	*r = xcalloc(1, sizeof *r);

	r->exit_status = -1;
	return r;
}

void
result_free(struct result *r)
{
	size_t	i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nr_metrics; i++) {
		free(r->metrics[i].name);
		free(r->metrics[i].instances);
	}
	free(r->metrics);
	for (i = 0; i < r->nr_env; i++) {
		free(r->env[i].key);
		free(r->env[i].value);
	}
	free(r->env);
	free(r->error);
	free(r->untestable);
	free(r->disturbed);
	free(r->boot_id);
	free(r);
}

struct result_metric *
result_metric_add(struct result *r, const char *name)
{
	struct result_metric	*m;

	ALLOC_GROW(r->metrics, r->nr_metrics, r->alloc_metrics);
	m = &r->metrics[r->nr_metrics++];
	memset(m, 0, sizeof *m);
	m->name = xstrdup(name);
	return m;
}

struct result_metric *
result_metric(struct result *r, const char *name)
{
	size_t	i;

	for (i = 0; i < r->nr_metrics; i++) {
		if (strcmp(r->metrics[i].name, name) == 0)
			return &r->metrics[i];
	}
	return result_metric_add(r, name);
}

const struct result_metric *
result_metric_find(const struct result *r, const char *name)
{
	size_t	i;

	for (i = 0; i < r->nr_metrics; i++) {
		if (strcmp(r->metrics[i].name, name) == 0)
			return &r->metrics[i];
	}
	return NULL;
}

void
result_metric_add_instance(struct result_metric *m, double value)
{
	ALLOC_GROW(m->instances, m->nr_instances, m->alloc_instances);
	m->instances[m->nr_instances++] = value;
}

/* Values past RESULT_MAX_TEXT bytes are cut, so that the result saves. */
void
result_env_set(struct result *r, const char *key, const char *value)
{
	char	*copy = xstrndup(value, RESULT_MAX_TEXT);
	size_t	 i;

	for (i = 0; i < r->nr_env; i++) {
		if (strcmp(r->env[i].key, key) == 0) {
			free(r->env[i].value);
			r->env[i].value = copy;
			return;
		}
	}
	ALLOC_GROW(r->env, r->nr_env, r->alloc_env);
	r->env[r->nr_env].key = xstrdup(key);
	r->env[r->nr_env].value = copy;
	r->nr_env++;
}

const char *
result_env_get(const struct result *r, const char *key)
{
	size_t	i;

	for (i = 0; i < r->nr_env; i++) {
		if (strcmp(r->env[i].key, key) == 0)
			return r->env[i].value;
	}
	return NULL;
}

/* fmt's text, cut at RESULT_MAX_TEXT bytes. */
static char *
result_text(const char *fmt, va_list ap)
{
	struct strbuf	sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	if (sb.len > RESULT_MAX_TEXT) {
		sb.len = RESULT_MAX_TEXT;
		sb.buf[sb.len] = '\0';
	}
	return strbuf_detach(&sb, NULL);
}

/* The first error wins: it is the cause, later ones are consequences. */
void
result_set_error(struct result *r, const char *fmt, ...)
{
	va_list	ap;

	if (r->error != NULL)
		return;
	va_start(ap, fmt);
	r->error = result_text(fmt, ap);
	va_end(ap);
}

/* result_text, or dflt when the text is empty. */
static char *
result_text_or(const char *fmt, va_list ap, const char *dflt)
{
	char	*text = result_text(fmt, ap);

	if (text[0] == '\0') {
		free(text);
		text = xstrdup(dflt);
	}
	return text;
}

void
result_set_untestable(struct result *r, const char *fmt, ...)
{
	va_list	ap;

	if (r->untestable != NULL)
		return;
	va_start(ap, fmt);
	r->untestable = result_text_or(fmt, ap, "untestable");
	va_end(ap);
	result_set_error(r, "%s", r->untestable);
}

void
result_set_disturbed(struct result *r, const char *fmt, ...)
{
	va_list	ap;

	if (r->disturbed != NULL)
		return;
	va_start(ap, fmt);
	r->disturbed = result_text_or(fmt, ap, "disturbed");
	va_end(ap);
}

int
result_name_valid(const char *name)
{
	size_t	i;

	for (i = 0; name[i] != '\0'; i++) {
		if (i >= RESULT_MAX_NAME || name[i] <= ' ' || name[i] > '~')
			return 0;
	}
	return i > 0;
}

/*
 * A decimal number, the only shape accepted in results and output:
 * [+-]? (D+ (. D*)? | . D+) ([eE] [+-]? D+)?, at most 63 characters,
 * finite. No hex, no inf or nan, no white space.
 */
int
result_number_parse(const char *s, size_t len, double *out)
{
	char	 buf[64], *end;
	size_t	 i = 0, mant = 0, exp = 0;
	double	 v;

	if (len == 0 || len >= sizeof buf)
		return -1;
	if (s[i] == '+' || s[i] == '-')
		i++;
	while (i < len && s[i] >= '0' && s[i] <= '9') {
		i++;
		mant++;
	}
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			i++;
			mant++;
		}
	}
	if (mant == 0)
		return -1;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			i++;
			exp++;
		}
		if (exp == 0)
			return -1;
	}
	if (i != len)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (*end != '\0' || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* The shortest %g form that reads back as the same double. */
static void
result_number_format(struct strbuf *sb, double v)
{
	char	buf[64];
	int	prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof buf, "%.17g", v);
	strbuf_addstr(sb, buf);
}

static void
result_escape(struct strbuf *sb, const char *s)
{
	const unsigned char	*p;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '\\')
			strbuf_addstr(sb, "\\\\");
		else if (*p == '\n')
			strbuf_addstr(sb, "\\n");
		else if (*p == '\t')
			strbuf_addstr(sb, "\\t");
		else if (*p == '\r')
			strbuf_addstr(sb, "\\r");
		else if (*p < ' ' || *p > '~')
			strbuf_addf(sb, "\\x%02x", *p);
		else
			strbuf_addch(sb, *p);
	}
}

/* One "KEY TEXT" line, TEXT escaped, refused past RESULT_MAX_LINE. */
static int
result_format_text(struct strbuf *sb, const char *key, const char *text,
    const char *what, char **cause)
{
	size_t	start = sb->len;

	strbuf_addf(sb, "%s ", key);
	result_escape(sb, text);
	if (sb->len - start > RESULT_MAX_LINE)
		return error_set(cause, "%s too long", what);
	strbuf_addch(sb, '\n');
	return 0;
}

static int
result_format_env(struct strbuf *sb, const struct result *r, char **cause)
{
	struct result_index	 seen = RESULT_INDEX_INIT;
	size_t			 i, start;
	int			 ret = -1;

	for (i = 0; i < r->nr_env; i++) {
		if (!result_name_valid(r->env[i].key) ||
		    result_index_find(&seen, r->env[i].key) !=
		    RESULT_INDEX_NONE) {
			error_set(cause, "env key '%s' is invalid or repeated",
			    r->env[i].key);
			goto out;
		}
		result_index_add(&seen, r->env[i].key, i);
		start = sb->len;
		strbuf_addf(sb, "env %s ", r->env[i].key);
		result_escape(sb, r->env[i].value);
		if (strlen(r->env[i].value) > RESULT_MAX_TEXT ||
		    sb->len - start > RESULT_MAX_LINE) {
			error_set(cause, "env '%s': value too long",
			    r->env[i].key);
			goto out;
		}
		strbuf_addch(sb, '\n');
	}
	ret = 0;
out:
	result_index_release(&seen);
	return ret;
}

static int
result_format_metrics(struct strbuf *sb, const struct result *r,
    char **cause)
{
	struct result_index	 seen = RESULT_INDEX_INIT;
	const struct result_metric *m;
	size_t			 i, j;
	int			 ret = -1;

	for (i = 0; i < r->nr_metrics; i++) {
		m = &r->metrics[i];
		if (!result_name_valid(m->name) ||
		    result_index_find(&seen, m->name) != RESULT_INDEX_NONE) {
			error_set(cause, "metric name '%s' is invalid or "
			    "repeated", m->name);
			goto out;
		}
		result_index_add(&seen, m->name, i);
		if (!isfinite(m->value) ||
		    m->nr_instances > RESULT_MAX_INSTANCES) {
			error_set(cause, "metric '%s': value not finite or too "
			    "many instances", m->name);
			goto out;
		}
		strbuf_addf(sb, "metric %s ", m->name);
		result_number_format(sb, m->value);
		strbuf_addch(sb, '\n');
		for (j = 0; j < m->nr_instances; j++) {
			if (!isfinite(m->instances[j])) {
				error_set(cause, "metric '%s': instance %zu "
				    "not finite", m->name, j);
				goto out;
			}
			strbuf_addf(sb, "instance %s %zu ", m->name, j);
			result_number_format(sb, m->instances[j]);
			strbuf_addch(sb, '\n');
		}
	}
	ret = 0;
out:
	result_index_release(&seen);
	return ret;
}

static void
result_format_times(struct strbuf *sb, const struct result *r)
{
	strbuf_addstr(sb, "start ");
	result_number_format(sb, r->start_wall);
	strbuf_addch(sb, ' ');
	result_number_format(sb, r->start_mono);
	strbuf_addstr(sb, "\nend ");
	result_number_format(sb, r->end_wall);
	strbuf_addch(sb, ' ');
	result_number_format(sb, r->end_mono);
	strbuf_addch(sb, '\n');
}

int
result_format(const struct result *r, char **out, size_t *len, char **cause)
{
	struct strbuf		 sb = STRBUF_INIT;
	int			 ret = -1;

	if (r->exit_status < -1 || r->exit_status > 255) {
		error_set(cause, "exit status %d out of range", r->exit_status);
		goto out;
	}
	if (r->nr_metrics > RESULT_MAX_METRICS || r->nr_env > RESULT_MAX_ENV) {
		error_set(cause, "too many metrics or env entries");
		goto out;
	}
	strbuf_addf(&sb, "bisect-agent-result %d\nexit_status %d\n",
	    RESULT_VERSION, r->exit_status);
	if (r->error != NULL && result_format_text(&sb, "error",
	    r->error[0] != '\0' ? r->error : "unknown", "error text",
	    cause) != 0)
		goto out;
	if (r->untestable != NULL && result_format_text(&sb, "untestable",
	    r->untestable[0] != '\0' ? r->untestable : "untestable",
	    "untestable text", cause) != 0)
		goto out;
	if (r->disturbed != NULL && result_format_text(&sb, "disturbed",
	    r->disturbed[0] != '\0' ? r->disturbed : "disturbed",
	    "disturbed text", cause) != 0)
		goto out;
	if (r->has_times) {
		if (!isfinite(r->start_wall) || !isfinite(r->start_mono) ||
		    !isfinite(r->end_wall) || !isfinite(r->end_mono)) {
			error_set(cause, "the run's times are not finite");
			goto out;
		}
		result_format_times(&sb, r);
	}
	if (r->boot_id != NULL && r->boot_id[0] != '\0' &&
	    result_format_text(&sb, "boot_id", r->boot_id, "boot_id",
	    cause) != 0)
		goto out;
	if (result_format_env(&sb, r, cause) != 0 ||
	    result_format_metrics(&sb, r, cause) != 0)
		goto out;
	if (sb.len > RESULT_MAX_SIZE) {
		error_set(cause, "result larger than %u bytes",
		    RESULT_MAX_SIZE);
		goto out;
	}
	*out = strbuf_detach(&sb, len);
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

int
result_save(const char *dir, const struct result *r, char **cause)
{
	char	*path = NULL, *text = NULL;
	size_t	 len;
	int	 ret = -1;

	if (result_format(r, &text, &len, cause) != 0) {
		error_prefix(cause, "couldn't write results to '%s'", dir);
		goto out;
	}
	if (dir_create(dir, cause) != 0)
		goto out;
	path = path_join(dir, "result");
	if (file_write_atomic(path, text, len, cause) != 0)
		goto out;
	ret = 0;
out:
	free(path);
	free(text);
	return ret;
}

int
result_load(const char *dir, struct result **out, char **cause)
{
	struct stat	 st;
	char		*path = path_join(dir, "result"), *buf = NULL;
	size_t		 len;
	int		 r = -1;

	if (stat(path, &st) == -1) {
		error_errno(cause, "couldn't read '%s'", path);
		goto out;
	}
	if (st.st_size > RESULT_MAX_SIZE) {
		error_set(cause, "'%s' is larger than %u bytes", path,
		    RESULT_MAX_SIZE);
		goto out;
	}
	if (file_read(path, &buf, &len, cause) != 0)
		goto out;
	r = result_parse(path, buf, len, out, cause);
out:
	free(path);
	free(buf);
	return r;
}

