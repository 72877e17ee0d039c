/* counter.c: increments between raw readings, safe against wraps and resets. */
#include "counter.h"

uint64_t
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
