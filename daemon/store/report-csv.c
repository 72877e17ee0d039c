/* report-csv.c: a report's figures as CSV rows "group,figure,key,value,unit". The figures
 * and their units are those compare.c sees (compare_flatten, compare_figure_kind), so a
 * row's path "group.figure.key" is the figure's name in a comparison:
 *   - group: a member of "figures";
 *   - figure: a member of the group, or an element of it named by its name, device, line,
 *     queue or cpu member (else its index);
 *   - key: the rest of the path ("" when the figure is a plain number);
 *   - value: the number, or empty for null (a ratio with nothing to divide by). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "jsonutil.h"
#include "report-csv.h"
#include "strbuf.h"
#include "xmalloc.h"

struct csv {
	struct strbuf out;
	json_object *figures;
};

/* Append one CSV field, quoted when it holds a comma, a quote or a line break. */
static void
add_field(struct strbuf *sb, const char *s, size_t len, char sep)
{
	if (memchr(s, ',', len) == NULL && memchr(s, '"', len) == NULL &&
	    memchr(s, '\n', len) == NULL && memchr(s, '\r', len) == NULL)
		strbuf_add(sb, s, len);
	else {
		strbuf_addch(sb, '"');
		for (size_t i = 0; i < len; i++) {
			if (s[i] == '"')
				strbuf_addch(sb, '"');
			strbuf_addch(sb, s[i]);
		}
		strbuf_addch(sb, '"');
	}
	strbuf_addch(sb, sep);
}

/* One figure as a row: its path split into group, figure and key. */
static void
add_row(const char *path, double v, void *arg)
{
	struct csv *c = arg;
	const char *dot = strchr(path, '.'), *fig, *end, *key, *unit, *better;
	size_t glen = dot ? (size_t)(dot - path) : strlen(path);
	json_object *group;
	char gname[128], num[64] = "";

	/* span_s comes first, from beside "figures" (the window has it as duration_s). */
	snprintf(gname, sizeof(gname), "%.*s", (int)glen, path);
	if (!json_object_object_get_ex(c->figures, gname, &group))
		return;
	/* The figure ends at the next dot, unless the group has a member named with dots
	 * (sysctl "net.core.arfs_add_count"). */
	fig = dot ? dot + 1 : "";
	if (json_object_is_type(group, json_type_object) &&
	    json_object_object_get_ex(group, fig, NULL))
		end = fig + strlen(fig);
	else
		end = fig + strcspn(fig, ".");
	key = *end ? end + 1 : end;
	if (!isnan(v))
		snprintf(num, sizeof(num), "%.15g", v);
	compare_figure_kind(path, &unit, &better);
	add_field(&c->out, path, glen, ',');
	add_field(&c->out, fig, (size_t)(end - fig), ',');
	add_field(&c->out, key, strlen(key), ',');
	add_field(&c->out, num, strlen(num), ',');
	add_field(&c->out, unit, strlen(unit), '\n');
}

/* The figures of a result as CSV. */
char *
report_to_csv(json_object *result)
{
	struct csv c = {STRBUF_INIT, NULL};

	strbuf_addstr(&c.out, "group,figure,key,value,unit\n");
	if (json_object_object_get_ex(result, "figures", &c.figures) &&
	    json_object_is_type(c.figures, json_type_object))
		compare_flatten(result, add_row, &c);
	return strbuf_detach(&c.out, NULL);
}

/* The columns of a table of results: figure paths, indexed, and one row's values. */
struct table_cols {
	json_object *index; /* path -> column */
	size_t n;
	struct strbuf header;
	double *row; /* [n] once the columns are known */
};

/* First pass: a column for every path not seen yet. */
static void
add_col(const char *path, double v, void *arg)
{
	struct table_cols *t = arg;

	(void)v;
	if (json_object_object_get_ex(t->index, path, NULL))
		return;
	json_object_object_add(t->index, path, json_object_new_int64((int64_t)t->n++));
	add_field(&t->header, path, strlen(path), ',');
}

/* Second pass: a result's value into its column. */
static void
put_val(const char *path, double v, void *arg)
{
	struct table_cols *t = arg;
	json_object *col;

	if (json_object_object_get_ex(t->index, path, &col))
		t->row[json_object_get_int64(col)] = v;
}

/* A string member of the result's window as a field. */
static void
window_field(struct strbuf *sb, json_object *win, const char *key)
{
	json_object *v;
	const char *s = "";

	if (json_object_object_get_ex(win, key, &v) && v != NULL)
		s = json_object_get_string(v);
	add_field(sb, s, strlen(s), ',');
}

/* Header, then one row per result. */
char *
report_csv_table(json_object *const *r, size_t n)
{
	static const char *const wkeys[] = {"name", "origin", "start", "duration_s", "complete"};
	struct table_cols t = {.index = json_object_new_object(), .header = STRBUF_INIT};
	struct strbuf out = STRBUF_INIT;
	char num[64];

	strbuf_addstr(&t.header, "name,origin,start,duration_s,complete,");
	for (size_t i = 0; i < n; i++)
		compare_flatten(r[i], add_col, &t);
	/* The separator after the last column is a line end. */
	t.header.buf[t.header.len - 1] = '\n';
	strbuf_add(&out, t.header.buf, t.header.len);
	t.row = xcalloc(t.n ? t.n : 1, sizeof(*t.row));
	for (size_t i = 0; i < n; i++) {
		json_object *win = NULL;
		json_object_object_get_ex(r[i], "window", &win);
		for (size_t k = 0; k < sizeof(wkeys) / sizeof(wkeys[0]); k++)
			window_field(&out, win, wkeys[k]);
		for (size_t c = 0; c < t.n; c++)
			t.row[c] = NAN;
		compare_flatten(r[i], put_val, &t);
		for (size_t c = 0; c < t.n; c++) {
			num[0] = '\0';
			if (!isnan(t.row[c]))
				snprintf(num, sizeof(num), "%.15g", t.row[c]);
			add_field(&out, num, strlen(num), c + 1 < t.n ? ',' : '\n');
		}
		if (t.n == 0)
			out.buf[out.len - 1] = '\n';
	}
	free(t.row);
	strbuf_free(&t.header);
	json_object_put(t.index);
	return strbuf_detach(&out, NULL);
}
