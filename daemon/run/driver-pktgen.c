/* driver-pktgen.c: a packet generator on one device: UDP frames of --size bytes to
 * destinations in [--dst-min, --dst-max], --flows flows of --flowlen packets, for the
 * duration or --count packets, on --threads CPUs. Where the kernel has pktgen
 * (/proc/net/pktgen/pgctrl) it runs netmetrics-pktgen, which writes pktgen's commands
 * (parse-pktgen.c) and starts it; elsewhere it runs trafgen (netsniff-ng) with a
 * configuration that does the same. Either runs in --netns through ip netns exec.
 *
 * What the frames need is found before the test starts (resolve), by running ip -j in
 * the generator's namespace through child.c, one tool after the other on the loop (a few
 * milliseconds each; nothing waits for them, and test start is answered once they have):
 * the device's MAC, MTU and IPv4 address (the default --src), and, without --dst-mac, the
 * next hop's MAC: the neighbour entry of the gateway (or of dst_min itself when it is on
 * the link) of the route to dst_min. libnl could do the same from the daemon, but only
 * after entering the namespace (setns) and back; ip already knows how. The tbf qdisc is
 * put on (setup) and taken off (teardown) the same way.
 *
 * Pacing: pktgen paces itself (ratep, delay). trafgen's own pacing does not hold a rate
 * (its -b sends each second's quota at full speed then sleeps, and stops shaping after one
 * slow second; -t sleeps per packet with ~25 us of overhead), so with --rate or --delay
 * the driver puts a tbf qdisc on the device for the test and removes it after, only when
 * the device's root qdisc is the kernel's default (else the test is refused: the user's
 * own qdisc is never replaced). Without either, both send as fast as they can. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "clientfd.h"
#include "driver-pktgen.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "parse-pktgen.h"
#include "runner.h"
#include "strbuf.h"
#include "timeutil.h"
#include "xmalloc.h"

#define HELPER          "netmetrics-pktgen"
#define DST_MIN         "10.0.0.0" /* the range: 1,245,184 destinations */
#define DST_MAX         "10.18.255.255"
#define FLOWS           256
#define FLOWLEN         8
#define TOOL_TIMEOUT_MS 5000         /* ip or tc taking longer is stuck */
#define TOOL_OUT_MAX    (256 * 1024) /* bytes of ip/tc output read */
#define TBF_BURST_MIN   30000        /* bytes; as the forwarding-decay example measured */
#define TBF_LIMIT_MIN   2000000      /* bytes; above the socket buffer: the qdisc never drops */

/* What setup left for teardown (t->drv). */
struct pktgen_state {
	char dir[256]; /* the test's private directory, "" when none */
	char cfg[300]; /* trafgen's configuration in it */
	bool tbf;      /* our tbf qdisc is on the device */
};

/* ---- running ip and tc ---- */

/* A driver step that runs ip or tc, one at a time, on the loop: the check's lookups, the
 * tbf qdisc put on and taken off. next gets the tool's end: why NULL when it exited 0
 * (out its JSON, when asked for, borrowed), else its last stderr line; next ends the job
 * (job_end) or runs the next tool. */
struct tool_job {
	struct children *cs;
	const char *tool;
	bool json;
	void (*next)(struct tool_job *j, json_object *out, const char *why);
	struct test_spec *spec; /* resolve */
	struct test *t;         /* setup, teardown */
	struct pktgen_opts o;
	uint32_t hop;
	char nh[16];
	driver_done_fn done;
	void *arg;
};

static struct tool_job *
job_new(struct children *cs, struct test_spec *spec, struct test *t, driver_done_fn done, void *arg)
{
	struct tool_job *j = xcalloc(1, sizeof(*j));

	j->cs = cs;
	j->spec = spec;
	j->t = t;
	j->done = done;
	j->arg = arg;
	return j;
}

/* Free the job and tell its caller: rc 0, or -1 with err. */
static void
job_end(struct tool_job *j, int rc, const struct nm_error *err)
{
	driver_done_fn done = j->done;
	void *arg = j->arg;

	free(j);
	if (done != NULL)
		done(arg, rc, err);
}

