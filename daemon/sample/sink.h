/* sink.h: how a source hands one sample's values to the sampler.
 *
 * A source calls sink_put() for each series whose raw value it read in this sample. A series
 * of the source that is not put keeps its previous raw value: a source that skips input it
 * knows did not change (a /proc/interrupts line byte-identical to last time) simply does not
 * put its series. sink_gone() says a series no longer exists (device removed, IRQ freed).
 * A series seen for the first time after the source's first sample counts from zero (a new
 * device); one that comes back after sink_gone() starts from a new baseline.
 * The sampler turns raw values into wrap- and reset-safe increments (counter.h) and the ring
 * stores only what changed. Nothing here allocates in steady state. */
#ifndef NM_SINK_H
#define NM_SINK_H

#include <stdint.h>

#include "series.h"

struct sink;

void sink_put(struct sink *sink, series_id id, uint64_t raw);
void sink_gone(struct sink *sink, series_id id);

#endif
