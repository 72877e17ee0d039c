/* runner-spec.c: a test's arguments (as test start and suites give them) checked and
 * completed into a struct test_spec: the kit's defaults for warm-up and cool-down, CPU lists
 * that exist, the driver's own checks. Nothing is started here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "runner.h"
#include "timeutil.h"
#include "trend.h"
#include "xmalloc.h"

#define WARMUP_S      2.0
#define WARMUP_LONG_S 5.0 /* for tests over LONG_TEST_S */
#define LONG_TEST_S   60.0
#define COOLDOWN_S    2.0

/* Copy a string argument into a fixed field; -1 with err when it does not fit. */
static int
copy_arg(json_object *args, const char *key, char *dst, size_t size, struct nm_error *err)
{
	const char *v = json_get_string(args, key, "");

	if (strlen(v) >= size)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "argument \"%s\": longer than %zu bytes",
		                    key, size - 1);
	snprintf(dst, size, "%s", v);
	return 0;
}

/* The CPUs online on this host. */
static int
online_cpus(struct cpuset *set, struct nm_error *err)
{
	char buf[4096];
	FILE *fp = fopen("/sys/devices/system/cpu/online", "re");
	size_t n;

	if (fp == NULL)
		return nm_error_set(err, NM_ERR_FAILED,
		                    "cannot read /sys/devices/system/cpu/online");
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return cpuset_parse_list(set, buf, err);
}

/* Parse a CPU list argument; local ones must be online here. */
static int
cpus_arg(json_object *args, const char *key, bool local, struct cpuset *set, struct nm_error *err)
{
	const char *v = json_get_string(args, key, NULL);
	struct cpuset online;
	struct nm_error e;

	cpuset_zero(set);
	if (v == NULL || *v == '\0')
		return 0;
	if (cpuset_parse_any(set, v, &e) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "argument \"%s\": %s", key, e.message);
	if (!local)
		return 0;
	if (online_cpus(&online, err) < 0)
		return -1;
	for (int c = 0; c <= cpuset_last(set); c++)
		if (cpuset_has(set, (unsigned)c) && !cpuset_has(&online, (unsigned)c)) {
			char list[256];
			cpuset_format_list(&online, list, sizeof(list));
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "argument \"%s\": CPU %d is not online here (online: %s)", key, c,
			    list);
		}
	return 0;
}

/* The exec command: args.argv. */
static int
argv_arg(json_object *args, struct test_spec *spec, struct nm_error *err)
{
	json_object *a;
	size_t n;

	if (!json_object_object_get_ex(args, "argv", &a))
		return 0;
	n = json_object_array_length(a);
	if (n == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "argument \"argv\": empty command");
	if (n > TEST_ARGV_MAX)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "argument \"argv\": more than %d words",
		                    TEST_ARGV_MAX);
	spec->argv = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		spec->argv[i] = xstrdup(json_object_get_string(json_object_array_get_idx(a, i)));
	return 0;
}

/* The exec figures: "NAME=REGEX" each. */
static int
figures_arg(json_object *args, struct test_spec *spec, struct nm_error *err)
{
	json_object *a;
	size_t n;

	if (!json_object_object_get_ex(args, "figure", &a))
		return 0;
	n = json_object_array_length(a);
	if (n > TEST_FIGURES_MAX)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "at most %d --figure", TEST_FIGURES_MAX);
	spec->figures = xcalloc(n ? n : 1, sizeof(*spec->figures));
	for (size_t i = 0; i < n; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(a, i));
		const char *eq = strchr(s, '=');
		struct test_figure_rx *f = &spec->figures[i];
		char msg[128];
		int rc;

		if (eq == NULL || eq == s || (size_t)(eq - s) >= sizeof(f->name) ||
		    strlen(eq + 1) >= sizeof(f->pattern) || eq[1] == '\0')
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "--figure \"%s\": give NAME=REGEX (NAME up to 63 bytes)", s);
		for (const char *c = s; c < eq; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			      (*c >= '0' && *c <= '9') || *c == '_'))
				return nm_error_set(
				    err, NM_ERR_BAD_ARGS,
				    "--figure \"%s\": NAME is letters, digits and '_'", s);
		snprintf(f->name, sizeof(f->name), "%.*s", (int)(eq - s), s);
		snprintf(f->pattern, sizeof(f->pattern), "%s", eq + 1);
		if ((rc = regcomp(&f->re, f->pattern, REG_EXTENDED | REG_NEWLINE)) != 0) {
			regerror(rc, &f->re, msg, sizeof(msg));
			return nm_error_set(err, NM_ERR_BAD_ARGS, "--figure %s: bad regex: %s",
			                    f->name, msg);
		}
		spec->nfigures++;
	}
	return 0;
}

