/*
 * Kernel configurations as text. A .config is lines of "CONFIG_X=VALUE"
 * and "# CONFIG_X is not set"; everything else is a comment. The job's
 * fragment is laid over the recipe's base by text, and `make olddefconfig`
 * in the build does the rest (dependencies, new symbols' defaults), as
 * the kernel's own scripts/kconfig/merge_config.sh does; kconfig_check then
 * reports what olddefconfig refused, as merge_config.sh warns.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/kconfig.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define KCONFIG_PARAM	"kconfig."

size_t
kconfig_line_symbol(const char *line, size_t len, const char **sym)
{
	const char	*p = line, *end = line + len;
	size_t		 n;

	if (len >= 2 && line[0] == '#' && line[1] == ' ')
		p = line + 2;
	if ((size_t)(end - p) < 8 || strncmp(p, "CONFIG_", 7) != 0)
		return 0;
	for (n = 7; p + n < end && (isalnum((unsigned char)p[n]) ||
	    p[n] == '_'); n++)
		;
	if (n == 7)
		return 0;
	if (p == line) {
		if (p + n >= end || p[n] != '=')
			return 0;
	} else if ((size_t)(end - p - n) != 11 ||
	    strncmp(p + n, " is not set", 11) != 0)
		return 0;
	*sym = p;
	return n;
}

static int
kconfig_is_number(const char *v)
{
	const char	*p = v;

	if (strncmp(p, "0x", 2) == 0 || strncmp(p, "0X", 2) == 0) {
		p += 2;
		if (*p == '\0')
			return 0;
		while (isxdigit((unsigned char)*p))
			p++;
		return *p == '\0';
	}
	if (*p == '-')
		p++;
	if (*p == '\0')
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == '\0';
}

static void
kconfig_add_value(struct strbuf *sb, const char *sym, const char *v)
{
	size_t	len = strlen(v);

	if (strcmp(v, "n") == 0) {
		strbuf_addf(sb, "# %s is not set\n", sym);
		return;
	}
	strbuf_addf(sb, "%s=", sym);
	if (strcmp(v, "y") == 0 || strcmp(v, "m") == 0 ||
	    kconfig_is_number(v) || (len >= 2 && v[0] == '"' &&
	    v[len - 1] == '"' && strchr(v, '\n') == NULL))
		strbuf_addstr(sb, v);
	else {
		strbuf_addch(sb, '"');
		for (; *v != '\0'; v++) {
			if (*v == '"' || *v == '\\')
				strbuf_addch(sb, '\\');
			if (*v == '\n')
				strbuf_addstr(sb, "\\n");
			else
				strbuf_addch(sb, *v);
		}
		strbuf_addch(sb, '"');
	}
	strbuf_addch(sb, '\n');
}

/* The job's parameters are sorted by key, so the fragment is too. */
char *
kconfig_fragment(const struct job *job)
{
	struct strbuf	sb = STRBUF_INIT;
	size_t		i, plen = strlen(KCONFIG_PARAM);
	int		any = 0;

	for (i = 0; i < job->nr_params; i++) {
		if (strncmp(job->params[i].key, KCONFIG_PARAM, plen) != 0)
			continue;
		kconfig_add_value(&sb, job->params[i].key + plen,
		    job->params[i].value);
		any = 1;
	}
	if (!any) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

char *
kconfig_target(const char *path)
{
	struct stat	 st;
	const char	*base = strrchr(path, '/');
	size_t		 len, i;

	base = base != NULL ? base + 1 : path;
	len = strlen(base);
	if (len < 6 || strcmp(base + len - 6, "config") != 0)
		return NULL;
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)base[i]) && base[i] != '_')
			return NULL;
	}
	if (stat(path, &st) == 0)
		return NULL;
	return xstrdup(base);
}

/* Does the fragment set sym (of length n)? */
static int
kconfig_fragment_has(const char *fragment, const char *sym, size_t n)
{
	const char	*p = fragment, *s, *nl;
	size_t		 len, m;

	while (p != NULL && *p != '\0') {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		m = kconfig_line_symbol(p, len, &s);
		if (m == n && strncmp(s, sym, n) == 0)
			return 1;
		p = nl != NULL ? nl + 1 : NULL;
	}
	return 0;
}

char *
kconfig_merge(const char *base, size_t len, const char *fragment)
{
	struct strbuf	 sb = STRBUF_INIT;
	const char	*p = base, *end = base + len, *nl, *sym;
	size_t		 n, l;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		l = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		n = kconfig_line_symbol(p, l, &sym);
		if (n == 0 || fragment == NULL ||
		    !kconfig_fragment_has(fragment, sym, n)) {
			strbuf_add(&sb, p, l);
			strbuf_addch(&sb, '\n');
		}
		p += l + (nl != NULL);
	}
	if (fragment != NULL && *fragment != '\0') {
		strbuf_addstr(&sb, "# bisectd: the job's kconfig\n");
		strbuf_addstr(&sb, fragment);
		if (sb.buf[sb.len - 1] != '\n')
			strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb, NULL);
}

/* The line of config that sets sym, or NULL; *l is its length. */
static const char *
kconfig_find(const char *config, size_t len, const char *sym, size_t n,
    size_t *l)
{
	const char	*p = config, *end = config + len, *nl, *s;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		*l = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		if (kconfig_line_symbol(p, *l, &s) == n &&
		    strncmp(s, sym, n) == 0)
			return p;
		p += *l + (nl != NULL);
	}
	return NULL;
}

char *
kconfig_check(const char *config, size_t len, const char *fragment)
{
	struct strbuf	 sb = STRBUF_INIT;
	const char	*p = fragment, *nl, *sym, *got;
	size_t		 l, n, gl;

	while (p != NULL && *p != '\0') {
		nl = strchr(p, '\n');
		l = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if ((n = kconfig_line_symbol(p, l, &sym)) != 0) {
			got = kconfig_find(config, len, sym, n, &gl);
			if (got == NULL) {
				if (p[0] != '#')
					strbuf_addf(&sb, "%.*s requested, is "
					    "not in the final .config\n",
					    (int)l, p);
			} else if (gl != l || memcmp(got, p, l) != 0)
				strbuf_addf(&sb, "%.*s requested, the final "
				    ".config has %.*s\n", (int)l, p, (int)gl,
				    got);
		}
		p = nl != NULL ? nl + 1 : NULL;
	}
	if (sb.len == 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}