/* job_end with an error of the arguments (resolve) or of the host (setup). */
static void job_fail(struct tool_job *j, enum nm_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
job_fail(struct tool_job *j, enum nm_errcode code, const char *fmt, ...)
{
	struct nm_error err;
	char msg[NM_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	nm_error_set(&err, code, "%s", msg);
	job_end(j, -1, &err);
}

/* The tool has finished: its words to next. */
static void
tool_done(struct child *sp, void *arg)
{
	struct tool_job *j = arg;
	json_object *out = NULL;
	char why[256] = "", msg[256] = "";
	const char *text;
	size_t len;
	bool cut;

	if (child_exit_status(sp) == 0) {
		text = child_stdout(sp, &len, &cut);
		if (j->json &&
		    (out = json_parse_bounded(text, len < TOOL_OUT_MAX ? len : TOOL_OUT_MAX, 16,
		                              msg, sizeof(msg))) == NULL)
			snprintf(why, sizeof(why), "%s printed no JSON%s%s", j->tool,
			         msg[0] ? ": " : "", msg);
	} else {
		child_last_words(sp, why, sizeof(why));
		if (why[0] == '\0')
			snprintf(why, sizeof(why), "%s",
			         child_exit_signal(sp) ? "timed out" : "failed");
	}
	child_free(sp);
	j->next(j, out, why[0] ? why : NULL);
	json_object_put(out);
}

static const struct child_ops tool_ops = {NULL, tool_done};

/* Run step for next (which is told at once when it cannot start). Killed after
 * TOOL_TIMEOUT_MS. */
static void
tool_run(struct tool_job *j, enum pktgen_step step,
         void (*next)(struct tool_job *j, json_object *out, const char *why))
{
	char path[4096];
	struct child_spawn how = {.cgroup_fd = -1, .peer_fd = -1};
	const struct test_spec *spec = j->t != NULL ? &j->t->spec : j->spec;
	struct nm_error err;
	struct child *sp;
	char **argv;

	j->tool = pktgen_step_tool(step);
	j->json = step != PKTGEN_STEP_TBF_ADD && step != PKTGEN_STEP_TBF_DEL;
	j->next = next;
	if (child_resolve(j->tool, path, sizeof(path), &err) < 0) {
		next(j, NULL, err.message);
		return;
	}
	argv = pktgen_step_argv(step, spec, path, j->nh);
	how.argv = argv;
	/* Root's tools, for the client that asked (an admin: the privileged process checks
	 * the argv against its allow-list, privsep_check_root_argv). */
	how.peer_fd = clientfd_fd(spec->cred.peer);
	sp = child_start(j->cs, &how, &tool_ops, j, &err);
	runner_strv_free(argv);
	if (sp == NULL) {
		next(j, NULL, err.message);
		return;
	}
	child_set_timeout(sp, TOOL_TIMEOUT_MS);
}

/* ---- the spec ---- */

/* The packets/s trafgen is paced to (the tbf qdisc), 0 when unpaced. */
static double
trafgen_rate(const struct test_spec *s)
{
	if (s->rate_pps > 0)
		return s->rate_pps;
	if (s->delay_ns > 0)
		return (double)s->threads * 1e9 / (double)s->delay_ns;
	return 0;
}

/* The spec as parse-pktgen.c takes it (checked already). */
static void
opts_of(const struct test_spec *s, struct pktgen_opts *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->dev, sizeof(o->dev), "%s", s->dev);
	pktgen_parse_ipv4(s->dst_min, &o->dst_min);
	pktgen_parse_ipv4(s->dst_max, &o->dst_max);
	pktgen_parse_ipv4(s->src, &o->src);
	pktgen_parse_mac(s->dst_mac, o->dst_mac);
	pktgen_parse_mac(s->src_mac, o->src_mac);
	o->size = s->size;
	o->flows = s->flows;
	o->flowlen = s->flowlen;
	o->clone_skb = s->clone_skb;
	o->threads = s->threads;
	o->delay_ns = s->delay_ns;
	o->rate_pps = s->rate_pps;
	o->count = s->count;
}

const char *
pktgen_step_tool(enum pktgen_step step)
{
	return step == PKTGEN_STEP_QDISC || step == PKTGEN_STEP_TBF_ADD ||
	               step == PKTGEN_STEP_TBF_DEL
	           ? "tc"
	           : "ip";
}

char **
pktgen_step_argv(enum pktgen_step step, const struct test_spec *s, const char *path,
                 const char *hop)
{
	double bytes_per_s = trafgen_rate(s) * (s->size - PKTGEN_FCS);
	double burst = fmax(TBF_BURST_MIN, bytes_per_s / 50); /* 20 ms */
	char rate[32], bst[32], lim[32];
	const char *w[24];
	size_t n = 0;

	w[n++] = path;
	if (s->netns[0]) {
		w[n++] = "-n";
		w[n++] = s->netns;
	}
	if (step != PKTGEN_STEP_TBF_ADD && step != PKTGEN_STEP_TBF_DEL)
		w[n++] = "-j";
	switch (step) {
	case PKTGEN_STEP_ADDR:
		w[n++] = "addr";
		w[n++] = "show";
		w[n++] = "dev";
		w[n++] = s->dev;
		break;
	case PKTGEN_STEP_ROUTE:
		w[n++] = "-4";
		w[n++] = "route";
		w[n++] = "get";
		w[n++] = s->dst_min;
		break;
	case PKTGEN_STEP_NEIGH:
		w[n++] = "-4";
		w[n++] = "neigh";
		w[n++] = "show";
		w[n++] = "to";
		w[n++] = hop;
		w[n++] = "dev";
		w[n++] = s->dev;
		break;
	case PKTGEN_STEP_QDISC:
		w[n++] = "qdisc";
		w[n++] = "show";
		w[n++] = "dev";
		w[n++] = s->dev;
		break;
	case PKTGEN_STEP_TBF_ADD:
		snprintf(rate, sizeof(rate), "%.0fbit", bytes_per_s * 8);
		snprintf(bst, sizeof(bst), "%.0f", burst);
		snprintf(lim, sizeof(lim), "%.0f", fmax(TBF_LIMIT_MIN, 4 * burst));
		w[n++] = "qdisc";
		w[n++] = "add";
		w[n++] = "dev";
		w[n++] = s->dev;
		w[n++] = "root";
		w[n++] = "tbf";
		w[n++] = "rate";
		w[n++] = rate;
		w[n++] = "burst";
		w[n++] = bst;
		w[n++] = "limit";
		w[n++] = lim;
		break;
	case PKTGEN_STEP_TBF_DEL:
		w[n++] = "qdisc";
		w[n++] = "del";
		w[n++] = "dev";
		w[n++] = s->dev;
		w[n++] = "root";
		break;
	}
	return runner_strv(w, n);
}

/* The arguments that are not the generator's. */
static int
check_foreign(const struct test_spec *s, struct nm_error *err)
{
	if (s->argv != NULL)
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "--driver pktgen takes no command after -- (use --driver exec)");
	if (s->host[0] || s->type[0] || s->port[0])
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--host, --type and --port are for netperf and iperf3; the "
		                    "generator sends to --dst-min..--dst-max through --dev");
	if (s->procs != 1)
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "--procs: the generator is one process; --threads sets how many "
		    "CPUs send");
	if (s->nfigures > 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "--figure is for --driver exec");
	if (!cpuset_empty(&s->local_cpus) || !cpuset_empty(&s->remote_cpus))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--local-cpus/--remote-cpus pin netperf and iperf3; the "
		                    "generator's thread i runs on CPU i (--threads)");
	return 0;
}

