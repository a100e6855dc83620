/*
 * Report mails as RFC 5322 text: every header value is sanitised, then
 * plain ASCII or RFC 2047 encoded-words; addresses are parsed and rebuilt;
 * the body is the text report, its prose wrapped at 72 columns. The rules
 * are in docs/design.md, "File notes".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bisectd/mail.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/xalloc.h"

#define MAIL_ENCODED_CHUNK	39	/* raw bytes per encoded-word */
#define MAIL_MAX_TAG		40	/* longest "tag:" put in a subject */

/* The length of the valid UTF-8 sequence at s (1-4), or 0; *cp its value. */
static size_t
mail_utf8(const unsigned char *s, size_t len, unsigned *cp)
{
	unsigned	c, min;
	size_t		n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		c = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		c = s[0] & 0x0f;
		min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		c = s[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	if (n > len)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Columns of a UTF-8 string: one per code point. */
static size_t
mail_width(const char *s, size_t len)
{
	size_t	i, w = 0;

	for (i = 0; i < len; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
	}
	return w;
}

char *
mail_sanitize(const char *s, int header)
{
	const unsigned char	*p = (const unsigned char *)s;
	struct strbuf		 sb = STRBUF_INIT;
	size_t			 len = strlen(s), i = 0, n;
	unsigned		 cp;

	while (i < len) {
		if ((n = mail_utf8(p + i, len - i, &cp)) == 0) {
			strbuf_addstr(&sb, "\xef\xbf\xbd");
			i++;
			continue;
		}
		if (!header && (cp == '\n' || cp == '\t'))
			strbuf_addch(&sb, (int)cp);
		else if (!header && cp == '\r' && i + 1 < len && p[i + 1] == '\n')
			;
		else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
		    cp == 0x2028 || cp == 0x2029)
			strbuf_addch(&sb, ' ');
		else
			strbuf_add(&sb, p + i, n);
		i += n;
	}
	if (header) {
		char	*in = strbuf_detach(&sb, NULL), *q;
		int	 space = 0;

		for (q = in; *q == ' '; q++)
			;
		for (; *q != '\0'; q++) {
			if (*q == ' ') {
				space = 1;
				continue;
			}
			if (space)
				strbuf_addch(&sb, ' ');
			space = 0;
			strbuf_addch(&sb, *q);
		}
		free(in);
	}
	return strbuf_detach(&sb, NULL);
}

static int
mail_atext(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || strchr("!#$%&'*+-/=?^_`{|}~", c) != NULL;
}

static int
mail_printable_ascii(const char *s)
{
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return 0;
	}
	return 1;
}

/* dot-atom "@" domain, in printable ASCII, at most 254 octets. */
static int
mail_addr_valid(const char *s)
{
	const char	*at = strrchr(s, '@'), *p;
	int		 label = 0;

	if (at == NULL || at == s || strlen(s) > 254)
		return 0;
	for (p = s; p < at; p++) {
		if (*p == '.') {
			if (p == s || p[-1] == '.' || p + 1 == at)
				return 0;
		} else if (!mail_atext(*p))
			return 0;
	}
	for (p = at + 1; *p != '\0'; p++) {
		if (*p == '.') {
			if (label == 0)
				return 0;
			label = 0;
		} else if ((*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '-')
			label++;
		else
			return 0;
	}
	return label > 0;
}

int
mail_address_parse(const char *s, struct mail_address *out, char **cause)
{
	const char	*lt, *gt, *end;
	char		*name = NULL, *addr = NULL, *q;
	size_t		 len;
	int		 r = -1;

	memset(out, 0, sizeof *out);
	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if ((lt = memchr(s, '<', (size_t)(end - s))) != NULL) {
		if ((gt = memchr(lt, '>', (size_t)(end - lt))) == NULL ||
		    gt + 1 != end)
			goto bad;
		addr = xstrndup(lt + 1, (size_t)(gt - lt - 1));
		len = (size_t)(lt - s);
		while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
			name = xstrndup(s + 1, len - 2);
			for (q = name; *q != '\0'; q++) {
				if (*q == '\\' && q[1] != '\0')
					memmove(q, q + 1, strlen(q));
			}
		} else if (len > 0)
			name = xstrndup(s, len);
	} else
		addr = xstrndup(s, (size_t)(end - s));
	if (!mail_addr_valid(addr))
		goto bad;
	out->name = name;
	out->addr = addr;
	name = addr = NULL;
	r = 0;
	goto out;
bad:
	error_set(cause, "'%s' is not a mail address (Name <user@domain>)", s);
out:
	free(name);
	free(addr);
	return r;
}

