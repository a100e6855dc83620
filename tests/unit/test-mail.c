/*
 * Unit tests for report mails (bisectd/mail.c) and their outbox
 * (schema/store-mail.c, bisectd/outbox.c): header encoding and folding,
 * wrapping at 72 columns with tables and logs left alone, addresses,
 * Message-ID stability, threading headers, header injection from commit
 * subjects, authors and job values, the outbox's state moves and backoff,
 * and a delivery refused for good by a (tiny, forked) SMTP server.
 */
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisectd/context.h"
#include "bisectd/mail.h"
#include "bisectd/outbox.h"
#include "jobs/config.h"
#include "schema/store.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char commit_oid[] = "8d59d2214c0123456789abcdef0123456789abcd";

/* Decode one "=?UTF-8?B?...?=" word; NULL when it is not one. */
static char *
b64_word(const char *w, size_t len)
{
	static const char	 tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "abcdefghijklmnopqrstuvwxyz0123456789+/";
	struct strbuf		 sb = STRBUF_INIT;
	const char		*p, *end;
	unsigned		 v = 0;
	int			 bits = 0;

	if (len < 12 || strncmp(w, "=?UTF-8?B?", 10) != 0 ||
	    strncmp(w + len - 2, "?=", 2) != 0)
		return NULL;
	end = w + len - 2;
	for (p = w + 10; p < end && *p != '='; p++) {
		const char	*c = strchr(tab, *p);

		if (c == NULL || *p == '\0') {
			strbuf_release(&sb);
			return NULL;
		}
		v = (v << 6) | (unsigned)(c - tab);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(&sb, (int)((v >> bits) & 0xff));
		}
	}
	return strbuf_detach(&sb, NULL);
}

/* A header's value as a mail reader shows it: unfolded and decoded. */
static char *
header_decode(const char *field)
{
	struct strbuf	 sb = STRBUF_INIT, un = STRBUF_INIT;
	const char	*p = strchr(field, ':'), *w, *e;
	char		*d;
	int		 prev_encoded = 0;

	for (p = p + 1; *p != '\0'; p++) {
		if (p[0] == '\r' && p[1] == '\n')
			p++;
		else
			strbuf_addch(&un, *p);
	}
	for (w = un.buf; *w == ' '; w++)
		;
	while (*w != '\0') {
		e = strchr(w, ' ');
		if (e == NULL)
			e = w + strlen(w);
		/* space between two encoded-words is not part of the text */
		if ((d = b64_word(w, (size_t)(e - w))) != NULL) {
			if (sb.len > 0 && !prev_encoded)
				strbuf_addch(&sb, ' ');
			strbuf_addstr(&sb, d);
			free(d);
			prev_encoded = 1;
		} else {
			if (sb.len > 0)
				strbuf_addch(&sb, ' ');
			strbuf_add(&sb, w, (size_t)(e - w));
			prev_encoded = 0;
		}
		w = *e == ' ' ? e + 1 : e;
	}
	strbuf_release(&un);
	return strbuf_detach(&sb, NULL);
}

/* Every physical line (CRLF-ended) fits; no bare CR or LF; ASCII only. */
static int
header_lines_ok(const char *h, size_t max)
{
	const char	*p = h, *nl;

	while (*p != '\0') {
		if ((nl = strstr(p, "\r\n")) == NULL)
			return 0;
		if ((size_t)(nl - p) > max)
			return 0;
		for (; p < nl; p++) {
			if (*p == '\r' || *p == '\n' ||
			    (unsigned char)*p > 0x7e || (unsigned char)*p < 0x20)
				return 0;
		}
		p = nl + 2;
	}
	return 1;
}

static void
test_sanitize(void)
{
	char	*s;

	s = mail_sanitize("mm\r\nBcc: victim@example.com\x01\x7f", 1);
	is_str(s, "mm Bcc: victim@example.com", "header: CR LF and controls "
	    "become one space, trimmed");
	free(s);
	s = mail_sanitize("a\xff" "b\xc3\xa9\xe2\x80\xa8" "c", 1);
	is_str(s, "a\xef\xbf\xbd" "b\xc3\xa9 c", "invalid UTF-8 becomes "
	    "U+FFFD, U+2028 a space");
	free(s);
	s = mail_sanitize("line\r\n\tx\ry\n", 0);
	is_str(s, "line\n\tx y\n", "body: CRLF to LF, bare CR a space, tabs "
	    "kept");
	free(s);
	s = mail_sanitize("\xc0\xaf\xed\xa0\x80", 1);
	ok(strstr(s, "\xc0") == NULL && strstr(s, "\xed\xa0") == NULL,
	    "overlong and surrogate encodings are replaced");
	free(s);
}

