/*
 * A program file's output read back (docs/jobs.md, "Output" and
 * "Metrics"): line patterns or JSON paths into variables and records,
 * then each metric's expressions into "name: number" and "name.N:
 * number" lines; testcase-data.c runs the program.
 */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/testcase.h"
#include "agents/testcase-data.h"
#include "jobs/expr.h"
#include "jobs/job.h"
#include "jobs/program.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define DATA_MAX_RECORDS	100000
#define DATA_MAX_OUTPUT		(64u << 20)
#define DATA_MAX_NAME		200

/* The output's variables: their latest values and the records. */
struct data_vars {
	const struct program	 *p;
	char			**names;
	int			 *is_word;
	size_t			  nr;
	double			 *num;		/* latest */
	char			**word;
	int			 *set;
	/* records: nr values each */
	double			 *rnum;
	char			**rword;
	int			 *rset;
	size_t			  nr_records;
	size_t			  alloc_records;
	/* the records a metric looks at (a {VAR} group), or all */
	size_t			 *subset;
	size_t			  nr_subset;
};

static size_t
testcase_data_parse_var_index(const struct data_vars *dv, const char *name)
{
	size_t	i;

	for (i = 0; i < dv->nr; i++) {
		if (strcmp(dv->names[i], name) == 0)
			return i;
	}
	return (size_t)-1;
}

static void
testcase_data_parse_var_add(struct data_vars *dv, const char *name, int word)
{
	if (testcase_data_parse_var_index(dv, name) != (size_t)-1)
		return;
	dv->names = xreallocarray(dv->names, dv->nr + 1, sizeof *dv->names);
	dv->is_word = xreallocarray(dv->is_word, dv->nr + 1,
	    sizeof *dv->is_word);
	dv->names[dv->nr] = xstrdup(name);
	dv->is_word[dv->nr] = word;
	dv->nr++;
}

static void
testcase_data_parse_vars_init(struct data_vars *dv, const struct program *p)
{
	size_t	i, j;

	memset(dv, 0, sizeof *dv);
	dv->p = p;
	for (i = 0; i < p->nr_lines; i++) {
		for (j = 0; j < p->lines[i].nr_names; j++)
			testcase_data_parse_var_add(dv, p->lines[i].names[j],
			    p->lines[i].is_word[j]);
	}
	for (i = 0; i < p->nr_json_vars; i++)
		testcase_data_parse_var_add(dv, p->json_vars[i].name, 0);
	dv->num = xcalloc(dv->nr + 1, sizeof *dv->num);
	dv->word = xcalloc(dv->nr + 1, sizeof *dv->word);
	dv->set = xcalloc(dv->nr + 1, sizeof *dv->set);
}

static void
testcase_data_parse_vars_release(struct data_vars *dv)
{
	size_t	i;

	for (i = 0; i < dv->nr; i++) {
		free(dv->names[i]);
		free(dv->word[i]);
	}
	for (i = 0; i < dv->nr_records * dv->nr; i++)
		free(dv->rword[i]);
	free(dv->names);
	free(dv->is_word);
	free(dv->num);
	free(dv->word);
	free(dv->set);
	free(dv->rnum);
	free(dv->rword);
	free(dv->rset);
	free(dv->subset);
}

static void
testcase_data_parse_vars_record(struct data_vars *dv)
{
	size_t	base, i;

	if (dv->nr_records == DATA_MAX_RECORDS)
		return;
	if (dv->nr_records == dv->alloc_records) {
		dv->alloc_records = dv->alloc_records ? 2 * dv->alloc_records :
		    16;
		dv->rnum = xreallocarray(dv->rnum, dv->alloc_records *
		    (dv->nr + 1), sizeof *dv->rnum);
		dv->rword = xreallocarray(dv->rword, dv->alloc_records *
		    (dv->nr + 1), sizeof *dv->rword);
		dv->rset = xreallocarray(dv->rset, dv->alloc_records *
		    (dv->nr + 1), sizeof *dv->rset);
	}
	base = dv->nr_records * dv->nr;
	for (i = 0; i < dv->nr; i++) {
		dv->rnum[base + i] = dv->num[i];
		dv->rword[base + i] = dv->word[i] != NULL ?
		    xstrdup(dv->word[i]) : NULL;
		dv->rset[base + i] = dv->set[i];
	}
	dv->nr_records++;
}

