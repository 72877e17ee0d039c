/* watch.c: netmetricsctl watch: a stream of views from the daemon, redrawn in place like
 * bwm-ng, or printed as JSON lines with --json. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "jsonutil.h"
#include "utf8.h"

static volatile sig_atomic_t stop;

/* SIGINT/SIGTERM: finish the current frame and leave. */
static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int
ctl_watch(const struct ctl_opts *opts, json_object *args)
{
	struct conn conn;
	struct proto_reply rep;
	const char *what = json_get_string(args, "what", "");
	ctl_render_fn render = ctl_renderer_find(what);
	bool tty = isatty(STDOUT_FILENO);
	int64_t id;
	int rc = CTL_EXIT_OK;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (conn_open(&conn, opts->socket) < 0)
		return CTL_EXIT_UNREACHABLE;
	if ((id = conn_send(&conn, "watch", args)) < 0) {
		conn_close(&conn);
		return CTL_EXIT_UNREACHABLE;
	}
	while (!stop) {
		json_object *view = NULL;
		if (conn_read(&conn, &rep) < 0) {
			rc = stop ? CTL_EXIT_OK : CTL_EXIT_UNREACHABLE;
			break;
		}
		if (!rep.is_event) {
			if (!rep.ok) {
				conn_print_refusal(&rep);
				rc = CTL_EXIT_REFUSED;
				proto_reply_free(&rep);
				break;
			}
			proto_reply_free(&rep);
			continue;
		}
		if (rep.id != id) {
			proto_reply_free(&rep);
			continue;
		}
		if (!opts->json)
			json_sanitize_strings(rep.result, UTF8_KEEP_NEWLINE);
		if (opts->json) {
			render_json(rep.result, stdout);
		} else if (json_object_object_get_ex(rep.result, "view", &view)) {
			if (tty)
				fputs("\033[H\033[2J", stdout);
			fprintf(stdout, "netmetricsctl watch %s (Ctrl-C to stop)\n", what);
			if (strcmp(what, "bursts") == 0)
				render_watch_bursts(view, opts, stdout);
			else if (render)
				render(view, opts, stdout);
			else
				render_json(view, stdout);
			if (!tty)
				fputc('\n', stdout);
		} else
			fprintf(stderr, "netmetricsctl: %s\n",
			        json_get_string(rep.result, "error", "no view"));
		fflush(stdout);
		proto_reply_free(&rep);
	}
	conn_close(&conn);
	return rc;
}
