/*
 * The YAML tree under the job and config parsers. libyaml's document API
 * would resolve aliases silently and lose which document a node came
 * from, so the tree is built here from the event stream with an explicit
 * stack: a hostile file cannot recurse us deeper than YAMLNODE_MAX_DEPTH,
 * and every refusal carries the line and column of the offending node.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "jobs/yamlnode.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define YAMLNODE_TAG_STR	"tag:yaml.org,2002:str"
#define YAMLNODE_TAG_SEQ	"tag:yaml.org,2002:seq"
#define YAMLNODE_TAG_MAP	"tag:yaml.org,2002:map"

static int
yamlnode_error_at(char **cause, const char *name, unsigned line,
    unsigned column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int
yamlnode_error_at(char **cause, const char *name, unsigned line,
    unsigned column, const char *fmt, ...)
{
	struct strbuf	sb = STRBUF_INIT;
	va_list		ap;

	if (cause == NULL)
		return -1;
	strbuf_addf(&sb, "%s:%u:%u: ", name, line, column);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(*cause);
	*cause = strbuf_detach(&sb, NULL);
	return -1;
}

int
yamlnode_error(char **cause, const char *name, const struct yamlnode *n,
    const char *fmt, ...)
{
	struct strbuf	sb = STRBUF_INIT;
	va_list		ap;

	if (cause == NULL)
		return -1;
	if (n->file != NULL)
		name = n->file;
	strbuf_addf(&sb, "%s:%u:%u: ", name, n->line, n->column);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(*cause);
	*cause = strbuf_detach(&sb, NULL);
	return -1;
}

const char *
yamlnode_kind(const struct yamlnode *n)
{
	switch (n->type) {
	case YAMLNODE_SCALAR:
		return n->null ? "empty" : "a scalar";
	case YAMLNODE_SEQUENCE:
		return "a list";
	case YAMLNODE_MAPPING:
		return "a map";
	}
	return "?";
}

void
yamlnode_free(struct yamlnode *n)
{
	size_t	i;

	if (n == NULL)
		return;
	for (i = 0; i < n->nr; i++)
		yamlnode_free(n->items[i]);
	free(n->items);
	free(n->value);
	free(n);
}

void
yamlnode_list_free(struct yamlnode **v, size_t nr)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; i < nr; i++)
		yamlnode_free(v[i]);
	free(v);
}

struct yamlnode *
yamlnode_copy(const struct yamlnode *n)
{
	struct yamlnode	*c = xcalloc(1, sizeof *c);
	size_t		 i;

	c->type = n->type;
	c->line = n->line;
	c->column = n->column;
	c->null = n->null;
	c->file = n->file;
	if (n->value != NULL)
		c->value = xstrdup(n->value);
	if (n->nr > 0) {
		c->items = xcalloc(n->nr, sizeof *c->items);
		c->alloc = n->nr;
		for (i = 0; i < n->nr; i++)
			c->items[i] = yamlnode_copy(n->items[i]);
		c->nr = n->nr;
	}
	return c;
}

void
yamlnode_set_file(struct yamlnode *n, const char *file)
{
	size_t	i;

	n->file = file;
	for (i = 0; i < n->nr; i++)
		yamlnode_set_file(n->items[i], file);
}

struct yamlnode *
yamlnode_map_get(const struct yamlnode *n, const char *key)
{
	size_t	i;

	if (n == NULL || n->type != YAMLNODE_MAPPING)
		return NULL;
	for (i = 0; i < n->nr; i += 2) {
		if (strcmp(n->items[i]->value, key) == 0)
			return n->items[i + 1];
	}
	return NULL;
}

/*
 * Reader errors (bad UTF-8, control characters) carry a byte offset
 * rather than a mark: count lines and characters up to it.
 */
