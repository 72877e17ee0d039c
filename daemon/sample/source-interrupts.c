/* source-interrupts.c: per-IRQ per-CPU interrupt counts from /proc/interrupts.
 *
 * The first line lists the online CPUs ("CPU0 CPU1 ... CPU143"; an offline CPU has no
 * column). Each other line is a label ("45", "LOC") and ':', up to one count per column,
 * then for a numeric IRQ the chip, hwirq and trigger and the action names, for an arch
 * line a description. Everything is split on blanks, never on fixed columns. Each cell
 * becomes irq.<label>.cpu<C> (COUNTER32); a line with a single count (ERR, MIS) becomes
 * irq.<label>.total.
 *
 * On a 144-CPU host the file is ~2 MB and ~172,000 cells, and in a second only ~150 lines
 * change, most in one cell. So the file is read into one of two buffers in turn and every
 * line is compared with the same label's line of the previous read: a byte-identical line
 * is skipped (no sink_put: the sampler keeps the value). In a changed line of the same
 * length only the cells whose bytes differ are parsed (pp_row_diff); anything else is
 * parsed in full. When the header is unchanged and the last read's lines followed one
 * another, one vectorised diff of the two buffers finds the changed lines
 * (scan_same_layout); otherwise lines are compared one by one.
 *
 * Cheaper still, when the cpu source has just read /proc/stat (struct stat_intr): its intr
 * line gives each IRQ's total over all CPUs, and an IRQ whose total has not moved since the
 * line taken before had no interrupt since. Its line is left unread but for its label, the
 * text after its counts and its '\n', which must be where they were (scan_by_totals); the
 * kept read is then updated in place with the lines that changed instead of being swapped.
 *
 * Lines normally come in the same order as last time: line k is checked against entry k.
 * When a label does not match (an IRQ requested or freed) the rest of the file is matched
 * by label through a hash and the table is rebuilt: that sample allocates, steady state
 * does not. Entries whose line is gone are declared gone with all their series. When the
 * CPU header changes the columns are mapped again, cells of CPUs no longer listed are
 * declared gone and every line is parsed in full. A file that ends mid-line (no final
 * '\n') is read up to its last complete line and nothing is declared gone.
 *
 * The text after the counts is kept per IRQ; when it changes (and when the IRQ appears)
 * it is split into chip/hwirq/trigger/name, the name parsed into device and queue, and the
 * affinity files read again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "config.h"
#include "cpulist.h"
#include "error.h"
#include "jsonutil.h"
#include "procparse.h"
#include "irqtable.h"
#include "napitable.h"
#include "source-interrupts.h"
#include "source.h"
#include "xmalloc.h"

#define IRQ_PATH      "proc/interrupts"
#define IRQ_MAX_CPUS  CPUSET_MAX_CPUS
#define IRQ_LABEL_MAX 64 /* longer labels are ignored */

/* What the source keeps of one line besides its exported struct irq_info. */
struct irq_state {
	size_t prev_off, prev_len; /* the line in the previous buffer; prev_len 0: none */
	struct pp_row row;         /* where its counts ended */
	bool total_shape;          /* the last full parse found a single-count line */
	char *label;               /* owned; info.label points here */
	size_t label_len;
	series_id *ids; /* [ncpus]; info.cpu_series points here */
	char *tail;     /* the text after the counts as last parsed; NULL: none yet */
	size_t tail_len;
	char *fields; /* "chip\0hwirq\0trigger\0name\0"; the info strings point here */
	int irq;      /* info.irq, here to be read without the large struct irq_info */
};

struct irq_priv {
	struct source_file file; /* /proc/interrupts */

	bool contiguous;        /* the entries' lines follow one another from the header to the end
	                           of the kept read: a byte diff of the whole read finds what changed */
	size_t header_len;      /* length of the header line in the kept read */
	struct pp_cpu_cols hdr; /* the CPU columns; hdr.ncpus: length of each ids array */
	uint64_t *scratch;      /* [IRQ_MAX_CPUS]: counts of a line parsed in full */
	struct irq_info *info;  /* info[i] and st[i] describe line i of the last read */
	struct irq_state *st;
	size_t n;
	char *abuf; /* affinity file reads */
	size_t acap;

	/* The intr line of /proc/stat as last taken (take_totals) and what it said. */
	char *intr; /* a copy of the line */
	size_t intr_len, intr_cap;
	struct pp_row intr_row; /* its cells: 0 the sum, k + 1 IRQ k */
	uint64_t intr_ns;       /* the read_ns of that line */
	uint32_t takes;         /* lines taken so far */
	uint64_t *totals;       /* [ntotals]: total of IRQ k in the line last taken */
	uint32_t *moved;        /* [ntotals]: the take at which IRQ k's total last changed */
	size_t ntotals, captotals;

	/* The table the entries are published in (publish): the sampler's (source.irqtab), or
	 * own_table without a sampler. */
	struct irq_table *table;
	struct irq_table own_table;

