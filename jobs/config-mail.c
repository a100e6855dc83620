/*
 * The mail: section of bisectd.yaml (docs/config.md): the SMTP server's
 * URL, the sender, the recipients and what the reports' tags say.
 */
#include <string.h>

#include "jobs/config-internal.h"

/* smtp://HOST[:PORT] or smtps://..., as libcurl will be given it. */
static int
config_mail_smtp_url(const struct config_ctx *ctx, const struct yamlnode *n,
    char **out, char **cause)
{
	const char	*host, *p;

	if (config_string(ctx, "smtp", n, out, cause) != 0)
		return -1;
	if (strncmp(*out, "smtp://", 7) == 0)
		host = *out + 7;
	else if (strncmp(*out, "smtps://", 8) == 0)
		host = *out + 8;
	else
		return yamlnode_error(cause, ctx->file, n, "'smtp' must be an "
		    "smtp:// or smtps:// URL, not '%s'", *out);
	if (*host == '\0' || *host == ':' || *host == '/')
		return yamlnode_error(cause, ctx->file, n, "'smtp' URL '%s' "
		    "names no host", *out);
	for (p = host; *p != '\0'; p++) {
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return yamlnode_error(cause, ctx->file, n, "'smtp' URL "
			    "must not hold spaces or control characters");
	}
	return 0;
}

int
config_mail(const struct config_ctx *ctx, const struct yamlnode *n,
    struct config_mail *mail, char **cause)
{
	const struct yamlnode	*key, *value;
	size_t			 i;
	int			 r = 0;

	if (config_map(ctx, "mail", n, cause) != 0)
		return -1;
	for (i = 0; r == 0 && i < n->nr; i += 2) {
		key = n->items[i];
		value = n->items[i + 1];
		if (strcmp(key->value, "smtp") == 0)
			r = config_mail_smtp_url(ctx, value, &mail->smtp,
			    cause);
		else if (strcmp(key->value, "from") == 0)
			r = config_string(ctx, "from", value, &mail->from,
			    cause);
		else if (strcmp(key->value, "to") == 0)
			r = config_list(ctx, "to", value, &mail->to,
			    &mail->nr_to, cause);
		else if (strcmp(key->value, "cc") == 0)
			r = config_list(ctx, "cc", value, &mail->cc,
			    &mail->nr_cc, cause);
		else if (strcmp(key->value, "author") == 0)
			r = config_bool(ctx, "author", value, &mail->author,
			    cause);
		else if (strcmp(key->value, "reported_by") == 0)
			r = config_string(ctx, "reported_by", value,
			    &mail->reported_by, cause);
		else if (strcmp(key->value, "closes") == 0)
			r = config_url(ctx, "closes", value, &mail->closes,
			    cause);
		else
			r = config_unknown(ctx, "mail", key,
			    "smtp, from, to, cc, author, reported_by, closes",
			    cause);
	}
	if (r != 0)
		return -1;
	if (mail->smtp == NULL)
		return yamlnode_error(cause, ctx->file, n,
		    "'mail' has no 'smtp'");
	if (mail->from == NULL)
		return yamlnode_error(cause, ctx->file, n,
		    "'mail' has no 'from'");
	if (mail->nr_to == 0)
		return yamlnode_error(cause, ctx->file, n,
		    "'mail' has no 'to'");
	return 0;
}

