/* irq.h: the values of the "irq" program set's maps (bpf/irq.bpf.c), shared by the BPF
 * program and the daemon (daemon/base/bpfload.c, daemon/sample/source-bpf.c). Plain fixed
 * width types: the BPF side has them from vmlinux.h, the daemon's from <linux/types.h>. */
#ifndef NM_BPF_IRQ_H
#define NM_BPF_IRQ_H

/* Softirq types the kernel has had since 2.6.x (HI_SOFTIRQ .. RCU_SOFTIRQ, NR_SOFTIRQS 10);
 * room for a few more. */
#define NM_NR_SOFTIRQS 16
/* IRQ numbers the per-IRQ map holds (a hash: only IRQs that fired take an entry). */
#define NM_IRQ_MAX 4096

/* softirq_stats' one element, per CPU: what user space reads (count, time_ns), then where the
 * CPU is, the programs' own state, in the same element so that each event costs one map
 * lookup (user space reads it along and ignores it). */
struct nm_softirq_cpu {
	__u64 count[NM_NR_SOFTIRQS];
	__u64 time_ns[NM_NR_SOFTIRQS];
	__u64 softirq_start[NM_NR_SOFTIRQS];  /* the running softirq's entry, per type; 0: none */
	__u64 softirq_irq_ns[NM_NR_SOFTIRQS]; /* irq_ns at that entry */
	__u64 irq_start;                      /* the running hard IRQ handler's entry; 0: none */
	__u64 irq_ns; /* hard IRQ handler time on this CPU since the programs were attached */
};

/* irq_stats' value, per CPU. */
struct nm_irq_cpu {
	__u64 count;
	__u64 time_ns;
};

#endif
