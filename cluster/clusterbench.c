/* clusterbench: every ordered pair of nodes measured over netbench's own TCP/UDP code, in
 * rounds MPI starts and gathers, and the same short suite points on every node. MPI
 * launches the ranks (one per node), exchanges the server ports, synchronises the rounds
 * and carries the results to rank 0; it never carries the measured traffic. Options,
 * machine facts and output are libpeak's (peak_opts, peak_sysinfo, peak_report). See
 * docs/cluster.md. This file declares the options and the tests; cluster_main.c runs them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "cluster_main.h"
#include "cluster_mpi.h"
#include "cluster_mpi_p2p.h"
#include "peak_path.h"

/* The tests --test names, in the order --test's error lists them. */
static const struct cluster_test tests[] = {
    {.name = "net_matrix", .server = true, .schedule = true, .min_ranks = 2,
     .run = cluster_net_matrix},
    {.name = "node_sweep", .min_ranks = 1, .run = cluster_sweep},
    {.name = "mpi_p2p", .server = true, .mpi = true, .min_ranks = 2, .run = cluster_mpi_p2p},
    {.name = "mpi_coll", .mpi = true, .min_ranks = 2, .run = cluster_mpi_coll},
    {.name = NULL},
};
static const char *const schedules[] = {"shift", "serial", NULL};

/* The flags every other binary spells differently are refused, naming the new one. */
static int gone(char *err, size_t len, const char *now)
{
	snprintf(err, len, "replaced by %s", now);
	return -1;
}

static int gone_out(const char *arg, void *dest, char *err, size_t len)
{
	(void)arg;
	(void)dest;
	return gone(err, len, "--output FILE (and --format json for the results file)");
}

static int gone_duration(const char *arg, void *dest, char *err, size_t len)
{
	(void)arg;
	(void)dest;
	return gone(err, len, "--min-time SECONDS");
}

/* Every rank parses; only rank 0's words reach the terminal (one line for a bad flag). */
static int parse_silenced(const struct peak_cli *cli, int argc, char **argv, int rank)
{
	int saved_out = -1, saved_err = -1;
	if (rank != 0) {
		int null = open("/dev/null", O_WRONLY);
		saved_out = dup(1);
		saved_err = dup(2);
		if (null >= 0) {
			(void)dup2(null, 1);
			(void)dup2(null, 2);
			close(null);
		}
	}
	int st = (int)peak_opts_parse(cli, argc, argv, NULL);
	fflush(stdout);
	fflush(stderr);
	if (saved_out >= 0) {
		(void)dup2(saved_out, 1);
		close(saved_out);
	}
	if (saved_err >= 0) {
		(void)dup2(saved_err, 2);
		close(saved_err);
	}
	return st;
}

static void say(int rank, const char *msg)
{
	if (rank == 0) {
		fprintf(stderr, "clusterbench: %s (see --help)\n", msg);
		fflush(stderr);
	}
}

/* --names: every line fits the reader's buffer and every host name fits a node's name
 * (cluster_node.name, a row's host and peer): a longer one would be cut into another
 * host's name, so it is bad input. 0, or -1 with the reason in msg. */
static int hostfile_check(const char *path, char *msg, size_t len)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		(void)peak_fmt(msg, len, "--names: cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	char line[512];
	unsigned lineno = 0;
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
		lineno++;
		size_t n = strlen(line);
		char *save = NULL, *h = strtok_r(line, " \t\r\n", &save);
		if (n == sizeof line - 1 && line[n - 1] != '\n' && !feof(f)) {
			(void)peak_fmt(msg, len, "--names: %s:%u: line longer than %zu bytes", path,
				       lineno, sizeof line - 2);
			rc = -1;
		} else if (h != NULL && h[0] != '#' &&
			   strlen(h) >= sizeof((struct cluster_node *)0)->name) {
			(void)peak_fmt(msg, len, "--names: %s:%u: host name longer than %zu bytes",
				       path, lineno, sizeof((struct cluster_node *)0)->name - 1);
			rc = -1;
		}
	}
	(void)fclose(f);
	return rc;
}

/* The defaults before the flags. */
static void defaults(struct cluster_opts *o)
{
	memset(o, 0, sizeof *o);
	peak_opts_common_defaults(&o->common);
	/* Fixed repetitions unless --ci: under the shift schedule every pair runs at once. */
	o->common.ci_pct = 0;
	o->common.min_time_s = 0; /* unset: each test's default, below */
	o->test = "net_matrix";
	o->schedule = "shift";
	o->udp_mbit = 100;
	o->timeout_s = 10;
	o->window = 64;
	o->below_tcp_ratio = CLUSTER_MPI_BELOW_TCP_RATIO;
	o->lat_x = 2.1;
	o->bw_frac = 0.93;
	o->cfg = (struct cluster_cfg){.lat_s = 0.5, .tcp_block = 131072, .udp_dgram = 1400,
				      .lat_block = 64};
}

