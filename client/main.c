/* main.c: netmetricsctl: global options, the command named by the words on the command
 * line (from the protocol's table), its arguments, the call, the rendering, the exit code. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "completion.h"
#include "ctl.h"
#include "error.h"
#include "jsonutil.h"
#include "html.h"
#include "plot.h"
#include "timeutil.h"
#include "xmalloc.h"

/* The client's side of each command (struct ctl_command): its renderer, its options, its
 * file argument, what --wait follows. A command of the protocol without an entry is shown
 * as JSON. */
static const struct ctl_command commands[] = {
    {.name = "hello", .render = render_hello},
    {.name = "status", .render = render_status},
    {.name = "metrics", .render = render_metrics},
    {.name = "now", .render = render_now},
    {.name = "rates", .render = render_rates},
    {.name = "series",
     .render = render_series,
     .flags = CTL_PLOT,
     .draw = html_series_svg,
     .draw_opt = "--svg",
     .draw_help = "write one SVG chart of the series to FILE"},
    {.name = "trend", .render = render_trend},
    {.name = "cpu", .render = render_cpu},
    {.name = "softirqs", .render = render_softirqs},
    {.name = "queues", .render = render_queues},
    {.name = "interrupts", .render = render_interrupts},
    {.name = "napi", .render = render_napi},
    {.name = "drops", .render = render_drops},
    {.name = "mark-start", .render = render_mark_start},
    {.name = "windows", .render = render_windows},
    {.name = "window-delete", .render = render_deleted},
    {.name = "results", .render = render_results},
    {.name = "results-trend", .render = render_results_trend},
    {.name = "result-delete", .render = render_deleted},
    {.name = "result-export", .render = render_result_export},
    {.name = "profile-show", .render = render_profile_show},
    {.name = "profile-apply", .render = render_profile_apply, .file_args = ctl_profile_args},
    {.name = "profile-set", .render = render_profile_apply},
    {.name = "profile-save", .render = render_profile_save},
    {.name = "profile-revert", .render = render_profile_revert},
    {.name = "profile-status", .render = render_profile_status},
    {.name = "profiles", .render = render_profiles},
    {.name = "report",
     .render = render_report,
     .draw = html_report,
     .draw_opt = "--html",
     .draw_help = "write one self-contained HTML page of charts to FILE"},
    {.name = "result-show", .render = render_report},
    {.name = "mark-stop", .render = render_report},
    {.name = "compare",
     .render = render_compare,
     .draw = html_compare,
     .draw_opt = "--html",
     .draw_help = "write one self-contained HTML page of charts to FILE"},
    {.name = "test-start", .render = render_test, .wait = ctl_wait_test},
    {.name = "test-stop", .render = render_test},
    {.name = "test-status", .render = render_test_status, .follow = ctl_wait_test},
    {.name = "tests", .render = render_tests},
    {.name = "suite-run",
     .render = render_suite,
     .file_args = ctl_suite_args,
     .wait = ctl_wait_suite},
    {.name = "suite-status", .render = render_suite, .follow = ctl_wait_suite},
    {.name = "suite-stop", .render = render_suite},
};

const struct ctl_command *
ctl_command_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

ctl_render_fn
ctl_renderer_find(const char *name)
{
	const struct ctl_command *e = ctl_command_find(name);

	return e != NULL ? e->render : NULL;
}

/* The command's name as typed: "mark-start" -> "mark start". */
void
ctl_command_words(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s", name);
	for (char *p = buf; *p; p++)
		if (*p == '-')
			*p = ' ';
}