/* Defaults, the destination range, the numbers. */
static int
check_numbers(struct test_spec *s, struct pktgen_opts *o, struct nm_error *err)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned max_threads =
	    cpus > 0 && cpus < PKTGEN_THREADS_MAX ? (unsigned)cpus : PKTGEN_THREADS_MAX;

	if (s->dst_min[0] == '\0')
		snprintf(s->dst_min, sizeof(s->dst_min), "%s", DST_MIN);
	if (s->dst_max[0] == '\0')
		snprintf(s->dst_max, sizeof(s->dst_max), "%s", DST_MAX);
	s->flows = s->flows ? s->flows : FLOWS;
	s->flowlen = s->flowlen ? s->flowlen : FLOWLEN;
	s->threads = s->threads ? s->threads : 1;
	s->size = s->size ? s->size : PKTGEN_MIN_SIZE;
	if (pktgen_parse_ipv4(s->dst_min, &o->dst_min) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "--dst-min \"%s\": not an IPv4 address",
		                    s->dst_min);
	if (pktgen_parse_ipv4(s->dst_max, &o->dst_max) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "--dst-max \"%s\": not an IPv4 address",
		                    s->dst_max);
	if (o->dst_min > o->dst_max)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "--dst-min %s is above --dst-max %s",
		                    s->dst_min, s->dst_max);
	if (s->src[0] && pktgen_parse_ipv4(s->src, &o->src) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "--src \"%s\": not an IPv4 address",
		                    s->src);
	if (s->dst_mac[0] && pktgen_parse_mac(s->dst_mac, o->dst_mac) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--dst-mac \"%s\": give six hex bytes, aa:bb:cc:dd:ee:ff",
		                    s->dst_mac);
	if (s->threads > max_threads && !s->generator_on[0]) /* a peer counts its own */
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--threads %u: one per CPU, and %u CPUs are online", s->threads,
		                    max_threads);
	if (s->rate_pps > 0 && s->delay_ns > 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--rate and --delay both pace the generator: give one");
	if (s->duration_s == 0 && s->count == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "give --count or --duration");
	return 0;
}

