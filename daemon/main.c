/* main.c: netmetricsd: options, start-up in order, the loop, shut-down in reverse. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "control.h"
#include "daemon.h"
#include "dispatch.h"
#include "error.h"
#include "http.h"
#include "log.h"
#include "manifest.h"
#include "loop.h"
#include "peer-window.h"
#include "peer.h"
#include "privsep-parent.h"
#include "privsep.h"
#include "profile.h"
#include "proto.h"
#include "query.h"
#include "results-load.h"
#include "results.h"
#include "runner.h"
#include "cgroup.h"
#include "suite.h"
#include "sampler.h"
#include "statefile.h"
#include "timeutil.h"
#include "window.h"
#include "xmalloc.h"

static void
usage(FILE *fp)
{
	fprintf(fp,
	        "usage: netmetricsd [options]\n"
	        "  -c, --config FILE     configuration file (default %s;\n"
	        "                        built-in defaults when it does not exist)\n"
	        "  -s, --socket PATH     control socket (default %s)\n"
	        "  -r, --root DIR        read /proc and /sys below DIR (fixture trees)\n"
	        "  -S, --state-dir DIR   where results and saved state live (default %s)\n"
	        "  -u, --user USER       started as root: run the main process as USER\n"
	        "                        (default %s; root: no privilege separation)\n"
	        "  -f, --foreground      do not detach; log to stderr\n"
	        "  -l, --log-level LVL   err, warn, info or debug\n"
	        "  -n, --check-config    check the configuration, print \"configuration OK\"\n"
	        "  -V, --version         print the version\n"
	        "  -h, --help            this text\n",
	        CONFIG_DEFAULT_FILE, CONFIG_DEFAULT_SOCKET, CONFIG_DEFAULT_STATEDIR,
	        CONFIG_DEFAULT_USER);
}

/* Apply the command-line overrides over a freshly loaded configuration. */
static void
apply_overrides(struct daemon *d, struct config *cfg)
{
	if (d->cli_socket) {
		free(cfg->socket_path);
		cfg->socket_path = xstrdup(d->cli_socket);
	}
	if (d->cli_root) {
		free(cfg->root);
		cfg->root = xstrdup(d->cli_root);
	}
	if (d->cli_state_dir) {
		free(cfg->state_dir);
		cfg->state_dir = xstrdup(d->cli_state_dir);
	}
	if (d->cli_log_level >= 0)
		cfg->log_level = d->cli_log_level;
	if (d->cli_user) {
		free(cfg->user);
		cfg->user = xstrdup(d->cli_user);
	}
}

/* Defaults, then the file, then the command line. 0 ok, -1 with err. */
static int
load_config(struct daemon *d, struct config *cfg, bool must_exist, struct nm_error *err)
{
	config_defaults(cfg);
	if (config_load(cfg, d->config_path, must_exist, err) < 0) {
		config_free(cfg);
		return -1;
	}
	d->config_found = access(d->config_path, R_OK) == 0;
	apply_overrides(d, cfg);
	config_find_dirs(cfg);
	return 0;
}

/* Whether fine sampling is wanted (fine_when = window): a window, or a test's, is open. */
static bool
fine_wanted(void *arg)
{
	struct daemon *d = arg;

	return d->windows != NULL && window_open_count(d->windows) > 0;
}

/* The state directory's file of the 32-bit totals a stop keeps (sampler_wraps_save). */
#define TOTALS_FILE "totals.json"

/* Take up the totals the last stop kept, once: the file goes, so that a crash later does
 * not bring back totals older than the cells. */
static void
restore_totals(struct daemon *d)
{
	struct nm_error err;
	json_object *saved;
	size_t n;

	if ((saved = statefile_read_json(d->config.state_dir, TOTALS_FILE, &err)) == NULL)
		return;
	n = sampler_wraps_restore(d->sampler, saved);
	json_object_put(saved);
	if (n > 0)
		log_info("%zu 32-bit counters go on from the totals of the last stop", n);
	if (statefile_remove(d->config.state_dir, TOTALS_FILE, &err) < 0)
		log_warnx("%s", err.message);
}

