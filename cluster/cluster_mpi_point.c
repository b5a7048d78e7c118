/* What mpi_p2p and mpi_coll share: OSU's iteration counts, the per-iteration times and
 * their percentiles, the stopping rule, the row, and the bounds the physics flags use. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <math.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cluster_mpi.h"
#include "peak_peak.h"
#include "peak_stats.h"
#include "peak_sysinfo.h"

/* OSU Micro-Benchmarks' defaults (osu_util.h, OMB 5.x-7.x): latency 10000 iterations
 * after 100 warm-up up to 8 KiB, 1000 after 10 above; bandwidth (osu_bw, osu_bibw,
 * osu_mbw_mr) 100 after 10, and 20 after 2. */
void cluster_mpi_iters(const struct cluster_opts *o, enum cluster_mpi_kind kind, uint64_t bytes,
		       unsigned *warmup, unsigned *iters)
{
	int large = bytes > CLUSTER_MPI_LARGE_BYTES;
	if (kind == CLUSTER_MPI_LATENCY) {
		*iters = large ? 1000 : 10000;
		*warmup = large ? 10 : 100;
	} else {
		*iters = large ? 20 : 100;
		*warmup = large ? 2 : 10;
	}
	/* The warm-up stays OSU's: a TCP connection's first messages took ~10 ms each behind
	 * a tbf-shaped link (3 warm-up iterations left 8 B at 9 ms, 100 at 9.5 us). */
	if (o->max_iters > 0 && *iters > o->max_iters)
		*iters = (unsigned)o->max_iters;
}

void cluster_mpi_pace_start(struct cluster_mpi_pace *p, double min_s, unsigned most, double now)
{
	*p = (struct cluster_mpi_pace){.t0 = now, .min_s = min_s, .most = most};
}

unsigned cluster_mpi_pace_next(struct cluster_mpi_pace *p, double now)
{
	double spent = now - p->t0;
	if (p->done >= p->most || (p->done > 0 && spent >= p->min_s))
		return 0;
	unsigned next = 1;
	if (p->done > 0) {
		double mean = spent / p->done;
		double fit = mean > 0 ? ceil((p->min_s - spent) / mean) : (double)p->most;
		next = p->done;
		if (fit < (double)next)
			next = fit < 1 ? 1 : (unsigned)fit;
	}
	if (next > p->most - p->done)
		next = p->most - p->done;
	p->done += next;
	return next;
}

unsigned cluster_mpi_window_next(const struct cluster_opts *o, unsigned w, double t_s)
{
	unsigned most = (unsigned)o->window;
	if (w >= most || !(t_s <= o->common.min_time_s / 8.0))
		return w < most ? w : most;
	return 2 * w < most ? 2 * w : most;
}

