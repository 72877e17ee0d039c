/* html.h: pictures of results, drawn by the client from the JSON replies the daemon sends
 * (the daemon writes no files for them): `report NAME --html FILE`, `compare A B --html
 * FILE` (one self-contained HTML file: inline SVG and CSS, no script, nothing fetched) and
 * `series ... --svg FILE` (one SVG chart). Every string from the daemon (device names, test
 * output, series names) is escaped for HTML and SVG; charts carry their values in data-*
 * attributes and text, so a test (or a person with the DOM) can check them. */
#ifndef NM_HTML_H
#define NM_HTML_H

#include <json-c/json.h>
#include <stdio.h>

struct ctl_opts;

/* The draw functions of the client's command entries (struct ctl_command): each asks the
 * daemon with the command's args and draws the reply into path. The exit code (enum
 * ctl_exit). */
/* report: the page of the window or stored result args.name. */
int html_report(const struct ctl_opts *opts, json_object *args, const char *path);
/* compare: the page of compare args.a args.b (names or globs); both runs' series overlaid
 * when a and b each name one result. */
int html_compare(const struct ctl_opts *opts, json_object *args, const char *path);
/* series: one chart of the reply ({"series": [{"name", "unit", "points"}]}) as an SVG
 * document. */
int html_series_svg(const struct ctl_opts *opts, json_object *args, const char *path);
/* s escaped for HTML text and attribute values (&, <, >, ", '; control characters and
 * invalid UTF-8 escaped as \xNN). */
void html_escape(FILE *fp, const char *s);

#endif