/* What the kernel's pktgen cannot do that trafgen can, and the other way round. */
static int
check_generator(const struct test_spec *s, const struct pktgen_opts *o, struct nm_error *err)
{
	uint64_t n = (uint64_t)o->dst_max - o->dst_min + 1;

	if (strcmp(s->generator, "pktgen") == 0) {
		if (s->count > 0 && s->count < s->threads)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "--count %" PRIu64
			                    " below --threads %u: pktgen's count "
			                    "is per thread, and 0 would mean no end",
			                    s->count, s->threads);
		if (s->rate_pps > 0 && s->rate_pps < s->threads)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "--rate %.0f below --threads %u: pktgen's ratep is per "
			                    "thread",
			                    s->rate_pps, s->threads);
		return 0;
	}
	if (s->clone_skb > 0)
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "--clone-skb: this kernel has no pktgen (no %s/pgctrl); trafgen "
		    "runs instead and has no such setting",
		    PKTGEN_DIR);
	/* trafgen's drnd() is min + rand() % (max - min + 1), and dinc() wraps at max + 1. */
	if (n > 0x7fffffffu || o->dst_max == UINT32_MAX)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--dst-min..--dst-max: trafgen draws from at most 2^31 - 1 "
		                    "addresses, below 255.255.255.255");
	if (s->flowlen > 1 && (uint64_t)s->flows * s->flowlen > PKTGEN_TEMPLATES_MAX)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--flows x --flowlen: trafgen sends them as %u x %u packet "
		                    "templates; at most %d",
		                    s->flows, s->flowlen, PKTGEN_TEMPLATES_MAX);
	if (s->flowlen > 1 && s->flows > n)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--flows %u: more flows than the %" PRIu64
		                    " destinations of the range",
		                    s->flows, n);
	return 0;
}

/* ---- what ip and tc tell (resolve): device, next hop, qdisc, one after the other ---- */

static void resolve_qdisc(struct tool_job *j);

/* trafgen paced: the device's root qdisc must be the kernel's default, which the tbf may
 * replace and give back. */
static void
got_qdisc(struct tool_job *j, json_object *out, const char *why)
{
	const struct test_spec *s = j->spec;
	char kind[32];

	if (why != NULL) {
		job_fail(j, NM_ERR_BAD_ARGS, "qdiscs of %s: %s", s->dev, why);
		return;
	}
	if (!pktgen_tc_root_default(out, kind, sizeof(kind))) {
		job_fail(j, NM_ERR_BAD_ARGS,
		         "--rate/--delay: trafgen is paced by a tbf qdisc on %s for the test, but "
		         "%s has a root qdisc of its own (%s); remove it or run unpaced",
		         s->dev, s->dev, kind);
		return;
	}
	job_end(j, 0, NULL);
}

static void
resolve_qdisc(struct tool_job *j)
{
	const struct test_spec *s = j->spec;
	if (strcmp(s->generator, "trafgen") != 0 || trafgen_rate(s) == 0) {
		job_end(j, 0, NULL);
		return;
	}
	tool_run(j, PKTGEN_STEP_QDISC, got_qdisc);
}