	size_t netlink_irqs; /* entries the last napitable_apply gave the kernel's queue */

	/* what the last sample did, for describe */
	size_t lines_parsed, cells_put, full_parses, lines_skipped;
	uint64_t rebuilds;
};

/* [source.interrupts] options. */
struct irq_opts {
	bool no_totals; /* stat-totals = no: compare every line */
};

/* What the cell callbacks need. */
struct cell_ctx {
	struct source *src;
	struct irq_priv *pv;
	struct irq_info *info;
	struct irq_state *st;
	struct sink *sink;
	size_t changed_end; /* end in the line of the last cell put by cell_changed */
};

static const char empty[] = "";

/* The IRQ number of a label made of digits, else -1 (an arch line). */
static int
label_irq(const char *s, size_t len)
{
	const char *p = s;
	uint64_t v;

	if (pp_u64(&p, s + len, &v) < 0 || p != s + len || v > INT32_MAX)
		return -1;
	return (int)v;
}

/* Intern irq.<label>.<what><cpu> (cpu < 0: no number). */
static series_id
intern_cell(struct source *src, const struct irq_state *st, const char *what, long cpu)
{
	char name[IRQ_LABEL_MAX + 48];
	size_t n = 0, wl = strlen(what);
	struct series_labels l = source_labels(src);

	/* A numeric line is an IRQ; an arch line's label is its type ("LOC", "RES", "IPI0"). Its
	 * device and queue are the IRQ table's: they change with the IRQ's action. */
	l.irq = st->irq;
	if (st->irq < 0)
		l.type = source_atom(src, st->label, st->label_len);
	l.cpu = cpu >= 0 ? (int16_t)cpu : -1;
	if (cpu < 0)
		l.field = source_atom(src, what, wl);

	memcpy(name, "irq.", 4);
	n = 4;
	memcpy(name + n, st->label, st->label_len);
	n += st->label_len;
	name[n++] = '.';
	memcpy(name + n, what, wl);
	n += wl;
	if (cpu >= 0)
		n += pp_utoa((uint64_t)cpu, name + n);
	return series_intern(src->reg, name, n, SERIES_COUNTER32, src->index, "interrupts", 1.0,
	                     &l);
}

/* Declare gone every series of an entry and forget their ids. */
static void
entry_gone(struct sink *sink, struct irq_priv *pv, struct irq_info *info, struct irq_state *st)
{
	for (unsigned cpu = 0; cpu < pv->hdr.ncpus; cpu++) {
		if (st->ids[cpu] != SERIES_NONE) {
			sink_gone(sink, st->ids[cpu]);
			st->ids[cpu] = SERIES_NONE;
		}
	}
	if (info->total != SERIES_NONE) {
		sink_gone(sink, info->total);
		info->total = SERIES_NONE;
	}
}

/* Free what an entry owns. */
static void
entry_free(struct irq_state *st)
{
	pp_row_free(&st->row);
	free(st->label);
	free(st->ids);
	free(st->tail);
	free(st->fields);
}

/* Start an entry for a label seen for the first time. */
static void
entry_init(struct irq_priv *pv, struct irq_info *info, struct irq_state *st, const char *label,
           size_t len)
{
	memset(info, 0, sizeof(*info));
	memset(st, 0, sizeof(*st));
	st->label = xmemdupz(label, len);
	st->label_len = len;
	st->ids = xreallocarray(NULL, pv->hdr.ncpus ? pv->hdr.ncpus : 1, sizeof(*st->ids));
	for (unsigned cpu = 0; cpu < pv->hdr.ncpus; cpu++)
		st->ids[cpu] = SERIES_NONE;
	info->irq = label_irq(label, len);
	st->irq = info->irq;
	info->label = st->label;
	info->chip = info->hwirq = info->trigger = info->name = empty;
	info->queue.index = -1;
	info->named.index = -1;
	info->total = SERIES_NONE;
	info->ncpus = pv->hdr.ncpus;
	info->cpu_series = st->ids;
}

/* Take the text after the counts; when it differs from last time, split it, parse the
 * name's device and queue and read the affinity again. */
static void
set_description(struct source *src, struct irq_priv *pv, struct irq_info *info,
                struct irq_state *st, const char *t, const char *e)
{
	size_t len;
	char *w;

	t = pp_skip_blanks(t, e);
	while (e > t && pp_isblank(e[-1]))
		e--;
	len = (size_t)(e - t);
	if (st->tail != NULL && st->tail_len == len && memcmp(st->tail, t, len) == 0)
		return;
	free(st->tail);
	free(st->fields);
	st->tail = xmemdupz(t, len);
	st->tail_len = len;
	st->fields = xmalloc(len + 4);
	w = st->fields;
	irqtable_split_fields(info, &w, st->tail, st->tail + len);
	irqtable_parse_name(info->name, strlen(info->name), &info->named);
	info->queue = info->named; /* napitable_apply may set the kernel's at publish */
	irqtable_read_affinity(src->rootfd, info, &pv->abuf, &pv->acap);
}