static int
testcase_data_parse_vars_lookup(void *payload, size_t record, const char *name,
    double *out, char **cause)
{
	struct data_vars	*dv = payload;
	size_t			 i = testcase_data_parse_var_index(dv, name), at;

	if (i == (size_t)-1 || dv->is_word[i])
		return error_set(cause, "'%s' is not a number variable", name);
	if (record == EXPR_LATEST) {
		if (!dv->set[i])
			return EXPR_UNSET;
		*out = dv->num[i];
		return 0;
	}
	at = dv->subset[record] * dv->nr + i;
	if (!dv->rset[at])
		return EXPR_UNSET;
	*out = dv->rnum[at];
	return 0;
}

static void
testcase_data_parse_lines(struct data_vars *dv, const char *buf, size_t len)
{
	const struct program		*p = dv->p;
	struct program_capture		 caps[PROGRAM_MAX_CAPTURES];
	const struct program_line	*pl;
	const char			*line = buf, *end = buf + len, *nl;
	size_t				 i, j, k;
	int				 marked = 0, matched, record;

	for (i = 0; i < p->nr_lines; i++)
		marked |= p->lines[i].record;
	while (line < end) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		matched = record = 0;
		for (i = 0; i < p->nr_lines; i++) {
			pl = &p->lines[i];
			if (!program_line_match(pl, line, (size_t)(nl - line),
			    caps))
				continue;
			matched = 1;
			record |= pl->record;
			for (j = 0; j < pl->nr_names; j++) {
				k = testcase_data_parse_var_index(dv, pl->names[j]);
				dv->set[k] = 1;
				if (pl->is_word[j]) {
					free(dv->word[k]);
					dv->word[k] = xstrndup(caps[j].word,
					    caps[j].word_len);
				} else
					dv->num[k] = caps[j].number;
			}
		}
		if (record || (!marked && matched))
			testcase_data_parse_vars_record(dv);
		line = nl + 1;
	}
}

static json_t *
testcase_data_parse_json_path(json_t *v, const char *path)
{
	char		*copy = xstrdup(path), *tok, *save = NULL, *end;
	unsigned long	 idx;

	for (tok = strtok_r(copy, ".", &save); tok != NULL && v != NULL;
	    tok = strtok_r(NULL, ".", &save)) {
		if (json_is_array(v)) {
			idx = strtoul(tok, &end, 10);
			v = *end == '\0' && isdigit((unsigned char)*tok) ?
			    json_array_get(v, idx) : NULL;
		} else if (json_is_object(v))
			v = json_object_get(v, tok);
		else
			v = NULL;
	}
	free(copy);
	return v;
}

