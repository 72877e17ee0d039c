/* source-interrupts.h: the IRQ table the interrupts source keeps: for each line of
 * /proc/interrupts its IRQ number, chip and action names, the device and queue the name
 * stands for, its affinity and the series id of each CPU cell. Profiles and the queue
 * views use it to find the IRQs of a device's queue and the CPUs they land on. */
#ifndef NM_SOURCE_INTERRUPTS_H
#define NM_SOURCE_INTERRUPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "cpulist.h"
#include "series.h"

struct nm_error;
struct source;

#define IRQ_DEVICE_MAX 64

/* What names the device of an IRQ. */
enum irq_dev_kind {
	IRQ_DEV_NONE = 0, /* the name names no device we know */
	IRQ_DEV_NETDEV,   /* a network interface: "eth0" */
	IRQ_DEV_PCI,      /* a PCI address: "0000:08:00.0" (mlx5; map a netdev to it through
	                     /sys/class/net/DEV/device) */
	IRQ_DEV_VIRTIO,   /* a virtio device: "virtio2" (/sys/class/net/DEV/device) */
	IRQ_DEV_BLOCK,    /* a block device: "nvme0" */
};

/* What the queue of an IRQ carries. */
enum irq_queue_kind {
	IRQ_QUEUE_NONE = 0, /* no queue in the name (a device's misc or async vector) */
	IRQ_QUEUE_TXRX,     /* a combined channel: "-TxRx-7", mlx5 "_comp7" */
	IRQ_QUEUE_RX,       /* "-rx-3", virtio "-input.0" */
	IRQ_QUEUE_TX,       /* "-tx-3", virtio "-output.0" */
	IRQ_QUEUE_IO,       /* a block device's I/O queue: "nvme0q3" */
};

/* The device and queue an IRQ action name stands for. */
struct irq_queue {
	char device[IRQ_DEVICE_MAX]; /* "eth0", "0000:08:00.0", "virtio2"; "" when none */
	enum irq_dev_kind dev_kind;
	enum irq_queue_kind kind;
	int index; /* queue number; -1 when the name names a device but no queue */
};

/* One line of /proc/interrupts. Strings are owned by the source. */
struct irq_info {
	int irq;                /* IRQ number; -1 for an arch line (NMI, LOC, RES, ERR ...) */
	const char *label;      /* "45", "LOC": the <label> of irq.<label>.cpu<C> */
	const char *chip;       /* "IR-PCI-MSIX-0000:08:00.0"; "" for arch lines */
	const char *hwirq;      /* "3"; "" when not shown */
	const char *trigger;    /* "edge", "fasteoi", "Level"; "" when not shown */
	const char *name;       /* action names ("mlx5_comp7@pci:0000:08:00.0", "a, b"), or an
	                           arch line's description ("Local timer interrupts") */
	struct irq_queue queue; /* parsed from name (see source_interrupts_parse_name) */
	bool has_affinity;      /* /proc/irq/N/smp_affinity_list was read */
	bool has_effective;     /* /proc/irq/N/effective_affinity_list was read */
	struct cpuset affinity;
	struct cpuset effective;
	series_id total;             /* a single-count line (ERR, MIS): irq.<label>.total, else
	                                SERIES_NONE */
	unsigned ncpus;              /* length of cpu_series */
	const series_id *cpu_series; /* [cpu]: irq.<label>.cpu<C>; SERIES_NONE for a CPU the
	                                header does not list or the line has no cell for */
};

/* The IRQ table as of the last sample, in file order; *n gets its length. The array and
 * everything it points to stay valid until the next sample, refresh or free of src. NULL
 * with *n = 0 before the first sample. */
const struct irq_info *source_interrupts_irqs(struct source *src, size_t *n);

/* The line of IRQ number irq, or NULL. */
const struct irq_info *source_interrupts_find_irq(struct source *src, int irq);

/* The line with this label ("LOC", "45"), or NULL. */
const struct irq_info *source_interrupts_find_label(struct source *src, const char *label);

/* The IRQs whose name stands for queue index of device (as parsed: "eth0", "0000:08:00.0",
 * "virtio2"), in file order: up to max of them into out. Returns how many match (may
 * exceed max). A queue may have several IRQs (virtio input.0 and output.0, eth0-rx-3 and
 * eth0-tx-3). */
size_t source_interrupts_find_queue(struct source *src, const char *device, int index,
                                    const struct irq_info **out, size_t max);

/* Read again smp_affinity_list and effective_affinity_list of every numeric IRQ (after a
 * profile wrote them). An IRQ whose files cannot be read gets has_affinity false. 0, or -1
 * with err before the first sample. */
int source_interrupts_refresh_affinity(struct source *src, struct nm_error *err);

/* Parse action names into the device and queue they stand for: each name of a shared IRQ
 * ("a, b") is tried in turn against these patterns, first match wins:
 *   <drv>_comp<N>@pci:<addr>   mlx5_comp7@pci:0000:08:00.0     PCI <addr>, TXRX N
 *   <anything>@pci:<addr>      mlx5_async0@pci:0000:08:00.0    PCI <addr>, no queue
 *   virtio<K>-input.<N>        virtio2-input.0                 VIRTIO virtio<K>, RX N
 *   virtio<K>-output.<N>       virtio2-output.0                VIRTIO virtio<K>, TX N
 *   virtio<K>-<other>          virtio1-config, virtio1-req.0   VIRTIO virtio<K>, no queue
 *   nvme<K>q<N>                nvme0q3                         BLOCK nvme<K>, IO N
 *   [<drv>-]<dev>-TxRx-<N>     eth0-TxRx-7, i40e-eth0-TxRx-7   NETDEV <dev>, TXRX N
 *   <dev>-Tx-Rx-<N>, -txrx-    ens5-Tx-Rx-7 (ena)              NETDEV <dev>, TXRX N
 *   <dev>-fp-<N>               eth0-fp-3 (bnx2x, qede)         NETDEV <dev>, TXRX N
 *   <dev>-rx-<N>, <dev>-tx-<N> eth0-rx-3, eth0-tx-3            NETDEV <dev>, RX/TX N
 * <drv> is one of the prefixes i40e, ice, iavf, i40evf. hv_netvsc has no per-queue IRQ
 * lines (its channels interrupt through the HYP line) and so no pattern. Returns whether a
 * pattern matched; on false q is zeroed with index -1. */
bool source_interrupts_parse_name(const char *name, size_t len, struct irq_queue *q);

#endif
