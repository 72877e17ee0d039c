/* render-table.h: aligned text tables and human number formats. */
#ifndef NM_RENDER_TABLE_H
#define NM_RENDER_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TABLE_MAX_COLS 32

struct table {
	size_t ncols;
	const char *headers[TABLE_MAX_COLS];
	bool right[TABLE_MAX_COLS]; /* right-align (numbers) */
	char **cells;               /* nrows * ncols, owned */
	size_t nrows, caprows;
};

/* Start a table; headers is a NULL-terminated list; a header starting with '>' is a
 * right-aligned column (the '>' is not printed). */
void table_init(struct table *t, const char *const *headers);
/* Add a row of ncols cells (printf-style strings are formatted by the caller). */
void table_row(struct table *t, const char *const *cells);
void table_print(const struct table *t, FILE *fp);
/* The same rows as CSV (RFC 4180 quoting), with the header row. */
void table_print_csv(const struct table *t, FILE *fp);
void table_free(struct table *t);

/* 1234567 -> "1,234,567". */
void fmt_count(uint64_t v, char *buf, size_t size);
/* A rate or a value with one decimal and separators: 1234.56 -> "1,234.6". */
void fmt_decimal(double v, int decimals, char *buf, size_t size);
/* Bytes with binary units: "1.5 MiB". */
void fmt_bytes(double v, char *buf, size_t size);
/* Seconds as "1h02m03s" / "4.2s". */
void fmt_seconds(double s, char *buf, size_t size);

#endif
