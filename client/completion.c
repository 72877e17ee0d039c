/* completion.c: `netmetricsctl completion bash`, a bash completion script written from the
 * command table (proto_commands[]): the command words ("mark start"), each command's
 * options and, for values, what they name: devices (/sys/class/net), network namespaces
 * (/run/netns), and the results, windows, profiles and tests the daemon lists, asked with
 * `netmetricsctl --json results|windows|profiles|tests` when it answers. Choices written
 * in a usage line ("--driver netperf|iperf3|pktgen|exec") are offered as they are. */
#include <stdio.h>
#include <string.h>

#include "completion.h"
#include "proto.h"

/* Does s start with prefix? */
static int
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The choices a usage line gives after "--OPT " (or first, for a first positional when
 * opt is NULL) as "a|b|c", into buf; "" when it gives none. Only lowercase words count:
 * NAME|FILE is a placeholder, not a choice. */
static void
usage_choices(const struct proto_command *c, const char *opt, char *buf, size_t size)
{
	const char *p = c->usage ? c->usage : "";
	char key[PROTO_MAX_NAME + 4];
	size_t n;

	buf[0] = '\0';
	if (opt != NULL) {
		snprintf(key, sizeof(key), "--%s ", opt);
		for (char *k = key + 2; *k != ' '; k++)
			if (*k == '_')
				*k = '-';
		if ((p = strstr(p, key)) == NULL)
			return;
		p += strlen(key);
	}
	n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789|-");
	if (n == 0 || n >= size || memchr(p, '|', n) == NULL ||
	    (p[n] != '\0' && p[n] != ' ' && p[n] != ']'))
		return;
	memcpy(buf, p, n);
	buf[n] = '\0';
}

/* What the value of argument a of c names, for the script: bool (no value), dev, netns,
 * result, window, profile, test, file, w:a|b|c (choices) or "" (anything). */
static const char *
arg_kind(const struct proto_command *c, const struct proto_arg *a, int first, char *buf,
         size_t size)
{
	const char *n = a->name;

	if (a->type == PROTO_ARG_BOOL)
		return "bool";
	if (strcmp(n, "dev") == 0)
		return "dev";
	if (strcmp(n, "netns") == 0)
		return "netns";
	if (strcmp(n, "file") == 0)
		return "file";
	if (a->type == PROTO_ARG_STRING && strcmp(n, "profile") == 0)
		return "profile";
	if (strcmp(n, "a") == 0 || strcmp(n, "b") == 0 || strcmp(n, "window") == 0)
		return "result";
	if (strcmp(n, "name") == 0 && a->positional) {
		if (starts(c->name, "profile-"))
			return "profile";
		if (starts(c->name, "result-") || strcmp(c->name, "report") == 0)
			return "result";
		if (strcmp(c->name, "mark-stop") == 0 || strcmp(c->name, "window-delete") == 0)
			return "window";
		if (strcmp(c->name, "test-stop") == 0 || strcmp(c->name, "test-status") == 0)
			return "test";
		return "";
	}
	if (a->positional && !first)
		return "";
	usage_choices(c, a->positional ? NULL : a->name, buf + 2, size - 2);
	if (buf[2] == '\0')
		return "";
	memcpy(buf, "w:", 2);
	return buf;
}

/* One command's case in _netmetricsctl_spec: its options and its positional kinds. */
static void
print_spec(const struct proto_command *c, FILE *fp)
{
	char kind[128], opt[PROTO_MAX_NAME];
	int first = 1;

	fprintf(fp, "\t%s)\n\t\t_nm_opts=(", c->name);
	for (const struct proto_arg *a = c->args; a->name != NULL; a++) {
		snprintf(opt, sizeof(opt), "%s", a->name);
		for (char *p = opt; *p; p++)
			if (*p == '_')
				*p = '-';
		fprintf(fp, "%s'--%s:%s'", a == c->args ? "" : " ", opt,
		        arg_kind(c, a, a == c->args, kind, sizeof(kind)));
	}
	fprintf(fp, ")\n\t\t_nm_pos=(");
	for (const struct proto_arg *a = c->args; a->name != NULL; a++) {
		if (!a->positional)
			continue;
		fprintf(fp, "%s'%s'", first ? "" : " ", arg_kind(c, a, first, kind, sizeof(kind)));
		first = 0;
	}
	fprintf(fp, ")\n\t\t;;\n");
}

