/* source-softirqs.c: per-type per-CPU softirq counts from /proc/softirqs.
 *
 * The first line lists CPUs ("CPU0 CPU1 ..."; the kernel prints every possible CPU, but
 * columns are mapped by their header, never assumed). Each row is a type and ':' then one
 * 32-bit count per column: HI TIMER NET_TX NET_RX BLOCK IRQ_POLL TASKLET SCHED HRTIMER
 * RCU, each cell becoming softirq.<TYPE>.cpu<C> (COUNTER32, "softirqs").
 *
 * As in source-interrupts.c, the file is read into two buffers in turn: a row
 * byte-identical to the last read is skipped, a row of the same length is compared and
 * only its changed cells parsed (pp_row_diff), anything else is parsed in full. Rows are
 * matched by name; a row that moved is swapped into place, a new type gets a row and a
 * type no longer listed is declared gone. A changed CPU header maps the columns again and
 * declares gone the cells of CPUs no longer listed. A file cut mid-line is read up to its
 * last complete row and nothing is declared gone. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cpulist.h"
#include "error.h"
#include "jsonutil.h"
#include "procparse.h"
#include "source.h"
#include "xmalloc.h"

#define SOFTIRQ_PATH     "proc/softirqs"
#define SOFTIRQ_MAX_CPUS CPUSET_MAX_CPUS
#define SOFTIRQ_NAME_MAX 32 /* rows with longer names are ignored */

/* One row: a softirq type. */
struct softirq_row {
	char name[SOFTIRQ_NAME_MAX];
	size_t name_len;
	size_t prev_off, prev_len; /* the row in the previous buffer; prev_len 0: none */
	struct pp_row row;         /* where its counts ended */
	series_id *ids;            /* [ncpus] */
};

struct softirq_priv {
	struct source_file file; /* /proc/softirqs */
	size_t header_len;
	struct pp_cpu_cols hdr; /* the CPU columns; hdr.ncpus: length of each ids array */
	uint64_t *scratch;      /* counts of a row parsed in full */
	struct softirq_row *rows;
	size_t nrows, rowcap;
	size_t cells_put; /* in the last sample */
};

/* What the cell callback needs. */
struct softirq_ctx {
	struct softirq_priv *pv;
	struct softirq_row *row;
	struct sink *sink;
};

/* Intern softirq.<name>.cpu<cpu>. */
static series_id
intern_cell(struct source *src, const struct softirq_row *r, unsigned cpu)
{
	char name[SOFTIRQ_NAME_MAX + 40];
	size_t n;
	struct series_labels l = source_labels(src);

	memcpy(name, "softirq.", 8);
	memcpy(name + 8, r->name, r->name_len);
	n = 8 + r->name_len;
	memcpy(name + n, ".cpu", 4);
	n += 4;
	n += pp_utoa(cpu, name + n);
	l.type = source_atom(src, r->name, r->name_len);
	l.cpu = (int16_t)cpu;
	return series_intern(src->reg, name, n, SERIES_COUNTER32, src->index, "softirqs", 1.0, &l);
}

/* Declare gone every series of a row and free it. */
static void
row_drop(struct sink *sink, struct softirq_priv *pv, struct softirq_row *r)
{
	for (unsigned cpu = 0; cpu < pv->hdr.ncpus; cpu++) {
		if (r->ids[cpu] != SERIES_NONE)
			sink_gone(sink, r->ids[cpu]);
	}
	pp_row_free(&r->row);
	free(r->ids);
}

/* Add a row for a new name at index k (rows from k on move up one). */
static struct softirq_row *
row_insert(struct softirq_priv *pv, size_t k, const char *name, size_t len)
{
	struct softirq_row *r;

	if (pv->nrows == pv->rowcap) {
		pv->rowcap = pv->rowcap ? pv->rowcap * 2 : 16;
		pv->rows = xreallocarray(pv->rows, pv->rowcap, sizeof(*pv->rows));
	}
	memmove(&pv->rows[k + 1], &pv->rows[k], (pv->nrows - k) * sizeof(*pv->rows));
	pv->nrows++;
	r = &pv->rows[k];
	memset(r, 0, sizeof(*r));
	memcpy(r->name, name, len);
	r->name_len = len;
	r->ids = xreallocarray(NULL, pv->hdr.ncpus ? pv->hdr.ncpus : 1, sizeof(*r->ids));
	for (unsigned cpu = 0; cpu < pv->hdr.ncpus; cpu++)
		r->ids[cpu] = SERIES_NONE;
	return r;
}

