/* driver-netperf.c: N netperf processes, pinned round-robin (-T lcpu,rcpu) as the shell kit
 * did, with interim results (-D 1,1) for live throughput and omni key=value output for the
 * figures: total throughput, total and per-process transactions/s, and latency as
 * 1e6 / (per-process transactions/s); for UDP_STREAM also the datagrams sent by this end
 * and received by the far one, the datagrams lost between them and that loss in %; with
 * cpu_util netperf's own CPU figures of both ends (-c -C). The test options after -- are
 * passed through when pass_opts allows them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "jsonutil.h"
#include "parse-netperf.h"
#include "runner.h"

/* The tests netperf runs that report through omni output selectors. */
static const char *const types[] = {"TCP_STREAM", "TCP_MAERTS", "TCP_RR", "TCP_CRR",
                                    "UDP_STREAM", "UDP_RR",     NULL};

/* Is the type request/response (sizes -r, figures in transactions)? */
static bool
is_rr(const char *type)
{
	size_t n = strlen(type);

	return n > 3 && strcmp(type + n - 3, "_RR") == 0;
}

/* netperf's test-specific options (after its --) a test may pass through, and what each
 * takes: 'n' nothing, 's' a size or two (SIZE[,SIZE], SIZE digits with an optional k, K,
 * m, M, g or G, at most 1G counting k as 1024), 'p' a port or two (PORT[,PORT]). The output
 * selectors (-k, -o, -O) are the driver's: its figures come from them. */
static const struct {
	const char *opt;
	char takes;
} pass_opts[] = {
    {"-s", 's'}, {"-S", 's'}, {"-m", 's'}, {"-M", 's'}, {"-r", 's'},
    {"-D", 'n'}, {"-P", 'p'}, {"-4", 'n'}, {"-6", 'n'},
};

#define NETPERF_DEMO_S 1 /* -D: seconds between interim results */
/* -D SECS,UNITS: the same seconds, and 1 unit/s as netperf's first guess of the rate (it
 * checks the clock once that many units are done, then scales the guess): its own guess is
 * far too high for a TCP_RR at 10,000 transactions/s and the first interval ran the whole
 * 5 s test (a stream's ran 2.8 s of 4); from 1 its intervals are 1 s from the start. */
#define NETPERF_DEMO_ARG "1,1"
#define PASS_VALUE_MAX   32 /* bytes in one option's value */
#define PASS_WORDS_MAX   32 /* words after -- */

/* One SIZE or PORT of a value: digits (at most 10), a size with an optional unit letter. */
static const char *
pass_number(const char *v, bool size, unsigned long long max)
{
	unsigned long long n = 0;
	unsigned digits = 0;

	for (; *v >= '0' && *v <= '9' && digits < 11; v++, digits++)
		n = n * 10 + (unsigned)(*v - '0');
	if (digits == 0 || digits > 10)
		return NULL;
	if (size && *v != '\0' && strchr("kKmMgG", *v) != NULL) {
		n *= strchr("kK", *v) ? 1024 : strchr("mM", *v) ? 1024 * 1024 : 1024 * 1024 * 1024;
		v++;
	}
	return n <= max ? v : NULL;
}

/* Is v what an option taking `takes` takes: one or two numbers, comma-separated (either
 * may be left out: ",65536")? */
static bool
pass_value_ok(const char *v, char takes)
{
	unsigned long long max = takes == 's' ? 1ull << 30 : 65535;
	const char *comma = strchr(v, ',');

	if (strlen(v) > PASS_VALUE_MAX || *v == '\0' || strcmp(v, ",") == 0)
		return false;
	if (*v != ',' && ((v = pass_number(v, takes == 's', max)) == NULL))
		return false;
	if (comma == NULL)
		return *v == '\0';
	if (v != comma)
		return false;
	v++;
	return *v == '\0' || ((v = pass_number(v, takes == 's', max)) != NULL && *v == '\0');
}

