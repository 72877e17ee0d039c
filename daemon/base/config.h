/* config.h: netmetricsd's configuration: built-in defaults, the INI file, command-line
 * overrides. */
#ifndef NM_CONFIG_H
#define NM_CONFIG_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nm_error;

#define CONFIG_DEFAULT_FILE       "/etc/netmetricsd/netmetricsd.conf"
#define CONFIG_DEFAULT_SOCKET     "/run/netmetricsd/netmetricsd.sock"
#define CONFIG_DEFAULT_STATEDIR   "/var/lib/netmetricsd"
#define CONFIG_DEFAULT_PROFILEDIR "/etc/netmetricsd/profiles"
#define CONFIG_DEFAULT_SUITEDIR   "/etc/netmetricsd/suites"
#define CONFIG_DEFAULT_USER       "netmetrics"
#define CONFIG_DEFAULT_CHILD_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define CONFIG_DEFAULT_PIDS_MAX   4096
/* [bursts] max_series: each kept series is 1.1-1.7 KB of a result (its figures and 5 bursts),
 * so a 144-queue, 144-CPU host's ~580 (0.65-1 MB) become 60-90 KB with its devices'. */
#define CONFIG_BURSTS_MAX_SERIES 48

struct config {
	/* [daemon] */
	char *socket_path;
	char *socket_group; /* NULL: the daemon's own group */
	unsigned socket_mode;
	char *admin_group; /* NULL: root only */
	char *state_dir;
	char *profile_dir; /* profiles applied by name: DIR/NAME.conf */
	char *suite_dir;   /* suites run by name: DIR/NAME.conf */
	/* Where profile_dir and suite_dir came from (static strings): "config" (the file set
	 * it), "default", or "build tree" (config_find_dirs). */
	const char *profile_dir_from, *suite_dir_from;
	char *root;
	char *user;    /* started as root: the main process runs as this user ("root": no split) */
	int log_level; /* enum log_level */
	char *child_path; /* the PATH of every child, and where programs are looked up */
	char *work_dir;   /* every child's working directory; NULL: the control socket's */

	/* [limits] */
	unsigned max_clients;
	unsigned max_clients_per_uid;
	size_t client_output_high;   /* stop reading a client whose unsent replies pass this */
	size_t client_output_low;    /* resume below this */
	uint64_t request_timeout_ms; /* a half-sent request older than this is dropped */
	unsigned max_tests;          /* benchmark tests running at once */
	uint64_t test_deadline_ms;   /* a test without --duration is ended after this */
	char **test_env;        /* NAME=VALUE a test's processes get besides PATH, LANG, HOME; NULL-
	                           terminated, NULL when none */
	unsigned test_pids_max; /* processes of one test (pids.max, else RLIMIT_NPROC); 0: none */
	uint64_t reply_max_points; /* budget of one reply: points x series (series...) */
	uint64_t reply_max_bytes;  /* budget of one reply: bytes of its line */

	/* [sampling] */
	uint64_t ring_memory;          /* bytes of history kept in memory */
	uint64_t sample_interval_ms;   /* default interval of every source */
	uint64_t keyframe_interval_ms; /* full state stored this often */
	/* Fine sampling (sampler.h): the sources sampled at fine_interval_ms besides their own
	 * cadence, a bit per name of config_fine_names (CONFIG_FINE_DEFAULT: link queues
	 * softnet); when (enum config_fine_when); how long and in how many bytes of ring_memory
	 * their fine records are kept (fine_memory 0: ring_memory / 8, at least 1 MiB, when that
	 * leaves the main ring 1 MiB; CONFIG_FINE_MEMORY_NONE: no fine history, peaks only). */
	unsigned fine_sources;
	uint64_t fine_interval_ms;
	int fine_when;
	uint64_t fine_keep_ms;
	uint64_t fine_memory;
	/* [bursts]: a result's burst figures (daemon/store/bursts.h) keep every device's series
	 * and at most max_series of the queues' and CPUs' (those of the highest peak; 0: all). */
	uint64_t bursts_max_series;