static void
usage(FILE *fp)
{
	char name[PROTO_MAX_NAME];

	fprintf(fp,
	        "usage: netmetricsctl [--socket PATH] [--json] COMMAND [ARGS]\n"
	        "       netmetricsctl COMMAND --help\n"
	        "       netmetricsctl completion bash  (a bash completion script)\n\n"
	        "options:\n"
	        "  -s, --socket PATH  the daemon's socket (default $NETMETRICS_SOCKET or %s)\n"
	        "  -j, --json         print the daemon's result as JSON, unchanged\n"
	        "      --csv          CSV where a command has tables\n"
	        "      --plot[=MODE]  series: draw a chart per series in the terminal; MODE\n"
	        "                     braille (line charts) or spark (sparklines)\n"
	        "      --html FILE    report, compare: write an HTML page of charts to FILE\n"
	        "      --svg FILE     series: write an SVG chart to FILE\n"
	        "  -h, --help         this text\n"
	        "  -V, --version      print the version\n\n"
	        "commands:\n",
	        CTL_DEFAULT_SOCKET);
	for (size_t i = 0; i < proto_ncommands; i++) {
		const struct proto_command *c = &proto_commands[i];
		ctl_command_words(c->name, name, sizeof(name));
		fprintf(fp, "  %s %s\n      %s%s\n", name, c->usage ? c->usage : "", c->summary,
		        (c->flags & PROTO_MUTATING) ? " [admin]" : "");
	}
	fprintf(fp, "  proxy\n      join stdin and stdout to the daemon's socket (a peer's "
	            "transport: [peer] in netmetricsd.conf)\n");
	fprintf(fp, "\nexit status: 0 ok, 1 the daemon refused, 2 usage, 3 daemon unreachable\n");
}

/* Per-command help, from the table. */
static void
command_help(const struct proto_command *c, FILE *fp)
{
	const struct ctl_command *e = ctl_command_find(c->name);
	char name[PROTO_MAX_NAME];
	static const char *types[] = {"STRING",    "INT",     "NUMBER", "",
	                              "STRING...", "CPULIST", "JSON"};

	ctl_command_words(c->name, name, sizeof(name));
	fprintf(fp, "usage: netmetricsctl %s %s\n\n%s.\n", name, c->usage ? c->usage : "",
	        c->summary);
	if (c->flags & PROTO_MUTATING)
		fprintf(fp, "Changes the host: needs root or the daemon's admin group.\n");
	if (c->args[0].name != NULL)
		fprintf(fp, "\narguments:\n");
	for (const struct proto_arg *a = c->args; a->name != NULL; a++) {
		char opt[80];
		snprintf(opt, sizeof(opt), "--%s %s", a->name,
		         a->duration != PROTO_DUR_NONE ? "DURATION" : types[a->type]);
		for (char *p = opt + 2; *p && *p != ' '; p++)
			if (*p == '_')
				*p = '-';
		fprintf(fp, "  %-28s %s%s%s\n", opt, a->help ? a->help : "",
		        a->required ? " (required)" : "", a->positional ? " (or positional)" : "");
	}
	if (e != NULL && (e->flags & CTL_PLOT))
		fprintf(fp, "\nclient options:\n  %-28s %s\n  %-28s %s\n", "--plot[=braille|spark]",
		        "draw each series in the terminal (braille charts, or sparklines)", "--csv",
		        "rows of epoch_s,SERIES,... for gnuplot or a spreadsheet");
	if (e != NULL && e->wait != NULL)
		fprintf(fp, "\nclient options:\n  %-28s %s\n", "--wait",
		        "follow it on the same connection until it ends (Ctrl-C stops waiting)");
	if (e != NULL && e->draw != NULL)
		fprintf(fp, "%s  %-28s %s\n",
		        e->wait != NULL || (e->flags & CTL_PLOT) ? "" : "\nclient options:\n",
		        e->draw_opt, e->draw_help);
}

/* Find the command named by the longest run of words at argv[0..]: "mark start" ->
 * "mark-start". Sets *used to the words consumed. */
static const struct proto_command *
find_command(int argc, char **argv, int *used)
{
	char name[PROTO_MAX_NAME] = "";
	const struct proto_command *found = NULL;

	for (int i = 0; i < argc && i < 4 && argv[i][0] != '-'; i++) {
		size_t l = strlen(name);
		snprintf(name + l, sizeof(name) - l, "%s%s", l ? "-" : "", argv[i]);
		const struct proto_command *c = proto_command_find(name);
		if (c != NULL) {
			found = c;
			*used = i + 1;
		}
	}
	return found;
}