static void
yamlnode_offset_position(const char *buf, size_t len, size_t offset,
    unsigned *line, unsigned *column)
{
	size_t	i;

	*line = 1;
	*column = 1;
	if (offset > len)
		offset = len;
	for (i = 0; i < offset; i++) {
		if (buf[i] == '\n') {
			(*line)++;
			*column = 1;
		} else if (((unsigned char)buf[i] & 0xc0) != 0x80)
			(*column)++;
	}
}

static int
yamlnode_parser_error(char **cause, const char *name, yaml_parser_t *p,
    const char *buf, size_t len)
{
	const char	*problem = p->problem ? p->problem : "malformed YAML";
	unsigned	 line, column;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return error_set(cause, "%s: out of memory parsing YAML", name);
	case YAML_READER_ERROR:
		yamlnode_offset_position(buf, len, p->problem_offset, &line,
		    &column);
		if (p->problem_value != -1)
			return yamlnode_error_at(cause, name, line, column,
			    "%s (byte 0x%02x)", problem,
			    (unsigned)p->problem_value & 0xff);
		return yamlnode_error_at(cause, name, line, column, "%s",
		    problem);
	default:
		line = (unsigned)p->problem_mark.line + 1;
		column = (unsigned)p->problem_mark.column + 1;
		if (p->context != NULL)
			return yamlnode_error_at(cause, name, line, column,
			    "%s, %s at %u:%u", problem, p->context,
			    (unsigned)p->context_mark.line + 1,
			    (unsigned)p->context_mark.column + 1);
		return yamlnode_error_at(cause, name, line, column, "%s",
		    problem);
	}
}

