/* profile.h: tuning profiles: IRQ affinity, XPS, RPS, RFS, aRFS (ntuple), net.* sysctls and
 * the NIC's own knobs (channels, rings, coalescing, offloads, NAPI device-wide and per rx
 * queue) for one network device.
 *
 * A profile (struct profile) is parsed from INI text (conf/profiles/NAME.conf) or from a JSON
 * object of the same sections and keys (profile.c). Each knob owns its section: its keys,
 * its checks and the writes it plans (profile-<knob>.c). On a host (struct profile_host,
 * profile-host.c: every path below the root prefix, confined to the device's own sysfs
 * directory) a profile becomes a plan: a list of (path, old, new) writes in a fixed order,
 * validated before anything is written (profile-plan.c). Applying saves the old values to
 * the state directory first and rolls every write back on any failure; revert restores the
 * saved values, also after a restart (profile-state.c). */
#ifndef NM_PROFILE_H
#define NM_PROFILE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpulist.h"

struct nm_error;
struct irq_info;
struct strbuf;
struct sampler;

#define PROFILE_NAME_MAX      64
#define PROFILE_DEV_MAX       16 /* IFNAMSIZ */
#define PROFILE_SYSCTL_MAX    128
#define PROFILE_VALUE_MAX     256
#define PROFILE_MAX_TEXT      60000 /* bytes of INI text */
#define PROFILE_MAX_SYSCTLS   64
#define PROFILE_MAX_OFFLOADS  64
#define PROFILE_MAX_NAPIQ     512
#define PROFILE_COAL_N        6 /* [coalesce] parameters */
#define PROFILE_RSS_FLOWS     8 /* [rss] fields.FLOW flow types */
#define PROFILE_RSS_KEY_MAX   256
#define PROFILE_DEFAULT_ROUTE "default-route"
#define PROFILE_FLOW_CNT_MAX  (1u << 22) /* rps_flow_cnt of one rx queue */
#define PROFILE_SOCK_MAX      (1u << 29) /* rps_sock_flow_entries (the kernel's limit) */

/* What a knob does with its queues. Each knob accepts some of these. */
enum profile_policy {
	PROFILE_POLICY_UNSET = 0,
	PROFILE_POLICY_SPREAD,     /* irq: the IRQs of queue i -> the i-th CPU of the list */
	PROFILE_POLICY_ALL,        /* irq: every queue IRQ -> the whole list */
	PROFILE_POLICY_DEFAULT,    /* irq: /proc/irq/default_smp_affinity */
	PROFILE_POLICY_ONE_TO_ONE, /* xps: tx-i -> the i-th CPU of the list */
	PROFILE_POLICY_CPUS,       /* rps: the whole list on every rx queue */
	PROFILE_POLICY_NONE,       /* xps, rps: the empty mask */
	PROFILE_POLICY_EXPLICIT,   /* only the queues named one by one */
};

/* A set of CPUs as a profile names it: a list or mask, or a word resolved on the host. */
enum profile_cpus_kind {
	PROFILE_CPUS_UNSET = 0,
	PROFILE_CPUS_SET,   /* "0-3,72" or a hex mask */
	PROFILE_CPUS_ALL,   /* "all": every online CPU (rps: every online housekeeping CPU) */
	PROFILE_CPUS_LOCAL, /* "local": the online CPUs of the device's NUMA node */
};

struct profile_cpus {
	enum profile_cpus_kind kind;
	struct cpuset set; /* PROFILE_CPUS_SET */
};

/* The CPUs named for one queue ("queue.3", "tx-3", "rx-3" keys). */
struct profile_queue_cpus {
	unsigned queue;
	struct profile_cpus cpus;
};

/* The [irq], [xps] and [rps] sections. */
struct profile_knob {
	bool present; /* the section was given */
	enum profile_policy policy;
	struct profile_cpus cpus;
	struct profile_queue_cpus *queues; /* per-queue keys, sorted by queue; owned */
	size_t nqueues;
};

enum profile_switch {
	PROFILE_SWITCH_UNSET = 0,
	PROFILE_SWITCH_OFF,
	PROFILE_SWITCH_ON,
};