static void
test_headers(void)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		*d;
	const char	*longv = "commit 8d59d2214c: -3.0% "
			    "dbench.throughput-MB/sec regression with a long "
			    "tail of words that cannot fit on one header line";

	mail_header_text(&sb, "Subject", "[bisectd] commit 8d59d2214c: -3.0% "
	    "dbench.throughput-MB/sec");
	is_str(sb.buf, "Subject: [bisectd] commit 8d59d2214c: -3.0% "
	    "dbench.throughput-MB/sec\r\n", "ASCII subject as is");
	strbuf_reset(&sb);

	mail_header_text(&sb, "Subject", longv);
	ok(header_lines_ok(sb.buf, MAIL_FOLD), "long subject folded at 78");
	ok(strstr(sb.buf, "\r\n ") != NULL, "with a continuation line");
	d = header_decode(sb.buf);
	is_str(d, longv, "unfolds to the same text");
	free(d);
	strbuf_reset(&sb);

	mail_header_text(&sb, "Subject", "[mm/sl\xc3\xbc" "b] commit "
	    "8d59d2214c: -3.0% dbench.throughput-MB/sec regression, "
	    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e too");
	ok(header_lines_ok(sb.buf, 76), "encoded subject: ASCII lines of "
	    "at most 76");
	ok(strstr(sb.buf, "=?UTF-8?B?") != NULL, "RFC 2047 B encoding");
	d = header_decode(sb.buf);
	is_str(d, "[mm/sl\xc3\xbc" "b] commit 8d59d2214c: -3.0% "
	    "dbench.throughput-MB/sec regression, "
	    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e too",
	    "decodes to the UTF-8 text, no character cut");
	free(d);
	strbuf_reset(&sb);

	mail_header_text(&sb, "Subject", "looks =?UTF-8?B?QmNjOg==?= encoded");
	ok(strncmp(sb.buf, "Subject: =?UTF-8?B?", 19) == 0,
	    "text that looks encoded is encoded, so it reads back as sent");
	strbuf_reset(&sb);

	{
		char	big[3001];

		memset(big, 'x', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		mail_header_text(&sb, "Subject", big);
		ok(header_lines_ok(sb.buf, 76), "a 3000-octet word is cut "
		    "into encoded-words");
		d = header_decode(sb.buf);
		is_str(d, big, "and reads back whole");
		free(d);
		strbuf_reset(&sb);
	}

	mail_date(&sb, 0);
	is_str(sb.buf, "Thu, 1 Jan 1970 00:00:00 +0000", "date at 0");
	strbuf_reset(&sb);
	mail_date(&sb, 1700000000);
	is_str(sb.buf, "Tue, 14 Nov 2023 22:13:20 +0000", "RFC 5322 date");
	strbuf_release(&sb);
}

static void
test_addresses(void)
{
	static const char	*bad[] = {
		"a@b.c\r\nBcc: x@y.z", "<a@b.c>>", "a b@c.d", "a@", "@b.c",
		"a@b..c", "Name <a@b.c>, x@y.z", "a@b.c, x@y.z", "<a@b.c",
		"x <a\"b@c.d>", "a@-b.c\n", "", "Name <>", "a@b.c d@e.f",
		"a..b@c.d", ".a@c.d"
	};
	struct mail_address	 a;
	struct strbuf		 sb = STRBUF_INIT;
	struct mail_address	 v[3];
	size_t			 i;
	char			*cause = NULL;

	is_int(mail_address_parse("A U Thor <author@example.com>", &a,
	    &cause), 0, "name and address");
	is_str(a.name, "A U Thor", "name");
	is_str(a.addr, "author@example.com", "addr");
	mail_address_release(&a);
	is_int(mail_address_parse("  \"Doe, John \\\"JD\\\"\" <j@d.org> ", &a,
	    &cause), 0, "quoted name");
	is_str(a.name, "Doe, John \"JD\"", "quoted name unquoted");
	mail_address_release(&a);
	is_int(mail_address_parse("perf-reports@example.org", &a, &cause), 0,
	    "bare address");
	ok(a.name == NULL, "no name");
	mail_address_release(&a);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ok(mail_address_parse(bad[i], &a, &cause) == -1 &&
		    cause != NULL, "refused: %zu", i);
		free(cause);
		cause = NULL;
	}

	v[0].name = "Doe, John";
	v[0].addr = "j@d.org";
	v[1].name = "J\xc3\xb6rg R\xc3\xb6" "del";
	v[1].addr = "joro@example.com";
	v[2].name = NULL;
	v[2].addr = "perf@example.org";
	mail_header_addresses(&sb, "Cc", v, 3);
	ok(header_lines_ok(sb.buf, MAIL_FOLD), "address header ASCII, folded");
	ok(strstr(sb.buf, "\"Doe, John\" <j@d.org>,") != NULL,
	    "a name with a comma is quoted");
	ok(strstr(sb.buf, "=?UTF-8?B?") != NULL &&
	    strstr(sb.buf, "<joro@example.com>,") != NULL,
	    "a non-ASCII name is encoded");
	ok(strstr(sb.buf, " perf@example.org\r\n") != NULL, "bare address");
	strbuf_release(&sb);
}

