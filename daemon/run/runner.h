/* runner.h: benchmark tests the daemon runs: it starts the processes (no shell), measures
 * the steady state in a window (from the end of the warm-up to the start of the cool-down),
 * and stores the benchmark's own figures with the window's report once every process has
 * exited. A driver (driver-<name>.c) knows one benchmark: its argv, its output, its
 * figures. A failed test (missing binary, bad arguments, crash, non-zero exit) still keeps
 * its window, with the reason. */
#ifndef NM_RUNNER_H
#define NM_RUNNER_H

#include <json-c/json.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpulist.h"

#define RUNNER_PROFILE_MAX 512 /* a test's profile: a name, or a file by absolute path */
struct clientfd;

struct daemon;
struct nm_error;
struct child;
struct children;
struct runner;
struct test;
struct testseries;

#define TEST_PROCS_MAX    1024
#define TEST_FIGURES_MAX  16
#define TEST_ARGV_MAX     256
#define TEST_KEEP_MAX     32 /* finished tests kept in memory for test status */
#define TEST_DURATION_MAX 86400.0

/* A figure lifted from an exec test's output: the last match of re; its first group (or
 * the whole match) is the number. */
struct test_figure_rx {
	char name[64];
	char pattern[512];
	regex_t re;
};

/* Who started a test: the client's SO_PEERCRED. Its processes run as uid with gid and
 * uid's supplementary groups (getgrouplist), unless the driver is privileged. */
struct test_cred {
	bool set; /* runner_start refuses a spec without (its caller must say who) */
	uid_t uid;
	gid_t gid;
	/* A copy of the client's socket: passed with each spawn, the privileged process checks
	 * uid and gid against it (privsep.h). The spec holds a reference (runner_spec_free
	 * drops it); NULL: none (the spawn is refused under privilege separation). */
	struct clientfd *peer;
};

/* What a test runs: checked and completed by runner_spec_parse and the driver's check. */
struct test_spec {
	char name[201];
	const struct driver *driver;
	char type[24]; /* TCP_STREAM, TCP_RR, ... as the driver takes them */
	char host[256];
	char port[8]; /* "": the benchmark's default */
	char netns[64];
	unsigned procs;
	double duration_s; /* 0: exec without a duration (runs until it exits) */
	unsigned size;     /* bytes per send (streams) or per request/response (RR) */
	unsigned rcvbuf;   /* netperf: the receiving end's socket buffer, bytes; 0: default */
	double warmup_s, cooldown_s;
	struct cpuset local_cpus, remote_cpus; /* empty: no pinning */
	char profile[RUNNER_PROFILE_MAX];      /* a name or an absolute path; "": none */
	json_object *profile_vars;             /* ${NAME} values for the profile (suites); owned */
	char **argv;   /* exec: the command; netperf: test options passed through; NULL-terminated,
	                * owned */
	bool cpu_util; /* netperf: its own CPU figures (-c -C) in the figures */
	bool replace;  /* a kept window or stored result of the name goes when its window opens */
	bool bpf;      /* the eBPF programs held on for the window (source_bpf_hold) */
	struct test_figure_rx *figures; /* exec: figures to lift; owned */
	size_t nfigures;
	char suite[201]; /* the suite the test belongs to, "" when none */
	/* The packet generator's (drivers with packet_args; see driver-pktgen.c). The
	 * driver fills what was left out ("" or 0) with what it resolved or defaults to. */
	char dev[16];                  /* the egress device */
	char dst_min[16], dst_max[16]; /* IPv4 destination range */
	char dst_mac[18];              /* the next hop's MAC */
	char src[16];                  /* source IPv4 */
	char src_mac[18];              /* the device's MAC (filled by the driver) */
	unsigned flows, flowlen, clone_skb, threads;
	uint64_t delay_ns; /* gap between packets per thread; 0: none */
	uint64_t count;    /* packets in total; 0: until the duration ends */
	double rate_pps;   /* packets/s in total; 0: unpaced */
	char generator[8]; /* what the driver runs: "pktgen" or "trafgen" */
	char trend[257];   /* the series the report's trend analyses, "" for the busiest link */
	/* The report's trend: trend's threshold, recover, sustain, plateau and step as given
	 * (trend_threshold...), named as trend takes them; owned, NULL when none was. */
	json_object *trend_args;
	json_object *peers;   /* peers the window opens and closes on too; owned, NULL: none */
	char server_peer[33]; /* the peer running the benchmark's server for this test, "" */
	/* The peer whose daemon runs the packet generator (peer-generator.h), "": this host.
	 * Named in peers too; generator_started once its test runs there. */
	char generator_on[33];
	bool generator_started;
	struct test_cred cred; /* set by the caller after runner_spec_parse */
	bool resolved;         /* the driver's resolve has run (runner_resolve) */
};

