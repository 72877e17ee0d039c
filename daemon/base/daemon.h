/* daemon.h: the state netmetricsd's modules share, passed to every handler. */
#ifndef NM_DAEMON_H
#define NM_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"

/* The loop time one slice of a long piece of work may take before it gives the loop back:
 * a reply made over turns of the loop (now, rates, series, rows, trend) and a closing
 * window's copy out of the ring. 2 ms keeps every client answered and every sample on time
 * meanwhile. */
#define DAEMON_SLICE_NS 2000000

struct event_base;
struct control;
struct loop;
struct sampler;
struct query;
struct windows;
struct results;
struct runner;
struct suites;
struct http;
struct peers;
struct peerwins;

struct daemon {
	struct event_base *base;
	struct config config;    /* in force */
	const char *config_path; /* the file read (or tried) */
	bool config_found;       /* the file existed */
	/* Command-line overrides; they win over the file on every (re)load. */
	const char *cli_socket, *cli_root, *cli_state_dir, *cli_user;
	int cli_log_level; /* -1: none */
	struct loop *loop;
	struct control *control;
	struct sampler *sampler;
	/* Measurement windows (window.c) and the results store (results.c). */
	struct windows *windows;
	struct results *results;
	struct runner *runner; /* benchmark tests (runner.c) */
	struct suites *suites; /* suites of tests (suite.c) */
	struct query *query;   /* reusable cursors for the commands */
	struct http *http;     /* the Prometheus endpoint (http.c); NULL: off */
	uint32_t *ids;         /* scratch list of series ids for the commands */
	size_t ids_cap;
	/* The other hosts' daemons (peer.c) and windows on several hosts (peer-window.c). */
	struct peers *peers;
	struct peerwins *peerwins;
	uint64_t start_mono_ns;
	uint64_t start_real_ns;
	bool under_systemd;
};

#endif
