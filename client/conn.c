/* conn.c: netmetricsctl's connection to the daemon: connect, send a request, read lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"
#include "error.h"
#include "jsonutil.h"
#include "utf8.h"
#include "xmalloc.h"

#define CONN_MAX_REPLY (256u << 20) /* a reply line larger than this is refused */

/* Explain why the daemon could not be reached and what to try. */
static void
explain_unreachable(const char *path, int e)
{
	fprintf(stderr, "netmetricsctl: cannot reach netmetricsd at %s: %s\n", path, strerror(e));
	if (e == ENOENT || e == ECONNREFUSED)
		fprintf(stderr, "  is the daemon running? start it with 'netmetricsd' (or "
		                "'systemctl start netmetricsd'),\n  or point to its socket with "
		                "--socket PATH or NETMETRICS_SOCKET\n");
	else if (e == EACCES || e == EPERM)
		fprintf(stderr,
		        "  the socket is readable by its owner and group only: join its "
		        "group (ls -l %s) or use sudo\n",
		        path);
}

int
conn_open(struct conn *c, const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->path = path;
	c->next_id = 1;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "netmetricsctl: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sun.sun_path, path);
	if ((c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		explain_unreachable(path, errno);
		return -1;
	}
	if (connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		explain_unreachable(path, errno);
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	return 0;
}

void
conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Write all of buf. */
static int
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Format and send one request: its id, or -1 with errno set (nothing printed). */
static int64_t
send_request(struct conn *c, const char *cmd, json_object *args)
{
	int64_t id = c->next_id++;
	size_t len;
	char *line = proto_request_format(id, cmd, args, &len);
	int r = write_all(c->fd, line, len);
	int e = errno;

	free(line);
	errno = e;
	return r < 0 ? -1 : id;
}

int64_t
conn_send(struct conn *c, const char *cmd, json_object *args)
{
	int64_t id = send_request(c, cmd, args);

	if (id < 0)
		fprintf(stderr, "netmetricsctl: sending to %s: %s\n", c->path, strerror(errno));
	return id;
}

int
conn_read(struct conn *c, struct proto_reply *rep)
{
	struct nm_error err;
	char *nl;
	ssize_t n;

	for (;;) {
		if (c->len > 0 && (nl = memchr(c->buf, '\n', c->len)) != NULL) {
			size_t linelen = (size_t)(nl - c->buf);
			int r;
			*nl = '\0';
			r = proto_reply_parse(c->buf, linelen, rep, &err);
			memmove(c->buf, nl + 1, c->len - linelen - 1);
			c->len -= linelen + 1;
			if (r < 0) {
				fprintf(stderr, "netmetricsctl: bad reply from the daemon: %s\n",
				        err.message);
				return -1;
			}
			return 0;
		}
		if (c->cap - c->len < 65536) {
			if (c->cap >= CONN_MAX_REPLY) {
				fprintf(stderr, "netmetricsctl: reply larger than %u bytes\n",
				        CONN_MAX_REPLY);
				return -1;
			}
			c->cap = c->cap ? c->cap * 2 : 131072;
			c->buf = xreallocarray(c->buf, c->cap, 1);
		}
		n = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, 0);
		if (n < 0 && errno == EINTR && c->stop != NULL && *c->stop)
			return -2; /* interrupted: the caller says why */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "netmetricsctl: %s: connection closed by the daemon%s%s\n",
			        c->path, n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
			return -1;
		}
		c->len += (size_t)n;
	}
}

int
conn_call(struct conn *c, const char *cmd, json_object *args, struct proto_reply *rep)
{
	int64_t id = send_request(c, cmd, args);
	int e;

	if (id < 0) {
		/* A daemon that refuses the connection (busy) writes why and closes it, so the
		 * request can fail with EPIPE while the reason waits to be read. */
		e = errno;
		if ((e == EPIPE || e == ECONNRESET) && conn_read(c, rep) == 0) {
			if (!rep->is_event && rep->id == 0 && !rep->ok)
				return 0;
			proto_reply_free(rep);
		}
		fprintf(stderr, "netmetricsctl: sending to %s: %s\n", c->path, strerror(e));
		return -1;
	}
	for (;;) {
		if (conn_read(c, rep) < 0)
			return -1;
		if (!rep->is_event && (rep->id == id || rep->id == 0))
			return 0;
		if (rep->is_event && rep->event && strcmp(rep->event, "shutdown") == 0) {
			fprintf(stderr, "netmetricsctl: the daemon is shutting down\n");
			proto_reply_free(rep);
			return -1;
		}
		proto_reply_free(rep);
	}
}

/* Print the daemon's refusal on stderr, escaped as conn_text does. */
void
conn_print_refusal(const struct proto_reply *rep)
{
	char code[64], *msg = conn_text_dup(rep->message ? rep->message : "(no message)");

	conn_text(rep->code_name ? rep->code_name : "error", code, sizeof(code));
	fprintf(stderr, "netmetricsctl: %s: %s\n", code, msg);
	free(msg);
}

/* s for a terminal: valid UTF-8, control characters escaped ("\x1B"). */
const char *
conn_text(const char *s, char *buf, size_t size)
{
	utf8_sanitize(buf, size, s, strlen(s), 0);
	return buf;
}

/* The same in a new string (the caller frees); newlines and tabs kept. */
char *
conn_text_dup(const char *s)
{
	return utf8_sanitize_dup(s, strlen(s), UTF8_KEEP_NEWLINE);
}

/* One request on its own connection: *result gets the daemon's result (new reference)
 * when it said yes; a refusal is printed. The exit code: CTL_EXIT_OK, _USAGE (bad_args),
 * _REFUSED, _UNREACHABLE. */
int
ctl_call(const struct ctl_opts *opts, const char *cmd, json_object *args, json_object **result)
{
	struct conn conn;
	int rc;

	*result = NULL;
	if (conn_open(&conn, opts->socket) < 0)
		return CTL_EXIT_UNREACHABLE;
	rc = ctl_call_on(opts, &conn, cmd, args, result);
	conn_close(&conn);
	return rc;
}

/* The same on a connection already open, which stays open. */
int
ctl_call_on(const struct ctl_opts *opts, struct conn *conn, const char *cmd, json_object *args,
            json_object **result)
{
	struct proto_reply rep;
	int rc = CTL_EXIT_OK;

	*result = NULL;
	if (conn_call(conn, cmd, args, &rep) < 0)
		return CTL_EXIT_UNREACHABLE;
	if (!rep.ok) {
		conn_print_refusal(&rep);
		rc = rep.code == NM_ERR_BAD_ARGS ? CTL_EXIT_USAGE : CTL_EXIT_REFUSED;
	} else {
		/* Text for people: what a benchmark or a file said cannot drive the terminal. */
		if (!opts->json)
			json_sanitize_strings(rep.result, UTF8_KEEP_NEWLINE);
		*result = json_object_get(rep.result);
	}
	proto_reply_free(&rep);
	return rc;
}