static void
test_wrap(void)
{
	struct strbuf	 sb = STRBUF_INIT, in = STRBUF_INIT, want = STRBUF_INIT;
	const char	*table = "     25692 \xc2\xb1  0%      -3.0%      24913 "
			    "\xc2\xb1  0%  dbench.throughput-MB/sec and more";
	const char	*logline = "# bad: [f7b5d647946aae1647bf5cd26aaaaaaaaaaa"
			    "aaaa] mm: a subject that is long enough (3 runs, "
			    "mean 1)";
	const char	*yaml = "run: ./bench --iterations 1000 --threads 64 "
			    "--size 4G --pattern random --output /tmp/x";
	const char	*p, *nl;
	size_t		 i, w, max = 0;
	int		 ok_long = 1;

	strbuf_addstr(&in, "The culprit explains 97% of the change between "
	    "good 0123456789ab and bad ba9876543210, with more words after "
	    "that to need a third line of text here.\n\n");
	strbuf_addf(&in, "%s\n%s\ngit bisect good "
	    "f7b5d647946aae1647bf5cd26aaaaaaaaaaaaaaa\n%s\n\tcmdline: %s\n",
	    table, logline, yaml, logline);
	strbuf_addstr(&in, "see https://example.org/a/very/long/url/that/"
	    "cannot/be/broken/anywhere/at/all/because/it/has/no/spaces/x "
	    "end\n");
	mail_body(&sb, in.buf);
	for (p = sb.buf; (nl = strstr(p, "\r\n")) != NULL; p = nl + 2) {
		w = 0;
		for (i = 0; p + i < nl; i++)
			w += ((unsigned char)p[i] & 0xc0) != 0x80;
		if (w > max && !mail_line_fixed(p, (size_t)(nl - p)) &&
		    memchr(p, ' ', (size_t)(nl - p)) != NULL)
			max = w;
		if ((size_t)(nl - p) > MAIL_MAX_LINE)
			ok_long = 0;
	}
	ok(max <= MAIL_WIDTH, "prose wrapped at 72 (widest %zu)", max);
	ok(ok_long, "no line over 998 octets");
	strbuf_addf(&want, "The culprit explains 97%% of the change between "
	    "good 0123456789ab and bad\r\nba9876543210, with more words "
	    "after that to need a third line of text\r\nhere.\r\n\r\n");
	if (!ok(strncmp(sb.buf, want.buf, want.len) == 0,
	    "greedy wrap at spaces"))
		diag("got:\n%s", sb.buf);
	strbuf_reset(&want);
	strbuf_addf(&want, "\r\n%s\r\n%s\r\ngit bisect good "
	    "f7b5d647946aae1647bf5cd26aaaaaaaaaaaaaaa\r\n%s\r\n", table,
	    logline, yaml);
	ok(strstr(sb.buf, want.buf) != NULL, "the table, the log and the "
	    "job file are left exactly as they are");
	ok(strstr(sb.buf, "\r\nsee\r\nhttps://example.org/a/very/long/url/") !=
	    NULL && strstr(sb.buf, "/x\r\nend\r\n") != NULL,
	    "a word longer than a line stands alone, whole");
	ok(strstr(sb.buf, "\r\n\r\n") != NULL && strstr(sb.buf, "\n\n") ==
	    NULL, "CRLF line ends only");

	strbuf_reset(&sb);
	strbuf_reset(&in);
	strbuf_addch(&in, '\t');
	for (i = 0; i < 700; i++)
		strbuf_addstr(&in, "\xc3\xa9");
	strbuf_addch(&in, '\n');
	mail_body(&sb, in.buf);
	p = strstr(sb.buf, "\r\n");
	ok(p != NULL && (size_t)(p - sb.buf) <= MAIL_MAX_LINE &&
	    (size_t)(p - sb.buf) % 2 == 1, "a 1401-octet line is cut under 998 "
	    "octets, between characters");

	ok(mail_line_fixed("metric: dbench.throughput-MB/sec", 32),
	    "key: value is fixed");
	ok(!mail_line_fixed("FYI, we noticed a regression: here", 35),
	    "prose is not");
	strbuf_release(&sb);
	strbuf_release(&in);
	strbuf_release(&want);
}

