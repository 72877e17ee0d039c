/* bpfset.c: the eBPF program sets (bpfset.h): load and attach through the libbpf skeletons
 * of bpf/, the kernel's BPF stats, and the reads of the maps and programs. Without the
 * programs built (NM_HAVE_BPF unset) the loading calls fail with the reason and the reading
 * ones with ENOTSUP. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfset.h"
#include "error.h"
#include "log.h"
#include "xmalloc.h"

#ifdef NM_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <bpf/btf.h>

#include "drop.skel.h"
#include "irq.skel.h"
#include "napi.skel.h"
#endif

static const char *const irq_fd_names[] = {
    "softirq_stats", "irq_stats",         "softirq_entry",
    "softirq_exit",  "irq_handler_entry", "irq_handler_exit",
};
_Static_assert(sizeof(irq_fd_names) / sizeof(irq_fd_names[0]) == BPFSET_IRQ_MAPS + BPFSET_IRQ_PROGS,
               "a name for each fd of set irq");

static const char *const drop_fd_names[] = {"drop_stats", "kfree_skb"};
_Static_assert(sizeof(drop_fd_names) / sizeof(drop_fd_names[0]) ==
                   BPFSET_DROP_MAPS + BPFSET_DROP_PROGS,
               "a name for each fd of set drop");

static const char *const napi_fd_names[] = {"napi_stats", "napi_poll"};
_Static_assert(sizeof(napi_fd_names) / sizeof(napi_fd_names[0]) ==
                   BPFSET_NAPI_MAPS + BPFSET_NAPI_PROGS,
               "a name for each fd of set napi");

struct bpfset {
	int set;
	int fds[BPFSET_FDS_MAX];
	size_t nfds;
#ifdef NM_HAVE_BPF
	struct nm_irq *irq;
	struct nm_drop *drop;
	struct nm_napi *napi;
#endif
};

bool
bpfset_built(void)
{
#ifdef NM_HAVE_BPF
	return true;
#else
	return false;
#endif
}

const char *
bpfset_name(int set)
{
	switch (set) {
	case BPFSET_IRQ:
		return "irq";
	case BPFSET_DROP:
		return "drop";
	case BPFSET_NAPI:
		return "napi";
	}
	return NULL;
}

const char *const *
bpfset_fd_names(int set, size_t *n)
{
	*n = 0;
	if (set == BPFSET_DROP) {
		*n = sizeof(drop_fd_names) / sizeof(drop_fd_names[0]);
		return drop_fd_names;
	}
	if (set == BPFSET_NAPI) {
		*n = sizeof(napi_fd_names) / sizeof(napi_fd_names[0]);
		return napi_fd_names;
	}
	if (set != BPFSET_IRQ)
		return NULL;
	*n = sizeof(irq_fd_names) / sizeof(irq_fd_names[0]);
	return irq_fd_names;
}

bool
bpfset_usable(char *why, size_t size)
{
	if (!bpfset_built()) {
		snprintf(why, size,
		         "built without the eBPF programs (meson -Dbpf: libbpf, clang, bpftool "
		         "and the build machine's BTF)");
		return false;
	}
	if (access(BPFSET_BTF_PATH, R_OK) < 0) {
		snprintf(why, size, "the kernel has no BTF (%s: %s): the programs need it",
		         BPFSET_BTF_PATH, strerror(errno));
		return false;
	}
	return true;
}

#ifdef NM_HAVE_BPF

/* libbpf's words: debug lines to the debug log, warnings kept for the next error. */
static char last_warning[256];

static int
libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	vsnprintf(line, sizeof(line), fmt, ap);
	if (strncmp(line, "libbpf: ", 8) == 0)
		memmove(line, line + 8, strlen(line + 8) + 1);
	n = strlen(line);
	while (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	if (level == LIBBPF_WARN)
		snprintf(last_warning, sizeof(last_warning), "%s", line);
	log_debug("libbpf: %s", line);
	return 0;
}

/* Fill err for a failed step: errno in words, EPERM explained, libbpf's last warning. */
static int
load_error(struct nm_error *err, const char *step, int e)
{
	if (e == EPERM || e == EACCES)
		return nm_error_set(err, NM_ERR_FAILED,
		                    "bpf: %s: %s (loading BPF programs needs root, or CAP_BPF and "
		                    "CAP_PERFMON, and bpf() let through by any system call filter)",
		                    step, strerror(e));
	return nm_error_set(err, NM_ERR_FAILED, "bpf: %s: %s%s%s", step, strerror(e),
	                    last_warning[0] ? "; libbpf: " : "", last_warning);
}

