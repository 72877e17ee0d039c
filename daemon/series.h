/* series.h: the registry of every series the daemon has seen: its name, kind, source, unit.
 * Ids are dense, start at 0 and are never reused while the daemon runs. */
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
	double scale;     /* raw units -> unit: 1/USER_HZ for CPU ticks, else 1 */
	const char *unit; /* "packets", "bytes", "s", "" ... (static string) */
};

struct series_registry {
	struct series_info *v; /* v[id] */
	size_t n, cap;
	uint32_t *hash; /* open addressing table of id+1, 0 empty */
	size_t hcap;
};

void series_registry_init(struct series_registry *reg);
void series_registry_free(struct series_registry *reg);
/* Find or create the series named name[0..len); a dead one is revived (live = true). Never
 * fails (allocation aborts). kind/source/unit/scale are set on creation only. */
series_id series_intern(struct series_registry *reg, const char *name, size_t len,
                        enum series_kind kind, uint8_t source, const char *unit, double scale);
/* printf-style convenience over series_intern. */
series_id series_internf(struct series_registry *reg, enum series_kind kind, uint8_t source,
                         const char *unit, double scale, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* The kind of a series as a word: "counter", "counter32", "gauge". */
const char *series_kind_name(enum series_kind kind);
/* Look a name up; SERIES_NONE when unknown. */
series_id series_find(const struct series_registry *reg, const char *name);
static inline const struct series_info *
series_get(const struct series_registry *reg, series_id id)
{
	return &reg->v[id];
}

#endif
