/* source-bpf.h: what the bpf source (source-bpf.c) shows to its tests: the softirq names'
 * join and a reader that stands in for the kernel's maps (those of sets irq, drop and napi). */
#ifndef NM_SOURCE_BPF_H
#define NM_SOURCE_BPF_H

#include <stddef.h>
#include <stdint.h>

#include "bpfset.h"

struct source;

#define SOURCE_BPF_NAME_MAX 32

/* The softirq types of /proc/softirqs in [buf, buf + len), in row order: the kernel prints
 * softirq_to_name[vec] for vec 0, 1, ..., so row k is the type the programs count at index
 * k. Up to max names into names (longer ones cut: a row whose name does not fit ends the
 * list). Returns the count; 0 for a file with no CPU header or no rows. */
size_t source_bpf_softirq_names(const char *buf, size_t len, char (*names)[SOURCE_BPF_NAME_MAX],
                                size_t max);

/* Where the source reads its counts: the maps of set irq by default; a test's stand-in. */
struct source_bpf_reader {
	unsigned ncpus; /* possible CPUs: values per map element */
	/* softirq_stats' element for each CPU into out[ncpus]. 0 or -1 with errno. */
	int (*read_softirqs)(void *arg, struct nm_softirq_cpu *out);
	/* irq_stats: up to max keys and their values (vals[i * ncpus + cpu]); count or -1. */
	long (*read_irqs)(void *arg, uint32_t *keys, struct nm_irq_cpu *vals, size_t max);
	/* Program i's (0 .. BPFSET_IRQ_PROGS-1) statistics. 0 or -1 with errno. */
	int (*prog_stats)(void *arg, size_t i, struct bpfset_prog_stats *st);
	void *arg;
	/* The drop set (optional: NULL read_drops, no drops). drop_stats: up to max keys and
	 * their values (vals[i * ncpus + cpu]); count or -1. */
	long (*read_drops)(void *arg, struct nm_drop_key *keys, uint64_t *vals, size_t max);
	/* Program kfree_skb's statistics. 0 or -1 with errno. */
	int (*drop_prog_stats)(void *arg, struct bpfset_prog_stats *st);
	/* The reasons' names (reasons[v] for reason v, "" unnamed), or NULL: the kernel's BTF. */
	const char (*reasons)[BPFSET_REASON_LEN];
	size_t nreasons;
	/* The network namespace (inode) whose devices get series of their own, 0: the daemon's;
	 * a device's name from its ifindex (NULL: if_indextoname). */
	uint32_t netns;
	int (*ifname)(void *arg, uint32_t ifindex, char *buf, size_t size);
	/* The napi set (optional: NULL read_napis, no NAPI series): napi_stats, as read_drops;
	 * program napi_poll's statistics. */
	long (*read_napis)(void *arg, struct nm_napi_key *keys, struct nm_napi_cpu *vals,
	                   size_t max);
	int (*napi_prog_stats)(void *arg, struct bpfset_prog_stats *st);
};

/* Make src read through r (which must outlive it) instead of loading the programs; before
 * init. The source then works on any root. */
void source_bpf_use_reader(struct source *src, const struct source_bpf_reader *r);

/* Programs for a window only. With [source.bpf] attach = on-demand the programs are off
 * until a holder (a window's name: mark start --bpf, test start --bpf) asks for them:
 * source_bpf_hold loads and attaches every set (through the privileged process) when none
 * is, and the last source_bpf_release detaches them again. With attach = always they are on
 * anyway and the calls only count holders. Holding twice under one name is holding once;
 * releasing a name that holds nothing does nothing. hold: 1 held now, 0 held already, or -1
 * with err (the source is off, or the programs could not be loaded: the reason). */
int source_bpf_hold(struct source *src, const char *holder, struct nm_error *err);
void source_bpf_release(struct source *src, const char *holder);
bool source_bpf_on_demand(const struct source *src);

#endif