/* The part of the script that does not depend on the table. */
static const char script_body[] =
    "# The names of what the daemon lists (results, windows, profiles, tests), when it\n"
    "# answers within 2 s; nothing otherwise.\n"
    "_netmetricsctl_names() {\n"
    "\tlocal -a extra=()\n"
    "\t[[ $1 == results ]] && extra=(--all)\n"
    "\tif command -v timeout >/dev/null 2>&1; then\n"
    "\t\ttimeout 2 \"${_nm_ctl[@]}\" --json \"$1\" \"${extra[@]}\" 2>/dev/null\n"
    "\telse\n"
    "\t\t\"${_nm_ctl[@]}\" --json \"$1\" \"${extra[@]}\" 2>/dev/null\n"
    "\tfi | grep -o '\"name\": *\"[^\"\\\\]*\"' | sed 's/^\"name\": *\"//; s/\"$//'\n"
    "}\n"
    "\n"
    "# COMPREPLY: the values of one kind that start with $2.\n"
    "_netmetricsctl_values() {\n"
    "\tlocal kind=$1 cur=$2 words=''\n"
    "\tcase $kind in\n"
    "\tdev) words=$(command ls \"${NETMETRICSCTL_NET_DIR:-/sys/class/net}\" 2>/dev/null) ;;\n"
    "\tnetns) words=$(command ls /run/netns 2>/dev/null) ;;\n"
    "\tresult) words=$(_netmetricsctl_names results) ;;\n"
    "\twindow) words=$(_netmetricsctl_names windows) ;;\n"
    "\ttest) words=$(_netmetricsctl_names tests) ;;\n"
    "\tprofile)\n"
    "\t\t# A profile is also taken by path.\n"
    "\t\tif [[ $cur == */* || $cur == .* ]]; then\n"
    "\t\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
    "\t\t\treturn\n"
    "\t\tfi\n"
    "\t\twords=$(_netmetricsctl_names profiles) ;;\n"
    "\tfile)\n"
    "\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
    "\t\treturn ;;\n"
    "\tw:*) words=${kind#w:}; words=${words//|/ } ;;\n"
    "\t*) return ;;\n"
    "\tesac\n"
    "\tmapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$cur\")\n"
    "}\n"
    "\n"
    "# The kind of option $1 of the command in _nm_opts; 1 when it has none.\n"
    "_netmetricsctl_kind() {\n"
    "\tlocal e\n"
    "\tfor e in \"${_nm_opts[@]}\"; do\n"
    "\t\tif [[ ${e%%:*} == \"$1\" ]]; then\n"
    "\t\t\t_nm_kind=${e#*:}\n"
    "\t\t\treturn 0\n"
    "\t\tfi\n"
    "\tdone\n"
    "\treturn 1\n"
    "}\n"
    "\n"
    "_netmetricsctl() {\n"
    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev='' w name='' try c next words='' i=1 npos=0\n"
    "\tlocal _nm_kind='' e\n"
    "\tlocal -a _nm_ctl=(\"${COMP_WORDS[0]}\") _nm_opts=() _nm_pos=()\n"
    "\tCOMPREPLY=()\n"
    "\t((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
    "\t# Global options before the command; the socket is kept for asking the daemon.\n"
    "\twhile ((i < COMP_CWORD)); do\n"
    "\t\tw=${COMP_WORDS[i]}\n"
    "\t\tcase $w in\n"
    "\t\t-s | --socket) _nm_ctl+=(--socket \"${COMP_WORDS[i + 1]}\"); ((i += 2)) ;;\n"
    "\t\t-*) ((i += 1)) ;;\n"
    "\t\t*) break ;;\n"
    "\t\tesac\n"
    "\tdone\n"
    "\tif [[ $prev == -s || $prev == --socket ]]; then\n"
    "\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\tif ((i == COMP_CWORD)) && [[ $cur == -* ]]; then\n"
    "\t\tmapfile -t COMPREPLY < <(compgen -W '--socket --json --csv --help --version' -- "
    "\"$cur\")\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\t# The command: the longest run of words naming one (\"mark start\").\n"
    "\twhile ((i < COMP_CWORD)); do\n"
    "\t\ttry=${name:+$name-}${COMP_WORDS[i]}\n"
    "\t\t[[ \" $_netmetricsctl_commands \" == *\" $try\"[\\ -]* ]] || break\n"
    "\t\tname=$try\n"
    "\t\t((i += 1))\n"
    "\tdone\n"
    "\tif ((i == COMP_CWORD)) && [[ $cur != -* ]]; then\n"
    "\t\t# The next word of a command name.\n"
    "\t\tfor c in $_netmetricsctl_commands; do\n"
    "\t\t\tif [[ -z $name ]]; then\n"
    "\t\t\t\tnext=${c%%-*}\n"
    "\t\t\telif [[ $c == \"$name\"-* ]]; then\n"
    "\t\t\t\tnext=${c#\"$name\"-}\n"
    "\t\t\t\tnext=${next%%-*}\n"
    "\t\t\telse\n"
    "\t\t\t\tcontinue\n"
    "\t\t\tfi\n"
    "\t\t\t[[ \"$words \" == *\" $next \"* ]] || words+=\" $next\"\n"
    "\t\tdone\n"
    "\t\tif [[ -n $words ]]; then\n"
    "\t\t\tmapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$cur\")\n"
    "\t\t\t[[ -z $name || \" $_netmetricsctl_commands \" != *\" $name \"* ]] && return 0\n"
    "\t\tfi\n"
    "\tfi\n"
    "\t_netmetricsctl_spec \"$name\" || return 0\n"
    "\t# Walk the words after the command: options with their values, positionals.\n"
    "\twhile ((i < COMP_CWORD)); do\n"
    "\t\tw=${COMP_WORDS[i]}\n"
    "\t\tif [[ $w == -- ]]; then\n"
    "\t\t\treturn 0\n"
    "\t\telif [[ $w == = ]]; then\n"
    "\t\t\t((i += 2))\n"
    "\t\t\tcontinue\n"
    "\t\telif [[ $w == -* ]]; then\n"
    "\t\t\tif _netmetricsctl_kind \"$w\" && [[ $_nm_kind != bool ]]; then\n"
    "\t\t\t\t((i += 2))\n"
    "\t\t\telse\n"
    "\t\t\t\t((i += 1))\n"
    "\t\t\tfi\n"
    "\t\t\tcontinue\n"
    "\t\tfi\n"
    "\t\t((npos += 1, i += 1))\n"
    "\tdone\n"
    "\tif ((i > COMP_CWORD)); then\n"
    "\t\t# The word is the value of the option before it.\n"
    "\t\t_netmetricsctl_kind \"$prev\"\n"
    "\t\t_netmetricsctl_values \"$_nm_kind\" \"$cur\"\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\tif [[ $cur == -* ]]; then\n"
    "\t\tfor e in \"${_nm_opts[@]}\"; do\n"
    "\t\t\twords+=\" ${e%%:*}\"\n"
    "\t\tdone\n"
    "\t\tcase $name in\n"
    "\t\ttest-start | suite-run) words+=' --wait' ;;\n"
    "\t\tseries) words+=' --plot --csv' ;;\n"
    "\t\tesac\n"
    "\t\tmapfile -t COMPREPLY < <(compgen -W \"$words --json --help\" -- \"$cur\")\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\t((npos < ${#_nm_pos[@]})) && _netmetricsctl_values \"${_nm_pos[npos]}\" \"$cur\"\n"
    "\treturn 0\n"
    "}\n"
    "complete -F _netmetricsctl netmetricsctl\n";

