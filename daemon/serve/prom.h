/* prom.h: the Prometheus exposition: the ring's newest sample of every exported series as
 * Prometheus text format 0.0.4 or OpenMetrics 1.0, into a strbuf. Nothing here reads /proc
 * or a socket: the values are the ring's live state, the labels the registry's (never parsed
 * from names), the rest (windows, tests, sources) what the caller hands in. daemon/http.c
 * serves it.
 *
 * Families are fixed (prom.c's family table). Which family a series belongs to is decided
 * once per series, from its source and labels, and kept: a scrape walks the kept per-family
 * lists. Large families (raw per-IRQ-per-CPU cells, per-CPU lnstat cells, ethtool, the
 * queues' other counters) are off unless an `export = GLOB` line turns them on; `export =
 * !GLOB` turns a series off. Globs match the series' names, the lines apply in order, the
 * last match wins. */
#ifndef NM_PROM_H
#define NM_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "series.h"

struct ring;
struct source_ops;
struct strbuf;
struct irq_table;
struct napi_table;

enum prom_format {
	PROM_TEXT = 0,    /* text/plain; version=0.0.4 */
	PROM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

/* What a source says of itself (struct source, copied by the caller). */
struct prom_source {
	const char *name;
	unsigned index;               /* its ring source number */
	const struct source_ops *ops; /* its families (source_ops.prom): which of its series
	                                 go into which family */
	bool enabled, healthy;
	uint64_t samples, failures;
	uint64_t last_cost_ns, late_last_ns;
};

/* An open window, a running test. */
struct prom_window {
	const char *name, *origin;
};
struct prom_test {
	const char *name, *driver;
};

/* Everything one scrape shows. Pointers are borrowed for the call. */
struct prom_input {
	const struct series_registry *reg;
	const struct ring *ring;
	/* A counter's total is acc + base[id] (ids < nbase; sampler_totals); its count started
	 * at epoch_ns[id] (CLOCK_MONOTONIC, 0: unknown), OpenMetrics' _created. NULL: acc. */
	const uint64_t *base, *epoch_ns;
	size_t nbase;
	const struct irq_table *irqtab;   /* for the per-device interrupt sums; NULL: none */
	const struct napi_table *napitab; /* the queues' NAPIs (netmetrics_queue_napi_info) */
	int64_t mono_to_real_ns;          /* sample times (CLOCK_MONOTONIC) to wall clock */
	const struct prom_source *sources;
	size_t nsources;
	const struct prom_window *windows;
	size_t nwindows;
	const struct prom_test *tests;
	size_t ntests;
	const char *profile; /* the applied profile's name, NULL: none */
	int profile_drift;   /* 1 drifted, 0 not, -1 unknown */
	size_t ring_used, ring_capacity;
	double last_scrape_seconds; /* what the previous scrape took; < 0: none yet */
	/* [prometheus] web_config: TLS and basic auth, and what they refused */
	bool http_tls, http_auth;
	uint64_t tls_failures, auth_failures, auth_cache_hits;
};

/* What one render did. */
struct prom_result {
	size_t series;  /* samples of sampled series written */
	size_t dropped; /* exported series left out by max_series */
};

#define PROM_DEFAULT_MAX_SERIES 20000

struct prom;

/* An exporter with no export lines and the default cap. Free with prom_free. */
struct prom *prom_new(void);
void prom_free(struct prom *p);
/* Set the export lines ("GLOB" or "!GLOB", copied) and the cap on series per scrape
 * (>= 1); forgets what was decided per series. */
void prom_configure(struct prom *p, const char *const *exports, size_t nexports, size_t max_series);
/* The [prometheus] options beyond the export globs. */
struct prom_options {
	const char *const *select; /* "+SELECTOR" (include) / "-SELECTOR" (exclude), in order */
	size_t nselect;
	const char *const *rollup; /* SELECTORs of the series summed per CPU set; NULL: the
	                            * defaults (prom_default_rollups); "none" lines are skipped */
	size_t nrollup;
	const char *const *cpusets; /* "NAME=LIST"; none: one set "all" of every CPU */
	size_t ncpusets;
	const char *const *unmoved; /* SELECTORs of the counters left out while their total is
	                             * 0; NULL: prom_default_unmoved; "none" lines are skipped */
	size_t nunmoved;
	size_t max_family_series; /* samples per family per scrape; 0: no cap */
};

/* The default roll-ups, NULL-terminated: softirqs other than NET_RX and NET_TX, the arch
 * interrupts, softnet's received_rps and flow_limit_count, the per-CPU levels. */
extern const char *const prom_default_rollups[];

/* The default drop_unmoved selectors, NULL-terminated: the per-CPU and per-IRQ families
 * (device_interrupts, irq_interrupts, softirqs, ipis, arch_interrupts, cpu_seconds), the
 * per-queue families, ethtool and per-CPU lnstat. */
extern const char *const prom_default_unmoved[];

struct nm_error;
/* Set the options (copied; selectors parsed, common/labelsel.h); forgets what was decided
 * per series. -1 with err on a bad selector or cpuset (none of the options kept then). A new
 * prom has no selection, no roll-ups, drops nothing and has no family cap. */
int prom_set_options(struct prom *p, const struct prom_options *o, struct nm_error *err);
struct config;
/* prom_configure and prom_set_options from the [prometheus] section (prom-config.c). */
int prom_configure_from(struct prom *p, const struct config *c, struct nm_error *err);
/* Render in into out (reset first). Allocates only when the registry grew since the last
 * call (the per-family lists) or out must grow. */
void prom_render(struct prom *p, const struct prom_input *in, enum prom_format fmt,
                 struct strbuf *out, struct prom_result *res);
/* Whether the family table has a family named name (a counter's without _total): every
 * family a source names in source_ops.prom must be there (test-prom). */
bool prom_has_family(const char *name);
/* The Content-Type of a format. */
const char *prom_content_type(enum prom_format fmt);
/* Append s to out as a label value: \ " and newline escaped. */
void prom_escape_label(struct strbuf *out, const char *s);

#endif