static void
test_ids(void)
{
	char	*a = mail_message_id("bisection\n1\nx", commit_oid,
		    "example.org");
	char	*b = mail_message_id("bisection\n1\nx", commit_oid,
		    "example.org");
	char	*c = mail_message_id("bisection\n2\nx", commit_oid,
		    "example.org");
	char	*s;

	is_str(a, b, "the same report gets the same Message-ID");
	ok(strcmp(a, c) != 0, "another report another one");
	ok(strncmp(a, "bisectd-8d59d2214c01-", 21) == 0 &&
	    strstr(a, "@example.org") != NULL, "names the commit and the "
	    "sender's domain: %s", a);
	free(a);
	free(b);
	free(c);

	s = mail_subject("commit 8d59d2214c: -3.0% x regression",
	    "mm: fix the thing");
	is_str(s, "[bisectd] [mm] commit 8d59d2214c: -3.0% x regression",
	    "subject with the commit's tag");
	free(s);
	s = mail_subject("H", "Revert \"mm: fix\"");
	is_str(s, "[bisectd] H", "no tag from a revert");
	free(s);
	s = mail_subject("H", "no tag here");
	is_str(s, "[bisectd] H", "no tag");
	free(s);
}

/* The header block of a message, up to the empty line. */
static char *
message_headers(const char *m)
{
	const char	*e = strstr(m, "\r\n\r\n");

	return e == NULL ? NULL : xstrndup(m, (size_t)(e - m) + 2);
}

/* 1 when a header line (not a continuation) starts with name. */
static int
has_header(const char *h, const char *name)
{
	const char	*p = h;
	size_t		 n = strlen(name);

	while (p != NULL && *p != '\0') {
		if (strncasecmp(p, name, n) == 0)
			return 1;
		p = strstr(p, "\r\n");
		if (p != NULL)
			p += 2;
	}
	return 0;
}