/* A default name: DRIVER-YYYYmmddTHHMMSS. */
static void
default_name(const struct test_spec *spec, char *buf, size_t size)
{
	char ts[40];

	time_format_rfc3339(time_real_ns(), ts, sizeof(ts));
	/* 2026-11-30T02:26:51.123Z -> 20261130T022651 */
	snprintf(buf, size, "%s-%.4s%.2s%.2sT%.2s%.2s%.2s", spec->driver->name, ts, ts + 5, ts + 8,
	         ts + 11, ts + 14, ts + 17);
}

/* Refuse argument key, given to a driver that does not take it (struct driver.args): "WHAT
 * is for --driver TAKERS", then hint. WHAT: argument "KEY" unless given. */
static int
refuse_arg(const char *key, const char *what, const char *hint, struct nm_error *err)
{
	char takers[128], arg[80];

	if (what == NULL) {
		snprintf(arg, sizeof(arg), "argument \"%s\"", key);
		what = arg;
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS, "%s is for --driver %s%s", what,
	                    driver_takers(key, " or ", takers, sizeof(takers)),
	                    hint != NULL ? hint : "");
}

/* The packet generator's arguments (drivers with packet_args); the driver checks them. */
static int
packet_args(json_object *args, struct test_spec *spec, struct nm_error *err)
{
	static const char *const keys[] = {"dev",   "dst_min", "dst_max", "dst_mac",
	                                   "src",   "flows",   "flowlen", "clone_skb",
	                                   "delay", "count",   "threads", "rate"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!driver_takes(spec->driver, keys[i]) &&
		    json_object_object_get_ex(args, keys[i], NULL))
			return refuse_arg(keys[i], NULL, NULL, err);
	if (!spec->driver->packet_args)
		return 0;
	if (copy_arg(args, "dev", spec->dev, sizeof(spec->dev), err) < 0 ||
	    copy_arg(args, "dst_min", spec->dst_min, sizeof(spec->dst_min), err) < 0 ||
	    copy_arg(args, "dst_max", spec->dst_max, sizeof(spec->dst_max), err) < 0 ||
	    copy_arg(args, "dst_mac", spec->dst_mac, sizeof(spec->dst_mac), err) < 0 ||
	    copy_arg(args, "src", spec->src, sizeof(spec->src), err) < 0)
		return -1;
	spec->flows = (unsigned)json_get_int(args, "flows", 0);
	spec->flowlen = (unsigned)json_get_int(args, "flowlen", 0);
	spec->clone_skb = (unsigned)json_get_int(args, "clone_skb", 0);
	spec->threads = (unsigned)json_get_int(args, "threads", 0);
	spec->delay_ns = (uint64_t)json_get_int(args, "delay", 0);
	spec->count = (uint64_t)json_get_int(args, "count", 0);
	spec->rate_pps = json_get_double(args, "rate", 0);
	return 0;
}

/* Warm-up, cool-down and duration: defaults and their fit. */
static int
timing(json_object *args, struct test_spec *spec, struct nm_error *err)
{
	json_object *v;

	/* A packet count ends a test by itself, as exec's command does. */
	bool runs_out = !(spec->driver->program || spec->driver->program_of) || spec->count > 0;

	spec->duration_s = json_get_double(args, "duration", runs_out ? 0 : 10);
	if (json_object_object_get_ex(args, "warmup", &v))
		spec->warmup_s = json_object_get_double(v);
	else if (spec->duration_s == 0)
		spec->warmup_s = 0;
	else
		spec->warmup_s = spec->duration_s > LONG_TEST_S ? WARMUP_LONG_S : WARMUP_S;
	if (json_object_object_get_ex(args, "cooldown", &v))
		spec->cooldown_s = json_object_get_double(v);
	else
		spec->cooldown_s = spec->duration_s == 0 ? 0 : COOLDOWN_S;
	if (spec->duration_s == 0 && spec->cooldown_s > 0)
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "--cooldown needs --duration (the cool-down is counted back from "
		    "the end)");
	if (spec->duration_s > 0 && spec->warmup_s + spec->cooldown_s >= spec->duration_s)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "warm-up %.1f s + cool-down %.1f s leave no window in a %.1f s "
		                    "test (--warmup, --cooldown, --duration)",
		                    spec->warmup_s, spec->cooldown_s, spec->duration_s);
	return 0;
}

/* trend_threshold, ... into spec->trend_args as trend's threshold, ... */
static void
trend_args(json_object *args, struct test_spec *spec)
{
	static const char *const keys[][2] = {{"trend_threshold", "threshold"},
	                                      {"trend_recover", "recover"},
	                                      {"trend_sustain", "sustain"},
	                                      {"trend_plateau", "plateau"},
	                                      {"trend_step", "step"}};
	json_object *v;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!json_object_object_get_ex(args, keys[i][0], &v))
			continue;
		if (spec->trend_args == NULL)
			spec->trend_args = json_object_new_object();
		json_object_object_add(spec->trend_args, keys[i][1], json_object_get(v));
	}
}

/* --generator-on PEER: for the packet generator only, and PEER is one of the test's peers
 * (added when not named): its window opens and closes there too. */
