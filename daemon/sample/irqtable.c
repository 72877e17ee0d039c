/* irqtable.c: the IRQ table's lookups, the parts of a /proc/interrupts line every filler
 * splits the same way (fields, action names, affinity files), the on-demand reader used
 * while the interrupts source is disabled, copies for window edges and the form stored with
 * results. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "irqtable.h"
#include "jsonutil.h"
#include "procparse.h"
#include "xmalloc.h"

static const char empty[] = "";

/* The line of an IRQ number. */
const struct irq_info *
irqtable_find_irq(const struct irq_table *t, int irq)
{
	for (size_t i = 0; t != NULL && i < t->n; i++) {
		if (t->v[i].irq == irq)
			return &t->v[i];
	}
	return NULL;
}

/* The line with a label. */
const struct irq_info *
irqtable_find_label(const struct irq_table *t, const char *label)
{
	for (size_t i = 0; t != NULL && i < t->n; i++) {
		if (strcmp(t->v[i].label, label) == 0)
			return &t->v[i];
	}
	return NULL;
}

/* Whether an arch line counts inter-processor interrupts: interrupts one CPU sends another.
 * The kernel's arch lines (6.18, show_interrupts and each arch's arch_show_interrupts):
 * - x86: RES (rescheduling), CAL (function calls) and TLB (shootdowns received: sent as
 *   function-call IPIs, so CAL counts them too) are its IPIs, printed under CONFIG_SMP. Not
 *   IPIs: NMI (mostly perf overflows), LOC (the local timer), SPU, PMI, IWI (irq_work
 *   raised on this CPU: a self-interrupt; a remote one is sent as a function call, CAL),
 *   RTR, TRM, THR, DFR, MCE, MCP, ERR, MIS, and KVM's PIN, NPI and PIW (posted-interrupt
 *   vectors that the IOMMU raises as well as other CPUs: not only IPIs).
 * - arm64, arm, riscv, loongarch, csky print their IPIs as IPI<n> ("%*s%u:" with "IPI"),
 *   the kind in the description ("Rescheduling interrupts", "Function call interrupts",
 *   ...), and arm64's Err line besides. "IPI" followed by anything but a digit is no row
 *   the kernel prints: not an IPI. */
bool
irqtable_is_ipi(const char *label)
{
	return strcmp(label, "RES") == 0 || strcmp(label, "CAL") == 0 ||
	       strcmp(label, "TLB") == 0 ||
	       (strncmp(label, "IPI", 3) == 0 && isdigit((unsigned char)label[3]));
}

/* The IRQs whose name stands for a device's queue. */
size_t
irqtable_find_queue(const struct irq_table *t, const char *device, int index,
                    const struct irq_info **out, size_t max)
{
	size_t found = 0;

	for (size_t i = 0; t != NULL && i < t->n; i++) {
		const struct irq_info *info = &t->v[i];

		if (info->queue.index != index || strcmp(info->queue.device, device) != 0)
			continue;
		if (found < max)
			out[found] = info;
		found++;
	}
	return found;
}

/* Whether any entry has a series. */
bool
irqtable_has_series(const struct irq_table *t)
{
	for (size_t i = 0; t != NULL && i < t->n; i++)
		if (t->v[i].total != SERIES_NONE || t->v[i].ncpus > 0)
			return true;
	return false;
}

/* Read a whole file below rootfd into *buf (grown as needed), NUL-terminated. Its length,
 * or -1. */