static int
testcase_data_parse_json(struct data_vars *dv, const char *buf, size_t len,
    char **cause)
{
	const struct program	*p = dv->p;
	json_error_t		 jerr;
	json_t			*root, *arr, *el, *v, *wrap = NULL;
	size_t			 i, j, k;

	if ((root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr)) ==
	    NULL)
		return error_set(cause, "its JSON output does not parse: %s "
		    "at line %d", jerr.text, jerr.line);
	arr = p->json_records != NULL && strcmp(p->json_records, ".") != 0 ?
	    testcase_data_parse_json_path(root, p->json_records) : root;
	if (json_is_object(arr)) {
		/* one record: the object itself (iperf3's "end") */
		wrap = json_array();
		json_array_append(wrap, arr);
		arr = wrap;
	}
	if (!json_is_array(arr)) {
		json_decref(root);
		return error_set(cause, "its JSON output has no array or "
		    "object at '%s'", p->json_records);
	}
	json_array_foreach(arr, i, el) {
		for (j = 0; j < p->nr_json_vars; j++) {
			k = testcase_data_parse_var_index(dv, p->json_vars[j].name);
			v = testcase_data_parse_json_path(el, p->json_vars[j].path);
			dv->set[k] = json_is_number(v) &&
			    isfinite(json_number_value(v));
			dv->num[k] = dv->set[k] ? json_number_value(v) : 0;
		}
		testcase_data_parse_vars_record(dv);
	}
	/* the latest value of each: that of the last record that has it */
	for (k = 0; k < dv->nr; k++) {
		dv->set[k] = 0;
		for (i = dv->nr_records; i-- > 0;) {
			if (dv->rset[i * dv->nr + k]) {
				dv->set[k] = 1;
				dv->num[k] = dv->rnum[i * dv->nr + k];
				break;
			}
		}
	}
	json_decref(wrap);
	json_decref(root);
	return 0;
}

static int
testcase_data_parse_name_ok(const char *s)
{
	if (*s == '\0' || strlen(s) > DATA_MAX_NAME)
		return 0;
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s <= ' ' || *s == ':' || *s == 0x7f)
			return 0;
	}
	return 1;
}

/* One metric over the records in dv->subset (a group, or all). */
static int
testcase_data_parse_metric(struct data_vars *dv, const struct program_metric *m,
    const char *name, struct strbuf *metrics, char **cause)
{
	struct expr_env	 env = { testcase_data_parse_vars_lookup, dv,
	    dv->nr_subset, 1 };
	double		 v, *latest = NULL;
	int		*was = NULL;
	size_t		 i, n = 0, last;
	int		 r = -1, rr;

	if (!testcase_data_parse_name_ok(name))
		return error_set(cause, "'%s' is not a metric name", name);
	if (dv->nr_subset < dv->nr_records && dv->nr_subset > 0) {
		/* the latest values are the group's last record's */
		latest = dv->num;
		was = dv->set;
		dv->num = xcalloc(dv->nr + 1, sizeof *dv->num);
		dv->set = xcalloc(dv->nr + 1, sizeof *dv->set);
		last = dv->subset[dv->nr_subset - 1] * dv->nr;
		for (i = 0; i < dv->nr; i++) {
			dv->num[i] = dv->rnum[last + i];
			dv->set[i] = dv->rset[last + i];
		}
	}
	if (m->instances != NULL) {
		for (i = 0; i < dv->nr_subset; i++) {
			rr = expr_eval_at(m->instances, &env, i, &v, cause);
			if (rr < 0)
				goto out;
			if (rr == 0)
				strbuf_addf(metrics, "%s.%zu: %.17g\n", name,
				    n++, v);
		}
		if (n == 0 && m->value == NULL) {
			error_set(cause, "no record has a value of '%s'",
			    name);
			goto out;
		}
	}
	if (m->value != NULL) {
		if (expr_eval(m->value, &env, &v, cause) != 0)
			goto out;
		strbuf_addf(metrics, "%s: %.17g\n", name, v);
	}
	r = 0;
out:
	if (latest != NULL) {
		free(dv->num);
		free(dv->set);
		dv->num = latest;
		dv->set = was;
	}
	return r;
}

