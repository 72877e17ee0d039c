/* runner.c: the life of a test: profile, processes, warm-up, the measured window, cool-down,
 * the processes' exits, the figures, the stored result, the profile taken back. Timers and
 * exits arrive on the loop; nothing here waits, except at shutdown. */
#include <errno.h>
#include <event2/event.h>
#include <grp.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "clientfd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "profile.h"
#include "query.h"
#include "sampler.h"
#include "seriesblock.h"
#include "series.h"
#include "results.h"
#include "peer-generator.h"
#include "peer-window.h"
#include "privsep.h"
#include "runner.h"
#include "source-bpf.h"
#include "child.h"
#include "testseries.h"
#include "timeutil.h"
#include "trend.h"
#include "usergroups.h"
#include "window.h"
#include "xmalloc.h"

#define KILL_GRACE_SEC     5  /* SIGTERM, then SIGKILL this much later */
#define DEADLINE_SLACK_SEC 30 /* past duration before a test counts as hung */
#define SHUTDOWN_WAIT_MS   3000
#define GROUPS_MAX         256 /* supplementary groups a test's processes get */

struct runner {
	struct daemon *d;
	struct children *cs;
	struct cgroup_tree *cg; /* NULL: no cgroup v2; process groups are killed instead */
	struct query *q;        /* the runner's own: the busiest link, the trend of a test */
	char no_cgroup_why[256];
	unsigned resolving;  /* runner_resolve calls not yet done */
	bool stopping;       /* runner_free has begun: nothing starts */
	struct test **tests; /* running first, in start order; then finished, newest last */
	size_t n, cap;
};

static const char *const state_names[] = {
    [TEST_STARTING] = "starting", [TEST_WARMUP] = "warmup",       [TEST_MEASURING] = "measuring",
    [TEST_COOLDOWN] = "cooldown", [TEST_FINISHING] = "finishing", [TEST_PASSED] = "passed",
    [TEST_FAILED] = "failed",     [TEST_STOPPED] = "stopped",     [TEST_INCOMPLETE] = "incomplete",
};

const char *
runner_state_name(enum test_state s)
{
	return state_names[s];
}

bool
runner_finished(const struct test *t)
{
	return t->state >= TEST_PASSED;
}

/* ---- helpers the drivers share ---- */

