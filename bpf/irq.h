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

/* softirq_stats' one element, per CPU. */
struct nm_softirq_cpu {
	__u64 count[NM_NR_SOFTIRQS];
	__u64 time_ns[NM_NR_SOFTIRQS];
};

/* irq_stats' value, per CPU. */
struct nm_irq_cpu {
	__u64 count;
	__u64 time_ns;
};

#endif
