/* source-softnet.c: per-CPU packet processing counters from /proc/net/softnet_stat.
 *
 * One line per online CPU of "%08x" columns: processed, dropped, time_squeeze, five zeros
 * (the old throttled and fastroute counters), cpu_collision (a transmit lock found held by
 * another CPU; counted by 2.6 to 4.x kernels, 0 since), then received_rps (2.6.35),
 * flow_limit_count (3.11), the backlog length and the CPU number (5.10), the input and
 * process queue lengths (6.x). Every kernel since 2.6 prints at least the first nine: a
 * line of fewer is not a softnet row and is skipped. The CPU of a line is its column 13
 * when present, else its position (older kernels; right only while no CPU is offline).
 * Each CPU gets softnet.cpu<C>.processed, .dropped, .time_squeeze, .cpu_collision,
 * .received_rps, .flow_limit_count (COUNTER32; each when the kernel prints its column)
 * and, when the kernel prints it, .backlog (GAUGE).
 *
 * The file is read into two buffers in turn: a line of the same length as the one at the
 * same position last time is compared with it and only its changed columns are parsed
 * (pp_row_diff; nothing when it is byte-identical), any other is parsed in full. A CPU no
 * longer listed has its series declared gone; when it comes back they are interned again
 * (same ids) and put. A read always runs to the end of the file (source_file_read), so a
 * last line without a final newline is a whole line and is parsed like the others.
 *
 * The kernel prints every cell "%08x", so the file is a grid (pp_hex_grid): when the read
 * before was one, every line parsed, and this read has its length, the two are compared
 * whole and a changed byte's place says its line and column (pp_hex_grid_diff); the lines
 * are not walked, and the CPUs listed are those listed before. Anything else in the
 * difference (a '\n' moved, a CPU number changed) sends the read the per-line way. At 10 ms
 * on 144 CPUs the per-line way cost about 35 us a sample, most of it waiting on each line's
 * kept state. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jsonutil.h"
#include "procparse.h"
#include "source.h"
#include "xmalloc.h"

#define SOFTNET_PATH     "proc/net/softnet_stat"
#define SOFTNET_MAX_CPUS 8192
#define SOFTNET_MAX_COLS 32 /* columns parsed per line; more are ignored */
#define SOFTNET_COL_CPU  12 /* column 13: the CPU number (5.10 and later) */
#define SOFTNET_MIN_COLS 9  /* processed .. cpu_collision: every kernel since 2.6 */

/* The series of a CPU, with the column each comes from. */
static const struct {
	const char *name;
	unsigned col;
	enum series_kind kind;
	const char *unit;
} softnet_fields[] = {
    {"processed", 0, SERIES_COUNTER32, "packets"},
    {"dropped", 1, SERIES_COUNTER32, "drops"},
    {"time_squeeze", 2, SERIES_COUNTER32, "events"},
    {"cpu_collision", 8, SERIES_COUNTER32, "events"},    /* 0 on kernels since 4.x */
    {"received_rps", 9, SERIES_COUNTER32, "interrupts"}, /* RPS IPIs this CPU took */
    {"flow_limit_count", 10, SERIES_COUNTER32, "packets"},
    {"backlog", 11, SERIES_GAUGE, "packets"},
};
#define SOFTNET_NFIELDS (sizeof(softnet_fields) / sizeof(softnet_fields[0]))

/* One CPU's series. */
struct softnet_cpu {
	series_id ids[SOFTNET_NFIELDS];
	uint64_t vals[SOFTNET_NFIELDS]; /* last put */
	bool present;                   /* listed in the last complete read */
	bool seen;                      /* listed in this read */
};

/* A line by its position. */
struct softnet_line {
	size_t prev_off, prev_len; /* in the previous buffer; prev_len 0: none */
	struct pp_row row;
	unsigned cpu;
};