/* Keep the counts of a line parsed in full. */
static int
cell_store(void *arg, size_t col, uint64_t val)
{
	struct irq_priv *pv = arg;

	pv->scratch[col] = val;
	return 0;
}

/* Put one cell whose bytes changed; -1 (parse in full) when it has no series yet. */
static int
cell_changed(void *arg, size_t col, uint64_t val)
{
	struct cell_ctx *cx = arg;
	series_id id;

	if (cx->st->total_shape)
		id = cx->info->total;
	else if (col < cx->pv->hdr.ncols)
		id = cx->st->ids[cx->pv->hdr.cols[col]];
	else
		id = SERIES_NONE;
	if (id == SERIES_NONE)
		return -1;
	sink_put(cx->sink, id, val);
	cx->pv->cells_put++;
	cx->changed_end = cx->st->row.end[col];
	return 0;
}

/* Whether a label is one the kernel always prints with a single total count. */
static bool
is_total_label(const struct irq_state *st)
{
	return st->label_len == 3 &&
	       (memcmp(st->label, "ERR", 3) == 0 || memcmp(st->label, "MIS", 3) == 0);
}

/* Parse a line in full from p (just past the label): put every count, intern what has no
 * series yet, declare gone the cells the line no longer has, take the description. */
static void
parse_full(struct cell_ctx *cx, const char *line, const char *p, const char *eol)
{
	struct irq_priv *pv = cx->pv;
	struct irq_state *st = cx->st;
	struct irq_info *info = cx->info;
	const char *tail;
	size_t n, c;
	bool total;
	unsigned cpu;

	pv->full_parses++;
	tail = pp_row_parse(&st->row, line, p, eol, pv->hdr.ncols, 10, cell_store, pv);
	n = st->row.ncells;
	total = n == 1 && (pv->hdr.ncols > 1 || is_total_label(st));
	if (total) {
		for (cpu = 0; cpu < pv->hdr.ncpus; cpu++) {
			if (st->ids[cpu] != SERIES_NONE) {
				sink_gone(cx->sink, st->ids[cpu]);
				st->ids[cpu] = SERIES_NONE;
			}
		}
		if (info->total == SERIES_NONE)
			info->total = intern_cell(cx->src, st, "total", -1);
		sink_put(cx->sink, info->total, pv->scratch[0]);
		pv->cells_put++;
	} else {
		if (info->total != SERIES_NONE) {
			sink_gone(cx->sink, info->total);
			info->total = SERIES_NONE;
		}
		for (c = 0; c < n; c++) {
			cpu = pv->hdr.cols[c];
			if (st->ids[cpu] == SERIES_NONE)
				st->ids[cpu] = intern_cell(cx->src, st, "cpu", cpu);
			sink_put(cx->sink, st->ids[cpu], pv->scratch[c]);
		}
		pv->cells_put += n;
		for (; c < pv->hdr.ncols; c++) {
			cpu = pv->hdr.cols[c];
			if (st->ids[cpu] != SERIES_NONE) {
				sink_gone(cx->sink, st->ids[cpu]);
				st->ids[cpu] = SERIES_NONE;
			}
		}
	}
	st->total_shape = total;
	set_description(cx->src, pv, info, st, tail, eol);
}

/* Handle a line that is not byte-identical to its entry's previous one (or has none).
 * eol is the line's end when known, else NULL; old the previous buffer (NULL: none); same
 * the count of the line's first bytes known to equal the previous line's; full forces a
 * full parse. Returns the line's end. */
static const char *
process_line(struct cell_ctx *cx, const char *buf, const char *line, const char *end,
             const char *eol, const char *old, size_t same, bool full)
{
	struct irq_state *st = cx->st;
	const char *p, *label;
	size_t len;

	cx->pv->lines_parsed++;
	/* Same length as before: try the cells that changed. The guessed end is checked by
	 * the diff itself, which fails on a '\n' inside what it compares. */
	if (!full && old != NULL && st->prev_len > 0 && (size_t)(end - line) > st->prev_len &&
	    line[st->prev_len] == '\n' &&
	    pp_row_diff_from(&st->row, line, old + st->prev_off, st->prev_len, same, 10,
	                     cell_changed, cx) == 0) {
		eol = line + st->prev_len;
		goto done;
	}
	if (eol == NULL || memchr(line, '\n', (size_t)(eol - line)) != NULL)
		eol = pp_eol(line, end);
	p = line;
	/* The caller checked the label; skip it again. */
	if (pp_label(&p, eol, &label, &len) < 0)
		p = line;
	parse_full(cx, line, p, eol);
done:
	len = (size_t)(eol - line);
	st->prev_off = (size_t)(line - buf);
	st->prev_len = len;
	return eol;
}

/* Small open-addressing table from label to entry, used only while rebuilding. Index i <
 * nold is old entry i, nold + j new entry j. */