/* rps_sock_flow_entries: computed, given, or left alone. */
enum profile_sock {
	PROFILE_SOCK_DEFAULT = 0, /* flow_cnt x rx queues (0 when rfs is off) */
	PROFILE_SOCK_SET,
	PROFILE_SOCK_KEEP,
};

struct profile_sysctl {
	char name[PROFILE_SYSCTL_MAX]; /* "net.core.netdev_max_backlog" */
	char value[PROFILE_VALUE_MAX];
};

/* [napi]: the device-wide NAPI files the profile writes (has_*: the key was given). */
struct profile_napi {
	bool has_gro_flush_timeout, has_defer_hard_irqs;
	uint32_t gro_flush_timeout; /* ns */
	uint32_t defer_hard_irqs;
	enum profile_switch threaded;
};

/* [napi_queue]: per rx queue NAPI settings (attr 0: defer_hard_irqs, 1: gro_flush_timeout);
 * all[a] for every rx queue when has_all[a], q[] per queue (overriding). */
struct profile_napiq_one {
	unsigned queue;
	int attr;
	uint32_t value;
};
struct profile_napiq {
	bool has_all[2];
	uint32_t all[2];
	struct profile_napiq_one *q; /* owned */
	size_t n;
};

/* [channels]: the counts to set, 0 where not given. */
struct profile_channels {
	uint32_t rx, tx, combined;
};

/* [rss]: the indirection table (one of equal, weights, table), the hash function, key and
 * each flow type's hash fields (profile-rss.c). */
struct profile_rss {
	uint32_t equal;    /* spread over queues 0..equal-1; 0: not given */
	uint32_t *weights; /* per queue; owned, NULL: not given */
	size_t nweights;
	uint32_t *table; /* the whole table; owned, NULL: not given */
	size_t ntable;
	uint8_t hfunc; /* 1 toeplitz, 2 xor, 4 crc32; 0: not given */
	uint8_t key[PROFILE_RSS_KEY_MAX];
	size_t nkey;                        /* 0: not given */
	uint32_t fields[PROFILE_RSS_FLOWS]; /* RXH_* bits, has_fields: given */
	bool has_fields[PROFILE_RSS_FLOWS];
};

/* One feature of [offloads]. */
struct profile_offload {
	char name[32]; /* the kernel's name: "rx-gro" */
	bool on;
};

struct profile {
	char name[PROFILE_NAME_MAX];
	char description[256];
	char device[PROFILE_DEV_MAX]; /* "": the device of the default route */
	struct profile_knob irq, xps, rps;
	enum profile_switch rfs;
	uint32_t flow_cnt; /* per rx queue, when rfs is on */
	enum profile_sock sock_mode;
	uint32_t sock_flow_entries; /* PROFILE_SOCK_SET */
	enum profile_switch ntuple; /* [arfs] */
	/* [profile] strict = yes: a section the device cannot have (one tx queue, no queue
	 * IRQs, ntuple [fixed]...) refuses the profile instead of being skipped. */
	bool strict;
	struct profile_sysctl *sysctls;
	size_t nsysctls;
	struct profile_napi napi;
	struct profile_channels channels;
	uint32_t rings[2]; /* [rings] rx, tx; 0: not given */
	/* [coalesce]: enum ethtool_coal_param order (adaptive ones 0/1); has_coal: given */
	uint32_t coal[PROFILE_COAL_N];
	bool has_coal[PROFILE_COAL_N];
	struct profile_rss rss;
	struct profile_napiq napiq;
	struct profile_offload *offloads; /* [offloads], by kernel name; owned */
	size_t noffloads;
};

/* ---- profile.c: the model ---- */

void profile_init(struct profile *p);
void profile_free(struct profile *p);
/* Parse INI text into p (initialised here). name labels the profile and its messages ("spread",
 * a file name); [profile] name overrides it. 0 ok; -1 with err naming the line, section and
 * key. */
int profile_parse_ini(struct profile *p, const char *name, const char *text, size_t len,
                      struct nm_error *err);
