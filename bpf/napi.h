/* napi.h: the values of the "napi" program set's map (bpf/napi.bpf.c), shared by the BPF
 * program and the daemon (daemon/base/bpfset.c, daemon/sample/source-bpf.c). */
#ifndef NM_BPF_NAPI_H
#define NM_BPF_NAPI_H

/* NAPI instances the map holds (a hash: only those that polled take an entry). */
#define NM_NAPI_MAX 4096

/* napi_stats' key: the NAPI id (0 for an instance without one: the kernel gives ids to
 * those busy polling may find) and its device (ifindex, network namespace inode), since
 * ids are global and devices are not. */
struct nm_napi_key {
	__u32 id;
	__u32 ifindex;
	__u32 netns;
};

/* napi_stats' value, per CPU: the CPU that ran the polls. */
struct nm_napi_cpu {
	__u64 polls;     /* napi_poll events */
	__u64 packets;   /* their work: packets the poll handled */
	__u64 exhausted; /* polls whose work reached their budget (the ring had more) */
};

#endif
