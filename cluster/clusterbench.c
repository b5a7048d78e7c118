/* clusterbench: every ordered pair of nodes measured over netbench's own TCP/UDP code, in
 * rounds MPI starts and gathers, and the same short suite points on every node. MPI
 * launches the ranks (one per node), exchanges the server ports, synchronises the rounds
 * and carries the results to rank 0; it never carries the measured traffic. Options,
 * machine facts and output are libpeak's (peak_opts, peak_sysinfo, peak_report). See
 * docs/cluster.md. */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "cluster_mpi.h"
#include "cluster_mpi_p2p.h"
#include "cluster_share.h"
#include "cluster_transport.h"
#include "cluster_wait.h"
#include "net_server.h"
#include "peak_path.h"
#include "peak_sysinfo.h"

static const char *const tests[] = {"net_matrix", "node_sweep", "mpi_p2p", "mpi_coll", NULL};
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

/* PEAK_OPTS_OK, _EXIT (--help) or _ERROR (rank 0 printed one line). */
static int parse(int argc, char **argv, int rank, int nranks, struct cluster_opts *o)
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
	const struct peak_opt opts[] = {
	    {"test", "TEST",
	     "net_matrix (every ordered pair), node_sweep, mpi_p2p or mpi_coll (net_matrix)",
	     PEAK_OPT_CHOICE, &o->test, 0, 0, tests, NULL},
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
	uint64_t most = peak_opts_max_reps(&o->common);
	if (most > CLUSTER_MAX_REPS) {
		char msg[120];
		snprintf(msg, sizeof msg, "--reps/--max-reps: at most %u repetitions a pair, not %llu",
			 CLUSTER_MAX_REPS, (unsigned long long)most);
		say(rank, msg);
		return PEAK_OPTS_ERROR;
	}
	char why[PEAK_MSG_MAX];
	if (o->names != NULL && hostfile_check(o->names, why, sizeof why) != 0) {
		say(rank, why);
		return PEAK_OPTS_ERROR;
	}
	if (o->ompi_info != NULL && access(o->ompi_info, R_OK) != 0) {
		(void)peak_fmt(why, sizeof why, "--ompi-info: cannot read %s: %s", o->ompi_info,
			       strerror(errno));
		say(rank, why);
		return PEAK_OPTS_ERROR;
	}
	if (strcmp(o->test, "node_sweep") != 0 && nranks < 2) {
		char msg[96];
		snprintf(msg, sizeof msg, "%s needs at least 2 ranks, one per node (mpirun -np N)",
			 o->test);
		say(rank, msg);
		return PEAK_OPTS_ERROR;
	}
	if (o->pairs != NULL && cluster_p2p_pairs_parse(o->pairs, nranks, why, sizeof why) != 0) {
		say(rank, why);
		return PEAK_OPTS_ERROR;
	}
	if (o->sizes.n == 0) /* OSU's sweep: 1 B to 4 MiB in powers of two */
		for (uint64_t b = 1; b <= CLUSTER_MPI_MAX_BYTES; b *= 2)
			o->sizes.v[o->sizes.n++] = b;
	int mpi = strncmp(o->test, "mpi_", 4) == 0;
	/* An MPI run is many short points (23 sizes x 4 tests x every pair with the defaults):
	 * a tenth of a second a repetition keeps the whole sweep within minutes on any link. */
	if (!(o->common.min_time_s > 0))
		o->common.min_time_s = mpi ? CLUSTER_MPI_MIN_TIME_S : 1.0;
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
	if (mpi)
		o->round_s += 3.0 * (double)o->sizes.n * ((double)most + 1.0) *
			      (o->common.min_time_s + o->timeout_s);
	return PEAK_OPTS_OK;
}