static void
test_format(void)
{
	struct config_mail	 cm;
	struct mail_spec	 spec;
	char			*to[] = { "perf-reports@example.org" };
	char			*cc[] = { "PERF-REPORTS@example.org",
				    "list@example.org" };
	char			*msg = NULL, *sender = NULL, *rcpt = NULL;
	char			*h, *cause = NULL, *subject, *field;
	const char		*s;

	memset(&cm, 0, sizeof cm);
	cm.smtp = "smtp://127.0.0.1:25";
	cm.from = "bisectd <bisectd@example.org>";
	cm.to = to;
	cm.nr_to = 1;
	cm.cc = cc;
	cm.nr_cc = 2;
	cm.author = 1;
	memset(&spec, 0, sizeof spec);
	spec.config = &cm;
	spec.headline = "commit 8d59d2214c: -3.0% dbench.throughput-MB/sec "
	    "regression\r\nX-Injected: from a job value";
	spec.body = "commit 8d59d2214c: -3.0% regression\n\nbody\n";
	spec.commit = commit_oid;
	spec.commit_subject = "mm\r\nBcc: victim@example.com: speed "
	    "up\rX-Injected: 1";
	spec.author = "Eve\r\nBcc: victim@example.com <eve@example.com>";
	spec.bisection = 7;
	spec.message_id = "bisectd-8d59d2214c01-aaaa@example.org";
	spec.in_reply_to = NULL;
	spec.date = 1700000000;
	is_int(mail_format(&spec, &msg, &sender, &rcpt, &cause), 0,
	    "a hostile message formats");
	h = message_headers(msg);
	ok(h != NULL && header_lines_ok(h, MAIL_MAX_LINE), "headers are "
	    "ASCII lines with CRLF only");
	ok(!has_header(h, "Bcc:") && !has_header(h, "X-Injected:"),
	    "no header injected by the commit subject, the author or the "
	    "headline");
	ok(strstr(h, "\r\nBcc") == NULL && strstr(h, "\nX-Injected") == NULL,
	    "no line starts with them either");
	s = strstr(h, "Subject:");
	field = s != NULL ? xstrndup(s, (size_t)(strstr(s, "\r\nMessage-ID") -
	    s)) : NULL;
	subject = field != NULL ? header_decode(field) : NULL;
	free(field);
	ok(subject != NULL && strstr(subject, "[bisectd] [mm Bcc] commit "
	    "8d59d2214c: -3.0% dbench.throughput-MB/sec regression "
	    "X-Injected: from a job value") == subject, "the subject keeps "
	    "the text, on one line: %s", subject != NULL ? subject : "");
	free(subject);
	is_str(sender, "bisectd@example.org", "envelope sender");
	is_str(rcpt, "perf-reports@example.org\nlist@example.org\n"
	    "eve@example.com\n", "recipients: To, then Cc without the "
	    "duplicate, then the author; never the address in a name");
	ok(strstr(h, "\"Eve Bcc: victim@example.com\" <eve@example.com>") !=
	    NULL, "the author's name is one quoted phrase");
	ok(strstr(h, "\r\nMessage-ID: <bisectd-8d59d2214c01-aaaa@example.org>"
	    "\r\n") != NULL, "Message-ID");
	ok(!has_header(h, "In-Reply-To:") && !has_header(h, "References:"),
	    "the first report about a commit starts a thread");
	ok(strstr(h, "\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; "
	    "charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n") != NULL,
	    "MIME headers");
	ok(strncmp(h, "Date: Tue, 14 Nov 2023 22:13:20 +0000\r\n", 39) == 0,
	    "Date first");
	ok(strstr(msg, "\r\n\r\ncommit 8d59d2214c: -3.0% regression\r\n\r\n"
	    "body\r\n") != NULL, "the body follows the empty line");
	free(h);
	free(msg);
	free(sender);
	free(rcpt);

	spec.author = "J\xc3\xb6rg R\xc3\xb6" "del <joro@example.com>";
	spec.in_reply_to = "bisectd-8d59d2214c01-root@example.org";
	is_int(mail_format(&spec, &msg, &sender, &rcpt, &cause), 0,
	    "a reply formats");
	h = message_headers(msg);
	ok(strstr(h, "\r\nIn-Reply-To: <bisectd-8d59d2214c01-root@example.org>"
	    "\r\nReferences: <bisectd-8d59d2214c01-root@example.org>\r\n") !=
	    NULL, "a later report threads under the first");
	is_str(rcpt, "perf-reports@example.org\nlist@example.org\n"
	    "joro@example.com\n", "the author is mailed when asked");
	ok(strstr(h, "<joro@example.com>") != NULL && header_lines_ok(h,
	    MAIL_MAX_LINE), "on Cc, the name encoded");
	free(h);
	free(msg);
	free(sender);
	free(rcpt);

	spec.in_reply_to = "x>\r\nBcc: a@b.c";
	ok(mail_format(&spec, &msg, &sender, &rcpt, &cause) == -1,
	    "a bad In-Reply-To is refused");
	free(cause);
	cause = NULL;
	spec.in_reply_to = NULL;
	cm.from = "bisectd\r\nBcc: x@y.z";
	ok(mail_format(&spec, &msg, &sender, &rcpt, &cause) == -1 &&
	    strstr(cause, "'from'") != NULL, "a bad From is refused: %s",
	    cause != NULL ? cause : "");
	free(cause);
}

