/* series.h: the registry of every series the daemon has seen: its name, kind, source, unit and
 * labels. Ids are dense, start at 0 and are never reused while the daemon runs.
 *
 * Labels are the structure of a series as the source that made it knows it (the device, the
 * queue, the CPU, the softirq type...), set once when the series is created. Queries and
 * reports select series by their labels (series_select), never by parsing names: a device
 * may be called "eth0.cpu3", a softirq type may hold a dot. Strings among the labels are
 * atoms: interned once in the registry, a label holds the atom's number. */
#ifndef NM_SERIES_H
#define NM_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t series_id;
#define SERIES_NONE ((series_id)UINT32_MAX)

enum series_kind {
	SERIES_COUNTER = 0, /* monotonic 64-bit; a decrease is a reset */
	SERIES_COUNTER32,   /* monotonic, wraps at 2^32 (/proc/interrupts cells, softnet) */
	SERIES_GAUGE,       /* a level: deltas are differences, may be negative */
};

struct series_info {
	char *name;       /* "irq.45.cpu3"; owned by the registry */
	uint8_t kind;     /* enum series_kind */
	uint8_t source;   /* index of the source that reports it */
	bool live;        /* reported by its source now */
	bool peak;        /* a peak-rate gauge the sampler derives from a counter (sampler.h) */
	double scale;     /* raw units -> unit: 1/USER_HZ for CPU ticks, else 1 */
	const char *unit; /* "packets", "bytes", "s" ... (static string; every source sets one) */
};

/* An interned string of the registry; 0 is none (the empty string). */
typedef uint32_t series_atom;
#define SERIES_ATOM_NONE ((series_atom)0)

enum series_dir {
	SERIES_DIR_NONE = 0,
	SERIES_DIR_RX,
	SERIES_DIR_TX,
};

/* The labels of a series as a source gives them and series_labels_of returns them. A label a
 * series does not have is SERIES_ATOM_NONE, -1 or SERIES_DIR_NONE. A series has at most one
 * of type, mode and table (the registry keeps one of them, in that order). The source's name
 * is not stored per series: series_info.source gives it (series_source_name). */
struct series_labels {
	series_atom device; /* "eth0": link, queues, ethtool */
	series_atom type;   /* softirq type ("NET_RX"), arch interrupt type ("RES", "IPI0") */
	series_atom mode;   /* CPU mode ("user", "softirq") */
	series_atom table;  /* lnstat table ("rt_cache"), SNMP table ("TcpExt") */
	series_atom field;  /* the counter's own name ("rx_dropped", "TCPSynRetrans") */
	int32_t irq;        /* IRQ number, -1: none */
	int32_t queue;      /* queue index, -1: none */
	int16_t cpu;        /* CPU number (< CPUSET_MAX_CPUS), -1: none (or all CPUs) */
	uint8_t dir;        /* enum series_dir */
};

/* How the registry keeps the labels of a series: 24 bytes beside its info, type, mode and
 * table sharing one slot. */
struct series_label_cell {
	series_atom device, field;
	series_atom group; /* the type, mode or table, as group_key says */
	int32_t irq, queue;
	int16_t cpu;
	uint8_t dir;
	uint8_t group_key; /* SERIES_KEY_TYPE, _MODE, _TABLE; 0: none */
};

/* Labels with none set. */
#define SERIES_LABELS_NONE                                                                         \
	((struct series_labels){.cpu = -1, .irq = -1, .queue = -1, .dir = SERIES_DIR_NONE})

struct series_registry {
	struct series_info *v;         /* v[id] */
	struct series_label_cell *lab; /* lab[id] */
	size_t n, cap;
	uint32_t *hash; /* open addressing table of id+1, 0 empty */
	size_t hcap;
	/* Atoms: str[a] for a in 1..natoms-1 (str[0] = ""), an open-addressing table of them. */
	char **atom_str;
	size_t natoms, atom_cap;
	uint32_t *atom_hash;
	size_t atom_hcap;
	series_atom source_atom[256]; /* by series_info.source: the source's name */
	/* The ids of each source's series in id order, by series_info.source: series_select
	 * with a source matcher walks these instead of the whole registry. */
	struct series_idlist {
		series_id *v;
		uint32_t n, cap;
	} by_source[256];
};

void series_registry_init(struct series_registry *reg);
void series_registry_free(struct series_registry *reg);
/* Find or create the series named name[0..len); a dead one is revived (live = true). Never
 * fails (allocation aborts). kind/source/unit/scale/labels are set on creation only; lab NULL:
 * none. */
series_id series_intern(struct series_registry *reg, const char *name, size_t len,
                        enum series_kind kind, uint8_t source, const char *unit, double scale,
                        const struct series_labels *lab);