void
mail_address_release(struct mail_address *a)
{
	if (a == NULL)
		return;
	free(a->name);
	free(a->addr);
	a->name = a->addr = NULL;
}

char *
mail_domain(const struct config_mail *cm)
{
	struct mail_address	 a;
	char			*d;

	if (cm == NULL || cm->from == NULL ||
	    mail_address_parse(cm->from, &a, NULL) != 0)
		return xstrdup("localhost");
	d = xstrdup(strrchr(a.addr, '@') + 1);
	mail_address_release(&a);
	return d;
}

char *
mail_message_id(const char *identity, const char *commit, const char *domain)
{
	char	hex[HASH_HEX_LEN + 1], c[13];
	size_t	i;

	hash_sha256_hex(identity, strlen(identity), hex);
	for (i = 0; i < 12 && commit[i] != '\0'; i++) {
		c[i] = (commit[i] >= '0' && commit[i] <= '9') ||
		    (commit[i] >= 'a' && commit[i] <= 'f') ? commit[i] : 'x';
	}
	c[i] = '\0';
	return xasprintf("bisectd-%s-%.20s@%s", c, hex, domain);
}

char *
mail_subject(const char *headline, const char *commit_subject)
{
	const char	*colon;
	size_t		 len;

	if (commit_subject != NULL &&
	    (colon = strstr(commit_subject, ": ")) != NULL &&
	    (len = (size_t)(colon - commit_subject)) > 0 &&
	    len <= MAIL_MAX_TAG &&
	    memchr(commit_subject, '"', len) == NULL &&
	    strncmp(commit_subject, "Revert", 6) != 0 &&
	    strncmp(commit_subject, "Merge", 5) != 0)
		return xasprintf("[bisectd] [%.*s] %s", (int)len,
		    commit_subject, headline);
	return xasprintf("[bisectd] %s", headline);
}

static void
mail_base64(struct strbuf *sb, const unsigned char *p, size_t len)
{
	static const char	 tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "abcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned		 v;
	size_t			 i;

	for (i = 0; i + 2 < len; i += 3) {
		v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
		strbuf_addch(sb, tab[v >> 18]);
		strbuf_addch(sb, tab[(v >> 12) & 63]);
		strbuf_addch(sb, tab[(v >> 6) & 63]);
		strbuf_addch(sb, tab[v & 63]);
	}
	if (len - i == 1) {
		v = (unsigned)p[i] << 16;
		strbuf_addch(sb, tab[v >> 18]);
		strbuf_addch(sb, tab[(v >> 12) & 63]);
		strbuf_addstr(sb, "==");
	} else if (len - i == 2) {
		v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;
		strbuf_addch(sb, tab[v >> 18]);
		strbuf_addch(sb, tab[(v >> 12) & 63]);
		strbuf_addch(sb, tab[(v >> 6) & 63]);
		strbuf_addch(sb, '=');
	}
}

/*
 * Words a header value may be folded between. Folding only ever replaces
 * the single space between two words by CRLF and that space.
 */
struct mail_words {
	char	**v;
	size_t	  nr;
	size_t	  alloc;
};

static void
mail_words_add(struct mail_words *w, char *word)
{
	ALLOC_GROW(w->v, w->nr, w->alloc);
	w->v[w->nr++] = word;
}

static void
mail_words_release(struct mail_words *w)
{
	size_t	i;

	for (i = 0; i < w->nr; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof *w);
}

/* Clean (sanitized) UTF-8 as RFC 2047 B encoded-words, cut between chars. */
static void
mail_words_encoded(struct mail_words *w, const char *clean)
{
	const unsigned char	*p = (const unsigned char *)clean;
	struct strbuf		 sb = STRBUF_INIT;
	size_t			 len = strlen(clean), i = 0, n, take;
	unsigned		 cp;

	while (i < len) {
		take = 0;
		while (i + take < len) {
			n = mail_utf8(p + i + take, len - i - take, &cp);
			if (n == 0)
				n = 1;
			if (take + n > MAIL_ENCODED_CHUNK)
				break;
			take += n;
		}
		strbuf_addstr(&sb, "=?UTF-8?B?");
		mail_base64(&sb, p + i, take);
		strbuf_addstr(&sb, "?=");
		mail_words_add(w, strbuf_detach(&sb, NULL));
		i += take;
	}
}

