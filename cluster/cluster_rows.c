/* Rank 0's result rows and their rewriting through libpeak's reporters. */
#include "cluster_rows.h"
#include "peak_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_report.h"

struct stored_row {
	struct peak_result r;
	double samples[CLUSTER_ROW_SAMPLES];
};

struct row_mark {
	char host[64], flag[32]; /* host: as a row's (peak_result.host) */
};

struct cluster_rows {
	enum peak_format format;
	const char *path; /* NULL: stdout */
	const struct peak_context *ctx, *nodes;
	size_t nnodes;
	struct stored_row *rows;
	size_t nrows, cap;
	struct row_mark *marks;
	size_t nmarks;
};

struct cluster_rows *cluster_rows_open(enum peak_format format, const char *path,
				       const struct peak_context *ctx,
				       const struct peak_context *nodes, size_t nnodes)
{
	struct cluster_rows *s = calloc(1, sizeof *s);
	if (s == NULL)
		return NULL;
	s->format = format;
	s->path = path != NULL && strcmp(path, "-") != 0 ? path : NULL;
	s->ctx = ctx;
	s->nodes = nodes;
	s->nnodes = nnodes;
	return s;
}

int cluster_rows_add(struct cluster_rows *s, const struct peak_result *r)
{
	if (s->nrows == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct stored_row *more = realloc(s->rows, cap * sizeof *more);
		if (more == NULL)
			return -1;
		s->rows = more;
		s->cap = cap;
	}
	struct stored_row *d = &s->rows[s->nrows++];
	d->r = *r;
	d->r.nsamples = r->nsamples < CLUSTER_ROW_SAMPLES ? r->nsamples : CLUSTER_ROW_SAMPLES;
	if (d->r.nsamples > 0)
		memcpy(d->samples, r->samples, d->r.nsamples * sizeof(double));
	d->r.samples = NULL; /* pointed at d->samples when written: the array moves */
	for (size_t i = 0; i < s->nmarks; i++)
		if (strcmp(d->r.host, "all") == 0 || strcmp(d->r.host, s->marks[i].host) == 0 ||
		    strcmp(d->r.peer, s->marks[i].host) == 0)
			peak_result_flag(&d->r, s->marks[i].flag);
	return 0;
}

int cluster_rows_mark(struct cluster_rows *s, const char *host, const char *flag)
{
	struct row_mark *more = realloc(s->marks, (s->nmarks + 1) * sizeof *more);
	if (more == NULL)
		return -1;
	s->marks = more;
	(void)peak_fmt(more[s->nmarks].host, sizeof more->host, "%s", host);
	(void)peak_fmt(more[s->nmarks].flag, sizeof more->flag, "%s", flag);
	s->nmarks++;
	return 0;
}

static int same(const struct peak_result *r, const char *test, const char *host,
		const char *peer)
{
	return strcmp(r->test, test) == 0 && strcmp(r->host, host) == 0 &&
	       strcmp(r->peer, peer) == 0;
}

void cluster_rows_flag(struct cluster_rows *s, const char *test, const char *metric,
		       const char *host, const char *peer, const char *flag)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (same(&s->rows[i].r, test, host, peer) && strcmp(s->rows[i].r.metric, metric) == 0)
			peak_result_flag(&s->rows[i].r, flag);
}

void cluster_rows_drop(struct cluster_rows *s, const char *test, const char *host,
		       const char *peer)
{
	size_t k = 0;
	for (size_t i = 0; i < s->nrows; i++)
		if (!same(&s->rows[i].r, test, host, peer))
			s->rows[k++] = s->rows[i];
	s->nrows = k;
}

/* Every row through one reporter bound to path (NULL: stdout). */
static int write_all(struct cluster_rows *s, const char *path, char *err, size_t err_len)
{
	struct peak_output out;
	if (peak_output_open(&out, s->format, path, err, err_len) != 0)
		return -1;
	peak_output_cluster(&out, s->nodes, s->nnodes);
	int rc = peak_output_begin(&out, s->ctx);
	for (size_t i = 0; rc == 0 && i < s->nrows; i++) {
		s->rows[i].r.samples = s->rows[i].samples;
		rc = peak_output_record(&out, &s->rows[i].r);
	}
	if (peak_output_close(&out, s->ctx) != 0 || rc != 0) {
		(void)peak_fmt(err, err_len, "cannot write %s", path ? path : "the results to stdout");
		return -1;
	}
	return 0;
}

int cluster_rows_flush(struct cluster_rows *s, int final, char *err, size_t err_len)
{
	if (s->path == NULL)
		return final ? write_all(s, NULL, err, err_len) : 0;
	char tmp[PEAK_PATH_MAX + 8]; /* fits: --output passed peak_path_check */
	(void)peak_fmt(tmp, sizeof tmp, "%s.tmp", s->path);
	if (write_all(s, tmp, err, err_len) != 0)
		return -1;
	if (rename(tmp, s->path) != 0) {
		(void)peak_fmt(err, err_len, "cannot write --output %s: %s", s->path, strerror(errno));
		return -1;
	}
	return 0;
}

void cluster_rows_close(struct cluster_rows *s)
{
	if (s == NULL)
		return;
	free(s->marks);
	free(s->rows);
	free(s);
}
