#include "cluster_sweep.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster_wait.h"
#include "peak_stats.h"

/* A node is slow on a point when its best repetition is still worse than the median of
 * all nodes by more than SLOW_FRAC: beyond its own noise and beyond rounding. */
#define SLOW_FRAC 0.05

enum { NPOINTS = 6 };

struct point_def {
	const char *key;  /* the row's variant */
	const char *bin;  /* under bindir */
	const char *args; /* disk points get --dir appended */
	const char *need; /* ISA flag the node must have, or NULL */
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

/* The first CSV data row: suite,test,variant,threads,block,metric,unit,n,mean,stddev,min,
 * median,max,... (docs/results-schema.md). The first columns never hold quotes. Each point's
 * arguments above make that row the one meant: one block (seq_read 8 MiB, not membench's
 * first block of 8 B), one working set (latency 64 MiB, past the caches, not the sweep's
 * 4 KiB), one engine. */
static int parse_csv(FILE *f, struct sweep_res *r)
{
	char line[4096];
	int row = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		if (row++ == 0)
			continue;
		char *col[13];
		int n = 0;
		char *p = line;
		while (n < 13 && p != NULL) {
			col[n++] = p;
			p = strchr(p, ',');
			if (p != NULL)
				*p++ = '\0';
		}
		if (n < 13 || col[11][0] == '\0')
			continue;
		snprintf(r->metric, sizeof r->metric, "%s", col[5]);
		snprintf(r->unit, sizeof r->unit, "%s", col[6]);
		r->median = atof(col[11]);
		r->min = atof(col[10]);
		r->max = atof(col[12]);
		return 0;
	}
	return -1;
}

static void run_point(const struct point_def *d, const char *bindir, const char *dir,
		      const struct cluster_node *self, struct sweep_res *r)
{
	memset(r, 0, sizeof *r);
	if (d->need != NULL && strstr(self->flags, d->need) == NULL) {
		snprintf(r->why, sizeof r->why, "no %s on this node", d->need);
		return;
	}
	if (d->disk && dir == NULL) {
		snprintf(r->why, sizeof r->why, "no --dir given");
		return;
	}
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "'%s/%s' %s%s%s%s --format csv --quiet 2>/dev/null", bindir,
		 d->bin, d->args, d->disk ? " --dir '" : "", d->disk ? dir : "", d->disk ? "'" : "");
	FILE *f = popen(cmd, "r");
	if (f == NULL || parse_csv(f, r) != 0) {
		r->ran = -1;
		snprintf(r->why, sizeof r->why, "%s gave no result", d->bin);
	} else {
		r->ran = 1;
	}
	if (f != NULL && pclose(f) != 0 && r->ran == 1) {
		r->ran = -1;
		snprintf(r->why, sizeof r->why, "%s failed", d->bin);
	}
}

static int lower_is_better(const char *metric)
{
	return strcmp(metric, "latency") == 0;
}

static void tabulate(int p, const struct sweep_res *all, int nranks,
		     const struct cluster_node *nodes, struct cluster_out *out)
{
	double med[4096];
	int n = 0;
	const struct sweep_res *any = NULL;
	for (int i = 0; i < nranks && n < 4096; i++) {
		const struct sweep_res *r = &all[(size_t)i * NPOINTS + (size_t)p];
		if (r->ran == 1) {
			med[n++] = r->median;
			any = r;
		}
	}
	if (any == NULL)
		return;
	struct peak_summary s;
	peak_stats_summarize(med, (size_t)n, &s);
	char slow[256] = "";
	for (int i = 0; i < nranks; i++) {
		const struct sweep_res *r = &all[(size_t)i * NPOINTS + (size_t)p];
		struct cluster_row row = {.test = "node_sweep", .variant = points[p].key,
					  .metric = r->metric, .unit = r->unit, .threads = 1,
					  .block_bytes = -1, .host = nodes[i].name, .peer = ""};
		if (r->ran != 1) {
			snprintf(row.flags, sizeof row.flags, "%s%s", r->ran ? "failed: " : "unsupported: ",
				 r->why);
			row.metric = any->metric;
			row.unit = any->unit;
			(void)cluster_out_add(out, &row);
			continue;
		}
		double mm[2] = {r->min, r->max};
		row.samples = &r->median;
		row.n = 1;
		row.minmax = mm;
		/* Slow: even this node's best repetition trails the nodes' median by 5%. */
		int bad = lower_is_better(r->metric) ? r->min > s.median * (1.0 + SLOW_FRAC)
						     : r->max < s.median * (1.0 - SLOW_FRAC);
		if (bad && n > 1) {
			snprintf(row.flags, sizeof row.flags, "slow_node;vs_median=%.3g",
				 r->median / s.median);
			size_t len = strlen(slow);
			snprintf(slow + len, sizeof slow - len, "%s%s", len ? "," : "", nodes[i].name);
		}
		(void)cluster_out_add(out, &row);
	}
	/* The across-node row: one sample per node, so min/median/max are across nodes. */
	struct cluster_row all_row = {.test = "node_sweep", .variant = points[p].key,
				      .metric = any->metric, .unit = any->unit, .threads = 1,
				      .block_bytes = -1, .samples = med, .n = (size_t)n,
				      .host = "all", .peer = ""};
	snprintf(all_row.flags, sizeof all_row.flags, "nodes=%d;spread=%.3g%s%s", n,
		 s.median > 0 ? (s.max - s.min) / s.median : 0.0, slow[0] ? ";slow_nodes=" : "",
		 slow);
	(void)cluster_out_add(out, &all_row);
}

void cluster_sweep(const struct cluster_cfg *cfg, const char *bindir, const char *dir, int rank,
		   int nranks, const struct cluster_node *nodes, struct cluster_out *out,
		   double round_s)
{
	(void)cfg;
	struct sweep_res mine[NPOINTS];
	struct sweep_res *all = rank == 0 ? calloc((size_t)nranks * NPOINTS, sizeof *all) : NULL;
	if (bindir == NULL)
		bindir = ".";
	for (int p = 0; p < NPOINTS; p++) {
		/* Same point, same moment on every node: what differs is the node. */
		alarm((unsigned)round_s);
		cluster_barrier(MPI_COMM_WORLD);
		run_point(&points[p], bindir, dir, &nodes[rank], &mine[p]);
		alarm(0);
	}
	cluster_gather(mine, (int)sizeof mine, all, 0, MPI_COMM_WORLD);
	if (rank == 0 && all != NULL) {
		for (int p = 0; p < NPOINTS; p++)
			tabulate(p, all, nranks, nodes, out);
		(void)cluster_out_flush(out);
	}
	free(all);
}