/* printf-style convenience over series_intern. */
series_id series_internf(struct series_registry *reg, enum series_kind kind, uint8_t source,
                         const char *unit, double scale, const struct series_labels *lab,
                         const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* Heap bytes the registry holds: its arrays, hash tables, names and atoms (malloc's usable
 * sizes), for the benchmarks and status. */
size_t series_registry_bytes(const struct series_registry *reg);
/* The kind of a series as a word: "counter", "counter32", "gauge". */
const char *series_kind_name(enum series_kind kind);
/* Look a name up; SERIES_NONE when unknown. */
series_id series_find(const struct series_registry *reg, const char *name);
static inline const struct series_info *
series_get(const struct series_registry *reg, series_id id)
{
	return &reg->v[id];
}
/* The labels of a series. */
struct series_labels series_labels_of(const struct series_registry *reg, series_id id);

/* The atom of s[0..len), created when new (allocates then only); SERIES_ATOM_NONE for "". */
series_atom series_atom_intern(struct series_registry *reg, const char *s, size_t len);
/* The atom of s if the registry has it, else SERIES_ATOM_NONE (nothing is created). */
series_atom series_atom_find(const struct series_registry *reg, const char *s);
/* The string of an atom ("" for none or out of range). */
const char *series_atom_str(const struct series_registry *reg, series_atom a);
/* Record the name of the source at index (its series' "source" label). */
void series_registry_name_source(struct series_registry *reg, uint8_t index, const char *name);
/* The name of the source of a series ("" when not recorded). */
const char *series_source_name(const struct series_registry *reg, series_id id);

/* A unit for a counter known only by its name (SNMP, ethtool, lnstat, sysctl fields), from
 * the name's family, first match in this order: "bytes" (Octets, bytes), "drops" (Drop,
 * Discard, missed, out_of_buffer, no_buf, no_dma, Overflow, Pruned), "errors" (Err, Fail,
 * Csum, Bad, invalid, martian), "segments" (Segs, Retrans, Rsts, Ack, ACK, SYN, Syn,
 * OrigDataSent, TCPDelivered, OFOQueue, WinProbe), "packets" (Pkts, Packets, Datagrams,
 * Reasm, Frag, Dgrams, InReceives, InDelivers, OutRequests, OutTransmits, NoRoutes,
 * UnknownProtos, NoPorts, IgnoredMulti, probes, cookie...), "connections" (Opens, Estab,
 * Conn, Resets, Abort, TW, conntrack's insert, delete, expect_...), "lookups" (lookups,
 * hits, search, found), "entries" (allocs, destroys, entries), "runs" (gc_*), "ms" (RtoMin,
 * RtoMax), "hops" (TTL), else "events" for a counter (timeouts, recoveries, undos: things
 * that happened), "value" for a gauge (a flag, a mode). The snmp source makes ICMP's
 * counters "messages" (errors stay errors). See proto/PROTOCOL.md, Labels. Case matters
 * where it is shown. Returns a static string. */
const char *series_unit_guess(const char *field, size_t len, bool gauge);

/* ---- selecting series by labels ---- */

enum series_key {
	SERIES_KEY_SOURCE = 0,
	SERIES_KEY_DEVICE,
	SERIES_KEY_QUEUE,
	SERIES_KEY_DIR,
	SERIES_KEY_CPU,
	SERIES_KEY_IRQ,
	SERIES_KEY_TYPE,
	SERIES_KEY_MODE,
	SERIES_KEY_TABLE,
	SERIES_KEY_FIELD,
	SERIES_KEY_UNIT,
	SERIES_NKEYS,
};

/* The label names, by enum series_key: "source", "device", "queue", "direction", "cpu",
 * "irq", "type", "mode", "table", "field", "unit". */
extern const char *const series_key_names[SERIES_NKEYS];

struct cpuset;

/* One matcher: the series' label key equals the value (an atom for the string keys, a number
 * for queue/cpu/irq, enum series_dir for direction, a string for unit). With cpus set (key
 * cpu), the CPU is in the set instead. A label the series lacks matches only "none" (atom 0,
 * number -1). */
struct series_matcher {
	uint8_t key; /* enum series_key */
	series_atom atom;
	int32_t num;
	const char *str;
	const struct cpuset *cpus;
	bool never; /* the value names an atom the registry does not have: matches nothing */
};

/* A matcher key=value from strings ("type", "NET_RX"; "cpu", "3"; "direction", "rx"). -1 for
 * an unknown key or a bad number (err may be NULL). Looks atoms up, creates none. */
struct nm_error;
int series_matcher_set(const struct series_registry *reg, struct series_matcher *m, const char *key,
                       const char *value, struct nm_error *err);
/* Whether series id matches every matcher. */
bool series_matches(const struct series_registry *reg, series_id id, const struct series_matcher *m,
                    size_t nm);
/* The ids of the series matching every matcher, live and dead (callers check liveness), in id
 * order, into *out (allocated, the caller frees; NULL when none). Returns their count. With a
 * source matcher only that source's series are looked at. */
size_t series_select(const struct series_registry *reg, const struct series_matcher *m, size_t nm,
                     series_id **out);

#endif
