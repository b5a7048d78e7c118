/* The life of a clusterbench rank, whichever test it runs: MPI up, the options, this node
 * described and (for the tests between nodes that need it) serving netbench, every rank's
 * description exchanged, rank 0's context and rows, the checks before any test, the test,
 * and a bounded teardown. Every rank takes the same MPI collectives in the same order:
 * a rank that skipped or reordered one would leave the others waiting in it. */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster_main.h"
#include "cluster_share.h"
#include "cluster_transport.h"
#include "cluster_wait.h"
#include "net_server.h"
#include "peak_path.h"
#include "peak_sysinfo.h"

/* What a rank holds through the run; freed at its end. */
struct rank_state {
	struct cluster_opts o;
	const struct cluster_test *test;
	struct cluster_node self;
	struct cluster_node *nodes; /* every rank's, by rank */
	struct peak_sysinfo si;
	struct peak_context *mine;           /* this rank's block */
	struct peak_context *ctxs, *run_ctx; /* rank 0's: every node's block, the run's */
	struct net_server *srv;              /* NULL: the test needs none */
	pthread_t server_tid;
	uint8_t *shares; /* run.shares_cpus */
	struct cluster_run run;
};

const struct cluster_test *cluster_test_find(const struct cluster_test *tests, const char *name)
{
	for (const struct cluster_test *t = tests; t->name != NULL; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
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
			(void)peak_fmt(out, len, "%s", h); /* fits: the parse checked --names */
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
static void run_context(const struct cluster_opts *o, const struct cluster_test *t,
			const struct peak_context *nodes, int nranks, struct peak_context *ctx)
{
	*ctx = nodes[0];
	ctx->n = 0;
	for (size_t i = 0; i < nodes[0].n; i++)
		if (strcmp(nodes[0].kv[i].key, "host") != 0)
			ctx->kv[ctx->n++] = nodes[0].kv[i];
	peak_context_set_str(ctx, "cluster.test", o->test);
	if (t->schedule)
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
			snprintf(w, sizeof w, "nodes differ in %s (%.40s: %.80s; %.40s: %.80s)",
				 keys[k], peak_context_get(&nodes[0], "host"), a,
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
	const struct net_server_cfg scfg = {.bind_host = "0.0.0.0",
					    .port = (uint16_t)o->port,
					    .timeout_ms = o->cfg.timeout_ms,
					    .idle_ms = (uint32_t)(o->round_s * 1000.0) * 4u,
					    .max_sessions = (unsigned)nranks + 4u,
					    .quiet = true};
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

/* The test o names and the rank's buffers; the run every part works on points at them. */
static void start(struct rank_state *s, const struct cluster_main *m, int rank, int nranks)
{
	/* The parse let only the table's names through: a miss is a table out of step. */
	s->test = cluster_test_find(m->tests, s->o.test);
	if (s->test == NULL)
		cluster_fail(NULL, "--test: not in the table of tests");
	s->mine = malloc(sizeof *s->mine);
	s->ctxs = rank == 0 ? calloc((size_t)nranks, sizeof *s->ctxs) : NULL;
	s->run_ctx = rank == 0 ? malloc(sizeof *s->run_ctx) : NULL;
	s->nodes = calloc((size_t)nranks, sizeof *s->nodes);
	if (s->mine == NULL || s->nodes == NULL ||
	    (rank == 0 && (s->ctxs == NULL || s->run_ctx == NULL)))
		cluster_fail(NULL, "out of memory");
	s->run = (struct cluster_run){.o = &s->o,
				      .rank = rank,
				      .nranks = nranks,
				      .nodes = s->nodes,
				      .ctx = s->run_ctx,
				      .node_ctxs = s->ctxs};
}

/* This node described and serving (when its test needs it), then every rank's description
 * on every rank and every block on rank 0: the ports come with the descriptions, so the
 * server starts before they are exchanged. */
static void meet(struct rank_state *s)
{
	int rank = s->run.rank, nranks = s->run.nranks;
	describe_self(&s->o, rank, &s->self, &s->si, s->mine);
	cluster_guard_start(s->self.name);
	if (s->test->server)
		s->srv = start_server(&s->o, nranks, &s->self, &s->server_tid);
	MPI_Allgather(&s->self, (int)sizeof s->self, MPI_BYTE, s->nodes, (int)sizeof s->self,
		      MPI_BYTE, MPI_COMM_WORLD);
	if (unique_name(&s->self, s->nodes, rank, nranks, s->mine))
		MPI_Allgather(&s->self, (int)sizeof s->self, MPI_BYTE, s->nodes,
			      (int)sizeof s->self, MPI_BYTE, MPI_COMM_WORLD);
	cluster_gather(s->mine, (int)sizeof *s->mine, s->ctxs, 0, MPI_COMM_WORLD);
}

/* Rank 0: the run's context and the results file it goes into. */
static void open_rows(struct rank_state *s)
{
	if (s->run.rank != 0)
		return;
	run_context(&s->o, s->test, s->ctxs, s->run.nranks, s->run_ctx);
	s->run.rows = cluster_rows_open(s->o.common.format, s->o.common.output, s->run_ctx, s->ctxs,
					(size_t)s->run.nranks);
	if (s->run.rows == NULL)
		cluster_fail(NULL, "out of memory");
}

/* Ranks that share CPUs, then the transport MPI uses, named before any test
 * (docs/cluster.md, "Ranks that share CPUs", "The transport"). */
static void before_test(struct rank_state *s)
{
	cluster_watch(&s->run, 0, 1);
	s->shares = cluster_share_begin(&s->run);
	if (s->test->mpi)
		cluster_progress_watch_start(s->o.timeout_s);
	cluster_transport_probe(&s->run, s->o.ompi_info);
	cluster_watch(&s->run, 0, 0);
	cluster_flush(&s->run);
}

/* Every rank past its test, the server stopped, rank 0's rows written whole: the exit
 * code (1: they could not be, said in one line that starts with name). */
static int end_run(struct rank_state *s, const char *name)
{
	/* The teardown is bounded too: a hang here must not outlive the launcher. */
	cluster_watch(&s->run, 0, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	if (s->srv != NULL) {
		net_server_stop(s->srv);
		pthread_join(s->server_tid, NULL);
		net_server_destroy(s->srv);
	}
	int rc = 0;
	if (s->run.rank == 0) {
		char err[PEAK_MSG_MAX];
		(void)peak_sysinfo_finish(&s->si, s->run_ctx);
		if (cluster_rows_flush(s->run.rows, 1, err, sizeof err) != 0) {
			fprintf(stderr, "%s: %s\n", name, err);
			rc = 1;
		}
		cluster_rows_close(s->run.rows);
	}
	alarm(0);
	return rc;
}

int cluster_run_main(int argc, char **argv, const struct cluster_main *m)
{
	int rank = 0, nranks = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	struct rank_state s = {0};
	int st = m->parse(argc, argv, rank, nranks, &s.o);
	if (st != PEAK_OPTS_OK) {
		MPI_Finalize();
		return st == PEAK_OPTS_EXIT ? 0 : 2;
	}
	signal(SIGPIPE, SIG_IGN);
	start(&s, m, rank, nranks);
	meet(&s);
	open_rows(&s);
	before_test(&s);
	s.test->run(&s.run);
	int rc = end_run(&s, m->name);
	free(s.shares);
	free(s.nodes);
	free(s.run_ctx);
	free(s.ctxs);
	free(s.mine);
	MPI_Finalize();
	return rc;
}
