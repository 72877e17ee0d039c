/* source-queues.h: what the queues source knows about each device's queues, for the modules
 * that show per-queue rates (queues, watch queues) without parsing series names. */
#ifndef NM_SOURCE_QUEUES_H
#define NM_SOURCE_QUEUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "series.h"

struct source;

enum queue_dir { QUEUE_RX = 0, QUEUE_TX = 1 };

struct queue_info {
	const char *dev;      /* device name, owned by the source */
	uint8_t dir;          /* enum queue_dir */
	uint32_t index;       /* queue number: queue.<dev>.rx<index>.packets */
	series_id packets;    /* SERIES_NONE when the device reports none */
	series_id bytes;      /* SERIES_NONE when the device reports none */
	series_id drops;      /* qstats rx-hw-drops / tx-hw-drops; SERIES_NONE when none */
	const char *counters; /* where from: "qstats", "ethtool" or "mq-class" (static) */
};

/* A device the queues source reads: where its queue figures come from ("qstats",
 * "ethtool", "mq-class", or "none") and, unless qstats or ethtool, why: what it lacks and
 * what stands in. */
struct queue_dev {
	const char *dev;
	const char *counters; /* static */
	const char *why;      /* "" for qstats and ethtool */
	const char *note;     /* ethtool: what its driver's queue counters lack ("gve counts bytes
	                         per queue, not packets"), NULL when nothing (static) */
};

/* The queues seen by the last sample of src (a source whose ops are source_queues_ops), by
 * device in listing order, then rx before tx, then index. *n is 0 before the first sample.
 * The array and its names belong to the source and stay valid until its next sample or
 * free. */
const struct queue_info *source_queues_list(struct source *src, size_t *n);
/* Every device src reads, in listing order. Belongs to the source; valid until its next
 * sample, call or free. */
const struct queue_dev *source_queues_devices(struct source *src, size_t *n);

/* Tests only: fold each ethtool device's counters the plain way every sample, not by the
 * plan made from the first such fold (source-queues.c), to compare the two. */
extern bool source_queues_no_plan;

#endif
