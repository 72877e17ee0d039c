/* bpf-empty.c: attach bench/empty.bpf.c's do-nothing programs (the floor of the bpf source's
 * cost, bench-bpf.py --sets empty) with the kernel's BPF stats on and print "ready"; for each
 * line read on stdin print each program's statistics ("NAME RUN_CNT RUN_TIME_NS", one line
 * each) then "end"; on EOF detach and exit. --no-stats: without switching the stats on. Needs root
 * (or CAP_BPF and CAP_PERFMON). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "empty.skel.h"

/* One program's run count and run time from the kernel's statistics. */
static void
print_stats(const char *name, const struct bpf_program *p)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) < 0) {
		printf("%s 0 0\n", name);
		return;
	}
	printf("%s %llu %llu\n", name, (unsigned long long)info.run_cnt,
	       (unsigned long long)info.run_time_ns);
}

int
main(int argc, char **argv)
{
	struct bench_empty *e = bench_empty__open_and_load();
	char buf[64];
	int stats = -1;

	if (e == NULL || bench_empty__attach(e) < 0) {
		fprintf(stderr, "bpf-empty: load or attach: %s\n", strerror(errno));
		return 1;
	}
	/* --no-stats: leave the kernel's BPF stats alone (their two clock reads a run are then
	 * not paid, unless another process holds them on: then run_time still grows). */
	if ((argc < 2 || strcmp(argv[1], "--no-stats") != 0) &&
	    (stats = bpf_enable_stats(BPF_STATS_RUN_TIME)) < 0)
		fprintf(stderr, "bpf-empty: BPF_ENABLE_STATS: %s\n", strerror(errno));
	printf("ready\n");
	fflush(stdout);
	while (fgets(buf, sizeof(buf), stdin) != NULL) {
		print_stats("softirq_entry", e->progs.empty_softirq_entry);
		print_stats("softirq_exit", e->progs.empty_softirq_exit);
		print_stats("irq_handler_entry", e->progs.empty_irq_entry);
		print_stats("irq_handler_exit", e->progs.empty_irq_exit);
		print_stats("kfree_skb", e->progs.empty_kfree_skb);
		print_stats("napi_poll", e->progs.empty_napi_poll);
		printf("end\n");
		fflush(stdout);
	}
	bench_empty__destroy(e);
	if (stats >= 0)
		close(stats);
	return 0;
}