static int
yamlnode_is_null_word(const char *s, size_t len)
{
	return len == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	    strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

static struct yamlnode *
yamlnode_new(enum yamlnode_type type, const yaml_mark_t *mark)
{
	struct yamlnode	*n = xcalloc(1, sizeof *n);

	n->type = type;
	n->line = (unsigned)mark->line + 1;
	n->column = (unsigned)mark->column + 1;
	return n;
}

/* Refuse anchors and unknown tags on a node about to be made. */
static int
yamlnode_check_props(char **cause, const char *name, const yaml_event_t *ev,
    const yaml_char_t *anchor, const yaml_char_t *tag, const char *std)
{
	unsigned	line = (unsigned)ev->start_mark.line + 1;
	unsigned	column = (unsigned)ev->start_mark.column + 1;

	if (anchor != NULL)
		return yamlnode_error_at(cause, name, line, column,
		    "anchor '&%s' is not supported: write the value out",
		    (const char *)anchor);
	if (tag != NULL && strcmp((const char *)tag, std) != 0 &&
	    strcmp((const char *)tag, "!") != 0)
		return yamlnode_error_at(cause, name, line, column,
		    "tag '%s' is not supported", (const char *)tag);
	return 0;
}

/* Hang n under the open collection on top of the stack (or make it root). */
static int
yamlnode_attach(char **cause, const char *name, struct yamlnode **stack,
    size_t depth, struct yamlnode **root, struct yamlnode *n, int merges)
{
	struct yamlnode	*parent;
	size_t		 i;

	if (depth == 0) {
		*root = n;
		return 0;
	}
	parent = stack[depth - 1];
	if (parent->type == YAMLNODE_MAPPING && parent->nr % 2 == 0) {
		if (n->type != YAMLNODE_SCALAR)
			return yamlnode_error(cause, name, n,
			    "a map key must be a scalar, not %s",
			    yamlnode_kind(n));
		if (n->null)
			return yamlnode_error(cause, name, n,
			    "empty map key");
		if (parent->nr / 2 >= YAMLNODE_MAX_KEYS)
			return yamlnode_error(cause, name, n,
			    "more than %d keys in one map", YAMLNODE_MAX_KEYS);
		for (i = 0; i < parent->nr; i += 2) {
			if (merges && strcmp(n->value, "<<") == 0)
				break;
			if (strcmp(parent->items[i]->value, n->value) == 0)
				return yamlnode_error(cause, name, n,
				    "duplicate key '%s' (first at %u:%u)",
				    n->value, parent->items[i]->line,
				    parent->items[i]->column);
		}
	}
	ALLOC_GROW(parent->items, parent->nr, parent->alloc);
	parent->items[parent->nr++] = n;
	return 0;
}

/* A scalar event's node, its tag and anchor refused, NUL refused. */
static int
yamlnode_parse_scalar(char **cause, const char *name, yaml_event_t *ev,
    struct yamlnode **out)
{
	struct yamlnode	*n;

	*out = NULL;
	if (yamlnode_check_props(cause, name, ev, ev->data.scalar.anchor,
	    ev->data.scalar.tag, YAMLNODE_TAG_STR) != 0)
		return -1;
	n = yamlnode_new(YAMLNODE_SCALAR, &ev->start_mark);
	n->value = xstrndup((const char *)ev->data.scalar.value,
	    ev->data.scalar.length);
	if (strlen(n->value) != ev->data.scalar.length) {
		yamlnode_error(cause, name, n,
		    "scalar contains a NUL character");
		yamlnode_free(n);
		return -1;
	}
	n->null = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    ev->data.scalar.tag == NULL &&
	    yamlnode_is_null_word(n->value, ev->data.scalar.length);
	*out = n;
	return 0;
}

/* A sequence's or mapping's node, at most YAMLNODE_MAX_DEPTH deep. */
static int
yamlnode_parse_collection(char **cause, const char *name, yaml_event_t *ev,
    size_t depth, struct yamlnode **out)
{
	struct yamlnode	*n;

	*out = NULL;
	if (ev->type == YAML_SEQUENCE_START_EVENT) {
		if (yamlnode_check_props(cause, name, ev,
		    ev->data.sequence_start.anchor,
		    ev->data.sequence_start.tag, YAMLNODE_TAG_SEQ) != 0)
			return -1;
		n = yamlnode_new(YAMLNODE_SEQUENCE, &ev->start_mark);
	} else {
		if (yamlnode_check_props(cause, name, ev,
		    ev->data.mapping_start.anchor,
		    ev->data.mapping_start.tag, YAMLNODE_TAG_MAP) != 0)
			return -1;
		n = yamlnode_new(YAMLNODE_MAPPING, &ev->start_mark);
	}
	if (depth == YAMLNODE_MAX_DEPTH) {
		yamlnode_error(cause, name, n, "nested deeper than %d levels",
		    YAMLNODE_MAX_DEPTH);
		yamlnode_free(n);
		return -1;
	}
	*out = n;
	return 0;
}

/*
 * The documents of a stream into *docs; with !stream a second document is
 * an error. An empty stream gives no document at all.
 */
static int
yamlnode_parse_docs(const char *name, const char *buf, size_t len,
    int stream, struct yamlnode ***docs, size_t *nr_docs, char **cause)
{
	yaml_parser_t	 parser;
	yaml_event_t	 ev;
	struct yamlnode	*stack[YAMLNODE_MAX_DEPTH];
	struct yamlnode	*root = NULL, *n = NULL, **v = NULL;
	size_t		 depth = 0, nr = 0, alloc = 0;
	unsigned	 ndocs = 0;
	int		 have_event = 0, done = 0, r = -1;

	if (!yaml_parser_initialize(&parser))
		return error_set(cause, "%s: out of memory parsing YAML", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			yamlnode_parser_error(cause, name, &parser, buf, len);
			goto out;
		}
		have_event = 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_END_EVENT:
			if (root == NULL) {
				root = yamlnode_new(YAMLNODE_SCALAR,
				    &ev.start_mark);
				root->value = xstrdup("");
				root->null = 1;
			}
			ALLOC_GROW(v, nr, alloc);
			v[nr++] = root;
			root = NULL;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (ndocs++ > 0 && !stream) {
				yamlnode_error_at(cause, name,
				    (unsigned)ev.start_mark.line + 1,
				    (unsigned)ev.start_mark.column + 1,
				    "a second YAML document is not allowed");
				goto out;
			}
			break;
		case YAML_ALIAS_EVENT:
			yamlnode_error_at(cause, name,
			    (unsigned)ev.start_mark.line + 1,
			    (unsigned)ev.start_mark.column + 1,
			    "alias '*%s' is not supported: write the value out",
			    (const char *)ev.data.alias.anchor);
			goto out;
		case YAML_SCALAR_EVENT:
			if (yamlnode_parse_scalar(cause, name, &ev, &n) != 0)
				goto out;
			if (yamlnode_attach(cause, name, stack, depth, &root,
			    n, stream) != 0)
				goto out;
			n = NULL;
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (yamlnode_parse_collection(cause, name, &ev, depth,
			    &n) != 0)
				goto out;
			if (yamlnode_attach(cause, name, stack, depth, &root,
			    n, stream) != 0)
				goto out;
			stack[depth++] = n;
			n = NULL;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth > 0)
				depth--;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
		have_event = 0;
	}
	*docs = v;
	*nr_docs = nr;
	v = NULL;
	r = 0;