/* Convert one command-line value to the JSON the argument's type wants. */
static json_object *
arg_value(const struct proto_arg *a, const char *s)
{
	char *end;

	if (a->duration != PROTO_DUR_NONE &&
	    (a->type == PROTO_ARG_INT || a->type == PROTO_ARG_NUMBER)) {
		/* 5m, -10s, 1m30s, 500ms: sent as a number in the argument's unit (integers
		 * rounded to it); the daemon checks the range. */
		int64_t ns, unit = (int64_t)proto_duration_ns(a->duration);
		if (time_parse_duration(s, (uint64_t)unit, 1, &ns) < 0)
			return NULL;
		if (a->type == PROTO_ARG_INT)
			return json_object_new_int64((ns + (ns < 0 ? -unit : unit) / 2) / unit);
		return json_object_new_double((double)ns / (double)unit);
	}
	switch (a->type) {
	case PROTO_ARG_INT: {
		errno = 0;
		long long v = strtoll(s, &end, 10);
		if (errno || end == s || *end)
			return NULL;
		return json_object_new_int64(v);
	}
	case PROTO_ARG_NUMBER: {
		double v = strtod(s, &end);
		if (end == s || *end)
			return NULL;
		return json_object_new_double(v);
	}
	case PROTO_ARG_OBJECT:
		return json_tokener_parse(s);
	default:
		return json_object_new_string(s);
	}
}

/* The argument named by an option ("--last-sec" or "--last_sec"). */
static const struct proto_arg *
find_arg(const struct proto_command *c, const char *opt)
{
	for (const struct proto_arg *a = c->args; a->name != NULL; a++) {
		size_t i;
		for (i = 0; a->name[i] && opt[i]; i++)
			if (a->name[i] != opt[i] && !(a->name[i] == '_' && opt[i] == '-'))
				break;
		if (a->name[i] == '\0' && opt[i] == '\0')
			return a;
	}
	return NULL;
}

/* Add a value to args: repeated STRINGS options build an array. */
static void
args_put(json_object *args, const struct proto_arg *a, json_object *v)
{
	json_object *arr;

	if (a->type != PROTO_ARG_STRINGS) {
		json_object_object_add(args, a->name, v);
		return;
	}
	if (!json_object_object_get_ex(args, a->name, &arr)) {
		arr = json_object_new_array();
		json_object_object_add(args, a->name, arr);
	}
	json_object_array_add(arr, v);
}

/* Build the args object from the words after the command. NULL after printing a usage error. */
static json_object *
parse_args(const struct proto_command *c, int argc, char **argv)
{
	json_object *args = json_object_new_object();
	const struct proto_arg *pos = c->args;
	char name[PROTO_MAX_NAME], shown[256];

	ctl_command_words(c->name, name, sizeof(name));
	for (int i = 0; i < argc; i++) {
		const struct proto_arg *a;
		json_object *v;
		const char *val;

		if (strcmp(argv[i], "--") == 0) {
			/* The words after -- are a command (test start --driver exec). */
			if ((a = find_arg(c, "argv")) == NULL) {
				fprintf(stderr, "netmetricsctl %s: nothing takes words after --\n",
				        name);
				goto fail;
			}
			for (i++; i < argc; i++)
				args_put(args, a, json_object_new_string(argv[i]));
			break;
		}
		if (strncmp(argv[i], "--", 2) == 0 && argv[i][2] != '\0') {
			char *eq = strchr(argv[i], '=');
			char opt[PROTO_MAX_NAME];
			snprintf(opt, sizeof(opt), "%.*s",
			         (int)(eq ? eq - argv[i] - 2 : (long)strlen(argv[i] + 2)),
			         argv[i] + 2);
			if ((a = find_arg(c, opt)) == NULL) {
				fprintf(stderr, "netmetricsctl %s: unknown option --%s\n", name,
				        conn_text(opt, shown, sizeof(shown)));
				goto fail;
			}
			if (a->type == PROTO_ARG_BOOL && eq == NULL) {
				json_object_object_add(args, a->name, json_object_new_boolean(1));
				continue;
			}
			if (eq != NULL)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				fprintf(stderr, "netmetricsctl %s: --%s needs a value\n", name,
				        conn_text(opt, shown, sizeof(shown)));
				goto fail;
			}
			if (a->type == PROTO_ARG_BOOL) {
				v = json_object_new_boolean(strcmp(val, "yes") == 0 ||
				                            strcmp(val, "true") == 0 ||
				                            strcmp(val, "1") == 0);
			} else
				v = arg_value(a, val);
		} else {
			while (pos->name != NULL &&
			       (!pos->positional ||
			        (pos->type != PROTO_ARG_STRINGS &&
			         json_object_object_get_ex(args, pos->name, NULL))))
				pos++;
			if ((a = pos) == NULL || a->name == NULL) {
				fprintf(stderr, "netmetricsctl %s: unexpected argument \"%s\"\n",
				        name, conn_text(argv[i], shown, sizeof(shown)));
				goto fail;
			}
			val = argv[i];
			v = arg_value(a, val);
			if (a->type != PROTO_ARG_STRINGS)
				pos++;
		}
		if (v == NULL) {
			fprintf(stderr, "netmetricsctl %s: bad value \"%s\" for %s%s\n", name,
			        conn_text(val, shown, sizeof(shown)), a->name,
			        a->duration != PROTO_DUR_NONE ? " (a duration: 5m, -10s, 1m30s, "
			                                        "500ms; bare: the unit of its help)"
			                                      : "");
			goto fail;
		}
		args_put(args, a, v);
	}
	return args;