	/* [prometheus]: the HTTP endpoint (daemon/http.c, daemon/prom.c) */
	char **prom_listen;       /* HOST:PORT lines, NULL-terminated; NULL: no endpoint */
	char **prom_export;       /* "GLOB" / "!GLOB" lines in order, NULL-terminated, or NULL */
	uint64_t prom_max_series; /* sampled series per scrape */
	/* "+SELECTOR" (include) / "-SELECTOR" (exclude) lines in order (common/labelsel.h),
	 * NULL-terminated, or NULL */
	char **prom_select;
	char **prom_rollup;  /* rollup SELECTOR lines; NULL: the default roll-ups; {"none"}: none */
	char **prom_cpuset;  /* cpuset NAME=LIST lines; NULL: one set "all" */
	char **prom_unmoved; /* drop_unmoved SELECTOR lines; NULL: the defaults; {"none"}: none */
	char *prom_web_config; /* the exporter toolkit's web configuration (TLS, basic auth) */
	uint64_t prom_max_family_series; /* samples per family per scrape */
	unsigned prom_max_connections;   /* scrapers connected at once */
	uint64_t prom_timeout_ms; /* a connection idle (reading or writing) this long is closed */
	/* [peer NAME] sections: the other hosts' daemons and how to reach them */
	struct config_peer *peers;
	size_t npeers;

	/* [source.NAME] sections: checked by the sampler, which knows the sources */
	struct config_kv *source_opts;
	size_t nsource_opts;
};

struct config_kv {
	char *source; /* NAME of [source.NAME] */
	char *key;
	char *val;
};

/* A profile_dir or suite_dir the file did not set: the default, or, when the default is
 * missing and this binary runs from its meson build tree, the source tree's conf/profiles
 * and conf/suites (so that a daemon run from a build tree finds the shipped ones). Sets the
 * *_from fields. */
void config_find_dirs(struct config *cfg);
/* Why dir (profile_dir or suite_dir, from says where it came from) is what it is, in
 * words for status and profiles (static or buf). */
const char *config_dir_origin(const char *from, const char *dflt, char *buf, size_t size);
#define CONFIG_PEERS_MAX     16 /* [peer NAME] sections */
#define CONFIG_PEER_ARGV_MAX 64 /* words of a peer's transport */

/* A peer: exactly one of command (an argv run without a shell) or ssh ([user@]host[:port],
 * with ssh_options and proxy_command, the remote netmetricsctl; default "netmetricsctl
 * proxy"). The vectors are NULL-terminated (NULL when not set). */
struct config_peer {
	char *name;
	char **command;
	char *ssh;
	char **ssh_options;
	char **proxy_command;
};

/* Split a value into words: blanks separate them, '...' and "..." quote (a backslash
 * escapes the next character outside single quotes). NULL-terminated vector (free with
 * config_strv_free), or NULL on an unterminated quote or more than max words. */
char **config_split_words(const char *s, size_t max);
void config_strv_free(char **v);
/* Whether a and b hold the same words in the same order (NULL: no words). */
bool config_strv_equal(char **a, char **b);
#define CONFIG_PEER_PROXY_DEFAULT "netmetricsctl proxy"
/* The transport's argv of a configured peer: its command, or the ssh command line that
 * runs proxy_command on the other host (NULL-terminated; config_strv_free). The daemon runs
 * it (peer.c) and the privileged process checks a transport's spawn against it
 * (privsep-parent.c). */
char **config_peer_argv(const struct config_peer *cp);

/* Fill cfg with the built-in defaults (all strings owned by cfg). */
void config_defaults(struct config *cfg);
/* Load path over the defaults. A missing file is an error only when must_exist. 0 ok; -1 with
 * err naming the file, line and key. cfg is untouched on error. */
int config_load(struct config *cfg, const char *path, bool must_exist, struct nm_error *err);
void config_free(struct config *cfg);
/* Deep copy; dst is overwritten (not freed first). */
void config_copy(struct config *dst, const struct config *src);
/* Append a [source.NAME] key (copied). */
void config_add_source_opt(struct config *cfg, const char *source, const char *key,
                           const char *val);
/* The configuration in force as JSON (new reference). */
json_object *config_to_json(const struct config *cfg);

/* Parsers for the value forms, shared with the sources' options. 0 ok, -1 on bad input. */
int config_parse_bool(const char *s, bool *out);
int config_parse_size(const char *s, uint64_t *out); /* 64M, 512k, 1G, 4096 */
/* The sources [sampling] fine may name, a bit each in config.fine_sources (bit i: name i). */
extern const char *const config_fine_names[];
#define CONFIG_FINE_DEFAULT 7u /* link queues softnet */
enum config_fine_when {
	CONFIG_FINE_WINDOW = 0, /* while a window or a test is open */
	CONFIG_FINE_ALWAYS,
	CONFIG_FINE_NEVER,
};
#define CONFIG_FINE_MEMORY_NONE UINT64_MAX
/* The bytes of ring_memory the fine history takes (0: none: fine_when = never, no fine
 * sources, fine_memory = 0, or a ring_memory too small to share). */
uint64_t config_fine_memory(const struct config *cfg);
int config_parse_duration_ms(const char *s, uint64_t *out); /* 10ms, 1s, 1.5s, 2m */

#endif
