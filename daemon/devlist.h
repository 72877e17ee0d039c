/* devlist.h: the network devices the ethtool and queues sources walk, and the reading of
 * their `ethtool -S` counters. On the host they are the entries of /sys/class/net; under a
 * fixture root the DEV.txt files of DIR/ethtool. The directory is kept open and read with
 * getdents64 into a kept buffer, so a scan allocates nothing. */
#ifndef NM_DEVLIST_H
#define NM_DEVLIST_H

#include <stdbool.h>
#include <stddef.h>

struct ethtool_counters;
struct nm_error;
struct source;

#define DEVLIST_NAME_MAX 16 /* IFNAMSIZ, with the NUL */

struct devlist {
	int dirfd;    /* kept directory fd, -1 when closed */
	bool fixture; /* entries are DEV.txt files */
	char *buf;    /* getdents64 buffer */
	size_t cap;
};

/* How listing and reading one device goes; the ethtool and queues sources keep one per
 * device. */
struct devlist_status {
	unsigned seen; /* sample generation that last listed it; 0: it went away */
	bool nostats;  /* the driver gives no statistics: not asked again */
	bool failing;  /* the last read failed (logged once) */
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
/* Read device name's counters into ec: through the ethtool ioctl on fd (the host), or, when fd
 * is -1 (a fixture root), by parsing DIR/ethtool/NAME.txt read into the kept *buf. 0 ok; -1
 * when the device has nothing to report this sample: ds->seen is 0 when it went away, and a
 * failing ioctl is logged once ("source NAME: ..."). On the host a driver that gives no
 * statistics sets ds->nostats. */
int devlist_read_counters(struct source *src, int fd, const char *name, struct ethtool_counters *ec,
                          struct devlist_status *ds, char **buf, size_t *cap);

/* Replace f with the globs in val, separated by blanks or commas; 0, or -1 with err and f
 * unchanged. */
int devlist_filter_parse(struct devlist_filter *f, const char *val, struct nm_error *err);
/* Does name pass f? With no globs every name but "lo" does. */
bool devlist_filter_match(const struct devlist_filter *f, const char *name);
void devlist_filter_free(struct devlist_filter *f);

#endif
