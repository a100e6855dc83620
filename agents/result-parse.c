/*
 * The reader of RESULTDIR/result (docs/agents.md). The file comes from
 * test machines, so it is parsed as untrusted input (and fuzzed,
 * tests/fuzz/fuzz-result.c): one grammar, no guessing, bounded sizes,
 * finite numbers only, each name at most once, and errors that name the
 * line. The writer is in agents/result.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/result-index.h"
#include "agents/result.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

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
	int			 seen_disturbed;
	int			 seen_start;
	int			 seen_end;
	int			 seen_boot_id;
	char			**cause;
};

static int
result_parse_hex(char c)
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
result_parse_error(struct result_parser *rp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
result_parse_error(struct result_parser *rp, const char *fmt, ...)
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
result_parse_unescape(struct result_parser *rp, struct result_span v, char **out)
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
			if ((hi = result_parse_hex(v.p[i + 1])) == -1 ||
			    (lo = result_parse_hex(v.p[i + 2])) == -1)
				goto bad;
			c = hi * 16 + lo;
			if (c == 0) {
				strbuf_release(&sb);
				return result_parse_error(rp,
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
		return result_parse_error(rp, "value longer than %u bytes",
		    RESULT_MAX_TEXT);
	}
	*out = strbuf_detach(&sb, NULL);
	return 0;
bad:
	strbuf_release(&sb);
	return result_parse_error(rp, "bad escape in value (only \\\\, \\n, "
	    "\\t, \\r and \\xHH)");
}

/* Split off the next space-separated word; the rest follows one space. */
static int
result_parse_word(struct result_span *line, struct result_span *word)
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
result_parse_span_is(struct result_span s, const char *lit)
{
	return s.len == strlen(lit) && memcmp(s.p, lit, s.len) == 0;
}

static int
result_parse_name(struct result_parser *rp, struct result_span s,
    const char *what, char **out)
{
	if (s.len == 0 || s.len > RESULT_MAX_NAME)
		return result_parse_error(rp, "%s must be 1 to %u characters",
		    what, RESULT_MAX_NAME);
	*out = xstrndup(s.p, s.len);
	return 0;
}

