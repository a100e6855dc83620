/*
 * The line patterns of program files: literal characters, runs of
 * blanks, {NAME} for a number, {NAME:word} for a run of non-blanks and
 * {} for any text. Matching is deterministic except at {}, which tries
 * the shortest text first; a bitmap of the (token, position) states that
 * already failed keeps a pattern with several {} linear in the line's
 * length per token, since the output is untrusted (and fuzzed).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/program.h"
#include "util/error.h"
#include "util/xalloc.h"

#define PROGRAM_LINE_MAX_TEXT	1024
#define PROGRAM_LINE_MAX_NAME	64

static int
program_line_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static void
program_line_token(struct program_line *pl, size_t *alloc,
    enum program_token_kind kind, char c, unsigned capture)
{
	ALLOC_GROW(pl->tokens, pl->nr_tokens, *alloc);
	pl->tokens[pl->nr_tokens].kind = kind;
	pl->tokens[pl->nr_tokens].c = c;
	pl->tokens[pl->nr_tokens].capture = capture;
	pl->nr_tokens++;
}

void
program_line_release(struct program_line *pl)
{
	size_t	i;

	for (i = 0; i < pl->nr_names; i++)
		free(pl->names[i]);
	free(pl->names);
	free(pl->is_word);
	free(pl->tokens);
	free(pl->text);
	memset(pl, 0, sizeof *pl);
}

static int
program_line_capture(struct program_line *pl, const char *text,
    const char *s, size_t len, char **cause)
{
	const char	*colon = memchr(s, ':', len);
	size_t		 nlen = colon != NULL ? (size_t)(colon - s) : len, i;
	int		 word = 0;

	if (colon != NULL) {
		if (len - nlen - 1 != 4 || strncmp(colon + 1, "word", 4) != 0)
			return error_set(cause, "pattern '%s': a capture is "
			    "{NAME} or {NAME:word}, not {%.*s}", text,
			    (int)len, s);
		word = 1;
	}
	if (nlen == 0 || nlen > PROGRAM_LINE_MAX_NAME ||
	    !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		goto bad;
	for (i = 0; i < nlen; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			goto bad;
	}
	for (i = 0; i < pl->nr_names; i++) {
		if (strlen(pl->names[i]) == nlen &&
		    strncmp(pl->names[i], s, nlen) == 0)
			return error_set(cause, "pattern '%s' captures '%.*s' "
			    "twice", text, (int)nlen, s);
	}
	if (pl->nr_names == PROGRAM_MAX_CAPTURES)
		return error_set(cause, "pattern '%s' has more than %d "
		    "captures", text, PROGRAM_MAX_CAPTURES);
	pl->names = xreallocarray(pl->names, pl->nr_names + 1,
	    sizeof *pl->names);
	pl->is_word = xreallocarray(pl->is_word, pl->nr_names + 1,
	    sizeof *pl->is_word);
	pl->names[pl->nr_names] = xstrndup(s, nlen);
	pl->is_word[pl->nr_names] = word;
	pl->nr_names++;
	return 0;
bad:
	return error_set(cause, "pattern '%s': '%.*s' is not a capture name "
	    "(letters, digits and '_')", text, (int)nlen, s);
}

int
program_line_compile(const char *text, struct program_line *out,
    char **cause)
{
	struct program_line	 pl;
	const char		*p = text, *end = text + strlen(text), *close;
	size_t			 alloc = 0;

	memset(&pl, 0, sizeof pl);
	memset(out, 0, sizeof *out);
	if (end - text > PROGRAM_LINE_MAX_TEXT)
		return error_set(cause, "a pattern of more than %d characters",
		    PROGRAM_LINE_MAX_TEXT);
	while (p < end && program_line_blank(*p))
		p++;
	while (end > p && program_line_blank(end[-1]))
		end--;
	if (p == end)
		return error_set(cause, "an empty pattern");
	while (p < end) {
		if (program_line_blank(*p)) {
			while (p < end && program_line_blank(*p))
				p++;
			program_line_token(&pl, &alloc, PROGRAM_TOKEN_BLANK,
			    0, 0);
		} else if (*p == '{' && p + 1 < end && p[1] == '{') {
			program_line_token(&pl, &alloc, PROGRAM_TOKEN_CHAR,
			    '{', 0);
			p += 2;
		} else if (*p == '}' && p + 1 < end && p[1] == '}') {
			program_line_token(&pl, &alloc, PROGRAM_TOKEN_CHAR,
			    '}', 0);
			p += 2;
		} else if (*p == '}') {
			error_set(cause, "pattern '%s': a '}' without '{' "
			    "(write '}}')", text);
			goto fail;
		} else if (*p == '{') {
			close = memchr(p, '}', (size_t)(end - p));
			if (close == NULL) {
				error_set(cause, "pattern '%s': a '{' without "
				    "'}' (write '{{')", text);
				goto fail;
			}
			if (close == p + 1) {
				if (pl.nr_tokens > 0 && pl.tokens[pl.nr_tokens -
				    1].kind == PROGRAM_TOKEN_SKIP) {
					error_set(cause, "pattern '%s': two {} "
					    "in a row", text);
					goto fail;
				}
				program_line_token(&pl, &alloc,
				    PROGRAM_TOKEN_SKIP, 0, 0);
			} else {
				if (program_line_capture(&pl, text, p + 1,
				    (size_t)(close - p - 1), cause) != 0)
					goto fail;
				program_line_token(&pl, &alloc,
				    pl.is_word[pl.nr_names - 1] ?
				    PROGRAM_TOKEN_WORD : PROGRAM_TOKEN_NUMBER,
				    0, (unsigned)(pl.nr_names - 1));
			}
			p = close + 1;
		} else
			program_line_token(&pl, &alloc, PROGRAM_TOKEN_CHAR,
			    *p++, 0);
	}
	pl.text = xstrdup(text);
	*out = pl;
	return 0;
fail:
	program_line_release(&pl);
	return -1;
}

/* The length of the number at s: [+-]digits[.digits][e[+-]digits]. */
static size_t
program_line_number(const char *s, size_t len)
{
	size_t	i = 0, digits = 0, e;

	if (i < len && (s[i] == '+' || s[i] == '-'))
		i++;
	while (i < len && isdigit((unsigned char)s[i])) {
		i++;
		digits++;
	}
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && isdigit((unsigned char)s[i])) {
			i++;
			digits++;
		}
	}
	if (digits == 0)
		return 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		e = i + 1;
		if (e < len && (s[e] == '+' || s[e] == '-'))
			e++;
		if (e < len && isdigit((unsigned char)s[e])) {
			while (e < len && isdigit((unsigned char)s[e]))
				e++;
			i = e;
		}
	}
	return i;
}

