/* clientfd.h: a copy of a client's connected socket, kept by what the client started (a
 * test, a suite) for as long as it may spawn processes: the privileged process of privsep.h
 * reads the client's credentials from it (SO_PEERCRED, fixed at connect and still there
 * after the client has gone) and spawns only as them. Counted references: a spec copied
 * takes one. */
#ifndef NM_CLIENTFD_H
#define NM_CLIENTFD_H

struct clientfd;

/* A copy (dup) of fd; NULL when fd < 0 or no descriptor is left. */
struct clientfd *clientfd_new(int fd);
/* Another reference (cf may be NULL). */
struct clientfd *clientfd_ref(struct clientfd *cf);
/* Drop a reference: the last one closes the copy (cf may be NULL). */
void clientfd_unref(struct clientfd *cf);
/* The descriptor, or -1 for NULL. */
int clientfd_fd(const struct clientfd *cf);

#endif