/* The next hop's neighbour entry: its MAC. */
static void
got_neigh(struct tool_job *j, json_object *out, const char *why)
{
	struct test_spec *s = j->spec;
	char msg[256];

	if (why != NULL) {
		job_fail(j, NM_ERR_BAD_ARGS, "neighbours of %s: %s", s->dev, why);
		return;
	}
	if (pktgen_ip_neigh(out, j->hop, j->o.dst_mac, msg, sizeof(msg)) < 0) {
		job_fail(j, NM_ERR_BAD_ARGS,
		         "next hop %s on %s: %s (reach it once, e.g. ping, or give --dst-mac)",
		         j->nh, s->dev, msg);
		return;
	}
	pktgen_format_mac(j->o.dst_mac, s->dst_mac, sizeof(s->dst_mac));
	resolve_qdisc(j);
}

/* The route to dst_min: the next hop (the gateway, or dst_min on the link). */
static void
got_route(struct tool_job *j, json_object *out, const char *why)
{
	struct test_spec *s = j->spec;
	char msg[256], dev[64];

	if (why != NULL) {
		job_fail(j, NM_ERR_BAD_ARGS, "no route to %s%s%s (%s): give --dst-mac", s->dst_min,
		         s->netns[0] ? " in netns " : "", s->netns, why);
		return;
	}
	if (pktgen_ip_nexthop(out, &j->hop, dev, sizeof(dev), msg, sizeof(msg)) < 0) {
		job_fail(j, NM_ERR_BAD_ARGS, "route to %s: %s: give --dst-mac", s->dst_min, msg);
		return;
	}
	if (strcmp(dev, s->dev) != 0) {
		job_fail(j, NM_ERR_BAD_ARGS,
		         "the route to %s leaves by %s, not --dev %s: give --dst-mac", s->dst_min,
		         dev, s->dev);
		return;
	}
	pktgen_format_ipv4(j->hop, j->nh, sizeof(j->nh));
	tool_run(j, PKTGEN_STEP_NEIGH, got_neigh);
}

/* The device (MAC, MTU, address) and the size that fits it; then the next hop's MAC,
 * when --dst-mac was left out. */
static void
got_device(struct tool_job *j, json_object *out, const char *why)
{
	struct test_spec *s = j->spec;
	struct pktgen_link l;
	char msg[256];

	if (why != NULL) {
		job_fail(j, NM_ERR_BAD_ARGS, "--dev %s%s%s: %s", s->dev,
		         s->netns[0] ? " in netns " : "", s->netns, why);
		return;
	}
	if (pktgen_ip_link(out, &l, msg, sizeof(msg)) < 0) {
		job_fail(j, NM_ERR_BAD_ARGS, "--dev %s: %s", s->dev, msg);
		return;
	}
	memcpy(j->o.src_mac, l.mac, 6);
	pktgen_format_mac(l.mac, s->src_mac, sizeof(s->src_mac));
	if (s->size < PKTGEN_MIN_SIZE || s->size > l.mtu + 14 + PKTGEN_FCS) {
		job_fail(j, NM_ERR_BAD_ARGS,
		         "--size %u: %d to %u bytes on %s (the frame with its FCS; MTU %u)",
		         s->size, PKTGEN_MIN_SIZE, l.mtu + 14 + PKTGEN_FCS, s->dev, l.mtu);
		return;
	}
	if (s->src[0] == '\0') {
		if (!l.has_ipv4) {
			job_fail(j, NM_ERR_BAD_ARGS, "--dev %s has no IPv4 address: give --src",
			         s->dev);
			return;
		}
		j->o.src = l.ipv4;
		pktgen_format_ipv4(l.ipv4, s->src, sizeof(s->src));
	}
	if (s->dst_mac[0])
		resolve_qdisc(j);
	else
		tool_run(j, PKTGEN_STEP_ROUTE, got_route);
}

/* Resolve what the frames need, through ip and tc in the generator's namespace. */
static void
pktgen_resolve(struct children *cs, struct test_spec *s, driver_done_fn done, void *arg)
{
	struct tool_job *j;

	if (s->generator_on[0]) { /* the device is the peer's: its daemon resolves */
		done(arg, 0, NULL);
		return;
	}
	j = job_new(cs, s, NULL, done, arg);
	tool_run(j, PKTGEN_STEP_ADDR, got_device);
}