/* Set irq: open, load, attach, and its fds in order. 0 or -1 with err. */
static int
load_irq(struct bpfset *s, struct nm_error *err)
{
	int e;

	if ((s->irq = nm_irq__open_and_load()) == NULL)
		return load_error(err, "load set irq", errno);
	if (nm_irq__attach(s->irq) < 0) {
		e = errno;
		nm_irq__destroy(s->irq);
		s->irq = NULL;
		return load_error(err, "attach set irq", e);
	}
	s->fds[s->nfds++] = bpf_map__fd(s->irq->maps.softirq_stats);
	s->fds[s->nfds++] = bpf_map__fd(s->irq->maps.irq_stats);
	s->fds[s->nfds++] = bpf_program__fd(s->irq->progs.nm_softirq_entry);
	s->fds[s->nfds++] = bpf_program__fd(s->irq->progs.nm_softirq_exit);
	s->fds[s->nfds++] = bpf_program__fd(s->irq->progs.nm_irq_entry);
	s->fds[s->nfds++] = bpf_program__fd(s->irq->progs.nm_irq_exit);
	return 0;
}

/* Set drop: the same. */
static int
load_drop(struct bpfset *s, struct nm_error *err)
{
	int e;

	if ((s->drop = nm_drop__open_and_load()) == NULL)
		return load_error(err, "load set drop", errno);
	if (nm_drop__attach(s->drop) < 0) {
		e = errno;
		nm_drop__destroy(s->drop);
		s->drop = NULL;
		return load_error(err, "attach set drop", e);
	}
	s->fds[s->nfds++] = bpf_map__fd(s->drop->maps.drop_stats);
	s->fds[s->nfds++] = bpf_program__fd(s->drop->progs.nm_kfree_skb);
	return 0;
}

/* Set napi: the same. */
static int
load_napi(struct bpfset *s, struct nm_error *err)
{
	int e;

	if ((s->napi = nm_napi__open_and_load()) == NULL)
		return load_error(err, "load set napi", errno);
	if (nm_napi__attach(s->napi) < 0) {
		e = errno;
		nm_napi__destroy(s->napi);
		s->napi = NULL;
		return load_error(err, "attach set napi", e);
	}
	s->fds[s->nfds++] = bpf_map__fd(s->napi->maps.napi_stats);
	s->fds[s->nfds++] = bpf_program__fd(s->napi->progs.nm_napi_poll);
	return 0;
}

struct bpfset *
bpfset_load(int set, struct nm_error *err)
{
	struct bpfset *s;
	int r;
	char why[256];

	if (bpfset_name(set) == NULL) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "bpf: no program set %d", set);
		return NULL;
	}
	if (!bpfset_usable(why, sizeof(why))) {
		nm_error_set(err, NM_ERR_UNSUPPORTED, "bpf: %s", why);
		return NULL;
	}
	libbpf_set_print(libbpf_print);
	last_warning[0] = '\0';
	s = xcalloc(1, sizeof(*s));
	s->set = set;
	r = set == BPFSET_IRQ    ? load_irq(s, err)
	    : set == BPFSET_DROP ? load_drop(s, err)
	                         : load_napi(s, err);
	if (r < 0) {
		free(s);
		return NULL;
	}
	return s;
}

void
bpfset_free(struct bpfset *s)
{
	if (s == NULL)
		return;
	if (s->irq != NULL)
		nm_irq__destroy(s->irq);
	if (s->drop != NULL)
		nm_drop__destroy(s->drop);
	if (s->napi != NULL)
		nm_napi__destroy(s->napi);
	free(s);
}

int
bpfset_enable_stats(struct nm_error *err)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (fd < 0)
		return load_error(err, "BPF_ENABLE_STATS", errno);
	return fd;
}

unsigned
bpfset_ncpus(void)
{
	static int n;

	if (n <= 0)
		n = libbpf_num_possible_cpus();
	return n > 0 ? (unsigned)n : 1;
}

int
bpfset_read_softirqs(int fd, struct nm_softirq_cpu *out)
{
	uint32_t zero = 0;

	return bpf_map_lookup_elem(fd, &zero, out) < 0 ? -1 : 0;
}

/* A whole per-CPU hash in batches of whole buckets (BPF_MAP_LOOKUP_BATCH): up to max keys of
 * ksize bytes into keys, their values (vsize bytes per CPU) into vals[i * ncpus + cpu];
 * ENOENT says the last batch came. The count, or -1 with errno. */
static long
read_batch(int fd, void *keys, void *vals, size_t ksize, size_t vsize, size_t max)
{
	unsigned ncpus = bpfset_ncpus();
	/* The batch cursor: a bucket index (u32) for a hash, a key for the generic batch code of
	 * other maps: room for either. */
	uint64_t in[4], out[4];
	bool first = true;
	size_t total = 0;

	if (ksize > sizeof(in)) {
		errno = EINVAL;
		return -1;
	}
	while (total < max) {
		uint32_t count = (uint32_t)(max - total);
		int r =
		    bpf_map_lookup_batch(fd, first ? NULL : in, out, (char *)keys + total * ksize,
		                         (char *)vals + total * ncpus * vsize, &count, NULL);

		if (r < 0 && errno != ENOENT)
			return -1;
		total += count;
		if (r < 0)
			break;
		memcpy(in, out, sizeof(in));
		first = false;
	}
	return (long)total;
}

