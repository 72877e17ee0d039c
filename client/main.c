/* main.c: netmetricsctl: global options, the command named by the words on the command
 * line (from the protocol's table), its arguments, the call, the rendering, the exit code. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "error.h"
#include "jsonutil.h"
#include "html.h"
#include "plot.h"
#include "xmalloc.h"

static const struct {
	const char *name;
	ctl_render_fn fn;
} renderers[] = {
    {"hello", render_hello},
    {"status", render_status},
    {"metrics", render_metrics},
    {"now", render_now},
    {"rates", render_rates},
    {"series", render_series},
    {"trend", render_trend},
    {"cpu", render_cpu},
    {"softirqs", render_softirqs},
    {"queues", render_queues},
    {"interrupts", render_interrupts},
    {"mark-start", render_mark_start},
    {"windows", render_windows},
    {"window-delete", render_deleted},
    {"results", render_results},
    {"result-delete", render_deleted},
    {"result-export", render_result_export},
    {"profile-show", render_profile_show},
    {"profile-apply", render_profile_apply},
    {"profile-revert", render_profile_revert},
    {"profile-status", render_profile_status},
    {"profiles", render_profiles},
    {"report", render_report},
    {"result-show", render_report},
    {"mark-stop", render_report},
    {"compare", render_compare},
    {"test-start", render_test},
    {"test-stop", render_test},
    {"test-status", render_test_status},
    {"tests", render_tests},
    {"suite-run", render_suite},
    {"suite-status", render_suite},
    {"suite-stop", render_suite},
};

ctl_render_fn
ctl_renderer_find(const char *name)
{
	for (size_t i = 0; i < sizeof(renderers) / sizeof(renderers[0]); i++)
		if (strcmp(renderers[i].name, name) == 0)
			return renderers[i].fn;
	return NULL;
}

/* The command's name as typed: "mark-start" -> "mark start". */
static void
display_name(const char *name, char *buf, size_t size)
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
	        "       netmetricsctl COMMAND --help\n\n"
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
		display_name(c->name, name, sizeof(name));
		fprintf(fp, "  %s %s\n      %s%s\n", name, c->usage ? c->usage : "", c->summary,
		        (c->flags & PROTO_MUTATING) ? " [admin]" : "");
	}
	fprintf(fp, "\nexit status: 0 ok, 1 the daemon refused, 2 usage, 3 daemon unreachable\n");
}

