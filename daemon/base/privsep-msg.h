/* privsep-msg.h: the wire format between the main process (privsep.c) and the privileged
 * process (privsep-parent.c): message types, the header, a spawn's fixed part, and the
 * two calls that send and receive one message (SOCK_SEQPACKET, fds with SCM_RIGHTS).
 * Internal to those two files. */
#ifndef NM_PRIVSEP_MSG_H
#define NM_PRIVSEP_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "privsep.h"

enum ps_type {
	PS_WRITE = 1,  /* a = base; "dev\0rel\0val\0" */
	PS_NTUPLE,     /* a = on; "dev\0" */
	PS_SPAWN,      /* struct ps_spawn, groups, "netns\0", argv, "\0", env; fds out, err[, cg]
	                  [, the client's socket] */
	PS_KILL,       /* a = pid, b = signal */
	PS_RELEASE,    /* a = pid */
	PS_REPLY,      /* id of the request; a = 0 or errno, b = pid; the message */
	PS_EXIT,       /* a = pid, b = wait status */
	PS_BYE,        /* the main process is stopping in order (not a crash) */
	PS_SAVE,       /* "name\0text\0": a new PROFILE_DIR/NAME.conf */
	PS_UNLINK,     /* remove the control socket the daemon made (the one of the setup) */
	PS_FEATURE,    /* a = on; "dev\0feature\0": ETHTOOL_SFEATURES of one feature */
	PS_CHANNELS,   /* a = enum ethtool_chan_which, b = count; "dev\0": ETHTOOL_SCHANNELS */
	PS_NAPI,       /* a = rx queue, b = value; "dev\0setting\0": netlink napi-set */
	PS_RINGS,      /* a = 0 rx, 1 tx; b = size; "dev\0": ETHTOOL_SRINGPARAM */
	PS_COALESCE,   /* a = enum ethtool_coal_param, b = value; "dev\0": ETHTOOL_SCOALESCE */
	PS_BPF,        /* a = program set (bpfset.h); the reply carries the set's fds */
	PS_BPF_DETACH, /* a = program set: detach and unload it (until a PS_BPF loads it again) */
	PS_RSS,        /* a = enum ethtool_rss_part, b = hash function or flow type; "dev\0" then
	                  the table (u32s), the key (bytes) or the fields (one u32): ETHTOOL_SRSSH,
	                  ETHTOOL_SRXFH */
	PS_BPF_STATS,  /* a = 1 on, 0 off: the kernel's BPF statistics (run time and count of
	                  every BPF program), held on by an fd of this process or let go */
};

struct ps_hdr {
	uint32_t type;
	uint32_t id;
	int32_t a, b;
	uint32_t len; /* payload bytes */
};

struct ps_spawn {
	uint32_t as_user;
	uint32_t uid, gid;
	uint32_t ngroups;
	uint32_t has_cgroup;
	uint32_t duplex; /* stdin is the out fd too (child.h) */
	uint32_t has_peer;
	uint32_t nproc_max; /* RLIMIT_NPROC of a spawn as a uid other than 0; 0: none */
};

#define PS_FDS_MAX 8 /* fds with one message (a BPF set's: BPFSET_FDS_MAX) */

/* One datagram. */
struct ps_msg {
	struct ps_hdr h;
	char data[PRIVSEP_MSG_MAX];
};

/* Send a message with up to PS_FDS_MAX fds. 0 or -1 with errno. */
int privsep_send_msg(int fd, const struct ps_hdr *h, const void *data, const int *fds, size_t nfds);
/* Receive one message (payload NUL-terminated), its fds into fds (-1 filled). 1 with a
 * message (with no fd at all when they did not all fit: the receiver out of descriptors), 0
 * at end of file, -1 with errno (EAGAIN with flags MSG_DONTWAIT; EBADMSG for a message of
 * the wrong size). */
int privsep_recv_msg(int fd, struct ps_msg *msg, int *fds, size_t maxfds, int flags);

#endif