enum test_state {
	TEST_STARTING = 0,
	TEST_WARMUP,
	TEST_MEASURING,
	TEST_COOLDOWN,
	TEST_FINISHING, /* the span is measured; waiting for the processes to exit */
	TEST_PASSED,
	TEST_FAILED,
	TEST_STOPPED,    /* test stop */
	TEST_INCOMPLETE, /* the daemon stopped */
};

/* One process of a test. */
struct test_proc {
	struct test *test;
	unsigned index;
	struct child *sp;          /* NULL once freed */
	char **argv;               /* owned */
	int local_cpu, remote_cpu; /* -1: not pinned */
	void *priv;                /* the driver's per-process state (driver->priv_size) */
	bool finished;
	char ended[96];       /* how it ended, in words */
	char last_words[256]; /* stderr's last line */
	int exit_status;      /* -1: killed by a signal */
	int exit_signal;
	double stopped_at_s; /* elapsed when it finished */
};

struct test {
	struct runner *runner;
	struct test_spec spec;
	enum test_state state;
	char program[4096]; /* the resolved benchmark binary */
	struct test_proc *procs;
	size_t nprocs, nfinished;
	uint64_t start_mono_ns, start_real_ns, end_mono_ns;
	bool window_open, window_frozen, window_stored;
	bool storing; /* finished; its result on the writer thread (test status: "storing") */
	bool profile_applied;
	bool stopping;      /* the runner is ending it: exits are expected */
	bool never_started; /* no process ran (binary missing, exec failed) */
	enum test_state stop_as;
	char reason[512]; /* why it failed or stopped */
	struct event *ev_warmup, *ev_cooldown, *ev_deadline, *ev_kill;
	json_object *summary; /* once finished: its test object as stored; owned */
	void *drv;            /* the driver's state for the test (setup, teardown) */
	bool duration_over;   /* the runner ended an until_stopped benchmark at its duration */
	struct event *ev_end; /* the end of the duration (until_stopped drivers) */
	bool concluding;      /* its driver's teardown runs; finish() follows */
	/* Told once a test that was starting has started or failed to (runner_on_started). */
	void (*on_started)(struct test *t, void *arg);
	void *started_arg;
	bool has_cgroup; /* its processes are in cgroup test-<cgroup_id> (cgroup.c) */
	unsigned cgroup_id;
	/* What bounds its processes' number: "cgroup" (pids.max of its group), "rlimit"
	 * (RLIMIT_NPROC of the client's uid), "none"; pids_max the limit (0: none). */
	const char *pids_by;
	unsigned pids_max;
	/* The generator on a peer (spec.generator_on), followed until its test ends there;
	 * gen_summary is that test's object once it has ended, gen_why why it was lost. */
	struct peergen *gen;
	json_object *gen_summary;
	char gen_why[512];
	/* Told when the test has finished and its result is stored (suites). */
	void (*on_finish)(struct test *t, void *arg);
	void *finish_arg;
	/* Its live figures over time (runner_live_figure), handed to its window when it is
	 * stored (window_test_series); NULL: none reported. */
	struct testseries *live_series;
	/* The benchmark's version, asked of its binary (driver.version_args) beside its
	 * processes, for the result's manifest: the first line it printed. */
	struct child *version_sp;
	char version[256];
};

/* The end of a driver's asynchronous step (resolve, setup, teardown): rc 0, or -1 with
 * err. It may be called before the step's function returns (nothing to run). */
typedef void (*driver_done_fn)(void *arg, int rc, const struct nm_error *err);