/* The longest run of non-spaces. */
static size_t
mail_longest_word(const char *s)
{
	size_t	run = 0, max = 0;

	for (; *s != '\0'; s++) {
		run = *s == ' ' ? 0 : run + 1;
		if (run > max)
			max = run;
	}
	return max;
}

/*
 * Plain words when the text is printable ASCII, else encoded-words, which
 * are also how a word too long to fold within 998 octets is cut.
 */
static void
mail_words_text(struct mail_words *w, const char *clean)
{
	const char	*p = clean, *sp;

	if (!mail_printable_ascii(clean) || strstr(clean, "=?") != NULL ||
	    mail_longest_word(clean) > MAIL_FOLD * 2) {
		mail_words_encoded(w, clean);
		return;
	}
	while (*p != '\0') {
		if ((sp = strchr(p, ' ')) == NULL)
			sp = p + strlen(p);
		if (sp > p)
			mail_words_add(w, xstrndup(p, (size_t)(sp - p)));
		p = *sp == ' ' ? sp + 1 : sp;
	}
}

static void
mail_fold(struct strbuf *sb, const char *name, const struct mail_words *w)
{
	size_t	i, col, len;

	strbuf_addf(sb, "%s:", name);
	col = strlen(name) + 1;
	for (i = 0; i < w->nr; i++) {
		len = strlen(w->v[i]);
		if (i > 0 && col + 1 + len > MAIL_FOLD) {
			strbuf_addstr(sb, "\r\n");
			col = 0;
		}
		strbuf_addch(sb, ' ');
		strbuf_addstr(sb, w->v[i]);
		col += 1 + len;
	}
	strbuf_addstr(sb, "\r\n");
}

void
mail_header_text(struct strbuf *sb, const char *name, const char *value)
{
	struct mail_words	 w = { NULL, 0, 0 };
	char			*clean = mail_sanitize(value, 1);

	mail_words_text(&w, clean);
	mail_fold(sb, name, &w);
	mail_words_release(&w);
	free(clean);
}

/* A display name: atoms as they are, else a quoted-string or encoded. */
static void
mail_words_phrase(struct mail_words *w, const char *name)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		*clean = mail_sanitize(name, 1);
	const char	*p;
	int		 atoms = 1;

	for (p = clean; *p != '\0'; p++) {
		if (*p != ' ' && !mail_atext(*p))
			atoms = 0;
	}
	if (*clean == '\0')
		;
	else if (!mail_printable_ascii(clean) || strstr(clean, "=?") != NULL)
		mail_words_encoded(w, clean);
	else if (atoms)
		mail_words_text(w, clean);
	else {
		strbuf_addch(&sb, '"');
		for (p = clean; *p != '\0'; p++) {
			if (*p == '"' || *p == '\\')
				strbuf_addch(&sb, '\\');
			strbuf_addch(&sb, *p);
		}
		strbuf_addch(&sb, '"');
		mail_words_add(w, strbuf_detach(&sb, NULL));
	}
	free(clean);
}

void
mail_header_addresses(struct strbuf *sb, const char *name,
    const struct mail_address *v, size_t nr)
{
	struct mail_words	 w = { NULL, 0, 0 };
	size_t			 i, before;

	for (i = 0; i < nr; i++) {
		before = w.nr;
		if (v[i].name != NULL)
			mail_words_phrase(&w, v[i].name);
		if (w.nr > before)
			mail_words_add(&w, xasprintf("<%s>%s", v[i].addr,
			    i + 1 < nr ? "," : ""));
		else
			mail_words_add(&w, xasprintf("%s%s", v[i].addr,
			    i + 1 < nr ? "," : ""));
	}
	mail_fold(sb, name, &w);
	mail_words_release(&w);
}

int
mail_line_fixed(const char *line, size_t len)
{
	static const char	*starts[] = {
		"#", "git ", "- ", "* ", "> ", "$ ", "| ", "---", "==="
	};
	size_t			 i, n;

	if (len == 0 || line[0] == ' ' || line[0] == '\t' ||
	    memchr(line, '\t', len) != NULL || memmem(line, len, "  ", 2))
		return 1;
	for (i = 0; i < sizeof starts / sizeof starts[0]; i++) {
		n = strlen(starts[i]);
		if (len >= n && memcmp(line, starts[i], n) == 0)
			return 1;
	}
	/* "key: value" and "key:", as in the job file and the headers */
	for (i = 0; i < len && (mail_atext(line[i]) || line[i] == '.') &&
	    line[i] != '#'; i++)
		;
	return i > 0 && i < len && line[i] == ':' &&
	    (i + 1 == len || line[i + 1] == ' ');
}