long
bpfset_read_irqs(int fd, uint32_t *keys, struct nm_irq_cpu *vals, size_t max)
{
	return read_batch(fd, keys, vals, sizeof(*keys), sizeof(*vals), max);
}

long
bpfset_read_drops(int fd, struct nm_drop_key *keys, uint64_t *vals, size_t max)
{
	return read_batch(fd, keys, vals, sizeof(*keys), sizeof(*vals), max);
}

long
bpfset_read_napis(int fd, struct nm_napi_key *keys, struct nm_napi_cpu *vals, size_t max)
{
	return read_batch(fd, keys, vals, sizeof(*keys), sizeof(*vals), max);
}

long
bpfset_drop_reasons(char (*names)[BPFSET_REASON_LEN], size_t max, struct nm_error *err)
{
	static const char prefix[] = "SKB_DROP_REASON_";
	struct btf *btf = btf__parse(BPFSET_BTF_PATH, NULL);
	const struct btf_type *t;
	const struct btf_enum *e;
	size_t n = 0;
	int id;

	if (btf == NULL)
		return nm_error_set(err, NM_ERR_UNSUPPORTED, "bpf: read %s: %s", BPFSET_BTF_PATH,
		                    strerror(errno));
	if ((id = btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM)) < 0) {
		btf__free(btf);
		return nm_error_set(err, NM_ERR_UNSUPPORTED,
		                    "bpf: the kernel's BTF has no enum skb_drop_reason (before "
		                    "Linux 5.17: no drop reasons)");
	}
	for (size_t i = 0; i < max; i++)
		names[i][0] = '\0';
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++, e++) {
		const char *name = btf__name_by_offset(btf, e->name_off);
		uint32_t v = (uint32_t)e->val;

		if (name == NULL || v >= max)
			continue; /* SKB_DROP_REASON_MAX and subsystem ranges are above */
		if (strncmp(name, prefix, sizeof(prefix) - 1) == 0)
			name += sizeof(prefix) - 1;
		snprintf(names[v], BPFSET_REASON_LEN, "%s", name);
		if (v + 1 > n)
			n = v + 1;
	}
	btf__free(btf);
	return (long)n;
}

int
bpfset_prog_stats(int fd, struct bpfset_prog_stats *st)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		return -1;
	st->id = info.id;
	snprintf(st->name, sizeof(st->name), "%s", info.name);
	st->run_time_ns = info.run_time_ns;
	st->run_cnt = info.run_cnt;
	st->recursion_misses = info.recursion_misses;
	return 0;
}

#else /* !NM_HAVE_BPF */

struct bpfset *
bpfset_load(int set, struct nm_error *err)
{
	char why[256];

	(void)set;
	bpfset_usable(why, sizeof(why));
	nm_error_set(err, NM_ERR_UNSUPPORTED, "bpf: %s", why);
	return NULL;
}

void
bpfset_free(struct bpfset *s)
{
	free(s);
}

int
bpfset_enable_stats(struct nm_error *err)
{
	return nm_error_set(err, NM_ERR_UNSUPPORTED, "bpf: built without the eBPF programs");
}

unsigned
bpfset_ncpus(void)
{
	return 1;
}

int
bpfset_read_softirqs(int fd, struct nm_softirq_cpu *out)
{
	(void)fd;
	(void)out;
	errno = ENOTSUP;
	return -1;
}

long
bpfset_read_irqs(int fd, uint32_t *keys, struct nm_irq_cpu *vals, size_t max)
{
	(void)fd;
	(void)keys;
	(void)vals;
	(void)max;
	errno = ENOTSUP;
	return -1;
}

long
bpfset_read_drops(int fd, struct nm_drop_key *keys, uint64_t *vals, size_t max)
{
	(void)fd;
	(void)keys;
	(void)vals;
	(void)max;
	errno = ENOTSUP;
	return -1;
}

long
bpfset_read_napis(int fd, struct nm_napi_key *keys, struct nm_napi_cpu *vals, size_t max)
{
	(void)fd;
	(void)keys;
	(void)vals;
	(void)max;
	errno = ENOTSUP;
	return -1;
}

long
bpfset_drop_reasons(char (*names)[BPFSET_REASON_LEN], size_t max, struct nm_error *err)
{
	(void)names;
	(void)max;
	return nm_error_set(err, NM_ERR_UNSUPPORTED, "bpf: built without the eBPF programs");
}

int
bpfset_prog_stats(int fd, struct bpfset_prog_stats *st)
{
	(void)fd;
	(void)st;
	errno = ENOTSUP;
	return -1;
}

#endif

size_t
bpfset_fds(const struct bpfset *s, int *fds, size_t max)
{
	size_t n = s->nfds < max ? s->nfds : max;

	memcpy(fds, s->fds, n * sizeof(*fds));
	return n;
}