struct label_hash {
	uint32_t *slot; /* index + 1; 0 empty */
	size_t mask;
	const struct irq_state *old, *new;
	size_t nold;
};

/* FNV-1a of a label. */
static uint32_t
label_hashval(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

/* The entry of an index of the label hash. */
static const struct irq_state *
lh_entry(const struct label_hash *lh, size_t idx)
{
	return idx < lh->nold ? &lh->old[idx] : &lh->new[idx - lh->nold];
}

/* The slot holding label, or the empty slot where it would go. */
static size_t
lh_slot(const struct label_hash *lh, const char *s, size_t len)
{
	size_t i = label_hashval(s, len) & lh->mask;
	const struct irq_state *e;

	while (lh->slot[i] != 0) {
		e = lh_entry(lh, lh->slot[i] - 1);
		if (e->label_len == len && memcmp(e->label, s, len) == 0)
			return i;
		i = (i + 1) & lh->mask;
	}
	return i;
}

/* Match the lines from p on by label, moving entries into new arrays in file order;
 * entries [0, k) were already handled this sample. Entries left over are gone, unless the
 * file was cut mid-line. Allocates: runs only when the set or order of lines changes.
 * Returns whether every line from p on became an entry (none cut, skipped or doubled). */
static bool
rebuild(struct cell_ctx *cx, const char *buf, const char *p, const char *end, size_t k,
        const char *old, bool full)
{
	struct irq_priv *pv = cx->pv;
	struct irq_info *ninfo;
	struct irq_state *nst;
	struct label_hash lh;
	const char *eol, *lp, *label;
	size_t lines = 1, cap, nn = k, hcap = 16, slot, idx, len;
	bool *taken, truncated = false, skipped = false;

	for (lp = p; (lp = pp_eol(lp, end)) != NULL; lp++)
		lines++;
	cap = pv->n + lines;
	ninfo = xcalloc(cap, sizeof(*ninfo));
	nst = xcalloc(cap, sizeof(*nst));
	taken = xcalloc(pv->n + 1, sizeof(*taken));
	if (k > 0) {
		memcpy(ninfo, pv->info, k * sizeof(*ninfo));
		memcpy(nst, pv->st, k * sizeof(*nst));
	}
	while (hcap < 2 * cap)
		hcap *= 2;
	lh = (struct label_hash){xcalloc(hcap, sizeof(uint32_t)), hcap - 1, pv->st, nst, pv->n};
	for (idx = 0; idx < pv->n; idx++) {
		slot = lh_slot(&lh, pv->st[idx].label, pv->st[idx].label_len);
		if (lh.slot[slot] == 0)
			lh.slot[slot] = (uint32_t)idx + 1;
		taken[idx] = idx < k;
	}
	for (; p < end; p = eol + 1) {
		eol = pp_eol(p, end);
		if (eol == NULL) {
			truncated = true;
			break;
		}
		lp = p;
		if (pp_label(&lp, eol, &label, &len) < 0 || len > IRQ_LABEL_MAX) {
			skipped = true;
			continue;
		}
		slot = lh_slot(&lh, label, len);
		if (lh.slot[slot] != 0) {
			idx = lh.slot[slot] - 1;
			if (idx >= pv->n || taken[idx]) {
				skipped = true; /* the same label twice: keep the first */
				continue;
			}
			taken[idx] = true;
			ninfo[nn] = pv->info[idx];
			nst[nn] = pv->st[idx];
		} else {
			entry_init(pv, &ninfo[nn], &nst[nn], label, len);
			lh.slot[slot] = (uint32_t)(pv->n + nn) + 1;
		}
		cx->info = &ninfo[nn];
		cx->st = &nst[nn];
		eol = process_line(cx, buf, p, end, eol, nst[nn].prev_len ? old : NULL, 0, full);
		nn++;
	}
	for (idx = k; idx < pv->n; idx++) {
		if (taken[idx])
			continue;
		if (truncated) {
			ninfo[nn] = pv->info[idx];
			nst[nn] = pv->st[idx];
			nst[nn].prev_len = 0;
			nn++;
		} else {
			entry_gone(cx->sink, pv, &pv->info[idx], &pv->st[idx]);
			entry_free(&pv->st[idx]);
		}
	}
	free(lh.slot);
	free(taken);
	free(pv->info);
	free(pv->st);
	pv->info = ninfo;
	pv->st = nst;
	pv->n = nn;
	pv->rebuilds++;
	return !truncated && !skipped;
}

/* Read the CPU header; when its CPUs differ from last time grow the per-CPU arrays and
 * declare gone the cells of CPUs no longer listed. *remapped says whether that happened
 * (every line must then be parsed in full). */
static int
read_header(struct irq_priv *pv, struct sink *sink, const char *line, const char *eol,
            bool *remapped, struct nm_error *err)
{
	unsigned old, cpu;
	size_t i;
	int r = pp_cpu_cols_read(&pv->hdr, line, eol, "source interrupts: " IRQ_PATH, &old, err);

	if (r <= 0)
		return r;
	for (i = 0; i < pv->n; i++) {
		if (pv->hdr.ncpus > old) {
			pv->st[i].ids =
			    xreallocarray(pv->st[i].ids, pv->hdr.ncpus, sizeof(*pv->st[i].ids));
			for (cpu = old; cpu < pv->hdr.ncpus; cpu++)
				pv->st[i].ids[cpu] = SERIES_NONE;
			pv->info[i].cpu_series = pv->st[i].ids;
			pv->info[i].ncpus = pv->hdr.ncpus;
		}
		for (cpu = 0; cpu < old; cpu++) {
			if (pv->st[i].ids[cpu] != SERIES_NONE && !cpuset_has(pv->hdr.online, cpu)) {
				sink_gone(sink, pv->st[i].ids[cpu]);
				pv->st[i].ids[cpu] = SERIES_NONE;
			}
		}
	}
	*remapped = true;
	return 0;
}

/* stat-totals = yes|no: whether lines may be left unread on /proc/stat's totals. */
static int
interrupts_configure(struct source *src, const char *key, const char *val, struct nm_error *err)
{
	struct irq_opts *o = src->opts;
	bool b;

	if (strcmp(key, "stat-totals") != 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[source.interrupts]: unknown key \"%s\"",
		                    key);
	if (config_parse_bool(val, &b) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "source interrupts: stat-totals = %s: not a boolean", val);
	if (o == NULL)
		o = src->opts = xcalloc(1, sizeof(*o));
	o->no_totals = !b;
	return 0;
}

/* Allocate the source's state and open /proc/interrupts. */
static int
interrupts_init(struct source *src, struct nm_error *err)
{
	struct irq_priv *pv = xcalloc(1, sizeof(*pv));

	src->priv = pv;
	pv->table = src->irqtab != NULL ? src->irqtab : &pv->own_table;
	memset(pv->table, 0, sizeof(*pv->table));
	pp_cpu_cols_init(&pv->hdr);
	pv->scratch = xcalloc(IRQ_MAX_CPUS, sizeof(*pv->scratch));
	source_file_init(&pv->file, IRQ_PATH);
	return source_file_open(src, &pv->file, err);
}

/* The first entry from k on whose line ends at or after offset d. The entries' lines follow
 * one another, so their ends grow: a search touches a dozen entries where a walk would read
 * the state of every unchanged IRQ (1,200 of them, 125 KB, on a large host). */
static size_t
entry_ending_at(const struct irq_priv *pv, size_t k, size_t d)
{
	size_t hi = pv->n, mid;

	while (k < hi) {
		mid = k + (hi - k) / 2;
		if (pv->st[mid].prev_off + pv->st[mid].prev_len < d)
			k = mid + 1;
		else
			hi = mid;
	}
	return k;
}

/* The common case: the read has the layout of the last one (same header, the entries'
 * lines one after another). One vector diff over the whole buffer finds the changed bytes;
 * only the lines holding them are looked at. Stops at the first line whose length or
 * label moved, leaving it to the line-by-line walk. Returns the entries handled; *pp is
 * where the walk goes on. */
static size_t
scan_same_layout(struct cell_ctx *cx, const char *buf, const char *end, const char *old,
                 size_t oldlen, const char **pp)
{
	struct irq_priv *pv = cx->pv;
	size_t pos = (size_t)(*pp - buf), len = (size_t)(end - buf), cmp, d, k = 0, off, ll;
	const char *lp, *label, *eol;
	struct irq_state *st;

	cmp = len < oldlen ? len : oldlen;
	for (;;) {
		d = pp_first_diff(buf, old, pos, cmp);
		/* Lines that end before the first difference are unchanged. */
		k = entry_ending_at(pv, k, d);
		if (k == pv->n) {
			pos = k > 0 ? pv->st[k - 1].prev_off + pv->st[k - 1].prev_len + 1 : pos;
			break;
		}
		st = &pv->st[k];
		off = st->prev_off;
		pos = off;
		if (off + st->prev_len >= len || buf[off + st->prev_len] != '\n')
			break; /* its length changed */
		lp = buf + off;
		eol = buf + off + st->prev_len;
		if (pp_label(&lp, eol, &label, &ll) < 0 || ll != st->label_len ||
		    memcmp(label, st->label, ll) != 0)
			break;
		cx->info = &pv->info[k];
		cx->st = st;
		/* The bytes before d are the same: the diff of the line starts there. */
		if (process_line(cx, buf, buf + off, end, eol, old, d > off ? d - off : 0, false) !=
		    eol) {
			pos = off + st->prev_len + 1; /* a '\n' moved inside: walk from the next */
			k++;
			break;
		}
		pos = off + st->prev_len + 1;
		k++;
	}
	*pp = buf + pos;
	return k;
}

/* Most IRQs /proc/stat's intr line numbers: more are never taken (nr_irqs is a few
 * thousand on the largest hosts). */
#define INTR_MAX_IRQS 65536

/* Keep the total of IRQ k (cell k + 1 of the intr line) and stamp it when it changed. */
static int
total_cell(void *arg, size_t col, uint64_t val)
{
	struct irq_priv *pv = arg;
	size_t k = col - 1;

	if (col == 0)
		return 0; /* the sum of them all */
	if (k >= pv->captotals) {
		size_t cap = pv->captotals ? pv->captotals : 256;

		while (cap <= k)
			cap *= 2;
		pv->totals = xreallocarray(pv->totals, cap, sizeof(*pv->totals));
		pv->moved = xreallocarray(pv->moved, cap, sizeof(*pv->moved));
		pv->captotals = cap;
	}
	if (k >= pv->ntotals || pv->totals[k] != val) {
		pv->totals[k] = val;
		pv->moved[k] = pv->takes;
	}
	return 0;
}

/* Take the intr line the cpu source published, when it read it for this round: a moment
 * before this sample (STAT_INTR_FRESH_NS) and not taken already. Stamps the IRQs whose total
 * changed since the line taken before. true when that line is one to compare with: then
 * an IRQ whose total has not changed had no interrupt since that earlier read. */
static bool
take_totals(struct source *src, struct irq_priv *pv)
{
	const struct stat_intr *si = src->stat_intr;
	bool had;

	if (si == NULL || si->read_ns == 0 || si->read_ns > src->sample_ns ||
	    src->sample_ns - si->read_ns > STAT_INTR_FRESH_NS || si->read_ns == pv->intr_ns ||
	    si->len < 5 || memcmp(si->line, "intr ", 5) != 0)
		return false;
	had = pv->intr_ns != 0;
	pv->intr_ns = si->read_ns;
	pv->takes++;
	if (!had || si->len != pv->intr_len ||
	    pp_row_diff(&pv->intr_row, si->line, pv->intr, si->len, 10, total_cell, pv) < 0) {
		pp_row_parse(&pv->intr_row, si->line, si->line + 4, si->line + si->len,
		             INTR_MAX_IRQS + 1, 10, total_cell, pv);
		pv->ntotals = pv->intr_row.ncells > 0 ? pv->intr_row.ncells - 1 : 0;
	}
	if (si->len > pv->intr_cap) {
		pv->intr_cap = si->len;
		pv->intr = xreallocarray(pv->intr, pv->intr_cap, 1);
	}
	memcpy(pv->intr, si->line, si->len);
	pv->intr_len = si->len;
	return had;
}

/* How many entries ahead scan_by_totals asks for the bytes it will compare: each entry's are
 * two places 1-2 KB apart in each read, which no hardware prefetcher follows. */
#define TOTALS_PREFETCH 8

/* Ask for the cache lines scan_by_totals compares of an entry: its label and its end. */
static inline void
prefetch_entry(const struct irq_state *st, const char *buf, const char *old)
{
	size_t t = st->prev_off + st->prev_len - st->tail_len;

	__builtin_prefetch(buf + st->prev_off);
	__builtin_prefetch(old + st->prev_off);
	__builtin_prefetch(buf + t);
	__builtin_prefetch(old + t);
}

/* With the totals of a fresh intr line (take_totals), while the read has the layout of the
 * kept one (each entry's line where it was, with the same label, the same text after its
 * counts and its '\n' where it was), only the lines of IRQs whose total changed, and lines
 * with no total (arch lines), are compared; the others are left unread. The kept read is
 * then the text last handled of each line: a compared line that changed is copied into it,
 * and the caller does not call source_file_keep. An interrupt counted between the cpu
 * source's read and this one is in a line left unread: the next total shows it, and the
 * line, compared with the text last handled, gives it one sample late, never lost.
 * Returns the entries handled and sets *pp past them. All of them, with *pp at the end of
 * the read: done. Fewer, or all with text left after them, where the layout changed (or a
 * line turned out to hold a '\n' among its counts): the lines left unread are given their
 * kept text back and the caller walks on from *pp and keeps the read as usual. */
static size_t
scan_by_totals(struct cell_ctx *cx, char *buf, size_t len, char *old, size_t oldlen,
               const char **pp)
{
	struct irq_priv *pv = cx->pv;
	size_t k, off, ll, h, t, pos = (size_t)(*pp - buf), d, e, full;
	const char *eol;
	struct irq_state *st;

	pv->lines_skipped = 0;
	for (k = 0; k < pv->n && k < TOTALS_PREFETCH; k++)
		prefetch_entry(&pv->st[k], buf, old);
	for (k = 0; k < pv->n; k++) {
		st = &pv->st[k];
		if (k + TOTALS_PREFETCH < pv->n)
			prefetch_entry(st + TOTALS_PREFETCH, buf, old);
		off = st->prev_off;
		ll = st->prev_len;
		/* The kept read holds the line at off with its '\n': compare that too. */
		if (off != pos || ll == 0 || off + ll >= len || off + ll >= oldlen ||
		    st->tail_len > ll)
			break;
		h = st->row.valid ? st->row.start : 0;
		t = off + ll - st->tail_len;
		if ((h > 0 && pp_first_diff(buf, old, off, off + h) != off + h) ||
		    pp_first_diff(buf, old, t, off + ll + 1) != off + ll + 1)
			break;
		pos = off + ll + 1;
		if (st->irq >= 0 && (size_t)st->irq < pv->ntotals &&
		    pv->moved[st->irq] != pv->takes) {
			pv->lines_skipped++;
			continue;
		}
		d = pp_first_diff(buf, old, off, off + ll);
		if (d == off + ll)
			continue;
		cx->info = &pv->info[k];
		cx->st = st;
		cx->changed_end = 0;
		full = pv->full_parses;
		eol = buf + off + ll;
		if (process_line(cx, buf, buf + off, buf + len, eol, old, d - off, false) != eol) {
			pos = st->prev_off + st->prev_len + 1; /* parsed in full to its real end */
			k++;
			break;
		}
		/* The bytes that differ: from d to the last cell put, or anywhere when the line
		 * was parsed in full. */
		e = pv->full_parses != full ? off + ll : off + cx->changed_end;
		if (e > d)
			memcpy(old + d, buf + d, e - d);
	}
	*pp = buf + pos;
	if (k == pv->n && pos == len && len == oldlen)
		return k;
	/* The walk keeps this read: the lines before it must hold what was handled. */
	for (size_t j = 0; j < k; j++)
		memcpy(buf + pv->st[j].prev_off, old + pv->st[j].prev_off, pv->st[j].prev_len);
	return k;
}

/* Read /proc/interrupts once and put what changed. */
static int
sample_once(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct irq_priv *pv = src->priv;
	struct cell_ctx cx = {src, pv, NULL, NULL, sink, 0};
	const struct irq_opts *opts;
	const char *buf, *end, *old, *p, *eol, *lp, *label;
	bool remapped = false, same_header, contiguous = true, totals;
	struct irq_state *st;
	size_t k, len, oldlen;
	ssize_t n;

	n = source_file_read(src, &pv->file, &buf, err);
	if (n < 0)
		return -1;
	end = buf + n;
	old = source_file_prev(&pv->file, &oldlen);
	pv->lines_parsed = pv->cells_put = pv->full_parses = pv->lines_skipped = 0;
	opts = src->opts;
	totals = (opts == NULL || !opts->no_totals) && take_totals(src, pv);

	eol = pp_eol(buf, end);
	if (eol == NULL)
		return nm_error_set(err, NM_ERR_FAILED,
		                    "source interrupts: " IRQ_PATH ": no CPU header");
	same_header = old != NULL && pp_same_line(buf, end, old, pv->header_len);
	if (!same_header && read_header(pv, sink, buf, eol, &remapped, err) < 0)
		return -1;
	pv->header_len = (size_t)(eol - buf);

	p = eol + 1;
	k = 0;
	if (same_header && pv->contiguous && totals) {
		/* The read buffer is the source's own (source_file); so is the kept one. */
		k = scan_by_totals(&cx, (char *)buf, (size_t)n,
		                   source_file_prev_mut(&pv->file, NULL), oldlen, &p);
		if (k == pv->n && p == end && (size_t)n == oldlen)
			return 0; /* the kept read was updated in place: not kept */
	}
	if (k == 0 && p == eol + 1 && same_header && pv->contiguous)
		k = scan_same_layout(&cx, buf, end, old, oldlen, &p);
	while (p < end && k < pv->n) {
		st = &pv->st[k];
		if (!remapped && old != NULL && st->prev_len > 0 &&
		    pp_same_line(p, end, old + st->prev_off, st->prev_len)) {
			st->prev_off = (size_t)(p - buf);
			p += st->prev_len + 1;
			k++;
			continue;
		}
		/* Guess the end from the old length; process_line checks the guess. */
		eol =
		    st->prev_len > 0 && (size_t)(end - p) > st->prev_len && p[st->prev_len] == '\n'
		        ? p + st->prev_len
		        : pp_eol(p, end);
		if (eol == NULL) {
			/* Cut mid-line: keep this and later entries as they are. */
			for (; k < pv->n; k++)
				pv->st[k].prev_len = 0;
			contiguous = false;
			goto done;
		}
		lp = p;
		if (pp_label(&lp, eol, &label, &len) < 0) {
			if (memchr(p, '\n', (size_t)(eol - p)) != NULL)
				break; /* the guess spanned lines: let rebuild sort it out */
			p = eol + 1;   /* not a line of ours: skip it */
			contiguous = false;
			continue;
		}
		if (len != st->label_len || memcmp(label, st->label, len) != 0)
			break;
		cx.info = &pv->info[k];
		cx.st = st;
		p = process_line(&cx, buf, p, end, eol, old, 0, remapped) + 1;
		k++;
	}
	if (p < end || k < pv->n)
		contiguous = rebuild(&cx, buf, p, end, k, old, remapped) && contiguous;
done:
	pv->contiguous = contiguous;
	source_file_keep(&pv->file);
	return 0;
}

/* Point the IRQ table at the entries as they are now: two stores, no copy. When the kernel
 * links NAPIs to IRQs (the NAPI table the queues source fills), those IRQs' queues are set
 * from it: a pass over the entries, made only while some NAPI has an IRQ or some entry
 * still holds the kernel's queue from the pass before. */
static void
publish(struct source *src, struct irq_priv *pv)
{
	const struct napi_table *nt = src->napitab;

	if (nt != NULL && (nt->nirq > 0 || pv->netlink_irqs > 0))
		pv->netlink_irqs = napitable_apply(nt, pv->info, pv->n);
	pv->table->kind = pv->n > 0 ? IRQ_TABLE_BORROWED : IRQ_TABLE_EMPTY;
	pv->table->v = pv->info;
	pv->table->n = pv->n;
}

/* A sample, then the table published (the entries may have moved: rebuild). */
static int
interrupts_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	int r = sample_once(src, sink, err);

	publish(src, src->priv);
	return r;
}