static int
result_parse_value(struct result_parser *rp, const char *name,
    struct result_span s, double *out)
{
	if (result_number_parse(s.p, s.len, out) != 0)
		return result_parse_error(rp, "'%s': value '%.*s' is not a "
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

	if (result_parse_word(&rest, &word) != 0 || rest.len == 0 ||
	    memchr(rest.p, ' ', rest.len) != NULL) {
		result_parse_error(rp, "expected 'metric NAME VALUE'");
		goto out;
	}
	value = rest;
	if (result_parse_name(rp, word, "metric name", &name) != 0 ||
	    result_parse_value(rp, name, value, &v) != 0)
		goto out;
	if (result_index_find(&rp->metrics, name) != RESULT_INDEX_NONE) {
		result_parse_error(rp, "metric '%s' given twice", name);
		goto out;
	}
	if (rp->r->nr_metrics >= RESULT_MAX_METRICS) {
		result_parse_error(rp, "more than %u metrics",
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

	if (result_parse_word(&rest, &word) != 0 || result_parse_word(&rest, &index) != 0 ||
	    rest.len == 0 || memchr(rest.p, ' ', rest.len) != NULL) {
		result_parse_error(rp, "expected 'instance NAME INDEX VALUE'");
		goto out;
	}
	value = rest;
	if (result_parse_name(rp, word, "metric name", &name) != 0)
		goto out;
	if ((at = result_index_find(&rp->metrics, name)) == RESULT_INDEX_NONE) {
		result_parse_error(rp, "instance of metric '%s' before its "
		    "'metric' line", name);
		goto out;
	}
	m = &rp->r->metrics[at];
	if (result_parse_uint(index, 0, RESULT_MAX_INSTANCES - 1, &n) != 0) {
		result_parse_error(rp, "metric '%s': instance index '%.*s' "
		    "is not a number below %u", name, (int)(index.len > 16 ?
		    16 : index.len), index.p, RESULT_MAX_INSTANCES);
		goto out;
	}
	if ((size_t)n != m->nr_instances) {
		result_parse_error(rp, "metric '%s': instance %ld out of "
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

	if (result_parse_word(&rest, &word) != 0) {
		result_parse_error(rp, "expected 'env KEY VALUE'");
		goto out;
	}
	if (result_parse_name(rp, word, "env key", &key) != 0 ||
	    result_parse_unescape(rp, rest, &value) != 0)
		goto out;
	if (result_index_find(&rp->env, key) != RESULT_INDEX_NONE) {
		result_parse_error(rp, "env '%s' given twice", key);
		goto out;
	}
	if (rp->r->nr_env >= RESULT_MAX_ENV) {
		result_parse_error(rp, "more than %u env entries",
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

/* "start WALL MONO" or "end WALL MONO": two finite decimals. */
static int
result_parse_times(struct result_parser *rp, const char *what,
    struct result_span rest, double *wall, double *mono)
{
	struct result_span	word;

	if (result_parse_word(&rest, &word) != 0 || rest.len == 0 ||
	    memchr(rest.p, ' ', rest.len) != NULL)
		return result_parse_error(rp, "expected '%s WALL MONO'",
		    what);
	if (result_parse_value(rp, what, word, wall) != 0 ||
	    result_parse_value(rp, what, rest, mono) != 0)
		return -1;
	return 0;
}

static int
result_parse_line(struct result_parser *rp, struct result_span line)
{
	struct result_span	keyword;
	long			status;
	size_t			i;

	for (i = 0; i < line.len; i++) {
		if (line.p[i] < ' ' || line.p[i] > '~')
			return result_parse_error(rp, "byte 0x%02x not "
			    "allowed (values escape it)",
			    (unsigned char)line.p[i]);
	}
	if (rp->line == 1) {
		if (line.len > 20 && memcmp(line.p, "bisect-agent-result ",
		    20) == 0 && !result_parse_span_is(line, "bisect-agent-result 1"))
			return result_parse_error(rp, "unsupported result "
			    "version '%.*s' (this agent reads %d)",
			    (int)(line.len - 20 > 16 ? 16 : line.len - 20),
			    line.p + 20, RESULT_VERSION);
		if (!result_parse_span_is(line, "bisect-agent-result 1"))
			return result_parse_error(rp, "not a bisect-agent "
			    "result (no 'bisect-agent-result %d' header)",
			    RESULT_VERSION);
		return 0;
	}
	if (result_parse_word(&line, &keyword) != 0)
		return result_parse_error(rp, "empty line or leading space");
	if (result_parse_span_is(keyword, "metric"))
		return result_parse_metric(rp, line);
	if (result_parse_span_is(keyword, "instance"))
		return result_parse_instance(rp, line);
	if (result_parse_span_is(keyword, "env"))
		return result_parse_env(rp, line);
	if (result_parse_span_is(keyword, "exit_status")) {
		if (rp->seen_exit++)
			return result_parse_error(rp, "'exit_status' given "
			    "twice");
		if (result_parse_uint(line, -1, 255, &status) != 0)
			return result_parse_error(rp, "exit_status '%.*s' "
			    "is not a number from -1 to 255",
			    (int)(line.len > 16 ? 16 : line.len), line.p);
		rp->r->exit_status = (int)status;
		return 0;
	}
	if (result_parse_span_is(keyword, "error")) {
		if (rp->seen_error++)
			return result_parse_error(rp, "'error' given twice");
		if (line.len == 0)
			return result_parse_error(rp, "empty 'error'");
		return result_parse_unescape(rp, line, &rp->r->error);
	}
	if (result_parse_span_is(keyword, "untestable")) {
		if (rp->seen_untestable++)
			return result_parse_error(rp, "'untestable' given "
			    "twice");
		if (line.len == 0)
			return result_parse_error(rp, "empty 'untestable'");
		return result_parse_unescape(rp, line, &rp->r->untestable);
	}
	if (result_parse_span_is(keyword, "disturbed")) {
		if (rp->seen_disturbed++)
			return result_parse_error(rp, "'disturbed' given "
			    "twice");
		if (line.len == 0)
			return result_parse_error(rp, "empty 'disturbed'");
		return result_parse_unescape(rp, line, &rp->r->disturbed);
	}
	if (result_parse_span_is(keyword, "start")) {
		if (rp->seen_start++)
			return result_parse_error(rp, "'start' given twice");
		return result_parse_times(rp, "start", line,
		    &rp->r->start_wall, &rp->r->start_mono);
	}
	if (result_parse_span_is(keyword, "end")) {
		if (rp->seen_end++)
			return result_parse_error(rp, "'end' given twice");
		return result_parse_times(rp, "end", line, &rp->r->end_wall,
		    &rp->r->end_mono);
	}
	if (result_parse_span_is(keyword, "boot_id")) {
		if (rp->seen_boot_id++)
			return result_parse_error(rp, "'boot_id' given "
			    "twice");
		if (line.len == 0)
			return result_parse_error(rp, "empty 'boot_id'");
		return result_parse_unescape(rp, line, &rp->r->boot_id);
	}
	return result_parse_error(rp, "unknown keyword '%.*s'",
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
		result_parse_error(&rp, "larger than %u bytes",
		    RESULT_MAX_SIZE);
		goto out;
	}
	if (len == 0) {
		result_parse_error(&rp, "empty result");
		goto out;
	}
	while (p < end) {
		rp.line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL) {
			result_parse_error(&rp, "no newline at end of file "
			    "(truncated?)");
			goto out;
		}
		line.p = p;
		line.len = (size_t)(nl - p);
		if (line.len > RESULT_MAX_LINE) {
			result_parse_error(&rp, "line longer than %u bytes",
			    RESULT_MAX_LINE);
			goto out;
		}
		if (result_parse_line(&rp, line) != 0)
			goto out;
		p = nl + 1;
	}
	rp.line = 0;
	if (!rp.seen_exit) {
		result_parse_error(&rp, "no 'exit_status' line");
		goto out;
	}
	if (rp.seen_start != rp.seen_end) {
		result_parse_error(&rp, "'start' and 'end' come together");
		goto out;
	}
	rp.r->has_times = rp.seen_start;
	*out = rp.r;
	rp.r = NULL;
	r = 0;
out:
	result_index_release(&rp.metrics);
	result_index_release(&rp.env);
	result_free(rp.r);
	return r;
}