char **
runner_strv(const char *const *words, size_t n)
{
	char **v = xcalloc(n + 1, sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = xstrdup(words[i]);
	return v;
}

void
runner_strv_free(char **v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

int
runner_cpu_for(const struct cpuset *set, unsigned i)
{
	unsigned n = cpuset_count(set);

	return n == 0 ? -1 : cpuset_nth(set, i % n);
}

double
runner_elapsed(const struct test *t)
{
	uint64_t end = t->end_mono_ns ? t->end_mono_ns : time_mono_ns();

	return (double)(end - t->start_mono_ns) / 1e9;
}

/* ---- the registry ---- */

struct runner *
runner_init(struct daemon *d, struct nm_error *err)
{
	struct runner *r;
	struct children *cs;

	if ((cs = child_init(d->base, err)) == NULL)
		return NULL;
	r = xcalloc(1, sizeof(*r));
	r->d = d;
	r->cs = cs;
	r->q = query_new(d->sampler);
	r->cg =
	    cgroup_open(d->base, d->config.state_dir, r->no_cgroup_why, sizeof(r->no_cgroup_why));
	if (r->cg != NULL)
		log_info("tests run in cgroups under %s", cgroup_path(r->cg));
	else
		log_warnx("tests are not isolated in cgroups (%s): what a test leaves behind "
		          "is killed by its process group only",
		          r->no_cgroup_why);
	return r;
}

struct children *
runner_children(struct runner *r)
{
	return r->cs;
}

const char *
runner_cgroup_path(const struct runner *r)
{
	return r->cg != NULL ? cgroup_path(r->cg) : NULL;
}

json_object *
runner_isolation_json(const struct runner *r)
{
	json_object *o = json_object_new_object(), *pl = json_object_new_object();
	unsigned pmax = r->d->config.test_pids_max;
	const char *no_pids = NULL;
	bool pids = r->cg != NULL && cgroup_has_pids(r->cg, &no_pids);

	if (r->cg != NULL) {
		json_add_string(o, "isolation", "cgroup");
		json_add_string(o, "cgroup", cgroup_path(r->cg));
	} else {
		json_add_string(o, "isolation", "process-group");
		json_add_string(o, "reason", r->no_cgroup_why);
	}
	/* What bounds a test's processes: the group's pids.max where the tree has the pids
	 * controller, else RLIMIT_NPROC for a test of a client other than root. */
	json_add_string(pl, "by", pmax == 0 ? "none" : pids ? "cgroup" : "rlimit");
	if (pmax > 0)
		json_add_uint(pl, "max", pmax);
	else
		json_object_object_add(pl, "max", NULL);
	if (pmax > 0 && !pids)
		json_add_string(pl, "reason",
		                r->cg == NULL ? r->no_cgroup_why
		                : no_pids     ? no_pids
		                              : "");
	json_object_object_add(o, "pids_limit", pl);
	json_add_string(o, "work_dir", child_work_dir());
	json_add_string(o, "path", child_search_path());
	return o;
}

size_t
runner_running(const struct runner *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += !runner_finished(r->tests[i]);
	return n;
}

struct test *
runner_find(struct runner *r, const char *name)
{
	for (size_t i = r->n; i-- > 0;)
		if (strcmp(r->tests[i]->spec.name, name) == 0)
			return r->tests[i];
	return NULL;
}

struct seriesblock *
runner_live_block(struct runner *r, const char *name, uint64_t t0, uint64_t t1)
{
	struct test *t = r != NULL ? runner_find(r, name) : NULL;

	if (t == NULL || t->live_series == NULL || !t->window_open || t->window_stored)
		return NULL;
	return seriesblock_test_add(NULL, t->live_series, t0, t1,
	                            sampler_mono_to_real(r->d->sampler));
}

void
runner_spec_free(struct test_spec *spec)
{
	for (size_t i = 0; i < spec->nfigures; i++)
		regfree(&spec->figures[i].re);
	free(spec->figures);
	runner_strv_free(spec->argv);
	json_object_put(spec->profile_vars);
	json_object_put(spec->trend_args);
	json_object_put(spec->peers);
	clientfd_unref(spec->cred.peer);
	memset(spec, 0, sizeof(*spec));
}

/* Free a test that has no process left running. Its procs may not be allocated yet (a
 * profile refused before them): nprocs is set first, so procs decides. */
static void
test_free(struct test *t)
{
	for (size_t i = 0; t->procs != NULL && i < t->nprocs; i++) {
		child_free(t->procs[i].sp);
		runner_strv_free(t->procs[i].argv);
		free(t->procs[i].priv);
	}
	free(t->procs);
	child_free(t->version_sp);
	if (t->ev_warmup)
		event_free(t->ev_warmup);
	if (t->ev_cooldown)
		event_free(t->ev_cooldown);
	if (t->ev_deadline)
		event_free(t->ev_deadline);
	if (t->ev_kill)
		event_free(t->ev_kill);
	if (t->ev_end)
		event_free(t->ev_end);
	peergen_free(t->gen);
	json_object_put(t->gen_summary);
	json_object_put(t->summary);
	if (t->live_series != NULL)
		testseries_free(t->live_series);
	free(t->live_series);
	runner_spec_free(&t->spec);
	free(t);
}

/* Keep at most TEST_KEEP_MAX finished tests: forget the oldest, never keep (which the
 * caller still uses). */
static void
trim(struct runner *r, const struct test *keep)
{
	size_t finished = 0;

	for (size_t i = 0; i < r->n; i++)
		finished += runner_finished(r->tests[i]);
	for (size_t i = 0; i < r->n && finished > TEST_KEEP_MAX;) {
		if (!runner_finished(r->tests[i]) || r->tests[i] == keep) {
			i++;
			continue;
		}
		test_free(r->tests[i]);
		memmove(r->tests + i, r->tests + i + 1, (r->n - i - 1) * sizeof(*r->tests));
		r->n--;
		finished--;
	}
}

/* ---- the description of a test ---- */

/* A CPU set as a list, or null when empty. */
static void
add_cpus(json_object *o, const char *key, const struct cpuset *set)
{
	char buf[1024];

	if (cpuset_empty(set)) {
		json_object_object_add(o, key, NULL);
		return;
	}
	cpuset_format_list(set, buf, sizeof(buf));
	json_add_string(o, key, buf);
}

/* The packet generator's arguments, as the driver completed them. */
static void
generator_json(const struct test_spec *s, json_object *o)
{
	json_add_string(o, "generator", s->generator);
	if (s->generator_on[0])
		json_add_string(o, "generator_on", s->generator_on);
	json_add_string(o, "dev", s->dev);
	json_add_string(o, "dst_min", s->dst_min);
	json_add_string(o, "dst_max", s->dst_max);
	json_add_string(o, "dst_mac", s->dst_mac);
	json_add_string(o, "src", s->src);
	json_add_string(o, "src_mac", s->src_mac);
	json_add_uint(o, "flows", s->flows);
	json_add_uint(o, "flowlen", s->flowlen);
	json_add_uint(o, "clone_skb", s->clone_skb);
	json_add_uint(o, "threads", s->threads);
	json_object_object_add(o, "count",
	                       s->count ? json_object_new_int64((int64_t)s->count) : NULL);
	json_object_object_add(o, "delay_ns",
	                       s->delay_ns ? json_object_new_int64((int64_t)s->delay_ns) : NULL);
	json_object_object_add(o, "rate_pps", s->rate_pps > 0 ? json_double(s->rate_pps) : NULL);
}

/* What was asked: the spec. */
static void
spec_json(const struct test_spec *s, json_object *o)
{
	json_add_string(o, "driver", s->driver->name);
	if (s->type[0])
		json_add_string(o, "type", s->type);
	if (s->host[0])
		json_add_string(o, "host", s->host);
	if (s->port[0])
		json_add_string(o, "port", s->port);
	if (s->netns[0])
		json_add_string(o, "netns", s->netns);
	json_add_uint(o, "procs", s->procs);
	json_object_object_add(o, "duration_s",
	                       s->duration_s > 0 ? json_double(s->duration_s) : NULL);
	if (s->size)
		json_add_uint(o, "size", s->size);
	if (s->rcvbuf)
		json_add_uint(o, "rcvbuf", s->rcvbuf);
	json_object_object_add(o, "warmup_s", json_double(s->warmup_s));
	json_object_object_add(o, "cooldown_s", json_double(s->cooldown_s));
	add_cpus(o, "local_cpus", &s->local_cpus);
	add_cpus(o, "remote_cpus", &s->remote_cpus);
	if (s->profile[0])
		json_add_string(o, "profile", s->profile);
	if (s->profile_vars != NULL)
		json_object_object_add(o, "profile_vars", json_object_get(s->profile_vars));
	if (s->suite[0])
		json_add_string(o, "suite", s->suite);
	if (s->driver->packet_args)
		generator_json(s, o);
	if (s->argv != NULL) {
		json_object *a = json_object_new_array();
		for (size_t i = 0; s->argv[i] != NULL; i++)
			json_object_array_add(a, json_object_new_string(s->argv[i]));
		json_object_object_add(o, "argv", a);
	}
	if (s->nfigures > 0) {
		json_object *f = json_object_new_object();
		for (size_t i = 0; i < s->nfigures; i++)
			json_add_string(f, s->figures[i].name, s->figures[i].pattern);
		json_object_object_add(o, "figure_patterns", f);
	}
}

/* One process as test status shows it. */
static json_object *
proc_json(const struct test_proc *p)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_add_uint(o, "index", p->index);
	if (p->sp != NULL)
		json_add_int(o, "pid", child_pid(p->sp));
	for (size_t i = 0; p->argv != NULL && p->argv[i] != NULL; i++)
		json_object_array_add(a, json_object_new_string(p->argv[i]));
	json_object_object_add(o, "argv", a);
	if (p->local_cpu >= 0)
		json_add_int(o, "local_cpu", p->local_cpu);
	if (p->remote_cpu >= 0)
		json_add_int(o, "remote_cpu", p->remote_cpu);
	json_add_string(o, "state", p->finished ? p->ended : "running");
	if (p->finished && p->last_words[0] && (p->exit_status != 0 || p->exit_signal != 0))
		json_add_string(o, "stderr", p->last_words);
	return o;
}

/* What bounds the number of the test's processes (runner.h: pids_by), once it started. */
static void
pids_json(const struct test *t, json_object *o)
{
	json_object *l;

	if (t->pids_by == NULL)
		return;
	l = json_object_new_object();
	json_add_string(l, "by", t->pids_by);
	if (t->pids_max > 0)
		json_add_uint(l, "max", t->pids_max);
	else
		json_object_object_add(l, "max", NULL);
	json_object_object_add(o, "pids_limit", l);
}

/* A running test as test status shows it. */
json_object *
runner_test_json(const struct test *t)
{
	json_object *o, *live, *procs;
	char ts[40];

	/* Finished, its result on its way to disk: not yet a status to act on. */
	if (t->summary != NULL && t->storing) {
		o = NULL;
		json_object_deep_copy(t->summary, &o, NULL);
		json_object_object_del(o, "status");
		json_add_string(o, "state", "storing");
		return o;
	}
	if (t->summary != NULL)
		return json_object_get(t->summary);
	o = json_object_new_object();
	json_add_string(o, "name", t->spec.name);
	spec_json(&t->spec, o);
	/* Ending: its processes were told to go and have not all gone yet. */
	json_add_string(o, "state", t->stopping ? "stopping" : runner_state_name(t->state));
	time_format_rfc3339(t->start_real_ns, ts, sizeof(ts));
	json_add_string(o, "started", ts);
	json_object_object_add(o, "elapsed_s", json_double(runner_elapsed(t)));
	json_add_bool(o, "window_open", t->window_open);
	live = json_object_new_object();
	if (t->spec.driver->live != NULL)
		t->spec.driver->live(t, live);
	json_object_object_add(o, "live", live);
	if (t->gen != NULL)
		json_object_object_add(o, "peer_generator", peergen_json(t->gen));
	procs = json_object_new_array();
	for (size_t i = 0; i < t->nprocs; i++)
		json_object_array_add(procs, proc_json(&t->procs[i]));
	json_object_object_add(o, "processes", procs);
	pids_json(t, o);
	if (t->reason[0])
		json_add_string(o, "reason", t->reason);
	return o;
}

/* Running tests first, then the finished. */
json_object *
runner_list_json(struct runner *r)
{
	json_object *a = json_object_new_array();

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < r->n; i++)
			if (runner_finished(r->tests[i]) == (pass == 1))
				json_object_array_add(a, runner_test_json(r->tests[i]));
	return a;
}

/* ---- the profile of a test ---- */

/* Apply the test's profile (with its ${VARS}); refuse when another is applied, since
 * taking ours back would take that one back too. 0 or -1 with err. */
