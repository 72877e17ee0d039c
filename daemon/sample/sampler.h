/* sampler.h: runs every source on its own timer, turns raw readings into increments (the
 * sink) and appends them to the ring. A synchronous sample of every source serves window
 * edges and "now". */
#ifndef NM_SAMPLER_H
#define NM_SAMPLER_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"
#include "series.h"
#include "source.h"

/* The sources the sampler runs, by their place in its table (sampler.c's all_sources). */
enum sampler_kind {
	SAMPLER_INTERRUPTS,
	SAMPLER_SOFTIRQS,
	SAMPLER_CPU,
	SAMPLER_SNMP,
	SAMPLER_LINK,
	SAMPLER_QUEUES,
	SAMPLER_ETHTOOL,
	SAMPLER_SOFTNET,
	SAMPLER_LNSTAT,
	SAMPLER_SYSCTL,
	SAMPLER_BPF,
	SAMPLER_QDISC,
	SAMPLER_NSOURCES,
	SAMPLER_NONE = SAMPLER_NSOURCES, /* no source: a span over every source's samples */
};

struct daemon;
struct config;
struct event_base;
struct irq_table;
struct napi_table;
struct nm_error;

#define SAMPLER_MAX_SOURCES 16

struct sampler;

/* Build the sources from cfg (checking every [source.NAME] key) without starting anything:
 * for --check-config and before the loop runs. NULL with err on a bad configuration. */
struct sampler *sampler_new(const struct config *cfg, struct nm_error *err);
/* Start the timers on base; sources that fail to initialise are retried. */
void sampler_start(struct sampler *s, struct event_base *base);
/* Apply a reloaded configuration: intervals, enable, source options (sources re-created).
 * 0 ok; -1 with err and nothing changed. */
int sampler_reconfigure(struct sampler *s, const struct config *cfg, struct nm_error *err);
void sampler_free(struct sampler *s);

/* Replace the clock samples are stamped with (CLOCK_MONOTONIC ns by default): tests and
 * benchmarks drive time themselves. */
void sampler_set_clock(struct sampler *s, uint64_t (*now)(void *arg), void *arg);

/* Sample every enabled source now; returns the time taken (CLOCK_MONOTONIC ns). */
uint64_t sampler_sample_all(struct sampler *s);

struct series_registry *sampler_registry(struct sampler *s);
struct ring *sampler_ring(struct sampler *s);
/* The source by name ([source.NAME]), or NULL: for what takes names from outside. */
struct source *sampler_source(struct sampler *s, const char *name);
/* The source of a kind (its place in the sampler's table), or NULL when kind is none: how
 * the views, reports and queries reach a source, so that no name is looked up. */
struct source *sampler_source_of(struct sampler *s, enum sampler_kind kind);
/* The IRQ table (irqtable.h): the interrupts source's as of its last sample when that source
 * is enabled and has one; otherwise read now from /proc/interrupts and /proc/irq (no series:
 * profiles and the queue joins work with that source disabled, at the cost of a read per
 * call). Valid until the next sample or call. NULL with err (may be NULL) when neither. */
const struct irq_table *sampler_irq_table(struct sampler *s, struct nm_error *err);
/* The NAPI table (napitable.h) the queues source fills each sample: queue -> NAPI -> IRQ as
 * the kernel says it; empty without the netdev family, under a fixture root, or before the
 * queues source's first sample. */
const struct napi_table *sampler_napi_table(const struct sampler *s);
/* Read the affinity files of the IRQ tables handed out again (after a profile wrote them). */
void sampler_irq_refresh_affinity(struct sampler *s);
/* The O_PATH fd of the root the sources read below. */
int sampler_rootfd(const struct sampler *s);
size_t sampler_nsources(const struct sampler *s);
struct source *sampler_source_at(struct sampler *s, size_t i);
/* The ops of the i-th source of the sampler's table (enum sampler_kind), NULL past its end:
 * what a source says of itself without a sampler (its Prometheus families, whether results
 * keep it; test-sampler walks them). */
const struct source_ops *sampler_table_ops(size_t i);
/* The last raw reading of a series (what the kernel showed). */
uint64_t sampler_raw(const struct sampler *s, series_id id);
/* sampler_raw of ids [0, n) into out[0..n) (a snapshot's copy). */
void sampler_raws(const struct sampler *s, uint64_t *out, size_t n);
/* What turns a counter's acc in the ring back into the source's own total (the kernel's,
 * or for CPU time the cpu source's): total = acc + base[id] (mod 2^64), for ids < n; and
 * epoch_ns[id], when that count started (CLOCK_MONOTONIC) if the daemon saw it start: the
 * sample that found it back after it was gone, that found a fall counter_delta took for a
 * reset, or that found it new after the source's first sample; 0 for a series counted
 * from its reading at the first sample (its count began before the daemon). A 32-bit wrap
 * is no new count: the total goes on past 2^32. Gauges have base 0. Borrowed: valid until
 * the next sample. */