/* The i-th host of a hostfile ("name slots=1", comments, blank lines). */
static int name_from_hostfile(const char *path, int index, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	char line[512];
	int i = 0, rc = -1;
	while (fgets(line, sizeof line, f) != NULL) {
		char *save = NULL, *h = strtok_r(line, " \t\r\n", &save);
		if (h == NULL || h[0] == '#')
			continue;
		if (i++ == index) {
			(void)peak_fmt(out, len, "%s", h); /* fits: hostfile_check */
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/* This rank's name, its context block (libpeak's sysinfo, "host" first) and ISA. */
static void describe_self(const struct cluster_opts *o, int rank, struct cluster_node *n,
			  struct peak_sysinfo *si, struct peak_context *ctx)
{
	memset(n, 0, sizeof *n);
	if (o->names == NULL || name_from_hostfile(o->names, rank, n->name, sizeof n->name) != 0) {
		int len = 0;
		char pn[MPI_MAX_PROCESSOR_NAME];
		MPI_Get_processor_name(pn, &len);
		snprintf(n->name, sizeof n->name, "%.63s", pn);
	}
	peak_sysinfo_collect(si, "");
	peak_context_init(ctx);
	peak_context_set_str(ctx, "host", n->name);
	peak_sysinfo_to_context(si, ctx);
	n->avx2 = si->isa.avx2;
	n->avx512f = si->isa.avx512f;
}

/* Rank 0's run context: its own block (as every binary writes), the run's settings, and a
 * warning where nodes differ in CPU model, kernel or ISA. */
static void run_context(const struct cluster_opts *o, const struct peak_context *nodes,
			int nranks, struct peak_context *ctx)
{
	*ctx = nodes[0];
	ctx->n = 0;
	for (size_t i = 0; i < nodes[0].n; i++)
		if (strcmp(nodes[0].kv[i].key, "host") != 0)
			ctx->kv[ctx->n++] = nodes[0].kv[i];
	peak_context_set_str(ctx, "cluster.test", o->test);
	if (strcmp(o->test, "net_matrix") == 0)
		peak_context_set_str(ctx, "cluster.schedule", o->schedule);
	peak_context_set_num(ctx, "cluster.nodes", nranks);
	peak_context_set_str(ctx, "cluster.names", o->names ? o->names : "MPI processor names");
	static const char *const keys[] = {"cpu.model", "os.kernel", "cpu.isa"};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		const char *a = peak_context_get(&nodes[0], keys[k]);
		for (int i = 1; i < nranks; i++) {
			const char *b = peak_context_get(&nodes[i], keys[k]);
			if (a == NULL || b == NULL || strcmp(a, b) == 0)
				continue;
			char w[PEAK_CONTEXT_VALUE_LEN];
			snprintf(w, sizeof w, "nodes differ in %s (%.40s: %.80s; %.40s: %.80s)", keys[k],
				 peak_context_get(&nodes[0], "host"), a,
				 peak_context_get(&nodes[i], "host"), b);
			peak_context_warn(ctx, w);
			break;
		}
	}
}

/* Ranks that share a host name (several on one node: mpi_p2p on one machine) are told
 * apart as NAME/RANK, in their rows and node contexts alike. 1 when any rank renamed
 * (every rank computes the same answer from the same table). */
static int unique_name(struct cluster_node *self, const struct cluster_node *nodes, int rank,
		       int nranks, struct peak_context *mine)
{
	int any = 0, me = 0;
	for (int i = 0; i < nranks; i++)
		for (int j = 0; j < nranks; j++)
			if (i != j && strcmp(nodes[i].name, nodes[j].name) == 0) {
				any = 1;
				me |= i == rank;
			}
	if (me) {
		char name[sizeof self->name];
		snprintf(name, sizeof name, "%.50s/%d", nodes[rank].name, rank);
		memcpy(self->name, name, sizeof name);
		peak_context_set_str(mine, "host", self->name);
	}
	return any;
}

static void *server_thread(void *arg)
{
	(void)net_server_run(arg, -1);
	return NULL;
}

/* Every node serves while others measure it; any address, so a hostfile name works. */
static struct net_server *start_server(const struct cluster_opts *o, int nranks,
				       struct cluster_node *self, pthread_t *tid)
{
	char err[256];
	const struct net_server_cfg scfg = {.bind_host = "0.0.0.0", .port = (uint16_t)o->port,
					    .timeout_ms = o->cfg.timeout_ms,
					    .idle_ms = (uint32_t)(o->round_s * 1000.0) * 4u,
					    .max_sessions = (unsigned)nranks + 4u, .quiet = true};
	struct net_server *srv = net_server_start(&scfg, err, sizeof err);
	if (srv == NULL) {
		char msg[400];
		snprintf(msg, sizeof msg, "%s: cannot start the server: %s", self->name, err);
		cluster_fail(NULL, msg);
	}
	self->port = net_server_port(srv);
	if (pthread_create(tid, NULL, server_thread, srv) != 0)
		cluster_fail(NULL, "cannot start the server thread");
	return srv;
}

int main(int argc, char **argv)
{
	int rank = 0, nranks = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	struct cluster_opts o;
	int st = parse(argc, argv, rank, nranks, &o);
	if (st != PEAK_OPTS_OK) {
		MPI_Finalize();
		return st == PEAK_OPTS_EXIT ? 0 : 2;
	}
	signal(SIGPIPE, SIG_IGN);
	struct cluster_node self;
	struct peak_sysinfo si;
	struct peak_context *mine = malloc(sizeof *mine);
	struct peak_context *ctxs = rank == 0 ? calloc((size_t)nranks, sizeof *ctxs) : NULL;
	struct peak_context *run_ctx = rank == 0 ? malloc(sizeof *run_ctx) : NULL;
	struct cluster_node *nodes = calloc((size_t)nranks, sizeof *nodes);
	if (mine == NULL || nodes == NULL || (rank == 0 && (ctxs == NULL || run_ctx == NULL)))
		cluster_fail(NULL, "out of memory");
	describe_self(&o, rank, &self, &si, mine);
	cluster_guard_start(self.name);

	struct net_server *srv = NULL;
	pthread_t tid;
	if (strcmp(o.test, "net_matrix") == 0 || strcmp(o.test, "mpi_p2p") == 0)
		srv = start_server(&o, nranks, &self, &tid);
	MPI_Allgather(&self, (int)sizeof self, MPI_BYTE, nodes, (int)sizeof self, MPI_BYTE,
		      MPI_COMM_WORLD);
	if (unique_name(&self, nodes, rank, nranks, mine))
		MPI_Allgather(&self, (int)sizeof self, MPI_BYTE, nodes, (int)sizeof self, MPI_BYTE,
			      MPI_COMM_WORLD);
	cluster_gather(mine, (int)sizeof *mine, ctxs, 0, MPI_COMM_WORLD);
	struct cluster_run run = {.o = &o, .rank = rank, .nranks = nranks, .nodes = nodes,
				  .ctx = run_ctx, .node_ctxs = ctxs};
	if (rank == 0) {
		run_context(&o, ctxs, nranks, run_ctx);
		run.rows = cluster_rows_open(o.common.format, o.common.output, run_ctx, ctxs,
					     (size_t)nranks);
		if (run.rows == NULL)
			cluster_fail(NULL, "out of memory");
	}
	/* Ranks that share CPUs, then the transport MPI uses, named before any test
	 * (docs/cluster.md, "Ranks that share CPUs", "The transport"). */
	cluster_watch(&run, 0, 1);
	uint8_t *shares = cluster_share_begin(&run);
	if (strncmp(o.test, "mpi_", 4) == 0)
		cluster_progress_watch_start(o.timeout_s);
	cluster_transport_probe(&run, o.ompi_info);
	cluster_watch(&run, 0, 0);
	cluster_flush(&run);
	if (strcmp(o.test, "net_matrix") == 0)
		cluster_net_matrix(&run);
	else if (strcmp(o.test, "mpi_p2p") == 0)
		cluster_mpi_p2p(&run);
	else if (strcmp(o.test, "mpi_coll") == 0)
		cluster_mpi_coll(&run);
	else
		cluster_sweep(&run);
	/* The teardown is bounded too: a hang here must not outlive the launcher. */
	cluster_watch(&run, 0, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	if (srv != NULL) {
		net_server_stop(srv);
		pthread_join(tid, NULL);
		net_server_destroy(srv);
	}
	int rc = 0;
	if (rank == 0) {
		char err[PEAK_MSG_MAX];
		(void)peak_sysinfo_finish(&si, run_ctx);
		if (cluster_rows_flush(run.rows, 1, err, sizeof err) != 0) {
			fprintf(stderr, "clusterbench: %s\n", err);
			rc = 1;
		}
		cluster_rows_close(run.rows);
	}
	alarm(0);
	free(shares);
	free(nodes);
	free(run_ctx);
	free(ctxs);
	free(mine);
	MPI_Finalize();
	return rc;
}
