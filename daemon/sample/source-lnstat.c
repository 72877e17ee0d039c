/* source-lnstat.c: the per-CPU tables of /proc/net/stat/ that lnstat(8) shows (rt_cache,
 * arp_cache, ndisc_cache, nf_conntrack, synproxy, ... whatever exists).
 *
 * Each file has a header line of field names, then one line per possible CPU of 8-digit
 * hex values. Each cell becomes lnstat.<table>.cpu<C>.<field> (C is the row's index in
 * the file), a 32-bit counter. The field "entries" is a table-wide level repeated on every
 * row: it becomes the gauge lnstat.<table>.entries, from the first row only.
 *
 * The per-CPU cells are series only with [source.lnstat] per-cpu = yes: lnstat(8) itself
 * shows the sums, results do not keep the cells, and on a 144-CPU host they are ~10,000
 * series that cost more than the rest of the sampling's parse and store together (bench/
 * bench-service.py). The cells are parsed either way: the sums are made of them.
 *
 * The sums lnstat.<table>.<field> are 64-bit counters that accumulate each CPU's 32-bit
 * increment (wrap-corrected), not the sum of the raw cells, which would fall by 2^32 when
 * one cell wraps and look like a reset. They start at the sum of the raw cells, so until a
 * cell wraps they equal what lnstat prints; a header that changes keeps the sums (and
 * per-CPU values) of the fields it keeps.
 *
 * The directory is listed at init, every LNSTAT_RESCAN_SAMPLES samples and after a
 * table's read fails (its module was unloaded); the listing uses getdents64 on a kept
 * fd, so it allocates nothing unless a table appears.
 *
 * Each table is a struct source_file, read by turns into two kept buffers, so each row is
 * compared with its bytes of the previous read, as source-interrupts.c does with its lines:
 * a byte-identical row is skipped, and in a row of the same length only the cells whose
 * bytes differ are parsed (pp_row_diff). A row is parsed in full when it is new, changed
 * length or holds a token that is not a hex count. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "config.h"
#include "cpulist.h"
#include "error.h"
#include "log.h"
#include "procparse.h"
#include "source.h"
#include "xmalloc.h"

#define LNSTAT_DIR            "proc/net/stat"
#define LNSTAT_RESCAN_SAMPLES 60   /* list the directory again after this many samples */
#define LNSTAT_MAX_TABLES     64   /* files beyond this are ignored */
#define LNSTAT_MAX_COLUMNS    64   /* fields beyond this are ignored */
#define LNSTAT_MAX_ROWS       8192 /* NR_CPUS at most */
#define LNSTAT_MAX_FIELD      64   /* longer field names are ignored */

/* Where a row was in the kept read, and where its cells ended. */
struct lnstat_row {
	size_t off, len;   /* the row in the kept read; len 0: not there */
	struct pp_row row; /* valid when every token of the row is a count of a column */
};

/* One file of /proc/net/stat. */
struct lnstat_table {
	char name[NAME_MAX + 1];
	char path[sizeof(LNSTAT_DIR) + NAME_MAX + 1]; /* file.path points here */
	struct source_file file;
	bool seen;    /* found by the directory listing in progress */
	char *header; /* the header line the ids were interned from */
	size_t headerlen, headercap;
	size_t ncols;            /* fields in the header (bounded) */
	long entries_col;        /* column of "entries", or -1 */
	series_id entries_id;    /* lnstat.<table>.entries */
	series_id *sum_ids;      /* [ncols]: lnstat.<table>.<field>; SERIES_NONE for entries */
	uint64_t *sums;          /* [ncols]: accumulated sums */
	series_id *cpu_ids;      /* [row * ncols + col]: lnstat.<table>.cpu<row>.<field> */
	uint32_t *prev;          /* [row * ncols + col]: the cell's last value */
	struct lnstat_row *rows; /* [row] */
	size_t nrows, rowscap;   /* rows interned; rows allocated */
};

