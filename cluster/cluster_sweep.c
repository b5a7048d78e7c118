/* --test node_sweep: every node runs the same short suite points at the same time (the
 * suite's own binaries, --format json, read by key), rank 0 tabulates them per node and
 * flags the node that is slow beyond its own noise. */
#include <cjson/cJSON.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "cluster_wait.h"
#include "peak_path.h"
#include "peak_stats.h"

/* A node is slow on a point when its best repetition is still worse than the median of
 * all nodes by more than SLOW_FRAC: beyond its own noise and beyond rounding. */
#define SLOW_FRAC 0.05

enum { NPOINTS = 6 };

struct point_def {
	const char *key;  /* the row's variant */
	const char *bin;  /* under bindir */
	const char *args; /* disk points get --dir appended */
	const char *need; /* ISA the node must have (avx2, avx512f), or NULL */
	int disk;
};

static const struct point_def points[NPOINTS] = {
    {"cpu.flops.avx2_dp", "cpu/cpubench",
     "--test flops --isa avx2 --precision dp --threads 1 --reps 3 --ci 0 --min-time 0.1", "avx2", 0},
    {"cpu.flops.avx512_dp", "cpu/cpubench",
     "--test flops --isa avx512 --precision dp --threads 1 --reps 3 --ci 0 --min-time 0.1", "avx512f", 0},
    {"memory.seq_read", "memory/membench",
     "--test seq_read --block 8MiB --size 64MiB --threads 1 --reps 3 --ci 0 --min-time 0.1", NULL, 0},
    {"memory.latency", "memory/membench",
     "--test latency --sweep 64MiB:64MiB:1 --threads 1 --reps 3 --ci 0 --min-time 0.1", NULL, 0},
    {"disk.rand_read_4k", "disk/diskbench",
     "--file-size 64MiB --test rand_read --block 4KiB --engine psync --runtime 0.2 --reps 3 --ci 0", NULL, 1},
    {"disk.seq_write_1m", "disk/diskbench",
     "--file-size 64MiB --test seq_write --block 1MiB --engine psync --runtime 0.2 --reps 3 --ci 0", NULL, 1},
};

struct sweep_res {
	int32_t ran; /* 1 measured, 0 skipped here, -1 failed */
	char metric[16], unit[16];
	double median, min, max;
	char why[96];
};

/* The whole of a binary's standard output (its --format json document), or NULL. */
static char *read_all(FILE *f)
{
	size_t cap = 1 << 16, len = 0, got;
	char *buf = malloc(cap);
	while (buf != NULL && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (len + 1 == cap) {
			char *more = realloc(buf, cap * 2);
			if (more == NULL) {
				free(buf);
				return NULL;
			}
			buf = more;
			cap *= 2;
		}
	}
	if (buf != NULL)
		buf[len] = '\0';
	return buf;
}

static bool num_of(const cJSON *row, const char *key, double *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(row, key);
	if (!cJSON_IsNumber(x))
		return false;
	*v = x->valuedouble;
	return true;
}

static bool text_of(const cJSON *row, const char *key, char *out, size_t len)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(row, key);
	if (!cJSON_IsString(x))
		return false;
	snprintf(out, len, "%s", x->valuestring);
	return true;
}

/* The first result with a median, read by key (docs/results-schema.md). Each point's
 * arguments above make that row the one meant: one block (seq_read 8 MiB, not membench's
 * first block of 8 B), one working set (latency 64 MiB, past the caches, not the sweep's
 * 4 KiB), one engine. */
static int parse_json(const char *text, struct sweep_res *r)
{
	cJSON *doc = cJSON_Parse(text);
	const cJSON *row;
	int rc = -1;
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "results"))
	{
		if (num_of(row, "median", &r->median) && num_of(row, "min", &r->min) &&
		    num_of(row, "max", &r->max) && text_of(row, "metric", r->metric, sizeof r->metric) &&
		    text_of(row, "unit", r->unit, sizeof r->unit)) {
			rc = 0;
			break;
		}
	}
	cJSON_Delete(doc);
	return rc;
}