/* Check the words after -- against pass_opts: known options, each with its value. */
static int
pass_check(char *const *argv, struct nm_error *err)
{
	for (size_t i = 0; argv[i] != NULL; i++) {
		if (i >= PASS_WORDS_MAX)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "--driver netperf: more than %d words after --",
			                    PASS_WORDS_MAX);
		size_t k, n = sizeof(pass_opts) / sizeof(pass_opts[0]);
		for (k = 0; k < n && strcmp(argv[i], pass_opts[k].opt) != 0; k++)
			;
		if (k == n)
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "--driver netperf: \"%.40s\" after -- is not one of the netperf test "
			    "options passed through (-s -S -m -M -r SIZE[,SIZE], -P PORT[,PORT], "
			    "-D, "
			    "-4, -6; the driver sets -k itself)",
			    argv[i]);
		if (pass_opts[k].takes == 'n')
			continue;
		if (argv[i + 1] == NULL || !pass_value_ok(argv[i + 1], pass_opts[k].takes))
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "--driver netperf: %s after -- takes %s, not \"%.40s\"", argv[i],
			    pass_opts[k].takes == 's'
			        ? "SIZE[,SIZE] (bytes, k/K m/M g/G suffixes, up to 1G)"
			        : "PORT[,PORT]",
			    argv[i + 1] ? argv[i + 1] : "");
		i++;
	}
	return 0;
}

/* Check the spec: a host, a known type, whole seconds, test options netperf takes. */
static int
netperf_check(struct test_spec *s, struct nm_error *err)
{
	bool known = false;

	if (s->argv != NULL && pass_check(s->argv, err) < 0)
		return -1;
	if (s->host[0] == '\0')
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--driver netperf needs --host (where netserver listens)");
	if (s->type[0] == '\0')
		snprintf(s->type, sizeof(s->type), "TCP_STREAM");
	for (size_t i = 0; types[i] != NULL; i++)
		known |= strcmp(types[i], s->type) == 0;
	if (!known)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--type %s: netperf tests here are TCP_STREAM, TCP_MAERTS, "
		                    "TCP_RR, TCP_CRR, UDP_STREAM, UDP_RR",
		                    s->type);
	if (s->duration_s < 1 || s->duration_s != floor(s->duration_s))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--duration: netperf runs whole seconds (1 or more)");
	if (s->size == 0)
		s->size = is_rr(s->type) ? 1 : 16384;
	if (s->nfigures > 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "--figure is for --driver exec");
	return 0;
}

static unsigned
netperf_nprocs(const struct test_spec *s)
{
	return s->procs;
}

/* netperf -H HOST [-p PORT] -l D -t TYPE -P 0 -D 1,1 [-T L,R] [-c -C] -- -k SELECTORS -m|-r
 * SIZE [-S|-s ,RCVBUF] [OPTIONS...]: the test options passed through come last, so that
 * theirs win over what the driver derived (-m, -r, -S). */
static char **
netperf_argv(const struct test_spec *s, const char *program, const struct test_proc *p)
{
	char dur[32], pin[32], size[32], rcvbuf[32];
	const char *w[26 + PASS_WORDS_MAX];
	size_t n = 0;

	snprintf(dur, sizeof(dur), "%.0f", s->duration_s);
	w[n++] = program;
	w[n++] = "-H";
	w[n++] = s->host;
	if (s->port[0]) {
		w[n++] = "-p";
		w[n++] = s->port;
	}
	w[n++] = "-l";
	w[n++] = dur;
	w[n++] = "-t";
	w[n++] = s->type;
	w[n++] = "-P";
	w[n++] = "0";
	w[n++] = "-D";
	w[n++] = NETPERF_DEMO_ARG;
	if (p->local_cpu >= 0 || p->remote_cpu >= 0) {
		char l[12] = "", r[12] = "";
		if (p->local_cpu >= 0)
			snprintf(l, sizeof(l), "%d", p->local_cpu);
		if (p->remote_cpu >= 0)
			snprintf(r, sizeof(r), "%d", p->remote_cpu);
		snprintf(pin, sizeof(pin), "%s,%s", l, r);
		w[n++] = "-T";
		w[n++] = pin;
	}
	if (s->cpu_util) {
		w[n++] = "-c";
		w[n++] = "-C";
	}
	w[n++] = "--";
	w[n++] = "-k";
	w[n++] = s->cpu_util ? NETPERF_SELECTORS NETPERF_SELECTORS_CPU : NETPERF_SELECTORS;
	if (is_rr(s->type)) {
		snprintf(size, sizeof(size), "%u,%u", s->size, s->size);
		w[n++] = "-r";
	} else {
		snprintf(size, sizeof(size), "%u", s->size);
		w[n++] = "-m";
	}
	w[n++] = size;
	if (s->rcvbuf) {
		/* The receiving end: the remote one, but TCP_MAERTS sends from the remote end. */
		snprintf(rcvbuf, sizeof(rcvbuf), ",%u", s->rcvbuf);
		w[n++] = strcmp(s->type, "TCP_MAERTS") == 0 ? "-s" : "-S";
		w[n++] = rcvbuf;
	}
	for (size_t i = 0; s->argv != NULL && s->argv[i] != NULL && i < PASS_WORDS_MAX; i++)
		w[n++] = s->argv[i];
	return runner_strv(w, n);
}