/* The row for name, put at index k: the row already there, one found further on (swapped
 * in), or a new one. NULL when rows before k already have the name (listed twice). */
static struct softirq_row *
row_at(struct softirq_priv *pv, size_t k, const char *name, size_t len)
{
	struct softirq_row tmp;

	for (size_t j = 0; j < k; j++) {
		if (pv->rows[j].name_len == len && memcmp(pv->rows[j].name, name, len) == 0)
			return NULL;
	}
	for (size_t j = k; j < pv->nrows; j++) {
		if (pv->rows[j].name_len == len && memcmp(pv->rows[j].name, name, len) == 0) {
			if (j != k) {
				tmp = pv->rows[k];
				pv->rows[k] = pv->rows[j];
				pv->rows[j] = tmp;
			}
			return &pv->rows[k];
		}
	}
	return row_insert(pv, k, name, len);
}

/* Keep the counts of a row parsed in full. */
static int
cell_store(void *arg, size_t col, uint64_t val)
{
	struct softirq_priv *pv = arg;

	pv->scratch[col] = val;
	return 0;
}

/* Put one cell whose bytes changed; -1 (parse in full) when it has no series. */
static int
cell_changed(void *arg, size_t col, uint64_t val)
{
	struct softirq_ctx *cx = arg;
	series_id id;

	if (col >= cx->pv->hdr.ncols || (id = cx->row->ids[cx->pv->hdr.cols[col]]) == SERIES_NONE)
		return -1;
	sink_put(cx->sink, id, val);
	cx->pv->cells_put++;
	return 0;
}

/* Handle a row that is not byte-identical to its previous read: the changed cells when the
 * layout held, else every cell. p is just past the label, eol the row's end. */
static void
process_row(struct source *src, struct softirq_ctx *cx, const char *buf, const char *line,
            const char *p, const char *eol, const char *old, bool full)
{
	struct softirq_priv *pv = cx->pv;
	struct softirq_row *r = cx->row;
	size_t len = (size_t)(eol - line), c, n;
	unsigned cpu;

	if (full || old == NULL || r->prev_len != len ||
	    pp_row_diff(&r->row, line, old + r->prev_off, len, 10, cell_changed, cx) < 0) {
		pp_row_parse(&r->row, line, p, eol, pv->hdr.ncols, 10, cell_store, pv);
		n = r->row.ncells;
		for (c = 0; c < n; c++) {
			cpu = pv->hdr.cols[c];
			if (r->ids[cpu] == SERIES_NONE)
				r->ids[cpu] = intern_cell(src, r, cpu);
			sink_put(cx->sink, r->ids[cpu], pv->scratch[c]);
		}
		pv->cells_put += n;
		for (; c < pv->hdr.ncols; c++) {
			cpu = pv->hdr.cols[c];
			if (r->ids[cpu] != SERIES_NONE) {
				sink_gone(cx->sink, r->ids[cpu]);
				r->ids[cpu] = SERIES_NONE;
			}
		}
	}
	r->prev_off = (size_t)(line - buf);
	r->prev_len = len;
}

/* Read the CPU header; when its CPUs changed, grow the per-CPU arrays and declare gone the
 * cells of CPUs no longer listed. */
static int
read_header(struct softirq_priv *pv, struct sink *sink, const char *line, const char *eol,
            bool *remapped, struct nm_error *err)
{
	unsigned old, cpu;
	int r = pp_cpu_cols_read(&pv->hdr, line, eol, "source softirqs: " SOFTIRQ_PATH, &old, err);

	if (r <= 0)
		return r;
	for (size_t i = 0; i < pv->nrows; i++) {
		struct softirq_row *row = &pv->rows[i];

		if (pv->hdr.ncpus > old) {
			row->ids = xreallocarray(row->ids, pv->hdr.ncpus, sizeof(*row->ids));
			for (cpu = old; cpu < pv->hdr.ncpus; cpu++)
				row->ids[cpu] = SERIES_NONE;
		}
		for (cpu = 0; cpu < old; cpu++) {
			if (row->ids[cpu] != SERIES_NONE && !cpuset_has(pv->hdr.online, cpu)) {
				sink_gone(sink, row->ids[cpu]);
				row->ids[cpu] = SERIES_NONE;
			}
		}
	}
	*remapped = true;
	return 0;
}

/* Allocate the state and open /proc/softirqs. */
static int
softirqs_init(struct source *src, struct nm_error *err)
{
	struct softirq_priv *pv = xcalloc(1, sizeof(*pv));

	src->priv = pv;
	pp_cpu_cols_init(&pv->hdr);
	pv->scratch = xcalloc(SOFTIRQ_MAX_CPUS, sizeof(*pv->scratch));
	source_file_init(&pv->file, SOFTIRQ_PATH);
	return source_file_open(src, &pv->file, err);
}

