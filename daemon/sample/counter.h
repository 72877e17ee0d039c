/* counter.h: from two raw readings of a series to the increment between them, safe against
 * 32-bit wraps and resets (a device re-created): never negative, never absurd.
 *
 * Counter semantics, the one place they are written down. Every series has one of three
 * kinds (series.h); the sampler turns each raw reading into an increment with
 * counter_delta, the ring keeps the sum of increments (acc), and every delta a query or a
 * report gives is the difference of acc at its two edge samples: never a sum over more or
 * fewer samples than the edges it states.
 *
 *  kind       may fall?  a fall means                        delta of the fall
 *  COUNTER    no         a reset (device re-created, module  cur: counting restarted from 0
 *                        reloaded)
 *  COUNTER32  no         a wrap of a 32-bit cell if          cur + 2^32 - prev (below 2^31)
 *                        prev, cur < 2^32 and the wrapped
 *                        step is below 2^31; else a reset    cur
 *  GAUGE      yes        the level went down                 cur - prev, negative (two's
 *                                                            complement; queries sign it)
 *
 * A 32-bit wrap looks like prev 0xfffffff0, cur 0x10: 0x20 counted. A fall of a COUNTER32
 * by more than 2^31 (prev 0x10, cur 0xfffffff0 is not a wrap: a step past half the range)
 * is a reset, as is any fall of a cell that holds more than 32 bits.
 *
 * By source:
 *  cpu         cpu.<N>.<mode>, cpu.all.<mode>: COUNTER, but never a kernel reading: the
 *              source applies mpstat's rules first (cpuutil.h), so the values it puts only
 *              rise. Of the kernel's fields idle and iowait may fall (iowait tracking moves
 *              time to idle: 0; a CPU back online restarts both from 0: its new value);
 *              user includes guest, nice guest_nice (taken out). An offline CPU's series
 *              stay and stop moving (cpu.<N>.online, GAUGE, is 0). stat.ctxt, stat.intr,
 *              stat.processes: COUNTER; stat.procs_running, stat.procs_blocked,
 *              cpu.online: GAUGE.
 *  interrupts  irq.<N>.cpu<C> and the arch lines: COUNTER32 (unsigned int cells).
 *  softirqs    softirq.<TYPE>.cpu<C>: COUNTER32.
 *  softnet     softnet.cpu<C>.{processed,dropped,time_squeeze,received_rps,
 *              flow_limit_count}: COUNTER32 (%08x cells); backlog: GAUGE.
 *  lnstat      lnstat.<table>.cpu<C>.<field>: COUNTER32 (%08x cells);
 *              lnstat.<table>.<field> (sums over CPUs): COUNTER; lnstat.<table>.entries
 *              (conntrack, ARP entries): GAUGE, falls as entries expire.
 *  snmp        snmp.* and netstat.*: COUNTER, except levels (Tcp.CurrEstab, Tcp.MaxConn,
 *              Tcp.Rto*, Ip.Forwarding, Ip.DefaultTTL, MPTcpExt.MPCurrEstab, and any
 *              field read negative): GAUGE.
 *  link        link.<dev>.<stat>: COUNTER (64-bit rtnl stats).
 *  queues      queue.<dev>.<rx|tx><N>.<stat>: COUNTER.
 *  ethtool     ethtool.<dev>.<stat>: COUNTER (u64 ETHTOOL_GSTATS).
 *  sysctl      GAUGE, or COUNTER when configured (kind = counter).
 * A series that disappears (sink_gone): a counter stops moving; a gauge drops to 0. One
 * that returns is a new baseline (its first reading adds 0), one new after a source's first
 * sample counts from 0 (a new device). Each case is tested in tests/unit/test-counter.c,
 * test-sampler.c and test-source-cpu.c. */
#ifndef NM_COUNTER_H
#define NM_COUNTER_H

#include <stdbool.h>
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

/* Whether the fall from prev to cur is a reset (counting restarted: counter_delta gives cur),
 * not a wrap or a gauge's fall. */
static inline bool
counter_is_reset(enum series_kind kind, uint64_t prev, uint64_t cur)
{
	if (kind == SERIES_GAUGE || cur >= prev)
		return false;
	return kind == SERIES_COUNTER || counter_delta(kind, prev, cur) == cur;
}

#endif