static void
netperf_proc_init(struct test_proc *p)
{
	parse_netperf_init(p->priv);
}

/* An interim result is whole (its NETPERF_ENDING read): recorded with the time it refers to
 * for the test's stored series, named as the final figures are. */
static void
netperf_interim(struct test_proc *p, const struct netperf_out *np)
{
	struct runner_figure f = {.name = "throughput",
	                          .unit = "",
	                          .per_s = np->interim,
	                          .interval_s = np->interim_interval_s,
	                          .end_real_s = np->interim_end_s,
	                          .every_s = NETPERF_DEMO_S};
	char unit[sizeof(np->interim_units)];
	size_t n = strlen(np->interim_units);

	if (strcmp(np->interim_units, "Trans/s") == 0) {
		f.name = "transactions_per_s";
		f.unit = "transactions";
	} else if (strcmp(np->interim_units, "10^6bits/s") == 0) {
		f.name = "throughput_mbps";
		f.unit = "Mbit";
	} else {
		/* Units netperf may print otherwise ("10^3bits/s"): what they count. */
		snprintf(unit, sizeof(unit), "%.*s",
		         (int)(n > 2 && strcmp(np->interim_units + n - 2, "/s") == 0 ? n - 2 : n),
		         np->interim_units);
		f.unit = unit;
	}
	if (!(f.interval_s >= 0))
		f.interval_s = NETPERF_DEMO_S;
	runner_live_figure(p, &f);
}

static void
netperf_line(struct test_proc *p, const char *line, size_t len)
{
	struct netperf_out *np = p->priv;
	unsigned ended = np->nended;

	parse_netperf_line(np, line, len);
	if (np->nended != ended && np->ninterim > 0)
		netperf_interim(p, np);
}

/* Live: the sum of the newest interim results. */
static void
netperf_live(const struct test *t, json_object *o)
{
	double sum = 0;
	unsigned n = 0;
	const char *units = NULL;

	for (size_t i = 0; i < t->nprocs; i++) {
		const struct netperf_out *np = t->procs[i].priv;
		if (np->ninterim == 0 || t->procs[i].finished)
			continue;
		sum += np->interim;
		units = np->interim_units;
		n++;
	}
	if (n == 0)
		return;
	if (strcmp(units, "Trans/s") == 0)
		json_object_object_add(o, "transactions_per_s", json_double(sum));
	else if (strcmp(units, "10^6bits/s") == 0)
		json_object_object_add(o, "throughput_mbps", json_double(sum));
	else {
		json_object_object_add(o, "throughput", json_double(sum));
		json_add_string(o, "units", units);
	}
	json_add_uint(o, "reporting", n);
}

/* UDP_STREAM: what was sent and received, and the loss between (NAN when netperf said
 * nothing of it). */
struct udp_sum {
	double sent, received, sent_mbps, received_mbps;
};

/* Add the datagrams sent, received and lost, the loss in % and both rates. */
static void
add_udp(json_object *o, const struct udp_sum *u)
{
	double lost = u->sent - u->received;

	json_add_double(o, "sent_datagrams", u->sent);
	json_add_double(o, "received_datagrams", u->received);
	json_add_double(o, "lost_datagrams", lost);
	json_add_double(o, "loss_pct", u->sent > 0 ? 100 * lost / u->sent : NAN);
	json_add_double(o, "sent_mbps", u->sent_mbps);
	json_add_double(o, "received_mbps", u->received_mbps);
}

/* One process's UDP figures into pf, summed into tot. */
static void
udp_proc(const struct netperf_out *np, json_object *pf, struct udp_sum *tot)
{
	bool mbps = strcmp(np->units, "10^6bits/s") == 0;
	struct udp_sum u = {np->send_calls, np->remote_recv_calls, mbps ? np->send_throughput : NAN,
	                    mbps ? np->throughput : NAN};

	add_udp(pf, &u);
	tot->sent += u.sent;
	tot->received += u.received;
	tot->sent_mbps += u.sent_mbps;
	tot->received_mbps += u.received_mbps;
}

