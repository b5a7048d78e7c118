/* clusterbench: every ordered pair of nodes measured over netbench's own TCP/UDP code, in
 * rounds MPI starts and gathers. MPI launches the ranks (one per node), exchanges the
 * server ports, synchronises the rounds and carries the results to rank 0; it never
 * carries the measured traffic. See docs/cluster.md. */
#include <getopt.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cluster_out.h"
#include "cluster_pair.h"
#include "cluster_sweep.h"
#include "cluster_wait.h"
#include "net_server.h"

/* ClusterKit's rule by default: a pair is an outlier when its latency p50 is over 2.1x the
 * cluster's smallest or its TCP throughput under 93% of the largest (docs/cluster.md);
 * --outlier-lat/--outlier-bw change it (CPU-bound virtual links vary more than NICs). */

struct opts {
	const char *test;     /* net_matrix | node_sweep */
	const char *schedule; /* shift | serial */
	const char *names;    /* hostfile: line i names rank i */
	const char *out;
	const char *bindir;   /* node_sweep: the suite's build dir */
	const char *dir;      /* node_sweep: diskbench's directory */
	struct cluster_cfg cfg;
	unsigned port;
	double lat_x, bw_frac; /* outlier rule */
	double round_s; /* watchdog: longest a round may take */
};

static int rank, nranks;
static struct cluster_node *nodes;
static volatile sig_atomic_t cur_round;
static char me_name[64];

static void usage_line(const char *msg)
{
	if (rank == 0) {
		fprintf(stderr, "clusterbench: %s (see --help)\n", msg);
		fflush(stderr);
	}
}

static void help(void)
{
	if (rank != 0)
		return;
	printf("usage: mpirun --hostfile FILE --map-by node build/cluster/clusterbench [options]\n"
	       "  --test net_matrix|node_sweep   what to run (net_matrix)\n"
	       "  --schedule shift|serial        net_matrix rounds (shift)\n"
	       "  --names FILE                   hostfile: its i-th host names rank i\n"
	       "  --out FILE                     results JSON written by rank 0 (cluster.json)\n"
	       "  --duration S                   each TCP/UDP repetition, seconds (1)\n"
	       "  --reps N                       TCP repetitions per pair (3)\n"
	       "  --latency-duration S           TCP round trips per pair, seconds (0.5)\n"
	       "  --udp-rate MBIT                UDP sender rate, Mbit/s (100)\n"
	       "  --port P                       every node's server port (0: any free port)\n"
	       "  --timeout S                    silence after which a pair counts as stalled (10)\n"
	       "  --outlier-lat X                latency p50 over X times the smallest (2.1)\n"
	       "  --outlier-bw F                 throughput under F of the largest (0.93)\n"
	       "  --bindir DIR                   node_sweep: the suite's build directory\n"
	       "  --dir DIR                      node_sweep: also run diskbench in DIR\n");
}

static int parse_num(const char *s, double lo, double hi, double *v)
{
	char *end;
	double x = strtod(s, &end);
	if (end == s || *end != '\0' || !(x >= lo && x <= hi))
		return -1;
	*v = x;
	return 0;
}