/* Check the spec and fill the defaults; what needs ip and tc is pktgen_resolve's. */
static int
pktgen_check(struct test_spec *s, struct nm_error *err)
{
	struct pktgen_opts o;

	memset(&o, 0, sizeof(o));
	if (check_foreign(s, err) < 0)
		return -1;
	if (s->dev[0] == '\0')
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--driver pktgen needs --dev (the generator's egress device)");
	if (strchr(s->netns, '/') != NULL || strcmp(s->netns, ".") == 0 ||
	    strcmp(s->netns, "..") == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "netns \"%s\": not a namespace name",
		                    s->netns);
	/* On a peer (--generator-on), that peer's daemon knows which generator its kernel
	 * takes, and checks for it: its answer fills generator. */
	if (s->generator_on[0])
		return check_numbers(s, &o, err);
	snprintf(s->generator, sizeof(s->generator), "%s",
	         access(PKTGEN_DIR "/pgctrl", F_OK) == 0 ? "pktgen" : "trafgen");
	if (check_numbers(s, &o, err) < 0 || check_generator(s, &o, err) < 0)
		return -1;
	return 0;
}

/* netmetrics-pktgen beside the daemon's own binary (the build tree, sbindir), else PATH. */
static const char *
helper_path(void)
{
	static char path[PATH_MAX];
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			if ((size_t)snprintf(path, sizeof(path), "%s/%s", self, HELPER) <
			        sizeof(path) &&
			    access(path, X_OK) == 0)
				return path;
		}
	}
	return HELPER;
}

static const char *
pktgen_program(const struct test_spec *s)
{
	return strcmp(s->generator, "pktgen") == 0 ? helper_path() : "trafgen";
}

/* One process, or none here when the generator is on a peer (the runner follows its test
 * there: peer-generator.h). */
static unsigned
pktgen_nprocs(const struct test_spec *s)
{
	return s->generator_on[0] ? 0 : 1;
}

/* ---- setup and teardown ---- */

/* Write trafgen's configuration into a private directory. */
static int
write_config(struct test *t, struct pktgen_state *st, struct nm_error *err)
{
	const char *tmp = getenv("TMPDIR");
	struct pktgen_opts o;
	struct strbuf sb;
	FILE *fp;
	int ok;

	if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > 200)
		tmp = "/tmp";
	snprintf(st->dir, sizeof(st->dir), "%s/" PKTGEN_CFG_DIR "XXXXXX", tmp);
	if (mkdtemp(st->dir) == NULL) {
		nm_error_set(err, NM_ERR_FAILED, "%s: %s", st->dir, strerror(errno));
		st->dir[0] = '\0';
		return -1;
	}
	snprintf(st->cfg, sizeof(st->cfg), "%s/" PKTGEN_CFG_FILE, st->dir);
	opts_of(&t->spec, &o);
	strbuf_init(&sb);
	pktgen_trafgen_config(&o, &sb);
	if ((fp = fopen(st->cfg, "wex")) == NULL) {
		strbuf_free(&sb);
		return nm_error_set(err, NM_ERR_FAILED, "%s: %s", st->cfg, strerror(errno));
	}
	ok = fwrite(sb.buf, 1, sb.len, fp) == sb.len;
	ok &= fclose(fp) == 0;
	strbuf_free(&sb);
	if (!ok)
		return nm_error_set(err, NM_ERR_FAILED, "%s: %s", st->cfg, strerror(errno));
	return 0;
}

/* The tbf qdisc is on (or not). */
static void
got_tbf(struct tool_job *j, json_object *out, const char *why)
{
	struct test *t = j->t;
	struct pktgen_state *st = t->drv;

	(void)out;
	if (why != NULL) {
		job_fail(j, NM_ERR_FAILED, "pacing: tc qdisc add dev %s root tbf: %s", t->spec.dev,
		         why);
		return;
	}
	st->tbf = true;
	log_info("test %s: trafgen paced to %.0f packets/s by a tbf qdisc on %s", t->spec.name,
	         trafgen_rate(&t->spec), t->spec.dev);
	job_end(j, 0, NULL);
}

/* Pace trafgen: a tbf qdisc of the rate on the device. */
static void
add_tbf(struct test *t, driver_done_fn done, void *arg)
{
	tool_run(job_new(runner_children(t->runner), NULL, t, done, arg), PKTGEN_STEP_TBF_ADD,
	         got_tbf);
}