static void
test_config(void)
{
	struct config	*cfg = NULL;
	char		*cause = NULL;
	const char	 text[] = "mail:\n  smtp: smtp://127.0.0.1:25\n"
			    "  from: a@b.c\n  to: [x@y.z]\n  cc: [c@d.e, f@g.h]\n"
			    "  author: true\n";

	is_int(config_parse("c.yaml", "/tmp", text, strlen(text), &cfg,
	    &cause), 0, "mail with cc and author parses");
	if (cfg != NULL) {
		is_int(cfg->mail.nr_cc, 2, "two cc");
		is_str(cfg->mail.cc[1], "f@g.h", "cc order");
		is_int(cfg->mail.author, 1, "author: true");
	}
	config_free(cfg);
}

/* A one-connection SMTP server that refuses every recipient. */
static pid_t
smtp_refuser(int *port)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	char			buf[1024];
	ssize_t			n;
	pid_t			pid;
	int			s, c;

	s = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&sin, sizeof sin) != 0 ||
	    listen(s, 1) != 0 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) != 0)
		return -1;
	*port = ntohs(sin.sin_port);
	if ((pid = fork()) != 0) {
		close(s);
		return pid;
	}
	alarm(20);
	if ((c = accept(s, NULL, NULL)) < 0)
		_exit(1);
	if (write(c, "220 refuser ESMTP\r\n", 19) < 0)
		_exit(1);
	while ((n = read(c, buf, sizeof buf - 1)) > 0) {
		const char	*reply;

		buf[n] = '\0';
		if (strncasecmp(buf, "EHLO", 4) == 0 ||
		    strncasecmp(buf, "HELO", 4) == 0 ||
		    strncasecmp(buf, "MAIL", 4) == 0 ||
		    strncasecmp(buf, "RSET", 4) == 0)
			reply = "250 ok\r\n";
		else if (strncasecmp(buf, "RCPT", 4) == 0)
			reply = "550 5.1.1 no such user\r\n";
		else if (strncasecmp(buf, "QUIT", 4) == 0) {
			if (write(c, "221 bye\r\n", 9) < 0)
				_exit(1);
			break;
		} else
			reply = "503 bad sequence\r\n";
		if (write(c, reply, strlen(reply)) < 0)
			_exit(1);
	}
	_exit(0);
}

static int
free_port(void)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	int			s = socket(AF_INET, SOCK_STREAM, 0), port = 0;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&sin, sizeof sin) == 0 &&
	    getsockname(s, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(s);
	return port;
}

