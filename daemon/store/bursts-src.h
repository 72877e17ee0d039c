/* bursts-src.h: where the burst figures (bursts.h) read the finest records of a window's
 * span. The one place to change when a finer store than the main ring holds them. */
#ifndef NM_BURSTS_SRC_H
#define NM_BURSTS_SRC_H

#include <stdint.h>

struct seriesblock;

/* The finest records of the sources of a window's span, given main, the block copied out
 * of the main ring at its close (seriesblock.h; before it is downsampled). Today that is
 * main itself: the sources sampled at a fine interval ([source.link] interval = 10ms) have
 * their fine records in the main ring. Borrowed: lives as long as main. */
const struct seriesblock *bursts_src_finest(const struct seriesblock *main);

/* A live walk of the finest records for `watch bursts`: the series burst figures cover
 * (bursts_kind; with dev, of that device, and every CPU's), their records kept for the last
 * span. One cursor walks on from where the last step stopped: one replay from the ring's
 * keyframe at the first step (and when the ring evicted or learnt series since: the walk
 * starts over with the series there are then), then only the new records. */
struct sampler;
struct bursts_live;
/* A walk over s for dev (NULL: every device). The caller frees it (bursts_src_live_free). */
struct bursts_live *bursts_src_live_new(struct sampler *s, const char *dev);
/* Walk on to the newest record; the records of the last span_ns before it (each source's
 * record at or before the span's start included), as a block whose t0 and t1 are the
 * span's. Borrowed: valid until the next step or the free. NULL when there is nothing (no
 * such series, no records of the span). */
const struct seriesblock *bursts_src_live_step(struct bursts_live *lv, uint64_t span_ns);
void bursts_src_live_free(struct bursts_live *lv);

#endif