/* Parse a JSON object of the same sections: {"device":"eth0","irq":{"policy":"spread",
 * "cpus":"0-7"},"rfs":{"flow_cnt":512},"sysctl":{"net.core.somaxconn":"4096"}}. Members of a
 * section are strings, integers or booleans; top-level name, description and device are
 * [profile] keys. 0 ok; -1 with err. */
int profile_parse_json(struct profile *p, const char *name, json_object *obj, struct nm_error *err);
/* Write text (a profile that parses) as a new DIR/NAME.conf, mode 0644: never replacing
 * a file (NM_ERR_EXISTS), no symlink followed. 0, or -1 with err and errno. */
int profile_write_file(const char *dir, const char *name, const char *text, struct nm_error *err);
/* Build a profile from the command line's KNOB=VALUE words (a JSON array of strings):
 * irq=CPUS (queue i's IRQs on the i-th CPU of CPUS) | spread (of all CPUs) | all (every IRQ
 * on all CPUs) | default; xps=CPUS (one-to-one over them) | one-to-one | none; rps=CPUS |
 * all | local | none; rfs=N (flow_cnt) | off; ntuple=on|off. Each knob once. 0 ok; -1 with
 * err naming the word. */
int profile_parse_settings(struct profile *p, const char *name, json_object *settings,
                           struct nm_error *err);
/* Read and parse DIR/NAME.conf. name: letters, digits, '_', '-', '.', not starting with '.';
 * or an absolute path to a file (profile_is_path), labelled by its base name. 0 ok (path
 * gets the file's path); -1 with err (NM_ERR_NOT_FOUND when there is no such
 * file). */
int profile_load(struct profile *p, const char *dir, const char *name, char *path, size_t size,
                 struct nm_error *err);
/* Is name a file (a path with '/', or ending in .conf) rather than a profile name? A file is
 * taken wherever a name is (profile_load*: an absolute path). */
bool profile_is_path(const char *name);
/* The label of a profile file: its base name without ".conf". */
void profile_path_label(const char *path, char *buf, size_t size);
/* The profiles of dir as a JSON array (new reference): name, description, device, sections,
 * and error for a file that does not parse. */
json_object *profile_list_json(const char *dir);
/* profile_load with every ${NAME} in the text replaced by vars.NAME first (a suite's matrix
 * values: "flow_cnt = ${rfs}"); a ${NAME} without a value is an error. vars NULL: none. */
int profile_load_vars(struct profile *p, const char *dir, const char *name, json_object *vars,
                      char *path, size_t size, struct nm_error *err);
/* The sections a profile touches, as a JSON array of names (new reference). */
json_object *profile_sections_json(const struct profile *p);

/* Helpers the knob files share. */
/* Parse a CPU value: "all", "local", a CPU list or a kernel hex mask. 0 or -1 with err. */
int profile_parse_cpus(const char *val, struct profile_cpus *out, struct nm_error *err);
/* Parse "PREFIX<N>" ("tx-3" with prefix "tx-"): 1 matched with *queue, 0 not this form. */
int profile_queue_key(const char *key, const char *prefix, unsigned *queue);
/* Set the CPUs of one queue of a knob (replacing an earlier key for the same queue). */
void profile_knob_set_queue(struct profile_knob *k, unsigned queue, const struct profile_cpus *c);
/* The CPUs a knob's per-queue keys give queue, or NULL. */
const struct profile_cpus *profile_knob_queue(const struct profile_knob *k, unsigned queue);
/* Take a key of a per-queue section ([irq], [xps], [rps]): policy (one of names), cpus, or
 * QPREFIX<N> ("queue.3", "tx-3"). 0 or -1 with err. */
int profile_knob_key(struct profile_knob *k, const char *section, const char *qprefix,
                     const char *const *names, const enum profile_policy *values, const char *key,
                     const char *val, struct nm_error *err);
/* Parse a policy word among those allowed (a NULL-terminated list of names and values). */
int profile_parse_policy(const char *section, const char *val, const char *const *names,
                         const enum profile_policy *values, enum profile_policy *out,
                         struct nm_error *err);