/* A benchmark the runner can drive. */
struct driver {
	const char *name;    /* "netperf" */
	const char *program; /* the binary looked up in PATH; NULL: argv[0] (exec) */
	size_t priv_size;    /* per-process state the runner allocates (zeroed) */
	bool packet_args;    /* fills the packet generator's fields of the spec (dev, dst_min...) */
	/* The test-start arguments only some drivers take that this one takes ("rcvbuf",
	 * "cpu_util", the packet generator's "dev", ...), NULL-terminated; NULL: none. A driver
	 * given one it does not list is refused (runner-spec.c): "argument \"rcvbuf\" is for
	 * --driver netperf". */
	const char *const *args;
	/* The benchmark's server a peer runs for it, NULL-terminated ("netserver", "-D"): started
	 * on the first --peer as an exec test TEST.server (peer-test.c); NULL: none. */
	const char *const *server_argv;
	/* Runs as the daemon (root), not as the client: it drives the kernel itself (pktgen).
	 * Only admins start tests. */
	bool privileged;
	/* Runs until signalled: at the end of the duration the runner sends SIGTERM, and an
	 * exit then (status 0, or killed by that SIGTERM) is the normal end. */
	bool until_stopped;
	/* The arguments that make the program print its version ("-V"), NULL-terminated; the
	 * runner runs it beside the test's processes and keeps its first line in the result's
	 * manifest (benchmark.version). NULL: none asked. */
	const char *const *version_args;
	/* The binary when it depends on the spec (NULL: program). */
	const char *(*program_of)(const struct test_spec *spec);
	/* Before the processes start: prepare what they need (files, qdiscs) and keep it in
	 * t->drv; then done (an error fails the test at start). Tools run through
	 * runner_children, never waited for. May be NULL. */
	void (*setup)(struct test *t, driver_done_fn done, void *arg);
	/* Once every process has exited (also after a failed start): undo setup, free t->drv,
	 * then done (errors are only logged). With done NULL (shutdown, out of time), only
	 * free. May be NULL. */
	void (*teardown)(struct test *t, driver_done_fn done, void *arg);
	/* Check the spec and fill the driver's defaults, without running anything. 0, or -1
	 * with err. */
	int (*check)(struct test_spec *spec, struct nm_error *err);
	/* What the spec needs that only tools tell (pktgen: the device's addresses, the next
	 * hop, the qdisc), run through cs without waiting: fill spec, then done (an error is
	 * bad arguments). spec stays valid until done. May be NULL. */
	void (*resolve)(struct children *cs, struct test_spec *spec, driver_done_fn done,
	                void *arg);
	/* The number of processes. */
	unsigned (*nprocs)(const struct test_spec *spec);
	/* The argv of process p (p->index, p->local_cpu, p->remote_cpu set), NULL-terminated
	 * and owned by the caller; program is the resolved binary. */
	char **(*argv)(const struct test_spec *spec, const char *program,
	               const struct test_proc *p);
	/* Set up p->priv (zeroed memory) before the process starts; may be NULL. */
	void (*proc_init)(struct test_proc *p);
	/* A line of a process's stdout as it arrives; may be NULL. */
	void (*on_line)(struct test_proc *p, const char *line, size_t len);
	/* Figures known while the test runs (interim throughput) into o; may be NULL. */
	void (*live)(const struct test *t, json_object *o);
	/* Once every process has finished: the test's figures into figs and each process's
	 * own into procs[i] (objects, in process order). Returns -1 with why when the output
	 * says the benchmark failed although it exited 0. */
	int (*figures)(struct test *t, json_object *figs, json_object *procs, char *why,
	               size_t size);
};

/* The drivers: netperf, iperf3, exec, pktgen (driver-<name>.c, listed in driver.c's
 * table). NULL when unknown. */
const struct driver *driver_find(const char *name);
/* The i-th driver of the table, NULL past its end. */
const struct driver *driver_at(size_t i);
/* Their names, for messages: "netperf, iperf3, exec, pktgen" (the table's order). */
const char *driver_names(void);
/* Whether d lists key among the arguments it takes (struct driver.args). */
bool driver_takes(const struct driver *d, const char *key);
/* The names of the drivers that take key ("netperf"), sep between two, into buf. */
const char *driver_takers(const char *key, const char *sep, char *buf, size_t size);
/* Helpers the drivers share (runner.c). */
/* A NULL-terminated argv from a format-free list of words; the caller frees with
 * runner_strv_free. */
char **runner_strv(const char *const *words, size_t n);
void runner_strv_free(char **v);
/* The CPU list as netperf/iperf3 take it in pinning: the (i mod count)-th CPU, or -1 when
 * the set is empty. */
