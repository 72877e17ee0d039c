/* devlist.h: the network devices the ethtool and queues sources walk, and their `ethtool -S`
 * counters, read once for both sources.
 *
 * On the host the devices are the entries of /sys/class/net and their counters come from one
 * SIOCETHTOOL GSTATS per read; under a fixture root they are the DEV.txt files of DIR/ethtool,
 * each kept open and read with one pread, then parsed. The sampler owns one struct devlist
 * and hands it to both sources (source->devlist); a source built without a sampler (the unit
 * tests) makes a private one.
 *
 * A source's sample carries the time of its round (source->round_ns, else its sample_ns):
 * sources sampled back to back (two with the same interval fire in the same loop iteration)
 * share one. A listing or a device's read made less than DEVLIST_FRESH_NS before that time
 * is handed out again instead of being made again, so the second source lists the
 * directory and reads (on a fixture: parses) each device's counters for free, however long
 * the first one's sample took. A time of 0 always reads.
 *
 * The directory is kept open and read with getdents64 into a kept buffer; the names of the
 * last listing, the device entries and their counters are kept too, so a sample allocates
 * nothing once the set of devices is stable. What depends on which source asks (the device
 * filter, which devices it listed, nostats, failures logged) stays in each source's struct
 * devlist_status. */
#ifndef NM_DEVLIST_H
#define NM_DEVLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "ethtool.h"
#include "source.h"
#include "xmalloc.h"

struct nm_error;

#define DEVLIST_NAME_MAX 16 /* IFNAMSIZ, with the NUL */

/* How long a listing or a read stays current for the next source that asks. Sources with
 * equal intervals fire in the same loop iteration, a few microseconds apart, so 2 ms catches
 * them with room to spare; the skew it allows between a source's time and its data is at
 * most 0.2% of a 1 s interval. */
#define DEVLIST_FRESH_NS 2000000ull
/* How long a listing may stand for later samples when nothing says the directory changed:
 * under a fixture root its mtime did not move (and was set well before the listing, so that
 * a change in the same clock tick is not missed), on the host no rtnetlink link message
 * arrived since (a device that comes, goes or is renamed sends one). At most this long, in
 * case a message was missed. This saves a getdents64 pass of /sys/class/net a sample: 2.5 %
 * of the daemon's CPU at 1 s on the 144-CPU fixture, 7.5 % with link, queues and softnet at
 * 10 ms. */
#define DEVLIST_REUSE_NS 5000000000ull
/* A device entry nobody asked for in this long (or in twice the interval of the last source
 * that asked, when that is longer) is dropped, so that a device filtered out or no longer
 * read does not keep its memory, or a fixture's fd, for ever. */
#define DEVLIST_IDLE_NS 60000000000ull

/* One device's counters as last read. Sources read name, ec, seq and names; the rest is
 * devlist.c's. */
struct devlist_entry {
	char name[DEVLIST_NAME_MAX];
	struct ethtool_counters ec; /* ec.changed: what changed since the read before, seq - 1 */
	uint64_t seq;   /* reads of this entry so far: a source that took read seq - 1 may put
	                   just ec.changed; one that took seq has nothing new */
	unsigned names; /* stamp of ec's names, unique in its devlist (never 0): a source
	                   rebuilds what it derives from names when it differs from the one it
	                   built with (a new entry for a device always gets a new stamp) */

	unsigned names_generation; /* ec.generation the stamp was given for */
	uint64_t read_ns;          /* sample time of the last read; 0: none that may be reused */
	uint64_t asked_ns;         /* sample time of the last request */
	uint64_t idle_ns;          /* how long it may go unasked before it is dropped */
	unsigned listed;           /* listing generation that last named it */
	struct source_file file;   /* fixture: ethtool/NAME.txt, kept open */
	char path[8 + DEVLIST_NAME_MAX + 4]; /* file.path's storage */
	ino_t ino;                           /* fixture: inode of the open file */
};

/* The device directory, its last listing and the entries of the devices read. */
struct devlist {
	bool opened;
	bool fixture; /* entries are DEV.txt files */
	int dirfd;    /* kept directory fd, -1 when closed */
	int sock;     /* ethtool socket on the host, else -1 */
	char *buf;    /* getdents64 buffer */
	size_t cap;

	/* the last listing, in directory order */
	char (*names)[DEVLIST_NAME_MAX];
	ino_t *inos;
	size_t nnames, capnames;
	uint64_t listed_ns;        /* its sample time; 0: none that may be reused */
	unsigned listing;          /* listing generation, bumped by each listing of the directory */
	uint64_t reuse_ns;         /* DEVLIST_REUSE_NS; 0: list at every sample time (tests) */
	bool listing_sure;         /* nothing since the listing says the directory changed */
	struct timespec dir_mtime; /* fixture: the directory's mtime the listing was made at */
	int notify;                /* host: rtnetlink socket in RTMGRP_LINK, else -1 */

