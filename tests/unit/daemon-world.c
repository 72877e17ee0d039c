/* daemon-world.c: the daemon's parts over a fixture root, for unit tests (daemon-world.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "daemon-world.h"
#include "error.h"
#include "query.h"
#include "results.h"
#include "sampler.h"
#include "window.h"

static uint64_t
world_clock(void *arg)
{
	return ((struct daemon_world *)arg)->now;
}

void
daemon_world_init(struct daemon_world *w, const char *name, const char *dir, const char *const *off)
{
	char cmd[192];

	snprintf(w->root, sizeof(w->root), "/tmp/nm-test-%s-XXXXXX", name);
	assert_non_null(mkdtemp(w->root));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/%s", w->root, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(w->state, sizeof(w->state), "%s/state", w->root);
	assert_int_equal(mkdir(w->state, 0700), 0);
	config_defaults(&w->cfg);
	free(w->cfg.root);
	w->cfg.root = strdup(w->root);
	for (const char *const *s = off; s != NULL && *s != NULL; s++)
		config_add_source_opt(&w->cfg, *s, "enable", "no");
}

void
daemon_world_start(struct daemon_world *w)
{
	struct nm_error err;

	if ((w->d.sampler = sampler_new(&w->cfg, &err)) == NULL)
		fail_msg("sampler_new: %s", err.message);
	sampler_set_clock(w->d.sampler, world_clock, w);
	w->d.query = query_new(w->d.sampler);
	/* The handlers answer within the daemon's reply budget. */
	w->d.config.reply_max_points = w->cfg.reply_max_points;
	w->d.config.reply_max_bytes = w->cfg.reply_max_bytes;
	if ((w->d.results = results_open(w->state, &err)) == NULL)
		fail_msg("results_open: %s", err.message);
	if ((w->d.windows = window_init(w->d.sampler, w->d.results, w->state, &err)) == NULL)
		fail_msg("window_init: %s", err.message);
}

void
daemon_world_end(struct daemon_world *w)
{
	char cmd[128];

	window_free(w->d.windows);
	results_close(w->d.results);
	query_free(w->d.query);
	free(w->d.ids);
	sampler_free(w->d.sampler);
	config_free(&w->cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", w->root);
	assert_int_equal(system(cmd), 0);
}
