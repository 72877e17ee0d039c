/* nldump.c: send a netlink dump request and walk its replies in a kept buffer. */
#include <errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "error.h"
#include "nldump.h"
#include "xmalloc.h"

/* The kernel fills dump datagrams up to 32 KiB (the largest buffer we ever passed it); a
 * single larger message (a link with many VFs) makes us grow. */
#define NLDUMP_BUF     65536
#define NLDUMP_BUF_MAX (16u << 20)
#define NLDUMP_TIMEOUT 2 /* seconds: a dump never takes this long; do not hang on a bug */

/* Open a libnl socket for protocol and the kept receive buffer. */
int
nldump_open(struct nldump *d, int protocol, struct nm_error *err)
{
	struct timeval tv = {NLDUMP_TIMEOUT, 0};
	int rc;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->sk = nl_socket_alloc();
	if (d->sk == NULL)
		return nm_error_set(err, NM_ERR_FAILED, "netlink: cannot allocate socket");
	rc = nl_connect(d->sk, protocol);
	if (rc < 0) {
		nm_error_set(err, NM_ERR_FAILED, "netlink: connect: %s", nl_geterror(rc));
		nldump_close(d);
		return -1;
	}
	d->fd = nl_socket_get_fd(d->sk);
	d->port = nl_socket_get_local_port(d->sk);
	(void)setsockopt(d->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* Far from the sequence numbers libnl uses on the same socket (genl_ctrl_resolve). */
	d->seq = 0x4e4d0000u;
	d->cap = NLDUMP_BUF;
	d->buf = xmalloc(d->cap);
	return 0;
}

/* Close the socket and free the buffer. */
void
nldump_close(struct nldump *d)
{
	if (d->sk != NULL)
		nl_socket_free(d->sk); /* closes the fd */
	free(d->buf);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}

/* Send req as a dump request with a fresh sequence number; 0 or -1 with errno. */
static int
send_request(struct nldump *d, struct nlmsghdr *req)
{
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	ssize_t n;

	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req->nlmsg_seq = ++d->seq;
	req->nlmsg_pid = 0;
	do {
		n = sendto(d->fd, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel,
		           sizeof(kernel));
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -1 : 0;
}

/* Handle one received datagram of len bytes: call fn for replies of our dump unless quiet.
 * Returns 1 when the dump is done, 0 to read on, -1 with errno on an error answer. */
static int
walk_datagram(struct nldump *d, int len, bool quiet,
              void (*fn)(const struct nlmsghdr *h, void *arg), void *arg)
{
	struct nlmsghdr *h = (struct nlmsghdr *)d->buf;
	int rem = len;

	for (; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
		if (h->nlmsg_seq != d->seq || h->nlmsg_pid != d->port)
			continue; /* left over from an abandoned dump */
		switch (h->nlmsg_type) {
		case NLMSG_DONE:
			/* Since 4.x DONE carries the dump's error code. */
			if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
				int e;
				memcpy(&e, nlmsg_data(h), sizeof(e));
				if (e < 0) {
					errno = -e;
					return -1;
				}
			}
			return 1;
		case NLMSG_ERROR: {
			const struct nlmsgerr *e = nlmsg_data(h);
			if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(*e)) {
				errno = EPROTO;
				return -1;
			}
			if (e->error == 0)
				continue;
			errno = -e->error;
			return -1;
		}
		case NLMSG_NOOP:
		case NLMSG_OVERRUN:
			continue;
		default:
			if (!quiet)
				fn(h, arg);
		}
	}
	return 0;
}

/* One dump; *grown tells that a datagram did not fit and the buffer was enlarged (the dump
 * was then read to its end without calling fn). 0 or -1 with errno. */
static int
dump_once(struct nldump *d, struct nlmsghdr *req, void (*fn)(const struct nlmsghdr *h, void *arg),
          void *arg, bool *grown)
{
	ssize_t n;
	int rc;

	*grown = false;
	if (send_request(d, req) < 0)
		return -1;
	for (;;) {
		n = recv(d->fd, d->buf, d->cap, MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if ((size_t)n > d->cap) {
			if ((size_t)n > NLDUMP_BUF_MAX) {
				errno = EMSGSIZE;
				return -1;
			}
			free(d->buf);
			d->cap = (size_t)n;
			d->buf = xmalloc(d->cap);
			*grown = true;
			continue; /* lost; the rest is read only to reach the end */
		}
		rc = walk_datagram(d, (int)n, *grown, fn, arg);
		if (rc != 0)
			return rc < 0 ? -1 : 0;
	}
}

/* Run one dump, growing the buffer and retrying when a reply did not fit. */
int
nldump_run(struct nldump *d, struct nlmsghdr *req, void (*fn)(const struct nlmsghdr *h, void *arg),
           void *arg, struct nm_error *err)
{
	bool grown;
	int rc;

	for (int attempt = 0; attempt < 3; attempt++) {
		rc = dump_once(d, req, fn, arg, &grown);
		if (rc < 0)
			break;
		if (!grown)
			return 0;
		/* Replies before the lost datagram were handed over already and will be again:
		 * callers treat a second sight of an object like the first. */
	}
	if (rc == 0)
		errno = EMSGSIZE;
	return nm_error_set(err, errno == EOPNOTSUPP ? NM_ERR_UNSUPPORTED : NM_ERR_FAILED,
	                    "netlink dump: %s", strerror(errno));
}
