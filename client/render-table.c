/* render-table.c: aligned tables and number formats for people. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render-table.h"
#include "xmalloc.h"

void
table_init(struct table *t, const char *const *headers)
{
	memset(t, 0, sizeof(*t));
	while (headers[t->ncols] != NULL && t->ncols < TABLE_MAX_COLS) {
		const char *h = headers[t->ncols];
		t->right[t->ncols] = h[0] == '>';
		t->headers[t->ncols] = h[0] == '>' ? h + 1 : h;
		t->ncols++;
	}
}

void
table_row(struct table *t, const char *const *cells)
{
	if (t->nrows == t->caprows) {
		t->caprows = t->caprows ? t->caprows * 2 : 16;
		t->cells = xreallocarray(t->cells, t->caprows * t->ncols, sizeof(char *));
	}
	for (size_t i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] = xstrdup(cells[i] ? cells[i] : "");
	t->nrows++;
}

/* Display width of a UTF-8 string (counts code points, enough for our labels). */
static size_t
width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* Print one cell padded to w, right or left aligned; no trailing blanks on the last. */
static void
print_cell(FILE *fp, const char *s, size_t w, bool right, bool last)
{
	size_t sw = width(s);

	if (right)
		fprintf(fp, "%*s%s", (int)(w - sw), "", s);
	else if (last)
		fputs(s, fp);
	else
		fprintf(fp, "%s%*s", s, (int)(w - sw), "");
}

void
table_print(const struct table *t, FILE *fp)
{
	size_t w[TABLE_MAX_COLS];

	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = width(t->headers[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t cw = width(t->cells[r * t->ncols + c]);
			if (cw > w[c])
				w[c] = cw;
		}
	}
	for (size_t c = 0; c < t->ncols; c++) {
		print_cell(fp, t->headers[c], w[c], t->right[c], c + 1 == t->ncols);
		fputs(c + 1 == t->ncols ? "\n" : "  ", fp);
	}
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			print_cell(fp, t->cells[r * t->ncols + c], w[c], t->right[c],
			           c + 1 == t->ncols);
			fputs(c + 1 == t->ncols ? "\n" : "  ", fp);
		}
}

/* One CSV field, quoted when it holds a comma, quote or newline. */
static void
csv_field(FILE *fp, const char *s)
{
	if (strpbrk(s, ",\"\n") == NULL) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

void
table_print_csv(const struct table *t, FILE *fp)
{
	for (size_t c = 0; c < t->ncols; c++) {
		csv_field(fp, t->headers[c]);
		fputc(c + 1 == t->ncols ? '\n' : ',', fp);
	}
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];
			char plain[64];
			size_t o = 0;
			/* Numbers go out without thousands separators. */
			if (t->right[c] && strlen(cell) < sizeof(plain)) {
				for (const char *p = cell; *p; p++)
					if (*p != ',')
						plain[o++] = *p;
				plain[o] = '\0';
				cell = plain;
			}
			csv_field(fp, cell);
			fputc(c + 1 == t->ncols ? '\n' : ',', fp);
		}
}

void
table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

/* Insert thousands separators into the integer digits of s (in place, size permitting). */
static void
group_digits(char *s, size_t size)
{
	char tmp[64];
	size_t start = (s[0] == '-') ? 1 : 0;
	size_t end = start, o = 0;

	while (s[end] >= '0' && s[end] <= '9')
		end++;
	if (end - start <= 3 || strlen(s) + (end - start) / 3 + 1 > sizeof(tmp))
		return;
	memcpy(tmp, s, start);
	o = start;
	for (size_t i = start; i < end; i++) {
		if (i > start && (end - i) % 3 == 0)
			tmp[o++] = ',';
		tmp[o++] = s[i];
	}
	strcpy(tmp + o, s + end);
	if (strlen(tmp) < size)
		strcpy(s, tmp);
}

void
fmt_count(uint64_t v, char *buf, size_t size)
{
	snprintf(buf, size, "%llu", (unsigned long long)v);
	group_digits(buf, size);
}

void
fmt_decimal(double v, int decimals, char *buf, size_t size)
{
	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	snprintf(buf, size, "%.*f", decimals, v);
	group_digits(buf, size);
}

void
fmt_bytes(double v, char *buf, size_t size)
{
	static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	size_t u = 0;

	while (fabs(v) >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%.0f B", v);
	else
		snprintf(buf, size, "%.1f %s", v, units[u]);
}

void
fmt_seconds(double s, char *buf, size_t size)
{
	unsigned long long t = (unsigned long long)s;

	if (s < 60)
		snprintf(buf, size, "%.1fs", s);
	else if (s < 3600)
		snprintf(buf, size, "%llum%02llus", t / 60, t % 60);
	else if (s < 86400)
		snprintf(buf, size, "%lluh%02llum%02llus", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, size, "%llud%02lluh%02llum", t / 86400, t / 3600 % 24, t / 60 % 60);
}