struct softnet_priv {
	struct source_file file; /* /proc/net/softnet_stat */
	struct softnet_cpu *cpus;
	size_t ncpus;
	struct softnet_line *lines;
	size_t nlines;
	uint64_t scratch[SOFTNET_MAX_COLS];
	unsigned listed, puts; /* CPUs listed and values put in the last sample */
	uint32_t grid_cols;    /* the kept read is a grid of this many columns; 0: not one */
	uint64_t by_grid;      /* samples read by the grid compare */
};

/* What the cell callback needs: the changes of one line are held until the whole line is
 * known to still be the same CPU's. */
struct softnet_ctx {
	struct softnet_cpu *c;
	size_t n;
	int field[SOFTNET_NFIELDS];
	uint64_t val[SOFTNET_NFIELDS];
};

/* Make room for CPU cpu (allocates only for a higher CPU number than ever). */
static void
cpus_reserve(struct softnet_priv *pv, size_t cpu)
{
	size_t n = pv->ncpus ? pv->ncpus : 64;

	if (cpu < pv->ncpus)
		return;
	while (n <= cpu)
		n *= 2;
	pv->cpus = xreallocarray(pv->cpus, n, sizeof(*pv->cpus));
	for (size_t i = pv->ncpus; i < n; i++) {
		memset(&pv->cpus[i], 0, sizeof(pv->cpus[i]));
		for (size_t f = 0; f < SOFTNET_NFIELDS; f++)
			pv->cpus[i].ids[f] = SERIES_NONE;
	}
	pv->ncpus = n;
}

/* The field of a column, or -1. */
static int
field_of(size_t col)
{
	for (size_t f = 0; f < SOFTNET_NFIELDS; f++) {
		if (softnet_fields[f].col == col)
			return (int)f;
	}
	return -1;
}

/* Put one value when it changed or was never put. */
static void
put_field(struct softnet_priv *pv, struct sink *sink, struct softnet_cpu *c, int f, bool known,
          uint64_t v)
{
	if (known && c->vals[f] == v)
		return;
	c->vals[f] = v;
	sink_put(sink, c->ids[f], v);
	pv->puts++;
}

/* Note a changed column of a line parsed before; -1 (parse in full) when the CPU number
 * changed or the column has no series. */
static int
cell_changed(void *arg, size_t col, uint64_t val)
{
	struct softnet_ctx *cx = arg;
	int f;

	if (col == SOFTNET_COL_CPU)
		return -1;
	if ((f = field_of(col)) < 0)
		return 0;
	if (cx->c->ids[f] == SERIES_NONE || cx->n == SOFTNET_NFIELDS)
		return -1;
	cx->field[cx->n] = f;
	cx->val[cx->n++] = val;
	return 0;
}

/* Keep the columns of a line parsed in full. */
static int
cell_store(void *arg, size_t col, uint64_t val)
{
	struct softnet_priv *pv = arg;

	pv->scratch[col] = val;
	return 0;
}

/* Parse line [p, eol), the nth, in full: find its CPU, intern and put its fields. */
static void
parse_full(struct source *src, struct softnet_priv *pv, struct sink *sink, struct softnet_line *ln,
           const char *p, const char *eol, size_t nth)
{
	struct softnet_cpu *c;
	size_t ncols, cpu;
	bool known;

	pp_row_parse(&ln->row, p, p, eol, SOFTNET_MAX_COLS, 16, cell_store, pv);
	ncols = ln->row.ncells;
	cpu = ncols > SOFTNET_COL_CPU ? pv->scratch[SOFTNET_COL_CPU] : nth;
	if (!ln->row.valid || ncols < SOFTNET_MIN_COLS || cpu >= SOFTNET_MAX_CPUS) {
		ln->row.valid = false;
		return;
	}
	cpus_reserve(pv, cpu);
	ln->cpu = (unsigned)cpu;
	c = &pv->cpus[cpu];
	known = c->present;
	for (size_t f = 0; f < SOFTNET_NFIELDS; f++) {
		if (softnet_fields[f].col >= ncols)
			continue;
		if (c->ids[f] == SERIES_NONE) {
			struct series_labels l = source_labels(src);
			l.cpu = (int16_t)cpu;
			l.field = source_atom(src, softnet_fields[f].name,
			                      strlen(softnet_fields[f].name));
			c->ids[f] = series_internf(
			    src->reg, softnet_fields[f].kind, src->index, softnet_fields[f].unit,
			    1.0, &l, "softnet.cpu%zu.%s", cpu, softnet_fields[f].name);
			put_field(pv, sink, c, (int)f, false, pv->scratch[softnet_fields[f].col]);
		} else
			put_field(pv, sink, c, (int)f, known, pv->scratch[softnet_fields[f].col]);
	}
	c->seen = true;
}