/* Bad input that is not one flag's alone: 0, or -1 once rank 0 said why in one line. */
static int check(const struct cluster_opts *o, const struct cluster_test *t, int rank, int nranks)
{
	uint64_t most = peak_opts_max_reps(&o->common);
	if (most > CLUSTER_MAX_REPS) {
		char msg[120];
		snprintf(msg, sizeof msg, "--reps/--max-reps: at most %u repetitions a pair, not %llu",
			 CLUSTER_MAX_REPS, (unsigned long long)most);
		say(rank, msg);
		return -1;
	}
	char why[PEAK_MSG_MAX];
	if (o->names != NULL && hostfile_check(o->names, why, sizeof why) != 0) {
		say(rank, why);
		return -1;
	}
	if (o->ompi_info != NULL && access(o->ompi_info, R_OK) != 0) {
		(void)peak_fmt(why, sizeof why, "--ompi-info: cannot read %s: %s", o->ompi_info,
			       strerror(errno));
		say(rank, why);
		return -1;
	}
	if (nranks < (int)t->min_ranks) {
		char msg[96];
		snprintf(msg, sizeof msg, "%s needs at least %u ranks, one per node (mpirun -np N)",
			 o->test, t->min_ranks);
		say(rank, msg);
		return -1;
	}
	if (o->pairs != NULL && cluster_p2p_pairs_parse(o->pairs, nranks, why, sizeof why) != 0) {
		say(rank, why);
		return -1;
	}
	return 0;
}

/* What the flags imply: the default sizes and --min-time, the pairs' settings and the
 * watchdog's bound on a round. */
static void settle(struct cluster_opts *o, const struct cluster_test *t)
{
	uint64_t most = peak_opts_max_reps(&o->common);
	if (o->sizes.n == 0) /* OSU's sweep: 1 B to 4 MiB in powers of two */
		for (uint64_t b = 1; b <= CLUSTER_MPI_MAX_BYTES; b *= 2)
			o->sizes.v[o->sizes.n++] = b;
	/* An MPI run is many short points (23 sizes x 4 tests x every pair with the defaults):
	 * a tenth of a second a repetition keeps the whole sweep within minutes on any link. */
	if (!(o->common.min_time_s > 0))
		o->common.min_time_s = t->mpi ? CLUSTER_MPI_MIN_TIME_S : 1.0;
	o->cfg.duration_s = o->common.min_time_s;
	o->cfg.reps = (unsigned)o->common.reps;
	o->cfg.max_reps = (unsigned)most;
	o->cfg.ci_pct = o->common.ci_pct;
	o->cfg.udp_bps = (uint64_t)(o->udp_mbit * 1e6);
	o->cfg.timeout_ms = (uint32_t)(o->timeout_s * 1000.0);
	/* A round moves up to max-reps + 1/8 throughput runs, a UDP run and the latency run,
	 * then waits on timeouts at worst: beyond that the round has stalled. */
	o->round_s = o->cfg.duration_s * ((double)most + 2.0) + o->cfg.lat_s +
		     4.0 * o->timeout_s + 30.0;
	/* An MPI round is one pair's (or one collective's) whole size sweep: 3 tests a size, each
	 * a warm-up and repetitions of --min-time plus one iteration, which the progress watch
	 * bounds by --timeout. This bounds the ranks that wait outside the pair. */
	if (t->mpi)
		o->round_s += 3.0 * (double)o->sizes.n * ((double)most + 1.0) *
			      (o->common.min_time_s + o->timeout_s);
}

