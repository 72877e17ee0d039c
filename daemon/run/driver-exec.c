/* driver-exec.c: any command (argv after --), --procs copies of it; figures lifted from its
 * output with --figure NAME=REGEX (the last match; the first group, or the whole match, is
 * the number). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jsonutil.h"
#include "runner.h"
#include "child.h"
#include "xmalloc.h"

/* Check the spec: a command, nothing netperf-like. */
static int
exec_check(struct test_spec *s, struct nm_error *err)
{
	if (s->argv == NULL)
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "--driver exec needs a command after --: test start --driver exec "
		    "--name t2 -- /usr/bin/stress-ng --cpu 2 -t 10");
	if (s->host[0] || s->type[0] || s->size)
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "--host, --type and --size are for netperf and iperf3; give the "
		    "command's own options after --");
	if (!cpuset_empty(&s->local_cpus) || !cpuset_empty(&s->remote_cpus))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--local-cpus/--remote-cpus pin netperf and iperf3; pin a "
		                    "command with taskset after --");
	return 0;
}

static unsigned
exec_nprocs(const struct test_spec *s)
{
	return s->procs;
}

/* The command, with its program resolved. */
static char **
exec_argv(const struct test_spec *s, const char *program, const struct test_proc *p)
{
	size_t n = 0;
	char **v;

	(void)p;
	while (s->argv[n] != NULL)
		n++;
	v = runner_strv((const char *const *)s->argv, n);
	free(v[0]);
	v[0] = xstrdup(program);
	return v;
}

/* The number of the last match of f in text, or NAN. */
static double
lift(const struct test_figure_rx *f, const char *text)
{
	regmatch_t m[2];
	const char *p = text;
	double v = NAN;
	int flags = 0;

	while (*p && regexec(&f->re, p, 2, m, flags) == 0) {
		regmatch_t *g = m[1].rm_so >= 0 ? &m[1] : &m[0];
		char buf[64], *end;
		int len = (int)(g->rm_eo - g->rm_so);

		snprintf(buf, sizeof(buf), "%.*s", len, p + g->rm_so);
		double d = strtod(buf, &end);
		if (end != buf && isfinite(d))
			v = d;
		if (m[0].rm_eo == 0)
			break; /* an empty match would not move on */
		p += m[0].rm_eo;
		flags = REG_NOTBOL;
	}
	return v;
}

/* Lift each --figure from each process's output; a figure is summed over processes. */
static int
exec_figures(struct test *t, json_object *figs, json_object *procs, char *why, size_t size)
{
	(void)why;
	(void)size;
	for (size_t f = 0; f < t->spec.nfigures; f++) {
		const struct test_figure_rx *rx = &t->spec.figures[f];
		double sum = 0;
		unsigned found = 0;

		for (size_t i = 0; i < t->nprocs; i++) {
			size_t len;
			bool cut;
			double v;

			if (t->procs[i].sp == NULL)
				continue;
			v = lift(rx, child_stdout(t->procs[i].sp, &len, &cut));
			json_object_object_add(json_object_array_get_idx(procs, i), rx->name,
			                       isnan(v) ? NULL : json_double(v));
			if (!isnan(v)) {
				sum += v;
				found++;
			}
		}
		json_object_object_add(figs, rx->name, found ? json_double(sum) : NULL);
	}
	return 0;
}

const struct driver driver_exec = {
    .name = "exec",
    .program = NULL,
    .args = NULL,
    .server_argv = NULL,
    .check = exec_check,
    .nprocs = exec_nprocs,
    .argv = exec_argv,
    .figures = exec_figures,
};