void sampler_totals(const struct sampler *s, const uint64_t **base, const uint64_t **epoch_ns,
                    size_t *n);
/* When series id was last found gone (the sample that found it missing after it was
 * reported: a device deleted, an IRQ freed; CLOCK_MONOTONIC ns), 0 if never. A return after
 * it is sampler_totals' epoch_ns, later than this. */
uint64_t sampler_gone_ns(const struct sampler *s, series_id id);
/* The totals of the 32-bit counters that went past 2^32 (every kernel cell is 32 bits:
 * /proc/interrupts, softirqs, softnet), with the boot they belong to: what a stop keeps in
 * the state directory so that a restart does not take them back to the cell's value (a
 * reset to Prometheus). New reference. */
json_object *sampler_wraps_save(const struct sampler *s);
/* Before the first sample: take up what sampler_wraps_save gave at the last stop, when it
 * is of this boot; each series goes on from its kept total by what its cell moved since
 * (a fall that is no wrap is a reset). Returns how many series it holds. */
size_t sampler_wraps_restore(struct sampler *s, json_object *saved);
/* Offset to turn CLOCK_MONOTONIC ns into wall-clock ns. */
int64_t sampler_mono_to_real(const struct sampler *s);
/* Wall-clock RFC 3339 of a CLOCK_MONOTONIC time. */
void sampler_format_mono(const struct sampler *s, uint64_t mono_ns, char *buf, size_t size);

/* ---- fine sampling ----
 * [sampling] fine names the sources (link, queues, softnet by default) that are also
 * sampled every fine_interval while fine sampling is on (fine_when: while a window or a test
 * is open, always, never). While on, one fine timer samples them besides their own timers:
 * the main ring still holds one record per interval of each source, made at its timer's beat
 * by a sample then, the sum of its samples since the record before, stamped with the real
 * time of that sample. Every sample of a fine source (fine ticks, its own beats while
 * fine sampling is off, synchronous samples) also goes, as its own record stamped with its
 * real time, into the fine ring: a second struct ring of fine_memory bytes (within
 * ring_memory: both together never hold more), same record format, same series ids and
 * source indices, whose oldest segments go by bytes and once older than fine_keep.
 *
 * A source's finest records: sampler_fine_ring(s) when it is not NULL and
 * sampler_fine_source(s, kind) is true, over the span the fine ring still holds
 * (ring_get_stats: oldest_ns); a cursor there gives the same acc as the main ring's at the
 * times both hold a record of the source. Before that span, or without a fine ring, the
 * main ring's records and the peak series.
 *
 * Peaks: each counter of a fine source that moved gets a gauge series "peak.NAME" (a prefix:
 * a glob of the counters does not take it; field "FIELD.peak_rate", the counter's other labels,
 * unit "packets/s" for "packets"..., series_info.peak set; sampler_peak_of finds it): in each
 * normal-cadence record, the highest rate per second over the intervals between the samples inside
 * it, each over its real gap (a late sample gives its rate over its real gap: not a burst; fine.h).
 * While fine sampling is off the one interval is the record's own: the peak is the mean. Peak
 * series are not exported on /metrics; results keep them with their source's series. */

/* Whether a window or a test is open (fine_when = window asks it at each source's beat and
 * at sampler_fine_update). */
void sampler_set_fine_wanted(struct sampler *s, bool (*wanted)(void *arg), void *arg);
/* Turn fine sampling on or off as the configuration and wanted say, now (a window has opened
 * or closed). Returns whether it is on. */
bool sampler_fine_update(struct sampler *s);
/* What the timer of the source of kind does at each of its intervals (tests drive it with a
 * driven clock): sample it and make its record (a fine source's too). */
void sampler_beat(struct sampler *s, enum sampler_kind kind);
/* What the fine timer does at each fine interval (tests drive it with a driven clock): one
 * sample of each fine source (its record waits for its beat). Nothing when off. */
void sampler_fine_tick(struct sampler *s);
/* The fine history, or NULL when there is none (fine_memory 0, fine_when never, no fine
 * source). Owned by the sampler. */
struct ring *sampler_fine_ring(struct sampler *s);
/* Whether fine sampling is on now (the fine timer runs). */
bool sampler_fine_on(const struct sampler *s);
/* Whether it was on at some time after t (the sampler's clock): on now, or stopped since. */
bool sampler_fine_since(const struct sampler *s, uint64_t t);
/* The fine interval ([sampling] fine_interval), ms. */
uint32_t sampler_fine_interval_ms(const struct sampler *s);
/* Whether the source of kind is sampled fine ([sampling] fine, and enabled). */
bool sampler_fine_source(const struct sampler *s, enum sampler_kind kind);
/* The peak-rate series of counter id, SERIES_NONE when it has none (it never moved while
 * its source was sampled fine, or it is no fine source's counter). */
series_id sampler_peak_of(const struct sampler *s, series_id id);

/* status: sources and ring (new reference). */
json_object *sampler_status_json(struct sampler *s);

#endif