/* PEAK_OPTS_OK, _EXIT (--help) or _ERROR (rank 0 printed one line). */
static int parse(int argc, char **argv, int rank, int nranks, struct cluster_opts *o)
{
	defaults(o);
	const char *names[sizeof tests / sizeof tests[0]]; /* --test's choices, NULL last */
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
		names[i] = tests[i].name;
	const struct peak_opt opts[] = {
	    {"test", "TEST",
	     "net_matrix (every ordered pair), node_sweep, mpi_p2p or mpi_coll (net_matrix)",
	     PEAK_OPT_CHOICE, &o->test, 0, 0, names, NULL},
	    {"schedule", "S", "net_matrix rounds: shift (all at once) or serial (shift)",
	     PEAK_OPT_CHOICE, &o->schedule, 0, 0, schedules, NULL},
	    {"names", "FILE", "hostfile: its i-th host names rank i", PEAK_OPT_PATH, &o->names,
	     0, 0, NULL, NULL},
	    {"min-time", "SECONDS",
	     "a repetition: of a pair's TCP/UDP, seconds (1); of an MPI point, OSU's iterations "
	     "or until it lasted SECONDS (0.1)",
	     PEAK_OPT_DOUBLE, &o->common.min_time_s, 0.01, 3600, NULL, NULL},
	    PEAK_OPTS_COMMON_REPORT(&o->common),
	    {"latency-duration", "SECONDS", "TCP round trips per pair, seconds (0.5)",
	     PEAK_OPT_DOUBLE, &o->cfg.lat_s, 0.01, 3600, NULL, NULL},
	    {"udp-rate", "MBIT", "UDP sender rate, Mbit/s (100)", PEAK_OPT_DOUBLE, &o->udp_mbit,
	     0.001, 400000, NULL, NULL},
	    {"port", "P", "every node's server port (0: any free port)", PEAK_OPT_UINT, &o->port,
	     0, 65535, NULL, NULL},
	    {"timeout", "SECONDS",
	     "silence after which a pair, or an MPI test without an iteration, is stalled (10)",
	     PEAK_OPT_DOUBLE, &o->timeout_s, 0.1, 600, NULL, NULL},
	    {"outlier-lat", "X", "latency p50 over X times the smallest is an outlier (2.1)",
	     PEAK_OPT_DOUBLE, &o->lat_x, 1, 1000, NULL, NULL},
	    {"outlier-bw", "F", "throughput under F of the largest is an outlier (0.93)",
	     PEAK_OPT_DOUBLE, &o->bw_frac, 0, 1, NULL, NULL},
	    {"bindir", "DIR", "node_sweep: the suite's build directory (.)", PEAK_OPT_PATH,
	     &o->bindir, 0, 0, NULL, NULL},
	    {"dir", "DIR", "node_sweep: also run diskbench in DIR", PEAK_OPT_PATH, &o->dir, 0,
	     0, NULL, NULL},
	    {"sizes", "LIST", "mpi_p2p, mpi_coll: message sizes 1B..4MiB (every power of two)",
	     PEAK_OPT_SIZE_LIST, &o->sizes, 1, (double)CLUSTER_MPI_MAX_BYTES, NULL, NULL},
	    {"pairs", "A-B,...", "mpi_p2p: these rank pairs (every pair of nodes)",
	     PEAK_OPT_STRING, &o->pairs, 0, 0, NULL, NULL},
	    {"max-iters", "N", "mpi_p2p, mpi_coll: at most N timed iterations a repetition (OSU's)",
	     PEAK_OPT_UINT, &o->max_iters, 1, 1000000, NULL, NULL},
	    {"window", "N", "mpi_p2p bandwidth and message rate: messages in flight (64)",
	     PEAK_OPT_UINT, &o->window, 1, 1024, NULL, NULL},
	    /* Hidden: a test sets it high to see below_tcp fire on a healthy pair. */
	    {"below-tcp-ratio", "R", NULL, PEAK_OPT_DOUBLE, &o->below_tcp_ratio, 0, 1e6, NULL,
	     NULL},
	    {"ompi-info", "FILE", "`ompi_info --parsable` output: the components the transport "
	     "check knows of", PEAK_OPT_PATH, &o->ompi_info, 0, 0, NULL, NULL},
	    {"out", "FILE", NULL, PEAK_OPT_CALLBACK, NULL, 0, 0, NULL, gone_out},
	    {"duration", "SECONDS", NULL, PEAK_OPT_CALLBACK, NULL, 0, 0, NULL, gone_duration},
	};
	const struct peak_cli cli = {
	    .prog = "clusterbench",
	    .usage = "[options]  (mpirun --hostfile FILE --map-by node --bind-to none ...)",
	    .summary = "Every ordered pair of nodes (TCP throughput, UDP loss, TCP round trips) "
		       "over netbench's code,\nor the same short suite points on every node; "
		       "one MPI rank per node.",
	    .opts = opts,
	    .nopts = sizeof opts / sizeof opts[0],
	    .common = &o->common,
	};
	int st = parse_silenced(&cli, argc, argv, rank);
	if (st != PEAK_OPTS_OK)
		return st;
	/* Found: --test takes only the table's names. */
	const struct cluster_test *t = cluster_test_find(tests, o->test);
	if (check(o, t, rank, nranks) != 0)
		return PEAK_OPTS_ERROR;
	settle(o, t);
	return PEAK_OPTS_OK;
}

static const struct cluster_main clusterbench = {
    .name = "clusterbench",
    .parse = parse,
    .tests = tests,
};

int main(int argc, char **argv)
{
	return cluster_run_main(argc, argv, &clusterbench);
}