/* Keep the totals of the 32-bit counters past 2^32 for the next start (a clean stop only: a
 * crash loses them, and those counters start again at their cells, a reset). */
static void
save_totals(struct daemon *d)
{
	json_object *o = sampler_wraps_save(d->sampler), *series;
	struct nm_error err;

	if (json_object_object_get_ex(o, "series", &series) &&
	    json_object_object_length(series) > 0 &&
	    statefile_write_json(d->config.state_dir, TOTALS_FILE, o, false, &err) < 0)
		log_warnx("%s", err.message);
	json_object_put(o);
}

/* Reload the configuration file (SIGHUP); keeps the old one on error. 0 ok, -1 logged. */
static int
daemon_reload(struct daemon *d)
{
	struct config cfg;
	struct nm_error err;

	if (load_config(d, &cfg, false, &err) < 0) {
		log_warnx("reload: %s; keeping the configuration in force", err.message);
		return -1;
	}
	/* The socket and the root are bound at start; changing them needs a restart. */
	if (strcmp(cfg.socket_path, d->config.socket_path) != 0 ||
	    strcmp(cfg.root, d->config.root) != 0 ||
	    strcmp(cfg.state_dir, d->config.state_dir) != 0 ||
	    strcmp(cfg.user, d->config.user) != 0)
		log_warnx(
		    "reload: socket, root, state_dir and user changes take effect on restart");
	if (!config_strv_equal(cfg.prom_listen, d->config.prom_listen))
		log_warnx("reload: [prometheus] listen changes take effect on restart");
	if ((cfg.work_dir == NULL) != (d->config.work_dir == NULL) ||
	    (cfg.work_dir != NULL && strcmp(cfg.work_dir, d->config.work_dir) != 0))
		log_warnx("reload: work_dir changes take effect on restart");
	if (sampler_reconfigure(d->sampler, &cfg, &err) < 0) {
		log_warnx("reload: %s; keeping the configuration in force", err.message);
		config_free(&cfg);
		return -1;
	}
	free(cfg.socket_path);
	free(cfg.root);
	free(cfg.state_dir);
	cfg.socket_path = xstrdup(d->config.socket_path);
	cfg.root = xstrdup(d->config.root);
	cfg.state_dir = xstrdup(d->config.state_dir);
	config_free(&d->config);
	d->config = cfg;
	log_setlevel(d->config.log_level);
	child_configure(d->config.child_path, NULL);
	control_reconfigure(d->control);
	http_reconfigure(d->http);
	peer_configure(d->peers, &d->config);
	log_info("configuration reloaded from %s", d->config_path);
	return 0;
}

/* The children's PATH ([daemon] child_path) and working directory: work_dir, or the
 * directory of the control socket (the runtime directory, /run/netmetricsd, writable under
 * the unit's ProtectSystem=strict); "/" when that is no directory. */
static void
configure_children(struct daemon *d)
{
	char dir[4096], *real, *slash;
	struct stat st;

	if (d->config.work_dir != NULL)
		snprintf(dir, sizeof(dir), "%s", d->config.work_dir);
	else {
		snprintf(dir, sizeof(dir), "%s", control_socket_path(d->control));
		if ((slash = strrchr(dir, '/')) == NULL)
			snprintf(dir, sizeof(dir), ".");
		else if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if ((real = realpath(dir, NULL)) == NULL || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		log_warnx("children's working directory %s: %s; they start in /", dir,
		          real == NULL ? strerror(errno) : "not a directory");
		free(real);
		real = xstrdup("/");
	}
	child_configure(d->config.child_path, real);
	free(real);
}

/* Create the state directory (and its parents) when missing. */
static void
make_state_dir(const char *dir)
{
	char *p = xstrdup(dir);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			fatal("cannot create %s", p);
		*s = '/';
	}
	if (mkdir(p, 0750) < 0 && errno != EEXIST)
		fatal("cannot create state directory %s", p);
	free(p);
}