/* [source.lnstat] options. */
struct lnstat_opts {
	bool per_cpu; /* per-cpu = yes: the per-CPU cells as series too */
};

struct lnstat_priv {
	int dirfd; /* the kept directory fd, rewound for each listing */
	struct lnstat_table **tables;
	size_t ntables, tablescap;
	unsigned since_scan; /* samples since the last listing */
	bool rescan;         /* list before the next sample */
};

/* The end of the line starting at p: its '\n', or end. */
static const char *
line_end(const char *p, const char *end)
{
	const char *nl = pp_eol(p, end);

	return nl ? nl : end;
}

/* Parse a hex token that fits a u32 cell; -1 if it is not one. */
static int
parse_cell(const char *tok, size_t len, uint32_t *out)
{
	const char *p = tok;
	uint64_t v;

	if (pp_hex(&p, tok + len, &v) < 0 || p != tok + len || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Call fn on every series id of a table. */
static void
table_each_id(const struct lnstat_table *t, void (*fn)(series_id, void *), void *arg)
{
	if (t->entries_id != SERIES_NONE)
		fn(t->entries_id, arg);
	for (size_t c = 0; c < t->ncols; c++)
		if (t->sum_ids[c] != SERIES_NONE)
			fn(t->sum_ids[c], arg);
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		if (t->cpu_ids[i] != SERIES_NONE)
			fn(t->cpu_ids[i], arg);
}

/* table_each_id callback: declare the series gone. */
static void
id_gone(series_id id, void *sink)
{
	sink_gone(sink, id);
}

/* A list of ids saved across a header change. */
struct id_list {
	series_id *v;
	size_t n;
};

/* table_each_id callback: append the id to an id_list. */
static void
id_save(series_id id, void *arg)
{
	struct id_list *l = arg;

	l->v[l->n++] = id;
}

/* table_each_id callback: mark the id in a map indexed by id. */
static void
id_mark(series_id id, void *map)
{
	((uint8_t *)map)[id] = 1;
}

/* Declare gone every series of a table and forget its header and rows. */
static void
table_forget(struct lnstat_table *t, struct sink *sink)
{
	table_each_id(t, id_gone, sink);
	t->entries_id = SERIES_NONE;
	t->nrows = 0;
	t->ncols = 0;
	t->headerlen = 0;
}

/* After a header change: declare gone the saved ids the table no longer reports. Done at
 * the end of the sample so that a field kept across the change is never gone and back. */
static void
table_gone_unless_kept(struct source *src, struct lnstat_table *t, struct id_list *old,
                       struct sink *sink)
{
	uint8_t *map = xcalloc(src->reg->n ? src->reg->n : 1, 1);

	table_each_id(t, id_mark, map);
	for (size_t i = 0; i < old->n; i++) {
		if (!map[old->v[i]])
			sink_gone(sink, old->v[i]);
		map[old->v[i]] = 1; /* once */
	}
	free(map);
	free(old->v);
}

/* Close a table and free it. */
static void
table_free(struct lnstat_table *t)
{
	source_file_free(&t->file);
	for (size_t r = 0; r < t->rowscap; r++)
		pp_row_free(&t->rows[r].row);
	free(t->rows);
	free(t->header);
	free(t->sum_ids);
	free(t->sums);
	free(t->cpu_ids);
	free(t->prev);
	free(t);
}

/* The field names of a header line, one per column (bounded). */
static size_t
header_fields(const char *h, const char *end, const char **tok, size_t *len)
{
	size_t n = 0;

	while (n < LNSTAT_MAX_COLUMNS && pp_token(&h, end, &tok[n], &len[n]) == 0)
		n++;
	return n;
}

/* Intern the series of a new header: the sums (from 0) and the entries gauge; no rows. */
static void
table_intern_header(struct source *src, struct lnstat_table *t, const char *h, const char *end)
{
	const char *tok[LNSTAT_MAX_COLUMNS];
	size_t len[LNSTAT_MAX_COLUMNS];

	struct series_labels l = source_labels(src);

	l.table = source_atom(src, t->name, strlen(t->name));
	t->ncols = header_fields(h, end, tok, len);
	t->entries_col = -1;
	t->entries_id = SERIES_NONE;
	t->sum_ids = xreallocarray(t->sum_ids, t->ncols ? t->ncols : 1, sizeof(*t->sum_ids));
	t->sums = xreallocarray(t->sums, t->ncols ? t->ncols : 1, sizeof(*t->sums));
	for (size_t c = 0; c < t->ncols; c++) {
		t->sum_ids[c] = SERIES_NONE;
		t->sums[c] = 0;
		if (len[c] > LNSTAT_MAX_FIELD)
			continue;
		l.field = source_atom(src, tok[c], len[c]);
		if (len[c] == 7 && memcmp(tok[c], "entries", 7) == 0 && t->entries_col < 0) {
			t->entries_col = (long)c;
			t->entries_id =
			    series_internf(src->reg, SERIES_GAUGE, src->index, "entries", 1.0, &l,
			                   "lnstat.%s.entries", t->name);
			continue;
		}
		t->sum_ids[c] = series_internf(src->reg, SERIES_COUNTER, src->index,
		                               series_unit_guess(tok[c], len[c], false), 1.0, &l,
		                               "lnstat.%s.%.*s", t->name, (int)len[c], tok[c]);
	}
	t->nrows = 0;
}

/* Intern the per-CPU series of row r (growing the row arrays). */
static void
table_add_row(struct source *src, struct lnstat_table *t, size_t r)
{
	const struct lnstat_opts *o = src->opts;
	bool per_cpu = o != NULL && o->per_cpu;
	const char *tok[LNSTAT_MAX_COLUMNS];
	size_t len[LNSTAT_MAX_COLUMNS];
	struct series_labels l = source_labels(src);
	size_t n;

	if (r >= t->rowscap) {
		size_t cap = t->rowscap ? t->rowscap * 2 : 4;

		while (cap <= r)
			cap *= 2;
		t->cpu_ids =
		    xreallocarray(t->cpu_ids, cap * LNSTAT_MAX_COLUMNS, sizeof(*t->cpu_ids));
		t->prev = xreallocarray(t->prev, cap * LNSTAT_MAX_COLUMNS, sizeof(*t->prev));
		t->rows = xreallocarray(t->rows, cap, sizeof(*t->rows));
		memset(t->rows + t->rowscap, 0, (cap - t->rowscap) * sizeof(*t->rows));
		t->rowscap = cap;
	}
	n = header_fields(t->header, t->header + t->headerlen, tok, len);
	l.table = source_atom(src, t->name, strlen(t->name));
	l.cpu = r < CPUSET_MAX_CPUS ? (int16_t)r : -1;
	for (size_t c = 0; c < t->ncols; c++) {
		series_id *id = &t->cpu_ids[r * t->ncols + c];

		*id = SERIES_NONE;
		t->prev[r * t->ncols + c] = 0;
		if (!per_cpu || c >= n || (long)c == t->entries_col || len[c] > LNSTAT_MAX_FIELD)
			continue;
		l.field = source_atom(src, tok[c], len[c]);
		*id = series_internf(src->reg, SERIES_COUNTER32, src->index,
		                     series_unit_guess(tok[c], len[c], false), 1.0, &l,
		                     "lnstat.%s.cpu%zu.%.*s", t->name, r, (int)len[c], tok[c]);
	}
}

/* Report cell c of row r when it changed (or force): its increment added to the sum; entries
 * from row 0. */
static void
table_cell(struct lnstat_table *t, size_t r, size_t c, uint32_t v, bool force, struct sink *sink)
{
	uint32_t *prev;

	if ((long)c == t->entries_col) {
		if (r == 0)
			sink_put(sink, t->entries_id, v);
		return;
	}
	prev = &t->prev[r * t->ncols + c];
	if (!force && v == *prev)
		return;
	/* A u32 difference is the increment across a wrap too; a new cell's prev is 0. */
	t->sums[c] += (uint32_t)(v - *prev);
	*prev = v;
	if (t->cpu_ids[r * t->ncols + c] != SERIES_NONE)
		sink_put(sink, t->cpu_ids[r * t->ncols + c], v);
}

/* Report one row [s, end) parsed in full: every cell (see table_cell). Tokens that are not
 * hex counts are skipped, each still taking its column. Records where the cells end, for
 * the next read to parse only those that change. */
static void
table_row(struct lnstat_table *t, size_t r, bool force, struct sink *sink, const char *s,
          const char *end)
{
	struct pp_row *row = &t->rows[r].row;
	const char *tok, *p = s;
	size_t len;
	uint32_t v;

	/* The layout holds only when every token is a count of a column. */
	if (pp_skip_blanks(pp_row_parse(row, s, s, end, t->ncols, 16, NULL, NULL), end) != end)
		row->valid = false;
	for (size_t c = 0; c < t->ncols && pp_token(&p, end, &tok, &len) == 0; c++)
		if (parse_cell(tok, len, &v) == 0)
			table_cell(t, r, c, v, force, sink);
}

/* What a cell callback of pp_row_diff needs. */
struct row_ctx {
	struct lnstat_table *t;
	size_t r;
	struct sink *sink;
};

/* pp_row_diff callback: a cell whose bytes changed. One past 32 bits is skipped, as a full
 * parse skips it. */
static int
cell_changed(void *arg, size_t col, uint64_t val)
{
	struct row_ctx *cx = arg;

	if (val <= UINT32_MAX)
		table_cell(cx->t, cx->r, col, (uint32_t)val, false, cx->sink);
	return 0;
}

/* Report row r at s if only its cells changed since the kept read old: nothing when its bytes
 * are the same, else the cells whose bytes differ. false when it must be parsed in full (it
 * changed length or shape); *e is its end when true. */
static bool
table_row_cells(struct lnstat_table *t, size_t r, struct sink *sink, const char *s, const char *end,
                const char *old, const char **e)
{
	struct lnstat_row *lr = &t->rows[r];
	struct row_ctx cx = {t, r, sink};
	size_t skip = 0;

	/* Guess the end from the old length; the comparisons check the guess: the old row
	 * holds no '\n', and pp_row_diff fails on one. */
	*e = s + lr->len;
	if (old == NULL || lr->len == 0 || (size_t)(end - s) < lr->len ||
	    (*e != end && **e != '\n'))
		return false;
	/* Past row 0, an entries cell in front is not reported (table_cell): when the table
	 * grows it changes on every row, and is not even compared. */
	if (r > 0 && t->entries_col == 0 && lr->row.valid && lr->row.ncells > 0 &&
	    memchr(s, '\n', lr->row.end[0]) == NULL)
		skip = lr->row.end[0];
	/* pp_row_diff finds an unchanged row too, except one whose layout it cannot use. */
	return pp_row_diff_from(&lr->row, s, old + lr->off, lr->len, skip, 16, cell_changed, &cx) ==
	           0 ||
	       (!lr->row.valid && memcmp(s, old + lr->off, lr->len) == 0);
}

/* Forget the per-CPU series of rows r and up (the file got shorter). */
static void
table_drop_rows(struct lnstat_table *t, size_t r, struct sink *sink)
{
	for (size_t i = r * t->ncols; i < t->nrows * t->ncols; i++)
		if (t->cpu_ids[i] != SERIES_NONE)
			sink_gone(sink, t->cpu_ids[i]);
	t->nrows = r;
}

/* What a new header keeps of the old layout, so that kept fields' counters run on. */
struct lnstat_carry {
	long from[LNSTAT_MAX_COLUMNS]; /* from[c]: the old column of new column c, or -1 */
	uint32_t *prev;                /* the old t->prev */
	size_t ocols, orows;
};

/* Take a new header line [h, e): save every old id in old, intern the header, carry each
 * kept field's sum over to its new column and keep the old per-CPU values in carry for
 * the rows to come (rare: allocating here is fine). */
static void
table_relayout(struct source *src, struct lnstat_table *t, const char *h, const char *e,
               struct id_list *old, struct lnstat_carry *carry)
{
	size_t ocols = t->ncols, len = (size_t)(e - h);
	series_id *osum_ids = xreallocarray(NULL, ocols + 1, sizeof(*osum_ids));
	uint64_t *osums = xreallocarray(NULL, ocols + 1, sizeof(*osums));

	old->v = xreallocarray(NULL, 1 + ocols + t->nrows * ocols, sizeof(*old->v));
	old->n = 0;
	table_each_id(t, id_save, old);
	carry->ocols = ocols;
	carry->orows = t->nrows;
	carry->prev = xreallocarray(NULL, t->nrows * ocols + 1, sizeof(*carry->prev));
	if (ocols > 0) {
		memcpy(osum_ids, t->sum_ids, ocols * sizeof(*osum_ids));
		memcpy(osums, t->sums, ocols * sizeof(*osums));
	}
	if (t->nrows > 0 && ocols > 0)
		memcpy(carry->prev, t->prev, t->nrows * ocols * sizeof(*carry->prev));
	if (t->header == NULL || len > t->headercap) {
		t->headercap = len * 2 + 1;
		t->header = xreallocarray(t->header, t->headercap, 1);
	}
	memcpy(t->header, h, len);
	t->headerlen = len;
	table_intern_header(src, t, h, e);
	/* Same name, same id: match the columns by id. */
	for (size_t c = 0; c < t->ncols; c++) {
		carry->from[c] = -1;
		for (size_t oc = 0; t->sum_ids[c] != SERIES_NONE && oc < ocols; oc++) {
			if (osum_ids[oc] == t->sum_ids[c]) {
				carry->from[c] = (long)oc;
				t->sums[c] = osums[oc];
				break;
			}
		}
	}
	free(osum_ids);
	free(osums);
}

/* Give a new row r the old per-CPU values of its kept fields. */
static void
table_carry_row(struct lnstat_table *t, const struct lnstat_carry *carry, size_t r)
{
	if (r >= carry->orows)
		return;
	for (size_t c = 0; c < t->ncols; c++)
		if (carry->from[c] >= 0)
			t->prev[r * t->ncols + c] =
			    carry->prev[r * carry->ocols + (size_t)carry->from[c]];
}

/* Read one table and report it; -1 when the read fails (the file is gone). */
static int
table_sample(struct source *src, struct lnstat_table *t, struct sink *sink)
{
	struct id_list old = {NULL, 0};
	struct lnstat_carry carry = {0};
	const char *buf, *prev, *s, *e, *end;
	struct nm_error err;
	bool changed = false;
	size_t r = 0;
	ssize_t n;

	n = source_file_read(src, &t->file, &buf, &err);
	if (n < 0)
		return -1;
	if (n == 0)
		return 0; /* nothing to say; the kept read stays the one to compare with */
	prev = source_file_prev(&t->file, NULL);
	end = buf + n;
	e = line_end(buf, end);
	if (t->header == NULL || t->headerlen != (size_t)(e - buf) ||
	    memcmp(t->header, buf, t->headerlen) != 0) {
		table_relayout(src, t, buf, e, &old, &carry);
		changed = true;
	}
	for (s = e + (e < end); s < end && r < LNSTAT_MAX_ROWS; s = e + (e < end)) {
		if (r >= t->nrows || !table_row_cells(t, r, sink, s, end, prev, &e)) {
			e = line_end(s, end);
			if (pp_skip_blanks(s, e) == e)
				continue;
			if (r >= t->nrows) {
				table_add_row(src, t, r);
				if (changed)
					table_carry_row(t, &carry, r);
				t->nrows = r + 1;
				table_row(t, r, true, sink, s, e);
			} else {
				/* pp_row_diff may have put some cells: the rest only change. */
				table_row(t, r, false, sink, s, e);
			}
		}
		t->rows[r].off = (size_t)(s - buf);
		t->rows[r].len = (size_t)(e - s);
		r++;
	}
	if (r < t->nrows)
		table_drop_rows(t, r, sink);
	for (size_t c = 0; c < t->ncols; c++)
		if (t->sum_ids[c] != SERIES_NONE)
			sink_put(sink, t->sum_ids[c], t->sums[c]);
	if (changed) {
		table_gone_unless_kept(src, t, &old, sink);
		free(carry.prev);
	}
	source_file_keep(&t->file);
	return 0;
}

/* The table named name, or NULL. */
static struct lnstat_table *
find_table(struct lnstat_priv *p, const char *name)
{
	for (size_t i = 0; i < p->ntables; i++)
		if (strcmp(p->tables[i]->name, name) == 0)
			return p->tables[i];
	return NULL;
}

/* Open a newly listed file and add it as a table. */
static void
add_table(struct source *src, const char *name, unsigned char type)
{
	struct lnstat_priv *p = src->priv;
	struct lnstat_table *t;
	struct nm_error err;
	struct stat st;

	if (type != DT_REG && type != DT_UNKNOWN)
		return;
	if (p->ntables >= LNSTAT_MAX_TABLES || strlen(name) > NAME_MAX)
		return;
	t = xcalloc(1, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(t->path, sizeof(t->path), LNSTAT_DIR "/%s", name);
	source_file_init(&t->file, t->path);
	if (source_file_open(src, &t->file, &err) < 0) {
		log_debug("%s", err.message);
		free(t);
		return;
	}
	if (type == DT_UNKNOWN && (fstat(t->file.fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		table_free(t);
		return;
	}
	t->seen = true;
	t->entries_col = -1;
	t->entries_id = SERIES_NONE;
	if (p->ntables == p->tablescap) {
		p->tablescap = p->tablescap ? p->tablescap * 2 : 8;
		p->tables = xreallocarray(p->tables, p->tablescap, sizeof(*p->tables));
	}
	p->tables[p->ntables++] = t;
}

/* Remove table i: its series are gone. */
static void
remove_table(struct lnstat_priv *p, size_t i, struct sink *sink)
{
	struct lnstat_table *t = p->tables[i];

	if (sink != NULL)
		table_forget(t, sink);
	table_free(t);
	p->tables[i] = p->tables[--p->ntables];
}

/* List the directory: add new files, drop tables whose file is gone. */
static int
scan_dir(struct source *src, struct sink *sink)
{
	struct lnstat_priv *p = src->priv;
	char dents[4096] __attribute__((aligned(8)));
	struct lnstat_table *t;
	ssize_t n;

	if (lseek(p->dirfd, 0, SEEK_SET) < 0)
		return -1;
	for (size_t i = 0; i < p->ntables; i++)
		p->tables[i]->seen = false;
	while ((n = getdents64(p->dirfd, dents, sizeof(dents))) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(dents + off);

			off += d->d_reclen;
			if (d->d_name[0] == '.')
				continue;
			if ((t = find_table(p, d->d_name)) != NULL)
				t->seen = true;
			else
				add_table(src, d->d_name, d->d_type);
		}
	}
	if (n < 0)
		return -1;
	for (size_t i = p->ntables; i-- > 0;)
		if (!p->tables[i]->seen)
			remove_table(p, i, sink);
	p->since_scan = 0;
	p->rescan = false;
	return 0;
}

/* Allocate the state, open the directory and list it. */
static int
lnstat_init(struct source *src, struct nm_error *err)
{
	struct lnstat_priv *p = xcalloc(1, sizeof(*p));

	src->priv = p;
	p->dirfd = source_open(src, LNSTAT_DIR);
	if (p->dirfd < 0)
		return nm_error_set(err, NM_ERR_FAILED, "source lnstat: %s: open failed: %s",
		                    LNSTAT_DIR, strerror(errno));
	/* No series exist yet, so there is nothing to declare gone. */
	if (scan_dir(src, NULL) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "source lnstat: %s: listing failed: %s",
		                    LNSTAT_DIR, strerror(errno));
	return 0;
}

/* List the directory when due, then read every table. */
static int
lnstat_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct lnstat_priv *p = src->priv;

	if ((p->rescan || p->since_scan >= LNSTAT_RESCAN_SAMPLES) && scan_dir(src, sink) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "source lnstat: %s: listing failed: %s",
		                    LNSTAT_DIR, strerror(errno));
	p->since_scan++;
	for (size_t i = p->ntables; i-- > 0;) {
		if (table_sample(src, p->tables[i], sink) == 0)
			continue;
		log_debug("source lnstat: %s: read failed: %s", p->tables[i]->name,
		          strerror(errno));
		remove_table(p, i, sink);
		p->rescan = true;
	}
	return 0;
}

/* The tables read, for status. */
static json_object *
lnstat_describe(struct source *src)
{
	struct lnstat_priv *p = src->priv;
	json_object *o = json_object_new_object(), *tables = json_object_new_array();

	for (size_t i = 0; p != NULL && i < p->ntables; i++)
		json_object_array_add(tables, json_object_new_string(p->tables[i]->name));
	json_object_object_add(o, "tables", tables);
	json_object_object_add(
	    o, "per_cpu",
	    json_object_new_boolean(src->opts != NULL &&
	                            ((const struct lnstat_opts *)src->opts)->per_cpu));
	return o;
}

/* [source.lnstat] per-cpu = yes | no. */
static int
lnstat_configure(struct source *src, const char *key, const char *val, struct nm_error *err)
{
	struct lnstat_opts *o = src->opts;
	bool b;

	if (strcmp(key, "per-cpu") != 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[source.lnstat]: unknown key \"%s\"",
		                    key);
	if (config_parse_bool(val, &b) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "source lnstat: per-cpu = %s: not a boolean", val);
	if (o == NULL)
		o = src->opts = xcalloc(1, sizeof(*o));
	o->per_cpu = b;
	return 0;
}

/* Close the directory and the tables and free the state. */
static void
lnstat_free(struct source *src)
{
	struct lnstat_priv *p = src->priv;

	free(src->opts);
	src->opts = NULL;
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->ntables; i++)
		table_free(p->tables[i]);
	free(p->tables);
	if (p->dirfd >= 0)
		close(p->dirfd);
	free(p);
	src->priv = NULL;
}

/* Its Prometheus families (serve/prom.c): the sums over CPUs, the entries of a table, the
 * per-CPU cells (opt-in). */
static const struct source_family lnstat_families[] = {
    {"netmetrics_lnstat_entries",
     {.kind = SOURCE_GAUGES,
      .field = (const char *const[]){"*entries", NULL},
      .cpu = SOURCE_HAS_NO},
     false},
    {SOURCE_NO_FAMILY, {.kind = SOURCE_GAUGES}, false},
    {"netmetrics_lnstat_cpu", {.cpu = SOURCE_HAS}, false},
    {"netmetrics_lnstat", {.kind = SOURCE_ANY_KIND}, false},
    {NULL, {.kind = SOURCE_ANY_KIND}, false},
};
/* Results keep the sums, not the per-CPU cells (by name: a row past CPUSET_MAX_CPUS has no
 * cpu label). */
static const struct source_match lnstat_not_kept = {.name = "lnstat.*.cpu[0-9]*"};

const struct source_ops source_lnstat_ops = {
    .name = "lnstat",
    .prom = lnstat_families,
    .keep = SOURCE_KEPT,
    .keep_except = &lnstat_not_kept,
    .description = "per-CPU tables of /proc/net/stat (rt_cache, arp_cache, nf_conntrack...)",
    .configure = lnstat_configure,
    .init = lnstat_init,
    .sample = lnstat_sample,
    .describe = lnstat_describe,
    .free = lnstat_free,
};