/* Append s to the shell command cmd (of size len) in single quotes, each ' in it as '\''
 * (a folder named "it's mine" stays one word). False when cmd has no room left. */
static bool append_quoted(char *cmd, size_t len, const char *s)
{
	size_t used = strlen(cmd);
	if (used + 1 >= len)
		return false;
	cmd[used++] = '\'';
	for (; *s; s++) {
		const char *piece = *s == '\'' ? "'\\''" : NULL;
		size_t n = piece ? strlen(piece) : 1;
		if (used + n + 2 > len)
			return false;
		memcpy(cmd + used, piece ? piece : s, n);
		used += n;
	}
	cmd[used++] = '\'';
	cmd[used] = '\0';
	return true;
}

/* The point's shell command: 'BINDIR/BIN' ARGS [--dir 'DIR'] --format json --quiet.
 * bindir and dir passed peak_path_check, so the buffer (two paths, quoted, and the
 * arguments) holds them; false would say it did not. */
static bool point_command(char *cmd, size_t len, const struct point_def *d, const char *bindir,
			  const char *dir)
{
	char bin[PEAK_PATH_MAX + 64];
	cmd[0] = '\0';
	return peak_fmt(bin, sizeof bin, "%s/%s", bindir, d->bin) &&
	       append_quoted(cmd, len, bin) && peak_fmt(cmd + strlen(cmd), len - strlen(cmd),
							 " %s%s", d->args, d->disk ? " --dir " : "") &&
	       (!d->disk || append_quoted(cmd, len, dir)) &&
	       peak_fmt(cmd + strlen(cmd), len - strlen(cmd), " --format json --quiet 2>/dev/null");
}

static void run_point(const struct point_def *d, const char *bindir, const char *dir,
		      const struct cluster_node *self, struct sweep_res *r)
{
	memset(r, 0, sizeof *r);
	bool has = d->need == NULL || (strcmp(d->need, "avx2") == 0 ? self->avx2 : self->avx512f);
	if (!has) {
		snprintf(r->why, sizeof r->why, "no %s on this node", d->need);
		return;
	}
	if (d->disk && dir == NULL) {
		snprintf(r->why, sizeof r->why, "no --dir given");
		return;
	}
	/* Each ' may become 4 bytes: room for two such paths and the arguments. */
	char cmd[8 * PEAK_PATH_MAX + 512];
	if (!point_command(cmd, sizeof cmd, d, bindir, dir ? dir : "")) {
		r->ran = -1;
		snprintf(r->why, sizeof r->why, "%s: its command line is too long", d->bin);
		return;
	}
	FILE *f = popen(cmd, "r");
	char *text = f != NULL ? read_all(f) : NULL;
	if (text == NULL || parse_json(text, r) != 0) {
		r->ran = -1;
		snprintf(r->why, sizeof r->why, "%s gave no result", d->bin);
	} else {
		r->ran = 1;
	}
	free(text);
	if (f != NULL && pclose(f) != 0 && r->ran == 1) {
		r->ran = -1;
		snprintf(r->why, sizeof r->why, "%s failed", d->bin);
	}
}

static int lower_is_better(const char *metric)
{
	return strcmp(metric, "latency") == 0;
}

static void sweep_row(struct peak_result *row, int p, const char *metric, const char *unit,
		      const char *host)
{
	peak_result_init(row, "cluster", "node_sweep", points[p].key, metric, unit);
	row->threads = 1;
	snprintf(row->host, sizeof row->host, "%s", host);
}

static void keep(const struct cluster_run *run, struct peak_result *r)
{
	peak_result_finish(r);
	if (cluster_rows_add(run->rows, r) != 0)
		cluster_fail(run, "out of memory");
	cluster_progress_row(run, r, "");
}

/* One node's row: its median, with its repetitions' min and max beside; slow when even its
 * best repetition trails the nodes' median by SLOW_FRAC. Returns whether it is slow. */