static int
profile_put(struct runner *r, struct test *t, struct nm_error *err)
{
	struct daemon *d = r->d;
	struct profile_origin o = {t->spec.profile, "", 0, (int32_t)getpid()};
	struct profile_host h;
	struct profile p;
	struct plan pl;
	json_object *st;
	char path[4096];
	int rc = -1;

	if (profile_load_vars(&p, d->config.profile_dir, t->spec.profile, t->spec.profile_vars,
	                      path, sizeof(path), err) < 0)
		return -1;
	if (profile_host_open_sampled(&h, d->config.root, d->sampler, err) < 0) {
		profile_free(&p);
		return -1;
	}
	st = profile_state_status(d->config.state_dir, &h);
	if (json_get_bool(st, "applied", false) || json_get_int(st, "saved", 0) > 0) {
		nm_error_set(err, NM_ERR_BUSY,
		             "test %s: profile %s is applied already; a test applies its own "
		             "profile and takes it back, so revert that one first (profile revert)",
		             t->spec.name, json_get_string(st, "profile", "(unrecorded)"));
		json_object_put(st);
		goto out_host;
	}
	json_object_put(st);
	o.source = path;
	plan_init(&pl);
	if (profile_host_set_device(&h, p.device, err) == 0 && plan_build(&pl, &p, &h, err) == 0 &&
	    profile_apply(d->config.state_dir, &pl, &h, &o, err) == 0) {
		log_info("test %s: profile %s applied (%zu values written)", t->spec.name,
		         t->spec.profile, plan_nchanges(&pl));
		for (size_t i = 0; i < json_object_array_length(pl.skipped); i++)
			log_info("test %s: profile %s: %s", t->spec.name, t->spec.profile,
			         json_object_get_string(json_object_array_get_idx(pl.skipped, i)));
		t->profile_applied = true;
		rc = 0;
	}
	if (pl.irq_written)
		sampler_irq_refresh_affinity(d->sampler);
	plan_free(&pl);
out_host:
	profile_host_close(&h);
	profile_free(&p);
	if (rc < 0 && err != NULL && strncmp(err->message, "test ", 5) != 0)
		nm_error_prefix(err, err->code, "test %s: profile %s", t->spec.name,
		                t->spec.profile);
	return rc;
}

/* Take the test's profile back. Failures are logged and kept in the reason. */
static void
profile_take_back(struct runner *r, struct test *t)
{
	struct profile_host h;
	struct nm_error err;
	json_object *res;

	if (!t->profile_applied)
		return;
	t->profile_applied = false;
	if (profile_host_open_sampled(&h, r->d->config.root, r->d->sampler, &err) < 0) {
		log_warnx("test %s: profile %s not reverted: %s", t->spec.name, t->spec.profile,
		          err.message);
		return;
	}
	res = profile_state_revert(r->d->config.state_dir, &h, &err);
	profile_host_close(&h);
	sampler_irq_refresh_affinity(r->d->sampler);
	if (res == NULL)
		log_warnx("test %s: profile %s not reverted: %s", t->spec.name, t->spec.profile,
		          err.message);
	else
		log_info("test %s: profile %s reverted", t->spec.name, t->spec.profile);
	json_object_put(res);
}

/* ---- the window ---- */

/* The test's hold on the eBPF programs (test start --bpf): taken before its window opens,
 * let go once its end edge is taken. 1 held now, 0 not asked or held already, -1 with err. */
static int
bpf_hold(struct runner *r, struct test *t, struct nm_error *err)
{
	struct source *src;

	if (!t->spec.bpf)
		return 0;
	if ((src = sampler_source(r->d->sampler, "bpf")) == NULL)
		return nm_error_set(err, NM_ERR_UNSUPPORTED, "bpf: this daemon has no bpf source");
	return source_bpf_hold(src, t->spec.name, err);
}

static void
bpf_release(struct runner *r, struct test *t)
{
	struct source *src;

	if (t->spec.bpf && (src = sampler_source(r->d->sampler, "bpf")) != NULL)
		source_bpf_release(src, t->spec.name);
}

/* Open the test's window now. */
static int
window_begin(struct runner *r, struct test *t, struct nm_error *err)
{
	json_object *w;
	int held;

	if (t->window_open || t->window_stored)
		return 0;
	if ((held = bpf_hold(r, t, err)) < 0)
		return -1;
	/* The peers' edges go out at the moment this host takes its own (peer-window.h). */
	if (t->spec.peers != NULL)
		peerwin_edge_start(r->d->peerwins, t->spec.name, t->spec.peers);
	if ((w = window_start_replace(r->d->windows, t->spec.name, "test", t->spec.replace, err)) ==
	    NULL) {
		peerwin_forget(r->d->peerwins, t->spec.name);
		if (held == 1)
			bpf_release(r, t);
		return -1;
	}
	peerwin_local_edge(r->d->peerwins, t->spec.name,
	                   (uint64_t)json_get_int(w, "start_real_ns", 0));
	json_object_put(w);
	t->window_open = true;
	return 0;
}

/* Take the window's end edge now (on the peers too). 0, or -1 with err. */
static int
window_end(struct runner *r, struct test *t, struct nm_error *err)
{
	peerwin_edge_stop(r->d->peerwins, t->spec.name);
	if (window_freeze(r->d->windows, t->spec.name, err) < 0)
		return -1;
	bpf_release(r, t); /* the end edge is taken */
	peerwin_local_edge(r->d->peerwins, t->spec.name,
	                   window_edge_real_ns(r->d->windows, t->spec.name));
	t->window_frozen = true;
	return 0;
}

/* ---- ending a test ---- */

static void finish(struct test *t);
static void conclude(struct test *t);
static void started(struct test *t);

/* Send sig to every process still running. */
static void
kill_all(struct test *t, int sig)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].sp != NULL && child_running(t->procs[i].sp))
			child_kill(t->procs[i].sp, sig);
}

/* The grace after SIGTERM is over. */
static void
kill_cb(evutil_socket_t fd, short what, void *arg)
{
	struct test *t = arg;

	(void)fd;
	(void)what;
	if (t->nfinished == t->nprocs)
		return; /* none here (a generator on a peer: its daemon ends it) */
	log_warnx("test %s: processes still running %ds after SIGTERM; killing them", t->spec.name,
	          KILL_GRACE_SEC);
	kill_all(t, SIGKILL);
}

/* End the test early: as (failed, stopped, incomplete) with the reason; the processes get
 * SIGTERM, then SIGKILL. finish() runs when the last has exited. */
static void
end_early(struct test *t, enum test_state as, const char *reason)
{
	struct timeval tv = {KILL_GRACE_SEC, 0};

	if (t->stopping || t->concluding)
		return;
	t->stopping = true;
	t->stop_as = as;
	if (reason != t->reason)
		snprintf(t->reason, sizeof(t->reason), "%s", reason);
	log_info("test %s: ending (%s): %s", t->spec.name, runner_state_name(as), reason);
	/* The measured span ends here, not when the processes are gone. */
	if (t->window_open && !t->window_frozen) {
		struct nm_error err;
		window_end(t->runner, t, &err);
	}
	kill_all(t, SIGTERM);
	peergen_stop(t->gen); /* its end, there, is followed: then conclude */
	if (t->ev_kill == NULL)
		t->ev_kill = evtimer_new(t->runner->d->base, kill_cb, t);
	evtimer_add(t->ev_kill, &tv);
	if (t->nfinished == t->nprocs && t->state != TEST_STARTING)
		conclude(t);
}

/* The test object stored with the result and shown once finished. */
static json_object *
summary_json(struct test *t, json_object *figs, json_object *procfigs)
{
	json_object *o = json_object_new_object(), *procs = json_object_new_array();
	char ts[40];

	json_add_string(o, "name", t->spec.name);
	spec_json(&t->spec, o);
	json_add_string(o, "state", runner_state_name(t->state));
	json_add_string(o, "status", runner_state_name(t->state));
	if (t->reason[0])
		json_add_string(o, "reason", t->reason);
	if (t->program[0])
		json_add_string(o, "program", t->program);
	time_format_rfc3339(t->start_real_ns, ts, sizeof(ts));
	json_add_string(o, "started", ts);
	json_object_object_add(o, "elapsed_s", json_double(runner_elapsed(t)));
	json_object_object_add(o, "figures", figs);
	for (size_t i = 0; i < t->nprocs; i++) {
		json_object *p = proc_json(&t->procs[i]), *f;

		f = procfigs ? json_object_array_get_idx(procfigs, i) : NULL;
		if (f != NULL) {
			json_object_object_foreach(f, k, v)
			{
				json_object_object_add(p, k, json_object_get(v));
			}
		}
		json_object_array_add(procs, p);
	}
	json_object_object_add(o, "processes", procs);
	pids_json(t, o);
	return o;
}

