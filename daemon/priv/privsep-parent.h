/* privsep-parent.h: the privileged process's entry (privsep-parent.c), given to
 * privsep_start as the setup's parent_run by the daemon's main (and called directly by the
 * test that drives it over a socket pair). */
#ifndef NM_PRIVSEP_PARENT_H
#define NM_PRIVSEP_PARENT_H

struct privsep_setup;

/* The privileged process's request loop on fd: returns when the main process closes its
 * end. */
void privsep_parent_run(int fd, const struct privsep_setup *setup);

#endif
