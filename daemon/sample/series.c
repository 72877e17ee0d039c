/* series.c: the series registry: names to dense ids through an open-addressing hash, each
 * series' labels, the atoms they are made of, and selection by label. */
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "error.h"
#include "series.h"
#include "xmalloc.h"

const char *const series_key_names[SERIES_NKEYS] = {
    "source", "device", "queue", "direction", "cpu",  "irq",
    "type",   "mode",   "table", "field",     "unit",
};

/* FNV-1a over the name. */
static uint32_t
hash_name(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

void
series_registry_init(struct series_registry *reg)
{
	memset(reg, 0, sizeof(*reg));
	reg->hcap = 1024;
	reg->hash = xcalloc(reg->hcap, sizeof(*reg->hash));
	reg->atom_cap = 64;
	reg->atom_str = xcalloc(reg->atom_cap, sizeof(*reg->atom_str));
	reg->atom_str[0] = xstrdup("");
	reg->natoms = 1;
	reg->atom_hcap = 128;
	reg->atom_hash = xcalloc(reg->atom_hcap, sizeof(*reg->atom_hash));
}

void
series_registry_free(struct series_registry *reg)
{
	for (size_t i = 0; i < reg->n; i++)
		free(reg->v[i].name);
	free(reg->v);
	free(reg->lab);
	free(reg->hash);
	for (size_t i = 0; i < reg->natoms; i++)
		free(reg->atom_str[i]);
	free(reg->atom_str);
	free(reg->atom_hash);
	for (size_t i = 0; i < 256; i++)
		free(reg->by_source[i].v);
	memset(reg, 0, sizeof(*reg));
}

/* The hash slot holding name, or the empty slot where it would go. */
static size_t
slot_of(const struct series_registry *reg, const char *name, size_t len)
{
	size_t mask = reg->hcap - 1;
	size_t i = hash_name(name, len) & mask;

	while (reg->hash[i] != 0) {
		const char *n = reg->v[reg->hash[i] - 1].name;
		if (strncmp(n, name, len) == 0 && n[len] == '\0')
			return i;
		i = (i + 1) & mask;
	}
	return i;
}

/* Double the hash table when it is half full. */
static void
grow_hash(struct series_registry *reg)
{
	free(reg->hash);
	reg->hcap *= 2;
	reg->hash = xcalloc(reg->hcap, sizeof(*reg->hash));
	for (size_t id = 0; id < reg->n; id++) {
		const char *n = reg->v[id].name;
		reg->hash[slot_of(reg, n, strlen(n))] = (uint32_t)id + 1;
	}
}

/* The cell the registry keeps for labels l. */
static struct series_label_cell
label_pack(const struct series_labels *l)
{
	struct series_label_cell c = {.device = l->device,
	                              .field = l->field,
	                              .irq = l->irq,
	                              .queue = l->queue,
	                              .cpu = l->cpu,
	                              .dir = l->dir};

	if (l->type != SERIES_ATOM_NONE) {
		c.group = l->type;
		c.group_key = SERIES_KEY_TYPE;
	} else if (l->mode != SERIES_ATOM_NONE) {
		c.group = l->mode;
		c.group_key = SERIES_KEY_MODE;
	} else if (l->table != SERIES_ATOM_NONE) {
		c.group = l->table;
		c.group_key = SERIES_KEY_TABLE;
	}
	return c;
}

struct series_labels
series_labels_of(const struct series_registry *reg, series_id id)
{
	const struct series_label_cell *c = &reg->lab[id];
	struct series_labels l = {.device = c->device,
	                          .field = c->field,
	                          .irq = c->irq,
	                          .queue = c->queue,
	                          .cpu = c->cpu,
	                          .dir = c->dir};

	if (c->group_key == SERIES_KEY_TYPE)
		l.type = c->group;
	else if (c->group_key == SERIES_KEY_MODE)
		l.mode = c->group;
	else if (c->group_key == SERIES_KEY_TABLE)
		l.table = c->group;
	return l;
}

/* A label of a cell in the group slot: the atom when the slot holds key, else none. */
static series_atom
cell_group(const struct series_label_cell *c, int key)
{
	return c->group_key == key ? c->group : SERIES_ATOM_NONE;
}

/* Append an id to a source's list. */
static void
idlist_add(struct series_idlist *l, series_id id)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = id;
}