/* Before trafgen starts: its configuration, its pacing. */
static void
pktgen_setup(struct test *t, driver_done_fn done, void *arg)
{
	struct pktgen_state *st = xcalloc(1, sizeof(*st));
	struct nm_error err;

	t->drv = st;
	if (strcmp(t->spec.generator, "trafgen") != 0 || t->spec.generator_on[0]) {
		done(arg, 0, NULL);
		return;
	}
	if (write_config(t, st, &err) < 0) {
		done(arg, -1, &err);
		return;
	}
	if (trafgen_rate(&t->spec) > 0)
		add_tbf(t, done, arg);
	else
		done(arg, 0, NULL);
}

/* The files gone, the state freed. */
static void
remove_files(struct test *t)
{
	struct pktgen_state *st = t->drv;

	if (st->cfg[0] && unlink(st->cfg) < 0 && errno != ENOENT)
		log_warn("test %s: %s", t->spec.name, st->cfg);
	if (st->dir[0] && rmdir(st->dir) < 0)
		log_warn("test %s: %s", t->spec.name, st->dir);
	free(st);
	t->drv = NULL;
}

/* The tbf qdisc is off (or could not be taken off). */
static void
got_untbf(struct tool_job *j, json_object *out, const char *why)
{
	(void)out;
	if (why != NULL)
		log_warnx("test %s: tbf qdisc on %s not removed: %s", j->t->spec.name,
		          j->t->spec.dev, why);
	remove_files(j->t);
	job_end(j, 0, NULL);
}

/* After: the qdisc off, the files gone. */
static void
pktgen_teardown(struct test *t, driver_done_fn done, void *arg)
{
	struct pktgen_state *st = t->drv;

	if (st != NULL && st->tbf && done != NULL) {
		tool_run(job_new(runner_children(t->runner), NULL, t, done, arg),
		         PKTGEN_STEP_TBF_DEL, got_untbf);
		return;
	}
	if (st != NULL && st->tbf)
		log_warnx("test %s: tbf qdisc on %s not removed: no time left at shutdown",
		          t->spec.name, t->spec.dev);
	if (st != NULL)
		remove_files(t);
	if (done != NULL)
		done(arg, 0, NULL);
}

/* ---- the process ---- */

char **
pktgen_generator_argv(const struct test_spec *s, const char *program, const char *cfg)
{
	struct pktgen_opts o;
	char threads[16], count[32];
	const char *w[24];
	size_t n = 0;

	opts_of(s, &o);
	if (strcmp(s->generator, "pktgen") == 0)
		return pktgen_helper_argv(&o, program);
	snprintf(threads, sizeof(threads), "%u", s->threads);
	snprintf(count, sizeof(count), "%" PRIu64, s->count);
	w[n++] = program;
	/* -A (leave net.core.*mem alone) is in --help but not in 0.6.8's getopt. */
	w[n++] = "--no-sock-mem";
	w[n++] = "-Q"; /* leave IRQ affinity alone */
	w[n++] = "-q"; /* through the qdisc (the tbf that paces) */
	w[n++] = "-o";
	w[n++] = s->dev;
	w[n++] = "-i";
	w[n++] = cfg;
	w[n++] = "-P";
	w[n++] = threads;
	if (s->count > 0) {
		w[n++] = "-n";
		w[n++] = count;
	}
	if (trafgen_rate(s) > 0) {
		/* sendto(), which blocks while the qdisc is full: no busy loop. */
		w[n++] = "-t";
		w[n++] = "0";
	}
	return runner_strv(w, n);
}

/* trafgen --no-sock-mem -Q -q -o DEV -i CFG -P THREADS [-n COUNT] [-t 0], or
 * netmetrics-pktgen -w FILE CMD ... -s -p DEV@i ... */
static char **
pktgen_argv(const struct test_spec *s, const char *program, const struct test_proc *p)
{
	const struct pktgen_state *st = p->test->drv;

	return pktgen_generator_argv(s, program, st->cfg);
}

/* ---- figures ---- */

/* The common figures. */
static void
add_totals(json_object *o, uint64_t packets, uint64_t bytes, double elapsed)
{
	json_add_uint(o, "packets_sent", packets);
	json_add_uint(o, "bytes_sent", bytes);
	json_add_double(o, "elapsed_s", elapsed);
	json_add_double(o, "pps", elapsed > 0 ? (double)packets / elapsed : NAN);
}