/* TEST ONLY: a delay of N ms (at most 60 s) from the environment, 0 when unset or bad. */
static unsigned
test_delay(const char *name, const char *what)
{
	const char *v = getenv(name);
	char *end;
	unsigned long ms;

	if (v == NULL || *v == '\0')
		return 0;
	ms = strtoul(v, &end, 10);
	if (*end != '\0' || ms > 60000) {
		log_warnx("%s=%s ignored: not 0-60000", name, v);
		return 0;
	}
	log_warnx("test hook: %s is delayed by %lu ms", what, ms);
	return (unsigned)ms;
}

/* TEST ONLY, read once, here: NETMETRICS_TEST_FSYNC_DELAY_MS=N makes every fsync of a
 * stored file N ms slower, to play a slow disk in the integration tests;
 * NETMETRICS_TEST_READ_DELAY_MS=N every read of stored results on the reader thread. */
static void
test_hooks(void)
{
	unsigned ms;

	if ((ms = test_delay("NETMETRICS_TEST_FSYNC_DELAY_MS", "every fsync of a stored file")))
		statefile_test_fsync_delay(ms);
	if ((ms = test_delay("NETMETRICS_TEST_READ_DELAY_MS",
	                     "every read of stored results off the loop")))
		results_load_test_read_delay(ms);
}

/* The owner the state directory's entries get before the drop. */
static uid_t chown_uid;
static gid_t chown_gid;

/* nftw: give one entry of the state directory to the main process's user. */
static int
chown_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)type;
	(void)ftw;
	if ((st->st_uid != chown_uid || st->st_gid != chown_gid) &&
	    lchown(path, chown_uid, chown_gid) < 0)
		log_warn("privsep: chown %s", path);
	return 0;
}

/* Started as root with user = NAME: check the user exists (a clear error at start, before
 * anything is made). Sets *split. 0, or -1 having said why. */
static int
privsep_user(struct daemon *d, bool *split, struct passwd *out)
{
	struct passwd *pw;

	*split = false;
	if (geteuid() != 0)
		return 0; /* started as a user: everything runs as that user */
	if (strcmp(d->config.user, "root") == 0) {
		log_warnx(
		    "user = root: privilege separation is off; the whole daemon runs as root");
		return 0;
	}
	if ((pw = getpwnam(d->config.user)) == NULL) {
		fprintf(stderr,
		        "netmetricsd: user \"%s\" does not exist: create it (systemd-sysusers "
		        "installs it; or useradd --system %s), or set \"user = root\" to run "
		        "without privilege separation\n",
		        d->config.user, d->config.user);
		return -1;
	}
	if (pw->pw_uid == 0) {
		log_warnx("user = %s is uid 0: privilege separation is off", d->config.user);
		return 0;
	}
	*out = *pw;
	*split = true;
	return 0;
}

/* Fork the privileged process and drop the main process to the configured user; what the
 * main process writes later (the state directory, the test cgroups' parent) is given to
 * that user first. */
static void
privsep_split(struct daemon *d, const struct passwd *pw, int ready_fd)
{
	static struct privsep_setup setup;
	struct nm_error err;
	struct stat st;
	const char *cg = runner_cgroup_path(d->runner);

	chown_uid = pw->pw_uid;
	chown_gid = pw->pw_gid;
	if (nftw(d->config.state_dir, chown_entry, 16, FTW_PHYS | FTW_MOUNT) < 0)
		log_warn("privsep: chown %s", d->config.state_dir);
	/* Delegation, the systemd way: the group's directory is the user's, so that it makes
	 * and removes the test groups (and writes their cgroup.kill) itself. */
	if (cg != NULL && chown(cg, pw->pw_uid, pw->pw_gid) < 0)
		log_warn("privsep: chown %s", cg);
	setup.ready_fd = ready_fd;
	setup.parent_run = privsep_parent_run;
	setup.uid = pw->pw_uid;
	setup.gid = pw->pw_gid;
	setup.cgroup_path = cg != NULL ? xstrdup(cg) : NULL;
	setup.profile_dir = xstrdup(d->config.profile_dir);
	setup.control_path = xstrdup(control_socket_path(d->control));
	setup.admin_group = d->config.admin_group ? xstrdup(d->config.admin_group) : NULL;
	setup.config_path = realpath(d->config_path, NULL); /* NULL when there is none */
	if (!control_activated(d->control) && lstat(control_socket_path(d->control), &st) == 0) {
		setup.socket_path = xstrdup(control_socket_path(d->control));
		setup.socket_dev = st.st_dev;
		setup.socket_ino = st.st_ino;
	}
	if (privsep_start(&setup, &err) < 0)
		fatalx("%s", err.message);
	/* A directory above it closed to the user (mktemp -d makes 0700 ones) would fail every
	 * result written later: say so now. */
	if (access(d->config.state_dir, R_OK | W_OK | X_OK) < 0)
		fatal("state directory %s: not reachable as user %s (open the directories above "
		      "it to that user, or set user = root)",
		      d->config.state_dir, d->config.user);
}

