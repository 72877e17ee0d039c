/* source.h: a source reads one kernel interface and reports its counters as series.
 * Each source-<name>.c fills one struct source_ops. */
#ifndef NM_SOURCE_H
#define NM_SOURCE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "series.h"
#include "sink.h"

struct devlist;
struct napi_table;
struct irq_table;
struct nm_error;
struct source;

/* /proc/stat's intr line as the cpu source last read it: "intr TOTAL n0 n1 ...", the total
 * of each IRQ number over every CPU. The cpu source publishes it into the one the sampler
 * owns; the interrupts source declares that it takes it (source_ops.after = "cpu"), so the
 * sampler samples the cpu source first and hands the line to those two only. The
 * interrupts source can then leave alone the lines of
 * /proc/interrupts whose IRQ's total has not moved, without reading /proc/stat again (on a
 * large host the kernel sums 1,200 IRQs over 144 CPUs to print it). */
/* How long after the cpu source's read the interrupts source still takes its intr line: the
 * two fire one after the other (sampler.c), microseconds apart; later than this, the line is
 * one the interrupts source would not have asked for. */
#define STAT_INTR_FRESH_NS 2000000ull

struct stat_intr {
	const char *line; /* without its '\n'; in the cpu source's buffer, valid while read_ns is
	                     its latest read */
	size_t len;
	uint64_t read_ns; /* the sample time (source.sample_ns) of that read; 0: none */
};

/* Which of a source's series a rule takes (struct source_family, source_ops.keep_except):
 * every condition given must hold; a condition left 0 or NULL takes any series. */
enum source_kind_match {
	SOURCE_ANY_KIND = 0,
	SOURCE_COUNTERS, /* SERIES_COUNTER and SERIES_COUNTER32 */
	SOURCE_GAUGES,   /* SERIES_GAUGE */
};
enum source_label_match {
	SOURCE_ANY_LABEL = 0,
	SOURCE_HAS,    /* the label is set */
	SOURCE_HAS_NO, /* it is not */
};
struct source_match {
	enum source_kind_match kind;
	enum source_label_match cpu, irq, mode; /* the cpu, irq and mode labels */
	const char *const *field; /* fnmatch globs, NULL-terminated: the field label matches one */
	const char *const *type;  /* the same on the type label ("" when the series has none) */
	const char *unit;         /* the series' unit, equal */
	const char *name;         /* a glob on the series' name */
};

/* A Prometheus family a source's series go into (serve/prom.c's family table holds its help
 * and labels): a series goes into the family of the first rule of its source's list it
 * matches; one no rule matches is not exported. */
struct source_family {
	/* "netmetrics_link_bytes" (a counter's without _total); SOURCE_NO_FAMILY: the series the
	 * rule matches are not exported; NULL ends the list */
	const char *family;
	struct source_match match;
	bool optin; /* off unless an export line turns it on, although its family is not */
};
#define SOURCE_NO_FAMILY ""
/* The list of a source none of whose series are exported. */
extern const struct source_family source_not_exported[];

/* Whether the results of a window keep a source's series (seriesblock-collect.c). */
enum source_keep {
	SOURCE_KEEP_UNSET = 0, /* no decision: a test fails (test-sampler) */
	SOURCE_KEPT,           /* kept, but for the series keep_except matches */
	SOURCE_NOT_KEPT,
};