/* Parse on/off/yes/no/true/false/1/0. 0 or -1 with err naming section and key. */
int profile_parse_switch(const char *section, const char *key, const char *val,
                         enum profile_switch *out, struct nm_error *err);
/* Parse an unsigned integer in [0, max]. 0 or -1 with err. */
int profile_parse_u32(const char *section, const char *key, const char *val, uint32_t max,
                      uint32_t *out, struct nm_error *err);

/* ---- profile-host.c: the host a profile is applied to ---- */

/* Where a plan entry's file lives: the base directory below the root, which the relative
 * path may not leave. */
enum profile_base {
	PROFILE_BASE_NETDEV, /* sys/class/net/DEV (the device's own sysfs directory) */
	PROFILE_BASE_IRQ,    /* proc/irq */
	PROFILE_BASE_SYSCTL, /* proc/sys */
	PROFILE_BASE_ROOT,   /* the root itself (ethtool/DEV.features of a fixture) */
};

struct profile_host {
	int rootfd;                  /* O_PATH|O_DIRECTORY fd of the root; owned */
	char root[256];              /* the root prefix ("/" on the host) */
	bool real;                   /* root is "/": ethtool ioctls reach the kernel */
	int ethfd;                   /* ethtool socket (real only), -1 until needed; owned */
	const struct irq_info *irqs; /* the IRQ table (sampler_irq_table; borrowed), or NULL */
	size_t nirqs;
	char irq_reason[128];    /* why irqs is NULL */
	struct sampler *sampler; /* where irqs came from (profile_host_open_sampled), or NULL */
	/* set by profile_host_set_device */
	char dev[PROFILE_DEV_MAX];
	bool dev_from_route;
	unsigned nrx, ntx; /* queues/rx-N and queues/tx-N directories */
	/* read by profile_host_open */
	struct cpuset online;
	struct cpuset unhoused; /* isolated and nohz_full CPUs: the kernel drops them from RPS */
	unsigned nr_cpus;       /* mask width: the highest possible CPU + 1 */
};

/* Open the root and read the CPUs (online, possible, isolated). 0 ok; -1 with err. */
int profile_host_open(struct profile_host *h, const char *root, struct nm_error *err);
/* profile_host_open with the IRQ table of the sampler (sampler_irq_table: the interrupts
 * source's, or read on demand while it is disabled), or the reason there is none in
 * irq_reason. The daemon's commands and the runner open their host this way. 0 ok; -1
 * with err. */
int profile_host_open_sampled(struct profile_host *h, const char *root, struct sampler *s,
                              struct nm_error *err);
void profile_host_close(struct profile_host *h);
/* Take the sampler's IRQ table again (nothing without one): its last sample's, or read now
 * while the interrupts source is disabled. */
void profile_host_refresh_irqs(struct profile_host *h);
/* Check a device name as the kernel does (1-15 bytes, no '/', ':', whitespace, not "." or
 * ".."). 0 or -1 with err. */
int profile_host_check_dev(const char *dev, struct nm_error *err);
/* Choose the device: dev, or the device of the default route when dev is NULL, "" or
 * "default-route"; it must exist; counts its queues. 0 ok; -1 with err. */
int profile_host_set_device(struct profile_host *h, const char *dev, struct nm_error *err);
/* Does sys/class/net/DEV exist below the root? */
bool profile_host_dev_exists(struct profile_host *h, const char *dev);
/* Open rel below base (the base's own symlinks resolve inside the root; rel may hold no
 * symlink and no ".." and may not leave base). flags: O_RDONLY or O_WRONLY|O_TRUNC. An fd, or
 * -1 with errno. */
int profile_host_openat(struct profile_host *h, enum profile_base base, const char *dev,
                        const char *rel, int flags);
/* Read a small file below base, trailing whitespace cut, into buf. 0 or -1 with errno. */
int profile_host_read(struct profile_host *h, enum profile_base base, const char *dev,
                      const char *rel, char *buf, size_t size);
/* Write val and a newline in one write(2). 0 or -1 with errno. */
int profile_host_write(struct profile_host *h, enum profile_base base, const char *dev,
                       const char *rel, const char *val);