/* Did the process fail: exit non-zero, or die by a signal other than the SIGTERM that
 * ended an until_stopped benchmark at its duration? */
static bool
proc_failed(const struct test *t, const struct test_proc *p)
{
	if (t->duration_over && p->exit_signal == SIGTERM)
		return false;
	return p->exit_status != 0 || p->exit_signal != 0;
}

/* The first process that failed, in words, into t->reason. */
static bool
first_failure(struct test *t)
{
	for (size_t i = 0; i < t->nprocs; i++) {
		struct test_proc *p = &t->procs[i];
		if (p->finished && proc_failed(t, p)) {
			snprintf(t->reason, sizeof(t->reason), "%s #%u (pid %d) %s%s%s",
			         t->spec.driver->name, p->index, p->sp ? (int)child_pid(p->sp) : -1,
			         p->ended, p->last_words[0] ? ": " : "", p->last_words);
			return true;
		}
	}
	return false;
}

/* The link that sent most packets over [t0, t1]: "link.DEV.tx_packets" into buf, or "". */
static void
busiest_link(struct runner *r, uint64_t t0, uint64_t t1, char *buf, size_t size)
{
	struct query *q = r->q;
	struct nm_error err;
	series_id *ids = NULL;
	uint64_t best = 0;
	size_t n, cap = 0;

	buf[0] = '\0';
	if (query_span(q, t0, t1, &err) < 0)
		return;
	n = query_match(q, "link.*.tx_packets", true, &ids, &cap);
	for (size_t i = 0; i < n; i++) {
		uint64_t dlt = query_delta(q, ids[i]);
		if (dlt > best) {
			best = dlt;
			snprintf(buf, size, "%s",
			         series_get(sampler_registry(r->d->sampler), ids[i])->name);
		}
	}
	free(ids);
}

/* The trend of the test's rate over its window (its end edge taken: the span the window
 * keeps), added to extra as "trend" when the rate was not steady (or always, when the test
 * named its series or the analysis' parameters). trend_window is what `trend --window`
 * runs too, and it takes these parameters from the stored trend: one verdict. */
static void
trend_of(struct runner *r, struct test *t, json_object *extra)
{
	json_object *args, *o;
	struct nm_error err;
	uint64_t t0, t1;
	char metric[257];
	const char *verdict;

	if (window_span(r->d->windows, t->spec.name, &t0, &t1, &err) < 0)
		return;
	snprintf(metric, sizeof(metric), "%s", t->spec.trend);
	if (metric[0] == '\0')
		busiest_link(r, t0, t1, metric, sizeof(metric));
	if (metric[0] == '\0')
		return;
	args = json_object_new_object();
	json_add_string(args, "metric", metric);
	if (t->spec.trend_args != NULL) {
		json_object_object_foreach(t->spec.trend_args, k, v)
		    json_object_object_add(args, k, json_object_get(v));
	}
	o = json_object_new_object();
	if (trend_window(r->d, r->q, t->spec.name, args, o, &err) < 0) {
		log_debug("test %s: no trend of %s: %s", t->spec.name, metric, err.message);
		json_object_put(o);
	} else {
		verdict = json_get_string(o, "verdict", "");
		if (t->spec.trend[0] || t->spec.trend_args != NULL ||
		    strncmp(verdict, "decay", 5) == 0)
			json_object_object_add(extra, "trend", o);
		else
			json_object_put(o);
	}
	json_object_put(args);
}

/* Disarm every timer of a finished test. */
static void
timers_stop(struct test *t)
{
	struct event *evs[] = {t->ev_warmup, t->ev_cooldown, t->ev_deadline, t->ev_kill, t->ev_end};

	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		if (evs[i] != NULL)
			evtimer_del(evs[i]);
}

/* The test's processes are gone: kill what they left behind (background jobs, daemons
 * they forked): its cgroup, or, without one, each process group. */
static void
leftovers_kill(struct test *t)
{
	if (t->has_cgroup) {
		cgroup_release(t->runner->cg, t->cgroup_id);
		t->has_cgroup = false;
		return;
	}
	for (size_t i = 0; i < t->nprocs; i++)
		child_kill_group(t->procs[i].sp);
}

/* The driver's teardown is over: the test finishes. */
static void
teardown_done(void *arg, int rc, const struct nm_error *err)
{
	struct test *t = arg;

	if (rc < 0)
		log_warnx("test %s: teardown: %s", t->spec.name, err->message);
	finish(t);
}

/* Every process has exited (or none started): the driver's teardown (on the loop), then
 * finish. The test counts as running until then, so that the next one finds the host as
 * this one found it. */
static void
conclude(struct test *t)
{
	if (runner_finished(t) || t->concluding)
		return;
	if (t->gen != NULL && !peergen_ended(t->gen))
		return; /* the generator's test on the peer has not ended: generator_ended */
	t->concluding = true;
	if (t->spec.driver->teardown != NULL)
		t->spec.driver->teardown(t, teardown_done, t);
	else
		finish(t);
}

/* ---- the generator on a peer (peer-generator.h) ---- */

#define GENERATOR_LAG_S 1.0 /* its test there began this much before this one, at most */

/* The generator's test on the peer has ended (summary), or the peer was lost (err). */
static void
generator_ended(void *arg, json_object *summary, const struct nm_error *err)
{
	struct test *t = arg;
	char why[1200];
	struct nm_error e;

	if (err != NULL) {
		snprintf(t->gen_why, sizeof(t->gen_why), "%s", err->message);
		snprintf(why, sizeof(why), "the generator on peer %s was lost: %s",
		         t->spec.generator_on, err->message);
		end_early(t, TEST_FAILED, why);
	} else {
		const char *st = json_get_string(summary, "status", "");
		const char *reason = json_get_string(summary, "reason", "");

		t->gen_summary = json_object_get(summary);
		if (strcmp(st, "passed") != 0 && !t->stopping) {
			snprintf(why, sizeof(why), "the generator's test on peer %s %s%s%s",
			         t->spec.generator_on, st, reason[0] ? ": " : "", reason);
			end_early(t, TEST_FAILED, why);
		} else if (!t->stopping && t->window_open && !t->window_frozen &&
		           t->spec.duration_s > 0 &&
		           runner_elapsed(t) + GENERATOR_LAG_S >=
		               t->spec.duration_s - t->spec.cooldown_s) {
			/* It ended at its duration, begun a round trip before this test: the
			 * cool-down edge is now. */
			if (window_end(t->runner, t, &e) < 0)
				log_warnx("test %s: %s", t->spec.name, e.message);
			t->state = TEST_COOLDOWN;
		}
	}
	conclude(t);
}

/* The generator's figures (packets and bytes sent, pps, errors, ...) are the test's. */
static void
generator_figures(struct test *t, json_object *figs)
{
	json_object *f = NULL;

	if (json_object_object_get_ex(t->gen_summary, "figures", &f) &&
	    json_object_is_type(f, json_type_object)) {
		json_object_object_foreach(f, k, v)
		{
			json_object_object_add(figs, k, json_object_get(v));
		}
	}
	if (t->gen_summary == NULL && !t->stopping) {
		t->stopping = true;
		t->stop_as = TEST_FAILED;
		snprintf(t->reason, sizeof(t->reason), "the generator on peer %s: %.400s",
		         t->spec.generator_on, t->gen_why[0] ? t->gen_why : "no result");
	}
}

