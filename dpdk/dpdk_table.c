/* dpdkbench console tables in the layout DPDK users already read (pktgen/DTS reports):
 * throughput per direction, then latency percentiles and loss. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpdk_report.h"

#define MAX_COLS 10
#define CELL     32

struct table {
	size_t ncols;
	const char *head[MAX_COLS];
	size_t width[MAX_COLS];
	size_t nrows;
	char (*cells)[MAX_COLS][CELL];
};

static void rule(FILE *f, const struct table *t, char c)
{
	for (size_t i = 0; i < t->ncols; i++) {
		fputc('+', f);
		for (size_t k = 0; k < t->width[i] + 2; k++)
			fputc(c, f);
	}
	fputs("+\n", f);
}

static void line(FILE *f, const struct table *t, const char *const *cells)
{
	for (size_t i = 0; i < t->ncols; i++)
		fprintf(f, "| %-*s ", (int)t->width[i], cells[i]);
	fputs("|\n", f);
}

static void print_table(FILE *f, struct table *t)
{
	for (size_t i = 0; i < t->ncols; i++) {
		t->width[i] = strlen(t->head[i]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t w = strlen(t->cells[r][i]);
			if (w > t->width[i])
				t->width[i] = w;
		}
	}
	rule(f, t, '-');
	line(f, t, t->head);
	rule(f, t, '=');
	for (size_t r = 0; r < t->nrows; r++) {
		const char *cells[MAX_COLS];
		for (size_t i = 0; i < t->ncols; i++)
			cells[i] = t->cells[r][i];
		line(f, t, cells);
		rule(f, t, '-');
	}
}

static void num(char *cell, double v, int prec)
{
	if (isnan(v))
		(void)snprintf(cell, CELL, "-");
	else
		(void)snprintf(cell, CELL, "%.*f", prec, v);
}

static const char *direction(const struct dpdk_report *r, const struct dpdk_point *pt)
{
	if (r->role != DPDK_ROLE_TESTER)
		return "Port -> Port (loopback)";
	return pt->bi ? "Tester <=> DUT" : "Tester => DUT";
}

static void throughput_table(const struct dpdk_report *r, FILE *f, char (*cells)[MAX_COLS][CELL])
{
	struct table t = {
	    .ncols = 9,
	    .head = {"direction", "size", "flows", "Tx queues DUT / Tester", "type",
		     "Rx on DUT, Gb/s", "Rx on Tester, Gb/s", "Rx on DUT, Mpps",
		     "Rx on Tester, Mpps"},
	    .nrows = r->nrows,
	    .cells = cells,
	};
	for (size_t i = 0; i < r->nrows; i++) {
		const struct dpdk_summary_row *row = &r->rows[i];
		char(*c)[CELL] = cells[i];
		(void)snprintf(c[0], CELL, "%s", direction(r, &row->pt));
		(void)snprintf(c[1], CELL, "%u", (unsigned)row->pt.size);
		(void)snprintf(c[2], CELL, "%u", (unsigned)row->pt.flows);
		if (r->role == DPDK_ROLE_TESTER)
			(void)snprintf(c[3], CELL, "%u / %u", (unsigned)row->pt.queues,
				       (unsigned)row->pt.queues);
		else
			(void)snprintf(c[3], CELL, "- / %u", (unsigned)row->pt.queues);
		(void)snprintf(c[4], CELL, "udp");
		num(c[5], row->dut_l1, 3);
		num(c[6], row->tst_l1, 3);
		num(c[7], row->dut_mpps, 3);
		num(c[8], row->tst_mpps, 3);
	}
	print_table(f, &t);
}

static void latency_table(const struct dpdk_report *r, FILE *f, char (*cells)[MAX_COLS][CELL])
{
	struct table t = {
	    .ncols = 7,
	    .head = {"size", "flows", "queues", "p50, us", "p90, us", "p99, us", "pkt loss, %"},
	    .nrows = r->nrows,
	    .cells = cells,
	};
	for (size_t i = 0; i < r->nrows; i++) {
		const struct dpdk_summary_row *row = &r->rows[i];
		char(*c)[CELL] = cells[i];
		(void)snprintf(c[0], CELL, "%u", (unsigned)row->pt.size);
		(void)snprintf(c[1], CELL, "%u", (unsigned)row->pt.flows);
		(void)snprintf(c[2], CELL, "%u", (unsigned)row->pt.queues);
		num(c[3], row->p50_us, 2);
		num(c[4], row->p90_us, 2);
		num(c[5], row->p99_us, 2);
		num(c[6], row->loss_pct, 3);
	}
	print_table(f, &t);
}

void dpdk_report_table(const struct dpdk_report *r, FILE *f)
{
	if (r->nrows == 0)
		return;
	char(*cells)[MAX_COLS][CELL] = calloc(r->nrows, sizeof(*cells));
	if (cells == NULL)
		return;
	fprintf(f, "\ndpdkbench: %s on port %u (%s)%s\n",
		r->role == DPDK_ROLE_TESTER ? "tester <-> dut" : "loopback",
		(unsigned)r->port->port_id, r->port->driver,
		r->port->is_virtual ? ", virtual device: no wire, no line rate" : "");
	fputs("Gb/s count L1 bits (frame with FCS + 20 bytes preamble and gap); L2 figures are in "
	      "the rows above and in CSV/JSON.\n",
	      f);
	throughput_table(r, f, cells);
	if (r->role != DPDK_ROLE_MINIMAL) {
		fputs("Latency: round trip of timestamped frames (one per burst) under full load; "
		      "loss from per-flow sequence numbers.\n",
		      f);
		latency_table(r, f, cells);
	}
}