fail:
	json_object_put(args);
	return NULL;
}

/* Call the daemon and render its answer; the exit code. */
static int
run(const struct ctl_opts *opts, const struct proto_command *c, json_object *args)
{
	ctl_render_fn render = ctl_renderer_find(c->name);
	json_object *res;
	int rc = ctl_call(opts, c->name, args, &res);

	if (res == NULL)
		return rc;
	if (opts->json || render == NULL)
		render_json(res, stdout);
	else
		render(res, opts, stdout);
	json_object_put(res);
	return rc;
}

/* Start a test or suite and follow it on the same connection until it ends (--wait); or,
 * with follow set, only follow it (test status NAME --follow). */
static int
run_and_wait(const struct ctl_opts *opts, const struct ctl_command *e, json_object *args,
             bool follow)
{
	struct conn conn;
	json_object *res = NULL;
	int rc;

	if (conn_open(&conn, opts->socket) < 0)
		return CTL_EXIT_UNREACHABLE;
	if (follow)
		rc = e->follow(opts, &conn, args);
	else if ((rc = ctl_call_on(opts, &conn, e->name, args, &res)) == CTL_EXIT_OK)
		rc = e->wait(opts, &conn, res);
	json_object_put(res);
	conn_close(&conn);
	return rc;
}

int
main(int argc, char **argv)
{
	struct ctl_opts opts = {0};
	const struct proto_command *c;
	const struct ctl_command *e;
	const char *draw_file = NULL;
	json_object *args;
	int i, used = 0, rc;
	bool wait = false;
	char shown[256];

	opts.socket = getenv("NETMETRICS_SOCKET");
	if (opts.socket == NULL || *opts.socket == '\0')
		opts.socket = CTL_DEFAULT_SOCKET;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-s") == 0 || strcmp(argv[i], "--socket") == 0) {
			if (++i == argc) {
				fprintf(stderr, "netmetricsctl: --socket needs a path\n");
				return CTL_EXIT_USAGE;
			}
			opts.socket = argv[i];
		} else if (strncmp(argv[i], "--socket=", 9) == 0)
			opts.socket = argv[i] + 9;
		else if (strcmp(argv[i], "-j") == 0 || strcmp(argv[i], "--json") == 0)
			opts.json = true;
		else if (strcmp(argv[i], "--csv") == 0)
			opts.csv = true;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return CTL_EXIT_OK;
		} else if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0) {
			printf("netmetricsctl %s (protocol %d)\n", NM_VERSION, PROTO_VERSION);
			return CTL_EXIT_OK;
		} else {
			fprintf(stderr, "netmetricsctl: unknown option %s\n",
			        conn_text(argv[i], shown, sizeof(shown)));
			usage(stderr);
			return CTL_EXIT_USAGE;
		}
	}
	if (i == argc) {
		usage(stderr);
		return CTL_EXIT_USAGE;
	}
	/* The client's own: a completion script written from the command table. */
	if (strcmp(argv[i], "completion") == 0)
		return completion_main(argc - i - 1, argv + i + 1, stdout, stderr);
	/* proxy is the client's own: no request, the socket joined to stdin and stdout. */
	if (strcmp(argv[i], "proxy") == 0 && i + 1 == argc)
		return ctl_proxy(&opts);
	if ((c = find_command(argc - i, argv + i, &used)) == NULL) {
		fprintf(stderr,
		        "netmetricsctl: unknown command \"%s\" (see netmetricsctl --help)\n",
		        conn_text(argv[i], shown, sizeof(shown)));
		return CTL_EXIT_USAGE;
	}
	i += used;
	e = ctl_command_find(c->name);
	/* Global options may also follow the command (not a command's words after --). */
	for (int j = i; j < argc && strcmp(argv[j], "--") != 0; j++) {
		/* --wait is the client's own: it follows what the command started. */
		if (strcmp(argv[j], "--wait") == 0 && e != NULL && e->wait != NULL) {
			wait = true;
			memmove(&argv[j], &argv[j + 1], (size_t)(argc - j - 1) * sizeof(*argv));
			argc--;
			j--;
			continue;
		}
		if (strcmp(argv[j], "--help") == 0 || strcmp(argv[j], "-h") == 0) {
			command_help(c, stdout);
			return CTL_EXIT_OK;
		}
		/* --plot is the client's own: it draws what series returns. */
		if (strcmp(argv[j], "--plot") == 0 || strncmp(argv[j], "--plot=", 7) == 0) {
			if (e == NULL || !(e->flags & CTL_PLOT)) {
				fprintf(stderr,
				        "netmetricsctl: --plot: only series draws charts\n");
				return CTL_EXIT_USAGE;
			}
			if ((opts.plot = plot_mode_parse(argv[j] + 6 + (argv[j][6] == '='))) < 0) {
				fprintf(stderr,
				        "netmetricsctl: --plot: %s is not braille or spark\n",
				        conn_text(argv[j] + 7, shown, sizeof(shown)));
				return CTL_EXIT_USAGE;
			}
			memmove(&argv[j], &argv[j + 1], (size_t)(argc - j - 1) * sizeof(*argv));
			argc--;
			j--;
			continue;
		}
		/* --html FILE and --svg FILE are the client's own: it draws the replies (the
		 * command's entry says which option it takes, and how it draws). */
		if (strcmp(argv[j], "--html") == 0 || strcmp(argv[j], "--svg") == 0) {
			if (j + 1 >= argc || e == NULL || e->draw == NULL ||
			    strcmp(argv[j], e->draw_opt) != 0) {
				fprintf(stderr,
				        "netmetricsctl: %s FILE: report and compare write HTML, "
				        "series SVG\n",
				        argv[j]);
				return CTL_EXIT_USAGE;
			}
			draw_file = argv[j + 1];
			memmove(&argv[j], &argv[j + 2], (size_t)(argc - j - 2) * sizeof(*argv));
			argc -= 2;
			j--;
			continue;
		}
		if (strcmp(argv[j], "--json") == 0 || strcmp(argv[j], "--csv") == 0) {
			opts.json |= argv[j][2] == 'j';
			opts.csv |= argv[j][2] == 'c';
			memmove(&argv[j], &argv[j + 1], (size_t)(argc - j - 1) * sizeof(*argv));
			argc--;
			j--;
		}
	}
	if ((args = parse_args(c, argc - i, argv + i)) == NULL)
		return CTL_EXIT_USAGE;
	if (e != NULL && e->file_args != NULL && e->file_args(args) < 0) {
		json_object_put(args);
		return CTL_EXIT_USAGE;
	}
	if (draw_file != NULL)
		rc = e->draw(&opts, args, draw_file);
	else if (c->flags & PROTO_STREAM)
		rc = ctl_watch(&opts, args);
	else if (wait)
		rc = run_and_wait(&opts, e, args, false);
	else if (e != NULL && e->follow != NULL && json_get_bool(args, "follow", false))
		rc = run_and_wait(&opts, e, args, true);
	else
		rc = run(&opts, c, args);
	json_object_put(args);
	return rc;
}
