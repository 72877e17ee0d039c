// SPDX-License-Identifier: GPL-2.0-only
/* irq.bpf.c: the program set "irq" (bpf/irq.h, daemon/base/bpfload.c): softirq time and count
 * per type per CPU, hard IRQ handler time and count per IRQ per CPU, counted into per-CPU
 * maps that the bpf source (daemon/sample/source-bpf.c) reads at its own cadence. Nothing
 * wakes user space: no ring buffer, no perf events.
 *
 * A softirq is counted at softirq_entry, right after the kernel's own kstat_incr_softirqs
 * (handle_softirqs in kernel/softirq.c), so the counts equal /proc/softirqs'. Its time runs
 * from entry to exit less the hard IRQ handler time spent on that CPU meanwhile (a hard IRQ
 * interrupts a softirq; its handler time is the IRQ's, not the softirq's). A hard IRQ is
 * counted per handler run (irq_handler_entry fires once per action: a shared IRQ line with
 * two handlers counts twice where /proc/interrupts counts once), and timed from handler entry
 * to handler exit. Handlers and softirqs do not nest within their own kind on one CPU, so one
 * start slot per CPU (per type for softirqs) is enough. */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "irq.h"

char LICENSE[] SEC("license") = "GPL";

/* What user space reads: one element, every type's count and time, per CPU, and the CPU's
 * state: the start of the running softirq of each type, the start of the running hard IRQ
 * handler, and the handler time so far (to take out of a softirq it interrupted). One element
 * for both, so that each event looks up one map value (a per-CPU array's lookup, inlined by
 * the JIT) rather than two. Read-only from user space (BPF_F_RDONLY): the fd handed to the
 * main process cannot change it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_RDONLY);
	__type(key, __u32);
	__type(value, struct nm_softirq_cpu);
} softirq_stats SEC(".maps");

/* Per IRQ number: count and handler time, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, NM_IRQ_MAX);
	__uint(map_flags, BPF_F_RDONLY);
	__type(key, __u32);
	__type(value, struct nm_irq_cpu);
} irq_stats SEC(".maps");

/* vec as an index the verifier can bound: the range check, then a mask it sees (clang
 * otherwise widens vec after the check and the bound is lost). -1 when out of range. */
static __always_inline int
vec_index(unsigned int vec)
{
	__u32 v = vec;

	if (v >= NM_NR_SOFTIRQS)
		return -1;
	barrier_var(v);
	return (int)(v & (NM_NR_SOFTIRQS - 1));
}

SEC("tp_btf/softirq_entry")
int
BPF_PROG(nm_softirq_entry, unsigned int vec)
{
	__u32 zero = 0;
	struct nm_softirq_cpu *s = bpf_map_lookup_elem(&softirq_stats, &zero);
	int i = vec_index(vec);

	if (s == NULL || i < 0)
		return 0;
	s->count[i]++;
	s->softirq_start[i] = bpf_ktime_get_ns();
	s->softirq_irq_ns[i] = s->irq_ns;
	return 0;
}

SEC("tp_btf/softirq_exit")
int
BPF_PROG(nm_softirq_exit, unsigned int vec)
{
	__u32 zero = 0;
	struct nm_softirq_cpu *s = bpf_map_lookup_elem(&softirq_stats, &zero);
	__u64 now = bpf_ktime_get_ns(), d, in_irq;
	int i = vec_index(vec);

	if (s == NULL || i < 0 || s->softirq_start[i] == 0)
		return 0;
	d = now - s->softirq_start[i];
	in_irq = s->irq_ns - s->softirq_irq_ns[i];
	s->time_ns[i] += d > in_irq ? d - in_irq : 0;
	s->softirq_start[i] = 0;
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int
BPF_PROG(nm_irq_entry, int irq, struct irqaction *action)
{
	__u32 zero = 0, key = (__u32)irq;
	struct nm_softirq_cpu *c = bpf_map_lookup_elem(&softirq_stats, &zero);
	struct nm_irq_cpu *v = bpf_map_lookup_elem(&irq_stats, &key);

	if (c == NULL)
		return 0;
	if (v == NULL) {
		struct nm_irq_cpu init = {};

		/* BPF_NOEXIST: another CPU may have made it meanwhile; either way it is there. */
		bpf_map_update_elem(&irq_stats, &key, &init, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&irq_stats, &key);
		if (v == NULL)
			return 0;
	}
	v->count++;
	c->irq_start = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int
BPF_PROG(nm_irq_exit, int irq, struct irqaction *action, int ret)
{
	__u32 zero = 0, key = (__u32)irq;
	struct nm_softirq_cpu *c = bpf_map_lookup_elem(&softirq_stats, &zero);
	struct nm_irq_cpu *v = bpf_map_lookup_elem(&irq_stats, &key);
	__u64 d;

	if (c == NULL || c->irq_start == 0)
		return 0;
	d = bpf_ktime_get_ns() - c->irq_start;
	c->irq_start = 0;
	c->irq_ns += d;
	if (v != NULL)
		v->time_ns += d;
	return 0;
}
