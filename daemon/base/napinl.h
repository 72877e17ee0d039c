/* napinl.h: one NAPI instance's settings through netdev generic netlink (kernel 6.13+):
 * which NAPI an rx queue is polled by (queue-get), its defer-hard-irqs and
 * gro-flush-timeout (napi-get), and setting them (napi-set, CAP_NET_ADMIN). Single
 * requests (libnl), for tuning, not for sampling (sample/source-queues.c dumps). NAPI ids
 * change when a device is reconfigured: a queue is resolved to its NAPI at each call. */
#ifndef NM_NAPINL_H
#define NM_NAPINL_H

#include <stdbool.h>
#include <stdint.h>

struct nl_sock;
struct nm_error;

struct napinl {
	struct nl_sock *sk;
	int family; /* the netdev family id */
};

/* What napi-set writes. */
enum napinl_attr {
	NAPINL_DEFER_HARD_IRQS = 5,   /* NETDEV_A_NAPI_DEFER_HARD_IRQS (u32) */
	NAPINL_GRO_FLUSH_TIMEOUT = 6, /* NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT (uint, ns) */
};

/* Open a generic netlink socket and resolve the netdev family. 0, or -1 with err
 * (NM_ERR_UNSUPPORTED: no netdev family here). */
int napinl_open(struct napinl *n, struct nm_error *err);
void napinl_close(struct napinl *n);
/* The NAPI id rx queue `queue` of ifindex is polled by. 0 with *id; -1 with err and errno
 * (ENOENT: no such queue, or the driver links it to no NAPI). */
int napinl_rx_napi(struct napinl *n, int ifindex, unsigned queue, uint32_t *id,
                   struct nm_error *err);
/* One setting of NAPI id (napi-get). 0 with *value; -1 with err and errno (EOPNOTSUPP: the
 * kernel does not report it). */
int napinl_get(struct napinl *n, uint32_t id, enum napinl_attr attr, uint64_t *value,
               struct nm_error *err);
/* Set one setting of NAPI id (napi-set). 0, or -1 with err and errno. */
int napinl_set(struct napinl *n, uint32_t id, enum napinl_attr attr, uint64_t value,
               struct nm_error *err);

#endif