/* Keep an fd per /proc/irq file and per source file open: raise the soft limit on open
 * files to the hard one (KERNEL-NOTES: 1,000+ IRQs on a big host). */
static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			log_warn("setrlimit RLIMIT_NOFILE");
	}
}

/* Where a detached daemon logs: the journal when it listens, else STATE_DIR/netmetricsd.log. */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

/* The log file of a detached daemon without a journal (allocated). */
static char *
log_file_path(const struct daemon *d)
{
	return xasprintf("%s/netmetricsd.log", d->config.state_dir);
}

/* The parent of a detached start: wait for the child's word on the readiness pipe fd. "r":
 * ready, 0. "e" and a line: the child's fatal start-up error, printed here (the child's own
 * output goes to the log by then), 1. Nothing (the child died): where its log is, 1. */
static int
wait_ready(int fd, const struct daemon *d)
{
	char buf[4096], *nl, *logfile;
	size_t n = 0;
	ssize_t k;

	while (n < sizeof(buf) - 1 && (k = read(fd, buf + n, sizeof(buf) - 1 - n)) != 0) {
		if (k < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n += (size_t)k;
		if (buf[0] == 'r')
			return 0;
		if (memchr(buf, '\n', n) != NULL)
			break;
	}
	buf[n] = '\0';
	if (n > 1 && buf[0] == 'e') {
		if ((nl = strchr(buf, '\n')) != NULL)
			*nl = '\0';
		fprintf(stderr, "netmetricsd: %s\n", buf + 1);
		return 1;
	}
	if (access(JOURNAL_SOCKET, W_OK) == 0) {
		fprintf(stderr, "netmetricsd: the daemon exited while starting; see its log "
		                "(journalctl -t netmetricsd)\n");
		return 1;
	}
	logfile = log_file_path(d);
	fprintf(stderr, "netmetricsd: the daemon exited while starting; see its log %s\n", logfile);
	free(logfile);
	return 1;
}

/* Send the detached daemon's output to the journal, or to a log file in the state dir;
 * never the terminal again (a file that cannot be opened is a start-up error). */
static void
redirect_output(struct daemon *d)
{
	int fd = open("/dev/null", O_RDWR), lfd, saved;
	char *logfile;
	struct stat st;

	if (fd < 0)
		fatal("/dev/null");
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	if (access(JOURNAL_SOCKET, W_OK) == 0) {
		log_init("netmetricsd", LOG_TARGET_JOURNAL, d->config.log_level);
		dup2(fd, STDERR_FILENO);
		close(fd);
		return;
	}
	logfile = log_file_path(d);
	/* In the state directory: never through a link, never blocking on a FIFO. */
	lfd = open(logfile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
	           0640);
	if (lfd < 0 || fstat(lfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		saved = lfd < 0 ? errno : EINVAL;
		dup2(fd, STDERR_FILENO); /* the reason goes to the waiting parent alone */
		errno = saved;
		fatal("log file %s", logfile);
	}
	dup2(lfd, STDERR_FILENO);
	close(lfd);
	close(fd);
	free(logfile);
}

/* Detach; the parent exits once the child says it is ready (0) or gives up (1, printing
 * why). In the child, the output goes to its place at once, before anything is logged, so
 * that neither it nor the privileged process forked later writes to the terminal. Returns
 * the write end of the readiness pipe in the child. */
static int
detach(struct daemon *d)
{
	int pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		fatal("pipe");
	if ((pid = fork()) < 0)
		fatal("fork");
	if (pid > 0) {
		close(pfd[1]);
		_exit(wait_ready(pfd[0], d));
	}
	close(pfd[0]);
	log_set_fatal_fd(pfd[1]);
	if (setsid() < 0)
		fatal("setsid");
	redirect_output(d);
	return pfd[1];
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"socket", required_argument, NULL, 's'},
	    {"root", required_argument, NULL, 'r'},
	    {"state-dir", required_argument, NULL, 'S'},
	    {"foreground", no_argument, NULL, 'f'},
	    {"log-level", required_argument, NULL, 'l'},
	    {"check-config", no_argument, NULL, 'n'},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {"user", required_argument, NULL, 'u'},
	    {NULL, 0, NULL, 0},
	};
	struct daemon d;
	struct nm_error err;
	bool foreground = false, check = false, explicit_config = false, split = false;
	struct passwd pw = {0};
	const char *reason;
	int ch, ready_fd = -1;

	memset(&d, 0, sizeof(d));
	d.config_path = CONFIG_DEFAULT_FILE;
	d.cli_log_level = -1;
	d.under_systemd = getenv("NOTIFY_SOCKET") != NULL || getenv("LISTEN_FDS") != NULL;
	log_init("netmetricsd",
	         getenv("JOURNAL_STREAM") != NULL ? LOG_TARGET_JOURNAL : LOG_TARGET_STDERR,
	         LOG_LEVEL_INFO);

	while ((ch = getopt_long(argc, argv, "c:s:r:S:u:fl:nVh", opts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			d.config_path = optarg;
			explicit_config = true;
			break;
		case 's':
			d.cli_socket = optarg;
			break;
		case 'r':
			d.cli_root = optarg;
			break;
		case 'S':
			d.cli_state_dir = optarg;
			break;
		case 'u':
			d.cli_user = optarg;
			break;
		case 'f':
			foreground = true;
			break;
		case 'l':
			if ((d.cli_log_level = log_level_parse(optarg)) < 0) {
				fprintf(stderr, "netmetricsd: bad log level \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 'n':
			check = true;
			break;
		case 'V':
			printf("netmetricsd %s (protocol %d)\n", NM_VERSION, PROTO_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (load_config(&d, &d.config, explicit_config, &err) < 0) {
		fprintf(stderr, "netmetricsd: %s\n", err.message);
		return 1;
	}
	if ((d.sampler = sampler_new(&d.config, &err)) == NULL) {
		fprintf(stderr, "netmetricsd: %s: %s\n", d.config_path, err.message);
		config_free(&d.config);
		return 1;
	}
	if (check && http_check_web_config(&d.config, &err) < 0) {
		fprintf(stderr, "netmetricsd: %s: %s\n", d.config_path, err.message);
		sampler_free(d.sampler);
		config_free(&d.config);
		return 1;
	}
	if (check) {
		printf("configuration OK\n");
		sampler_free(d.sampler);
		config_free(&d.config);
		return 0;
	}
	if (d.cli_root != NULL && d.cli_root[0] != '/') {
		fprintf(stderr, "netmetricsd: --root must be an absolute path\n");
		return 2;
	}
	log_setlevel(d.config.log_level);
	if (privsep_user(&d, &split, &pw) < 0)
		return 1;
	/* What the privileged process will do (the bpf source's programs) waits for it. */
	if (split)
		privsep_expect();
	raise_nofile();
	make_state_dir(d.config.state_dir);
	if (!foreground && !d.under_systemd)
		ready_fd = detach(&d);

	d.start_mono_ns = time_mono_ns();
	d.start_real_ns = time_real_ns();
	d.loop = loop_init(&d, daemon_reload);
	dispatch_init(cmd_table);
	d.control = control_init(&d);
	if (control_listen(d.control, &err) < 0)
		fatalx("control socket: %s", err.message);
	/* Before the runner, the peers and the privileged process (which keeps this copy). */
	configure_children(&d);
	/* Bound as root, before the drop: a [prometheus] port below 1024 works too. */
	if (http_init(&d, &d.http, &err) < 0)
		fatalx("%s", err.message);
	d.query = query_new(d.sampler);
	restore_totals(&d);
	sampler_start(d.sampler, d.base);
	test_hooks();
	/* Written inline until the writer thread starts, after the split below. */
	if ((d.results = results_open(d.config.state_dir, &err)) == NULL)
		fatalx("results: %s", err.message);
	/* After the sampler starts: windows left open by a crash are stored at once. */
	if ((d.windows = window_init(d.sampler, d.results, d.config.state_dir, &err)) == NULL)
		fatalx("windows: %s", err.message);
	window_record_tuning(d.windows, d.config.root, d.config.state_dir);
	window_bursts_max(d.windows, (size_t)d.config.bursts_max_series);
	/* The net sysctls as they are at the first start after a boot: a manifest lists those
	 * that differ from them. */
	(void)manifest_snapshot(d.config.root, d.config.state_dir);
	window_set_loop(d.windows, d.base);
	sampler_set_fine_wanted(d.sampler, fine_wanted, &d);
	if ((d.runner = runner_init(&d, &err)) == NULL)
		fatalx("runner: %s", err.message);
	if ((d.suites = suite_init(&d, &err)) == NULL)
		fatalx("suites: %s", err.message);
	d.peers = peer_init(d.base, runner_children(d.runner), &d.config);
	d.peerwins = peerwin_init(&d);

	/* Everything that needs root at start is done: the socket is bound, the test cgroups'
	 * parent made and what a crash left there removed. (Detached, the output went to its
	 * place in detach(): the privileged process forked here inherits it.) */
	if (split)
		privsep_split(&d, &pw, ready_fd);
	/* A profile applied before a restart is held again (by this, the main process). */
	profile_state_hold(d.config.state_dir, d.config.root);
	/* Threads only now: the privileged process is forked from a single-threaded process,
	 * and the writer thread runs as the user, without the capabilities (which are per
	 * thread) that a thread started before the drop would keep. */
	if (results_start(d.results, d.base, &err) < 0)
		fatalx("results: %s", err.message);
	log_info("netmetricsd %s listening on %s (root %s, state %s)", NM_VERSION,
	         control_socket_path(d.control), d.config.root, d.config.state_dir);
	loop_ready(d.loop);
	loop_status(d.loop, "listening on %s", control_socket_path(d.control));
	if (ready_fd >= 0) {
		log_set_fatal_fd(-1);
		if (write(ready_fd, "r", 1) != 1)
			log_warn("readiness pipe");
		close(ready_fd);
	}

	reason = loop_run(d.loop);
	/* The peers' requests in flight fail now (a multi-host stop stores its result with
	 * them marked incomplete), their transports killed. */
	peer_free(d.peers);
	d.peers = NULL;
	/* Series still being copied at a close are copied at once, their stores queued. */
	window_set_loop(d.windows, NULL);
	/* Results still on the writer thread are stored (and their replies sent) first; from
	 * now on a result is written inline, as the loop no longer runs. */
	results_stop_thread(d.results);

	http_free(d.http);
	control_free(d.control, reason);
	privsep_bye();
	/* A running suite is marked incomplete, then its test ends: processes stopped, window
	 * stored (with its trend, through d.query), profile taken back. */
	suite_free(d.suites);
	runner_free(d.runner);
	query_free(d.query);
	/* Before the sampler goes: open windows are closed with a last sample. */
	sampler_set_fine_wanted(d.sampler, NULL, NULL);
	window_free(d.windows);
	peerwin_free(d.peerwins);
	results_close(d.results);
	save_totals(&d);
	sampler_free(d.sampler);
	free(d.ids);
	loop_free(d.loop);
	privsep_wait();
	log_info("stopped (%s)", reason);
	config_free(&d.config);
	return 0;
}