/* A mean over the processes that reported a CPU figure. */
struct cpu_mean {
	double sum;
	unsigned n;
};

static void
cpu_sum(struct cpu_mean *m, double v)
{
	if (!isnan(v)) {
		m->sum += v;
		m->n++;
	}
}

/* The figures once every process has ended. */
static int
netperf_figures(struct test *t, json_object *figs, json_object *procs, char *why, size_t size)
{
	bool rr = is_rr(t->spec.type), udp = strcmp(t->spec.type, "UDP_STREAM") == 0;
	struct udp_sum usum = {0, 0, 0, 0};
	double tput = 0, trans = 0, lat = 0, p99 = 0;
	struct cpu_mean lcpu = {0, 0}, rcpu = {0, 0};
	unsigned n = 0, nlat = 0;

	for (size_t i = 0; i < t->nprocs; i++) {
		const struct netperf_out *np = t->procs[i].priv;
		json_object *pf = json_object_array_get_idx(procs, i);

		if (!np->final) {
			if (!t->stopping)
				snprintf(why, size, "netperf #%zu printed no result%s%s", i,
				         t->procs[i].last_words[0] ? ": " : "",
				         t->procs[i].last_words);
			continue;
		}
		n++;
		if (rr) {
			trans += np->transaction_rate;
			json_add_double(pf, "transactions_per_s", np->transaction_rate);
			json_add_double(pf, "latency_us", 1e6 / np->transaction_rate);
			if (!isnan(np->mean_latency_us)) {
				lat += np->mean_latency_us;
				nlat++;
				json_add_double(pf, "mean_latency_us", np->mean_latency_us);
			}
			if (!isnan(np->p99_latency_us) && np->p99_latency_us > p99)
				p99 = np->p99_latency_us;
		} else {
			tput += np->throughput;
			json_add_double(pf,
			                strcmp(np->units, "10^6bits/s") == 0 ? "throughput_mbps"
			                                                     : "throughput",
			                np->throughput);
			if (udp)
				udp_proc(np, pf, &usum);
		}
		if (t->spec.cpu_util) {
			json_add_double(pf, "local_cpu_pct", np->local_cpu_pct);
			json_add_double(pf, "remote_cpu_pct", np->remote_cpu_pct);
			cpu_sum(&lcpu, np->local_cpu_pct);
			cpu_sum(&rcpu, np->remote_cpu_pct);
		}
		json_add_double(pf, "elapsed_s", np->elapsed_s);
		json_add_double(pf, "bytes_sent", np->bytes_sent);
		json_add_double(pf, "bytes_recvd", np->bytes_recvd);
	}
	json_add_uint(figs, "procs_reporting", n);
	if (n == 0)
		return t->stopping ? 0 : -1;
	if (rr) {
		json_add_double(figs, "transactions_per_s", trans);
		json_add_double(figs, "transactions_per_s_per_proc", trans / n);
		/* The kit's figure: one transaction's round trip, from the rate. */
		json_add_double(figs, "latency_us", 1e6 / (trans / n));
		json_add_double(figs, "mean_latency_us", nlat ? lat / nlat : NAN);
		json_add_double(figs, "p99_latency_us_max", nlat ? p99 : NAN);
	} else
		json_add_double(figs, "throughput_mbps", tput);
	if (udp)
		add_udp(figs, &usum);
	if (t->spec.cpu_util) {
		/* Each process measured the whole machine's CPUs over the same span: their mean. */
		json_add_double(figs, "local_cpu_pct", lcpu.n ? lcpu.sum / lcpu.n : NAN);
		json_add_double(figs, "remote_cpu_pct", rcpu.n ? rcpu.sum / rcpu.n : NAN);
	}
	return n == t->nprocs || t->stopping ? 0 : -1;
}

const struct driver driver_netperf = {
    .name = "netperf",
    .program = "netperf",
    .args = (const char *const[]){"rcvbuf", "cpu_util", NULL},
    .version_args = (const char *const[]){"-V", NULL},
    .server_argv = (const char *const[]){"netserver", "-D", NULL},
    .priv_size = sizeof(struct netperf_out),
    .check = netperf_check,
    .nprocs = netperf_nprocs,
    .argv = netperf_argv,
    .proc_init = netperf_proc_init,
    .on_line = netperf_line,
    .live = netperf_live,
    .figures = netperf_figures,
};
