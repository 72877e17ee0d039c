/* irqtable.h: the IRQ table: for each line of /proc/interrupts its IRQ number, chip and
 * action names, the device and queue the name stands for, its affinity and effective
 * affinity and the series id of each CPU cell. The interrupts source fills one as it samples
 * (the sampler hands it out: sampler_irq_table); irqtable_read fills one on demand from the
 * files alone (no series) when that source is disabled; windows keep a copy of it at their
 * edges (irqtable_copy) and results a description of it (irqtable_json). Profiles and the
 * queue views use it to find the IRQs of a device's queue and the CPUs they land on. Readers
 * get a const struct irq_table *: only its filler writes it. */
#ifndef NM_IRQTABLE_H
#define NM_IRQTABLE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "cpulist.h"
#include "series.h"

struct nm_error;

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

/* Where the device and queue of an IRQ come from. */
enum irq_origin {
	IRQ_ORIGIN_NONE = 0, /* no queue known */
	IRQ_ORIGIN_NAME,     /* guessed from the action name (irqtable_parse_name) */
	IRQ_ORIGIN_NETLINK,  /* the kernel's: a NAPI's IRQ (napi-get) linked to queues
	                        (queue-get); napitable.h */
};

/* The device and queue an IRQ stands for. */
struct irq_queue {
	char device[IRQ_DEVICE_MAX]; /* "eth0", "0000:08:00.0", "virtio2"; "" when none */
	enum irq_dev_kind dev_kind;
	enum irq_queue_kind kind;
	int index; /* queue number; -1 when the name names a device but no queue */
	enum irq_origin origin;
};

/* One line of /proc/interrupts. Strings are owned by the table's filler. */
struct irq_info {
	int irq;                /* IRQ number; -1 for an arch line (NMI, LOC, RES, ERR ...) */
	const char *label;      /* "45", "LOC": the <label> of irq.<label>.cpu<C> */
	const char *chip;       /* "IR-PCI-MSIX-0000:08:00.0"; "" for arch lines */
	const char *hwirq;      /* "3"; "" when not shown */
	const char *trigger;    /* "edge", "fasteoi", "Level"; "" when not shown */
	const char *name;       /* action names ("mlx5_comp7@pci:0000:08:00.0", "a, b"), or an
	                           arch line's description ("Local timer interrupts") */
	struct irq_queue queue; /* the kernel's (a NAPI of this IRQ, napitable_apply), else
	                           named */
	struct irq_queue named; /* parsed from name (see irqtable_parse_name) */
	bool has_affinity;      /* /proc/irq/N/smp_affinity_list was read */
	bool has_effective;     /* /proc/irq/N/effective_affinity_list was read */
	struct cpuset affinity;
	struct cpuset effective;
	series_id total;             /* a single-count line (ERR, MIS): irq.<label>.total, else
	                                SERIES_NONE */
	unsigned ncpus;              /* length of cpu_series (0 in a table without series) */
	const series_id *cpu_series; /* [cpu]: irq.<label>.cpu<C>; SERIES_NONE for a CPU the
	                                header does not list or the line has no cell for */
};

/* Where an irq_table's entries come from. */
enum irq_table_kind {
	IRQ_TABLE_EMPTY = 0, /* no entries */
	IRQ_TABLE_BORROWED,  /* the interrupts source's own arrays, valid until its next sample */
	IRQ_TABLE_OWNED,     /* irqtable_read, _copy or _from_json: freed by irqtable_free */
};

struct irq_table {
	enum irq_table_kind kind;
	struct irq_info *v; /* [n], in file order */
	size_t n;
	/* In an owned table each entry's strings are one allocation starting at its label, and
	 * its cpu_series another. */
};

/* The line of IRQ number irq, or NULL. t may be NULL. */
const struct irq_info *irqtable_find_irq(const struct irq_table *t, int irq);
/* The line with this label ("LOC", "45"), or NULL. */
const struct irq_info *irqtable_find_label(const struct irq_table *t, const char *label);
/* Whether an arch line's label ("RES", "LOC", "IPI3") names inter-processor interrupts:
 * x86's RES, CAL and TLB, and IPI<n> (arm64, arm, riscv, loongarch number theirs). The
 * report's IPI figures and the Prometheus family netmetrics_ipis_total both use it. */
bool irqtable_is_ipi(const char *label);
/* The IRQs whose name stands for queue index of device (as parsed: "eth0", "0000:08:00.0",
 * "virtio2"), in file order: up to max of them into out. Returns how many match (may
 * exceed max). A queue may have several IRQs (virtio input.0 and output.0, eth0-rx-3 and
 * eth0-tx-3). */
size_t irqtable_find_queue(const struct irq_table *t, const char *device, int index,
                           const struct irq_info **out, size_t max);

/* Whether any entry of t has a series (a table the interrupts source filled, or a copy of
 * one), rather than only what the files say (irqtable_read, irqtable_from_json). */
bool irqtable_has_series(const struct irq_table *t);

/* Read /proc/irq/N/smp_affinity_list and effective_affinity_list of a numeric IRQ below
 * rootfd into info (has_* false for a file that cannot be read). *buf, *cap: a read buffer
 * the caller keeps (grown as needed). */
void irqtable_read_affinity(int rootfd, struct irq_info *info, char **buf, size_t *cap);
/* irqtable_read_affinity for every entry of t (after a profile wrote them). */
void irqtable_refresh_affinity(struct irq_table *t, int rootfd);

