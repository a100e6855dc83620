/*
 * The results of one run and their file, RESULTDIR/result: a versioned,
 * line-oriented text that bisect-agent writes and the daemon reads back
 * (docs/agents.md). The file comes from test machines, so it is parsed as
 * untrusted input: one grammar, no guessing, bounded sizes, finite numbers
 * only, and errors that name the line. Writing goes through
 * file_write_atomic, so a reader sees the whole file or none of it.
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/result.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Longest error or env value kept, before escaping. */
#define RESULT_MAX_TEXT		8192

/*
 * Name to position, for the parsers: a result may hold 100000 metrics,
 * and finding each by a linear search would make parsing quadratic. The
 * names are borrowed from the result, which outlives the index.
 */
#define RESULT_INDEX_NONE	((size_t)-1)
#define RESULT_INDEX_INIT	{ NULL, 0, 0 }

struct result_index_slot {
	const char	*name;
	size_t		 at;
};

struct result_index {
	struct result_index_slot	*slots;
	size_t				 size;	/* a power of two, or 0 */
	size_t				 used;
};

struct result_span {
	const char	*p;
	size_t		 len;
};

struct result_parser {
	const char		*name;
	unsigned		 line;
	struct result		*r;
	struct result_index	 metrics;
	struct result_index	 env;
	int			 seen_exit;
	int			 seen_error;
	int			 seen_untestable;
	char			**cause;
};

static uint64_t
result_index_hash(const char *name)
{
	uint64_t	h = 14695981039346656037ULL;

	for (; *name != '\0'; name++) {
		h ^= (unsigned char)*name;
		h *= 1099511628211ULL;
	}
	return h;
}

static void
result_index_release(struct result_index *ix)
{
	free(ix->slots);
	ix->slots = NULL;
	ix->size = ix->used = 0;
}

static size_t
result_index_find(const struct result_index *ix, const char *name)
{
	size_t	i;

	if (ix->size == 0)
		return RESULT_INDEX_NONE;
	i = result_index_hash(name) & (ix->size - 1);
	while (ix->slots[i].name != NULL) {
		if (strcmp(ix->slots[i].name, name) == 0)
			return ix->slots[i].at;
		i = (i + 1) & (ix->size - 1);
	}
	return RESULT_INDEX_NONE;
}

/* The caller has checked that name is not there yet. */
static void
result_index_add(struct result_index *ix, const char *name, size_t at)
{
	struct result_index	old = *ix;
	size_t			i;

	if ((ix->used + 1) * 2 > ix->size) {
		ix->size = old.size ? old.size * 2 : 64;
		ix->slots = xcalloc(ix->size, sizeof *ix->slots);
		ix->used = 0;
		for (i = 0; i < old.size; i++) {
			if (old.slots[i].name != NULL)
				result_index_add(ix, old.slots[i].name,
				    old.slots[i].at);
		}
		free(old.slots);
	}
	i = result_index_hash(name) & (ix->size - 1);
	while (ix->slots[i].name != NULL)
		i = (i + 1) & (ix->size - 1);
	ix->slots[i].name = name;
	ix->slots[i].at = at;
	ix->used++;
}

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
	free(r);
}

static struct result_metric *
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

/* The first error wins: it is the cause, later ones are consequences. */
void
result_set_error(struct result *r, const char *fmt, ...)
{
	struct strbuf	sb = STRBUF_INIT;
	va_list		ap;

	if (r->error != NULL)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (sb.len > RESULT_MAX_TEXT) {
		sb.len = RESULT_MAX_TEXT;
		sb.buf[sb.len] = '\0';
	}
	r->error = strbuf_detach(&sb, NULL);
}

