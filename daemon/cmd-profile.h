/* cmd-profile.h: what the profile commands share: the host as the daemon sees it (its root,
 * the interrupts source's IRQ table) and the refresh of that table after IRQ writes. */
#ifndef NM_CMD_PROFILE_H
#define NM_CMD_PROFILE_H

struct daemon;
struct nm_error;
struct profile_host;

/* Open the daemon's root as a profile host, with the IRQ table of the interrupts source
 * (or the reason there is none). 0 ok; -1 with err. Close with profile_host_close. */
int cmd_profile_host(struct daemon *d, struct profile_host *h, struct nm_error *err);
/* Read IRQ affinities again so that the views show what a profile wrote. */
void cmd_profile_refresh(struct daemon *d);

#endif
