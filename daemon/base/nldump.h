/* nldump.h: netlink dumps into a kept buffer. libnl opens the socket (and resolves generic
 * netlink families on it), but its message objects allocate for every reply; a sample
 * reads thousands of them, so the dump is sent and received here by hand and each reply is
 * handed over in place. Steady state allocates nothing. */
#ifndef NM_NLDUMP_H
#define NM_NLDUMP_H

#include <linux/netlink.h>
#include <stddef.h>
#include <stdint.h>

struct nl_sock;
struct nm_error;

struct nldump {
	struct nl_sock *sk; /* libnl socket (connected) */
	int fd;
	uint32_t port; /* our netlink port id */
	uint32_t seq;
	char *buf; /* receive buffer, grown when a datagram did not fit */
	size_t cap;
};

/* Open and connect a netlink socket of protocol (NETLINK_ROUTE, NETLINK_GENERIC). 0 or -1 with
 * err. */
int nldump_open(struct nldump *d, int protocol, struct nm_error *err);
void nldump_close(struct nldump *d);
/* Send req (nlmsg_len and nlmsg_type set by the caller; flags, seq and pid are set here) as
 * a dump request and call fn for every reply of that dump. 0 ok; -1 with err and errno (the
 * kernel's error for an NLMSG_ERROR answer, e.g. EOPNOTSUPP). */
int nldump_run(struct nldump *d, struct nlmsghdr *req,
               void (*fn)(const struct nlmsghdr *h, void *arg), void *arg, struct nm_error *err);

#endif
