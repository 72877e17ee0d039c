// SPDX-License-Identifier: GPL-2.0-only
/* drop.bpf.c: the program set "drop" (bpf/drop.h, daemon/base/bpfset.c): packets freed as
 * dropped (the skb:kfree_skb tracepoint, with its reason) counted per reason and per device
 * (ifindex and network namespace of skb->dev, where the skb has one) into a per-CPU hash that
 * the bpf source (daemon/sample/source-bpf.c) reads at its own cadence. Packets consumed
 * normally go to skb:consume_skb and are not seen here. The reasons' names are not the
 * program's business: the daemon reads them from the running kernel's BTF (enum
 * skb_drop_reason), whose numbering changes between kernels. */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "drop.h"

char LICENSE[] SEC("license") = "GPL";

/* Per (reason, device): packets, per CPU. Read-only from user space (BPF_F_RDONLY). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, NM_DROP_KEYS_MAX);
	__uint(map_flags, BPF_F_RDONLY);
	__type(key, struct nm_drop_key);
	__type(value, __u64);
} drop_stats SEC(".maps");

SEC("tp_btf/kfree_skb")
int
BPF_PROG(nm_kfree_skb, struct sk_buff *skb, void *location, enum skb_drop_reason reason)
{
	struct nm_drop_key key = {.reason = (__u32)reason};
	struct net_device *dev = skb->dev;
	__u64 one = 1, *v;

	/* Direct loads through the tracepoint's BTF-typed pointers (the verifier makes them
	 * fault-safe; CO-RE still relocates the offsets): a plain load each, where BPF_CORE_READ
	 * is a bpf_probe_read_kernel call each. */
	if (dev != NULL) {
		key.ifindex = (__u32)dev->ifindex;
		key.netns = dev->nd_net.net->ns.inum;
	}
	v = bpf_map_lookup_elem(&drop_stats, &key);
	if (v != NULL) {
		(*v)++;
		return 0;
	}
	/* BPF_NOEXIST: another CPU may have made it meanwhile; then count on this CPU's. */
	if (bpf_map_update_elem(&drop_stats, &key, &one, BPF_NOEXIST) < 0 &&
	    (v = bpf_map_lookup_elem(&drop_stats, &key)) != NULL)
		(*v)++;
	return 0;
}