out:
	if (have_event)
		yaml_event_delete(&ev);
	yaml_parser_delete(&parser);
	yamlnode_free(n);
	yamlnode_free(root);
	yamlnode_list_free(v, nr);
	return r;
}

int
yamlnode_parse(const char *name, const char *buf, size_t len,
    struct yamlnode **out, char **cause)
{
	struct yamlnode	**docs = NULL;
	size_t		  nr = 0;

	*out = NULL;
	if (yamlnode_parse_docs(name, buf, len, 0, &docs, &nr, cause) != 0)
		return -1;
	if (nr > 0) {
		*out = docs[0];
		docs[0] = NULL;
	}
	yamlnode_list_free(docs, nr);
	return 0;
}

int
yamlnode_parse_stream(const char *name, const char *buf, size_t len,
    struct yamlnode ***out, size_t *nr, char **cause)
{
	*out = NULL;
	*nr = 0;
	return yamlnode_parse_docs(name, buf, len, 1, out, nr, cause);
}

/*
 * A scalar as canonical YAML: plain when it is made of safe characters
 * and cannot read as null, else double-quoted with every non-printable or
 * non-ASCII character escaped, so the text is ASCII and reads back equal.
 */
void
yamlnode_quote(struct strbuf *sb, const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	unsigned		 cp, n, i;
	int			 plain;

	plain = (isalnum(*p) || *p == '_' || *p == '.' || *p == '/') &&
	    strcmp(s, "null") != 0 && strcmp(s, "Null") != 0 &&
	    strcmp(s, "NULL") != 0;
	for (; plain && *p != '\0'; p++) {
		if (!isalnum(*p) && strchr("_./+%@=-", *p) == NULL)
			plain = 0;
	}
	if (plain) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '"');
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\') {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, *p);
		} else if (*p == '\n')
			strbuf_addstr(sb, "\\n");
		else if (*p == '\t')
			strbuf_addstr(sb, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			strbuf_addf(sb, "\\x%02x", *p);
		else if (*p < 0x80)
			strbuf_addch(sb, *p);
		else {
			/* libyaml hands us valid UTF-8 only. */
			n = *p >= 0xf0 ? 3 : *p >= 0xe0 ? 2 : 1;
			cp = *p & (0x3f >> n);
			for (i = 0; i < n && (p[1] & 0xc0) == 0x80; i++)
				cp = (cp << 6) | (*++p & 0x3f);
			if (cp <= 0xffff)
				strbuf_addf(sb, "\\u%04x", cp);
			else
				strbuf_addf(sb, "\\U%08x", cp);
		}
	}
	strbuf_addch(sb, '"');
}
