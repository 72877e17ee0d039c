/* driver-iperf3.c: one iperf3 client with --procs parallel streams (-P), its --json output
 * parsed at the end. iperf3 pins a whole process (-A), so only the first CPU of each list
 * is used. It prints no interim figures in JSON mode, so there is no live throughput. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "jsonutil.h"
#include "parse-iperf3.h"
#include "runner.h"
#include "child.h"

/* Check the spec: a host, a stream test. */
static int
iperf3_check(struct test_spec *s, struct nm_error *err)
{
	if (s->argv != NULL)
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "--driver iperf3 takes no command after -- (use --driver exec)");
	if (s->host[0] == '\0')
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--driver iperf3 needs --host (where iperf3 -s listens)");
	if (s->type[0] == '\0')
		snprintf(s->type, sizeof(s->type), "TCP_STREAM");
	if (strcmp(s->type, "TCP_STREAM") != 0 && strcmp(s->type, "TCP_MAERTS") != 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--type %s: iperf3 runs TCP_STREAM or TCP_MAERTS (reverse); "
		                    "request/response tests need --driver netperf",
		                    s->type);
	if (s->duration_s < 1 || s->duration_s != floor(s->duration_s))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--duration: iperf3 runs whole seconds (1 or more)");
	if (s->procs > 128)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--procs: iperf3 runs at most 128 streams");
	if (s->nfigures > 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "--figure is for --driver exec");
	return 0;
}

static unsigned
iperf3_nprocs(const struct test_spec *s)
{
	(void)s;
	return 1;
}

/* iperf3 -c HOST [-p PORT] -t D -P N [-l SIZE] [-R] [-A L[,R]] -J -i 0 */
static char **
iperf3_argv(const struct test_spec *s, const char *program, const struct test_proc *p)
{
	char dur[32], par[16], size[16], pin[32];
	const char *w[24];
	size_t n = 0;

	snprintf(dur, sizeof(dur), "%.0f", s->duration_s);
	snprintf(par, sizeof(par), "%u", s->procs);
	w[n++] = program;
	w[n++] = "-c";
	w[n++] = s->host;
	if (s->port[0]) {
		w[n++] = "-p";
		w[n++] = s->port;
	}
	w[n++] = "-t";
	w[n++] = dur;
	w[n++] = "-P";
	w[n++] = par;
	if (s->size) {
		snprintf(size, sizeof(size), "%u", s->size);
		w[n++] = "-l";
		w[n++] = size;
	}
	if (strcmp(s->type, "TCP_MAERTS") == 0)
		w[n++] = "-R";
	if (p->local_cpu >= 0) {
		if (p->remote_cpu >= 0)
			snprintf(pin, sizeof(pin), "%d,%d", p->local_cpu, p->remote_cpu);
		else
			snprintf(pin, sizeof(pin), "%d", p->local_cpu);
		w[n++] = "-A";
		w[n++] = pin;
	}
	w[n++] = "-J";
	w[n++] = "-i";
	w[n++] = "0";
	return runner_strv(w, n);
}

/* The figures from the JSON document. */
static int
iperf3_figures(struct test *t, json_object *figs, json_object *procs, char *why, size_t size)
{
	struct iperf3_out out;
	const char *text;
	size_t len;
	bool cut;

	if (t->nprocs == 0 || t->procs[0].sp == NULL)
		return 0;
	text = child_stdout(t->procs[0].sp, &len, &cut);
	if (len == 0 && t->stopping)
		return 0;
	if (cut) {
		snprintf(why, size, "iperf3 output passed %u bytes; not parsed", CHILD_STDOUT_MAX);
		return -1;
	}
	if (parse_iperf3_json(text, len, &out) < 0 || out.error[0]) {
		snprintf(why, size, "iperf3: %s", out.error);
		return t->stopping ? 0 : -1;
	}
	json_add_double(figs, "throughput_mbps", out.sent_bps / 1e6);
	json_add_double(figs, "received_mbps", out.received_bps / 1e6);
	json_add_double(figs, "bytes_sent", out.sent_bytes);
	json_add_double(figs, "bytes_received", out.received_bytes);
	json_add_double(figs, "retransmits", out.retransmits);
	json_add_double(figs, "cpu_local_pct", out.cpu_host_pct);
	json_add_double(figs, "cpu_remote_pct", out.cpu_remote_pct);
	json_add_uint(figs, "streams", out.streams);
	json_add_double(json_object_array_get_idx(procs, 0), "seconds", out.seconds);
	return 0;
}

const struct driver driver_iperf3 = {
    .name = "iperf3",
    .program = "iperf3",
    .args = NULL,
    .version_args = (const char *const[]){"--version", NULL},
    .server_argv = (const char *const[]){"iperf3", "-s", NULL},
    .check = iperf3_check,
    .nprocs = iperf3_nprocs,
    .argv = iperf3_argv,
    .figures = iperf3_figures,
};
