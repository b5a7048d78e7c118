/* CSV reporter: the schema's header row, then one row per result (RFC 4180 quoting). */
#include "peak_report.h"

#include <math.h>
#include <string.h>

static void put_text(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\n\r") == NULL) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void put_num(FILE *out, double v)
{
	char buf[48];
	fputs(peak_report_num(v, buf, sizeof(buf)), out);
}

static int csv_begin(struct peak_reporter *r, const struct peak_context *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < peak_result_ncolumns; i++)
		fprintf(r->out, "%s%s", i ? "," : "", peak_result_columns[i]);
	for (size_t i = 0; r->hosts && i < peak_result_nhost_columns; i++)
		fprintf(r->out, ",%s", peak_result_host_columns[i]);
	fputc('\n', r->out);
	return ferror(r->out) ? -1 : 0;
}

static int csv_record(struct peak_reporter *r, const struct peak_result *res)
{
	struct peak_cell cells[PEAK_RESULT_MAX_CELLS];
	size_t n = peak_result_ncolumns + (r->hosts ? peak_result_nhost_columns : 0);
	peak_result_cells(res, r->hosts, cells);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', r->out);
		if (cells[i].kind == PEAK_CELL_TEXT)
			put_text(r->out, cells[i].text);
		else if (cells[i].kind == PEAK_CELL_NUM)
			put_num(r->out, cells[i].num);
		else if (cells[i].present)
			fprintf(r->out, "%llu", cells[i].count);
	}
	fputc('\n', r->out);
	return ferror(r->out) ? -1 : 0;
}

static int csv_end(struct peak_reporter *r, const struct peak_context *ctx)
{
	(void)ctx;
	return ferror(r->out) ? -1 : 0;
}

const struct peak_reporter_ops peak_report_csv = {
	.name = "csv",
	.begin = csv_begin,
	.record = csv_record,
	.end = csv_end,
};