/* A line's changes held until the line is known to keep its CPU (grid_cell). */
struct softnet_grid_ctx {
	struct softnet_priv *pv;
	struct sink *sink;
	size_t line; /* of the changes held; SIZE_MAX: none */
	struct softnet_ctx cx;
};

/* Put the held changes of a line. */
static void
grid_flush(struct softnet_grid_ctx *g)
{
	for (size_t i = 0; i < g->cx.n; i++)
		put_field(g->pv, g->sink, g->cx.c, g->cx.field[i], true, g->cx.val[i]);
	g->cx.n = 0;
}

/* A changed cell of the grid: held with its line's other changes. */
static int
grid_cell_changed(void *arg, size_t line, size_t col, uint64_t val)
{
	struct softnet_grid_ctx *g = arg;

	if (line != g->line) {
		grid_flush(g);
		g->line = line;
		g->cx.c = &g->pv->cpus[g->pv->lines[line].cpu];
	}
	return cell_changed(&g->cx, col, val);
}

/* The read buf[0..n) by the grid compare with the kept one; -1: read it the per-line way
 * (a line's changes before the one that stopped it may have been put; put_field does not
 * put them again). */
static int
sample_grid(struct softnet_priv *pv, struct sink *sink, const char *buf, size_t n, const char *old,
            size_t oldlen)
{
	struct softnet_grid_ctx g = {pv, sink, SIZE_MAX, {NULL, 0, {0}, {0}}};

	if (pv->grid_cols == 0 || old == NULL || n != oldlen)
		return -1;
	if (pp_hex_grid_diff(buf, old, 0, n, pv->grid_cols, grid_cell_changed, &g) < 0)
		return -1;
	grid_flush(&g);
	pv->by_grid++;
	return 0;
}

/* After a per-line read: whether buf[0..n), every line of it parsed as a CPU's, is a grid
 * the next read can be compared with. */
static void
note_grid(struct softnet_priv *pv, const char *buf, size_t n, size_t nlines, bool all_parsed)
{
	const char *nl = memchr(buf, '\n', n);
	size_t first = nl != NULL ? (size_t)(nl - buf) + 1 : 0;

	pv->grid_cols = 0;
	if (!all_parsed || first == 0 || first % 9 != 0 || n / first != nlines ||
	    !pp_hex_grid(buf, 0, n, (uint32_t)(first / 9)))
		return;
	pv->grid_cols = (uint32_t)(first / 9);
}

/* Allocate the state and open /proc/net/softnet_stat. */
static int
softnet_init(struct source *src, struct nm_error *err)
{
	struct softnet_priv *pv = xcalloc(1, sizeof(*pv));

	src->priv = pv;
	source_file_init(&pv->file, SOFTNET_PATH);
	return source_file_open(src, &pv->file, err);
}