/* Split the text after the counts of a line [t, e) into chip, hwirq, trigger and name, each
 * NUL-terminated at *w (which needs e - t + 4 bytes; advanced past them):
 *   "IR-PCI-MSIX-0000:08:00.0  3-edge  mlx5_comp2@pci:0000:08:00.0"  (x86 today)
 *   "GICv3  27 Level  arch_timer"                                   (arm64)
 *   "IO-APIC-edge  timer"                                           (x86 before 3.x)
 *   "Hyper-V PCIe MSI 1075838976-edge  mana_q0@pci:7870:00:00.0"   (Hyper-V: a chip of
 *                                                                    several words)
 * An arch line's (info->irq < 0) text is all name. Sets info's four strings. */
void irqtable_split_fields(struct irq_info *info, char **w, const char *t, const char *e);

/* Parse action names into the device and queue they stand for: each name of a shared IRQ
 * ("a, b") is tried in turn against these patterns, first match wins:
 *   <drv>_comp<N>@pci:<addr>   mlx5_comp7@pci:0000:08:00.0     PCI <addr>, TXRX N
 *   <drv>-comp-<N>@pci:<addr>  mlx4-comp-5@pci:0000:04:00.0    PCI <addr>, TXRX N
 *   mana_q<N>@pci:<addr>       mana_q3@pci:7870:00:00.0        PCI <addr>, TXRX N
 *   <anything>@pci:<addr>      mlx5_async0@pci:0000:08:00.0    PCI <addr>, no queue
 *   virtio<K>-input.<N>        virtio2-input.0                 VIRTIO virtio<K>, RX N
 *   virtio<K>-output.<N>       virtio2-output.0                VIRTIO virtio<K>, TX N
 *   virtio<K>-<other>          virtio1-config, virtio1-req.0   VIRTIO virtio<K>, no queue
 *   nvme<K>q<N>                nvme0q3                         BLOCK nvme<K>, IO N
 *   [<drv>-]<dev>-TxRx-<N>     eth0-TxRx-7, i40e-eth0-TxRx-7   NETDEV <dev>, TXRX N
 *   <dev>-Tx-Rx-<N>, -txrx-    ens5-Tx-Rx-7 (ena)              NETDEV <dev>, TXRX N
 *   <dev>-fp-<N>               eth0-fp-3 (bnx2x, qede)         NETDEV <dev>, TXRX N
 *   <dev>-rx-<N>, <dev>-tx-<N> eth0-rx-3, eth0-tx-3            NETDEV <dev>, RX/TX N
 *   [<drv>-]<dev>-Rx-<N>, -Tx- eth0-Rx-1, iavf-eth0-Tx-4      NETDEV <dev>, RX/TX N
 *   <dev>-rxtx-<N>             ens160-rxtx-3 (vmxnet3)         NETDEV <dev>, TXRX N
 *   <dev>-event-<N>            ens160-event-8 (vmxnet3)        NETDEV <dev>, no queue
 *   idpf-<dev>-TxRx-<N> ...    idpf-eth1-Tx-5                  NETDEV <dev>, no queue: N
 *                              was the vector, not the queue, before upstream 1500a8662d2d
 *   <drv>-<pci addr>:<what>    i40e-0000:3b:00.0:misc          PCI <addr>, no queue
 *   <dev>-<N>, dev eth* or en* eth2-5 (mlx4_en, 3.x kernels)    NETDEV <dev>, TXRX N
 * <drv> is one of the prefixes i40e, ice, iavf, i40evf, idpf. hv_netvsc has no per-queue IRQ
 * lines (its channels interrupt through the HYP line) and so no pattern. Returns whether a
 * pattern matched; on false q is zeroed with index -1. */
bool irqtable_parse_name(const char *name, size_t len, struct irq_queue *q);

/* Fill t (owned; freed first) from /proc/interrupts and /proc/irq/N below rootfd: every
 * line's label, fields, device and queue, affinity; no series (ncpus 0, total SERIES_NONE).
 * For profiles and reports while the interrupts source is disabled: reads ~2 MB on a
 * 144-CPU host, on demand only. 0, or -1 with err (t left empty). */
int irqtable_read(struct irq_table *t, int rootfd, struct nm_error *err);
/* Make dst (owned; not freed first) a deep copy of src (NULL or empty: an empty table). */
void irqtable_copy(struct irq_table *dst, const struct irq_table *src);
/* Free an owned table's entries; any table becomes empty. */
void irqtable_free(struct irq_table *t);

/* What a stored result keeps of t: for each numeric IRQ whose name stands for a device (the
 * ones the queue joins use) its number, name, device, queue and affinities (no series, no
 * counts): [{"irq": 45, "name": "...", "device": "eth0", "dev_kind": "netdev", "queue": 7,
 * "queue_kind": "txrx", "affinity": "0-3", "effective": "2"}, ...] (new reference). */
json_object *irqtable_json(const struct irq_table *t);
/* Read what irqtable_json wrote into t (owned; not freed first), checking its shape: an
 * array of at most IRQTABLE_JSON_MAX objects, each with an integer irq >= 0, string name
 * and device, integer queue >= -1, a known queue_kind and dev_kind, and CPU lists that
 * parse (affinity and effective may be missing). 0, or -1 with err and t empty. */
int irqtable_from_json(struct irq_table *t, json_object *arr, struct nm_error *err);
#define IRQTABLE_JSON_MAX 65536

/* The name of an origin as the protocol shows it: "netlink", "irq-name"; NULL for NONE.
 * (Inline: the Prometheus renderer uses it without the table's code.) */
static inline const char *
irqtable_origin_name(enum irq_origin o)
{
	return o == IRQ_ORIGIN_NETLINK ? "netlink" : o == IRQ_ORIGIN_NAME ? "irq-name" : NULL;
}

/* Names of the kinds, as the protocol shows them ("txrx", "netdev"); "" for NONE. */
const char *irqtable_queue_kind_name(enum irq_queue_kind k);
const char *irqtable_dev_kind_name(enum irq_dev_kind k);

#endif