static bool node_row(const struct cluster_run *run, int p, int i, const struct sweep_res *r,
		     const struct sweep_res *any, double nodes_median, int nmeasured)
{
	struct peak_result row;
	if (r->ran != 1) {
		sweep_row(&row, p, any->metric, any->unit, run->nodes[i].name);
		snprintf(row.flags, sizeof row.flags, "%s%s", r->ran ? "failed: " : "unsupported: ",
			 r->why);
		keep(run, &row);
		return false;
	}
	sweep_row(&row, p, r->metric, r->unit, run->nodes[i].name);
	peak_result_set_samples(&row, &r->median, 1);
	row.summary.min = r->min;
	row.summary.max = r->max;
	bool slow = lower_is_better(r->metric) ? r->min > nodes_median * (1.0 + SLOW_FRAC)
					      : r->max < nodes_median * (1.0 - SLOW_FRAC);
	slow = slow && nmeasured > 1;
	if (slow) {
		char item[64];
		snprintf(item, sizeof item, "slow_node;vs_median=%.3g", r->median / nodes_median);
		peak_result_flag(&row, item);
	}
	keep(run, &row);
	return slow;
}

static void tabulate(const struct cluster_run *run, int p, const struct sweep_res *all)
{
	int nranks = run->nranks, n = 0;
	double *med = calloc((size_t)nranks, sizeof *med);
	const struct sweep_res *any = NULL;
	if (med == NULL)
		cluster_fail(run, "out of memory");
	for (int i = 0; i < nranks; i++) {
		const struct sweep_res *r = &all[(size_t)i * NPOINTS + (size_t)p];
		if (r->ran == 1) {
			med[n++] = r->median;
			any = r;
		}
	}
	if (any == NULL) {
		free(med);
		return;
	}
	struct peak_summary s;
	peak_stats_summarize(med, (size_t)n, &s);
	char slow[160] = "";
	int nslow = 0;
	for (int i = 0; i < nranks; i++) {
		const struct sweep_res *r = &all[(size_t)i * NPOINTS + (size_t)p];
		if (node_row(run, p, i, r, any, s.median, n)) {
			size_t len = strlen(slow);
			snprintf(slow + len, sizeof slow - len, "%s%s", len ? "," : "", run->nodes[i].name);
			nslow++;
		}
	}
	/* The across-node row: one sample per node, so min/median/max are across nodes. */
	struct peak_result row;
	char item[200];
	sweep_row(&row, p, any->metric, any->unit, "all");
	peak_result_set_samples(&row, med, (size_t)n);
	snprintf(item, sizeof item, "nodes=%d;spread=%.3g", n,
		 s.median > 0 ? (s.max - s.min) / s.median : 0.0);
	peak_result_flag(&row, item);
	if (nslow > 0) {
		/* The names when they fit whole in the flags, else how many (each node's own row
		 * carries slow_node either way). */
		snprintf(item, sizeof item, "slow_nodes=%s", slow);
		size_t before = strlen(row.flags);
		peak_result_flag(&row, item);
		if (strlen(row.flags) == before) {
			snprintf(item, sizeof item, "slow_nodes_count=%d", nslow);
			peak_result_flag(&row, item);
		}
	}
	keep(run, &row);
	free(med);
}

void cluster_sweep(const struct cluster_run *run)
{
	const struct cluster_opts *o = run->o;
	struct sweep_res mine[NPOINTS];
	struct sweep_res *all =
		run->rank == 0 ? calloc((size_t)run->nranks * NPOINTS, sizeof *all) : NULL;
	if (run->rank == 0 && all == NULL)
		cluster_fail(run, "out of memory");
	const char *bindir = o->bindir != NULL ? o->bindir : ".";
	for (int p = 0; p < NPOINTS; p++) {
		/* Same point, same moment on every node: what differs is the node. */
		cluster_watch(run, p + 1, 1);
		cluster_barrier(MPI_COMM_WORLD);
		run_point(&points[p], bindir, o->dir, &run->nodes[run->rank], &mine[p]);
		cluster_watch(run, p + 1, 0);
	}
	cluster_gather(mine, (int)sizeof mine, all, 0, MPI_COMM_WORLD);
	if (run->rank == 0) {
		for (int p = 0; p < NPOINTS; p++)
			tabulate(run, p, all);
		cluster_flush(run);
	}
	free(all);
}