/* Per-command help, from the table. */
static void
command_help(const struct proto_command *c, FILE *fp)
{
	char name[PROTO_MAX_NAME];
	static const char *types[] = {"STRING",    "INT",     "NUMBER", "",
	                              "STRING...", "CPULIST", "JSON"};

	display_name(c->name, name, sizeof(name));
	fprintf(fp, "usage: netmetricsctl %s %s\n\n%s.\n", name, c->usage ? c->usage : "",
	        c->summary);
	if (c->flags & PROTO_MUTATING)
		fprintf(fp, "Changes the host: needs root or the daemon's admin group.\n");
	if (c->args[0].name != NULL)
		fprintf(fp, "\narguments:\n");
	for (const struct proto_arg *a = c->args; a->name != NULL; a++) {
		char opt[80];
		snprintf(opt, sizeof(opt), "--%s %s", a->name, types[a->type]);
		for (char *p = opt + 2; *p && *p != ' '; p++)
			if (*p == '_')
				*p = '-';
		fprintf(fp, "  %-28s %s%s%s\n", opt, a->help ? a->help : "",
		        a->required ? " (required)" : "", a->positional ? " (or positional)" : "");
	}
	if (strcmp(c->name, "series") == 0)
		fprintf(fp, "\nclient options:\n  %-28s %s\n  %-28s %s\n", "--plot[=braille|spark]",
		        "draw each series in the terminal (braille charts, or sparklines)", "--csv",
		        "rows of epoch_s,SERIES,... for gnuplot or a spreadsheet");
	if (strcmp(c->name, "series") == 0 || strcmp(c->name, "report") == 0 ||
	    strcmp(c->name, "compare") == 0)
		fprintf(fp, "%s  %-28s %s\n",
		        strcmp(c->name, "series") == 0 ? "" : "\nclient options:\n",
		        strcmp(c->name, "series") == 0 ? "--svg FILE" : "--html FILE",
		        strcmp(c->name, "series") == 0 ? "write one SVG chart of the series to FILE"
		                                       : "write one self-contained HTML page of "
		                                         "charts to FILE");
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

	display_name(c->name, name, sizeof(name));
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
			while (
			    pos->name != NULL &&
			    (!pos->positional || json_object_object_get_ex(args, pos->name, NULL)))
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
			fprintf(stderr, "netmetricsctl %s: bad value \"%s\" for %s\n", name,
			        conn_text(val, shown, sizeof(shown)), a->name);
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

/* --html, --svg: the replies drawn into a file (html.h). */
static int
ctl_draw(const struct ctl_opts *opts, const struct proto_command *c, json_object *args)
{
	json_object *res;
	int rc;

	if (opts->html != NULL && strcmp(c->name, "compare") == 0)
		return html_compare(opts, json_get_string(args, "a", ""),
		                    json_get_string(args, "b", ""), opts->html);
	if (opts->html != NULL)
		return html_report(opts, json_get_string(args, "name", ""), opts->html);
	if ((rc = ctl_call(opts, c->name, args, &res)) != CTL_EXIT_OK || res == NULL)
		return rc;
	rc = html_series_svg(res, opts->svg);
	json_object_put(res);
	return rc;
}

/* Start a test or suite and follow it until it ends (--wait). */
static int
run_and_wait(const struct ctl_opts *opts, const struct proto_command *c, json_object *args)
{
	json_object *res;
	char name[256];
	int rc = ctl_call(opts, c->name, args, &res);

	if (res == NULL)
		return rc;
	snprintf(name, sizeof(name), "%s", json_get_string(res, "name", ""));
	json_object_put(res);
	if (strcmp(c->name, "suite-run") == 0)
		return ctl_wait_suite(opts, name);
	return ctl_wait_test(opts, name);
}

int
main(int argc, char **argv)
{
	struct ctl_opts opts = {0};
	const struct proto_command *c;
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
	if ((c = find_command(argc - i, argv + i, &used)) == NULL) {
		fprintf(stderr,
		        "netmetricsctl: unknown command \"%s\" (see netmetricsctl --help)\n",
		        conn_text(argv[i], shown, sizeof(shown)));
		return CTL_EXIT_USAGE;
	}
	i += used;
	/* Global options may also follow the command (not a command's words after --). */
	for (int j = i; j < argc && strcmp(argv[j], "--") != 0; j++) {
		/* --wait is the client's own: it follows a test or suite it started. */
		if (strcmp(argv[j], "--wait") == 0 &&
		    (strcmp(c->name, "test-start") == 0 || strcmp(c->name, "suite-run") == 0)) {
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
			if (strcmp(c->name, "series") != 0) {
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
		/* --html FILE and --svg FILE are the client's own: it draws the replies. */
		if (strcmp(argv[j], "--html") == 0 || strcmp(argv[j], "--svg") == 0) {
			bool html = argv[j][2] == 'h';
			if (j + 1 >= argc ||
			    strcmp(c->name,
			           html ? (strcmp(c->name, "compare") == 0 ? "compare" : "report")
			                : "series") != 0) {
				fprintf(stderr,
				        "netmetricsctl: %s FILE: report and compare write HTML, "
				        "series SVG\n",
				        argv[j]);
				return CTL_EXIT_USAGE;
			}
			*(html ? &opts.html : &opts.svg) = argv[j + 1];
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
	if ((strcmp(c->name, "profile-apply") == 0 && ctl_profile_args(args) < 0) ||
	    (strcmp(c->name, "suite-run") == 0 && ctl_suite_args(args) < 0)) {
		json_object_put(args);
		return CTL_EXIT_USAGE;
	}
	if (opts.html != NULL || opts.svg != NULL)
		rc = ctl_draw(&opts, c, args);
	else if (c->flags & PROTO_STREAM)
		rc = ctl_watch(&opts, args);
	else if (wait)
		rc = run_and_wait(&opts, c, args);
	else
		rc = run(&opts, c, args);
	json_object_put(args);
	return rc;
}
