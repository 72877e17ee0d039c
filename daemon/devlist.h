/* devlist.h: the network devices the ethtool and queues sources walk. On the host they are
 * the entries of /sys/class/net; under a fixture root the DEV.txt files of DIR/ethtool. The
 * directory is kept open and read with getdents64 into a kept buffer, so a scan allocates
 * nothing. */
#ifndef NM_DEVLIST_H
#define NM_DEVLIST_H

#include <stdbool.h>
#include <stddef.h>

struct nm_error;
struct source;

#define DEVLIST_NAME_MAX 16 /* IFNAMSIZ, with the NUL */

struct devlist {
	int dirfd;    /* kept directory fd, -1 when closed */
	bool fixture; /* entries are DEV.txt files */
	char *buf;    /* getdents64 buffer */
	size_t cap;
};

/* The "devices" option: globs (fnmatch) a device must match; none means every device but
 * the loopback. */
struct devlist_filter {
	char **globs;
	size_t n;
};

/* Open the directory below src's root; 0 or -1 with err. */
int devlist_open(struct devlist *dl, struct source *src, struct nm_error *err);
void devlist_close(struct devlist *dl);
/* Call fn with each device name (shorter than DEVLIST_NAME_MAX) in directory order. 0, or -1
 * with err when the directory cannot be read. */
int devlist_scan(struct devlist *dl, void (*fn)(const char *name, void *arg), void *arg,
                 struct nm_error *err);

/* Replace f with the globs in val, separated by blanks or commas; 0, or -1 with err and f
 * unchanged. */
int devlist_filter_parse(struct devlist_filter *f, const char *val, struct nm_error *err);
/* Does name pass f? With no globs every name but "lo" does. */
bool devlist_filter_match(const struct devlist_filter *f, const char *name);
void devlist_filter_free(struct devlist_filter *f);

#endif