/* The generator's test as the peer stored it, in the summary: where, what, how it ended. */
static json_object *
generator_json_of(const struct test *t)
{
	json_object *o = json_object_new_object(), *v;
	char name[256];
	static const char *const keys[] = {"status",    "reason",    "program", "started",
	                                   "elapsed_s", "generator", "src",     "src_mac",
	                                   "dst_mac",   "processes"};

	peergen_name(t->spec.name, name, sizeof(name));
	json_add_string(o, "peer", t->spec.generator_on);
	json_add_string(o, "test", name);
	if (t->gen_summary == NULL) {
		json_add_string(o, "status", "lost");
		json_add_string(o, "reason", t->gen_why[0] ? t->gen_why : "no result");
		return o;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_object_object_get_ex(t->gen_summary, keys[i], &v))
			json_object_object_add(o, keys[i], json_object_get(v));
	return o;
}

static void finish_rest(struct test *t);
static void test_stored(void *arg, json_object *report, const struct nm_error *err);
static void store(struct test *t);
static void peers_answered(void *arg, const struct nm_error *err);

/* Every process has exited (or none started): figures, status, the stored window, the
 * profile back, the suite told. */
static void
finish(struct test *t)
{
	struct runner *r = t->runner;
	json_object *figs = json_object_new_object(), *procfigs = json_object_new_array();
	struct nm_error err;
	char why[512] = "";
	bool early = t->window_open && !t->window_frozen;

	if (runner_finished(t))
		return;
	t->end_mono_ns = time_mono_ns();
	leftovers_kill(t);
	for (size_t i = 0; i < t->nprocs; i++)
		json_object_array_add(procfigs, json_object_new_object());
	if (!t->never_started && t->spec.driver->figures != NULL &&
	    t->spec.driver->figures(t, figs, procfigs, why, sizeof(why)) < 0 && !t->stopping &&
	    !first_failure(t)) {
		t->stopping = true;
		t->stop_as = TEST_FAILED;
		snprintf(t->reason, sizeof(t->reason), "%s", why);
	}
	if (t->stopping)
		t->state = t->stop_as;
	else if (first_failure(t))
		t->state = TEST_FAILED;
	else
		t->state = TEST_PASSED;
	if (t->state == TEST_PASSED && !t->window_open && !t->window_stored)
		snprintf(t->reason, sizeof(t->reason),
		         "the benchmark ended %.1f s after it started, before the warm-up (%.1f s) "
		         "was over: the window is empty",
		         runner_elapsed(t), t->spec.warmup_s);
	else if (t->state == TEST_PASSED && early && t->spec.duration_s > 0)
		snprintf(t->reason, sizeof(t->reason),
		         "the benchmark ended %.1f s after it started, before the cool-down",
		         runner_elapsed(t));
	if (t->spec.generator_on[0])
		generator_figures(t, figs);
	t->summary = summary_json(t, figs, procfigs);
	json_object_put(procfigs);
	if (t->spec.generator_on[0])
		json_object_object_add(t->summary, "peer_generator", generator_json_of(t));
	peergen_free(t->gen);
	t->gen = NULL;
	/* Keep the window in every case: open it now if the test ended before warm-up. */
	if (!t->window_stored && window_begin(r, t, &err) < 0)
		log_warnx("test %s: no window: %s", t->spec.name, err.message);
	/* The end edge now: the trend covers the span the window keeps. */
	if (t->window_open && !t->window_stored && !t->window_frozen)
		window_end(r, t, &err);
	if (t->window_open && !t->window_stored && peerwin_has(r->d->peerwins, t->spec.name)) {
		/* The result waits for the peers' reports (each has its deadline). */
		t->storing = true;
		peerwin_when_answered(r->d->peerwins, t->spec.name, peers_answered, t);
		return;
	}
	store(t);
}

/* The peers' reports of a multi-host test are in (or their deadlines passed). */
static void
peers_answered(void *arg, const struct nm_error *err)
{
	(void)err;
	store(arg);
}

static json_object *bench_json(const struct test *t);

/* Store the test's window with its summary, trend (and peers' parts), then finish. */
static void
store(struct test *t)
{
	struct runner *r = t->runner;
	json_object *extra, *win;
	struct nm_error err;
	int rc;

	t->storing = false;
	if (t->window_open && !t->window_stored) {
		extra = json_object_new_object();
		json_object_object_add(extra, "test", json_object_get(t->summary));
		trend_of(r, t, extra);
		if (peerwin_has(r->d->peerwins, t->spec.name)) {
			json_object *live = window_report(r->d->windows, t->spec.name, NULL, &err);
			peerwin_finish(r->d->peerwins, t->spec.name, live, extra);
			json_object_put(live);
		}
		if (t->state != TEST_PASSED) {
			win = json_object_new_object();
			json_add_bool(win, "complete", false);
			json_add_string(win, "reason", t->reason);
			json_object_object_add(extra, "window", win);
		}
		/* Its live figures go into the stored series (the window frees them). */
		if (t->live_series != NULL) {
			testseries_end(t->live_series);
			window_test_series(r->d->windows, t->spec.name, t->live_series);
		}
		t->live_series = NULL;
		window_set_benchmark(r->d->windows, t->spec.name, bench_json(t));
		/* The rest once the result is durable (writer thread): test status says
		 * "storing" until then, and a suite moves on only after. */
		t->window_open = false;
		t->storing = true;
		rc = window_stop(r->d->windows, t->spec.name, NULL, "test", extra, test_stored, t,
		                 &err);
		json_object_put(extra);
		bpf_release(r, t); /* a window stopped unfrozen: its end edge is taken now */
		if (rc == 0)
			return; /* t may be gone already: test_stored ran inline at shutdown */
		t->storing = false;
		log_warnx("test %s: result not stored: %s", t->spec.name, err.message);
	}
	finish_rest(t);
}

/* The test's result is durable, or could not be stored: finish the test. */
static void
test_stored(void *arg, json_object *report, const struct nm_error *err)
{
	struct test *t = arg;

	(void)report;
	t->storing = false;
	if (err != NULL)
		log_warnx("test %s: result not stored: %s", t->spec.name, err->message);
	else
		t->window_stored = true;
	finish_rest(t);
}

/* After the result: the driver's teardown, the profile back, the suite told. */
static void
finish_rest(struct test *t)
{
	struct runner *r = t->runner;

	profile_take_back(r, t);
	if (t->spec.server_peer[0])
		peerwin_server_stop(r->d->peerwins, t->spec.server_peer, t->spec.name);
	timers_stop(t);
	log_info("test %s: %s%s%s", t->spec.name, runner_state_name(t->state),
	         t->reason[0] ? ": " : "", t->reason);
	if (t->on_finish != NULL)
		t->on_finish(t, t->finish_arg);
	trim(r, t);
}

/* ---- live figures ---- */

void
runner_live_figure(struct test_proc *p, const struct runner_figure *f)
{
	struct test *t = p->test;
	uint64_t now = time_mono_ns(), t0, t1, len;
	double end;

	if (runner_finished(t) || t->storing || t->window_stored || !(f->interval_s >= 0))
		return;
	if (t->live_series == NULL) {
		double every = f->every_s > 0 && f->every_s < 86400 ? f->every_s : 1;
		t->live_series = xcalloc(1, sizeof(*t->live_series));
		testseries_init(t->live_series, t->nprocs, f->name, f->unit,
		                (uint32_t)llround(every * 1000), t->start_mono_ns);
	}
	if (strcmp(t->live_series->name, f->name) != 0)
		return;
	/* The benchmark's own clock says when its interval ended: the time the figure refers
	 * to, not the moment its line was read. Never later than now, nor before the test. */
	end = f->end_real_s * 1e9 - (double)sampler_mono_to_real(t->runner->d->sampler);
	t1 = isfinite(end) && end > 0 && end < (double)now ? (uint64_t)end : now;
	if (t1 < t->start_mono_ns)
		t1 = t->start_mono_ns;
	len = f->interval_s < 86400 ? (uint64_t)(f->interval_s * 1e9) : t1;
	t0 = t1 - t->start_mono_ns > len ? t1 - len : t->start_mono_ns;
	testseries_add(t->live_series, p->index, f->per_s, t0, t1);
}