/* Facts for status: table size and what the last sample parsed. */
static json_object *
interrupts_describe(struct source *src)
{
	struct irq_priv *pv = src->priv;
	json_object *o = json_object_new_object();

	if (pv == NULL)
		return o;
	json_add_uint(o, "irqs", pv->n);
	json_add_uint(o, "cpus", pv->hdr.ncols);
	json_add_uint(o, "lines_parsed", pv->lines_parsed);
	json_add_uint(o, "full_parses", pv->full_parses);
	json_add_uint(o, "lines_skipped", pv->lines_skipped);
	json_add_uint(o, "cells_put", pv->cells_put);
	json_add_uint(o, "rebuilds", pv->rebuilds);
	return o;
}

/* Close the file and free the table. */
static void
interrupts_free(struct source *src)
{
	struct irq_priv *pv = src->priv;

	free(src->opts);
	src->opts = NULL;
	if (pv == NULL)
		return;
	/* The table must not point at what is freed here. */
	memset(pv->table, 0, sizeof(*pv->table));
	source_file_free(&pv->file);
	for (size_t i = 0; i < pv->n; i++)
		entry_free(&pv->st[i]);
	free(pv->info);
	free(pv->st);
	pp_cpu_cols_free(&pv->hdr);
	free(pv->scratch);
	free(pv->abuf);
	free(pv->intr);
	pp_row_free(&pv->intr_row);
	free(pv->totals);
	free(pv->moved);
	free(pv);
	src->priv = NULL;
}