	struct devlist_entry **entries; /* in the order first asked for */
	size_t nentries, capentries;
	size_t hint;          /* where the next lookup starts: requests follow directory order */
	unsigned names_clock; /* the last names stamp given */

	/* what it cost, for tests */
	uint64_t reads;  /* counter reads: ioctls on the host, file reads and parses in a fixture */
	uint64_t scans;  /* listings of the directory */
	uint64_t reused; /* listings that stood for a later sample time (DEVLIST_REUSE_NS) */
};

/* How listing and reading one device goes for one source; each source keeps one per
 * device. */
struct devlist_status {
	unsigned seen; /* the source's sample generation that last listed it; 0: it went away */
	bool nostats;  /* the driver gives no statistics: not asked again */
	bool failing;  /* the last read failed (logged once) */
};

/* The "devices" option: globs (fnmatch) a device must match; none means every device but
 * the loopback. */
struct devlist_filter {
	char **globs;
	size_t n;
};

/* The record named nm in a source's own table of its devices, created (zeroed, its name set)
 * when there is none: v[0..n) are pointers to records of any type with a member
 * char name[DEVLIST_NAME_MAX], cap is v's capacity, hint where the search starts (requests
 * follow directory order, which is stable between samples, so the next lookup starts past
 * the last match). Sets *created; evaluates to the record. A macro so that each source
 * keeps its own record type; v, n, cap and hint are lvalues it updates. */
#define DEVLIST_FIND_DEV(v, n, cap, hint, nm, created)                                             \
	__extension__({                                                                            \
		__typeof__(*(v)) found_ = NULL;                                                    \
		for (size_t k_ = 0; k_ < (n) && found_ == NULL; k_++) {                            \
			size_t i_ = ((hint) + k_) % (n);                                           \
			if (strcmp((v)[i_]->name, (nm)) == 0) {                                    \
				found_ = (v)[i_];                                                  \
				(hint) = i_ + 1;                                                   \
			}                                                                          \
		}                                                                                  \
		*(created) = found_ == NULL;                                                       \
		if (found_ == NULL) {                                                              \
			if ((n) == (cap)) {                                                        \
				(cap) = (cap) ? (cap)*2 : 16;                                      \
				(v) = xreallocarray((v), (cap), sizeof(*(v)));                     \
			}                                                                          \
			found_ = xcalloc(1, sizeof(*found_));                                      \
			snprintf(found_->name, sizeof(found_->name), "%s", (nm));                  \
			(v)[(n)++] = found_;                                                       \
			(hint) = (n);                                                              \
		}                                                                                  \
		found_;                                                                            \
	})

/* A new devlist, not yet open; the caller frees it with devlist_free. */
struct devlist *devlist_new(void);
/* Close the directory, the socket and every entry's file, and free dl (NULL is fine). */
void devlist_free(struct devlist *dl);
/* Open the directory below src's root (and, on the host, the ethtool socket) unless dl is
 * open already; 0, or -1 with err. Every source of one devlist must have the same root. */
int devlist_open(struct devlist *dl, struct source *src, struct nm_error *err);
/* Call fn with each device name (shorter than DEVLIST_NAME_MAX) in directory order: those
 * of the last listing when it is fresh for src->sample_ns, else those of a new one. A new
 * listing also drops the entries of devices it does not name and those asked for by nobody
 * for their idle time. 0, or -1 with err when the directory cannot be read. */
int devlist_scan(struct devlist *dl, struct source *src, void (*fn)(const char *name, void *arg),
                 void *arg, struct nm_error *err);
/* The counters of device name, current for src->sample_ns: those of the last read when it
 * is fresh, else read now (seq bumped). NULL when the device has nothing to report this
 * sample: ds->seen is set to 0 when it went away (its entry is dropped), and a failing read
 * is logged once per ds ("source NAME: ..."). A driver that gives no statistics sets
 * ds->nostats. The entry belongs to dl and stays valid until dl's next listing of the
 * directory or read of this device. */
const struct devlist_entry *devlist_read_counters(struct devlist *dl, struct source *src,
                                                  const char *name, struct devlist_status *ds);
/* Keep name's entry, if it has one, from being dropped as idle, without reading it: for a
 * source that reads a device only now and then. */
void devlist_touch(struct devlist *dl, struct source *src, const char *name);

/* Replace f with the globs in val, separated by blanks or commas; 0, or -1 with err and f
 * unchanged. */
int devlist_filter_parse(struct devlist_filter *f, const char *val, struct nm_error *err);
/* Does name pass f? With no globs every name but "lo" does. */
bool devlist_filter_match(const struct devlist_filter *f, const char *name);
void devlist_filter_free(struct devlist_filter *f);

#endif
