/* knob.h: the tuning knobs as one table, as sources have source_ops and drivers struct driver.
 *
 * A knob owns one section of a profile ([irq], [xps], [rps], [rfs], [arfs], [sysctl],
 * [channels], [rings], [coalesce], [offloads], [rss], [napi], [napi_queue]) and the one kind of
 * plan entry it writes (irq, xps, rps, flow_cnt, ntuple, sysctl, channels, rings,
 * coalesce, offload, rss, napi, napi_queue). Its
 * struct knob_ops, defined in its own file (profile-<knob>.c), says everything the rest of
 * tune/ asks of it: the section's keys, the checks, its writes in a plan, and how a value of
 * its kind is read, written (through which privileged operation), compared, shown and
 * saved. knobs[] (knob.c) lists them in section order: the order of the sections in
 * messages, in "profile show"/"profiles" sections and in a saved profile. Plan order (the
 * order writes happen in) is each knob's plan_order.
 *
 * Adding a knob:
 *   - daemon/tune/profile-<knob>.c: its key, check, present, plan (and release, setting,
 *     save when it has them), the ops of its kind (file/path/read/write/same/display/
 *     value_on/write_hint, allow and base for a file it writes), ending in
 *         const struct knob_ops knob_napi = {
 *             .section = "napi", .key = napi_key, .check = napi_check, .plan = napi_plan,
 *             .kind = PLAN_NAPI, .kind_name = "napi", .priv = KNOB_PRIV_WRITE, ... };
 *   - knob.c: knob_napi in the extern line and one line in knobs[] (its place is its
 *     place in section order; plan_order, between its neighbours', when it is written);
 *   - profile.h: PLAN_NAPI in enum plan_kind, its fields in struct profile;
 *   - proto/PROTOCOL.md "Tuning profiles" (its section; "profile-set" for a KNOB=VALUE);
 *   - a test of what it plans in tests/unit/test-profile.c; test-knob checks the entry
 *     is whole by itself.
 * A write that is not a file (as ntuple's ETHTOOL_SFLAGS, or the NIC knobs' ethtool and
 * netlink requests) also needs its privileged message (base/privsep-msg.h, privsep.c,
 * priv/privsep-parent.c: checked there) and a KNOB_PRIV_ value.
 * meson lists a folder's files when it is configured: run "meson setup --reconfigure"
 * after adding the file. */
#ifndef NM_KNOB_H
#define NM_KNOB_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

struct strbuf;

#define KNOB_VALUE_MAX                                                                             \
	1024 /* bytes of a value the privileged process writes (a mask of 4096                     \
	        CPUs fits) */

/* How the privileged process writes a value of the kind (privsep.h): PS_WRITE writes a file
 * below a base directory after privsep_check_write allowed it; PS_NTUPLE sets the ntuple
 * feature with ETHTOOL_SFLAGS. */
enum knob_priv {
	KNOB_PRIV_WRITE = 1, /* PS_WRITE (profile_host_write) */
	KNOB_PRIV_NTUPLE,    /* PS_NTUPLE (profile_arfs_set) */
	KNOB_PRIV_FEATURE,   /* PS_FEATURE (an ethtool feature: [offloads]) */
	KNOB_PRIV_CHANNELS,  /* PS_CHANNELS (a channel count: [channels]) */
	KNOB_PRIV_NAPI,      /* PS_NAPI (netlink napi-set: [napi_queue]) */
	KNOB_PRIV_RINGS,     /* PS_RINGS (a ring size: [rings]) */
	KNOB_PRIV_COALESCE,  /* PS_COALESCE (a coalescing parameter: [coalesce]) */
	KNOB_PRIV_RSS,       /* PS_RSS (a part of RSS: [rss]) */
};

/* What a plan entry's index is. */
enum knob_index {
	KNOB_INDEX_NONE = 1, /* -1: one value per device or name */
	KNOB_INDEX_QUEUE,    /* a queue: "queue" in changes */
	KNOB_INDEX_IRQ,      /* an IRQ number: "irq" and the action's "name" in changes */
};

struct knob_ops {
	/* ---- the section ---- */
	const char *section; /* "xps": [xps] in a profile file, in sections lists */
	/* Take one key of the section; 0 or -1 with err naming section and key. */
	int (*key)(struct profile *p, const char *key, const char *val, struct nm_error *err);
	/* Check the section once every key is read; 0 or -1 with err. */
	int (*check)(const struct profile *p, struct nm_error *err);
	/* Does p set this section? */
	bool (*present)(const struct profile *p);
	/* Free what the section owns in p (profile_free); NULL: nothing. */
	void (*release)(struct profile *p);
	/* The KNOB of a KNOB=VALUE word ("ntuple" for [arfs]), or NULL when the knob has none;
	 * setting_ini writes the section that word means into sb. */
	const char *setting;
	void (*setting_ini)(struct strbuf *sb, const char *val);
	/* Add the section's writes to the plan, checked against the host; 0 or -1 with err. */
	int (*plan)(const struct profile *p, struct profile_host *h, struct plan *pl,
	            struct nm_error *err);
	/* When it is written, smallest first, unique: channels 1, rings 2, coalesce 3,
	 * offloads 4, rss 5, napi 6, napi_queue 7, sysctl 10, rfs 20, rps 30, xps 40, irq 50, arfs
	 * 60 (a knob between two takes a number between theirs). */
	unsigned plan_order;
	/* The section as the host has it now, appended to sb (profile save); NULL: not saved. */
	void (*save)(struct profile_host *h, struct strbuf *sb);

