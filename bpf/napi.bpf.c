// SPDX-License-Identifier: GPL-2.0-only
/* napi.bpf.c: the program set "napi" (bpf/napi.h, daemon/base/bpfset.c): every NAPI poll
 * (the napi:napi_poll tracepoint: the instance, its work and its budget) counted per NAPI
 * instance per CPU: polls, packets, and polls that used their whole budget (work >= budget:
 * the instance had more to do, and net_rx_action polls it again or defers it to ksoftirqd).
 * Read by the bpf source (daemon/sample/source-bpf.c) at its cadence. */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "napi.h"

char LICENSE[] SEC("license") = "GPL";

/* Per NAPI instance: counts per CPU. Read-only from user space (BPF_F_RDONLY). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, NM_NAPI_MAX);
	__uint(map_flags, BPF_F_RDONLY);
	__type(key, struct nm_napi_key);
	__type(value, struct nm_napi_cpu);
} napi_stats SEC(".maps");

SEC("tp_btf/napi_poll")
int
BPF_PROG(nm_napi_poll, struct napi_struct *napi, int work, int budget)
{
	struct nm_napi_key key = {.id = napi->napi_id};
	struct net_device *dev = napi->dev;
	struct nm_napi_cpu *v;

	if (budget <= 0)
		return 0; /* netpoll's and the like: no budget, no NAPI poll proper */
	/* Direct loads through BTF-typed pointers, as in drop.bpf.c: no helper call each. */
	if (dev != NULL) {
		key.ifindex = (__u32)dev->ifindex;
		key.netns = dev->nd_net.net->ns.inum;
	}
	v = bpf_map_lookup_elem(&napi_stats, &key);
	if (v == NULL) {
		struct nm_napi_cpu init = {};

		/* BPF_NOEXIST: another CPU may have made it meanwhile; either way it is there. */
		bpf_map_update_elem(&napi_stats, &key, &init, BPF_NOEXIST);
		if ((v = bpf_map_lookup_elem(&napi_stats, &key)) == NULL)
			return 0;
	}
	v->polls++;
	v->packets += work > 0 ? (__u64)work : 0;
	if (work >= budget)
		v->exhausted++;
	return 0;
}
