/* commands.c: the command table, the single source of truth for names, arguments and access.
 * The daemon binds its handlers to it, the client builds its help from it. */
#include <string.h>

#include "jsonutil.h"
#include "proto.h"

/* Ids are JSON integers that every JSON implementation represents exactly. */
#define PROTO_MAX_ID 9007199254740992.0 /* 2^53 */

#define ARG_LAST                                                                                   \
	{                                                                                          \
		.name = "last", .type = PROTO_ARG_NUMBER, .min = 0.01, .max = 86400,               \
		.help = "seconds back from the newest sample (default 10)",                        \
		.duration = PROTO_DUR_S                                                            \
	}
#define ARG_WINDOW                                                                                 \
	{                                                                                          \
		.name = "window", .type = PROTO_ARG_STRING, .max_len = 200,                        \
		.help =                                                                            \
		    "over this window or test (open, kept or stored) instead of the last seconds"  \
	}
#define ARG_GLOB(req)                                                                              \
	{                                                                                          \
		.name = "glob", .type = PROTO_ARG_STRING, .required = req, .positional = true,     \
		.max_len = 256, .help = "series names to match, fnmatch(3) style: 'irq.*.cpu3'"    \
	}

/* The name of a window or a stored result (the daemon checks its characters). */
#define ARG_WINDOW_NAME(what)                                                                      \
	{                                                                                          \
		.name = "name", .type = PROTO_ARG_STRING, .required = true, .positional = true,    \
		.max_len = 200, .help = what                                                       \
	}
/* Options of a window's report. */
#define ARG_REPORT_CPUS                                                                            \
	{                                                                                          \
		.name = "cpus", .type = PROTO_ARG_STRINGS, .max_len = 300,                         \
		.help = "a CPU set to sum figures over, NAME=LIST (repeatable): expected=0-71"     \
	}
#define ARG_REPORT_TCPEXT                                                                          \
	{                                                                                          \
		.name = "tcpext", .type = PROTO_ARG_STRINGS, .max_len = 64,                        \
		.help = "also report this TcpExt field (TCPLostRetransmit...); repeatable"         \
	}
#define ARG_REPORT_MIN_RATE                                                                        \
	{                                                                                          \
		.name = "min_rate", .type = PROTO_ARG_NUMBER, .min = 0, .max = 1e12,               \
		.help = "leave out queues below this many packets/s (still summed)"                \
	}

