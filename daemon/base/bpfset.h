/* bpfset.h: the daemon's eBPF program sets (bpf/), loaded and attached by the process that
 * may (the privileged process, or a daemon run as root without the split), and read by the
 * one that samples (the bpf source) through the map fds the first hands to the second.
 *
 * A set is a fixed list of programs and maps built into the daemon (a libbpf skeleton):
 * nothing of what is loaded comes from a request. Set "irq" (bpf/irq.bpf.c) counts softirqs
 * and hard IRQ handler runs, with their time, per CPU. Its fds, in this order: the maps
 * softirq_stats and irq_stats (read-only: BPF_F_RDONLY), then the programs softirq_entry,
 * softirq_exit, irq_handler_entry and irq_handler_exit (for their run time and count).
 * Set "drop" (bpf/drop.bpf.c) counts the packets skb:kfree_skb frees, per drop reason and
 * device. Its fds: the map drop_stats (read-only), then the program kfree_skb. Set "napi"
 * (bpf/napi.bpf.c) counts NAPI polls, their packets and the polls that used their whole
 * budget, per NAPI instance per CPU. Its fds: the map napi_stats, then the program napi_poll.
 *
 * Built without the programs (meson -Dbpf=disabled, or no libbpf, clang, bpftool or BTF on the
 * build machine), every call fails with a reason that says so. */
#ifndef NM_BPFSET_H
#define NM_BPFSET_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drop.h"
#include "irq.h"
#include "napi.h"

struct nm_error;

enum bpfset_id {
	BPFSET_IRQ = 1,  /* softirq and hard IRQ time and counts */
	BPFSET_DROP = 2, /* dropped packets per reason and device */
	BPFSET_NAPI = 3, /* NAPI polls per instance per CPU */
};
#define BPFSET_MAX BPFSET_NAPI /* the highest set number */

#define BPFSET_FDS_MAX    8 /* fds of one set, maps then programs */
#define BPFSET_IRQ_MAPS   2 /* softirq_stats, irq_stats */
#define BPFSET_IRQ_PROGS  4
#define BPFSET_DROP_MAPS  1 /* drop_stats */
#define BPFSET_DROP_PROGS 1
#define BPFSET_NAPI_MAPS  1 /* napi_stats */
#define BPFSET_NAPI_PROGS 1
/* Drop reasons' names kept (enum skb_drop_reason has 131 on 6.18), and a name's room. */
#define BPFSET_REASONS_MAX 512
#define BPFSET_REASON_LEN  48
#define BPFSET_BTF_PATH    "/sys/kernel/btf/vmlinux"

/* A loaded set: its programs attached for as long as it lives. */
struct bpfset;

/* Was the daemon built with the programs? */
bool bpfset_built(void);
/* The set's name ("irq", "drop", "napi"), or NULL for a number that is no set. */
const char *bpfset_name(int set);
/* The names of the set's fds, in fd order (maps, then programs); count in *n. */
const char *const *bpfset_fd_names(int set, size_t *n);
/* Why the programs cannot run here, or NULL when they may: not built, or no kernel BTF
 * (checked below root "/": the running kernel's). Fills why. */
bool bpfset_usable(char *why, size_t size);

/* Load and attach set (needs CAP_BPF and CAP_PERFMON, or root). NULL with err: the reason,
 * EPERM said in words. The caller frees with bpfset_free (which detaches). */
struct bpfset *bpfset_load(int set, struct nm_error *err);
/* The set's fds in fixed order (owned by the set: dup them to keep them). Returns the count. */
size_t bpfset_fds(const struct bpfset *s, int *fds, size_t max);
void bpfset_free(struct bpfset *s);
/* Switch on the kernel's run time and count of every BPF program (BPF_ENABLE_STATS) for as
 * long as the returned fd stays open: no sysctl is written, and the kernel switches them off
 * again when the last such fd closes (a crash included). -1 with err. */
int bpfset_enable_stats(struct nm_error *err);

/* ---- reading (any process that holds the fds; no capability needed on 6.5 and later) ---- */

/* Possible CPUs: the number of values of a per-CPU map's element. */
unsigned bpfset_ncpus(void);
/* softirq_stats' one element: out[cpu] for each possible CPU (out has bpfset_ncpus()
 * entries). 0, or -1 with errno. */
int bpfset_read_softirqs(int fd, struct nm_softirq_cpu *out);
/* irq_stats whole: up to max IRQs, keys[i] and vals[i * ncpus + cpu]. Returns the count, or -1
 * with errno. */
long bpfset_read_irqs(int fd, uint32_t *keys, struct nm_irq_cpu *vals, size_t max);

/* drop_stats whole: up to max keys and their values (vals[i * ncpus + cpu], packets). Returns
 * the count, or -1 with errno. */
long bpfset_read_drops(int fd, struct nm_drop_key *keys, uint64_t *vals, size_t max);
/* napi_stats whole: up to max keys and their values (vals[i * ncpus + cpu]). Returns the
 * count, or -1 with errno. */
long bpfset_read_napis(int fd, struct nm_napi_key *keys, struct nm_napi_cpu *vals, size_t max);
/* The running kernel's drop reasons from its BTF (enum skb_drop_reason in BPFSET_BTF_PATH; the
 * numbering changes between kernels): names[v] is reason v's name without the
 * SKB_DROP_REASON_ prefix ("NO_SOCKET"), "" for a number the enum does not name; names has
 * max entries. Returns the count filled (the highest value + 1, at most max), or -1 with err
 * (not built, no BTF, no such enum). */
long bpfset_drop_reasons(char (*names)[BPFSET_REASON_LEN], size_t max, struct nm_error *err);

/* A program's kernel statistics (BPF_OBJ_GET_INFO_BY_FD). */
struct bpfset_prog_stats {
	uint32_t id;
	char name[16];
	uint64_t run_time_ns; /* 0 while the kernel's BPF stats are off */
	uint64_t run_cnt;
	uint64_t recursion_misses;
};
int bpfset_prog_stats(int fd, struct bpfset_prog_stats *st);

#endif
