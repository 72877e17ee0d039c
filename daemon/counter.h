/* counter.h: from two raw readings of a series to the increment between them, safe against
 * 32-bit wraps and resets (a device re-created): never negative, never absurd. */
#ifndef NM_COUNTER_H
#define NM_COUNTER_H

#include <stdint.h>

#include "series.h"

/* The increment from prev to cur for a series of this kind:
 *  COUNTER:   cur - prev, or cur when cur < prev (a reset: counting restarted from 0);
 *  COUNTER32: cur - prev; when cur < prev, a wrap (cur + 2^32 - prev) if prev < 2^32 and
 *             that is below 2^31, else a reset (cur);
 *  GAUGE:     cur - prev as a two's-complement difference (may be "negative").
 * Inline: the sampler calls it for every value a source puts, thousands a sample. */
static inline uint64_t
counter_delta(enum series_kind kind, uint64_t prev, uint64_t cur)
{
	uint64_t wrapped;

	switch (kind) {
	case SERIES_GAUGE:
		return cur - prev;
	case SERIES_COUNTER32:
		if (cur >= prev)
			return cur - prev;
		if (prev <= UINT32_MAX && cur <= UINT32_MAX) {
			wrapped = cur + (1ull << 32) - prev;
			if (wrapped < (1ull << 31))
				return wrapped;
		}
		return cur;
	case SERIES_COUNTER:
	default:
		return cur >= prev ? cur - prev : cur;
	}
}

#endif