const struct proto_command proto_commands[] = {
    {
        .name = "hello",
        .flags = PROTO_READONLY,
        .summary = "protocol version, daemon version and the command table",
        .usage = "",
    },
    {
        .name = "status",
        .flags = PROTO_READONLY,
        .summary = "daemon pid, uptime, configuration in force, root, state directory, clients",
        .usage = "",
    },
    {
        .name = "cancel",
        .flags = PROTO_READONLY,
        .summary = "stop a streaming command of this connection",
        .usage = "ID",
        .args =
            {
                {
                    .name = "id",
                    .type = PROTO_ARG_INT,
                    .required = true,
                    .min = 0,
                    .max = PROTO_MAX_ID,
                    .help = "id of the streaming request to stop",
                    .positional = true,
                },
            },
    },
    {
        .name = "metrics",
        .flags = PROTO_READONLY,
        .summary = "the series the daemon knows: name, kind, unit, source, labels",
        .usage = "[GLOB] [--live] [--label KEY=VALUE]...",
        .args = {ARG_GLOB(false),
                 {.name = "live", .type = PROTO_ARG_BOOL, .help = "only series that exist now"},
                 {.name = "label",
                  .type = PROTO_ARG_STRINGS,
                  .max_len = 200,
                  .help = "only series with this label, KEY=VALUE (repeatable): type=NET_RX"}},
    },
    {
        .name = "now",
        .flags = PROTO_READONLY,
        .summary = "sample every source now and show the current values",
        .usage = "[GLOB]",
        .args = {ARG_GLOB(false)},
    },
    {
        .name = "rates",
        .flags = PROTO_READONLY,
        .summary = "per-second rates and deltas of matched series over the last seconds",
        .usage = "[GLOB] [--last SEC | --window NAME] [--all]",
        .args = {ARG_GLOB(false),
                 ARG_LAST,
                 ARG_WINDOW,
                 {.name = "all",
                  .type = PROTO_ARG_BOOL,
                  .help = "include series that did not move"}},
    },
    {
        .name = "series",
        .flags = PROTO_READONLY,
        .summary = "rates of matched series step by step over a time range",
        .usage = "GLOB [--window NAME | --from T --to T] [--step SEC] [--bursts] [--host PEER]",
        .args = {ARG_GLOB(true),
                 {.name = "bursts",
                  .type = PROTO_ARG_BOOL,
                  .help = "per step, each matched device, queue or CPU counter that has a peak "
                          "series: its mean rate, its peak (peak.NAME) and peak_to_mean.NAME"},
                 {.name = "window",
                  .type = PROTO_ARG_STRING,
                  .max_len = 200,
                  .help = "the span of this window or test (open, kept or stored) instead of "
                          "from/to"},
                 {.name = "host",
                  .type = PROTO_ARG_STRING,
                  .max_len = 32,
                  .help = "a configured peer: its daemon answers (its series over its window "
                          "of that name); this host's name or none: here"},
                 {.name = "from",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = -1e7,
                  .max = 1e11,
                  .help = "start: seconds before now when <= 0 (default -300), else epoch seconds"},
                 {.name = "to",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = -1e7,
                  .max = 1e11,
                  .help = "end, the same way (default 0: now)"},
                 {.name = "step",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = 0.01,
                  .max = 86400,
                  .help = "seconds per point (default 1)"}},
    },
    {
        .name = "trend",
        .flags = PROTO_READONLY,
        .summary = "plateau, onset of decay, decayed level and recovery of a series' rate, and "
                   "the counters that moved most at the onset",
        .usage = "METRIC [--window NAME | --from T --to T] [--step SEC] [--threshold F] "
                 "[--recover F] [--sustain SEC] [--plateau SEC] [--movers N] "
                 "[--movers-glob GLOB ...] [--host PEER]",
        .args = {{.name = "metric",
                  .type = PROTO_ARG_STRING,
                  .required = true,
                  .positional = true,
                  .max_len = 256,
                  .help = "the series, by name or a glob matching one: link.eth0.rx_packets"},
                 {.name = "window",
                  .type = PROTO_ARG_STRING,
                  .max_len = 200,
                  .help = "over this window's span (open, kept or stored) instead of from/to; "
                          "the threshold, recover, sustain, plateau and step not given are "
                          "those of the trend stored with its result (the report's)"},
                 {.name = "host",
                  .type = PROTO_ARG_STRING,
                  .max_len = 32,
                  .help = "a configured peer: its daemon answers (its trend over its window "
                          "of that name); this host's name or none: here"},
                 {.name = "from",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = -1e7,
                  .max = 1e11,
                  .help = "start: seconds before now when <= 0 (default -300), else epoch seconds"},
                 {.name = "to",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = -1e7,
                  .max = 1e11,
                  .help = "end, the same way (default 0: now)"},
                 {.name = "step",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = 0.01,
                  .max = 86400,
                  .help = "seconds per point, rounded to whole sampling intervals of the "
                          "series (default: one)"},
                 {.name = "threshold",
                  .type = PROTO_ARG_NUMBER,
                  .min = 0.01,
                  .max = 1,
                  .help = "decay: the rate below this fraction of the plateau (default 0.7)"},
                 {.name = "recover",
                  .type = PROTO_ARG_NUMBER,
                  .min = 0.01,
                  .max = 10,
                  .help = "recovery: back at or above this fraction of the plateau (default 0.9)"},
                 {.name = "sustain",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = 0.01,
                  .max = 86400,
                  .help = "seconds the rate must stay there to count (default 5)"},
                 {.name = "plateau",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = 0.01,
                  .max = 86400,
                  .help = "the plateau is the median of this many first seconds of traffic "
                          "(default 10)"},
                 {.name = "movers",
                  .type = PROTO_ARG_INT,
                  .min = 0,
                  .max = 100,
                  .help = "list this many counters that moved most at the onset (default 10)"},
                 {.name = "movers_glob",
                  .type = PROTO_ARG_STRINGS,
                  .max_len = 256,
                  .help = "counters to rank as movers, repeatable (default lnstat.* softnet.* "
                          "snmp.* link.*)"}},
    },
    {
        .name = "queues",
        .flags = PROTO_READONLY,
        .summary =
            "per-queue rx/tx packet and byte rates, the IRQ of each queue and the CPUs it fired on",
        .usage = "[DEV] [--last SEC | --window NAME] [--min-rate PPS]",
        .args = {{.name = "dev",
                  .type = PROTO_ARG_STRING,
                  .positional = true,
                  .max_len = 15,
                  .help = "network device (default: all)"},
                 ARG_LAST,
                 ARG_WINDOW,
                 {.name = "min_rate",
                  .type = PROTO_ARG_NUMBER,
                  .min = 0,
                  .max = 1e12,
                  .help = "hide queues below this many packets/s"}},
    },
    {
        .name = "cpu",
        .flags = PROTO_READONLY,
        .summary =
            "CPU utilisation per CPU and in total: user, system, irq, softirq, idle %, CPUs busy",
        .usage = "[--last SEC | --window NAME] [--cpus LIST]",
        .args = {ARG_LAST,
                 ARG_WINDOW,
                 {.name = "cpus",
                  .type = PROTO_ARG_CPULIST,
                  .max_len = 4096,
                  .help = "only these CPUs, and their sum (list or hex mask)"}},
    },
    {
        .name = "softirqs",
        .flags = PROTO_READONLY,
        .summary = "softirqs per type per CPU per second",
        .usage = "[--last SEC | --window NAME] [--all] [--time]",
        .args = {ARG_LAST,
                 ARG_WINDOW,
                 {.name = "all", .type = PROTO_ARG_BOOL, .help = "include CPUs with no softirqs"},
                 {.name = "time",
                  .type = PROTO_ARG_BOOL,
                  .help = "each type's share of each CPU's time, beside the counts (bpf)"}},
    },
    {
        .name = "interrupts",
        .flags = PROTO_READONLY,
        .summary = "interrupts per IRQ per CPU per second, with device, queue and affinity",
        .usage = "[DEV] [--last SEC | --window NAME] [--all]",
        .args = {{.name = "dev",
                  .type = PROTO_ARG_STRING,
                  .positional = true,
                  .max_len = 64,
                  .help = "only the IRQs of this network device"},
                 ARG_LAST,
                 ARG_WINDOW,
                 {.name = "all", .type = PROTO_ARG_BOOL, .help = "include IRQs that did not fire"}},
    },
    {
        .name = "napi",
        .flags = PROTO_READONLY,
        .summary = "NAPI instances per second: polls, packets per poll, budget-exhausted polls, "
                   "CPUs (bpf)",
        .usage = "[DEV] [--last SEC | --window NAME] [--all]",
        .args = {{.name = "dev",
                  .type = PROTO_ARG_STRING,
                  .positional = true,
                  .max_len = 64,
                  .help = "only the NAPI instances of this network device"},
                 ARG_LAST,
                 ARG_WINDOW,
                 {.name = "all",
                  .type = PROTO_ARG_BOOL,
                  .help = "include instances that did not poll"}},
    },
    {
        .name = "drops",
        .flags = PROTO_READONLY,
        .summary = "where packets were lost: drop reasons (bpf) beside NIC, softnet, qdisc and "
                   "socket drop counters",
        .usage = "[--last SEC | --window NAME] [--all]",
        .args = {ARG_LAST,
                 ARG_WINDOW,
                 {.name = "all",
                  .type = PROTO_ARG_BOOL,
                  .help = "include counters that did not move"}},
    },
    {
        .name = "watch",
        .flags = PROTO_READONLY | PROTO_STREAM,
        .summary = "stream queues, cpu, softirqs, interrupts or bursts every interval until "
                   "cancelled",
        .usage = "queues|cpu|softirqs|interrupts|bursts [DEV] [--interval MS]",
        .args = {{.name = "what",
                  .type = PROTO_ARG_STRING,
                  .required = true,
                  .positional = true,
                  .max_len = 16,
                  .help = "queues, cpu, softirqs, interrupts or bursts"},
                 {.name = "dev",
                  .type = PROTO_ARG_STRING,
                  .positional = true,
                  .max_len = 64,
                  .help = "network device, for queues, interrupts and bursts"},
                 {.name = "interval",
                  .type = PROTO_ARG_INT,
                  .duration = PROTO_DUR_MS,
                  .min = 100,
                  .max = 60000,
                  .help = "milliseconds between views (default 1000)"},
                 {.name = "min_rate",
                  .type = PROTO_ARG_NUMBER,
                  .min = 0,
                  .max = 1e12,
                  .help = "queues: hide queues below this many packets/s"},
                 {.name = "cpus",
                  .type = PROTO_ARG_CPULIST,
                  .max_len = 4096,
                  .help = "cpu: only these CPUs, and their sum"},
                 {.name = "all",
                  .type = PROTO_ARG_BOOL,
                  .help = "include idle rows; bursts: every queue and CPU, not max_series"}},
    },
    {
        .name = "mark-start",
        .flags = PROTO_MUTATING,
        .summary = "open a measurement window: sample every source now as its start",
        .usage = "NAME [--peer PEER ...] [--replace] [--bpf]",
        .args = {ARG_WINDOW_NAME("the window's name: letters, digits, '.', '_', '-', '/'"),
                 {.name = "peer",
                  .type = PROTO_ARG_STRINGS,
                  .max_len = 32,
                  .help = "open it on this configured peer too, at the same moment "
                          "(repeatable; mark stop closes it there)"},
                 {.name = "replace",
                  .type = PROTO_ARG_BOOL,
                  .help = "a closed window or stored result of that name is deleted once "
                          "this one has opened"},
                 {.name = "bpf",
                  .type = PROTO_ARG_BOOL,
                  .help = "the eBPF programs on for this window (attached before its start, "
                          "detached after its stop, with [source.bpf] attach = on-demand)"}},
    },
    {
        .name = "mark-stop",
        .flags = PROTO_MUTATING,
        .summary = "close a window: sample every source now, store its report and show it",
        .usage = "NAME [--cpus NAME=LIST ...] [--min-rate PPS] [--tcpext FIELD ...]",
        .args = {ARG_WINDOW_NAME("the open window to close"), ARG_REPORT_CPUS, ARG_REPORT_MIN_RATE,
                 ARG_REPORT_TCPEXT},
    },
    {
        .name = "windows",
        .flags = PROTO_READONLY,
        .summary = "open windows and closed ones still in memory: origin, start, end, duration",
        .usage = "",
    },
    {
        .name = "window-delete",
        .flags = PROTO_MUTATING,
        .summary = "forget a window, open or closed; its stored result stays",
        .usage = "NAME",
        .args = {ARG_WINDOW_NAME("the window to forget")},
    },
    {
        .name = "report",
        .flags = PROTO_READONLY,
        .summary = "a window's report: live while open, else as stored; --cpus recomputes it",
        .usage = "NAME [--cpus NAME=LIST ...] [--min-rate PPS] [--tcpext FIELD ...]",
        .args = {ARG_WINDOW_NAME("the window (or stored result)"), ARG_REPORT_CPUS,
                 ARG_REPORT_MIN_RATE, ARG_REPORT_TCPEXT},
    },
    {
        .name = "results",
        .flags = PROTO_READONLY,
        .summary = "stored results, newest first: name, origin, start, duration, complete",
        .usage = "[GLOB] [--limit N|--all] [--origin hand|test] [--suite S] [--since T] "
                 "[--until T] [--figures GLOB,...]",
        .args = {{.name = "glob",
                  .type = PROTO_ARG_STRING,
                  .positional = true,
                  .max_len = 256,
                  .help = "result names to match, fnmatch(3) style, '*' also matches '/'"},
                 {.name = "limit",
                  .type = PROTO_ARG_INT,
                  .min = 1,
                  .max = 1000000,
                  .help = "the newest N (default 50)"},
                 {.name = "all", .type = PROTO_ARG_BOOL, .help = "every match, no page"},
                 {.name = "origin",
                  .type = PROTO_ARG_STRING,
                  .max_len = 8,
                  .help = "hand (mark-start) or test"},
                 {.name = "suite",
                  .type = PROTO_ARG_STRING,
                  .max_len = 200,
                  .help = "results of this suite"},
                 {.name = "since",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .help = "started at or after: epoch seconds, or <= 0: seconds back from now"},
                 {.name = "until",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .help = "started before: epoch seconds, or <= 0: seconds back from now"},
                 {.name = "figures",
                  .type = PROTO_ARG_STRING,
                  .max_len = 1024,
                  .help = "flattened figures to show, comma-separated globs "
                          "('test.*,cpu.all.busy'): one column each"}},
    },
    {
        .name = "results-trend",
        .flags = PROTO_READONLY,
        .summary = "a regression watch: a figure over the stored results, oldest first, "
                   "against a baseline's noise band; the first outside it and the settings "
                   "that changed there",
        .usage = "FIGURE [--suite S] [--origin hand|test] [--baseline NAME|GLOB|last-N] "
                 "[--k K] [--min-pct P]",
        .args = {{.name = "figure",
                  .type = PROTO_ARG_STRING,
                  .required = true,
                  .positional = true,
                  .max_len = 256,
                  .help = "a flattened figure, as results --figures names it "
                          "(test.throughput_mbps)"},
                 {.name = "suite",
                  .type = PROTO_ARG_STRING,
                  .max_len = 200,
                  .help = "results of this suite"},
                 {.name = "origin",
                  .type = PROTO_ARG_STRING,
                  .max_len = 8,
                  .help = "hand (mark-start) or test"},
                 {.name = "baseline",
                  .type = PROTO_ARG_STRING,
                  .max_len = 256,
                  .help = "the results whose values make the band: a name or glob, or "
                          "last-N: the N results before each one judged (default last-5)"},
                 {.name = "k",
                  .type = PROTO_ARG_NUMBER,
                  .min = 0.1,
                  .max = 100,
                  .help = "the band's half-width in the baseline's standard deviations "
                          "(default 3)"},
                 {.name = "min_pct",
                  .type = PROTO_ARG_NUMBER,
                  .min = 0,
                  .max = 1000,
                  .help = "the least half-width, % of the baseline's mean (default 1): a "
                          "noise-free baseline's band"}},
    },
    {
        .name = "result-show",
        .flags = PROTO_READONLY,
        .summary = "a stored result, as it is on disk; --manifest: only the host's "
                   "configuration at its edges",
        .usage = "NAME [--manifest]",
        .args = {ARG_WINDOW_NAME("the result"),
                 {.name = "manifest",
                  .type = PROTO_ARG_BOOL,
                  .help = "only its manifest: kernel, devices, CPUs, sysctls and benchmark at "
                          "both edges of its window, and what changed between them"}},
    },
    {
        .name = "result-delete",
        .flags = PROTO_MUTATING,
        .summary = "remove a stored result from the state directory",
        .usage = "NAME",
        .args = {ARG_WINDOW_NAME("the result")},
    },
    {
        .name = "result-export",
        .flags = PROTO_READONLY,
        .summary = "a stored result as JSON, or as CSV with one row per figure; a glob: "
                   "the results it matches, as a JSON array or lines, or CSV a row each",
        .usage = "NAME|GLOB [--json|--csv|--format json|jsonl|csv] [--series]",
        .args = {ARG_WINDOW_NAME("the result, or a glob of results ('suite1/*')"),
                 {.name = "format",
                  .type = PROTO_ARG_STRING,
                  .max_len = 8,
                  .help = "json (default: the result unchanged), jsonl (a glob's results one "
                          "a line) or csv (in \"csv\")"},
                 {.name = "series",
                  .type = PROTO_ARG_BOOL,
                  .help = "json, jsonl: add the series stored with each result (base64 of "
                          "its compressed block) as \"series_block\""}},
    },
    {
        .name = "profile-show",
        .flags = PROTO_READONLY,
        .summary = "a device's tuning per queue: IRQ affinity, XPS, RPS, RFS; ntuple, channels",
        .usage = "[DEV]",
        .args = {{.name = "dev",
                  .type = PROTO_ARG_STRING,
                  .positional = true,
                  .max_len = 15,
                  .help = "network device (default: the device of the default route)"}},
    },
    {
        .name = "profile-apply",
        .flags = PROTO_MUTATING,
        .summary = "apply a tuning profile, saving what it changes; any failure rolls back",
        .usage = "NAME|FILE [--dev DEV] [--dry-run] [--profile JSON]",
        .args = {{.name = "name",
                  .type = PROTO_ARG_STRING,
                  .positional = true,
                  .max_len = 4095,
                  .help = "a profile of the profile directory; the client reads a FILE (a "
                          "path with '/' or ending in .conf) and sends it as text"},
                 {.name = "text",
                  .type = PROTO_ARG_STRING,
                  .max_len = 60000,
                  .help = "the profile as INI text"},
                 {.name = "file",
                  .type = PROTO_ARG_STRING,
                  .max_len = 4095,
                  .help = "the file the text was read from, recorded as its source"},
                 {.name = "profile",
                  .type = PROTO_ARG_OBJECT,
                  .help = "the profile as a JSON object of the same sections and keys"},
                 {.name = "dev",
                  .type = PROTO_ARG_STRING,
                  .max_len = 15,
                  .help = "apply to this device instead of the profile's"},
                 {.name = "dry_run",
                  .type = PROTO_ARG_BOOL,
                  .help = "show the changes (current -> new) and touch nothing"}},
    },
    {
        .name = "profile-set",
        .flags = PROTO_MUTATING,
        .summary = "apply a profile built from the command line (irq=, xps=, rps=, rfs=, "
                   "ntuple=), saved and rolled back as profile-apply",
        .usage = "DEV SETTING... [--dry-run]   SETTING: irq=CPUS|spread|all|default "
                 "xps=CPUS|one-to-one|none rps=CPUS|all|local|none rfs=N|off ntuple=on|off",
        .args = {{.name = "dev",
                  .type = PROTO_ARG_STRING,
                  .required = true,
                  .positional = true,
                  .max_len = 15,
                  .help = "the device"},
                 {.name = "settings",
                  .type = PROTO_ARG_STRINGS,
                  .required = true,
                  .positional = true,
                  .max_len = 300,
                  .help = "KNOB=VALUE words: irq=0-7 (queue i's IRQs on the i-th CPU of "
                          "0-7; spread: of all), xps=0-7, rps=all, rfs=512, ntuple=on"},
                 {.name = "dry_run",
                  .type = PROTO_ARG_BOOL,
                  .help = "show the changes (current -> new) and touch nothing"}},
    },
    {
        .name = "profile-save",
        .flags = PROTO_MUTATING,
        .summary = "write a device's current tuning as a new profile NAME of the profile "
                   "directory",
        .usage = "DEV NAME [--dry-run]",
        .args = {{.name = "dev",
                  .type = PROTO_ARG_STRING,
                  .required = true,
                  .positional = true,
                  .max_len = 15,
                  .help = "the device"},
                 {.name = "name",
                  .type = PROTO_ARG_STRING,
                  .required = true,
                  .positional = true,
                  .max_len = 63,
                  .help = "the new profile's name (PROFILE_DIR/NAME.conf; never replaced)"},
                 {.name = "dry_run",
                  .type = PROTO_ARG_BOOL,
                  .help = "print the profile and write nothing"}},
    },
    {
        .name = "profile-revert",
        .flags = PROTO_MUTATING,
        .summary = "restore what applied profiles changed, as it was before the first",
        .usage = "",
    },
    {
        .name = "profile-status",
        .flags = PROTO_READONLY,
        .summary = "the applied profile: when, by whom, and whether live values drifted since",
        .usage = "",
    },
    {
        .name = "profiles",
        .flags = PROTO_READONLY,
        .summary = "the profiles of the profile directory, with their device and sections",
        .usage = "",
    },
    {
        .name = "compare",
        .flags = PROTO_READONLY,
        .summary = "stored results A against B figure by figure: change, % and better or worse; "
                   "globs average iterations, with CI and Welch's t-test; two suites compare "
                   "point by point",
        .usage = "A B [--figures GLOB] [--summary]",
        .args = {{.name = "a",
                  .type = PROTO_ARG_STRING,
                  .required = true,
                  .positional = true,
                  .max_len = 256,
                  .help = "result name or glob ('org/*': the mean of the iterations)"},
                 {.name = "b",
                  .type = PROTO_ARG_STRING,
                  .required = true,
                  .positional = true,
                  .max_len = 256,
                  .help = "result name or glob to compare with A"},
                 {.name = "figures",
                  .type = PROTO_ARG_STRINGS,
                  .max_len = 256,
                  .help = "only figures matching this glob ('test.*', 'devices.*_per_s'); "
                          "repeatable; two suites default to the benchmark's and a few"},
                 {.name = "summary",
                  .type = PROTO_ARG_BOOL,
                  .help = "only the kit's rows: packets on the queues of the first two CPU "
                          "sets, CPU, IPIs/s, packets sent, received and dropped, "
                          "retransmits, softirqs, aRFS counters"}},
    },
    {
        .name = "test-start",
        .flags = PROTO_MUTATING,
        .summary = "run a benchmark (netperf, iperf3, a packet generator, any command) with its "
                   "window: warm-up, measured span, cool-down; its figures are stored with the "
                   "report",
        .usage = "[--driver netperf|iperf3|pktgen|exec] [--name NAME] [--host H] [--type TYPE] "
                 "[--procs N] [--duration S] [--size B] [--rcvbuf B] [--warmup S] [--cooldown S] "
                 "[--local-cpus LIST] [--remote-cpus LIST] [--profile P] [--netns NS] "
                 "[--port P] [--figure NAME=REGEX] [--dev DEV] [--dst-min IP] [--dst-max IP] "
                 "[--dst-mac MAC] [--src IP] [--flows N] [--flowlen N] [--clone-skb N] "
                 "[--delay NS | --rate PPS] [--count N] [--threads N] [--trend SERIES] "
                 "[--trend-threshold F] "
                 "[--trend-recover F] [--trend-sustain SEC] [--trend-plateau SEC] "
                 "[--trend-step SEC] [--cpu-util] [--replace] [--bpf] [--peer PEER ...] "
                 "[--generator-on PEER] [--wait] "
                 "[-- COMMAND... | -- NETPERF_TEST_OPTIONS...]",
        .args = {{.name = "peer",
                  .type = PROTO_ARG_STRINGS,
                  .max_len = 32,
                  .help = "open and close the window on this configured peer too, at the "
                          "warm-up and cool-down edges (repeatable)"},
                 {.name = "generator_on",
                  .type = PROTO_ARG_STRING,
                  .max_len = 32,
                  .help = "pktgen: run the generator on this configured peer, as its daemon's "
                          "own test TEST.generator (the peer is added to --peer)"},
                 {.name = "driver",
                  .type = PROTO_ARG_STRING,
                  .max_len = 32,
                  .help = "netperf (default), iperf3, pktgen (packets: the kernel's pktgen, "
                          "else trafgen), or exec (the command after --)"},
                 {.name = "name",
                  .type = PROTO_ARG_STRING,
                  .max_len = 200,
                  .help = "the test's window and result (default DRIVER-DATE)"},
                 {.name = "host",
                  .type = PROTO_ARG_STRING,
                  .max_len = 255,
                  .help = "where netserver / iperf3 -s listens"},
                 {.name = "type",
                  .type = PROTO_ARG_STRING,
                  .max_len = 23,
                  .help = "TCP_STREAM (default), TCP_MAERTS, TCP_RR, TCP_CRR, UDP_STREAM, UDP_RR"},
                 {.name = "procs",
                  .type = PROTO_ARG_INT,
                  .min = 1,
                  .max = 1024,
                  .help = "netperf processes, iperf3 streams, copies of a command (default 1)"},
                 {.name = "duration",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = 0.1,
                  .max = 86400,
                  .help = "seconds the benchmark runs (default 10; exec: until it exits)"},
                 {.name = "size",
                  .type = PROTO_ARG_INT,
                  .min = 1,
                  .max = 1 << 30,
                  .help = "bytes per send (streams, default 16384) or per request and "
                          "response (RR, default 1); pktgen: bytes per frame with the FCS "
                          "(default 64)"},
                 {.name = "rcvbuf",
                  .type = PROTO_ARG_INT,
                  .min = 1,
                  .max = 1 << 30,
                  .help = "netperf: the receiving socket's buffer in bytes (the remote end's, "
                          "-S ,B; TCP_MAERTS: the local end's, -s ,B)"},
                 {.name = "warmup",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = 0,
                  .max = 86400,
                  .help = "seconds before the window opens (default 2; 5 over 60 s)"},
                 {.name = "cooldown",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = 0,
                  .max = 86400,
                  .help = "seconds before the end when the window closes (default 2)"},
                 {.name = "local_cpus",
                  .type = PROTO_ARG_CPULIST,
                  .help = "pin process i to the i-th of these CPUs, round-robin (-T l,)"},
                 {.name = "remote_cpus",
                  .type = PROTO_ARG_CPULIST,
                  .help = "pin the remote end of process i likewise (-T ,r)"},
                 {.name = "profile",
                  .type = PROTO_ARG_STRING,
                  .max_len = 511,
                  .help = "apply this profile (a name, or a file by absolute path) before "
                          "the test and revert it after"},
                 {.name = "netns",
                  .type = PROTO_ARG_STRING,
                  .max_len = 63,
                  .help = "run the processes in this network namespace (ip netns)"},
                 {.name = "port",
                  .type = PROTO_ARG_STRING,
                  .max_len = 7,
                  .help = "the control port of netserver / iperf3 -s"},
                 {.name = "figure",
                  .type = PROTO_ARG_STRINGS,
                  .max_len = 600,
                  .help = "exec: lift NAME from the output with REGEX (last match; its first "
                          "group); repeatable"},
                 {.name = "argv",
                  .type = PROTO_ARG_STRINGS,
                  .max_len = 4096,
                  .help = "exec: the command and its arguments (the words after --); "
                          "netperf: its test options after its -- (-s -S -m -M -r "
                          "SIZE[,SIZE], -P PORT[,PORT], -D, -4, -6)"},
                 {.name = "cpu_util",
                  .type = PROTO_ARG_BOOL,
                  .help = "netperf: its own CPU use of each end (-c -C) in the figures, "
                          "local_cpu_pct and remote_cpu_pct"},
                 {.name = "replace",
                  .type = PROTO_ARG_BOOL,
                  .help = "a kept window or stored result of the name is deleted when the "
                          "test's window opens (after the warm-up, or when the test ends "
                          "before it); a refused start keeps them"},
                 {.name = "bpf",
                  .type = PROTO_ARG_BOOL,
                  .help = "the eBPF programs on for the test's window (attached before it "
                          "opens, detached once its end edge is taken, with [source.bpf] "
                          "attach = on-demand)"},
                 {.name = "trend",
                  .type = PROTO_ARG_STRING,
                  .max_len = 256,
                  .help = "the series whose rate the report analyses for decay (default: "
                          "the link that sent most packets)"},
                 {.name = "trend_threshold",
                  .type = PROTO_ARG_NUMBER,
                  .min = 0.01,
                  .max = 1,
                  .help = "the report's trend: trend's --threshold (default 0.7); trend "
                          "--window takes it from the result"},
                 {.name = "trend_recover",
                  .type = PROTO_ARG_NUMBER,
                  .min = 0.01,
                  .max = 10,
                  .help = "the report's trend: trend's --recover (default 0.9)"},
                 {.name = "trend_sustain",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = 0.01,
                  .max = 86400,
                  .help = "the report's trend: trend's --sustain in seconds (default 5)"},
                 {.name = "trend_plateau",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = 0.01,
                  .max = 86400,
                  .help = "the report's trend: trend's --plateau in seconds (default 10)"},
                 {.name = "trend_step",
                  .type = PROTO_ARG_NUMBER,
                  .duration = PROTO_DUR_S,
                  .min = 0.01,
                  .max = 86400,
                  .help = "the report's trend: trend's --step in seconds (default: the "
                          "series' interval)"},
                 {.name = "dev",
                  .type = PROTO_ARG_STRING,
                  .max_len = 15,
                  .help = "pktgen: the generator's egress device (required)"},
                 {.name = "dst_min",
                  .type = PROTO_ARG_STRING,
                  .max_len = 15,
                  .help = "pktgen: the lowest destination IPv4 address (default 10.0.0.0)"},
                 {.name = "dst_max",
                  .type = PROTO_ARG_STRING,
                  .max_len = 15,
                  .help = "pktgen: the highest destination IPv4 address (default "
                          "10.18.255.255)"},
                 {.name = "dst_mac",
                  .type = PROTO_ARG_STRING,
                  .max_len = 17,
                  .help = "pktgen: the next hop's MAC (default: the neighbour entry of the "
                          "route to dst_min)"},
                 {.name = "src",
                  .type = PROTO_ARG_STRING,
                  .max_len = 15,
                  .help = "pktgen: the source IPv4 address (default: the device's)"},
                 {.name = "flows",
                  .type = PROTO_ARG_INT,
                  .min = 1,
                  .max = 65535,
                  .help = "pktgen: concurrent flows, each a destination (default 256)"},
                 {.name = "flowlen",
                  .type = PROTO_ARG_INT,
                  .min = 1,
                  .max = 65535,
                  .help = "pktgen: packets per flow before it moves on (default 8)"},
                 {.name = "clone_skb",
                  .type = PROTO_ARG_INT,
                  .min = 0,
                  .max = 1000000,
                  .help = "pktgen: copies of each packet the kernel's pktgen sends (default 0)"},
                 {.name = "delay",
                  .type = PROTO_ARG_INT,
                  .duration = PROTO_DUR_NS,
                  .min = 1,
                  .max = 1e10,
                  .help = "pktgen: nanoseconds between packets, per thread"},
                 {.name = "count",
                  .type = PROTO_ARG_INT,
                  .min = 1,
                  .max = 1e15,
                  .help = "pktgen: packets to send in all, instead of --duration"},
                 {.name = "threads",
                  .type = PROTO_ARG_INT,
                  .min = 1,
                  .max = 256,
                  .help = "pktgen: sending threads, one per CPU from CPU 0 (default 1)"},
                 {.name = "rate",
                  .type = PROTO_ARG_NUMBER,
                  .min = 1,
                  .max = 1e9,
                  .help = "pktgen: packets/s in all (trafgen: paced by a tbf qdisc on --dev "
                          "for the test)"}},
    },
    {
        .name = "test-status",
        .flags = PROTO_READONLY,
        .summary = "running tests (state, elapsed, live throughput) or one test by name",
        .usage = "[NAME [--follow]]",
        .args = {{.name = "name",
                  .type = PROTO_ARG_STRING,
                  .positional = true,
                  .max_len = 200,
                  .help = "a running or recently finished test"},
                 {.name = "follow",
                  .type = PROTO_ARG_BOOL,
                  .help = "with NAME: its progress until it ends, as a stream of events"}},
    },
    {
        .name = "test-stop",
        .flags = PROTO_MUTATING,
        .summary = "stop a running test: its processes are terminated, its partial window kept",
        .usage = "NAME",
        .args = {ARG_WINDOW_NAME("the running test")},
    },
    {
        .name = "tests",
        .flags = PROTO_READONLY,
        .summary = "tests of this daemon run, running first; --all adds every stored test result",
        .usage = "[--all]",
        .args = {{.name = "all",
                  .type = PROTO_ARG_BOOL,
                  .help = "also list stored results of tests from earlier runs"}},
    },
    {
        .name = "suite-run",
        .flags = PROTO_MUTATING,
        .summary = "run a suite: a matrix of connections x profile values x iterations, in the "
                   "daemon; results SUITE/conns_64_rfs_512_iter_1",
        .usage = "FILE|NAME [--name NAME] [--peer PEER ...] [--until-ci PCT [--max-iterations N] "
                 "[--figure GLOB]] [--dry-run] [--wait]",
        .args = {{.name = "file",
                  .type = PROTO_ARG_STRING,
                  .positional = true,
                  .max_len = 4095,
                  .help = "the suite file (the client reads it and sends it as text), or "
                          "the NAME of SUITE_DIR/NAME.conf (suite_dir) without text"},
                 {.name = "text",
                  .type = PROTO_ARG_STRING,
                  .max_len = 60000,
                  .help = "the suite as INI text"},
                 {.name = "name",
                  .type = PROTO_ARG_STRING,
                  .max_len = 100,
                  .help = "the suite's name instead of the file's [suite] name"},
                 {.name = "dry_run",
                  .type = PROTO_ARG_BOOL,
                  .help = "check every run and list them; start nothing"},
                 {.name = "peer",
                  .type = PROTO_ARG_STRINGS,
                  .max_len = 32,
                  .help = "every run's window on this configured peer too (repeatable; "
                          "with the suite file's peer = NAME)"},
                 {.name = "until_ci",
                  .type = PROTO_ARG_NUMBER,
                  .min = 0.001,
                  .max = 100,
                  .help = "repeat the points (A B, B A ...) until the CI of the figure's "
                          "difference from the first point is within PCT % of its mean "
                          "(95 % over all the looks)"},
                 {.name = "max_iterations",
                  .type = PROTO_ARG_INT,
                  .min = 2,
                  .max = 1000,
                  .help = "with --until-ci: stop after this many rounds, not sure (default "
                          "20)"},
                 {.name = "figure",
                  .type = PROTO_ARG_STRING,
                  .max_len = 127,
                  .help = "with --until-ci: the test figure judged, a glob (default "
                          "throughput_mbps, else transactions_per_s, else the first)"}},
    },
    {
        .name = "suite-status",
        .flags = PROTO_READONLY,
        .summary = "a suite's runs and its summary table; without NAME every known suite",
        .usage = "[NAME [--follow]]",
        .args = {{.name = "name",
                  .type = PROTO_ARG_STRING,
                  .positional = true,
                  .max_len = 100,
                  .help = "the suite"},
                 {.name = "follow",
                  .type = PROTO_ARG_BOOL,
                  .help = "with NAME: its progress until it ends, as a stream of events"}},
    },
    {
        .name = "suite-stop",
        .flags = PROTO_MUTATING,
        .summary = "stop the running suite: its current test is stopped, the suite marked stopped",
        .usage = "[NAME]",
        .args = {{.name = "name",
                  .type = PROTO_ARG_STRING,
                  .positional = true,
                  .max_len = 100,
                  .help = "the running suite (default: the one running)"}},
    },
};

