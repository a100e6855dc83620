/*
 * libFuzzer target for report mails: arbitrary bytes, split at NUL bytes
 * into a commit subject, an author, a headline and a body, must give a
 * message whose header block is printable ASCII in CRLF lines of at most
 * 998 octets, with no header but bisectd's own (nothing injected), and
 * whose body lines are CRLF-ended and at most 998 octets. mail.c is
 * compiled in here: the fuzz build links util/, jobs/, stats/ and agents/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bisectd/mail.c"

static const char	*fuzz_headers[] = {
	"Date:", "From:", "To:", "Cc:", "Subject:", "Message-ID:",
	"In-Reply-To:", "References:", "MIME-Version:", "Content-Type:",
	"Content-Transfer-Encoding:", "Auto-Submitted:", "X-Bisectd-Bisection:",
	"X-Bisectd-Commit:"
};

static void
fuzz_check(const char *m)
{
	const char	*p = m, *nl;
	size_t		 i;
	int		 in_headers = 1, known;

	while (*p != '\0') {
		if ((nl = strstr(p, "\r\n")) == NULL ||
		    (size_t)(nl - p) > MAIL_MAX_LINE)
			abort();
		if (memchr(p, '\n', (size_t)(nl - p)) != NULL ||
		    memchr(p, '\r', (size_t)(nl - p)) != NULL)
			abort();
		if (nl == p)
			in_headers = 0;
		else if (in_headers && *p != ' ') {
			known = 0;
			for (i = 0; i < sizeof fuzz_headers /
			    sizeof fuzz_headers[0]; i++) {
				if (strncmp(p, fuzz_headers[i],
				    strlen(fuzz_headers[i])) == 0)
					known = 1;
			}
			if (!known)
				abort();
		}
		for (; in_headers && p < nl; p++) {
			if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
				abort();
		}
		p = nl + 2;
	}
	if (in_headers)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_mail	 cm;
	struct mail_spec	 spec;
	char			*to[] = { "perf@example.org" };
	char			*buf = malloc(size + 4), *part[4], *p;
	char			*msg = NULL, *sender = NULL, *rcpt = NULL;
	size_t			 i;

	memcpy(buf, data, size);
	memset(buf + size, 0, 4);
	for (i = 0, p = buf; i < 4; i++) {
		part[i] = p;
		p += strlen(p);
		if (p < buf + size)
			p++;
	}
	memset(&cm, 0, sizeof cm);
	cm.smtp = "smtp://127.0.0.1:25";
	cm.from = "bisectd <bisectd@example.org>";
	cm.to = to;
	cm.nr_to = 1;
	cm.author = 1;
	memset(&spec, 0, sizeof spec);
	spec.config = &cm;
	spec.commit_subject = part[0];
	spec.author = part[1];
	spec.headline = part[2];
	spec.body = part[3];
	spec.commit = "8d59d2214c0123456789abcdef0123456789abcd";
	spec.message_id = "bisectd-8d59d2214c01-aa@example.org";
	spec.bisection = 1;
	spec.date = 0;
	if (mail_format(&spec, &msg, &sender, &rcpt, NULL) != 0)
		abort();
	fuzz_check(msg);
	if (strchr(rcpt, '\r') != NULL || strncmp(rcpt, "perf@example.org\n",
	    17) != 0)
		abort();
	free(msg);
	free(sender);
	free(rcpt);
	free(buf);
	return 0;
}