int cluster_mpi_times_add(struct cluster_mpi_times *tm, const double *t, size_t n)
{
	if (tm->n + n > tm->cap) {
		size_t cap = tm->cap ? tm->cap : 1024;
		while (cap < tm->n + n)
			cap *= 2;
		double *more = realloc(tm->t, cap * sizeof *more);
		if (more == NULL)
			return -1;
		tm->t = more;
		tm->cap = cap;
	}
	memcpy(tm->t + tm->n, t, n * sizeof *t);
	tm->n += n;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double cluster_mpi_times_pct(struct cluster_mpi_times *tm, double pct)
{
	qsort(tm->t, tm->n, sizeof *tm->t, cmp_double);
	return peak_stats_percentile_sorted(tm->t, tm->n, pct);
}

int cluster_mpi_enough(const struct cluster_opts *o, const struct cluster_mpi_point *p)
{
	size_t most = o->cfg.max_reps < CLUSTER_ROW_SAMPLES ? o->cfg.max_reps : CLUSTER_ROW_SAMPLES;
	return p->nsamples >= most ||
	       peak_stats_enough(p->samples, p->nsamples, o->cfg.reps, most, o->cfg.ci_pct);
}

int cluster_mpi_more(const struct cluster_opts *o, struct cluster_mpi_point *p, double spent_s)
{
	if (cluster_mpi_enough(o, p))
		return 0;
	double budget = o->common.point_budget_s;
	if (budget > 0 && p->nsamples >= o->cfg.reps && spent_s + spent_s / p->nsamples > budget) {
		p->budget_stopped = 1;
		return 0;
	}
	return 1;
}

void cluster_mpi_ci(const struct cluster_opts *o, struct cluster_mpi_point *p)
{
	double width = peak_stats_ci_width_pct(p->samples, p->nsamples);
	p->ci_wide_pct = o->cfg.ci_pct > 0 && width > o->cfg.ci_pct ? width : 0.0;
}

void cluster_mpi_row(struct peak_result *r, const char *test, const char *metric, const char *unit,
		     const struct cluster_mpi_point *p, const char *host, const char *peer)
{
	peak_result_init(r, "cluster", test, "mpi", metric, unit);
	r->threads = 1;
	r->block_bytes = p->bytes;
	r->has_block = true;
	snprintf(r->host, sizeof r->host, "%s", host);
	snprintf(r->peer, sizeof r->peer, "%s", peer);
	peak_result_set_samples(r, p->samples, p->nsamples);
	r->p50 = p->p50;
	r->p99 = p->p99;
	char item[48];
	snprintf(item, sizeof item, "iterations=%u", p->iters);
	peak_result_flag(r, item);
	if (p->ci_wide_pct > 0)
		peak_result_flag_pct(r, "ci_wide", p->ci_wide_pct, true);
	if (p->budget_stopped)
		peak_result_flag(r, "budget_stopped");
}

/* The local address the kernel would send to host from (a UDP connect sends nothing). */
static int local_addr_to(const char *host, struct sockaddr_storage *local)
{
	struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *res = NULL;
	if (getaddrinfo(host, "9", &hints, &res) != 0 || res == NULL)
		return -1;
	int rc = -1, fd = socket(res->ai_family, SOCK_DGRAM, 0);
	socklen_t len = sizeof *local;
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
	    getsockname(fd, (struct sockaddr *)local, &len) == 0)
		rc = 0;
	if (fd >= 0)
		close(fd);
	freeaddrinfo(res);
	return rc;
}

static int same_addr(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	if (a == NULL || a->sa_family != b->ss_family)
		return 0;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
	return 0;
}

/* The interface holding this node's source address toward host. */
static int iface_to(const char *host, char *ifname, size_t len)
{
	struct sockaddr_storage local;
	struct ifaddrs *ifs = NULL;
	if (local_addr_to(host, &local) != 0 || getifaddrs(&ifs) != 0)
		return -1;
	int rc = -1;
	for (struct ifaddrs *i = ifs; i != NULL; i = i->ifa_next)
		if (same_addr(i->ifa_addr, &local)) {
			snprintf(ifname, len, "%s", i->ifa_name);
			rc = 0;
			break;
		}
	freeifaddrs(ifs);
	return rc;
}

double cluster_mpi_link_gbps(const char *host, char *where, size_t len)
{
	struct peak_config cfg;
	char err[PEAK_MSG_MAX];
	double gbps = 0;
	peak_config_init(&cfg);
	if (peak_config_load_default(&cfg, err, sizeof err) == 0 &&
	    peak_config_get(&cfg, "net.gbps", &gbps) && gbps > 0) {
		snprintf(where, len, "peaks.conf net.gbps");
		return gbps;
	}
	char ifname[IF_NAMESIZE + 1], path[96], buf[32];
	if (iface_to(host, ifname, sizeof ifname) != 0) {
		snprintf(where, len, "no interface found toward %.40s", host);
		return 0;
	}
	/* A virtual interface (veth, bridge, tun: no device behind it) reports a driver's
	 * constant, not a link: veth says 10000 and carries 17 Gbit/s between namespaces. */
	snprintf(path, sizeof path, "/sys/class/net/%s/device", ifname);
	if (access(path, F_OK) != 0) {
		snprintf(where, len, "%s is virtual (no device): no link speed", ifname);
		return 0;
	}
	snprintf(path, sizeof path, "/sys/class/net/%s/speed", ifname);
	long mbps = -1;
	if (peak_sysinfo_read("", path, buf, sizeof buf) == 0)
		mbps = strtol(buf, NULL, 10);
	if (mbps <= 0) {
		snprintf(where, len, "%s reports no link speed", ifname);
		return 0;
	}
	snprintf(where, len, "%s sysfs", ifname);
	return (double)mbps / 1000.0;
}

int cluster_mpi_over_tcp(void)
{
	const char *btl = getenv("OMPI_MCA_btl"), *pml = getenv("OMPI_MCA_pml");
	return btl != NULL && strstr(btl, "tcp") != NULL && btl[0] != '^' &&
	       (pml == NULL || strcmp(pml, "ob1") == 0);
}