const size_t proto_ncommands = sizeof(proto_commands) / sizeof(proto_commands[0]);

/* Look a command up by name; NULL when unknown. */
const struct proto_command *
proto_command_find(const char *name)
{
	size_t i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < proto_ncommands; i++) {
		if (strcmp(proto_commands[i].name, name) == 0)
			return &proto_commands[i];
	}
	return NULL;
}

/* The wire name of a command's access: mutating wins over stream, stream over readonly. */
const char *
proto_command_access(const struct proto_command *cmd)
{
	if (cmd->flags & PROTO_MUTATING)
		return "mutating";
	if (cmd->flags & PROTO_STREAM)
		return "stream";
	return "readonly";
}

/* The wire name of an argument type. */
static const char *
arg_type_name(enum proto_arg_type type)
{
	switch (type) {
	case PROTO_ARG_STRING:
		return "string";
	case PROTO_ARG_INT:
		return "int";
	case PROTO_ARG_NUMBER:
		return "number";
	case PROTO_ARG_BOOL:
		return "bool";
	case PROTO_ARG_STRINGS:
		return "strings";
	case PROTO_ARG_CPULIST:
		return "cpulist";
	case PROTO_ARG_OBJECT:
		return "object";
	}
	return "unknown";
}

/* One argument's schema as a JSON object; min and max only when bounded. */
static json_object *
arg_json(const struct proto_arg *arg)
{
	json_object *obj = json_object_new_object();

	json_add_string(obj, "name", arg->name);
	json_add_string(obj, "type", arg_type_name(arg->type));
	json_add_bool(obj, "required", arg->required);
	json_add_string(obj, "help", arg->help != NULL ? arg->help : "");
	if (arg->duration != PROTO_DUR_NONE)
		json_add_string(obj, "duration",
		                arg->duration == PROTO_DUR_S    ? "s"
		                : arg->duration == PROTO_DUR_MS ? "ms"
		                                                : "ns");
	if (arg->min != 0 || arg->max != 0) {
		if (arg->type == PROTO_ARG_INT) {
			json_add_int(obj, "min", (int64_t)arg->min);
			json_add_int(obj, "max", (int64_t)arg->max);
		} else {
			json_add_double(obj, "min", arg->min);
			json_add_double(obj, "max", arg->max);
		}
	}
	return obj;
}

/* One command as a JSON object: name, access, summary, usage, args. */
static json_object *
command_json(const struct proto_command *cmd)
{
	json_object *obj = json_object_new_object();
	json_object *args = json_object_new_array();
	const struct proto_arg *arg;

	json_add_string(obj, "name", cmd->name);
	json_add_string(obj, "access", proto_command_access(cmd));
	json_add_string(obj, "summary", cmd->summary);
	json_add_string(obj, "usage", cmd->usage != NULL ? cmd->usage : "");
	for (arg = cmd->args; arg < cmd->args + PROTO_MAX_ARGS && arg->name != NULL; arg++)
		json_object_array_add(args, arg_json(arg));
	json_object_object_add(obj, "args", args);
	return obj;
}

uint64_t
proto_duration_ns(enum proto_duration d)
{
	return d == PROTO_DUR_S    ? 1000000000
	       : d == PROTO_DUR_MS ? 1000000
	       : d == PROTO_DUR_NS ? 1
	                           : 0;
}

/* The whole table as a JSON array, in table order; the caller puts the reference. */
json_object *
proto_commands_json(void)
{
	json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < proto_ncommands; i++)
		json_object_array_add(arr, command_json(&proto_commands[i]));
	return arr;
}
