/*
 * The testcase's own output as metrics (docs/agents.md, "Metrics from the
 * testcase's output"): each line "name: number" is metric TESTCASE.name,
 * several values of one name its instances. The lines are collected,
 * grouped by name with a sort (an output can hold many thousands), and
 * each group gives its metric's value and instances by the rules there.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agents/result.h"
#include "jobs/metric.h"
#include "util/xalloc.h"

#define OUTPUT_MAX_NAME		200		/* before TESTCASE. */
#define OUTPUT_MAX_LINES	1000000		/* metric lines considered */

struct result_output_line {
	const char	*name;		/* in the buffer, not terminated */
	size_t		 len;
	size_t		 seq;		/* order in the output */
	unsigned long	 n;		/* the instance number */
	int		 numbered;
	double		 value;
};

struct result_output_group {
	struct result_output_line	*first;	/* lines of one name, by seq */
	size_t			 nr;
};

/*
 * NAME ':' BLANK+ NUMBER BLANK* '\r'?, where NAME starts with a letter, '_'
 * or a digit (LKP's openssl-speed.16_size_block_Kbps), holds a letter or
 * '_' somewhere, and no blank and no ':'. A unit after the number, a second
 * field or leading white space means it is not a metric line.
 */
static int
result_output_line_parse(const char *p, size_t len, struct result_output_line *ol)
{
	size_t	i, colon, dot, digits;
	int	letter;

	while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == ' ' ||
	    p[len - 1] == '\t'))
		len--;
	if (len == 0 || !((p[0] >= 'a' && p[0] <= 'z') ||
	    (p[0] >= 'A' && p[0] <= 'Z') || p[0] == '_' ||
	    (p[0] >= '0' && p[0] <= '9')))
		return -1;
	for (i = 0, letter = 0; i < len && p[i] != ':'; i++) {
		if (p[i] <= ' ' || p[i] > '~' || i >= OUTPUT_MAX_NAME)
			return -1;
		if ((p[i] >= 'a' && p[i] <= 'z') ||
		    (p[i] >= 'A' && p[i] <= 'Z') || p[i] == '_')
			letter = 1;
	}
	if (!letter)
		return -1;
	if (i == len)
		return -1;
	colon = i++;
	if (i == len || (p[i] != ' ' && p[i] != '\t'))
		return -1;
	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (result_number_parse(p + i, len - i, &ol->value) != 0)
		return -1;

	ol->name = p;
	ol->len = colon;
	ol->numbered = 0;
	for (dot = colon; dot > 0 && p[dot - 1] >= '0' && p[dot - 1] <= '9';
	    dot--)
		;
	digits = colon - dot;
	if (digits > 0 && digits <= 9 && dot >= 2 && p[dot - 1] == '.') {
		ol->numbered = 1;
		ol->n = strtoul(p + dot, NULL, 10);
		ol->len = dot - 1;
	}
	return 0;
}