/* ---- timers and exits ---- */

/* Warm-up is over: the window opens. */
static void
warmup_cb(evutil_socket_t fd, short what, void *arg)
{
	struct test *t = arg;
	struct nm_error err;

	(void)fd;
	(void)what;
	log_debug("test %s: warm-up over at %.3f s", t->spec.name, runner_elapsed(t));
	if (t->stopping || runner_finished(t))
		return;
	if (window_begin(t->runner, t, &err) < 0) {
		char why[NM_ERROR_MSG_MAX + 16];
		snprintf(why, sizeof(why), "window: %s", err.message);
		end_early(t, TEST_FAILED, why);
		return;
	}
	t->state = TEST_MEASURING;
}

/* Cool-down begins: the window's end edge is taken. */
static void
cooldown_cb(evutil_socket_t fd, short what, void *arg)
{
	struct test *t = arg;
	struct nm_error err;

	(void)fd;
	(void)what;
	log_debug("test %s: cool-down at %.3f s", t->spec.name, runner_elapsed(t));
	if (t->stopping || runner_finished(t) || !t->window_open)
		return;
	if (window_end(t->runner, t, &err) < 0)
		log_warnx("test %s: %s", t->spec.name, err.message);
	t->state = TEST_COOLDOWN;
}

/* When a test counts as hung: far past its duration, or the configured deadline of a test
 * without one. */
static double
deadline_s(const struct test *t)
{
	if (t->spec.duration_s > 0)
		return t->spec.duration_s + DEADLINE_SLACK_SEC + t->spec.duration_s / 4;
	return (double)t->runner->d->config.test_deadline_ms / 1000.0;
}

/* The processes outlived their duration by far. */
static void
deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct test *t = arg;
	char why[128];

	(void)fd;
	(void)what;
	if (t->stopping || runner_finished(t))
		return;
	snprintf(why, sizeof(why), "the benchmark did not finish within %.0f s%s", deadline_s(t),
	         t->spec.duration_s > 0 ? "" : " ([limits] test_deadline)");
	end_early(t, TEST_FAILED, why);
}

/* The duration is over for a benchmark that runs until signalled: SIGTERM ends it (its
 * exit is the normal end); SIGKILL follows if it does not go. */
static void
end_cb(evutil_socket_t fd, short what, void *arg)
{
	struct test *t = arg;
	struct timeval tv = {KILL_GRACE_SEC, 0};

	(void)fd;
	(void)what;
	if (t->stopping || runner_finished(t) || t->gen != NULL)
		return; /* a generator on a peer ends there at its duration */
	log_debug("test %s: duration over at %.3f s; ending the benchmark", t->spec.name,
	          runner_elapsed(t));
	t->duration_over = true;
	kill_all(t, SIGTERM);
	if (t->ev_kill == NULL)
		t->ev_kill = evtimer_new(t->runner->d->base, kill_cb, t);
	evtimer_add(t->ev_kill, &tv);
}

/* A stdout line of a process goes to the driver. */
static void
proc_line(struct child *sp, const char *line, size_t len, void *arg)
{
	struct test_proc *p = arg;
	struct test *t = p->test;

	(void)sp;
	if (t->spec.driver->on_line != NULL)
		t->spec.driver->on_line(p, line, len);
}

/* A process has exited and its output is read. A failure ends the others. */
static void
proc_done(struct child *sp, void *arg)
{
	struct test_proc *p = arg;
	struct test *t = p->test;

	if (p->finished)
		return;
	p->finished = true;
	p->exit_status = child_exit_status(sp);
	p->exit_signal = child_exit_signal(sp);
	p->stopped_at_s = runner_elapsed(t);
	child_describe(sp, p->ended, sizeof(p->ended));
	child_last_words(sp, p->last_words, sizeof(p->last_words));
	t->nfinished++;
	log_debug("test %s: process %u (pid %d) %s", t->spec.name, p->index, (int)child_pid(sp),
	          p->ended);
	if (!t->stopping && proc_failed(t, p)) {
		first_failure(t);
		end_early(t, TEST_FAILED, t->reason);
		return; /* end_early finishes when this was the last */
	}
	if (t->nfinished == t->nprocs)
		conclude(t);
}

static const struct child_ops proc_ops = {proc_line, proc_done};

/* Arm a one-shot timer at sec after the start. */
static struct event *
timer_at(struct runner *r, struct test *t, double sec, event_callback_fn fn)
{
	struct event *ev = evtimer_new(r->d->base, fn, t);
	struct timeval tv;

	if (sec < 0)
		sec = 0;
	tv.tv_sec = (time_t)sec;
	tv.tv_usec = (suseconds_t)((sec - (double)tv.tv_sec) * 1e6);
	evtimer_add(ev, &tv);
	return ev;
}

/* Add t to the registry. */
static void
registry_add(struct runner *r, struct test *t)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->tests = xreallocarray(r->tests, r->cap, sizeof(*r->tests));
	}
	r->tests[r->n++] = t;
}

/* Is the name free for a new test: no running test, window or result has it? With replace
 * a kept window or stored result may (they go when the test's window opens), but not a
 * running test or an open window. */
static int
name_check(struct runner *r, const char *name, bool replace, struct nm_error *err)
{
	struct test *old = runner_find(r, name);
	bool stored = results_exists(r->d->results, name),
	     kept = window_exists(r->d->windows, name);

	if (results_name_check(name, err) < 0)
		return -1;
	if (old != NULL && !runner_finished(old))
		return nm_error_set(err, NM_ERR_EXISTS, "test %s is running", name);
	if (kept && window_is_open(r->d->windows, name))
		return nm_error_set(err, NM_ERR_EXISTS,
		                    "window %s is open (mark stop %s closes it)", name, name);
	if (replace || (!stored && !kept))
		return 0;
	return nm_error_set(err, NM_ERR_EXISTS,
	                    "%s named %s exist%s (--replace replaces %s, or choose another "
	                    "--name)",
	                    stored && kept ? "a stored result and a window"
	                    : stored       ? "a stored result"
	                                   : "a window",
	                    name, stored && kept ? "" : "s", stored && kept ? "both" : "it");
}

/* The uid, gid and groups the test's processes run as: the client's, unless the driver
 * is privileged or the client is root. */
static void
spawn_cred(const struct test *t, struct child_spawn *how, gid_t *groups, size_t max)
{
	const struct test_cred *c = &t->spec.cred;
	gid_t all[USERGROUPS_MAX];
	size_t n = 0;

	how->peer_fd = clientfd_fd(c->peer);
	how->as_user = !t->spec.driver->privileged && c->uid != 0;
	if (!how->as_user)
		return;
	how->uid = c->uid;
	how->gid = c->gid;
	/* The client's gid first, then the user's groups (kept by usergroups.c: no NSS lookup
	 * per start). */
	groups[0] = c->gid;
	how->groups = groups;
	how->ngroups = 1;
	if (usergroups_get(c->uid, all, USERGROUPS_MAX, &n) < 0)
		return;
	for (size_t i = 0; i < n && how->ngroups < max; i++)
		if (all[i] != c->gid)
			groups[how->ngroups++] = all[i];
}

/* Close the cgroup.procs opened for the start; on failure remove the group. */
static void
cgroup_done(struct test *t, int fd, bool failed)
{
	if (fd >= 0)
		close(fd);
	if (failed && t->has_cgroup) {
		cgroup_release(t->runner->cg, t->cgroup_id);
		t->has_cgroup = false;
	}
}

/* The version probe's first line of output. */
static void
version_line(struct child *sp, const char *line, size_t len, void *arg)
{
	struct test *t = arg;

	(void)sp;
	if (t->version[0] == '\0' && len > 0)
		snprintf(t->version, sizeof(t->version), "%.*s", (int)len, line);
}

/* The probe ended: a version that went to stderr only is its last words. */
static void
version_done(struct child *sp, void *arg)
{
	struct test *t = arg;

	if (t->version[0] == '\0' && child_exit_status(sp) == 0)
		child_last_words(sp, t->version, sizeof(t->version));
	child_free(sp);
	t->version_sp = NULL;
}