void
result_set_untestable(struct result *r, const char *fmt, ...)
{
	struct strbuf	sb = STRBUF_INIT;
	va_list		ap;

	if (r->untestable != NULL)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (sb.len > RESULT_MAX_TEXT) {
		sb.len = RESULT_MAX_TEXT;
		sb.buf[sb.len] = '\0';
	}
	if (sb.len == 0)
		strbuf_addstr(&sb, "untestable");
	r->untestable = strbuf_detach(&sb, NULL);
	result_set_error(r, "%s", r->untestable);
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

static int
result_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int
result_parser_error(struct result_parser *rp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
result_parser_error(struct result_parser *rp, const char *fmt, ...)
{
	struct strbuf	sb = STRBUF_INIT;
	va_list		ap;

	if (rp->line > 0)
		strbuf_addf(&sb, "%s:%u: ", rp->name, rp->line);
	else
		strbuf_addf(&sb, "%s: ", rp->name);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error_set(rp->cause, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

static int
result_unescape(struct result_parser *rp, struct result_span v, char **out)
{
	struct strbuf	sb = STRBUF_INIT;
	size_t		i;
	int		hi, lo, c;

	for (i = 0; i < v.len; i++) {
		if (v.p[i] != '\\') {
			strbuf_addch(&sb, v.p[i]);
			continue;
		}
		if (++i == v.len)
			goto bad;
		switch (v.p[i]) {
		case '\\':
			c = '\\';
			break;
		case 'n':
			c = '\n';
			break;
		case 't':
			c = '\t';
			break;
		case 'r':
			c = '\r';
			break;
		case 'x':
			if (i + 2 >= v.len)
				goto bad;
			if ((hi = result_hex(v.p[i + 1])) == -1 ||
			    (lo = result_hex(v.p[i + 2])) == -1)
				goto bad;
			c = hi * 16 + lo;
			if (c == 0) {
				strbuf_release(&sb);
				return result_parser_error(rp,
				    "'\\x00' is not allowed in a value");
			}
			i += 2;
			break;
		default:
			goto bad;
		}
		strbuf_addch(&sb, c);
	}
	if (sb.len > RESULT_MAX_TEXT) {
		strbuf_release(&sb);
		return result_parser_error(rp, "value longer than %u bytes",
		    RESULT_MAX_TEXT);
	}
	*out = strbuf_detach(&sb, NULL);
	return 0;
bad:
	strbuf_release(&sb);
	return result_parser_error(rp, "bad escape in value (only \\\\, \\n, "
	    "\\t, \\r and \\xHH)");
}

/* Split off the next space-separated word; the rest follows one space. */
static int
result_word(struct result_span *line, struct result_span *word)
{
	const char	*sp = memchr(line->p, ' ', line->len);

	word->p = line->p;
	if (sp == NULL) {
		word->len = line->len;
		line->p += line->len;
		line->len = 0;
		return word->len > 0 ? 0 : -1;
	}
	word->len = (size_t)(sp - line->p);
	line->len -= word->len + 1;
	line->p = sp + 1;
	return word->len > 0 ? 0 : -1;
}

static int
result_span_is(struct result_span s, const char *lit)
{
	return s.len == strlen(lit) && memcmp(s.p, lit, s.len) == 0;
}

static int
result_parse_name(struct result_parser *rp, struct result_span s,
    const char *what, char **out)
{
	if (s.len == 0 || s.len > RESULT_MAX_NAME)
		return result_parser_error(rp, "%s must be 1 to %u characters",
		    what, RESULT_MAX_NAME);
	*out = xstrndup(s.p, s.len);
	return 0;
}

static int
result_parse_value(struct result_parser *rp, const char *name,
    struct result_span s, double *out)
{
	if (result_number_parse(s.p, s.len, out) != 0)
		return result_parser_error(rp, "'%s': value '%.*s' is not a "
		    "finite decimal number", name, (int)(s.len > 64 ? 64 :
		    s.len), s.p);
	return 0;
}

static int
result_parse_uint(struct result_span s, long min, long max, long *out)
{
	long	v = 0;
	size_t	i = 0;
	int	neg = 0;

	if (s.len > 0 && s.p[0] == '-') {
		neg = 1;
		i++;
	}
	if (i == s.len || s.len - i > 9)
		return -1;
	if (s.len - i > 1 && s.p[i] == '0')
		return -1;
	for (; i < s.len; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return -1;
		v = v * 10 + (s.p[i] - '0');
	}
	if (neg)
		v = -v;
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
result_parse_metric(struct result_parser *rp, struct result_span rest)
{
	struct result_span	 word, value;
	struct result_metric	*m;
	char			*name = NULL;
	double			 v;
	int			 r = -1;

	if (result_word(&rest, &word) != 0 || rest.len == 0 ||
	    memchr(rest.p, ' ', rest.len) != NULL) {
		result_parser_error(rp, "expected 'metric NAME VALUE'");
		goto out;
	}
	value = rest;
	if (result_parse_name(rp, word, "metric name", &name) != 0 ||
	    result_parse_value(rp, name, value, &v) != 0)
		goto out;
	if (result_index_find(&rp->metrics, name) != RESULT_INDEX_NONE) {
		result_parser_error(rp, "metric '%s' given twice", name);
		goto out;
	}
	if (rp->r->nr_metrics >= RESULT_MAX_METRICS) {
		result_parser_error(rp, "more than %u metrics",
		    RESULT_MAX_METRICS);
		goto out;
	}
	m = result_metric_add(rp->r, name);
	m->value = v;
	result_index_add(&rp->metrics, m->name, rp->r->nr_metrics - 1);
	r = 0;
out:
	free(name);
	return r;
}

static int
result_parse_instance(struct result_parser *rp, struct result_span rest)
{
	struct result_span	 word, index, value;
	struct result_metric	*m;
	char			*name = NULL;
	size_t			 at;
	long			 n;
	double			 v;
	int			 r = -1;

	if (result_word(&rest, &word) != 0 || result_word(&rest, &index) != 0 ||
	    rest.len == 0 || memchr(rest.p, ' ', rest.len) != NULL) {
		result_parser_error(rp, "expected 'instance NAME INDEX VALUE'");
		goto out;
	}
	value = rest;
	if (result_parse_name(rp, word, "metric name", &name) != 0)
		goto out;
	if ((at = result_index_find(&rp->metrics, name)) == RESULT_INDEX_NONE) {
		result_parser_error(rp, "instance of metric '%s' before its "
		    "'metric' line", name);
		goto out;
	}
	m = &rp->r->metrics[at];
	if (result_parse_uint(index, 0, RESULT_MAX_INSTANCES - 1, &n) != 0) {
		result_parser_error(rp, "metric '%s': instance index '%.*s' "
		    "is not a number below %u", name, (int)(index.len > 16 ?
		    16 : index.len), index.p, RESULT_MAX_INSTANCES);
		goto out;
	}
	if ((size_t)n != m->nr_instances) {
		result_parser_error(rp, "metric '%s': instance %ld out of "
		    "order (expected %zu)", name, n, m->nr_instances);
		goto out;
	}
	if (result_parse_value(rp, name, value, &v) != 0)
		goto out;
	result_metric_add_instance(m, v);
	r = 0;
out:
	free(name);
	return r;
}

static int
result_parse_env(struct result_parser *rp, struct result_span rest)
{
	struct result_span	 word;
	char			*key = NULL, *value = NULL;
	int			 r = -1;

	if (result_word(&rest, &word) != 0) {
		result_parser_error(rp, "expected 'env KEY VALUE'");
		goto out;
	}
	if (result_parse_name(rp, word, "env key", &key) != 0 ||
	    result_unescape(rp, rest, &value) != 0)
		goto out;
	if (result_index_find(&rp->env, key) != RESULT_INDEX_NONE) {
		result_parser_error(rp, "env '%s' given twice", key);
		goto out;
	}
	if (rp->r->nr_env >= RESULT_MAX_ENV) {
		result_parser_error(rp, "more than %u env entries",
		    RESULT_MAX_ENV);
		goto out;
	}
	ALLOC_GROW(rp->r->env, rp->r->nr_env, rp->r->alloc_env);
	rp->r->env[rp->r->nr_env].key = key;
	rp->r->env[rp->r->nr_env].value = value;
	result_index_add(&rp->env, key, rp->r->nr_env);
	rp->r->nr_env++;
	key = value = NULL;
	r = 0;
out:
	free(key);
	free(value);
	return r;
}

static int
result_parse_line(struct result_parser *rp, struct result_span line)
{
	struct result_span	keyword;
	long			status;
	size_t			i;

	for (i = 0; i < line.len; i++) {
		if (line.p[i] < ' ' || line.p[i] > '~')
			return result_parser_error(rp, "byte 0x%02x not "
			    "allowed (values escape it)",
			    (unsigned char)line.p[i]);
	}
	if (rp->line == 1) {
		if (line.len > 20 && memcmp(line.p, "bisect-agent-result ",
		    20) == 0 && !result_span_is(line, "bisect-agent-result 1"))
			return result_parser_error(rp, "unsupported result "
			    "version '%.*s' (this agent reads %d)",
			    (int)(line.len - 20 > 16 ? 16 : line.len - 20),
			    line.p + 20, RESULT_VERSION);
		if (!result_span_is(line, "bisect-agent-result 1"))
			return result_parser_error(rp, "not a bisect-agent "
			    "result (no 'bisect-agent-result %d' header)",
			    RESULT_VERSION);
		return 0;
	}
	if (result_word(&line, &keyword) != 0)
		return result_parser_error(rp, "empty line or leading space");
	if (result_span_is(keyword, "metric"))
		return result_parse_metric(rp, line);
	if (result_span_is(keyword, "instance"))
		return result_parse_instance(rp, line);
	if (result_span_is(keyword, "env"))
		return result_parse_env(rp, line);
	if (result_span_is(keyword, "exit_status")) {
		if (rp->seen_exit++)
			return result_parser_error(rp, "'exit_status' given "
			    "twice");
		if (result_parse_uint(line, -1, 255, &status) != 0)
			return result_parser_error(rp, "exit_status '%.*s' "
			    "is not a number from -1 to 255",
			    (int)(line.len > 16 ? 16 : line.len), line.p);
		rp->r->exit_status = (int)status;
		return 0;
	}
	if (result_span_is(keyword, "error")) {
		if (rp->seen_error++)
			return result_parser_error(rp, "'error' given twice");
		if (line.len == 0)
			return result_parser_error(rp, "empty 'error'");
		return result_unescape(rp, line, &rp->r->error);
	}
	if (result_span_is(keyword, "untestable")) {
		if (rp->seen_untestable++)
			return result_parser_error(rp, "'untestable' given "
			    "twice");
		if (line.len == 0)
			return result_parser_error(rp, "empty 'untestable'");
		return result_unescape(rp, line, &rp->r->untestable);
	}
	return result_parser_error(rp, "unknown keyword '%.*s'",
	    (int)(keyword.len > 32 ? 32 : keyword.len), keyword.p);
}

int
result_parse(const char *name, const char *buf, size_t len,
    struct result **out, char **cause)
{
	struct result_parser	 rp;
	struct result_span	 line;
	const char		*p = buf, *end = buf + len, *nl;
	int			 r = -1;

	memset(&rp, 0, sizeof rp);
	rp.name = name;
	rp.cause = cause;
	rp.r = result_new();
	if (len > RESULT_MAX_SIZE) {
		result_parser_error(&rp, "larger than %u bytes",
		    RESULT_MAX_SIZE);
		goto out;
	}
	if (len == 0) {
		result_parser_error(&rp, "empty result");
		goto out;
	}
	while (p < end) {
		rp.line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL) {
			result_parser_error(&rp, "no newline at end of file "
			    "(truncated?)");
			goto out;
		}
		line.p = p;
		line.len = (size_t)(nl - p);
		if (line.len > RESULT_MAX_LINE) {
			result_parser_error(&rp, "line longer than %u bytes",
			    RESULT_MAX_LINE);
			goto out;
		}
		if (result_parse_line(&rp, line) != 0)
			goto out;
		p = nl + 1;
	}
	rp.line = 0;
	if (!rp.seen_exit) {
		result_parser_error(&rp, "no 'exit_status' line");
		goto out;
	}
	*out = rp.r;
	rp.r = NULL;
	r = 0;
out:
	result_index_release(&rp.metrics);
	result_index_release(&rp.env);
	result_free(rp.r);
	return r;
}

int
result_format(const struct result *r, char **out, size_t *len, char **cause)
{
	struct result_index	 seen = RESULT_INDEX_INIT;
	struct strbuf		 sb = STRBUF_INIT;
	const struct result_metric *m;
	size_t			 i, j, start;
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
	if (r->error != NULL) {
		start = sb.len;
		strbuf_addstr(&sb, "error ");
		result_escape(&sb, r->error[0] != '\0' ? r->error : "unknown");
		if (sb.len - start > RESULT_MAX_LINE) {
			error_set(cause, "error text too long");
			goto out;
		}
		strbuf_addch(&sb, '\n');
	}
	if (r->untestable != NULL) {
		start = sb.len;
		strbuf_addstr(&sb, "untestable ");
		result_escape(&sb, r->untestable[0] != '\0' ? r->untestable :
		    "untestable");
		if (sb.len - start > RESULT_MAX_LINE) {
			error_set(cause, "untestable text too long");
			goto out;
		}
		strbuf_addch(&sb, '\n');
	}
	for (i = 0; i < r->nr_env; i++) {
		if (!result_name_valid(r->env[i].key) ||
		    result_index_find(&seen, r->env[i].key) !=
		    RESULT_INDEX_NONE) {
			error_set(cause, "env key '%s' is invalid or repeated",
			    r->env[i].key);
			goto out;
		}
		result_index_add(&seen, r->env[i].key, i);
		start = sb.len;
		strbuf_addf(&sb, "env %s ", r->env[i].key);
		result_escape(&sb, r->env[i].value);
		if (strlen(r->env[i].value) > RESULT_MAX_TEXT ||
		    sb.len - start > RESULT_MAX_LINE) {
			error_set(cause, "env '%s': value too long",
			    r->env[i].key);
			goto out;
		}
		strbuf_addch(&sb, '\n');
	}
	result_index_release(&seen);
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
		strbuf_addf(&sb, "metric %s ", m->name);
		result_number_format(&sb, m->value);
		strbuf_addch(&sb, '\n');
		for (j = 0; j < m->nr_instances; j++) {
			if (!isfinite(m->instances[j])) {
				error_set(cause, "metric '%s': instance %zu "
				    "not finite", m->name, j);
				goto out;
			}
			strbuf_addf(&sb, "instance %s %zu ", m->name, j);
			result_number_format(&sb, m->instances[j]);
			strbuf_addch(&sb, '\n');
		}
	}
	if (sb.len > RESULT_MAX_SIZE) {
		error_set(cause, "result larger than %u bytes",
		    RESULT_MAX_SIZE);
		goto out;
	}
	*out = strbuf_detach(&sb, len);
	ret = 0;
out:
	result_index_release(&seen);
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

