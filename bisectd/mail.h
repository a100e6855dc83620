/*
 * Report mails as RFC 5322 text: headers that nothing from a commit or a
 * job can break out of (control characters become spaces, non-ASCII is
 * RFC 2047-encoded), a stable Message-ID, threading headers, and a UTF-8
 * body wrapped at 72 columns except where the report is laid out by column
 * (tables, the bisection log, the job file). Pure functions: no I/O.
 * Delivery is bisectd/outbox.c.
 */
#ifndef BISECTD_MAIL_H
#define BISECTD_MAIL_H

#include <stddef.h>
#include <time.h>

#include "jobs/config.h"
#include "util/strbuf.h"

#define MAIL_WIDTH	72	/* body text columns */
#define MAIL_FOLD	78	/* header line length to fold at */
#define MAIL_MAX_LINE	998	/* RFC 5322's hard limit, in octets */

struct mail_address {
	char	*name;		/* display name, UTF-8; NULL */
	char	*addr;		/* addr-spec, checked: ASCII, no specials */
};

/* What a report mail is made of; all text is UTF-8 from anywhere. */
struct mail_spec {
	const struct config_mail	*config;
	const char			*headline;
	const char			*subject;	/* NULL: from headline */
	const char			*body;		/* the text report */
	const char			*commit;	/* culprit, 40 hex */
	const char			*commit_subject;
	const char			*author;	/* "Name <email>"; NULL */
	long long			 bisection;
	const char			*message_id;	/* no brackets */
	const char			*in_reply_to;	/* NULL: starts a thread */
	time_t				 date;
};

/*
 * Parse "Name <addr>", "\"Name\" <addr>", "<addr>" or "addr". The
 * addr-spec must be dot-atom@domain in printable ASCII: anything that could
 * end a header or add a recipient is refused.
 */
int	 mail_address_parse(const char *, struct mail_address *out,
	     char **cause);
void	 mail_address_release(struct mail_address *);
/* The domain of the config's From address, or "localhost". */
char	*mail_domain(const struct config_mail *);
/*
 * A Message-ID (without brackets) that is the same whenever the same
 * report is mailed again: a hash of identity, so a resend is recognizably
 * the same message.
 */
char	*mail_message_id(const char *identity, const char *commit,
	     const char *domain);
/* "[bisectd] [tag] HEADLINE", tag being the commit subject's "tag:". */
char	*mail_subject(const char *headline, const char *commit_subject);
/* The text with invalid UTF-8 and control characters made harmless. */
char	*mail_sanitize(const char *, int header);
/* A header field, sanitized, RFC 2047-encoded when not ASCII, folded. */
void	 mail_header_text(struct strbuf *, const char *name,
	     const char *value);
void	 mail_header_addresses(struct strbuf *, const char *name,
	     const struct mail_address *, size_t nr);
/* 1 when a body line keeps its layout: tables, logs, key: value, code. */
int	 mail_line_fixed(const char *line, size_t len);
/*
 * A paragraph of prose: formatted, then wrapped at MAIL_WIDTH columns at
 * spaces (a longer word stays whole), so that a report reads the same on
 * a terminal as in the mail, whose wrapping then leaves it alone; a blank
 * line after it.
 */
void	 mail_para(struct strbuf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* The body: sanitized, prose wrapped at MAIL_WIDTH, CRLF line ends. */
void	 mail_body(struct strbuf *, const char *text);
void	 mail_date(struct strbuf *, time_t);
/*
 * The whole message, CRLF line ends, with the envelope: the sender's
 * addr-spec and the recipients, one a line (To, Cc, and the author when
 * the config asks for it and the address is valid), without duplicates.
 */
int	 mail_format(const struct mail_spec *, char **message, char **sender,
	     char **recipients, char **cause);

#endif
