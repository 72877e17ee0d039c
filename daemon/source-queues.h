/* source-queues.h: what the queues source knows about each device's queues, for the modules
 * that show per-queue rates (queues, watch queues) without parsing series names. */
#ifndef NM_SOURCE_QUEUES_H
#define NM_SOURCE_QUEUES_H

#include <stddef.h>
#include <stdint.h>

#include "series.h"

struct source;

enum queue_dir { QUEUE_RX = 0, QUEUE_TX = 1 };

struct queue_info {
	const char *dev;   /* device name, owned by the source */
	uint8_t dir;       /* enum queue_dir */
	uint32_t index;    /* queue number: queue.<dev>.rx<index>.packets */
	series_id packets; /* SERIES_NONE when the device reports none */
	series_id bytes;   /* SERIES_NONE when the device reports none */
};

/* The queues seen by the last sample of src (a source whose ops are source_queues_ops), by
 * device in listing order, then rx before tx, then index. *n is 0 before the first sample.
 * The array and its names belong to the source and stay valid until its next sample or
 * free. */
const struct queue_info *source_queues_list(struct source *src, size_t *n);

#endif