/* pktgen's results, from netmetrics-pktgen's output. */
static int
pktgen_results(struct test *t, const char *text, json_object *figs, json_object *pf, char *why,
               size_t size)
{
	struct pktgen_result *r = xcalloc(PKTGEN_THREADS_MAX, sizeof(*r));
	size_t n = parse_pktgen_output(text, r, PKTGEN_THREADS_MAX);
	json_object *threads = json_object_new_array();
	uint64_t packets = 0, errors = 0;
	double elapsed = 0;
	unsigned ok = 0;

	for (size_t i = 0; i < n; i++) {
		json_object *th = json_object_new_object();

		packets += r[i].packets;
		errors += r[i].errors;
		elapsed = fmax(elapsed, r[i].elapsed_s);
		ok += r[i].ok;
		json_add_string(th, "device", r[i].name);
		json_add_uint(th, "packets_sent", r[i].packets);
		json_add_uint(th, "errors", r[i].errors);
		if (r[i].ok) {
			json_add_double(th, "elapsed_s", r[i].elapsed_s);
			json_add_double(th, "pps", r[i].pps);
		} else
			json_add_string(th, "result", r[i].result);
		json_object_array_add(threads, th);
	}
	add_totals(figs, packets, packets * (t->spec.size - PKTGEN_FCS), ok ? elapsed : NAN);
	json_add_uint(figs, "errors", errors);
	json_object_object_add(pf, "threads", threads);
	free(r);
	if (ok == 0 && !t->stopping) {
		snprintf(why, size, "pktgen reported no result (%zu device file%s read)", n,
		         n == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

/* trafgen's results, from its summary. */
static int
trafgen_results(struct test *t, const char *text, size_t len, json_object *figs, json_object *pf,
                char *why, size_t size)
{
	struct trafgen_out *out = xmalloc(sizeof(*out));
	json_object *workers;

	if (parse_trafgen_summary(text, len, out) < 0) {
		free(out);
		if (t->stopping)
			return 0;
		snprintf(why, size, "trafgen printed no summary%s%s",
		         t->procs[0].last_words[0] ? ": " : "", t->procs[0].last_words);
		return -1;
	}
	add_totals(figs, out->packets, out->bytes, out->elapsed_s);
	workers = json_object_new_array();
	for (unsigned i = 0; i < out->workers; i++) {
		json_object *w = json_object_new_object();
		json_add_int(w, "cpu", out->worker_cpu[i]);
		json_add_uint(w, "packets_sent", out->worker_packets[i]);
		json_add_double(w, "elapsed_s", out->worker_s[i]);
		json_object_array_add(workers, w);
	}
	json_object_object_add(pf, "workers", workers);
	free(out);
	return 0;
}

/* The figures once the generator has ended: the test's and its process's are the same. */
static int
pktgen_figures(struct test *t, json_object *figs, json_object *procs, char *why, size_t size)
{
	json_object *pf = json_object_array_get_idx(procs, 0);
	const char *text;
	size_t len;
	bool cut;
	int rc;

	if (t->nprocs == 0 || t->procs[0].sp == NULL)
		return 0;
	text = child_stdout(t->procs[0].sp, &len, &cut);
	if (strcmp(t->spec.generator, "pktgen") == 0)
		rc = pktgen_results(t, text, figs, pf, why, size);
	else
		rc = trafgen_results(t, text, len, figs, pf, why, size);
	json_object_object_foreach(figs, k, v)
	{
		json_object_object_add(pf, k, json_object_get(v));
	}
	return rc;
}

const struct driver driver_pktgen = {
    .name = "pktgen",
    .program = NULL,
    .packet_args = true,
    .args = (const char *const[]){"generator_on", "dev", "dst_min", "dst_max", "dst_mac", "src",
                                  "flows", "flowlen", "clone_skb", "delay", "count", "threads",
                                  "rate", NULL},
    .server_argv = NULL,
    .privileged = true,
    .until_stopped = true,
    .program_of = pktgen_program,
    .setup = pktgen_setup,
    .teardown = pktgen_teardown,
    .check = pktgen_check,
    .resolve = pktgen_resolve,
    .nprocs = pktgen_nprocs,
    .argv = pktgen_argv,
    .figures = pktgen_figures,
};
