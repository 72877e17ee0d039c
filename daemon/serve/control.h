/* control.h: the control socket: listener (plain or socket-activated), clients, their
 * credentials, limits and flow control. */
#ifndef NM_CONTROL_H
#define NM_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

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
/* The client's connected socket (for a dup the privileged process reads SO_PEERCRED of). */
int control_client_fd(const struct client *c);
gid_t control_client_gid(const struct client *c);
pid_t control_client_pid(const struct client *c);
/* Is the client root or in the admin group now (usergroups_is_admin of its SO_PEERCRED
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

/* A reply owed: a handler that cannot answer at once (it waits for a child process) takes
 * one, sets ctx->deferred, and answers later with control_later_reply, which sends the
 * reply (result, taken over; or err when result is NULL and err is not) and frees l. When
 * the client has gone by then, nothing is sent. */
struct control_later;
struct control_later *control_later_new(struct client *c, int64_t id, bool has_id);
void control_later_reply(struct control_later *l, json_object *result, const struct nm_error *err);
/* Answer l with a reply line made already (off the loop: results-load.c), with l's id and
 * its newline; the line stays the caller's. Frees l; a client gone is sent nothing. */
void control_later_send(struct control_later *l, const char *line, size_t len);
/* A reply made a part at a time: fn appends the next part of the reply line to out and
 * returns 0 while more remains, 1 once the line (with its newline) is complete. Each call
 * does a bounded amount of work (a few ms at most); while a part is still being computed fn
 * may return 0 having written nothing. fn runs once the client has read the previous
 * part down to the low-water mark, so the whole reply is never held at once. The client's
 * next request waits until the reply is complete; stream events wait too. free_fn(arg) runs
 * at the end or when the client goes. -1 (arg freed) when a reply is already being made. */
struct evbuffer;
typedef int (*control_produce_fn)(struct evbuffer *out, void *arg);
int control_client_produce(struct client *c, control_produce_fn fn, void *arg,
                           void (*free_fn)(void *));
/* fn's return when it has written nothing and waits for work off the loop (a stored block
 * read on the reader thread): it is not run again until control_client_produce_wake. */
#define CONTROL_PRODUCE_WAIT 2
/* The work c's producer waits for is done: it runs on the next turn of the loop. */
void control_client_produce_wake(struct client *c);

#endif
