// SPDX-License-Identifier: GPL-2.0-only
/* empty.bpf.c: the floor of the bpf source's cost, for bench/bench-bpf.py --sets empty: a
 * program on each tracepoint the daemon's sets use (bpf/irq.bpf.c, drop.bpf.c, napi.bpf.c),
 * attached the same way (tp_btf), that only returns 0. What these cost the traffic is the
 * kernel's: the tracepoint turned on, the BPF trampoline, and (with the kernel's BPF stats
 * on, as the daemon runs them) two clock reads a run; what the daemon's programs cost above
 * it is theirs. */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/softirq_entry")
int
BPF_PROG(empty_softirq_entry)
{
	return 0;
}

SEC("tp_btf/softirq_exit")
int
BPF_PROG(empty_softirq_exit)
{
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int
BPF_PROG(empty_irq_entry)
{
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int
BPF_PROG(empty_irq_exit)
{
	return 0;
}

SEC("tp_btf/kfree_skb")
int
BPF_PROG(empty_kfree_skb)
{
	return 0;
}

SEC("tp_btf/napi_poll")
int
BPF_PROG(empty_napi_poll)
{
	return 0;
}
