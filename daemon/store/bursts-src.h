/* bursts-src.h: where the burst figures (bursts.h) read the finest records of a window's
 * span. The one place to change when a finer store than the main ring holds them. */
#ifndef NM_BURSTS_SRC_H
#define NM_BURSTS_SRC_H

struct seriesblock;

/* The finest records of the sources of a window's span, given main, the block copied out
 * of the main ring at its close (seriesblock.h; before it is downsampled). Today that is
 * main itself: the sources sampled at a fine interval ([source.link] interval = 10ms) have
 * their fine records in the main ring. Borrowed: lives as long as main. */
const struct seriesblock *bursts_src_finest(const struct seriesblock *main);

#endif