static int
testcase_data_parse_all(struct data_vars *dv, struct strbuf *metrics,
    char **cause)
{
	const struct program_metric	*m;
	struct strbuf			 name = STRBUF_INIT;
	char				*why = NULL;
	const char			*w, *brace, *close;
	size_t				 i, j, k, g;
	int				 r = 0;

	dv->subset = xcalloc(dv->nr_records + 1, sizeof *dv->subset);
	for (i = 0; i < dv->p->nr_metrics; i++) {
		m = &dv->p->metrics[i];
		if (m->group == NULL) {
			for (j = 0; j < dv->nr_records; j++)
				dv->subset[j] = j;
			dv->nr_subset = dv->nr_records;
			if (testcase_data_parse_metric(dv, m, m->name, metrics, &why) != 0 &&
			    !m->optional && r == 0)
				r = error_set(cause, "%s printed no value for "
				    "'%s': %s", dv->p->name, m->name, why);
			free(why);
			why = NULL;
			continue;
		}
		g = testcase_data_parse_var_index(dv, m->group);
		brace = strchr(m->name, '{');
		close = strchr(brace, '}');
		for (j = 0; j < dv->nr_records; j++) {
			w = dv->rword[j * dv->nr + g];
			if (w == NULL)
				continue;
			for (k = 0; k < j; k++) {
				if (dv->rword[k * dv->nr + g] != NULL &&
				    strcmp(dv->rword[k * dv->nr + g], w) == 0)
					break;
			}
			if (k < j)
				continue;
			dv->nr_subset = 0;
			for (k = j; k < dv->nr_records; k++) {
				if (dv->rword[k * dv->nr + g] != NULL &&
				    strcmp(dv->rword[k * dv->nr + g], w) == 0)
					dv->subset[dv->nr_subset++] = k;
			}
			strbuf_reset(&name);
			strbuf_add(&name, m->name, (size_t)(brace - m->name));
			strbuf_addstr(&name, w);
			strbuf_addstr(&name, close + 1);
			if (testcase_data_parse_metric(dv, m, name.buf, metrics, &why) != 0 &&
			    !m->optional && r == 0)
				r = error_set(cause, "%s printed no value for "
				    "'%s': %s", dv->p->name, name.buf, why);
			free(why);
			why = NULL;
		}
	}
	strbuf_release(&name);
	return r;
}

/* dr: the run's parameters, for the output file's name. */
static int
testcase_data_parse_run(const struct program *p, struct data_run *dr,
    const char *out, size_t len, struct strbuf *metrics, char **cause)
{
	struct data_vars	 dv;
	char			*path = NULL, *buf = NULL;
	size_t			 blen, start;
	int			 r = -1;

	testcase_data_parse_vars_init(&dv, p);
	if (p->from != NULL) {
		if (testcase_data_expand(dr, p->from, &path, cause) != 0)
			goto out;
		if (file_read_tail(path, DATA_MAX_OUTPUT, &buf, &blen,
		    cause) != 0)
			goto out;
		out = buf;
		len = blen;
	}
	if (p->json_records != NULL) {
		if (testcase_data_parse_json(&dv, out, len, cause) != 0)
			goto out;
	} else
		testcase_data_parse_lines(&dv, out, len);
	start = metrics->len;
	r = testcase_data_parse_all(&dv, metrics, cause);
	/* Optional metrics or groups may each be absent, not all of them. */
	if (r == 0 && metrics->len == start)
		r = error_set(cause, "%s printed none of its metrics", p->name);
out:
	free(path);
	free(buf);
	testcase_data_parse_vars_release(&dv);
	return r;
}

int
testcase_data_parse_output(const struct program *p, const char *resultdir,
    const char *out, size_t len, struct strbuf *metrics, char **cause)
{
	struct testcase_ctx	ctx;
	struct data_run		dr = { p, &ctx, NULL };
	int			r;

	memset(&ctx, 0, sizeof ctx);
	ctx.resultdir = resultdir != NULL ? resultdir : ".";
	ctx.workdir = ".";
	dr.vals = xcalloc(p->nr_params + 1, sizeof *dr.vals);
	r = testcase_data_parse_run(p, &dr, out, len, metrics, cause);
	testcase_data_release(&dr);
	return r;
}

int
testcase_data_parse(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, const char *out, size_t len,
    struct strbuf *metrics, char **cause)
{
	struct data_run	dr = { ad->data, ctx, NULL };
	int		r = -1;

	if (testcase_data_resolve(&dr, cause) == 0)
		r = testcase_data_parse_run(ad->data, &dr, out, len, metrics, cause);
	testcase_data_release(&dr);
	return r;
}