series_id
series_intern(struct series_registry *reg, const char *name, size_t len, enum series_kind kind,
              uint8_t source, const char *unit, double scale, const struct series_labels *lab)
{
	const char *nul = memchr(name, '\0', len);
	struct series_info *si;
	size_t slot;

	/* A name is a C string: bytes read from a file past a NUL are not part of it. */
	if (nul != NULL)
		len = (size_t)(nul - name);
	slot = slot_of(reg, name, len);
	if (reg->hash[slot] != 0) {
		si = &reg->v[reg->hash[slot] - 1];
		si->live = true;
		return reg->hash[slot] - 1;
	}
	if (reg->n == reg->cap) {
		reg->cap = reg->cap ? reg->cap * 2 : 1024;
		reg->v = xreallocarray(reg->v, reg->cap, sizeof(*reg->v));
		reg->lab = xreallocarray(reg->lab, reg->cap, sizeof(*reg->lab));
	}
	reg->lab[reg->n] = label_pack(lab != NULL ? lab : &SERIES_LABELS_NONE);
	si = &reg->v[reg->n];
	si->name = xstrndup(name, len);
	si->kind = (uint8_t)kind;
	si->source = source;
	si->live = true;
	si->peak = false;
	si->scale = scale;
	si->unit = unit ? unit : "";
	reg->hash[slot] = (uint32_t)reg->n + 1;
	idlist_add(&reg->by_source[source], (series_id)reg->n);
	reg->n++;
	if (reg->n * 2 > reg->hcap)
		grow_hash(reg);
	return (series_id)(reg->n - 1);
}

series_id
series_internf(struct series_registry *reg, enum series_kind kind, uint8_t source, const char *unit,
               double scale, const struct series_labels *lab, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return series_intern(reg, buf, (size_t)n, kind, source, unit, scale, lab);
}

size_t
series_registry_bytes(const struct series_registry *reg)
{
	size_t b = malloc_usable_size(reg->v) + malloc_usable_size(reg->lab) +
	           malloc_usable_size(reg->hash) + malloc_usable_size(reg->atom_str) +
	           malloc_usable_size(reg->atom_hash);

	for (size_t i = 0; i < reg->n; i++)
		b += malloc_usable_size(reg->v[i].name);
	for (size_t i = 0; i < reg->natoms; i++)
		b += malloc_usable_size(reg->atom_str[i]);
	for (size_t i = 0; i < 256; i++)
		b += malloc_usable_size(reg->by_source[i].v);
	return b;
}

series_id
series_find(const struct series_registry *reg, const char *name)
{
	size_t slot = slot_of(reg, name, strlen(name));

	return reg->hash[slot] ? reg->hash[slot] - 1 : SERIES_NONE;
}

const char *
series_kind_name(enum series_kind kind)
{
	switch (kind) {
	case SERIES_COUNTER32:
		return "counter32";
	case SERIES_GAUGE:
		return "gauge";
	default:
		return "counter";
	}
}

/* ---- atoms ---- */

/* The atom hash slot holding s[0..len), or the empty slot where it would go. */
static size_t
atom_slot(const struct series_registry *reg, const char *s, size_t len)
{
	size_t mask = reg->atom_hcap - 1;
	size_t i = hash_name(s, len) & mask;

	while (reg->atom_hash[i] != 0) {
		const char *a = reg->atom_str[reg->atom_hash[i]];
		if (strncmp(a, s, len) == 0 && a[len] == '\0')
			return i;
		i = (i + 1) & mask;
	}
	return i;
}