static int
generator_peer(struct test_spec *spec, struct nm_error *err)
{
	json_object *peers;
	bool named = false;
	char servers[128] = "", hint[200];
	const struct driver *d;

	if (!driver_takes(spec->driver, "generator_on")) {
		/* " (netperf and iperf3 start their server on the first --peer)" */
		for (size_t i = 0, n = 0; (d = driver_at(i)) != NULL; i++)
			if (d->server_argv != NULL)
				snprintf(servers + strlen(servers),
				         sizeof(servers) - strlen(servers), "%s%s",
				         n++ ? " and " : "", d->name);
		snprintf(hint, sizeof(hint), " (%s start their server on the first --peer)",
		         servers);
		return refuse_arg("generator_on", "--generator-on", hint, err);
	}
	peers = json_object_new_array();
	for (size_t i = 0; spec->peers != NULL && i < json_object_array_length(spec->peers); i++) {
		json_object *p = json_object_array_get_idx(spec->peers, i);
		named |= strcmp(json_object_get_string(p), spec->generator_on) == 0;
		json_object_array_add(peers, json_object_get(p));
	}
	if (!named)
		json_object_array_add(peers, json_object_new_string(spec->generator_on));
	json_object_put(spec->peers);
	spec->peers = peers;
	return 0;
}

/* Parse and check test start's arguments. */
int
runner_spec_parse(struct runner *r, json_object *args, struct test_spec *spec, struct nm_error *err)
{
	const char *drv = json_get_string(args, "driver", "netperf");
	json_object *vars;

	(void)r;
	memset(spec, 0, sizeof(*spec));
	if ((spec->driver = driver_find(drv)) == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "unknown driver \"%s\" (drivers: %s)",
		                    drv, driver_names());
	if (copy_arg(args, "name", spec->name, sizeof(spec->name), err) < 0 ||
	    copy_arg(args, "type", spec->type, sizeof(spec->type), err) < 0 ||
	    copy_arg(args, "host", spec->host, sizeof(spec->host), err) < 0 ||
	    copy_arg(args, "port", spec->port, sizeof(spec->port), err) < 0 ||
	    copy_arg(args, "netns", spec->netns, sizeof(spec->netns), err) < 0 ||
	    copy_arg(args, "profile", spec->profile, sizeof(spec->profile), err) < 0 ||
	    copy_arg(args, "suite", spec->suite, sizeof(spec->suite), err) < 0 ||
	    copy_arg(args, "trend", spec->trend, sizeof(spec->trend), err) < 0 ||
	    copy_arg(args, "generator_on", spec->generator_on, sizeof(spec->generator_on), err) < 0)
		goto fail;
	if (spec->name[0] == '\0')
		default_name(spec, spec->name, sizeof(spec->name));
	spec->procs = (unsigned)json_get_int(args, "procs", 1);
	spec->size = (unsigned)json_get_int(args, "size", 0);
	spec->rcvbuf = (unsigned)json_get_int(args, "rcvbuf", 0);
	trend_args(args, spec);
	if (spec->trend_args != NULL &&
	    json_get_double(spec->trend_args, "recover", TREND_RECOVER) <
	        json_get_double(spec->trend_args, "threshold", TREND_THRESHOLD)) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "--trend-recover is below --trend-threshold");
		goto fail;
	}
	if (spec->rcvbuf && !driver_takes(spec->driver, "rcvbuf")) {
		refuse_arg("rcvbuf", NULL, NULL, err);
		goto fail;
	}
	spec->cpu_util = json_get_bool(args, "cpu_util", false);
	if (spec->cpu_util && !driver_takes(spec->driver, "cpu_util")) {
		refuse_arg("cpu_util", NULL,
		           " (netperf's -c -C; the report's cpu figures cover every driver)", err);
		goto fail;
	}
	spec->replace = json_get_bool(args, "replace", false);
	spec->bpf = json_get_bool(args, "bpf", false);
	/* Checked against the configured peers by test-start (cmd-test-start.c). */
	if (json_object_object_get_ex(args, "peer", &vars) && json_object_array_length(vars) > 0)
		spec->peers = json_object_get(vars);
	if (spec->generator_on[0] && generator_peer(spec, err) < 0)
		goto fail;
	if (json_object_object_get_ex(args, "profile_vars", &vars) &&
	    json_object_is_type(vars, json_type_object))
		spec->profile_vars = json_object_get(vars);
	if (spec->procs < 1 || spec->procs > TEST_PROCS_MAX) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "--procs: 1 to %d", TEST_PROCS_MAX);
		goto fail;
	}
	if (cpus_arg(args, "local_cpus", true, &spec->local_cpus, err) < 0 ||
	    cpus_arg(args, "remote_cpus", false, &spec->remote_cpus, err) < 0 ||
	    argv_arg(args, spec, err) < 0 || figures_arg(args, spec, err) < 0 ||
	    packet_args(args, spec, err) < 0 || timing(args, spec, err) < 0 ||
	    spec->driver->check(spec, err) < 0)
		goto fail;
	return 0;
fail:
	runner_spec_free(spec);
	return -1;
}