struct source_ops {
	const char *name; /* "interrupts", the [source.NAME] config section */
	/* Its Prometheus families, first match wins, ended by an entry with family NULL;
	 * source_not_exported when none. Never NULL: test-sampler checks every source says. */
	const struct source_family *prom;
	/* Whether results keep its series: never SOURCE_KEEP_UNSET (test-sampler). */
	enum source_keep keep;
	/* With SOURCE_KEPT: the series left out (the per-IRQ cells), or NULL: none. */
	const struct source_match *keep_except;
	const char *description; /* one line for status */
	/* The source whose reading this one takes a part of (the interrupts source: "cpu", its
	 * struct stat_intr), or must be read right after (the bpf source: "softirqs", whose
	 * counts its own compare with), or NULL. The sampler samples that one first in a round,
	 * this one right after it, arms their timers in that order, and gives struct stat_intr
	 * to the sources so paired only (the softirqs and bpf sources ignore it). The
	 * dependency is declared here, by the source that takes: the one that gives does not
	 * know it. */
	const char *after;
	/* An init failing as unsupported (NM_ERR_UNSUPPORTED: the kernel or the build lacks what
	 * it reads) turns the source off, with the reason in status, unless [source.NAME]
	 * enable = yes asks for it (it is then unhealthy and retried, as any other). */
	bool optional;
	/* Take one option from [source.NAME] (keys other than enable/interval). 0 ok; -1 with
	 * err naming key and value. Called before init; also by --check-config. May be NULL. */
	int (*configure)(struct source *src, const char *key, const char *val,
	                 struct nm_error *err);
	/* Allocate private state and open what can be kept open. Failing here marks the source
	 * unhealthy (the sampler retries init later), not fatal. */
	int (*init)(struct source *src, struct nm_error *err);
	/* Read the interface once and report through sink. -1 with err marks the source
	 * unhealthy for this sample; the series keep their last values. */
	int (*sample)(struct source *src, struct sink *sink, struct nm_error *err);
	/* Extra facts for status (may be NULL): new reference. */
	json_object *(*describe)(struct source *src);
	/* Free priv and opts (both may be NULL: after a failed init, or when configure ran
	 * but init never did, as with --check-config). The sampler configures again before
	 * it retries init. */
	void (*free)(struct source *src);
};

struct source {
	const struct source_ops *ops;
	uint8_t index;               /* position in the sampler's table: series_info.source */
	const char *root;            /* root prefix, "/" on the host */
	bool host;                   /* root is "/": netlink and ioctls may be used */
	int rootfd;                  /* O_PATH|O_DIRECTORY fd of root: openat() below it */
	struct series_registry *reg; /* shared registry */
	void *priv;                  /* the source's own state */
	void *opts;                  /* the source's own options (set by configure) */
	/* The device list and counters the ethtool and queues sources share (devlist.h), owned
	 * by the sampler; NULL without a sampler (unit tests): a source then makes its own. */
	struct devlist *devlist;
	/* The intr line the cpu source gives to the sources that name it in .after, owned by the
	 * sampler; NULL for the other sources and without a sampler (unit tests, unless a test
	 * sets it). */
	struct stat_intr *stat_intr;
	/* The IRQ table the interrupts source fills (irqtable.h), owned by the sampler; NULL
	 * without one: the source then keeps its own. */
	struct irq_table *irqtab;
	/* The NAPI table the queues source fills and the interrupts source applies to the IRQ
	 * table (napitable.h), owned by the sampler; NULL without one (the queues source then
	 * keeps its own). */
	struct napi_table *napitab;

	/* set by the sampler */
	bool enabled;
	bool enable_set; /* [source.NAME] enable was given (an optional source then stays on) */
	uint64_t interval_ms;
	bool healthy;
	bool initialised;
	char reason[512]; /* why unhealthy (NM_ERROR_MSG_MAX) */
	uint64_t samples;
	uint64_t failures;
	uint64_t last_cost_ns; /* time the last sample took (monotonic clock) */
	uint64_t last_sample_mono_ns;
	/* Timer lateness: how much later than its interval after the previous one the timer
	 * fired (a loop held up by something else), the last and the largest since start. */
	uint64_t last_fire_ns, late_last_ns, late_max_ns;
	/* Sampler clock time of the sample running now, set before sample() is called: sources
	 * that share a reading (devlist.h) reuse one made a moment before. 0 (a test harness):
	 * always read afresh. */
	uint64_t sample_ns;
	/* Sampler clock time of the round this sample belongs to: the sample time of the first
	 * of the sources sampled back to back with it (the timers of one loop iteration, or
	 * sampler_sample_all), each source once per round. A shared reading (devlist.h) stays
	 * current for the round however long the sources before took. 0: use sample_ns. */
	uint64_t round_ns;
	size_t nseries; /* live series, kept by the sampler */
};