series_atom
series_atom_intern(struct series_registry *reg, const char *s, size_t len)
{
	const char *nul = memchr(s, '\0', len);
	size_t slot;

	if (nul != NULL)
		len = (size_t)(nul - s);
	if (len == 0)
		return SERIES_ATOM_NONE;
	slot = atom_slot(reg, s, len);
	if (reg->atom_hash[slot] != 0)
		return reg->atom_hash[slot];
	if (reg->natoms == reg->atom_cap) {
		reg->atom_cap *= 2;
		reg->atom_str = xreallocarray(reg->atom_str, reg->atom_cap, sizeof(*reg->atom_str));
	}
	reg->atom_str[reg->natoms] = xstrndup(s, len);
	reg->atom_hash[slot] = (uint32_t)reg->natoms++;
	if (reg->natoms * 2 > reg->atom_hcap) {
		free(reg->atom_hash);
		reg->atom_hcap *= 2;
		reg->atom_hash = xcalloc(reg->atom_hcap, sizeof(*reg->atom_hash));
		for (size_t a = 1; a < reg->natoms; a++) {
			const char *t = reg->atom_str[a];
			reg->atom_hash[atom_slot(reg, t, strlen(t))] = (uint32_t)a;
		}
	}
	return (series_atom)(reg->natoms - 1);
}

series_atom
series_atom_find(const struct series_registry *reg, const char *s)
{
	size_t len = strlen(s);

	if (len == 0)
		return SERIES_ATOM_NONE;
	return reg->atom_hash[atom_slot(reg, s, len)];
}

const char *
series_atom_str(const struct series_registry *reg, series_atom a)
{
	return a < reg->natoms ? reg->atom_str[a] : "";
}

void
series_registry_name_source(struct series_registry *reg, uint8_t index, const char *name)
{
	if (reg->source_atom[index] == SERIES_ATOM_NONE)
		reg->source_atom[index] = series_atom_intern(reg, name, strlen(name));
}

const char *
series_source_name(const struct series_registry *reg, series_id id)
{
	return series_atom_str(reg, reg->source_atom[reg->v[id].source]);
}

/* ---- units ---- */

/* Whether s[0..len) holds any of the words. */
static bool
has_any(const char *s, size_t len, const char *const *words)
{
	for (; *words != NULL; words++) {
		size_t wl = strlen(*words);
		for (size_t i = 0; i + wl <= len; i++)
			if (memcmp(s + i, *words, wl) == 0)
				return true;
	}
	return false;
}

const char *
series_unit_guess(const char *field, size_t len, bool gauge)
{
	/* Families by a part of the name, first match wins: "InErrors" is errors before it is
	 * anything else, "ListenOverflows" drops, "TCPPureAcks" segments. */
	static const struct {
		const char *unit;
		const char *const words[24];
	} families[] = {
	    {"bytes", {"Octets", "bytes", "Bytes", NULL}},
	    {"drops",
	     {"Drop", "drop", "Discard", "discard", "missed", "Missed", "out_of_buffer", "no_buf",
	      "no_dma", "Overflow", "Pruned", NULL}},
	    {"errors", {"Err", "err", "Fail", "fail", "Csum", "Bad", "invalid", "martian", NULL}},
	    {"segments",
	     {"Segs", "Retrans", "Rsts", "Ack", "ACK", "SYN", "Syn", "OrigDataSent", "TCPDelivered",
	      "OFOQueue", "WinProbe", NULL}},
	    {"packets", {"Pkts",       "Packets",       "packets",      "Datagrams",
	                 "Reasm",      "Frag",          "Dgrams",       "InReceives",
	                 "InDelivers", "OutRequests",   "OutTransmits", "NoRoutes",
	                 "no_route",   "UnknownProtos", "NoPorts",      "IgnoredMulti",
	                 "probes",     "syn_received",  "cookie",       "in_brd",
	                 NULL}},
	    {"connections",
	     {"Opens", "Estab", "Conn", "conn_", "Resets", "Abort", "TW", "expect_", "insert",
	      "delete", "clashres", NULL}},
	    {"lookups",
	     {"lookups", "hits", "_hit", "search", "found", "slow_tot", "slow_mc", NULL}},
	    {"entries", {"allocs", "destroys", "entries", "chainlength", NULL}},
	    {"runs",
	     {"gc_runs", "gc_total", "gc_ignored", "gc_goal_miss", "gc_dst_overflow", NULL}},
	    {"ms", {"RtoMin", "RtoMax", NULL}},
	    {"hops", {"TTL", NULL}},
	};

	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
		if (has_any(field, len, families[f].words))
			return families[f].unit;
	return gauge ? "value" : "events";
}

/* ---- selection ---- */

