/* follow.c: netmetricsctl --wait: the progress of a test or a suite, streamed by the daemon
 * on the connection that started it (test-status/suite-status --follow), until its end. No
 * polling, no second connection. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "jsonutil.h"
#include "utf8.h"

static volatile sig_atomic_t interrupted;

/* SIGINT/SIGTERM: stop waiting (a second one ends the client at once). */
static void
on_signal(int sig)
{
	interrupted = 1;
	signal(sig, SIG_DFL);
}

/* Catch sig without SA_RESTART, so a blocked read returns. */
static void
catch_signal(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* Ctrl-C: cancel the stream (the test or suite goes on), wait for the daemon to say so. */
static int
cancel_wait(const struct ctl_opts *opts, struct conn *conn, const struct ctl_follow *f, int64_t id,
            const char *name)
{
	json_object *args = json_object_new_object(), *res = NULL;
	char shown[256];

	json_object_object_add(args, "id", json_object_new_int64(id));
	conn->stop = NULL;
	ctl_call_on(opts, conn, "cancel", args, &res);
	json_object_put(res);
	json_object_put(args);
	conn_text(name, shown, sizeof(shown));
	fprintf(stderr,
	        "\nnetmetricsctl: stopped waiting; %s %s goes on (netmetricsctl %s status %s)\n",
	        f->event, shown, f->event, shown);
	return CTL_EXIT_INTERRUPTED;
}

/* Show one progress event: rewrite the line on a terminal, else a line of its own. */
static void
show_progress(const struct ctl_follow *f, json_object *rec, bool tty)
{
	char line[512];

	f->progress(rec, line, sizeof(line));
	if (tty)
		fprintf(stdout, "\r\033[K%s", line);
	else
		fprintf(stdout, "%s\n", line);
	fflush(stdout);
}

int
ctl_follow_run(const struct ctl_opts *opts, struct conn *conn, const struct ctl_follow *f,
               const char *name)
{
	json_object *args = json_object_new_object();
	bool tty = isatty(STDOUT_FILENO);
	struct proto_reply rep;
	int64_t id;
	int rc = CTL_EXIT_UNREACHABLE, r;

	json_add_string(args, "name", name);
	json_object_object_add(args, "follow", json_object_new_boolean(1));
	interrupted = 0;
	catch_signal(SIGINT);
	catch_signal(SIGTERM);
	conn->stop = &interrupted;
	id = conn_send(conn, f->status, args);
	json_object_put(args);
	while (id >= 0) {
		json_object *rec = NULL;
		if ((r = conn_read(conn, &rep)) == -2 || (r == 0 && interrupted)) {
			if (r == 0)
				proto_reply_free(&rep);
			return cancel_wait(opts, conn, f, id, name);
		}
		if (r < 0)
			break;
		if (!rep.is_event && rep.id == id && !rep.ok) { /* nothing to follow */
			conn_print_refusal(&rep);
			rc = CTL_EXIT_REFUSED;
			proto_reply_free(&rep);
			break;
		}
		if (rep.is_event && rep.event != NULL && strcmp(rep.event, "shutdown") == 0) {
			fprintf(stderr, "netmetricsctl: the daemon is shutting down\n");
			proto_reply_free(&rep);
			break;
		}
		if (!rep.is_event || rep.id != id || rep.event == NULL ||
		    strcmp(rep.event, f->event) != 0) {
			proto_reply_free(&rep);
			continue;
		}
		if (!opts->json)
			json_sanitize_strings(rep.result, UTF8_KEEP_NEWLINE);
		if (!json_object_object_get_ex(rep.result, f->event, &rec)) {
			fprintf(stderr, "netmetricsctl: %s\n",
			        json_get_string(rep.result, "error", "the stream ended"));
			rc = CTL_EXIT_REFUSED;
			proto_reply_free(&rep);
			break;
		}
		if (!json_get_bool(rep.result, "end", false)) {
			if (!opts->json)
				show_progress(f, rec, tty);
			proto_reply_free(&rep);
			continue;
		}
		if (tty && !opts->json)
			fprintf(stdout, "\r\033[K");
		if (opts->json) {
			render_json(rec, stdout);
			rc = f->end(rec, opts, NULL);
		} else
			rc = f->end(rec, opts, stdout);
		proto_reply_free(&rep);
		break;
	}
	conn->stop = NULL;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	return rc;
}
