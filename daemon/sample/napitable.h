/* napitable.h: the NAPI table: what the kernel says of every device's queues and NAPI
 * instances (netdev generic netlink queue-get and napi-get): queue -> NAPI id, and per NAPI
 * its IRQ, the pid of its kthread when threaded and its settings. The queues source fills
 * it every sample (the sampler owns it: source.napitab); the interrupts source applies it
 * to the IRQ table (napitable_apply: an IRQ a NAPI names is that NAPI's queue, origin
 * "netlink"; any other keeps the queue its name suggests, origin "irq-name"); the queue
 * views read the NAPIs of a queue from it. Empty under a fixture root, on kernels without
 * the netdev family and for drivers that link no NAPI. */
#ifndef NM_NAPITABLE_H
#define NM_NAPITABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "irqtable.h"

/* One NAPI instance. Numbers the kernel did not give are -1. */
struct napi_entry {
	char dev[IRQ_DEVICE_MAX]; /* the device's name */
	int ifindex;
	uint32_t id;               /* NAPI id (global; renumbered when a device is reconfigured) */
	int irq;                   /* NETDEV_A_NAPI_IRQ */
	int pid;                   /* NETDEV_A_NAPI_PID: its kthread, when threaded */
	int64_t defer_hard_irqs;   /* NETDEV_A_NAPI_DEFER_HARD_IRQS */
	int64_t gro_flush_timeout; /* ns */
	int64_t irq_suspend_timeout; /* ns */
	int threaded;                /* NETDEV_A_NAPI_THREADED: 0 off, 1 on (2 busy-poll) */
	int rxq, txq;                /* the lowest rx and tx queue linked to it; -1 none */
};

/* One queue's link to a NAPI (queue-get): napi_id 0 when the driver links none. */
struct napi_queue {
	int ifindex;
	uint8_t dir; /* 0 rx, 1 tx */
	uint32_t index;
	uint32_t napi_id;
};

struct napi_table {
	struct napi_entry *v; /* by IRQ (those without one last), after napitable_end */
	size_t n, cap;
	size_t nirq; /* how many have an IRQ: v[0..nirq) */
	struct napi_queue *q;
	size_t nq, capq;
	bool answered; /* the kernel answered queue-get this time (false: no netdev family) */
	unsigned gen;  /* bumped when anything in it changed */
	uint64_t hash; /* of the contents, to tell a change */
};

/* Start a new filling: the entries and queues are emptied (not freed). */
void napitable_begin(struct napi_table *t);
/* Append a queue's link / a NAPI (filled by the caller; rxq, txq are set by
 * napitable_end). */
void napitable_add_queue(struct napi_table *t, const struct napi_queue *q);
struct napi_entry *napitable_add_napi(struct napi_table *t);
/* End a filling: link NAPIs to their queues (rxq, txq), sort them by IRQ; bump gen when
 * the contents differ from the last filling's. */
void napitable_end(struct napi_table *t);
void napitable_free(struct napi_table *t);
/* Make dst a copy of src (an empty table when src is NULL); dst's old contents are not
 * freed. The caller frees dst (napitable_free). */
void napitable_copy(struct napi_table *dst, const struct napi_table *src);

/* The NAPI whose IRQ is irq, or NULL. t may be NULL. */
const struct napi_entry *napitable_find_irq(const struct napi_table *t, int irq);
/* The NAPI with this id, or NULL. */
const struct napi_entry *napitable_find_id(const struct napi_table *t, uint32_t id);
/* The NAPI linked to queue dir/index of device dev (by name), or NULL. */
const struct napi_entry *napitable_find_queue(const struct napi_table *t, const char *dev,
                                              unsigned dir, uint32_t index);

/* Set each numeric entry's queue: from the NAPI table when a NAPI names its IRQ (origin
 * IRQ_ORIGIN_NETLINK; device the netdev, index its lowest queue, kind TXRX/RX/TX by the
 * queues linked), else the one its name gave (irq_info.named). t may be NULL. Returns how
 * many were set from the NAPI table. */
size_t napitable_apply(const struct napi_table *t, struct irq_info *v, size_t n);

/* A NAPI as JSON: {"id", "irq", "pid", "defer_hard_irqs", "gro_flush_timeout_ns",
 * "irq_suspend_timeout_ns", "threaded", "origin": "netlink"}; null for numbers the kernel
 * did not give (new reference). */
json_object *napitable_entry_json(const struct napi_entry *e);

#endif
