/* proxy.c: netmetricsctl proxy: stdin and stdout joined to the daemon's socket, so that a
 * daemon elsewhere (through ssh, or ip netns exec) can talk to this host's daemon. The
 * daemon here sees the proxy as any client: its peer credentials decide what may be done,
 * and the daemon's own frame limits apply to every line. Bytes are copied as they come in
 * both directions; the proxy adds and interprets nothing. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl.h"

/* Write all of buf to fd (blocking: the proxy has nothing else to do). */
static int
proxy_write(int fd, const char *buf, size_t len, bool sock)
{
	while (len > 0) {
		ssize_t n = sock ? send(fd, buf, len, MSG_NOSIGNAL) : write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Copy what fd has into to; 1 at end of file, -1 on error, 0 otherwise. */
static int
proxy_copy(int from, int to, bool to_sock)
{
	char buf[65536];
	ssize_t n = read(from, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (n == 0)
		return 1;
	return proxy_write(to, buf, (size_t)n, to_sock) < 0 ? -1 : 0;
}

int
ctl_proxy(const struct ctl_opts *opts)
{
	struct conn c;
	struct pollfd pf[2];
	bool in_open = true;
	int rc = CTL_EXIT_OK;

	signal(SIGPIPE, SIG_IGN);
	if (conn_open(&c, opts->socket) < 0) {
		/* One last line for the daemon at the other end: the reason it reports. */
		fprintf(stderr, "netmetricsctl proxy: cannot reach netmetricsd at %s\n",
		        opts->socket);
		return CTL_EXIT_UNREACHABLE;
	}
	for (;;) {
		pf[0] = (struct pollfd){.fd = in_open ? 0 : -1, .events = POLLIN};
		pf[1] = (struct pollfd){.fd = c.fd, .events = POLLIN};
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			rc = CTL_EXIT_UNREACHABLE;
			break;
		}
		if (pf[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			int r = proxy_copy(c.fd, 1, false);
			if (r != 0) {
				/* The daemon closed (or stdout went): the session is over. */
				rc = r < 0 ? CTL_EXIT_UNREACHABLE : CTL_EXIT_OK;
				break;
			}
		}
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			int r = proxy_copy(0, c.fd, true);
			if (r < 0) {
				rc = CTL_EXIT_UNREACHABLE;
				break;
			}
			if (r > 0) {
				/* No more requests: the daemon finishes its replies, then closes.
				 */
				in_open = false;
				shutdown(c.fd, SHUT_WR);
			}
		}
	}
	conn_close(&c);
	return rc;
}