struct program_line_state {
	const struct program_line	*pl;
	const char			*s;
	size_t				 len;
	struct program_capture		*caps;
	unsigned char			*failed;	/* (token, pos) bits */
};

static int
program_line_from(struct program_line_state *st, size_t t, size_t pos)
{
	const struct program_token	*tok;
	char				 buf[64];
	size_t				 n, bit;
	double				 v;

	for (;;) {
		if (t == st->pl->nr_tokens)
			return pos == st->len;
		tok = &st->pl->tokens[t];
		switch (tok->kind) {
		case PROGRAM_TOKEN_CHAR:
			if (pos >= st->len || st->s[pos] != tok->c)
				return 0;
			pos++;
			break;
		case PROGRAM_TOKEN_BLANK:
			if (pos >= st->len || !program_line_blank(st->s[pos]))
				return 0;
			while (pos < st->len && program_line_blank(st->s[pos]))
				pos++;
			break;
		case PROGRAM_TOKEN_NUMBER:
			n = program_line_number(st->s + pos, st->len - pos);
			if (n == 0 || n >= sizeof buf)
				return 0;
			memcpy(buf, st->s + pos, n);
			buf[n] = '\0';
			v = strtod(buf, NULL);
			if (!isfinite(v))
				return 0;
			st->caps[tok->capture].number = v;
			pos += n;
			break;
		case PROGRAM_TOKEN_WORD:
			for (n = 0; pos + n < st->len &&
			    !program_line_blank(st->s[pos + n]); n++)
				;
			if (n == 0)
				return 0;
			st->caps[tok->capture].word = st->s + pos;
			st->caps[tok->capture].word_len = n;
			pos += n;
			break;
		case PROGRAM_TOKEN_SKIP:
			for (; pos <= st->len; pos++) {
				bit = (t + 1) * (st->len + 1) + pos;
				if (st->failed != NULL &&
				    (st->failed[bit / 8] & (1u << bit % 8)))
					continue;
				if (program_line_from(st, t + 1, pos))
					return 1;
				if (st->failed != NULL)
					st->failed[bit / 8] |=
					    (unsigned char)(1u << bit % 8);
			}
			return 0;
		}
		t++;
	}
}

int
program_line_match(const struct program_line *pl, const char *line,
    size_t len, struct program_capture *caps)
{
	struct program_line_state	 st;
	size_t				 skips = 0, i, bits;
	int				 r;

	while (len > 0 && program_line_blank(*line)) {
		line++;
		len--;
	}
	while (len > 0 && (program_line_blank(line[len - 1]) ||
	    line[len - 1] == '\n'))
		len--;
	if (len > PROGRAM_MAX_LINE)
		return 0;
	for (i = 0; i < pl->nr_tokens; i++)
		skips += pl->tokens[i].kind == PROGRAM_TOKEN_SKIP;
	memset(&st, 0, sizeof st);
	st.pl = pl;
	st.s = line;
	st.len = len;
	st.caps = caps;
	if (skips > 1) {
		bits = (pl->nr_tokens + 1) * (len + 1);
		st.failed = xcalloc(bits / 8 + 1, 1);
	}
	r = program_line_from(&st, 0, 0);
	free(st.failed);
	return r;
}
