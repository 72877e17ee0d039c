/* bursts-src.h: where the burst figures (bursts.h) read the finest records of a window's
 * span: the fine history first, the main ring for what it lacks. */
#ifndef NM_BURSTS_SRC_H
#define NM_BURSTS_SRC_H

#include <stddef.h>
#include <stdint.h>

struct seriesblock;

/* The blocks a window's burst figures read, finest first, into out (bursts_json_blocks):
 * fine, the span copied out of the fine history ([sampling] fine: link, queues and softnet
 * every fine_interval while a window is open; NULL when there was none or it no longer held
 * the window's start), then main, the block copied out of the main ring at the close
 * (seriesblock.h; before it is downsampled), which gives the other sources (NET_RX softirqs)
 * and every source when there is no fine copy. Returns how many (0: neither). */
size_t bursts_src_blocks(const struct seriesblock *main, const struct seriesblock *fine,
                         const struct seriesblock *out[2]);

/* A live walk of the finest records for `watch bursts`: out of the fine history when there
 * is one (the fine sources only: devices, queues, CPUs' softnet; every fine_interval while
 * fine sampling is on, at each source's interval otherwise), else the main ring; the series burst
 * figures cover (bursts_kind; with dev, of that device, and every CPU's), their records kept for
 * the last span. One cursor walks on from where the last step stopped: one replay from the ring's
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