/* Every source the daemon knows, in sampler order. */
extern const struct source_ops source_interrupts_ops;
extern const struct source_ops source_softirqs_ops;
extern const struct source_ops source_cpu_ops;
extern const struct source_ops source_snmp_ops;
extern const struct source_ops source_link_ops;
extern const struct source_ops source_queues_ops;
extern const struct source_ops source_ethtool_ops;
extern const struct source_ops source_softnet_ops;
extern const struct source_ops source_lnstat_ops;
extern const struct source_ops source_sysctl_ops;
extern const struct source_ops source_bpf_ops;
extern const struct source_ops source_qdisc_ops;

/* Helpers every source uses (source.c). */

/* Whether series id of reg matches m. */
bool source_match(const struct source_match *m, const struct series_registry *reg, series_id id);
/* The rule of ops->prom that takes series id of reg, or NULL (not exported: no rule, or a
 * SOURCE_NO_FAMILY rule). */
const struct source_family *source_family_of(const struct source_ops *ops,
                                             const struct series_registry *reg, series_id id);
/* Whether a window's results keep series id of reg (ops->keep and ops->keep_except). */
bool source_keeps(const struct source_ops *ops, const struct series_registry *reg, series_id id);

/* Labels with none set, for a series src is about to create: records src's name as the
 * "source" label of its series (series_registry_name_source). */
struct series_labels source_labels(struct source *src);
/* The atom of s[0..len) in src's registry (series_atom_intern). */
series_atom source_atom(struct source *src, const char *s, size_t len);

/* Read a whole file below the source's root into *buf (grown as needed, never shrunk; the
 * caller keeps buf across samples so steady state allocates nothing). NUL-terminates.
 * Returns bytes read or -1 with errno. path is relative ("proc/interrupts"). */
ssize_t source_read_file(struct source *src, const char *path, char **buf, size_t *cap);
/* Same on a kept fd (pread from 0): the cheap path for files read every sample. A sized fd
 * (source_fd_sized) takes one read when it fits; any other reads until a read returns 0. */
ssize_t source_pread_fd(int fd, bool sized, char **buf, size_t *cap);
/* Whether fd is a regular file that gives its size (a fixture's), so that a read returning
 * less than asked reached its end; /proc files say 0 bytes and are not. */
bool source_fd_sized(int fd);
/* Open path below the root (O_RDONLY|O_CLOEXEC); -1 with errno. */
int source_open(struct source *src, const char *path);

/* A file a source reads whole every sample: kept open, read by turns into two kept buffers so
 * that a sample can compare what it read with the read before. */
struct source_file {
	const char *path; /* below the root, "proc/stat"; a static string or one that outlives f */
	int fd;           /* -1 while closed */
	bool sized;       /* a regular file with a size (a fixture's), not a /proc one: a read
	                     that returns less than asked reached its end */
	char *buf[2];     /* buf[cur] holds the read kept last */
	size_t cap[2];
	size_t len[2]; /* bytes read into each buffer */
	int cur;
	bool have_prev; /* buf[cur] holds a kept read */
};

/* Set f up, closed, for path. */
void source_file_init(struct source_file *f, const char *path);
/* Open f below src's root: 0, or -1 with err "source NAME: PATH: strerror" (unsupported when
 * the file does not exist, failed otherwise). */
int source_file_open(struct source *src, struct source_file *f, struct nm_error *err);
/* Read f whole (opening it first if it is closed) into the buffer not holding the kept read;
 * *buf points at it, NUL-terminated. Returns its length, or -1 with err as source_file_open
 * fills it. Allocates only when the file outgrows the buffer. A sized file takes one read()
 * when it fits; any other takes reads until one returns 0 (/proc gives a page or so a read). */
ssize_t source_file_read(struct source *src, struct source_file *f, const char **buf,
                         struct nm_error *err);
/* The read kept last, its length in *len (when not NULL); NULL before the first. */
const char *source_file_prev(const struct source_file *f, size_t *len);
/* The same, writable: a source that keeps the read it last handled rather than the last read
 * (source-interrupts.c) updates it in place and does not call source_file_keep. */
char *source_file_prev_mut(struct source_file *f, size_t *len);
/* Keep the last read: the next source_file_prev returns it. */
void source_file_keep(struct source_file *f);
/* Close f and free its buffers. */
void source_file_free(struct source_file *f);

#endif