int
series_matcher_set(const struct series_registry *reg, struct series_matcher *m, const char *key,
                   const char *value, struct nm_error *err)
{
	int k;
	char *end;
	long v;

	for (k = 0; k < SERIES_NKEYS; k++)
		if (strcmp(key, series_key_names[k]) == 0)
			break;
	if (k == SERIES_NKEYS)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "label \"%s\": no such label", key);
	memset(m, 0, sizeof(*m));
	m->key = (uint8_t)k;
	switch (k) {
	case SERIES_KEY_QUEUE:
	case SERIES_KEY_CPU:
	case SERIES_KEY_IRQ:
		v = strtol(value, &end, 10);
		if (end == value || *end != '\0' || v < -1 || v > INT32_MAX ||
		    (k == SERIES_KEY_CPU && v >= CPUSET_MAX_CPUS))
			return nm_error_set(err, NM_ERR_BAD_ARGS, "label %s=\"%s\": not a number",
			                    key, value);
		m->num = (int32_t)v;
		break;
	case SERIES_KEY_DIR:
		if (strcmp(value, "rx") == 0)
			m->num = SERIES_DIR_RX;
		else if (strcmp(value, "tx") == 0)
			m->num = SERIES_DIR_TX;
		else if (*value == '\0')
			m->num = SERIES_DIR_NONE;
		else
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "label direction=\"%s\": rx or tx", value);
		break;
	case SERIES_KEY_UNIT:
		m->str = value;
		break;
	default:
		m->atom = series_atom_find(reg, value);
		m->never = *value != '\0' && m->atom == SERIES_ATOM_NONE;
		break;
	}
	return 0;
}

/* Whether the series matches one matcher. */
static bool
match_one(const struct series_registry *reg, series_id id, const struct series_matcher *m)
{
	const struct series_label_cell *l = &reg->lab[id];

	if (m->never)
		return false;
	switch (m->key) {
	case SERIES_KEY_SOURCE:
		return reg->source_atom[reg->v[id].source] == m->atom;
	case SERIES_KEY_DEVICE:
		return l->device == m->atom;
	case SERIES_KEY_QUEUE:
		return l->queue == m->num;
	case SERIES_KEY_DIR:
		return l->dir == m->num;
	case SERIES_KEY_CPU:
		if (m->cpus != NULL)
			return l->cpu >= 0 && cpuset_has(m->cpus, (unsigned)l->cpu);
		return l->cpu == m->num;
	case SERIES_KEY_IRQ:
		return l->irq == m->num;
	case SERIES_KEY_TYPE:
	case SERIES_KEY_MODE:
	case SERIES_KEY_TABLE:
		return cell_group(l, m->key) == m->atom;
	case SERIES_KEY_FIELD:
		return l->field == m->atom;
	case SERIES_KEY_UNIT:
		return strcmp(reg->v[id].unit, m->str != NULL ? m->str : "") == 0;
	}
	return false;
}

bool
series_matches(const struct series_registry *reg, series_id id, const struct series_matcher *m,
               size_t nm)
{
	for (size_t i = 0; i < nm; i++)
		if (!match_one(reg, id, &m[i]))
			return false;
	return true;
}

size_t
series_select(const struct series_registry *reg, const struct series_matcher *m, size_t nm,
              series_id **out)
{
	const struct series_idlist *from = NULL;
	size_t n = 0, cap = 0, total = reg->n;

	*out = NULL;
	for (size_t i = 0; i < nm && from == NULL; i++) {
		if (m[i].key != SERIES_KEY_SOURCE)
			continue;
		if (m[i].never || m[i].atom == SERIES_ATOM_NONE)
			return 0;
		for (size_t s = 0; s < 256 && from == NULL; s++)
			if (reg->source_atom[s] == m[i].atom)
				from = &reg->by_source[s];
		if (from == NULL)
			return 0;
		total = from->n;
	}
	for (size_t k = 0; k < total; k++) {
		series_id id = from != NULL ? from->v[k] : (series_id)k;
		if (!series_matches(reg, id, m, nm))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			*out = xreallocarray(*out, cap, sizeof(**out));
		}
		(*out)[n++] = id;
	}
	return n;
}