	/* ---- the kind of plan entry it writes ---- */
	enum plan_kind kind;
	const char *kind_name; /* "flow_cnt": in changes, saved.json and applied.json */
	enum knob_index index;
	bool on_device;      /* an entry names its device (queues, features) */
	enum knob_priv priv; /* the privileged operation that writes it */
	/* KNOB_PRIV_WRITE: the base directory of its files, and the privileged process's
	 * allow-list for them (privsep_check_write: on the request's text alone): 1 when rel
	 * is one of the knob's files and val a value it takes, 0 when rel is not its file, -1
	 * with why when the value is refused. NULL for KNOB_PRIV_NTUPLE. */
	enum profile_base base;
	int (*allow)(const char *rel, const char *val, char *why, size_t size);
	/* Where an entry's file lives, below which base; -1 when it has no file or its fields
	 * are not valid. */
	int (*file)(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size);
	/* The path people see ("/sys/class/net/eth0/queues/tx-3/xps_cpus"), into e->path. */
	void (*path)(struct plan_entry *e);
	/* The live value, a new string; NULL with err. */
	char *(*read)(struct profile_host *h, const struct plan_entry *e, struct nm_error *err);
	/* Write val (not read back); 0 or -1 with err. */
	int (*write)(struct profile_host *h, const struct plan_entry *e, const char *val,
	             struct nm_error *err);
	/* Are a and b the same value ("changes nothing")? name: the entry's name. */
	bool (*same)(const char *name, const char *a, const char *b);
	/* A value as people read it (CPU masks as lists), into buf. */
	void (*display)(const char *val, char *buf, size_t size);
	/* Does val turn the knob on (a mask with a CPU, a flow count above 0)? */
	bool (*value_on)(const char *val);
	/* Words after "write PATH: ERROR" that say what to do about errno en ("" for none). */
	const char *(*write_hint)(int en);
	/* Said after a value that reads back different from what was written ("" for none). */
	const char *readback_hint;
};

/* Every knob, in section order; knobs_n of them. */
extern const struct knob_ops *const knobs[];
extern const size_t knobs_n;

/* The knob of a section ("xps") or of a kind; NULL when none. */
const struct knob_ops *knob_by_section(const char *section);
const struct knob_ops *knob_of_kind(enum plan_kind kind);
/* The names of the sections ("irq, xps, ...") or "[irq], [xps], ..." (brackets), or the
 * KNOB=VALUE words ("irq, ..., ntuple"), into buf. */
void knob_list_sections(char *buf, size_t size, bool brackets);
void knob_list_settings(char *buf, size_t size);

/* Shared ops (profile-plan.c). */
/* The file below the root: read it, write it (through the privileged process when there is
 * one: profile_host_write). */
char *knob_file_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err);
/* knob_file_read with enoent said after the error of a file that is not there. */
char *knob_file_read_why(struct profile_host *h, const struct plan_entry *e, const char *enoent,
                         struct nm_error *err);
int knob_file_write(struct profile_host *h, const struct plan_entry *e, const char *val,
                    struct nm_error *err);
void knob_file_path(struct plan_entry *e);
/* Values compared as strings or as CPU masks; shown as they are or as CPU lists; always on or on
 * with a CPU; the hint of any kind (EACCES: needs root...). */
bool knob_same_string(const char *name, const char *a, const char *b);
bool knob_same_mask(const char *name, const char *a, const char *b);
/* Counts as the kernel rounds them (up to a power of two). */
bool knob_same_count(const char *name, const char *a, const char *b);
/* Text word by word (sysctls print tcp_rmem with tabs, take spaces). */
bool knob_same_words(const char *name, const char *a, const char *b);
void knob_display_asis(const char *val, char *buf, size_t size);
void knob_display_mask(const char *val, char *buf, size_t size);
bool knob_always_on(const char *val);
bool knob_mask_on(const char *val);
const char *knob_hint_default(int en);
/* EINVAL on a CPU mask: a CPU is offline or out of range. */
const char *knob_hint_mask(int en);
/* Plan the per-queue masks of k (xps_cpus, rps_cpus: ko's file) for nq queues named
 * QPREFIX<N>: a queue's own key, else the policy (one-to-one: the i-th CPU of cpus; cpus:
 * all of them; none: the empty mask; explicit: untouched). housekeeping: no isolated CPU
 * (the kernel drops them from rps_cpus). 0 or -1 with err. */
int knob_plan_masks(struct plan *pl, struct profile_host *h, const struct profile *p,
                    const struct profile_knob *k, const struct knob_ops *ko, unsigned nq,
                    const char *qprefix, bool housekeeping, struct nm_error *err);
/* The allow-list's helpers. s is a decimal without sign or leading zeros (but "0") of at
 * most 9 digits; *end gets where it stops. */
bool knob_allow_number(const char *s, const char **end);
/* Every byte of s is in set, and s is 1..max bytes. */
bool knob_allow_only(const char *s, const char *set, size_t max);
/* rel is queues/DIR-N/FILE (1) or not (0). */
int knob_allow_queue_file(const char *rel, const char *dir, const char *file);
/* A hex CPU mask in comma groups: 1, or -1 with why. */
int knob_allow_mask(const char *rel, const char *val, char *why, size_t size);
/* queues/{tx,rx}-N/FILE of the entry's device. */
int knob_queue_file(const struct plan_entry *e, const char *dir, const char *file,
                    enum profile_base *base, char *rel, size_t size);

#endif