/* Read /proc/softirqs once and put what changed. */
static int
softirqs_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct softirq_priv *pv = src->priv;
	struct softirq_ctx cx = {pv, NULL, sink};
	const char *buf, *end, *old, *p, *eol, *lp, *label;
	struct softirq_row *r;
	bool remapped = false;
	size_t k = 0, len;
	ssize_t n;

	n = source_file_read(src, &pv->file, &buf, err);
	if (n < 0)
		return -1;
	end = buf + n;
	old = source_file_prev(&pv->file, NULL);
	pv->cells_put = 0;

	eol = pp_eol(buf, end);
	if (eol == NULL)
		return nm_error_set(err, NM_ERR_FAILED,
		                    "source softirqs: " SOFTIRQ_PATH ": no CPU header");
	if ((old == NULL || !pp_same_line(buf, end, old, pv->header_len)) &&
	    read_header(pv, sink, buf, eol, &remapped, err) < 0)
		return -1;
	pv->header_len = (size_t)(eol - buf);

	for (p = eol + 1; p < end; p = eol + 1) {
		r = k < pv->nrows ? &pv->rows[k] : NULL;
		/* The row at this place last time, same length: only the cells that changed
		 * (nothing when it is byte-identical). A different type differs in the label,
		 * which stops the diff before any put. */
		if (!remapped && r != NULL && r->prev_len > 0 && (size_t)(end - p) > r->prev_len &&
		    p[r->prev_len] == '\n') {
			cx.row = r;
			if (pp_row_diff(&r->row, p, old + r->prev_off, r->prev_len, 10,
			                cell_changed, &cx) == 0) {
				eol = p + r->prev_len;
				r->prev_off = (size_t)(p - buf);
				k++;
				continue;
			}
		}
		eol = pp_eol(p, end);
		if (eol == NULL) {
			/* Cut mid-line: the rows not read keep their values. */
			for (; k < pv->nrows; k++)
				pv->rows[k].prev_len = 0;
			goto done;
		}
		lp = p;
		if (pp_label(&lp, eol, &label, &len) < 0 || len >= SOFTIRQ_NAME_MAX)
			continue;
		if ((r = row_at(pv, k, label, len)) == NULL)
			continue;
		k++;
		cx.row = r;
		process_row(src, &cx, buf, p, lp, eol, r->prev_len > 0 ? old : NULL, remapped);
	}
	/* Types no longer listed. */
	while (pv->nrows > k)
		row_drop(sink, pv, &pv->rows[--pv->nrows]);
done:
	source_file_keep(&pv->file);
	return 0;
}

/* Facts for status. */
static json_object *
softirqs_describe(struct source *src)
{
	struct softirq_priv *pv = src->priv;
	json_object *o = json_object_new_object();

	if (pv == NULL)
		return o;
	json_add_uint(o, "types", pv->nrows);
	json_add_uint(o, "cpus", pv->hdr.ncols);
	json_add_uint(o, "cells_put", pv->cells_put);
	return o;
}

/* Close the file and free the rows. */
static void
softirqs_free(struct source *src)
{
	struct softirq_priv *pv = src->priv;

	if (pv == NULL)
		return;
	source_file_free(&pv->file);
	for (size_t i = 0; i < pv->nrows; i++) {
		pp_row_free(&pv->rows[i].row);
		free(pv->rows[i].ids);
	}
	free(pv->rows);
	pp_cpu_cols_free(&pv->hdr);
	free(pv->scratch);
	free(pv);
	src->priv = NULL;
}

/* Its Prometheus family (serve/prom.c): the per-CPU counters; the others are not exported. */
static const struct source_family softirqs_families[] = {
    {"netmetrics_softirqs", {.kind = SOURCE_COUNTERS, .cpu = SOURCE_HAS}, false},
    {SOURCE_NO_FAMILY, {.kind = SOURCE_ANY_KIND}, false},
    {NULL, {.kind = SOURCE_ANY_KIND}, false},
};

const struct source_ops source_softirqs_ops = {
    .name = "softirqs",
    .prom = softirqs_families,
    .keep = SOURCE_KEPT,
    .description = "per-type per-CPU softirq counts (/proc/softirqs)",
    .configure = NULL,
    .init = softirqs_init,
    .sample = softirqs_sample,
    .describe = softirqs_describe,
    .free = softirqs_free,
};
