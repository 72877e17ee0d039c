/* source-bpf-priv.h: the bpf source's private state, shared by its three files and no other:
 * source-bpf.c (softirqs, IRQs, the programs, attaching; the helpers below),
 * source-bpf-drops.c (drops by reason, program set drop) and source-bpf-napi.c (NAPI polls,
 * program set napi). Not installed. */
#ifndef NM_SOURCE_BPF_PRIV_H
#define NM_SOURCE_BPF_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfset.h"
#include "error.h"
#include "series.h"
#include "sink.h"
#include "source-bpf.h"
#include "source.h"

#define BPF_IRQS_START  64 /* IRQ slots read at first; doubled when full */
#define BPF_DROPS_START 64 /* (reason, device) slots read at first; doubled when full */
#define BPF_NAPIS_START 32 /* NAPI slots read at first; doubled when full */

/* One IRQ number's series. */
struct bpf_irq {
	uint32_t irq;
	series_id *count, *time; /* [ncpus] */
};

/* One (reason, device) of the daemon's namespace: its series. */
struct bpf_drop_dev {
	uint32_t reason, ifindex; /* reason slot (nreasons: OTHER, the unnamed ones) */
	series_id id;
	uint64_t sum; /* this sample's: the unnamed reasons share one entry */
};

/* One NAPI instance's series. */
struct bpf_napi {
	struct nm_napi_key key;
	series_id polls, packets, exhausted;
	series_id *cpu_polls; /* [ncpus] */
};

/* An extra program set (drop, napi): its fds, owned as the irq set's are. */
struct bpf_extra {
	int set;
	int fds[BPFSET_FDS_MAX];
	size_t nfds;
	struct bpfset *loaded;      /* loaded here, or NULL */
	bool on;                    /* the fds are there (or the test reader's) */
	char why[NM_ERROR_MSG_MAX]; /* why not, for status */
};

/* What one map read fills: keys[cap] and vals[cap * ncpus], grown (doubled) while a read
 * fills them, up to max keys. */
struct bpf_mapbuf {
	void *keys, *vals;
	size_t ksize, vsize; /* one key's bytes, one CPU's value's bytes */
	size_t cap, max;
};

#define BPF_HOLDERS_MAX 64 /* windows holding the programs on at once */

/* A set's bit in a mask of sets ([source.bpf] sets). */
#define SET_BIT(set)  (1u << (set))
#define BPF_SETS_ALL  (SET_BIT(BPFSET_IRQ) | SET_BIT(BPFSET_DROP) | SET_BIT(BPFSET_NAPI))
#define OFF_BY_CONFIG "off by config ([source.bpf] sets)"

struct bpf_priv {
	struct source_bpf_reader rd; /* the one in use */
	/* The fds of the set: owned (closed at free) when handed over; the loaded set's own
	 * when loaded here. */
	int fds[BPFSET_FDS_MAX];
	size_t nfds;
	bool own_fds;
	struct bpfset *set; /* loaded here, or NULL */
	int stats_fd;       /* BPF_ENABLE_STATS fd when loaded here, else -1 */
	bool attached;      /* the fds are there (or the test reader) */
	bool on_demand;     /* attached only while a holder asks (source_bpf_hold) */
	char *holders[BPF_HOLDERS_MAX];
	size_t nholders;
	const char *via; /* "privileged process", "loaded here", "test reader", "waiting" */
	unsigned sets;   /* the sets to run ([source.bpf] sets, SET_BIT): the others stay out */
	bool irq_on;     /* set irq's fds are there (or the test reader's) */
	bool stats_off;  /* [source.bpf] stats = off: the kernel's BPF stats not switched on */
	char irq_why[NM_ERROR_MSG_MAX]; /* why not, for status */
	unsigned ncpus;
	char names[NM_NR_SOFTIRQS][SOURCE_BPF_NAME_MAX];
	size_t nnames;
	struct nm_softirq_cpu *sbuf; /* [ncpus] */
	series_id *s_count, *s_time; /* [nnames * ncpus] */
	struct bpf_mapbuf ibuf;      /* irq_stats: uint32_t keys, struct nm_irq_cpu values */
	struct bpf_irq *irqs;        /* sorted by irq */
	size_t nirqs, irqcap;
	series_id prog_time[BPFSET_IRQ_PROGS], prog_runs[BPFSET_IRQ_PROGS];
	struct bpfset_prog_stats progs[BPFSET_IRQ_PROGS];
	bool have_progs;
	size_t irqs_read; /* in the last sample */