static ssize_t
read_at(int rootfd, const char *path, char **buf, size_t *cap)
{
	int fd = openat(rootfd, path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	for (;;) {
		if (*cap < len + 4096 + 1) {
			*cap = *cap ? *cap * 2 : 8192;
			while (*cap < len + 4096 + 1)
				*cap *= 2;
			*buf = xreallocarray(*buf, *cap, 1);
		}
		r = read(fd, *buf + len, *cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (r < 0)
		return -1;
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

/* Read a CPU list file below rootfd into set; false (set empty) when it cannot be. */
static bool
read_cpulist(int rootfd, const char *path, struct cpuset *set, char **buf, size_t *cap)
{
	struct nm_error err;

	if (read_at(rootfd, path, buf, cap) < 0 || cpuset_parse_list(set, *buf, &err) < 0) {
		cpuset_zero(set);
		return false;
	}
	return true;
}

/* Read /proc/irq/N/smp_affinity_list and effective_affinity_list of a numeric IRQ. */
void
irqtable_read_affinity(int rootfd, struct irq_info *info, char **buf, size_t *cap)
{
	char path[64];

	if (info->irq < 0)
		return;
	snprintf(path, sizeof(path), "proc/irq/%d/smp_affinity_list", info->irq);
	info->has_affinity = read_cpulist(rootfd, path, &info->affinity, buf, cap);
	snprintf(path, sizeof(path), "proc/irq/%d/effective_affinity_list", info->irq);
	info->has_effective = read_cpulist(rootfd, path, &info->effective, buf, cap);
}

/* Read the affinity files of every numeric IRQ again. */
void
irqtable_refresh_affinity(struct irq_table *t, int rootfd)
{
	char *buf = NULL;
	size_t cap = 0;

	for (size_t i = 0; t != NULL && i < t->n; i++)
		irqtable_read_affinity(rootfd, &t->v[i], &buf, &cap);
	free(buf);
}

/* Whether [s, s+len) is a trigger name as /proc/interrupts shows it. */
static bool
is_trigger(const char *s, size_t len)
{
	static const char *const triggers[] = {"edge", "level", "fasteoi", "Edge", "Level"};

	for (size_t i = 0; i < sizeof(triggers) / sizeof(triggers[0]); i++) {
		if (strlen(triggers[i]) == len && memcmp(s, triggers[i], len) == 0)
			return true;
	}
	return false;
}

/* Append [s, s+len) and a NUL at *w; returns where it starts. */
static const char *
put_field(char **w, const char *s, size_t len)
{
	char *start = *w;

	memcpy(start, s, len);
	start[len] = '\0';
	*w += len + 1;
	return start;
}

/* A chip name of several words, as Hyper-V's "Hyper-V PCIe MSI" before "1075838976-edge":
 * the chip starts at tok (len bytes) and the hwirq-trigger word comes within 3 more words
 * from p. Sets chip, hwirq and trigger and *next past them; false (nothing written) when
 * no such word comes. */
static bool
split_wide_chip(struct irq_info *info, char **w, const char *tok, size_t len, const char *p,
                const char *e, const char **next)
{
	const char *end = tok + len, *t, *dash;
	size_t l;

	for (int k = 0; k < 3 && pp_token(&p, e, &t, &l) == 0; k++) {
		dash = memchr(t, '-', l);
		if (pp_isdigit(t[0]) && dash != NULL &&
		    is_trigger(dash + 1, (size_t)(t + l - dash - 1))) {
			info->chip = put_field(w, tok, (size_t)(end - tok));
			info->hwirq = put_field(w, t, (size_t)(dash - t));
			info->trigger = put_field(w, dash + 1, (size_t)(t + l - dash - 1));
			*next = p;
			return true;
		}
		end = t + l;
	}
	return false;
}

/* Split the text after the counts into chip, hwirq, trigger and name. */
void
irqtable_split_fields(struct irq_info *info, char **w, const char *t, const char *e)
{
	const char *p = t, *tok, *tok2, *dash, *save;
	size_t len, len2;

	info->chip = info->hwirq = info->trigger = empty;
	if (info->irq >= 0 && pp_token(&p, e, &tok, &len) == 0) {
		dash = memrchr(tok, '-', len);
		if (dash != NULL && is_trigger(dash + 1, (size_t)(tok + len - dash - 1))) {
			info->chip = put_field(w, tok, (size_t)(dash - tok));
			info->trigger = put_field(w, dash + 1, (size_t)(tok + len - dash - 1));
		} else {
			save = p;
			if (pp_token(&p, e, &tok2, &len2) == 0 && pp_isdigit(tok2[0])) {
				info->chip = put_field(w, tok, len);
				dash = memchr(tok2, '-', len2);
				if (dash != NULL) {
					info->hwirq = put_field(w, tok2, (size_t)(dash - tok2));
					info->trigger = put_field(w, dash + 1,
					                          (size_t)(tok2 + len2 - dash - 1));
				} else {
					info->hwirq = put_field(w, tok2, len2);
					save = p;
					if (pp_token(&p, e, &tok, &len) == 0 &&
					    is_trigger(tok, len))
						info->trigger = put_field(w, tok, len);
					else
						p = save;
				}
			} else if (!split_wide_chip(info, w, tok, len, save, e, &p)) {
				info->chip = put_field(w, tok, len);
				p = save;
			}
		}
		t = pp_skip_blanks(p, e);
	}
	info->name = put_field(w, t, (size_t)(e - t));
}

/* ---- the on-demand reader, copies ---- */

/* Set up an owned entry: label, then the fields of [t, e) split, in one allocation. */
static void
entry_set(struct irq_info *info, const char *label, size_t llen, const char *t, const char *e)
{
	char *blob = xmalloc(llen + 1 + (size_t)(e - t) + 4), *w = blob;
	const char *p = label;
	uint64_t v;

	memset(info, 0, sizeof(*info));
	info->label = put_field(&w, label, llen);
	info->irq =
	    pp_u64(&p, label + llen, &v) == 0 && p == label + llen && v <= INT32_MAX ? (int)v : -1;
	irqtable_split_fields(info, &w, t, e);
	irqtable_parse_name(info->name, strlen(info->name), &info->named);
	info->queue = info->named;
	info->total = SERIES_NONE;
}

/* Read /proc/interrupts and the affinity files into an owned table. */
int
irqtable_read(struct irq_table *t, int rootfd, struct nm_error *err)
{
	char *buf = NULL, *abuf = NULL;
	size_t cap = 0, acap = 0, cap_v = 0, ncols;
	const char *p, *end, *eol, *label, *q, *te;
	unsigned *cols;
	size_t llen;
	ssize_t n;

	irqtable_free(t);
	if ((n = read_at(rootfd, "proc/interrupts", &buf, &cap)) < 0) {
		nm_error_set(err, errno == ENOENT ? NM_ERR_UNSUPPORTED : NM_ERR_FAILED,
		             "/proc/interrupts: %s", strerror(errno));
		free(buf);
		return -1;
	}
	end = buf + n;
	cols = xcalloc(CPUSET_MAX_CPUS, sizeof(*cols));
	eol = pp_eol(buf, end);
	ncols = eol != NULL ? pp_cpu_header(buf, eol, cols, CPUSET_MAX_CPUS) : 0;
	free(cols);
	if (ncols == 0) {
		free(buf);
		return nm_error_set(err, NM_ERR_FAILED, "/proc/interrupts: no CPU header");
	}
	for (p = eol + 1; p < end && (eol = pp_eol(p, end)) != NULL; p = eol + 1) {
		q = p;
		if (pp_label(&q, eol, &label, &llen) < 0)
			continue;
		/* The counts: up to one per column. */
		for (size_t c = 0; c < ncols; c++) {
			const char *s = pp_skip_blanks(q, eol), *r = s;
			uint64_t v;
			if (pp_u64(&r, eol, &v) < 0 || (r < eol && !pp_isblank(*r)))
				break;
			q = r;
		}
		q = pp_skip_blanks(q, eol);
		for (te = eol; te > q && pp_isblank(te[-1]);)
			te--;
		if (t->n == cap_v) {
			cap_v = cap_v ? cap_v * 2 : 256;
			t->v = xreallocarray(t->v, cap_v, sizeof(*t->v));
		}
		entry_set(&t->v[t->n], label, llen, q, te);
		irqtable_read_affinity(rootfd, &t->v[t->n], &abuf, &acap);
		t->n++;
	}
	t->kind = IRQ_TABLE_OWNED;
	free(buf);
	free(abuf);
	return 0;
}

/* A deep copy of src into dst. */
void
irqtable_copy(struct irq_table *dst, const struct irq_table *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->kind = IRQ_TABLE_OWNED;
	if (src == NULL || src->n == 0)
		return;
	dst->v = xreallocarray(NULL, src->n, sizeof(*dst->v));
	dst->n = src->n;
	for (size_t i = 0; i < src->n; i++) {
		const struct irq_info *s = &src->v[i];
		struct irq_info *d = &dst->v[i];
		size_t ll = strlen(s->label), cl = strlen(s->chip), hl = strlen(s->hwirq);
		size_t tl = strlen(s->trigger), nl = strlen(s->name);
		char *w = xmalloc(ll + cl + hl + tl + nl + 5);
		series_id *ids = NULL;

		*d = *s;
		d->label = put_field(&w, s->label, ll);
		d->chip = put_field(&w, s->chip, cl);
		d->hwirq = put_field(&w, s->hwirq, hl);
		d->trigger = put_field(&w, s->trigger, tl);
		d->name = put_field(&w, s->name, nl);
		if (s->ncpus > 0 && s->cpu_series != NULL) {
			ids = xreallocarray(NULL, s->ncpus, sizeof(*ids));
			memcpy(ids, s->cpu_series, s->ncpus * sizeof(*ids));
		} else
			d->ncpus = 0;
		d->cpu_series = ids;
	}
}

/* Free an owned table. */
void
irqtable_free(struct irq_table *t)
{
	if (t == NULL)
		return;
	if (t->kind == IRQ_TABLE_OWNED) {
		for (size_t i = 0; i < t->n; i++) {
			free((char *)t->v[i].label);
			free((series_id *)t->v[i].cpu_series);
		}
		free(t->v);
	}
	memset(t, 0, sizeof(*t));
}

/* ---- the stored form ---- */

static const char *const queue_kinds[] = {"", "txrx", "rx", "tx", "io"};
static const char *const dev_kinds[] = {"", "netdev", "pci", "virtio", "block"};
#define NKINDS(a) (sizeof(a) / sizeof((a)[0]))

const char *
irqtable_queue_kind_name(enum irq_queue_kind k)
{
	return (unsigned)k < NKINDS(queue_kinds) ? queue_kinds[k] : "";
}

const char *
irqtable_dev_kind_name(enum irq_dev_kind k)
{
	return (unsigned)k < NKINDS(dev_kinds) ? dev_kinds[k] : "";
}

/* The index of s in names[n], or -1. */
static int
kind_index(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; s != NULL && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

/* A CPU set as a list member of o. */
static void
add_cpus(json_object *o, const char *key, const struct cpuset *set)
{
	char list[4096];

	cpuset_format_list(set, list, sizeof(list));
	json_add_string(o, key, list);
}

/* The numeric IRQs as a result keeps them. */
json_object *
irqtable_json(const struct irq_table *t)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; t != NULL && i < t->n; i++) {
		const struct irq_info *info = &t->v[i];
		json_object *o;

		if (info->irq < 0 || info->queue.device[0] == '\0')
			continue;
		o = json_object_new_object();
		json_add_int(o, "irq", info->irq);
		json_add_string(o, "name", info->name);
		json_add_string(o, "device", info->queue.device);
		json_add_string(o, "dev_kind", irqtable_dev_kind_name(info->queue.dev_kind));
		json_add_int(o, "queue", info->queue.index);
		json_add_string(o, "queue_kind", irqtable_queue_kind_name(info->queue.kind));
		json_add_string(o, "origin", irqtable_origin_name(info->queue.origin));
		if (info->has_affinity)
			add_cpus(o, "affinity", &info->affinity);
		if (info->has_effective)
			add_cpus(o, "effective", &info->effective);
		json_object_array_add(arr, o);
	}
	return arr;
}

/* A string member, or NULL when missing or not a string. */
static const char *
member_string(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* An integer member in [lo, hi] into *out; false when missing or out of range. */
static bool
member_int(json_object *o, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_int64(v);
	return *out >= lo && *out <= hi;
}

/* An optional CPU list member into set and *has; false when present and malformed. */
static bool
member_cpus(json_object *o, const char *key, struct cpuset *set, bool *has)
{
	struct nm_error err;
	json_object *v;

	*has = false;
	cpuset_zero(set);
	if (!json_object_object_get_ex(o, key, &v))
		return true;
	if (!json_object_is_type(v, json_type_string) ||
	    cpuset_parse_list(set, json_object_get_string(v), &err) < 0)
		return false;
	*has = true;
	return true;
}

/* One stored entry into info; false when its shape is wrong. */
static bool
entry_from_json(struct irq_info *info, json_object *o)
{
	const char *name = member_string(o, "name"), *dev = member_string(o, "device"), *origin;
	int qk = kind_index(queue_kinds, NKINDS(queue_kinds), member_string(o, "queue_kind"));
	int dk = kind_index(dev_kinds, NKINDS(dev_kinds), member_string(o, "dev_kind"));
	struct irq_info e = {0};
	int64_t irq, q;
	char label[16], *w;
	size_t ll, nl;

	/* A device longer than the field is cut to fit, not refused: what was stored is ours,
	 * and escaping a name's stray bytes (\xNN, json_add_string) can lengthen it. */
	if (!json_object_is_type(o, json_type_object) || name == NULL || dev == NULL || qk < 0 ||
	    dk < 0 || !member_int(o, "irq", 0, INT32_MAX, &irq) ||
	    !member_int(o, "queue", -1, INT32_MAX, &q) ||
	    !member_cpus(o, "affinity", &e.affinity, &e.has_affinity) ||
	    !member_cpus(o, "effective", &e.effective, &e.has_effective))
		return false;
	ll = (size_t)snprintf(label, sizeof(label), "%d", (int)irq);
	nl = strlen(name);
	w = xmalloc(ll + nl + 5);
	e.irq = (int)irq;
	e.label = put_field(&w, label, ll);
	e.chip = e.hwirq = e.trigger = put_field(&w, "", 0); /* one empty string for all */
	e.name = put_field(&w, name, nl);
	snprintf(e.queue.device, sizeof(e.queue.device), "%s", dev);
	e.queue.dev_kind = (enum irq_dev_kind)dk;
	e.queue.kind = (enum irq_queue_kind)qk;
	e.queue.index = (int)q;
	/* Results stored before the origin was kept: a device there came from the name. */
	origin = member_string(o, "origin");
	e.queue.origin = origin != NULL && strcmp(origin, "netlink") == 0 ? IRQ_ORIGIN_NETLINK
	                 : dev[0] != '\0'                                 ? IRQ_ORIGIN_NAME
	                                                                  : IRQ_ORIGIN_NONE;
	e.named = e.queue;
	e.total = SERIES_NONE;
	*info = e;
	return true;
}

/* Read a stored table back, checking its shape. */
int
irqtable_from_json(struct irq_table *t, json_object *arr, struct nm_error *err)
{
	size_t n;

	memset(t, 0, sizeof(*t));
	t->kind = IRQ_TABLE_OWNED;
	if (!json_object_is_type(arr, json_type_array))
		return nm_error_set(err, NM_ERR_BAD_ARGS, "irq_table: not an array");
	n = json_object_array_length(arr);
	if (n > IRQTABLE_JSON_MAX)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "irq_table: %zu entries (at most %d)", n,
		                    IRQTABLE_JSON_MAX);
	t->v = xcalloc(n ? n : 1, sizeof(*t->v));
	for (size_t i = 0; i < n; i++) {
		if (!entry_from_json(&t->v[i], json_object_array_get_idx(arr, i))) {
			irqtable_free(t);
			t->kind = IRQ_TABLE_OWNED;
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "irq_table: entry %zu is malformed", i);
		}
		t->n = i + 1;
	}
	return 0;
}

/* ---- name patterns: each takes one action name [s, e) and fills q on a match ---- */

/* Digits [s, e) (at least one) as an int. */
static bool
parse_index(const char *s, const char *e, int *out)
{
	const char *p = s;
	uint64_t v;

	if (pp_u64(&p, e, &v) < 0 || p != e || v > INT32_MAX)
		return false;
	*out = (int)v;
	return true;
}

/* Copy a device name into q; false when it is empty or too long. */
static bool
set_device(struct irq_queue *q, const char *s, const char *e, enum irq_dev_kind kind)
{
	if (e <= s || (size_t)(e - s) >= sizeof(q->device))
		return false;
	memcpy(q->device, s, (size_t)(e - s));
	q->device[e - s] = '\0';
	q->dev_kind = kind;
	return true;
}

/* The last occurrence of needle in [s, e), or NULL. */
static const char *
find_last(const char *s, const char *e, const char *needle)
{
	size_t nl = strlen(needle);
	const char *p;

	if ((size_t)(e - s) < nl)
		return NULL;
	for (p = e - nl;; p--) {
		if (memcmp(p, needle, nl) == 0)
			return p;
		if (p == s)
			return NULL;
	}
}

/* What stands before a queue's number in a <x>@pci:<addr> IRQ name, by driver. */
static const struct {
	const char *marker;
	const char *driver; /* and the source of the name */
} pci_queue_markers[] = {
    {"_comp", "mlx5: mlx5_comp<N>@pci:<addr> (mlx5/core/pci_irq.c)"},
    {"-comp-", "mlx4: mlx4-comp-<N>@pci:<addr> (mlx4/main.c)"},
    {"mana_q", "mana: mana_q<N>@pci:<addr> (microsoft/mana/gdma_main.c)"},
};

/* <x><marker><N>@pci:<addr> (a driver's queue vector N, pci_queue_markers) or any
 * <x>@pci:<addr>. */
static bool
match_pci(const char *s, const char *e, struct irq_queue *q)
{
	const char *at = find_last(s, e, "@pci:"), *m;

	if (at == NULL || !set_device(q, at + 5, e, IRQ_DEV_PCI))
		return false;
	for (size_t i = 0; i < sizeof(pci_queue_markers) / sizeof(pci_queue_markers[0]); i++) {
		size_t ml = strlen(pci_queue_markers[i].marker);
		m = find_last(s, at, pci_queue_markers[i].marker);
		if (m != NULL && parse_index(m + ml, at, &q->index)) {
			q->kind = IRQ_QUEUE_TXRX;
			break;
		}
		q->index = -1;
	}
	return true;
}

/* virtio<K>-input.<N>, virtio<K>-output.<N>, or virtio<K>-<anything else>. */
static bool
match_virtio(const char *s, const char *e, struct irq_queue *q)
{
	const char *p = s + 6, *dash;

	if (e - s < 8 || memcmp(s, "virtio", 6) != 0 || !pp_isdigit(*p))
		return false;
	while (p < e && pp_isdigit(*p))
		p++;
	dash = p;
	if (p == e || *p != '-' || !set_device(q, s, dash, IRQ_DEV_VIRTIO))
		return false;
	p++;
	if (e - p > 6 && memcmp(p, "input.", 6) == 0 && parse_index(p + 6, e, &q->index))
		q->kind = IRQ_QUEUE_RX;
	else if (e - p > 7 && memcmp(p, "output.", 7) == 0 && parse_index(p + 7, e, &q->index))
		q->kind = IRQ_QUEUE_TX;
	else
		q->index = -1;
	return true;
}

/* nvme<K>q<N>. */
static bool
match_nvme(const char *s, const char *e, struct irq_queue *q)
{
	const char *p = s + 4, *qp;

	if (e - s < 7 || memcmp(s, "nvme", 4) != 0)
		return false;
	while (p < e && pp_isdigit(*p))
		p++;
	qp = p;
	if (qp == s + 4 || qp == e || *qp != 'q' || !parse_index(qp + 1, e, &q->index))
		return false;
	if (!set_device(q, s, qp, IRQ_DEV_BLOCK)) {
		q->index = -1;
		return false;
	}
	q->kind = IRQ_QUEUE_IO;
	return true;
}

/* Whether [s, e) starts with a PCI address (DDDD:BB:DD.F); its length, or 0. */
static size_t
pci_address_len(const char *s, const char *e)
{
	static const char form[] = "xxxx:xx:xx.x";
	size_t n = sizeof(form) - 1;

	if ((size_t)(e - s) < n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (form[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != form[i])
			return 0;
	return n;
}

/* <drv>-<pci address>:<what> (i40e's and ice's "i40e-0000:3b:00.0:misc", ice's
 * "ice-0000:65:00.0:ctrl-TxRx-0" of its flow director control VSI): the PCI function's own
 * vector, no queue of a network device (seen in real /proc/interrupts, tests/golden/irq-names). */
static bool
match_drv_pci(const char *s, const char *e, struct irq_queue *q)
{
	static const char *const drivers[] = {"i40e-", "ice-", "iavf-", "idpf-"};
	size_t dl, al;

	for (size_t d = 0; d < sizeof(drivers) / sizeof(drivers[0]); d++) {
		dl = strlen(drivers[d]);
		if ((size_t)(e - s) <= dl || memcmp(s, drivers[d], dl) != 0)
			continue;
		al = pci_address_len(s + dl, e);
		if (al == 0 || s + dl + al == e || s[dl + al] != ':')
			return false;
		return set_device(q, s + dl, s + dl + al, IRQ_DEV_PCI);
	}
	return false;
}

/* [<drv>-]<dev><infix><N> for the infixes of network drivers. */
static bool
match_netdev(const char *s, const char *e, struct irq_queue *q)
{
	static const struct {
		const char *infix;
		enum irq_queue_kind kind;
	} infixes[] = {
	    {"-TxRx-", IRQ_QUEUE_TXRX},
	    {"-Tx-Rx-", IRQ_QUEUE_TXRX},
	    {"-txrx-", IRQ_QUEUE_TXRX},
	    {"-rxtx-", IRQ_QUEUE_TXRX}, /* vmxnet3, thunder's nicvf */
	    {"-fp-", IRQ_QUEUE_TXRX},
	    {"-rx-", IRQ_QUEUE_RX},
	    {"-tx-", IRQ_QUEUE_TX},
	    {"-Rx-", IRQ_QUEUE_RX},
	    {"-Tx-", IRQ_QUEUE_TX}, /* idpf: after -Tx-Rx- */
	    /* vmxnet3's event vector: the device's, no queue (N is the vector's number) */
	    {"-event-", IRQ_QUEUE_NONE},
	};
	/* Drivers that put their name before the device's (idpf-eth0-TxRx-3). */
	static const char *const drivers[] = {"i40e-", "ice-", "iavf-", "i40evf-", "idpf-"};
	const char *in, *dev;
	size_t i, dl;

	for (i = 0; i < sizeof(infixes) / sizeof(infixes[0]); i++) {
		in = find_last(s, e, infixes[i].infix);
		if (in == NULL || !parse_index(in + strlen(infixes[i].infix), e, &q->index))
			continue;
		dev = s;
		for (size_t d = 0; d < sizeof(drivers) / sizeof(drivers[0]); d++) {
			dl = strlen(drivers[d]);
			if (in - s > (ptrdiff_t)dl && memcmp(s, drivers[d], dl) == 0) {
				dev = s + dl;
				break;
			}
		}
		if (!set_device(q, dev, in, IRQ_DEV_NETDEV))
			continue;
		q->kind = infixes[i].kind;
		/* idpf numbered its names by vector, not queue, until upstream 1500a8662d2d
		 * (2026, and stable 6.12): idpf-eth1-Tx-5 was tx queue 3. The number says no
		 * queue on a kernel that cannot be told apart; the kernel's NAPI links do. */
		if (q->kind == IRQ_QUEUE_NONE || (dev - s == 5 && memcmp(s, "idpf-", 5) == 0)) {
			q->kind = IRQ_QUEUE_NONE;
			q->index = -1;
		}
		return true;
	}
	q->index = -1;
	return false;
}

/* mlx4_en before mlx4-comp-<N>@pci (3.x kernels): <dev>-<N>, the ring's CQ vector, for a
 * device named eth* or en* (a bare "<word>-<N>" is too common to take for any device). */
static bool
match_ring(const char *s, const char *e, struct irq_queue *q)
{
	const char *dash = find_last(s, e, "-");

	if (dash == NULL || !(e - s > 3 && (memcmp(s, "eth", 3) == 0 || memcmp(s, "en", 2) == 0)) ||
	    !parse_index(dash + 1, e, &q->index))
		return false;
	if (!set_device(q, s, dash, IRQ_DEV_NETDEV)) {
		q->index = -1;
		return false;
	}
	q->kind = IRQ_QUEUE_TXRX;
	return true;
}

/* The patterns in the order they are tried (see irqtable.h). */
static bool (*const name_patterns[])(const char *, const char *, struct irq_queue *) = {
    match_pci, match_virtio, match_nvme, match_drv_pci, match_netdev, match_ring,
};

/* Match action names against the patterns, first name and first pattern winning. */
bool
irqtable_parse_name(const char *name, size_t len, struct irq_queue *q)
{
	const char *p = name, *end = name + len, *s, *e, *comma;

	for (; p < end; p = comma + 1) {
		comma = memchr(p, ',', (size_t)(end - p));
		if (comma == NULL)
			comma = end;
		s = pp_skip_blanks(p, comma);
		e = comma;
		while (e > s && pp_isblank(e[-1]))
			e--;
		for (size_t i = 0; e > s && i < sizeof(name_patterns) / sizeof(name_patterns[0]);
		     i++) {
			memset(q, 0, sizeof(*q));
			q->index = -1;
			if (name_patterns[i](s, e, q)) {
				q->origin = IRQ_ORIGIN_NAME;
				return true;
			}
		}
		if (comma == end)
			break;
	}
	memset(q, 0, sizeof(*q));
	q->index = -1;
	return false;
}