/* Resolve a profile's CPUs on this host and check that every one is online (for_rps: and
 * not isolated). what names the key in messages. 0 or -1 with err. */
int profile_host_cpus(struct profile_host *h, const struct profile_cpus *c, bool for_rps,
                      const char *what, struct cpuset *out, struct nm_error *err);
/* Is a process named irqbalance running (proc/PID/comm below the root)? */
bool profile_host_irqbalance(struct profile_host *h);
/* Is a process whose comm is name running? */
bool profile_host_running(struct profile_host *h, const char *name);
/* Does tuned run (it rewrites sysctls, IRQ affinities and NIC settings its profile names)?
 * Its active profile (etc/tuned/active_profile below the root) into profile, "" when
 * unknown. */
bool profile_host_tuned(struct profile_host *h, char *profile, size_t size);
/* The ethtool socket, opened on first use; -1 with err. */
int profile_host_ethfd(struct profile_host *h, struct nm_error *err);

/* ---- profile-plan.c: the writes ---- */

/* What a plan entry writes, in plan order (the order writes happen in). */
enum plan_kind {
	PLAN_SYSCTL = 0, /* proc/sys/<name>; rfs's rps_sock_flow_entries is one */
	PLAN_RPS,        /* queues/rx-N/rps_cpus (mask) */
	PLAN_FLOW_CNT,   /* queues/rx-N/rps_flow_cnt */
	PLAN_XPS,        /* queues/tx-N/xps_cpus (mask) */
	PLAN_IRQ,        /* proc/irq/N/smp_affinity_list (list) */
	PLAN_NTUPLE,     /* the device's ntuple feature: "on" or "off" */
	PLAN_CHANNELS,   /* a channel count of the device (name: rx, tx, combined) */
	PLAN_RINGS,      /* a ring size of the device (name: rx, tx) */
	PLAN_COALESCE,   /* a coalescing parameter (name: rx-usecs, ..., adaptive-tx) */
	PLAN_OFFLOAD,    /* an ethtool feature of the device (name: its kernel name): on|off */
	PLAN_NAPI_QUEUE, /* a setting of rx queue N's NAPI (netlink napi-set; name: the setting) */
	PLAN_NAPI,       /* sys/class/net/DEV/{gro_flush_timeout,napi_defer_hard_irqs,threaded} */
	PLAN_RSS,        /* a part of the device's RSS (name: indir, hkey, hfunc, fields.FLOW) */
	PLAN_KIND__COUNT
};

struct plan_entry {
	enum plan_kind kind;
	char dev[PROFILE_DEV_MAX];     /* RPS, FLOW_CNT, XPS, NTUPLE */
	int index;                     /* queue (RPS, FLOW_CNT, XPS) or IRQ number */
	char name[PROFILE_SYSCTL_MAX]; /* SYSCTL: its name; IRQ: its action name (display) */
	char path[320];                /* "/sys/class/net/eth0/queues/tx-3/xps_cpus", below root */
	char *old;                     /* the value read before, as the file shows it; owned */
	char *new;                     /* the value to write; owned */
	bool change;                   /* old and new differ (as values, not strings) */
	bool written;
	/* Not written: a queue value as it was before [channels] changed the queue counts
	 * (which resets it), saved so that a rollback or revert puts it back once the counts
	 * are back; not in applied.json (its queue may be gone). */
	bool keep;
};

struct plan {
	struct plan_entry *e;
	size_t n, cap;
	json_object *warnings; /* array of strings; owned */
	json_object *skipped;  /* sections the device cannot have, why (strings); owned */
	bool irq_written;      /* an IRQ affinity was written (views need a refresh) */
	/* [channels] changes the queue counts and later sections hang on the queues: the
	 * entries from stage2 on were planned on the layout the counts will give (nrx, ntx
	 * below) and are planned again, on the device as it is then, after the channel writes
	 * (plan_replan; profile_apply does it). replan is the profile (borrowed: it outlives
	 * the apply); NULL when nothing waits on the channels. */
	const struct profile *replan;
	size_t stage2;
	unsigned layout_nrx, layout_ntx;
};