/* Its Prometheus families (serve/prom.c): the per-IRQ cells and lines (opt-in), the IPIs
 * (the rows irqtable_is_ipi takes: IPI<n>, RES, CAL, TLB),
 * the arch interrupts (those but the timer, NMIs and IRQ work opt-in per CPU). */
static const struct source_family interrupts_families[] = {
    {SOURCE_NO_FAMILY, {.kind = SOURCE_GAUGES}, false},
    {"netmetrics_irq_interrupts", {.irq = SOURCE_HAS, .cpu = SOURCE_HAS}, false},
    {"netmetrics_irq_events", {.irq = SOURCE_HAS}, false},
    {"netmetrics_ipis",
     {.cpu = SOURCE_HAS, .type = (const char *const[]){"IPI[0-9]*", "RES", "CAL", "TLB", NULL}},
     false},
    {"netmetrics_arch_interrupts",
     {.cpu = SOURCE_HAS, .type = (const char *const[]){"LOC", "NMI", "IWI", NULL}},
     false},
    {"netmetrics_arch_interrupts", {.cpu = SOURCE_HAS}, true},
    {"netmetrics_arch_interrupts", {.kind = SOURCE_ANY_KIND}, false},
    {NULL, {.kind = SOURCE_ANY_KIND}, false},
};
/* Results keep the arch lines, not the per-IRQ cells. */
static const struct source_match interrupts_not_kept = {.irq = SOURCE_HAS};

const struct source_ops source_interrupts_ops = {
    .name = "interrupts",
    .prom = interrupts_families,
    .keep = SOURCE_KEPT,
    .keep_except = &interrupts_not_kept,
    .description = "per-IRQ per-CPU interrupt counts (/proc/interrupts)",
    .after = "cpu", /* its /proc/stat intr line: take_totals */
    .configure = interrupts_configure,
    .init = interrupts_init,
    .sample = interrupts_sample,
    .describe = interrupts_describe,
    .free = interrupts_free,
};

/* The table the source fills. */
const struct irq_table *
source_interrupts_table(struct source *src)
{
	struct irq_priv *pv = src->priv;

	return pv != NULL ? pv->table : NULL;
}