int runner_cpu_for(const struct cpuset *set, unsigned i);
/* The elapsed seconds of a test now (or at its end once finished). */
double runner_elapsed(const struct test *t);
/* A live figure a process reported (netperf's interim result): per_s, a rate called name
 * (as the figures name it: "throughput_mbps") whose integral counts unit ("Mbit"), over the
 * interval_s seconds that ended at end_real_s (epoch seconds; NAN: now); every_s is how often
 * the benchmark reports. Recorded with its time for the test's stored series (source
 * "test", testseries.h); a test keeps one figure, the first named. */
struct runner_figure {
	const char *name, *unit;
	double per_s, interval_s, end_real_s, every_s;
};
void runner_live_figure(struct test_proc *p, const struct runner_figure *f);

/* The children of the runner's loop, for drivers that run tools (child.c). */
struct children *runner_children(struct runner *r);
/* The test cgroups' parent directory, or NULL without cgroups. */
const char *runner_cgroup_path(const struct runner *r);
/* How tests are kept apart, for status: {"isolation": "cgroup", "cgroup": DIR} or
 * {"isolation": "process-group", "reason": WHY} (new reference). */
json_object *runner_isolation_json(const struct runner *r);

/* The runner, over d (its base, windows, results, sampler, config). NULL with err. */
struct runner *runner_init(struct daemon *d, struct nm_error *err);
/* End every running test (status incomplete: the daemon stopped), store their windows,
 * revert their profiles, free. */
void runner_free(struct runner *r);

/* Parse and check a test's arguments (as test start takes them, see proto/commands.c)
 * into spec. 0, or -1 with err; nothing is kept on error. */
int runner_spec_parse(struct runner *r, json_object *args, struct test_spec *spec,
                      struct nm_error *err);
void runner_spec_free(struct test_spec *spec);

/* Does the spec need runner_resolve before runner_start can answer for its arguments? */
bool runner_needs_resolve(const struct test_spec *spec);
/* Run the driver's resolve (see struct driver) for spec; done is called once it is over
 * (maybe before this returns), spec->resolved set on success. Shutdown (runner_free) waits
 * a little for resolves under way; a start they lead to is refused then. */
void runner_resolve(struct runner *r, struct test_spec *spec, driver_done_fn done, void *arg);

/* Start a test (spec is taken over, also on error). Returns its description (new
 * reference). On error returns NULL with err: nothing was started, or the test failed at
 * once (a binary that cannot run) and its failure is stored as its result (err says so).
 * A spec not resolved yet is resolved first, and the driver's setup run, on the loop: the
 * test is "starting" meanwhile, and a failure there is its stored result. on_finish (may
 * be NULL) is told when it has finished. */
json_object *runner_start(struct runner *r, struct test_spec *spec,
                          void (*on_finish)(struct test *t, void *arg), void *arg,
                          struct nm_error *err);
/* Tell fn once t (starting: state TEST_STARTING) has started its processes, or failed
 * before (then it has finished, never_started set, with its reason). */
void runner_on_started(struct test *t, void (*fn)(struct test *t, void *arg), void *arg);
/* Stop a running test: its processes are terminated, its partial window is stored. The
 * reply describes it (new reference), or NULL with err. */
json_object *runner_stop(struct runner *r, const char *name, struct nm_error *err);
/* The test named name, running or finished recently; NULL when not known. */
struct test *runner_find(struct runner *r, const char *name);
/* While test name runs: its live figures so far (netperf's interim results: source
 * "test") over [t0, t1] as a block (seriesblock_free), the ring's series not in it; NULL
 * when it is not running or has reported none. At most a few thousand records: on the
 * loop. */
struct seriesblock;
struct seriesblock *runner_live_block(struct runner *r, const char *name, uint64_t t0, uint64_t t1);
/* A test as test status shows it (new reference). */
json_object *runner_test_json(const struct test *t);
/* Running tests first, then the recently finished (new reference). */
json_object *runner_list_json(struct runner *r);
/* How many tests run now. */
size_t runner_running(const struct runner *r);
/* The state as a word: "warmup", "passed", ... */
const char *runner_state_name(enum test_state s);
/* Has the test finished (passed, failed, stopped, incomplete)? */
bool runner_finished(const struct test *t);

#endif