void plan_init(struct plan *pl);
void plan_free(struct plan *pl);
/* Add a warning (printf-style) to the plan. */
void plan_warn(struct plan *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A section the device cannot have: with p->strict, -1 with err saying so; otherwise the
 * section is skipped: "[SECTION] skipped: WHY" goes to pl->skipped and 0 is returned (the
 * caller plans nothing for the section). */
int plan_cannot(struct plan *pl, const struct profile *p, const char *section, struct nm_error *err,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Append an entry: fills its path, reads its old value (so a missing file is found before
 * anything is written) and compares. Returns the entry, or NULL with err. */
struct plan_entry *plan_add(struct plan *pl, struct profile_host *h, enum plan_kind kind,
                            const char *dev, int index, const char *name, const char *new,
                            struct nm_error *err);
/* Build the plan of p on h (device already set): every knob in plan order. 0 ok; -1 with
 * err and nothing written. */
int plan_build(struct plan *pl, const struct profile *p, struct profile_host *h,
               struct nm_error *err);
/* Entries [from, to) of plan_execute; a failure rolls back every entry written before
 * too (from 0), then puts back the keep entries. */
int plan_execute_range(struct plan *pl, struct profile_host *h, size_t from, size_t to,
                       struct nm_error *err);
/* After the channel writes of a plan with replan: count the device's queues again, take
 * the IRQ table again (h->sampler), drop the entries from stage2 on and plan the sections
 * after [channels] again on the device as it is now. 0 or -1 with err. */
int plan_replan(struct plan *pl, struct profile_host *h, struct nm_error *err);
/* Write every entry that changes, in order, reading each back. On a failure, restore what
 * was written in reverse order; err says which write failed, why, and how the rollback went.
 * 0 ok; -1 with err. */
int plan_execute(struct plan *pl, struct profile_host *h, struct nm_error *err);
/* Put back the old value of every entry written, last first. 0, or -1 with err naming the
 * first that failed. */
int plan_undo(struct plan *pl, struct profile_host *h, struct nm_error *err);
/* Are two values of kind the same value (CPU sets by content, counts as the kernel rounds
 * them, sysctls word by word)? */
bool plan_same(enum plan_kind kind, const char *name, const char *a, const char *b);
/* Read the live value of e into a new string (caller frees); NULL with err. */
char *plan_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err);
/* The live value of h's device's file of kind now (index: the queue or IRQ; name: the
 * sysctl), a new string, or NULL when it cannot be read. */
char *plan_read_live(struct profile_host *h, enum plan_kind kind, int index, const char *name);
/* Write val to e's file (or the ntuple feature) and read it back. 0 or -1 with err. */
int plan_write_checked(struct profile_host *h, const struct plan_entry *e, const char *val,
                       struct nm_error *err);
/* A net.* sysctl name as a path below proc/sys ("net.core.x" -> "net/core/x"; a name with
 * '/' is a path already). 0, or -1 when it is not a net.* name or would leave proc/sys. */
int plan_sysctl_rel(const char *name, char *buf, size_t size);
/* Fill e's path from its kind, device, index and name. */
void plan_entry_path(const struct profile_host *h, struct plan_entry *e);
/* The kind as a word ("xps") and back (-1 when unknown). */
const char *plan_kind_name(enum plan_kind kind);
int plan_kind_parse(const char *s);
/* Does val turn its knob on: a CPU mask with a CPU, a flow count above 0 (other kinds:
 * always)? */
bool plan_value_on(enum plan_kind kind, const char *val);
/* A value as people read it: CPU masks as lists ("0-3,72"), others unchanged. */
void plan_display(enum plan_kind kind, const char *val, char *buf, size_t size);
/* The entries that change, for dry-run and apply: [{"kind","path","old","new",...}]. */
json_object *plan_changes_json(const struct plan *pl);
/* How many entries change. */
size_t plan_nchanges(const struct plan *pl);

/* ---- the knobs: each parses its section's keys, checks them, plans its writes, in its
 * own file profile-<knob>.c, reached through its struct knob_ops (knob.h) ---- */

/* profile-save.c: the per-queue masks of a knob as [SECTION] policy and QPREFIX<N> keys (nothing
 * when nq is 0 or no file reads): [xps] and [rps] save so. */
void profile_save_masks(struct profile_host *h, struct strbuf *sb, enum plan_kind kind, unsigned nq,
                        const char *section, const char *qprefix);
/* The current tuning of h's device (set) as profile text, named name, into
 * sb: each knob's section (knob_ops.save: [irq] queue.N, [xps] tx-N, [rps] rx-N, [rfs],
 * [arfs]) as the kernel has them now,
 * with comments where a value cannot be said in a profile. 0, or -1 with err. */
int profile_save_text(struct profile_host *h, const char *name, struct strbuf *sb,
                      struct nm_error *err);
/* profile-irq.c: one queue IRQ of a device. */
struct profile_irq {
	unsigned queue;
	const struct irq_info *irq; /* borrowed from h->irqs */
};
/* The queue IRQs of h's device (named by the device or its parent, as the queue views join
 * them), by queue then in /proc/interrupts order; *n gets their number. Caller frees. */
struct profile_irq *profile_irq_list(struct profile_host *h, size_t *n);
/* profile-rfs.c: the flow counts of h's rx queues: how many read, the least and the most. */
void profile_rfs_counts(struct profile_host *h, unsigned *seen, unsigned long long *min,
                        unsigned long long *max);
/* profile-arfs.c: the ntuple feature of dev: "on" or "off" into buf (size >= 4). 0 ok; -1
 * with err (NM_ERR_UNSUPPORTED when the device cannot say). */
int profile_arfs_get(struct profile_host *h, const char *dev, char *buf, size_t size,
                     struct nm_error *err);
/* Can the device's ntuple feature change? 0 with *fixed (true: "ethtool -k" shows it
 * [fixed]); -1 with err when the device does not say. */
int profile_arfs_fixed(struct profile_host *h, const char *dev, bool *fixed, struct nm_error *err);
/* Turn it on or off. 0 ok; -1 with err naming the device and why. */
int profile_arfs_set(struct profile_host *h, const char *dev, bool on, struct nm_error *err);
/* The channel counts of dev as JSON (new reference), or NULL when unknown. */
json_object *profile_arfs_channels(struct profile_host *h, const char *dev);

/* profile-offloads.c: the offloads profile show and results report (rx-gro, rx-lro, tso,
 * gso, rx-gro-hw, rx-gro-list, rx-udp-gro-forwarding) of h's device: {"rx-gro": {"on":
 * true, "fixed": false}, ...} (new reference), the ones the device has. */
json_object *profile_offloads_json(struct profile_host *h);
/* profile-rings.c: the ring sizes of h's device, {"rx","tx","max_rx","max_tx"} (new
 * reference), or NULL when the driver does not say. */
json_object *profile_rings_json(struct profile_host *h);
/* profile-coalesce.c: the coalescing of h's device ({"rx-usecs":8,...,"adaptive-rx":true},
 * the parameters it has; new reference), or NULL when it has none. */
json_object *profile_coalesce_json(struct profile_host *h);
/* profile-rss.c: the RSS of h's device ({"rings", "entries", "queues": [entries per rx
 * queue], "equal": N or null, "hfunc", "hkey", "fields": {"tcp4": "sdfn", ...}}; new
 * reference), or NULL when it has none. */
json_object *profile_rss_json(struct profile_host *h);
/* profile-channels.c: does p's [channels] change h's channel counts? Then *nrx and *ntx
 * get the rx and tx queue counts the device will have (rx or tx + combined). */
bool profile_channels_change(const struct profile *p, struct profile_host *h, unsigned *nrx,
                             unsigned *ntx);
/* Does p plan on the queues ([irq], [xps], [rps], [rfs], [rss] table, [napi_queue])? */
bool profile_channels_dependents(const struct profile *p);
/* Does p set the indirection table (equal, weights or table)? */
bool profile_rss_sets_table(const struct profile *p);

/* ---- profile-agents.c: the other agents that change what a profile sets ---- */

/* Take (or keep) the lock of dev that says this daemon holds a profile applied to it (an
 * abstract Unix socket, per network namespace; dropped by the kernel when the daemon
 * exits). 0, or -1 with err (busy: another netmetricsd holds it, its pid named). */
int profile_agents_lock(const char *dev, struct nm_error *err);
/* Let it go. */
void profile_agents_unlock(void);
/* The pid of another daemon holding dev's lock: 0 none, -1 held but the pid unknown. */
int profile_agents_holder(const char *dev);
/* The netmetricsd processes below h's root that are not this daemon's (nor its privileged
 * parent or children), sorted, up to max into pids; how many. */
size_t profile_agents_daemons(struct profile_host *h, long *pids, size_t max);
/* {"irqbalance": BOOL, "tuned": {"running": BOOL, "profile": NAME|null}, "netmetricsd":
 * [other daemons' pids], "holder": the pid holding dev's lock when another daemon's, else
 * null} (new reference). */
json_object *profile_agents_json(struct profile_host *h, const char *dev);
/* Who of agents (profile_agents_json) could have changed a value of kind: "irqbalance"
 * (IRQ affinities), "tuned (profile NAME)" (sysctls, IRQs, channels, rings, coalescing,
 * offloads: its sysctl, irq and net plugins), "netmetricsd pid N" (anything); a new array,
 * empty when none of them runs. */
json_object *profile_agents_who(json_object *agents, enum plan_kind kind);

/* ---- profile-state.c: what was saved and applied, in STATE_DIR/profile/ ---- */

/* Who applied what, for applied.json. */
struct profile_origin {
	const char *profile; /* its name */
	const char *source;  /* the file it came from, "inline" or "text" */
	uint32_t uid;
	int32_t pid;
};

/* Apply a built plan: save the old values (profile_state_save), write (plan_execute,
 * which rolls back on failure; saved.json is then put back as it was), and record what was
 * applied (applied.json; when that fails the writes are undone). 0, or -1 with err and the
 * host as before. */
int profile_apply(const char *state_dir, struct plan *pl, struct profile_host *h,
                  const struct profile_origin *o, struct nm_error *err);
/* Save the old value of every entry of pl that saved.json does not hold yet (the oldest
 * value wins: revert goes back to before the first apply). *prev gets the file's previous
 * contents (NULL when there was none) for profile_state_restore_saved. 0 or -1 with err. */
int profile_state_save(const char *state_dir, const struct plan *pl, const char *root,
                       json_object **prev, struct nm_error *err);
/* Put saved.json back as it was before profile_state_save (prev NULL: remove it). */
int profile_state_restore_saved(const char *state_dir, json_object *prev, struct nm_error *err);
/* Record the applied profile and the values it wrote (applied.json). 0 or -1 with err. */
int profile_state_applied(const char *state_dir, const struct plan *pl,
                          const struct profile_origin *o, const char *device, struct nm_error *err);
/* Restore every saved value in reverse order, then remove the state files. The result
 * (new reference) says what was done; a second revert finds nothing and says so. NULL with
 * err when a write failed (the state is kept so that revert can be tried again). */
json_object *profile_state_revert(const char *state_dir, struct profile_host *h,
                                  struct nm_error *err);
/* What is applied, by whom, when, and which of its values have drifted since (new
 * reference). */
json_object *profile_state_status(const char *state_dir, struct profile_host *h);
/* Every value the applied profile wrote, read now: {"profile", "device", "time" (of the
 * apply), "values": {PATH: the live value as shown (CPU masks as lists), null when it
 * cannot be read}} (new reference), or NULL when none is recorded. */
json_object *profile_state_values(const char *state_dir, struct profile_host *h);
/* At start: take the lock (profile_agents_lock) of the device of the profile recorded as
 * applied, when root is "/"; a warning when another daemon holds it. */
void profile_state_hold(const char *state_dir, const char *root);
/* The applied profile in brief, {"name", "device", "kinds": [the kinds of value it turned
 * on (plan_value_on: a mask with a CPU, a flow count above 0; any sysctl), in order, once
 * each]}, or NULL when none is recorded (or the record cannot be read). */
json_object *profile_state_applied_brief(const char *state_dir);
#endif