	/* Set drop (source-bpf-drops.c): its fds (drop_stats, kfree_skb), owned as the irq
	 * set's are. */
	int dfds[BPFSET_FDS_MAX];
	size_t ndfds;
	struct bpfset *dset;               /* loaded here, or NULL */
	bool drops_on;                     /* the drop fds are there (or the test reader's) */
	char drops_why[NM_ERROR_MSG_MAX];  /* why not, for status */
	char (*rnames)[BPFSET_REASON_LEN]; /* [nreasons + 1]: the last is OTHER */
	size_t nreasons;
	series_id *r_id;           /* [nreasons + 1] */
	uint64_t *r_sum;           /* [nreasons + 1], this sample's */
	uint32_t netns;            /* the daemon's network namespace (inode) */
	struct bpf_mapbuf dbuf;    /* drop_stats: struct nm_drop_key keys, uint64_t values */
	struct bpf_drop_dev *ddev; /* sorted by (reason, ifindex) */
	size_t nddev, ddevcap;
	series_id dprog_time, dprog_runs;
	struct bpfset_prog_stats dprog;
	bool have_dprog;
	size_t drops_read; /* keys in the last sample */

	/* Set napi (source-bpf-napi.c). */
	struct bpf_extra nset;
	struct bpf_mapbuf nbuf; /* napi_stats: struct nm_napi_key, struct nm_napi_cpu */
	struct bpf_napi *napis; /* sorted by key */
	size_t nnapis, napicap;
	series_id nprog_time, nprog_runs;
	struct bpfset_prog_stats nprog;
	bool have_nprog;
};

/* The helpers the three parts share (source-bpf.c). */

/* Set b up for keys of ksize bytes and per-CPU values of vsize bytes: cap keys at first, at
 * most max. */
void source_bpf_mapbuf_init(struct bpf_mapbuf *b, const struct bpf_priv *pv, size_t ksize,
                            size_t vsize, size_t cap, size_t max);
void source_bpf_mapbuf_free(struct bpf_mapbuf *b);

/* Read a whole map into b with read (a reader's function, called with pv->rd.arg), growing b
 * while a read fills it (allocates only then). The count of keys, or -1 with err naming
 * map. */
long source_bpf_read_map(struct bpf_priv *pv, struct bpf_mapbuf *b,
                         long (*read)(const struct bpf_priv *pv, void *keys, void *vals,
                                      size_t max),
                         const char *map, struct nm_error *err);

/* Where key goes in the sorted array v of n entries of size bytes, each starting with its key
 * (cmp compares an entry with a key); *found says whether it is there already. */
size_t source_bpf_find(const void *v, size_t n, size_t size, const void *key,
                       int (*cmp)(const void *entry, const void *key), bool *found);

/* Make room for one entry at index at of the array v (n entries of size bytes, room for
 * *cap), growing it; the new entry is zeroed. Returns the array (v, or where it moved). */
void *source_bpf_insert(void *v, size_t *n, size_t *cap, size_t size, size_t at);

/* Put program prog's run time and count from st: series bpf.prog.PROG.run_time and .runs,
 * interned into *time and *runs at the first call. */
void source_bpf_put_prog(struct source *src, struct sink *sink, const char *prog, series_id *time,
                         series_id *runs, const struct bpfset_prog_stats *st);

/* A device's name from its ifindex in the daemon's namespace: the reader's, or the kernel's
 * (if_indextoname: an ioctl, no capability); "if<N>" for one gone meanwhile. */
void source_bpf_ifname(struct bpf_priv *pv, uint32_t ifindex, char *buf, size_t size);

/* Drops by reason (source-bpf-drops.c). */

/* Read the drop set through the fds in pv (the kernel's maps). */
void source_bpf_drops_use_fds(struct source_bpf_reader *rd);
/* The drop reasons' names (the reader's, or the kernel's BTF) and the state for them; the
 * reason for none in drops_why. */
void source_bpf_drops_init(struct bpf_priv *pv);
/* Get set drop's fds, as set irq's; a failure is kept for status, not returned: the softirq
 * and IRQ series go on without. */
void source_bpf_drops_acquire(struct bpf_priv *pv);
/* Every reason that dropped, in all, and on each device of the daemon's namespace; the
 * program's own cost. 0 or -1 with err. */
int source_bpf_drops_put(struct source *src, struct bpf_priv *pv, struct sink *sink,
                         struct nm_error *err);
/* Free the drops' state (not the fds). */
void source_bpf_drops_free(struct bpf_priv *pv);

/* NAPI polls (source-bpf-napi.c). */

/* Read the napi set through the fds in pv (the kernel's maps). */
void source_bpf_napi_use_fds(struct source_bpf_reader *rd);
/* The state for the NAPI instances; on with a test reader that reads them. */
void source_bpf_napi_init(struct bpf_priv *pv, bool test_reader);
/* Every NAPI instance that polled; the program's cost. 0 or -1 with err. */
int source_bpf_napi_put(struct source *src, struct bpf_priv *pv, struct sink *sink,
                        struct nm_error *err);
/* Free the NAPI state (not the fds). */
void source_bpf_napi_free(struct bpf_priv *pv);

#endif