/* One line of the body; longer than 998 octets it is cut between chars. */
static void
mail_body_line(struct strbuf *sb, const char *line, size_t len)
{
	size_t	cut;

	while (len > MAIL_MAX_LINE) {
		cut = MAIL_MAX_LINE;
		while (cut > 0 && ((unsigned char)line[cut] & 0xc0) == 0x80)
			cut--;
		strbuf_add(sb, line, cut);
		strbuf_addstr(sb, "\r\n");
		line += cut;
		len -= cut;
	}
	strbuf_add(sb, line, len);
	strbuf_addstr(sb, "\r\n");
}

/* A prose line, wrapped greedily at spaces; a longer word stays whole. */
static void
mail_body_wrap(struct strbuf *sb, const char *line, size_t len)
{
	const char	*end = line + len, *word, *start = line;
	size_t		 col = 0, w;

	while (line < end) {
		word = line;
		while (line < end && *line != ' ')
			line++;
		w = mail_width(word, (size_t)(line - word));
		if (col > 0 && col + 1 + w > MAIL_WIDTH) {
			mail_body_line(sb, start, (size_t)(word - 1 - start));
			start = word;
			col = 0;
		}
		col += (col > 0 ? 1 : 0) + w;
		while (line < end && *line == ' ')
			line++;
	}
	if (line > start)
		mail_body_line(sb, start, (size_t)(end - start));
}

