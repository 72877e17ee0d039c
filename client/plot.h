/* plot.h: series results drawn in the terminal (braille line charts or sparklines) or
 * written as CSV for gnuplot or a spreadsheet. */
#ifndef NM_PLOT_H
#define NM_PLOT_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

enum plot_mode {
	PLOT_NONE = 0,
	PLOT_AUTO,    /* braille, or sparklines when the terminal is narrow */
	PLOT_BRAILLE, /* a line chart per series, 4 x 2 dots per character cell */
	PLOT_SPARK,   /* one line per series: ▁▂▃▄▅▆▇█ */
};

/* The mode --plot=MODE names: "" (auto), "braille", "spark"; -1 when unknown. */
int plot_mode_parse(const char *s);
/* Draw each series of a series result ({"series":[{"name","unit","points":[[t,v],...]}]})
 * in mode, fitted to the width of fp's terminal ($COLUMNS, else 80). */
void plot_series(json_object *result, enum plot_mode mode, FILE *fp);
/* A series result as CSV: a header "epoch_s,NAME,..." (time in seconds since the epoch),
 * then one row per step with each series' rate (an empty field where one has no point). */
void plot_csv(json_object *result, FILE *fp);
/* v with three significant digits and an SI prefix: 5012345 -> "5.01M", 0.5 -> "0.500". */
void plot_fmt_si(double v, char *buf, size_t size);

#endif