static void
test_outbox(void)
{
	static char		 tmpl[] = "/tmp/bisectd-test-mail.XXXXXX";
	struct context		 ctx;
	struct store		*st = NULL;
	struct store_mail	 m;
	struct config_mail	*cm;
	char			*dir = mkdtemp(tmpl), *db, *cause = NULL;
	char			*root = NULL, *to[] = { "x@example.org" };
	int64_t			 req, job, id, id2, *ids = NULL, now;
	size_t			 nr = 0;
	int			 claimed, n, port, status;
	pid_t			 pid;

	is_int(outbox_backoff(1), 60, "first retry after a minute");
	is_int(outbox_backoff(2), 120, "then doubling");
	is_int(outbox_backoff(7), 3600, "up to an hour");
	is_int(outbox_backoff(OUTBOX_MAX_ATTEMPTS), 3600, "and no more");

	db = path_join(dir, "bisectd.db");
	if (store_open(db, &st, &cause) != 0) {
		ok(0, "store opens: %s", cause);
		return;
	}
	store_request_add(st, "bisect", "r", "job.yaml", "k", "{}", &req, NULL);
	store_job_add(st, "j1", "t", "t", "testcase: t\n", "t.m", "higher",
	    &job, NULL);
	store_bisection_add(st, req, job, "r", "g", "b", "t.m", "higher", NULL);
	is_int(store_mail_add(st, req, "m1@x", "r c1", "s@x", "x@example.org\n",
	    "Subject: a\r\n\r\nbody\r\n", &id, &cause), 0, "mail queued");
	is_int(store_mail_add(st, req, "m1@x", "r c1", "s@x", "x@x\n", "m",
	    &id2, NULL), -1, "the same Message-ID cannot be queued twice");
	is_int(store_mail_find(st, "m1@x", &m, &cause), 1, "found by id");
	is_str(store_mail_status_name(m.status), "queued", "queued");
	is_int(m.attempts, 0, "no attempt yet");
	store_mail_release(&m);
	store_mail_add(st, req, "m2@x", "r c1", "s@x", "x@example.org\n", "m",
	    &id2, NULL);
	is_int(store_mail_thread_root(st, "r c1", &root, &cause), 0, "root");
	is_str(root, "m1@x", "the first mail about a commit is the root");
	free(root);
	store_mail_thread_root(st, "r other", &root, NULL);
	ok(root == NULL, "a new commit has no root");

	now = time(NULL);
	store_mail_due(st, now, &ids, &nr, NULL);
	ok(nr == 2 && ids[0] == id, "both due, oldest first");
	free(ids);
	store_mail_claim(st, id, &claimed, NULL);
	is_int(claimed, 1, "claimed");
	store_mail_claim(st, id, &claimed, NULL);
	is_int(claimed, 0, "not twice");
	is_int(store_mail_recover(st, &n, NULL), 0, "recover");
	is_int(n, 1, "a mail left in 'sending' is queued again");
	store_mail_get(st, id, &m, NULL);
	ok(m.status == STORE_MAIL_QUEUED && m.attempts == 1 &&
	    m.last_error != NULL, "with its attempt counted and a reason");
	store_mail_release(&m);
	store_mail_claim(st, id, &claimed, NULL);
	store_mail_retry(st, id, "refused", now + 60, 0, NULL);
	store_mail_due(st, now, &ids, &nr, NULL);
	ok(nr == 1 && ids[0] == id2, "a retried mail waits for its time");
	free(ids);
	store_mail_due(st, now + 60, &ids, &nr, NULL);
	ok(nr == 2, "and is due then");
	free(ids);
	store_mail_requeue(st, id, NULL);
	store_mail_claim(st, id, &claimed, NULL);
	ok(claimed, "requeued: due now");
	is_int(store_mail_sent(st, id, &cause), 0, "sent");
	ok(store_mail_sent(st, id, NULL) == -1, "sent only once");
	store_mail_requeue(st, id, NULL);
	store_mail_get(st, id, &m, NULL);
	ok(m.status == STORE_MAIL_SENT && m.sent > 0 && m.attempts == 3,
	    "a sent mail cannot be queued again");
	store_mail_release(&m);

	/* deliveries through outbox_send, with a config of our own */
	memset(&ctx, 0, sizeof ctx);
	ctx.store = st;
	ctx.config = xcalloc(1, sizeof *ctx.config);
	cm = &ctx.config->mail;
	cm->from = "s@x.org";
	cm->to = to;
	cm->nr_to = 1;
	port = free_port();
	cm->smtp = xasprintf("smtp://127.0.0.1:%d", port);
	is_int(outbox_send(&ctx, id2, &cause), 1, "nothing listens: not sent");
	ok(cause != NULL && strstr(cause, "stays queued") != NULL,
	    "says it stays queued: %s", cause != NULL ? cause : "");
	free(cause);
	cause = NULL;
	store_mail_get(st, id2, &m, NULL);
	ok(m.status == STORE_MAIL_QUEUED && m.attempts == 1 &&
	    m.next_attempt >= now + 60, "queued with a backoff");
	store_mail_release(&m);
	free(cm->smtp);

	pid = smtp_refuser(&port);
	cm->smtp = xasprintf("smtp://127.0.0.1:%d", port);
	store_mail_requeue(st, id2, NULL);
	is_int(outbox_send(&ctx, id2, &cause), 1, "every recipient refused");
	ok(cause != NULL && strstr(cause, "550") != NULL &&
	    strstr(cause, "for good") != NULL, "a 5xx is final: %s",
	    cause != NULL ? cause : "");
	free(cause);
	cause = NULL;
	store_mail_get(st, id2, &m, NULL);
	is_str(store_mail_status_name(m.status), "failed", "the mail is failed, kept in the outbox");
	store_mail_release(&m);
	if (pid > 0)
		waitpid(pid, &status, 0);
	store_mail_requeue(st, id2, NULL);
	store_mail_get(st, id2, &m, NULL);
	ok(m.status == STORE_MAIL_QUEUED && m.attempts == 0,
	    "asked for again, a failed mail starts afresh");
	store_mail_release(&m);

	free(cm->smtp);
	free(ctx.config);
	store_close(st);
	dir_remove_tree(dir, NULL);
	free(db);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_sanitize();
	test_headers();
	test_addresses();
	test_wrap();
	test_ids();
	test_format();
	test_config();
	test_outbox();
	return tap_done();
}