static const struct child_ops version_ops = {version_line, version_done};

/* Ask the benchmark's binary its version (driver.version_args) as its processes run, the
 * same way and as the same user, outside their cgroup; killed after two seconds. Nothing
 * happens when it cannot start (the manifest's version is then null). */
static void
version_start(struct test *t, const struct child_spawn *procs_how)
{
	const char *const *va = t->spec.driver->version_args;
	struct child_spawn how = *procs_how;
	char *argv[8];
	struct nm_error err;
	size_t n = 0;

	if (va == NULL || t->nprocs == 0)
		return;
	argv[n++] = t->program;
	for (size_t i = 0; va[i] != NULL && n < 7; i++)
		argv[n++] = (char *)va[i];
	argv[n] = NULL;
	how.argv = argv;
	how.cgroup_fd = -1;
	how.nproc_max = 0;
	t->version_sp = child_start(t->runner->cs, &how, &version_ops, t, &err);
	if (t->version_sp == NULL)
		log_debug("test %s: version of %s not asked: %s", t->spec.name, t->program,
		          err.message);
	else
		child_set_timeout(t->version_sp, 2000);
}

/* The benchmark for the manifest: program, version, the first process's argv, the number of
 * processes. */
static json_object *
bench_json(const struct test *t)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_add_string(o, "program", t->program[0] ? t->program : NULL);
	json_add_string(o, "version", t->version[0] ? t->version : NULL);
	for (size_t i = 0; t->nprocs > 0 && t->procs[0].argv != NULL && t->procs[0].argv[i]; i++)
		json_object_array_add(a, json_object_new_string(t->procs[0].argv[i]));
	json_object_object_add(o, "argv", a);
	json_add_uint(o, "procs", t->nprocs);
	return o;
}

/* Start the processes (in the test's cgroup, as the client, with a clean environment);
 * on failure the ones started are killed. 0 or -1 with err. */
static int
child_all(struct runner *r, struct test *t, struct nm_error *err)
{
	const struct driver *drv = t->spec.driver;
	struct child_spawn how = {.netns = t->spec.netns, .cgroup_fd = -1, .peer_fd = -1};
	gid_t groups[GROUPS_MAX];
	unsigned pmax = r->d->config.test_pids_max;
	char why[256];
	char **envp;

	spawn_cred(t, &how, groups, GROUPS_MAX);
	if (r->cg != NULL && t->nprocs > 0) {
		how.cgroup_fd = cgroup_create(r->cg, &t->cgroup_id, pmax, why, sizeof(why));
		if (how.cgroup_fd < 0)
			log_warnx("test %s: %s; its processes run without a cgroup", t->spec.name,
			          why);
		else
			t->has_cgroup = true;
	}
	/* Its processes' number: the group's pids.max, else RLIMIT_NPROC for a user's test
	 * (root ignores it). */
	t->pids_by = "none";
	t->pids_max = 0;
	if (pmax > 0 && t->has_cgroup && cgroup_has_pids(r->cg, NULL)) {
		t->pids_by = "cgroup";
		t->pids_max = pmax;
	} else if (pmax > 0 && how.as_user && how.uid != 0) {
		how.nproc_max = pmax;
		t->pids_by = "rlimit";
		t->pids_max = pmax;
	}
	/* Not as the user: as the daemon, root in the privileged process of privsep.h. */
	envp =
	    child_env(how.as_user ? how.uid : (privsep_on() ? 0 : getuid()), r->d->config.test_env);
	how.envp = envp;
	for (size_t i = 0; i < t->nprocs; i++) {
		struct test_proc *p = &t->procs[i];
		p->local_cpu = runner_cpu_for(&t->spec.local_cpus, (unsigned)i);
		p->remote_cpu = runner_cpu_for(&t->spec.remote_cpus, (unsigned)i);
		p->priv = drv->priv_size ? xcalloc(1, drv->priv_size) : NULL;
		if (drv->proc_init != NULL)
			drv->proc_init(p);
		p->argv = drv->argv(&t->spec, t->program, p);
	}
	for (size_t i = 0; i < t->nprocs; i++) {
		struct test_proc *p = &t->procs[i];
		how.argv = p->argv;
		p->sp = child_start(r->cs, &how, &proc_ops, p, err);
		if (p->sp == NULL) {
			for (size_t j = 0; j < i; j++) {
				child_free(t->procs[j].sp);
				t->procs[j].sp = NULL;
			}
			child_env_free(envp);
			cgroup_done(t, how.cgroup_fd, true);
			return -1;
		}
	}
	version_start(t, &how);
	child_env_free(envp);
	cgroup_done(t, how.cgroup_fd, false);
	return 0;
}

/* A test that could not start (or was ended before it did): its failure is stored as its
 * result (an empty window with the reason). */
static void
start_failed(struct test *t, const char *why)
{
	if (!t->stopping) {
		snprintf(t->reason, sizeof(t->reason), "%s", why);
		t->stopping = true;
		t->stop_as = TEST_FAILED;
	}
	t->never_started = true;
	/* Its generator, started on a peer before the test was, goes too. */
	if (t->spec.generator_started && t->gen == NULL)
		peergen_stop_name(t->runner->d, t->spec.generator_on, t->spec.name);
	for (size_t i = 0; i < t->nprocs; i++) {
		t->procs[i].finished = true;
		snprintf(t->procs[i].ended, sizeof(t->procs[i].ended), "not started");
	}
	t->nfinished = t->nprocs;
	conclude(t);
	started(t);
}

void
runner_on_started(struct test *t, void (*fn)(struct test *t, void *arg), void *arg)
{
	t->on_started = fn;
	t->started_arg = arg;
}

/* Tell who waits for the start (once). */
static void
started(struct test *t)
{
	void (*fn)(struct test * t, void *arg) = t->on_started;

	t->on_started = NULL;
	if (fn != NULL)
		fn(t, t->started_arg);
}

/* Set up and resolved: the processes start, the timers run. */
static void
begin(struct test *t)
{
	struct runner *r = t->runner;
	const struct driver *drv = t->spec.driver;
	struct nm_error err;

	if (t->stopping) { /* stopped (or the daemon stopping) while it was starting */
		start_failed(t, t->reason);
		return;
	}
	if (child_all(r, t, &err) < 0) {
		start_failed(t, err.message);
		return;
	}
	t->start_mono_ns = time_mono_ns();
	t->start_real_ns = time_real_ns();
	t->state = t->spec.warmup_s > 0 ? TEST_WARMUP : TEST_MEASURING;
	t->ev_warmup = timer_at(r, t, t->spec.warmup_s, warmup_cb);
	if (t->spec.duration_s > 0) {
		t->ev_cooldown =
		    timer_at(r, t, t->spec.duration_s - t->spec.cooldown_s, cooldown_cb);
		if (drv->until_stopped)
			t->ev_end = timer_at(r, t, t->spec.duration_s, end_cb);
	}
	t->ev_deadline = timer_at(r, t, deadline_s(t), deadline_cb);
	if (t->spec.generator_on[0]) {
		t->gen =
		    peergen_follow(r->d, t->spec.generator_on, t->spec.name, generator_ended, t);
		log_info("test %s: its %s generator runs on peer %s", t->spec.name,
		         t->spec.generator, t->spec.generator_on);
	} else
		log_info("test %s: started %zu %s process%s", t->spec.name, t->nprocs, drv->name,
		         t->nprocs == 1 ? "" : "es");
	started(t);
}

/* The driver's setup is over. */
static void
setup_done(void *arg, int rc, const struct nm_error *err)
{
	struct test *t = arg;

	if (rc < 0)
		start_failed(t, err->message);
	else
		begin(t);
}