/* Read /proc/net/softnet_stat once and put what changed. */
static int
softnet_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct softnet_priv *pv = src->priv;
	struct softnet_ctx cx;
	const char *buf, *end, *old, *p, *eol;
	struct softnet_line *ln;
	size_t nth = 0, i, len, oldlen;
	bool all_parsed = true;
	ssize_t n;

	n = source_file_read(src, &pv->file, &buf, err);
	if (n < 0)
		return -1;
	end = buf + n;
	old = source_file_prev(&pv->file, &oldlen);
	pv->puts = 0;
	if (sample_grid(pv, sink, buf, (size_t)n, old, oldlen) == 0) {
		source_file_keep(&pv->file);
		return 0;
	}

	for (p = buf; p < end; p = eol + 1, nth++) {
		if (nth == pv->nlines) {
			pv->lines = xreallocarray(pv->lines, nth + 64, sizeof(*pv->lines));
			memset(&pv->lines[nth], 0, 64 * sizeof(*pv->lines));
			pv->nlines = nth + 64;
		}
		ln = &pv->lines[nth];
		len = ln->prev_len;
		/* Same length as the line at this place last time: compare, and parse only the
		 * columns that changed (nothing when none did). A '\n' that moved inside the
		 * compared bytes fails the diff. */
		if (len > 0 && (size_t)(end - p) > len && p[len] == '\n') {
			cx.c = &pv->cpus[ln->cpu];
			cx.n = 0;
			if (pp_row_diff(&ln->row, p, old + ln->prev_off, len, 16, cell_changed,
			                &cx) == 0) {
				for (i = 0; i < cx.n; i++)
					put_field(pv, sink, cx.c, cx.field[i], true, cx.val[i]);
				cx.c->seen = true;
				eol = p + len;
				ln->prev_off = (size_t)(p - buf);
				continue;
			}
		}
		/* The read reached the end of the file: a last line without '\n' is whole. */
		if ((eol = pp_eol(p, end)) == NULL)
			eol = end;
		len = (size_t)(eol - p);
		parse_full(src, pv, sink, ln, p, eol, nth);
		ln->prev_off = (size_t)(p - buf);
		ln->prev_len = ln->row.valid ? len : 0;
		all_parsed &= ln->row.valid;
	}
	note_grid(pv, buf, (size_t)n, nth, all_parsed);
	for (i = nth; i < pv->nlines; i++)
		pv->lines[i].prev_len = 0;
	pv->listed = 0;
	for (i = 0; i < pv->ncpus; i++) {
		struct softnet_cpu *c = &pv->cpus[i];

		if (c->present && !c->seen) {
			for (size_t f = 0; f < SOFTNET_NFIELDS; f++) {
				if (c->ids[f] != SERIES_NONE) {
					sink_gone(sink, c->ids[f]);
					c->ids[f] = SERIES_NONE;
				}
			}
		}
		c->present = c->seen;
		pv->listed += c->present;
		c->seen = false;
	}
	source_file_keep(&pv->file);
	return 0;
}

/* Facts for status. */
static json_object *
softnet_describe(struct source *src)
{
	struct softnet_priv *pv = src->priv;
	json_object *o = json_object_new_object();

	if (pv == NULL)
		return o;
	json_add_uint(o, "cpus", pv->listed);
	json_add_uint(o, "puts", pv->puts);
	json_add_uint(o, "grid_samples", pv->by_grid);
	return o;
}

/* Close the file and free the state. */
static void
softnet_free(struct source *src)
{
	struct softnet_priv *pv = src->priv;

	if (pv == NULL)
		return;
	source_file_free(&pv->file);
	for (size_t i = 0; i < pv->nlines; i++)
		pp_row_free(&pv->lines[i].row);
	free(pv->lines);
	free(pv->cpus);
	free(pv);
	src->priv = NULL;
}

/* Its Prometheus families (serve/prom.c): counters and levels. */
static const struct source_family softnet_families[] = {
    {"netmetrics_softnet_level", {.kind = SOURCE_GAUGES}, false},
    {"netmetrics_softnet", {.kind = SOURCE_ANY_KIND}, false},
    {NULL, {.kind = SOURCE_ANY_KIND}, false},
};

const struct source_ops source_softnet_ops = {
    .name = "softnet",
    .prom = softnet_families,
    .keep = SOURCE_KEPT,
    .description = "per-CPU packets processed, dropped and squeezed (/proc/net/softnet_stat)",
    .configure = NULL,
    .init = softnet_init,
    .sample = softnet_sample,
    .describe = softnet_describe,
    .free = softnet_free,
};