void
mail_body(struct strbuf *sb, const char *text)
{
	char		*clean = mail_sanitize(text, 0);
	const char	*p = clean, *nl;
	size_t		 len;

	while (*p != '\0') {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (mail_line_fixed(p, len) || mail_width(p, len) <= MAIL_WIDTH)
			mail_body_line(sb, p, len);
		else
			mail_body_wrap(sb, p, len);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	free(clean);
}

void
mail_date(struct strbuf *sb, time_t t)
{
	static const char	*days[] = {
		"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"
	};
	static const char	*months[] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
		"Oct", "Nov", "Dec"
	};
	struct tm		 tm;

	gmtime_r(&t, &tm);
	strbuf_addf(sb, "%s, %d %s %04d %02d:%02d:%02d +0000",
	    days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
	    tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* What may stand between the angle brackets of a Message-ID we made. */
static int
mail_msgid_valid(const char *s)
{
	const char	*at = strchr(s, '@');

	if (at == NULL || at == s || at[1] == '\0' || strlen(s) > 200)
		return 0;
	for (; *s != '\0'; s++) {
		if (*s != '@' && *s != '.' && !mail_atext(*s))
			return 0;
	}
	return 1;
}

struct mail_list {
	struct mail_address	*v;
	size_t			 nr;
	size_t			 alloc;
};

static int
mail_list_has(const struct mail_list *l, const char *addr)
{
	size_t	i;

	for (i = 0; i < l->nr; i++) {
		if (strcasecmp(l->v[i].addr, addr) == 0)
			return 1;
	}
	return 0;
}

/* Add an address unless one of the lists has it already. */
static int
mail_list_add(struct mail_list *l, const struct mail_list *other,
    const char *text, int lenient, char **cause)
{
	struct mail_address	a;

	if (mail_address_parse(text, &a, lenient ? NULL : cause) != 0)
		return lenient ? 0 : -1;
	if (mail_list_has(l, a.addr) || (other != NULL &&
	    mail_list_has(other, a.addr))) {
		mail_address_release(&a);
		return 0;
	}
	ALLOC_GROW(l->v, l->nr, l->alloc);
	l->v[l->nr++] = a;
	return 0;
}

static void
mail_list_release(struct mail_list *l)
{
	size_t	i;

	for (i = 0; i < l->nr; i++)
		mail_address_release(&l->v[i]);
	free(l->v);
}

int
mail_format(const struct mail_spec *spec, char **message, char **sender,
    char **recipients, char **cause)
{
	const struct config_mail	*cm = spec->config;
	struct mail_list		 from = { NULL, 0, 0 };
	struct mail_list		 to = { NULL, 0, 0 };
	struct mail_list		 cc = { NULL, 0, 0 };
	struct strbuf			 sb = STRBUF_INIT, rcpt = STRBUF_INIT;
	char				*subject = NULL, num[32];
	size_t				 i;
	int				 r = -1;

	if (cm == NULL || cm->from == NULL || cm->nr_to == 0) {
		error_set(cause, "no 'mail' settings (smtp, from, to) in the "
		    "config");
		goto out;
	}
	if (!mail_msgid_valid(spec->message_id) || (spec->in_reply_to != NULL &&
	    !mail_msgid_valid(spec->in_reply_to))) {
		error_set(cause, "bad Message-ID '%s'", spec->message_id);
		goto out;
	}
	if (mail_list_add(&from, NULL, cm->from, 0, cause) != 0) {
		error_prefix(cause, "mail 'from'");
		goto out;
	}
	for (i = 0; i < cm->nr_to; i++) {
		if (mail_list_add(&to, NULL, cm->to[i], 0, cause) != 0) {
			error_prefix(cause, "mail 'to'");
			goto out;
		}
	}
	for (i = 0; i < cm->nr_cc; i++) {
		if (mail_list_add(&cc, &to, cm->cc[i], 0, cause) != 0) {
			error_prefix(cause, "mail 'cc'");
			goto out;
		}
	}
	/* a commit's author with an unusable address is left out */
	if (cm->author && spec->author != NULL)
		mail_list_add(&cc, &to, spec->author, 1, NULL);

	strbuf_addstr(&sb, "Date: ");
	mail_date(&sb, spec->date);
	strbuf_addstr(&sb, "\r\n");
	mail_header_addresses(&sb, "From", from.v, 1);
	mail_header_addresses(&sb, "To", to.v, to.nr);
	if (cc.nr > 0)
		mail_header_addresses(&sb, "Cc", cc.v, cc.nr);
	subject = spec->subject != NULL ? xstrdup(spec->subject) :
	    mail_subject(spec->headline, spec->commit_subject);
	mail_header_text(&sb, "Subject", subject);
	strbuf_addf(&sb, "Message-ID: <%s>\r\n", spec->message_id);
	if (spec->in_reply_to != NULL)
		strbuf_addf(&sb, "In-Reply-To: <%s>\r\nReferences: <%s>\r\n",
		    spec->in_reply_to, spec->in_reply_to);
	strbuf_addstr(&sb, "MIME-Version: 1.0\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Transfer-Encoding: 8bit\r\n"
	    "Auto-Submitted: auto-generated\r\n");
	snprintf(num, sizeof num, "%lld", spec->bisection);
	mail_header_text(&sb, "X-Bisectd-Bisection", num);
	if (spec->commit != NULL)
		mail_header_text(&sb, "X-Bisectd-Commit", spec->commit);
	strbuf_addstr(&sb, "\r\n");
	mail_body(&sb, spec->body);

	for (i = 0; i < to.nr; i++)
		strbuf_addf(&rcpt, "%s\n", to.v[i].addr);
	for (i = 0; i < cc.nr; i++)
		strbuf_addf(&rcpt, "%s\n", cc.v[i].addr);
	*message = strbuf_detach(&sb, NULL);
	*sender = xstrdup(from.v[0].addr);
	*recipients = strbuf_detach(&rcpt, NULL);
	r = 0;
out:
	free(subject);
	mail_list_release(&from);
	mail_list_release(&to);
	mail_list_release(&cc);
	strbuf_release(&sb);
	strbuf_release(&rcpt);
	return r;
}

/* A paragraph of prose, wrapped at MAIL_WIDTH (mail.h). */
void
mail_para(struct strbuf *sb, const char *fmt, ...)
{
	va_list		 ap;
	char		*text;
	const char	*p, *word, *start;
	size_t		 col = 0, w;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (text == NULL)
		return;
	for (p = start = text; *p != '\0';) {
		word = p;
		for (w = 0; *p != '\0' && *p != ' '; p++)
			w += ((unsigned char)*p & 0xc0) != 0x80;
		if (col > 0 && col + 1 + w > MAIL_WIDTH) {
			strbuf_add(sb, start, (size_t)(word - 1 - start));
			strbuf_addch(sb, '\n');
			start = word;
			col = 0;
		}
		col += (col > 0) + w;
		while (*p == ' ')
			p++;
	}
	strbuf_addstr(sb, start);
	strbuf_addstr(sb, "\n\n");
	free(text);
}