/* The spec is resolved: the driver's setup. */
static void
resolve_done(void *arg, int rc, const struct nm_error *err)
{
	struct test *t = arg;

	if (rc < 0) {
		start_failed(t, err->message);
		return;
	}
	if (t->stopping)
		start_failed(t, t->reason);
	else if (t->spec.driver->setup != NULL)
		t->spec.driver->setup(t, setup_done, t);
	else
		begin(t);
}

bool
runner_needs_resolve(const struct test_spec *spec)
{
	return !spec->resolved && spec->driver->resolve != NULL;
}

/* A resolve under way, counted so that shutdown waits for it. */
struct resolving {
	struct runner *r;
	struct test_spec *spec;
	driver_done_fn done;
	void *arg;
};

static void
resolving_done(void *arg, int rc, const struct nm_error *err)
{
	struct resolving rs = *(struct resolving *)arg;

	free(arg);
	rs.r->resolving--;
	if (rc == 0)
		rs.spec->resolved = true;
	rs.done(rs.arg, rc, err);
}

void
runner_resolve(struct runner *r, struct test_spec *spec, driver_done_fn done, void *arg)
{
	struct resolving *rs;

	if (!runner_needs_resolve(spec)) {
		done(arg, 0, NULL); /* resolved already, or nothing to resolve */
		return;
	}
	rs = xmalloc(sizeof(*rs));
	*rs = (struct resolving){r, spec, done, arg};
	r->resolving++;
	spec->driver->resolve(r->cs, spec, resolving_done, rs);
}

/* Start a test. */
json_object *
runner_start(struct runner *r, struct test_spec *spec, void (*on_finish)(struct test *t, void *arg),
             void *arg, struct nm_error *err)
{
	const struct driver *drv = spec->driver;
	struct test *t;
	size_t running = runner_running(r);
	unsigned max = r->d->config.max_tests;

	if (r->stopping) {
		nm_error_set(err, NM_ERR_BUSY, "test %s: the daemon is stopping", spec->name);
		runner_spec_free(spec);
		return NULL;
	}
	if (running >= max) {
		const char *busy = "?";
		for (size_t i = 0; i < r->n; i++)
			if (!runner_finished(r->tests[i])) {
				busy = r->tests[i]->spec.name;
				break;
			}
		nm_error_set(err, NM_ERR_BUSY,
		             "test %s is running (%u test%s at a time; [limits] max_tests)", busy,
		             max, max == 1 ? "" : "s");
		runner_spec_free(spec);
		return NULL;
	}
	if (!spec->cred.set) {
		nm_error_set(err, NM_ERR_INTERNAL, "test %s: who started it is not known",
		             spec->name);
		runner_spec_free(spec);
		return NULL;
	}
	if (name_check(r, spec->name, spec->replace, err) < 0) {
		runner_spec_free(spec);
		return NULL;
	}
	t = xcalloc(1, sizeof(*t));
	t->runner = r;
	t->spec = *spec;
	memset(spec, 0, sizeof(*spec));
	t->on_finish = on_finish;
	t->finish_arg = arg;
	t->start_mono_ns = time_mono_ns();
	t->start_real_ns = time_real_ns();
	t->nprocs = drv->nprocs(&t->spec);
	t->procs = xcalloc(t->nprocs, sizeof(*t->procs));
	for (size_t i = 0; i < t->nprocs; i++) {
		t->procs[i].test = t;
		t->procs[i].index = (unsigned)i;
		t->procs[i].local_cpu = t->procs[i].remote_cpu = -1;
	}
	/* Bad input (a profile that does not exist or does not fit) starts nothing. */
	if (t->spec.profile[0] && profile_put(r, t, err) < 0) {
		test_free(t);
		return NULL;
	}
	registry_add(r, t);
	t->state = TEST_STARTING;
	/* No process here (a generator on a peer): no binary to find. */
	if (t->nprocs > 0 && child_resolve(drv->program_of ? drv->program_of(&t->spec)
	                                   : drv->program  ? drv->program
	                                                   : t->spec.argv[0],
	                                   t->program, sizeof(t->program), err) < 0)
		start_failed(t, err->message);
	else
		runner_resolve(r, &t->spec, resolve_done, t);
	/* What failed before anything ran is an error of the request (its result stored). */
	if (runner_finished(t) && t->never_started) {
		nm_error_set(
		    err, NM_ERR_FAILED, "test %s failed: %s%s", t->spec.name, t->reason,
		    t->window_stored || t->storing ? "; its result is stored with the reason" : "");
		return NULL;
	}
	return runner_test_json(t);
}

/* test stop: end a running test by hand. */
json_object *
runner_stop(struct runner *r, const char *name, struct nm_error *err)
{
	struct test *t = runner_find(r, name);
	char why[128];

	if (t == NULL || runner_finished(t)) {
		nm_error_set(err, NM_ERR_NOT_FOUND, "no running test named %s", name);
		return NULL;
	}
	snprintf(why, sizeof(why), "stopped by hand after %.1f s", runner_elapsed(t));
	end_early(t, TEST_STOPPED, why);
	return runner_test_json(t);
}

/* Shutdown: end every running test, wait a little for the processes, store. */
void
runner_free(struct runner *r)
{
	uint64_t deadline;

	if (r == NULL)
		return;
	r->stopping = true;
	for (size_t i = 0; i < r->n; i++)
		if (!runner_finished(r->tests[i]))
			end_early(r->tests[i], TEST_INCOMPLETE,
			          "the daemon stopped during the test");
	/* The loop has ended: run it a little longer, for the exits, the output and the
	 * drivers' teardown tools; then child_free kills what is left. */
	deadline = time_mono_ns() + (uint64_t)SHUTDOWN_WAIT_MS * 1000000u;
	while ((runner_running(r) > 0 || r->resolving > 0) && time_mono_ns() < deadline) {
		struct timeval tv = {0, 20000};

		event_base_loopexit(r->d->base, &tv);
		event_base_dispatch(r->d->base);
		child_reap(r->cs);
		for (size_t i = 0; i < r->n; i++) {
			struct test *t = r->tests[i];
			bool reaped = true;
			if (runner_finished(t))
				continue;
			for (size_t j = 0; j < t->nprocs; j++)
				reaped &= t->procs[j].finished || (t->procs[j].sp != NULL &&
				                                   !child_running(t->procs[j].sp));
			if (reaped)
				for (size_t j = 0; j < t->nprocs; j++)
					if (!t->procs[j].finished && t->procs[j].sp != NULL) {
						/* Reaped, output still open: take it as finished.
						 */
						proc_done(t->procs[j].sp, &t->procs[j]);
					}
		}
	}
	for (size_t i = 0; i < r->n; i++) {
		struct test *t = r->tests[i];
		if (runner_finished(t))
			continue;
		kill_all(t, SIGKILL);
		for (size_t j = 0; j < t->nprocs; j++)
			if (!t->procs[j].finished && t->procs[j].sp != NULL) {
				child_free(t->procs[j].sp); /* reaps */
				t->procs[j].sp = NULL;
				t->procs[j].finished = true;
				snprintf(t->procs[j].ended, sizeof(t->procs[j].ended),
				         "killed at shutdown");
				t->nfinished++;
			}
		if (!t->concluding && t->spec.driver->teardown != NULL) {
			t->concluding = true;
			t->spec.driver->teardown(t, NULL, NULL); /* out of time: only free */
		}
		finish(t);
	}
	/* The tests' own processes go first; then child_fini kills the drivers' tools still
	 * running (their jobs are told, while the tests they belong to still exist). */
	for (size_t i = 0; i < r->n; i++)
		for (size_t j = 0; j < r->tests[i]->nprocs; j++) {
			child_free(r->tests[i]->procs[j].sp);
			r->tests[i]->procs[j].sp = NULL;
		}
	child_fini(r->cs);
	for (size_t i = 0; i < r->n; i++)
		test_free(r->tests[i]);
	free(r->tests);
	cgroup_close(r->cg);
	query_free(r->q);
	free(r);
}
