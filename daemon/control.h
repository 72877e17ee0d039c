/* control.h: the control socket: listener (plain or socket-activated), clients, their
 * credentials, limits and flow control. */
#ifndef NM_CONTROL_H
#define NM_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct daemon;
struct control;
struct client;
struct nm_error;

/* Create the control module (no socket yet). Freed by control_free. */
struct control *control_init(struct daemon *d);
/* Take the socket systemd passed, or create the configured one (refusing when another daemon
 * answers on it, unlinking it when stale). 0 ok, -1 with err. */
int control_listen(struct control *ctl, struct nm_error *err);
/* Tell every client why the daemon goes, close them, close and unlink the socket. */
void control_free(struct control *ctl, const char *reason);
/* Re-read limits from the configuration in force (after SIGHUP). */
void control_reconfigure(struct control *ctl);

unsigned control_nclients(const struct control *ctl);
const char *control_socket_path(const struct control *ctl);
bool control_activated(const struct control *ctl);

/* Queue bytes to a client (a reply or a stream event). Reading from a client whose queued
 * output passes the high-water mark stops until it drains below the low one. */
void control_client_send(struct client *c, const char *buf, size_t len);
uid_t control_client_uid(const struct client *c);
pid_t control_client_pid(const struct client *c);
/* Is the client root or in the admin group now (control_peer_is_admin of its SO_PEERCRED
 * uid and gid, with the group of the current configuration)? */
bool control_client_is_admin(const struct client *c);
/* Bytes queued to the client and not yet written. */
size_t control_client_queued(const struct client *c);

/* Streams: a STREAM command registers fn to run every interval_ms for its request id until
 * the client cancels it or goes. free_fn(arg) runs at the end. A tick is skipped while the
 * client's output is above the high-water mark, so a slow watcher costs nothing. 0 ok; -1
 * with err (the id is in use, too many streams). */
typedef void (*control_stream_fn)(struct client *c, int64_t id, void *arg);
int control_stream_add(struct client *c, int64_t id, uint64_t interval_ms, control_stream_fn fn,
                       void *arg, void (*free_fn)(void *), struct nm_error *err);
/* Stop the client's stream with this id. 0 ok, -1 when there is none. */
int control_stream_cancel(struct client *c, int64_t id);

/* A reply to come later (a request answered once a result is durable): the hold stays
 * valid when the client goes. control_hold_send sends buf when the client is still
 * connected, and frees the hold. A client that half-closes is not closed while it has
 * holds. */
struct control_hold;
struct control_hold *control_client_hold(struct client *c);
void control_hold_send(struct control_hold *h, const char *buf, size_t len);

/* Is a peer with these credentials root or in the admin group (by name; NULL: none)? */
bool control_peer_is_admin(uid_t uid, gid_t gid, const char *admin_group);

#endif
