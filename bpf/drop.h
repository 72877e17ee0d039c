/* drop.h: the values of the "drop" program set's map (bpf/drop.bpf.c), shared by the BPF
 * program and the daemon (daemon/base/bpfset.c, daemon/sample/source-bpf.c). */
#ifndef NM_BPF_DROP_H
#define NM_BPF_DROP_H

/* (reason, device) pairs the map holds: a hash, only the pairs that dropped take an entry. */
#define NM_DROP_KEYS_MAX 4096

/* drop_stats' key: the kfree_skb reason (enum skb_drop_reason, this kernel's numbering) and
 * the skb's device where it has one: its ifindex and the inode number of its network
 * namespace (an ifindex means something only in its namespace); 0 and 0 without a device. */
struct nm_drop_key {
	__u32 reason;
	__u32 ifindex;
	__u32 netns;
};

#endif
