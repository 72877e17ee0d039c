/* napinl.c: queue-get, napi-get and napi-set requests of netdev generic netlink (napinl.h),
 * each one message and its answer through libnl. */
#include <errno.h>
#include <linux/genetlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <string.h>

#include "error.h"
#include "napinl.h"

#define NETDEV_FAMILY_NAME     "netdev"
#define NETDEV_CMD_QUEUE_GET   10
#define NETDEV_CMD_NAPI_GET    11
#define NETDEV_CMD_NAPI_SET    14
#define NETDEV_A_QUEUE_ID      1
#define NETDEV_A_QUEUE_IFINDEX 2
#define NETDEV_A_QUEUE_TYPE    3
#define NETDEV_A_QUEUE_NAPI_ID 4
#define NETDEV_A_NAPI_ID       2
#define NETDEV_QUEUE_TYPE_RX   0

int
napinl_open(struct napinl *n, struct nm_error *err)
{
	int r;

	memset(n, 0, sizeof(*n));
	if ((n->sk = nl_socket_alloc()) == NULL)
		return nm_error_set(err, NM_ERR_INTERNAL, "netlink: no memory");
	if ((r = genl_connect(n->sk)) < 0) {
		nl_socket_free(n->sk);
		n->sk = NULL;
		return nm_error_set(err, NM_ERR_FAILED, "netlink: %s", nl_geterror(r));
	}
	/* An ack only where asked for (napi-set): a get's answer is its one message. */
	nl_socket_disable_auto_ack(n->sk);
	if ((n->family = genl_ctrl_resolve(n->sk, NETDEV_FAMILY_NAME)) < 0) {
		nl_socket_free(n->sk);
		n->sk = NULL;
		errno = EOPNOTSUPP;
		return nm_error_set(err, NM_ERR_UNSUPPORTED,
		                    "this kernel has no netdev netlink family (napi-set)");
	}
	return 0;
}

void
napinl_close(struct napinl *n)
{
	if (n->sk != NULL)
		nl_socket_free(n->sk);
	n->sk = NULL;
}

/* What one request brought back: the attributes of its answer, or the kernel's error. */
struct answer {
	int error; /* errno from NLMSG_ERROR, 0 for none */
	bool got;
	uint64_t v[16];
	bool have[16];
};

static int
on_valid(struct nl_msg *msg, void *arg)
{
	struct answer *a = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct nlattr *at;
	int rem;

	nla_for_each_attr(at, genlmsg_attrdata(nlmsg_data(h), 0), genlmsg_attrlen(nlmsg_data(h), 0),
	                  rem)
	{
		int t = nla_type(at);
		if (t <= 0 || t >= 16)
			continue;
		if (nla_len(at) == 4)
			a->v[t] = nla_get_u32(at);
		else if (nla_len(at) == 8)
			a->v[t] = nla_get_u64(at);
		else
			continue;
		a->have[t] = true;
	}
	a->got = true;
	return NL_OK;
}

static int
on_ack(struct nl_msg *msg, void *arg)
{
	(void)msg;
	((struct answer *)arg)->got = true;
	return NL_STOP;
}

static int
on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct answer *a = arg;

	(void)nla;
	a->error = -e->error;
	return NL_STOP;
}

/* Send msg (consumed) and wait for its answer or ack. 0, or -1 with errno. */
static int
request(struct napinl *n, struct nl_msg *msg, struct answer *a)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int r;

	memset(a, 0, sizeof(*a));
	if (cb == NULL) {
		nlmsg_free(msg);
		errno = ENOMEM;
		return -1;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, a);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, a);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, a);
	r = nl_send_auto(n->sk, msg);
	nlmsg_free(msg);
	if (r >= 0)
		r = nl_recvmsgs(n->sk, cb);
	nl_cb_put(cb);
	if (a->error != 0) {
		errno = a->error;
		return -1;
	}
	if (r < 0) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* A new request of cmd, or NULL. */
static struct nl_msg *
new_msg(struct napinl *n, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg == NULL)
		return NULL;
	if (genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, n->family, 0, flags, cmd, 1) == NULL) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int
napinl_rx_napi(struct napinl *n, int ifindex, unsigned queue, uint32_t *id, struct nm_error *err)
{
	struct nl_msg *msg = new_msg(n, NETDEV_CMD_QUEUE_GET, 0);
	struct answer a;

	if (msg == NULL || nla_put_u32(msg, NETDEV_A_QUEUE_IFINDEX, (uint32_t)ifindex) < 0 ||
	    nla_put_u32(msg, NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX) < 0 ||
	    nla_put_u32(msg, NETDEV_A_QUEUE_ID, queue) < 0) {
		nlmsg_free(msg);
		return nm_error_set(err, NM_ERR_INTERNAL, "netlink: no memory");
	}
	if (request(n, msg, &a) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "queue-get rx-%u: %s", queue,
		                    strerror(errno));
	if (!a.have[NETDEV_A_QUEUE_NAPI_ID]) {
		errno = ENOENT;
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "rx-%u is polled by no NAPI instance the kernel names", queue);
	}
	*id = (uint32_t)a.v[NETDEV_A_QUEUE_NAPI_ID];
	return 0;
}

int
napinl_get(struct napinl *n, uint32_t id, enum napinl_attr attr, uint64_t *value,
           struct nm_error *err)
{
	struct nl_msg *msg = new_msg(n, NETDEV_CMD_NAPI_GET, 0);
	struct answer a;

	if (msg == NULL || nla_put_u32(msg, NETDEV_A_NAPI_ID, id) < 0) {
		nlmsg_free(msg);
		return nm_error_set(err, NM_ERR_INTERNAL, "netlink: no memory");
	}
	if (request(n, msg, &a) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "napi-get %u: %s", id, strerror(errno));
	if (!a.have[attr]) {
		errno = EOPNOTSUPP;
		return nm_error_set(err, NM_ERR_UNSUPPORTED, "napi-get %u: no attribute %d", id,
		                    (int)attr);
	}
	*value = a.v[attr];
	return 0;
}

int
napinl_set(struct napinl *n, uint32_t id, enum napinl_attr attr, uint64_t value,
           struct nm_error *err)
{
	struct nl_msg *msg = new_msg(n, NETDEV_CMD_NAPI_SET, NLM_F_ACK);
	struct answer a;
	int r;

	if (msg == NULL || nla_put_u32(msg, NETDEV_A_NAPI_ID, id) < 0) {
		nlmsg_free(msg);
		return nm_error_set(err, NM_ERR_INTERNAL, "netlink: no memory");
	}
	r = attr == NAPINL_DEFER_HARD_IRQS ? nla_put_u32(msg, attr, (uint32_t)value)
	                                   : nla_put_u64(msg, attr, value);
	if (r < 0) {
		nlmsg_free(msg);
		return nm_error_set(err, NM_ERR_INTERNAL, "netlink: no memory");
	}
	if (request(n, msg, &a) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "napi-set %u: %s", id, strerror(errno));
	return 0;
}