static int
result_output_line_cmp(const void *a, const void *b)
{
	const struct result_output_line	*x = a, *y = b;
	size_t				 n;
	int				 c;

	n = x->len < y->len ? x->len : y->len;
	c = memcmp(x->name, y->name, n);

	if (c != 0)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
result_output_group_cmp(const void *a, const void *b)
{
	const struct result_output_group	*x = a, *y = b;

	return x->first->seq < y->first->seq ? -1 :
	    x->first->seq > y->first->seq;
}

/* Numbered lines by instance number, then by order of appearance. */
static int
result_output_numbered_cmp(const void *a, const void *b)
{
	const struct result_output_line	*x = a, *y = b;

	if (x->numbered != y->numbered)
		return x->numbered ? 1 : -1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct result_output_name {
	const char	*name;
	size_t		 at;
};

static int
result_output_name_cmp(const void *a, const void *b)
{
	const struct result_output_name	*x = a, *y = b;

	return strcmp(x->name, y->name);
}

/*
 * The value and instances of one group, into m (empty on entry). Returns
 * the number of lines used, or 0 when the value is not finite (a sum of
 * huge values can overflow): such a metric is dropped.
 */
static size_t
result_output_group_eval(struct result_output_group *g, const char *name,
    struct result_metric *m)
{
	const struct metric_info	*info = metric_lookup(name);
	struct result_output_line		*l = g->first;
	size_t				 nr_plain = 0, i, used = 0;
	double				 last_plain = 0;

	for (i = 0; i < g->nr && used < RESULT_MAX_INSTANCES; i++, used++) {
		if (!l[i].numbered)
			nr_plain++;
	}
	g->nr = used;
	qsort(l, g->nr, sizeof *l, result_output_numbered_cmp);
	if (nr_plain > 0)
		last_plain = l[nr_plain - 1].value;
	if (nr_plain < g->nr) {
		for (i = nr_plain; i < g->nr; i++) {
			if (i + 1 < g->nr && l[i + 1].n == l[i].n)
				continue;
			result_metric_add_instance(m, l[i].value);
		}
		m->value = nr_plain > 0 ? last_plain :
		    metric_aggregate(info, m->instances, m->nr_instances);
	} else if (nr_plain >= 2) {
		for (i = 0; i < nr_plain; i++)
			result_metric_add_instance(m, l[i].value);
		m->value = metric_aggregate(info, m->instances,
		    m->nr_instances);
	} else
		m->value = last_plain;
	return isfinite(m->value) ? used : 0;
}

/*
 * Store m (name and all) into r, replacing the metric of that name if r
 * had one before the output was parsed; existing is sorted by name.
 */
static void
result_output_metric_store(struct result *r, struct result_output_name *existing,
    size_t nr_existing, struct result_metric *m)
{
	struct result_output_name	 key = { m->name, 0 }, *found;
	struct result_metric	*old;

	found = bsearch(&key, existing, nr_existing, sizeof *existing,
	    result_output_name_cmp);
	if (found != NULL) {
		old = &r->metrics[found->at];
		free(old->name);
		free(old->instances);
		*old = *m;
		found->name = old->name;
		return;
	}
	ALLOC_GROW(r->metrics, r->nr_metrics, r->alloc_metrics);
	r->metrics[r->nr_metrics++] = *m;
}

int
result_output_parse(struct result *r, const char *testcase, const char *buf,
    size_t len)
{
	struct result_output_line	*lines = NULL, ol;
	struct result_output_group	*groups = NULL;
	struct result_output_name	*existing = NULL;
	const char		*p = buf, *end = buf + len, *nl;
	struct result_metric	 m;
	size_t			 used;
	size_t			 nr_lines = 0, alloc_lines = 0;
	size_t			 nr_groups = 0, alloc_groups = 0;
	size_t			 nr_existing, i, j;
	int			 taken = 0;

	while (p < end && nr_lines < OUTPUT_MAX_LINES) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (result_output_line_parse(p, (size_t)(nl - p), &ol) == 0) {
			ol.seq = nr_lines;
			ALLOC_GROW(lines, nr_lines, alloc_lines);
			lines[nr_lines++] = ol;
		}
		p = nl + 1;
	}
	if (nr_lines == 0)
		return 0;
	qsort(lines, nr_lines, sizeof *lines, result_output_line_cmp);
	for (i = 0; i < nr_lines; i = j) {
		for (j = i + 1; j < nr_lines && lines[j].len == lines[i].len &&
		    memcmp(lines[j].name, lines[i].name, lines[i].len) == 0;
		    j++)
			;
		ALLOC_GROW(groups, nr_groups, alloc_groups);
		groups[nr_groups].first = &lines[i];
		groups[nr_groups++].nr = j - i;
	}
	qsort(groups, nr_groups, sizeof *groups, result_output_group_cmp);

	nr_existing = r->nr_metrics;
	existing = xreallocarray(NULL, nr_existing + 1, sizeof *existing);
	for (i = 0; i < nr_existing; i++) {
		existing[i].name = r->metrics[i].name;
		existing[i].at = i;
	}
	qsort(existing, nr_existing, sizeof *existing, result_output_name_cmp);

	for (i = 0; i < nr_groups && r->nr_metrics < RESULT_MAX_METRICS;
	    i++) {
		memset(&m, 0, sizeof m);
		if (testcase != NULL && testcase[0] != '\0')
			m.name = xasprintf("%s.%.*s", testcase,
			    (int)groups[i].first->len, groups[i].first->name);
		else
			m.name = xstrndup(groups[i].first->name,
			    groups[i].first->len);
		if (!result_name_valid(m.name) ||
		    (used = result_output_group_eval(&groups[i], m.name, &m)) == 0) {
			free(m.name);
			free(m.instances);
			continue;
		}
		result_output_metric_store(r, existing, nr_existing, &m);
		taken += (int)used;
	}
	free(existing);
	free(groups);
	free(lines);
	return taken;
}