/* 0 ok, 1 help, 2 bad input (rank 0 printed one line). */
static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
	    {"test", 1, 0, 't'},     {"schedule", 1, 0, 's'},        {"names", 1, 0, 'n'},
	    {"out", 1, 0, 'o'},      {"duration", 1, 0, 'd'},        {"reps", 1, 0, 'r'},
	    {"latency-duration", 1, 0, 'l'}, {"udp-rate", 1, 0, 'u'}, {"port", 1, 0, 'p'},
	    {"timeout", 1, 0, 'T'},  {"bindir", 1, 0, 'b'},          {"dir", 1, 0, 'D'},
	    {"outlier-lat", 1, 0, 'L'}, {"outlier-bw", 1, 0, 'B'},
	    {"help", 0, 0, 'h'},     {0, 0, 0, 0}};
	o->lat_x = 2.1;
	o->bw_frac = 0.93;
	o->test = "net_matrix";
	o->schedule = "shift";
	o->out = "cluster.json";
	o->cfg = (struct cluster_cfg){.duration_s = 1.0, .reps = 3, .lat_s = 0.5,
				      .udp_bps = 100000000ull, .tcp_block = 131072,
				      .udp_dgram = 1400, .lat_block = 64, .timeout_ms = 10000};
	opterr = 0;
	int c;
	double v;
	char msg[160];
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 't': o->test = optarg; break;
		case 's': o->schedule = optarg; break;
		case 'n': o->names = optarg; break;
		case 'o': o->out = optarg; break;
		case 'b': o->bindir = optarg; break;
		case 'D': o->dir = optarg; break;
		case 'h': help(); return 1;
		case 'd': case 'r': case 'l': case 'u': case 'p': case 'T': case 'L': case 'B': {
			static const struct { int c; double lo, hi; const char *name; } lim[] = {
			    {'d', 0.01, 3600, "--duration"}, {'r', 1, CLUSTER_MAX_REPS, "--reps"},
			    {'l', 0.01, 3600, "--latency-duration"}, {'u', 0.001, 400000, "--udp-rate"},
			    {'p', 0, 65535, "--port"}, {'T', 0.1, 600, "--timeout"},
			    {'L', 1, 1000, "--outlier-lat"}, {'B', 0, 1, "--outlier-bw"}};
			size_t k = 0;
			while (lim[k].c != c)
				k++;
			if (parse_num(optarg, lim[k].lo, lim[k].hi, &v) != 0) {
				snprintf(msg, sizeof msg, "%s wants a number in %g..%g, got '%s'",
					 lim[k].name, lim[k].lo, lim[k].hi, optarg);
				usage_line(msg);
				return 2;
			}
			if (c == 'd') o->cfg.duration_s = v;
			if (c == 'r') o->cfg.reps = (unsigned)v;
			if (c == 'l') o->cfg.lat_s = v;
			if (c == 'u') o->cfg.udp_bps = (uint64_t)(v * 1e6);
			if (c == 'p') o->port = (unsigned)v;
			if (c == 'T') o->cfg.timeout_ms = (uint32_t)(v * 1000.0);
			if (c == 'L') o->lat_x = v;
			if (c == 'B') o->bw_frac = v;
			break;
		}
		default:
			snprintf(msg, sizeof msg, "unknown or incomplete option '%s'",
				 argv[optind - 1]);
			usage_line(msg);
			return 2;
		}
	}
	if (optind < argc) {
		snprintf(msg, sizeof msg, "unexpected argument '%s'", argv[optind]);
		usage_line(msg);
		return 2;
	}
	if (strcmp(o->test, "net_matrix") != 0 && strcmp(o->test, "node_sweep") != 0) {
		snprintf(msg, sizeof msg, "--test wants net_matrix or node_sweep, got '%s'", o->test);
		usage_line(msg);
		return 2;
	}
	if (strcmp(o->schedule, "shift") != 0 && strcmp(o->schedule, "serial") != 0) {
		snprintf(msg, sizeof msg, "--schedule wants shift or serial, got '%s'", o->schedule);
		usage_line(msg);
		return 2;
	}
	/* A round moves reps+1/8 throughput runs, a UDP run and the latency run, then waits
	 * on timeouts at worst: beyond that the round has stalled. */
	o->round_s = o->cfg.duration_s * (o->cfg.reps + 2.0) + o->cfg.lat_s +
		     4.0 * o->cfg.timeout_ms / 1000.0 + 30.0;
	return 0;
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
		char *h = strtok(line, " \t\r\n");
		if (h == NULL || h[0] == '#')
			continue;
		if (i++ == index) {
			snprintf(out, len, "%s", h);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/* Bounded copy that cuts long text (names, kernel releases) on purpose. */
static void copy_cut(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void describe_self(const struct opts *o, struct cluster_node *n)
{
	memset(n, 0, sizeof *n);
	if (o->names == NULL || name_from_hostfile(o->names, rank, n->name, sizeof n->name) != 0) {
		int len = 0;
		char pn[MPI_MAX_PROCESSOR_NAME];
		MPI_Get_processor_name(pn, &len);
		copy_cut(n->name, sizeof n->name, pn);
	}
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		char *colon = strchr(line, ':');
		if (colon == NULL)
			continue;
		char *v = colon + 2 <= line + strlen(line) ? colon + 2 : colon + 1;
		v[strcspn(v, "\n")] = '\0';
		if (n->cpu[0] == '\0' && strncmp(line, "model name", 10) == 0)
			snprintf(n->cpu, sizeof n->cpu, "%s", v);
		if (n->flags[0] == '\0' && strncmp(line, "flags", 5) == 0) {
			snprintf(n->flags, sizeof n->flags, "%s%s",
				 strstr(v, " avx2") ? "avx2" : "",
				 strstr(v, " avx512f") ? " avx512f" : "");
			if (n->flags[0] == '\0')
				snprintf(n->flags, sizeof n->flags, "none");
		}
	}
	if (f != NULL)
		fclose(f);
	struct utsname u;
	if (uname(&u) == 0)
		copy_cut(n->kernel, sizeof n->kernel, u.release);
	n->cpus = (int32_t)sysconf(_SC_NPROCESSORS_ONLN);
}

/* A stalled round (a peer that stopped answering inside MPI, a hung kernel call): one
 * line naming this host and the round, then the whole job ends (mpirun kills the rest). */
static void on_alarm(int sig)
{
	(void)sig;
	char line[160];
	int len = cur_round > 0 ? snprintf(line, sizeof line,
					   "clusterbench: %s: round %d stalled, ending the job\n",
					   me_name, (int)cur_round)
				: snprintf(line, sizeof line,
					   "clusterbench: %s: stalled after the last round, ending the job\n",
					   me_name);
	if (len > 0)
		(void)!write(2, line, (size_t)len);
	_exit(1);
}

static void *server_thread(void *arg)
{
	(void)net_server_run(arg, -1);
	return NULL;
}

static void fail(struct cluster_out *out, const char *msg)
{
	fprintf(stderr, "clusterbench: %s\n", msg);
	fflush(stderr);
	if (out != NULL)
		(void)cluster_out_flush(out);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static void add_pair_rows(struct cluster_out *out, const struct cluster_pair *p,
			  const struct opts *o, const char *extra)
{
	char fl[200];
	snprintf(fl, sizeof fl, "schedule=%s%s", o->schedule, extra);
	struct cluster_row r = {.test = "net_matrix", .variant = "tcp", .metric = "throughput",
				.unit = "Gbit/s", .threads = 1, .block_bytes = o->cfg.tcp_block,
				.samples = p->tcp_gbps, .n = p->reps,
				.host = nodes[p->host].name, .peer = nodes[p->peer].name};
	snprintf(r.flags, sizeof r.flags, "%s", fl);
	(void)cluster_out_add(out, &r);
	struct cluster_row u = r;
	u.variant = "udp";
	u.metric = "loss";
	u.unit = "%";
	u.block_bytes = o->cfg.udp_dgram;
	u.samples = &p->udp_loss_pct;
	u.n = 1;
	snprintf(u.flags, sizeof u.flags, "%s;rate_mbit=%g;sent=%llu;lost=%llu", fl,
		 (double)o->cfg.udp_bps / 1e6, (unsigned long long)p->udp_sent,
		 (unsigned long long)p->udp_lost);
	(void)cluster_out_add(out, &u);
	struct cluster_row l = r;
	l.metric = "latency";
	l.unit = "us";
	l.block_bytes = o->cfg.lat_block;
	l.samples = &p->lat_us[0]; /* p50: the row's one summary; its min/max are exact */
	l.n = 1;
	l.pct = p->lat_us;
	l.minmax = &p->lat_us[4];
	snprintf(l.flags, sizeof l.flags, "%s;round_trips=%llu", fl,
		 (unsigned long long)p->lat_n);
	(void)cluster_out_add(out, &l);
}

/* One round: the ranks with a target measure it, rank 0 gathers, writes, or ends the job
 * naming the failed pair. all[] (rank 0) receives every rank's struct. */
static void run_round(const struct opts *o, int round, int target, struct cluster_out *out,
		      struct cluster_pair *all, struct cluster_pair *keep, size_t *nkeep,
		      const char *extra)
{
	struct cluster_pair mine;
	memset(&mine, 0, sizeof mine);
	mine.host = rank;
	mine.peer = target;
	cur_round = round;
	alarm((unsigned)o->round_s);
	cluster_barrier(MPI_COMM_WORLD);
	if (target >= 0 &&
	    cluster_pair_run(&o->cfg, nodes[target].name, nodes[target].port, &mine) != 0) {
		/* Said here, not after the gather: a stalled peer would never reach it. The
		 * completed rounds are already on rank 0's disk. */
		char msg[400];
		snprintf(msg, sizeof msg, "round %d: %s -> %s failed: %s", round, nodes[rank].name,
			 nodes[target].name, mine.err);
		fail(NULL, msg);
	}
	cluster_gather(&mine, (int)sizeof mine, all, 0, MPI_COMM_WORLD);
	alarm(0);
	if (rank != 0)
		return;
	for (int i = 0; i < nranks; i++) {
		const struct cluster_pair *p = &all[i];
		if (p->peer < 0)
			continue;
		if (!p->ok) {
			char msg[400];
			snprintf(msg, sizeof msg, "round %d: %s -> %s failed: %s", round,
				 nodes[p->host].name, nodes[p->peer].name, p->err);
			fail(out, msg);
		}
		add_pair_rows(out, p, o, extra);
		if (keep != NULL)
			keep[(*nkeep)++] = *p;
	}
	if (cluster_out_flush(out) != 0) {
		char msg[300];
		snprintf(msg, sizeof msg, "cannot write %s", o->out);
		fail(out, msg);
	}
}

static void mark(struct cluster_out *out, const struct cluster_pair *p, const char *metric,
		 const char *flag)
{
	cluster_out_flag(out, "net_matrix", metric, nodes[p->host].name, nodes[p->peer].name, flag);
}

/* Outliers against the first pass's best figures; each re-measured once, alone; the
 * re-measurement is what is reported (the first figure stays in a flag). */
static void outliers(const struct opts *o, struct cluster_out *out, struct cluster_pair *pairs,
		     size_t npairs, struct cluster_pair *all, int *round)
{
	double lat_min = 1e300, bw_max = 0;
	int32_t list[2 * 4096];
	int32_t nlist = 0;
	if (rank == 0) {
		for (size_t i = 0; i < npairs; i++) {
			double bw = cluster_pair_tcp_median(&pairs[i]);
			if (bw > bw_max)
				bw_max = bw;
			if (pairs[i].lat_us[0] < lat_min)
				lat_min = pairs[i].lat_us[0];
		}
		for (size_t i = 0; i < npairs && nlist < 4096; i++)
			if (cluster_pair_tcp_median(&pairs[i]) < o->bw_frac * bw_max ||
			    pairs[i].lat_us[0] > o->lat_x * lat_min) {
				list[2 * nlist] = pairs[i].host;
				list[2 * nlist + 1] = pairs[i].peer;
				nlist++;
			}
	}
	cluster_bcast(&nlist, 1, MPI_INT32_T, 0, MPI_COMM_WORLD);
	cluster_bcast(list, 2 * nlist, MPI_INT32_T, 0, MPI_COMM_WORLD);
	for (int32_t k = 0; k < nlist; k++) {
		int h = list[2 * k], t = list[2 * k + 1];
		char first[96] = "";
		if (rank == 0) {
			for (size_t i = 0; i < npairs; i++)
				if (pairs[i].host == h && pairs[i].peer == t)
					snprintf(first, sizeof first,
						 ";remeasured;first_gbps=%.4g;first_p50_us=%.4g",
						 cluster_pair_tcp_median(&pairs[i]), pairs[i].lat_us[0]);
			cluster_out_drop(out, "net_matrix", nodes[h].name, nodes[t].name);
		}
		struct cluster_pair again[1];
		size_t n1 = 0;
		++*round;
		run_round(o, *round, rank == h ? t : -1, out, all, again, &n1, first);
		if (rank != 0 || n1 != 1)
			continue;
		double bw = cluster_pair_tcp_median(&again[0]);
		if (bw < o->bw_frac * bw_max)
			mark(out, &again[0], "throughput", "outlier=bandwidth");
		if (again[0].lat_us[0] > o->lat_x * lat_min)
			mark(out, &again[0], "latency", "outlier=latency");
		(void)cluster_out_flush(out);
	}
}

static void net_matrix(const struct opts *o, struct cluster_out *out)
{
	size_t npairs = 0, cap = (size_t)nranks * (size_t)(nranks - 1);
	struct cluster_pair *pairs = rank == 0 ? calloc(cap, sizeof *pairs) : NULL;
	struct cluster_pair *all = rank == 0 ? calloc((size_t)nranks, sizeof *all) : NULL;
	if (rank == 0 && (pairs == NULL || all == NULL))
		fail(out, "out of memory");
	int round = 0;
	char extra[64];
	if (strcmp(o->schedule, "shift") == 0) {
		/* mpiGraph's rounds: everyone sends to node+d and receives from node-d at once. */
		for (int d = 1; d < nranks; d++) {
			snprintf(extra, sizeof extra, ";round=%d", d);
			run_round(o, ++round, (rank + d) % nranks, out, all, pairs, &npairs, extra);
		}
	} else {
		for (int s = 0; s < nranks; s++)
			for (int t = 0; t < nranks; t++) {
				if (s == t)
					continue;
				snprintf(extra, sizeof extra, ";round=%d", round + 1);
				run_round(o, ++round, rank == s ? t : -1, out, all, pairs, &npairs,
					  extra);
			}
	}
	outliers(o, out, pairs, npairs, all, &round);
	free(pairs);
	free(all);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	struct opts o;
	memset(&o, 0, sizeof o);
	int prc = parse(argc, argv, &o);
	if (prc == 0 && strcmp(o.test, "net_matrix") == 0 && nranks < 2) {
		usage_line("net_matrix needs at least 2 ranks, one per node (mpirun -np N)");
		prc = 2;
	}
	if (prc != 0) {
		MPI_Finalize();
		return prc == 1 ? 0 : 2;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, on_alarm);
	nodes = calloc((size_t)nranks, sizeof *nodes);
	struct cluster_node self;
	describe_self(&o, &self);
	snprintf(me_name, sizeof me_name, "%s", self.name);

	/* Every node serves while others measure it; any address, so a hostfile name works. */
	struct net_server *srv = NULL;
	pthread_t tid;
	if (strcmp(o.test, "net_matrix") == 0) {
		char err[256];
		const struct net_server_cfg scfg = {.bind_host = "0.0.0.0", .port = (uint16_t)o.port,
						    .timeout_ms = o.cfg.timeout_ms,
						    .idle_ms = (uint32_t)(o.round_s * 1000.0) * 4u,
						    .max_sessions = (unsigned)nranks + 4u, .quiet = true};
		srv = net_server_start(&scfg, err, sizeof err);
		if (srv == NULL) {
			char msg[400];
			snprintf(msg, sizeof msg, "%s: cannot start the server: %s", self.name, err);
			fail(NULL, msg);
		}
		self.port = net_server_port(srv);
		if (pthread_create(&tid, NULL, server_thread, srv) != 0)
			fail(NULL, "cannot start the server thread");
	}
	MPI_Allgather(&self, (int)sizeof self, MPI_BYTE, nodes, (int)sizeof self, MPI_BYTE,
		      MPI_COMM_WORLD);
	struct cluster_out *out = NULL;
	if (rank == 0) {
		out = cluster_out_open(o.out, nodes, nranks);
		if (out == NULL || cluster_out_flush(out) != 0) {
			char msg[300];
			snprintf(msg, sizeof msg, "cannot write %s", o.out);
			fail(out, msg);
		}
	}
	if (strcmp(o.test, "net_matrix") == 0)
		net_matrix(&o, out);
	else
		cluster_sweep(&o.cfg, o.bindir, o.dir, rank, nranks, nodes, out, o.round_s);
	/* The teardown is bounded too: a hang here must not outlive the launcher. */
	cur_round = 0;
	alarm((unsigned)o.round_s);
	MPI_Barrier(MPI_COMM_WORLD);
	if (srv != NULL) {
		net_server_stop(srv);
		pthread_join(tid, NULL);
		net_server_destroy(srv);
	}
	if (rank == 0) {
		(void)cluster_out_flush(out);
		cluster_out_close(out);
	}
	free(nodes);
	MPI_Finalize();
	return 0;
}