void
completion_bash(FILE *fp)
{
	fprintf(fp, "# bash completion for netmetricsctl, written by `netmetricsctl completion "
	            "bash`\n# from its command table. Source it, or install it as\n"
	            "# /usr/share/bash-completion/completions/netmetricsctl.\n\n");
	fprintf(fp, "_netmetricsctl_commands='");
	for (size_t i = 0; i < proto_ncommands; i++)
		fprintf(fp, "%s%s", i ? " " : "", proto_commands[i].name);
	fprintf(fp, "'\n\n# _nm_opts: '--OPTION:KIND' for a command; _nm_pos: the kinds of its "
	            "positional\n# words. 1 for no such command.\n");
	fprintf(fp, "_netmetricsctl_spec() {\n\tcase $1 in\n");
	for (size_t i = 0; i < proto_ncommands; i++)
		print_spec(&proto_commands[i], fp);
	fprintf(fp, "\t*) return 1 ;;\n\tesac\n}\n\n%s", script_body);
}

int
completion_main(int argc, char **argv, FILE *out, FILE *err)
{
	if (argc == 1 && strcmp(argv[0], "bash") == 0) {
		completion_bash(out);
		return 0;
	}
	fprintf(err, "usage: netmetricsctl completion bash\n");
	return 2;
}
