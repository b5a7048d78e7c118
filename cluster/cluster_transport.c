/* The transport named from what a node shows without MPI: the MCA parameters (environment,
 * mca-params.conf), ompi_info's component list, and every link's byte counters; which link
 * carried a rank's bytes is the one whose transmit counter moved by at least them. The
 * MPI_T half (what the library selected) is cluster_transport_mpi.c. */
#include "cluster_transport.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peak_path.h"

static const char *root(const struct cluster_transport *t)
{
	return t->sysroot != NULL ? t->sysroot : "";
}

/* The first line of a file as a number; 0 when unreadable. */
static uint64_t read_u64(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return 0;
	unsigned long long v = 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	(void)fclose(f);
	return (uint64_t)v;
}

/* What kind of link an interface is: its driver, else what its type or name says. */
static void link_kind(const char *base, const char *name, char *kind, size_t len)
{
	char path[PEAK_PATH_MAX], target[PEAK_PATH_MAX];
	(void)peak_fmt(path, sizeof path, "%s/%s/device/driver", base, name);
	ssize_t n = readlink(path, target, sizeof target - 1);
	if (n > 0) {
		target[n] = '\0';
		const char *slash = strrchr(target, '/');
		(void)peak_fmt(kind, len, "%s", slash ? slash + 1 : target);
		return;
	}
	(void)peak_fmt(path, sizeof path, "%s/%s/type", base, name);
	uint64_t type = read_u64(path);
	if (type == 32) /* ARPHRD_INFINIBAND: IP over InfiniBand, TCP on an RDMA fabric */
		(void)peak_fmt(kind, len, "ipoib");
	else if (type == 772) /* ARPHRD_LOOPBACK */
		(void)peak_fmt(kind, len, "loopback");
	else {
		/* Virtual interfaces have no device: the kernel's uevent names veth, bridge, ... by
		 * DEVTYPE when it has one; veth has none, so its name's usual prefix is no help and
		 * "virtual" is what is known. */
		(void)peak_fmt(path, sizeof path, "%s/%s/uevent", base, name);
		FILE *f = fopen(path, "r");
		char line[128];
		(void)peak_fmt(kind, len, "virtual");
		while (f != NULL && fgets(line, sizeof line, f) != NULL)
			if (strncmp(line, "DEVTYPE=", 8) == 0) {
				line[strcspn(line, "\n")] = '\0';
				(void)peak_fmt(kind, len, "%s", line + 8);
			}
		if (f != NULL)
			(void)fclose(f);
		/* veth pairs are the one kind tests and containers use most: the peer index file
		 * exists only on them (and on a few tunnels, which carry a DEVTYPE). */
		char iflink[PEAK_PATH_MAX], ifindex[PEAK_PATH_MAX];
		(void)peak_fmt(iflink, sizeof iflink, "%s/%s/iflink", base, name);
		(void)peak_fmt(ifindex, sizeof ifindex, "%s/%s/ifindex", base, name);
		if (strcmp(kind, "virtual") == 0 && read_u64(iflink) != read_u64(ifindex))
			(void)peak_fmt(kind, len, "veth");
	}
}

static struct cluster_link *add_link(struct cluster_transport *t)
{
	if (t->nlinks >= CLUSTER_TRANSPORT_MAX_LINKS)
		return NULL;
	struct cluster_link *l = &t->links[t->nlinks++];
	memset(l, 0, sizeof *l);
	return l;
}

/* Network interfaces, in the kernel's counters (bytes on the wire, headers included). */
static void list_netdevs(struct cluster_transport *t)
{
	char base[PEAK_PATH_MAX];
	(void)peak_fmt(base, sizeof base, "%s/sys/class/net", root(t));
	DIR *d = opendir(base);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof t->links[0].name)
			continue;
		struct cluster_link *l = add_link(t);
		if (l == NULL)
			break;
		(void)peak_fmt(l->name, sizeof l->name, "%s", e->d_name);
		link_kind(base, e->d_name, l->kind, sizeof l->kind);
	}
	(void)closedir(d);
}

/* RDMA ports: traffic that bypasses the kernel shows only here. */
static void list_rdma(struct cluster_transport *t)
{
	char base[PEAK_PATH_MAX];
	(void)peak_fmt(base, sizeof base, "%s/sys/class/infiniband", root(t));
	DIR *d = opendir(base);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		t->rdma_devices++;
		char ports[PEAK_PATH_MAX];
		(void)peak_fmt(ports, sizeof ports, "%s/%s/ports", base, e->d_name);
		DIR *p = opendir(ports);
		struct dirent *q;
		while (p != NULL && (q = readdir(p)) != NULL) {
			if (q->d_name[0] == '.')
				continue;
			struct cluster_link *l = add_link(t);
			if (l == NULL)
				break;
			(void)peak_fmt(l->name, sizeof l->name, "%.30s/%.16s", e->d_name,
				       q->d_name);
			(void)peak_fmt(l->kind, sizeof l->kind, "rdma");
		}
		if (p != NULL)
			(void)closedir(p);
	}
	(void)closedir(d);
}

static void read_counters(const struct cluster_transport *t, const struct cluster_link *l,
			  uint64_t *tx, uint64_t *rx)
{
	char path[PEAK_PATH_MAX];
	if (strcmp(l->kind, "rdma") == 0) {
		/* port_xmit_data counts in units of four octets (InfiniBand's PortCounters). */
		char dev[48];
		(void)peak_fmt(dev, sizeof dev, "%s", l->name);
		char *port = strchr(dev, '/');
		*port++ = '\0'; /* list_rdma named it DEV/PORT */
#define RDMA_COUNTER "%s/sys/class/infiniband/%s/ports/%s/counters/port_%s_data"
		(void)peak_fmt(path, sizeof path, RDMA_COUNTER, root(t), dev, port, "xmit");
		*tx = 4 * read_u64(path);
		(void)peak_fmt(path, sizeof path, RDMA_COUNTER, root(t), dev, port, "rcv");
		*rx = 4 * read_u64(path);
#undef RDMA_COUNTER
		return;
	}
	(void)peak_fmt(path, sizeof path, "%s/sys/class/net/%s/statistics/tx_bytes", root(t),
		       l->name);
	*tx = read_u64(path);
	(void)peak_fmt(path, sizeof path, "%s/sys/class/net/%s/statistics/rx_bytes", root(t),
		       l->name);
	*rx = read_u64(path);
}

/* "key = value" in an mca-params.conf; 1 when found. */
static int conf_value(const char *path, const char *key, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return 0;
	char line[512];
	int found = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		char *s = line + strspn(line, " \t");
		if (*s == '#' || strncmp(s, key, strlen(key)) != 0)
			continue;
		char *eq = s + strlen(key);
		eq += strspn(eq, " \t");
		if (*eq != '=')
			continue;
		eq++;
		eq += strspn(eq, " \t");
		eq[strcspn(eq, "\r\n")] = '\0';
		for (size_t n = strlen(eq); n > 0 && (eq[n - 1] == ' ' || eq[n - 1] == '\t'); n--)
			eq[n - 1] = '\0';
		(void)peak_fmt(out, len, "%s", eq);
		found = 1; /* the last one wins, as OpenMPI reads them */
	}
	(void)fclose(f);
	return found;
}

/* A parameter as OpenMPI resolves it: the environment (mpirun --mca and -x arrive there),
 * then the user's file, then the system's. */
static void param(const struct cluster_transport *t, const char *key, char *out, size_t len,
		  char *from, size_t from_len)
{
	char env[96], path[PEAK_PATH_MAX];
	(void)peak_fmt(env, sizeof env, "OMPI_MCA_%s", key);
	const char *v = getenv(env);
	out[0] = from[0] = '\0';
	if (v != NULL) {
		(void)peak_fmt(out, len, "%s", v);
		(void)peak_fmt(from, from_len, "env");
		return;
	}
	const char *home = getenv("HOME");
	if (home != NULL && root(t)[0] == '\0') {
		(void)peak_fmt(path, sizeof path, "%s/.openmpi/mca-params.conf", home);
		if (conf_value(path, key, out, len)) {
			(void)peak_fmt(from, from_len, "mca-params.conf");
			return;
		}
	}
	static const char *const system_files[] = {"/etc/openmpi/openmpi-mca-params.conf",
						   "/etc/openmpi-mca-params.conf"};
	for (size_t i = 0; i < sizeof system_files / sizeof system_files[0]; i++) {
		(void)peak_fmt(path, sizeof path, "%s%s", root(t), system_files[i]);
		if (conf_value(path, key, out, len)) {
			(void)peak_fmt(from, from_len, "mca-params.conf");
			return;
		}
	}
}

/* The components faster than TCP that ompi_info --parsable lists ("mca:pml:ucx:..."). */
static void ompi_components(struct cluster_transport *t)
{
	t->fast_components[0] = '\0';
	if (t->ompi_info == NULL)
		return;
	FILE *f = fopen(t->ompi_info, "r");
	if (f == NULL)
		return;
	static const char *const fast[] = {"ucx", "ofi", "openib", "psm2", "psm", "uct"};
	char line[512];
	while (fgets(line, sizeof line, f) != NULL) {
		char fw[16], comp[32];
		if (sscanf(line, "mca:%15[^:]:%31[^:]:", fw, comp) != 2)
			continue;
		for (size_t i = 0; i < sizeof fast / sizeof fast[0]; i++) {
			char word[40];
			(void)peak_fmt(word, sizeof word, "%s,", comp);
			char have[sizeof t->fast_components + 1];
			(void)peak_fmt(have, sizeof have, "%s,", t->fast_components);
			if (strcmp(comp, fast[i]) != 0 || strstr(have, word) != NULL)
				continue;
			size_t n = strlen(t->fast_components);
			(void)peak_fmt(t->fast_components + n, sizeof t->fast_components - n,
				       "%s%s", n ? "," : "", comp);
		}
	}
	(void)fclose(f);
}

void cluster_transport_read(struct cluster_transport *t)
{
	param(t, "pml", t->pml, sizeof t->pml, t->pml_from, sizeof t->pml_from);
	param(t, "btl", t->btl, sizeof t->btl, t->btl_from, sizeof t->btl_from);
	param(t, "mtl", t->mtl, sizeof t->mtl, t->mtl_from, sizeof t->mtl_from);
	param(t, "btl_tcp_if_include", t->if_include, sizeof t->if_include, t->if_include_from,
	      sizeof t->if_include_from);
	ompi_components(t);
	t->nlinks = 0;
	t->rdma_devices = 0;
	list_netdevs(t);
	list_rdma(t);
	for (unsigned i = 0; i < t->nlinks; i++)
		read_counters(t, &t->links[i], &t->links[i].tx0, &t->links[i].rx0);
}

/* The link whose transmit counter moved by at least bytes_sent, and by the least of those
 * that did: other traffic only adds to a counter, so a busy link (another job's, a test's
 * bridge) moves by more than the carrier, never by less. -1 when none moved that far. */
static int carrier(struct cluster_transport *t, uint64_t bytes_sent)
{
	int best = -1;
	uint64_t least = UINT64_MAX;
	for (unsigned i = 0; i < t->nlinks; i++) {
		struct cluster_link *l = &t->links[i];
		read_counters(t, l, &l->tx1, &l->rx1);
		uint64_t moved = l->tx1 >= l->tx0 ? l->tx1 - l->tx0 : 0;
		if (bytes_sent > 0 && moved >= bytes_sent && moved < least) {
			least = moved;
			best = (int)i;
		}
	}
	return best;
}

/* "value (source)" or "value" or "OpenMPI's default". */
static void put_param(struct peak_context *ctx, const char *key, const char *open,
		      const char *value, const char *from)
{
	char v[PEAK_CONTEXT_VALUE_LEN];
	if (open[0] != '\0' && value[0] != '\0')
		(void)peak_fmt(v, sizeof v, "%s (asked %s: %s)", open, from[0] ? from : "MPI_T",
			       value);
	else if (open[0] != '\0')
		(void)peak_fmt(v, sizeof v, "%s", open);
	else if (value[0] != '\0')
		(void)peak_fmt(v, sizeof v, "%s (%s)", value, from[0] ? from : "MPI_T");
	else
		(void)peak_fmt(v, sizeof v, "OpenMPI's default");
	peak_context_set_str(ctx, key, v);
}

/* What moved the bytes: the PML's own name when it is not ob1 (ucx, cm over an MTL). */
static const char *protocol(const struct cluster_transport *t, const struct cluster_link *l)
{
	if (strcmp(t->pml_open, "ucx") == 0)
		return "ucx";
	if (strcmp(t->pml_open, "cm") == 0)
		return t->mtl_open[0] ? t->mtl_open : "cm";
	return strcmp(l->kind, "rdma") == 0 ? "rdma" : "tcp";
}

int cluster_transport_end(struct cluster_transport *t, uint64_t bytes_sent,
			  struct peak_context *ctx)
{
	int i = carrier(t, bytes_sent);
	/* A peer on this node goes through shared memory (ob1's vader or sm BTL, ucx's and the
	 * MTLs' own), whatever else moved the counters; unless ob1 kept no such BTL (btl
	 * self,tcp): then it is TCP over loopback, and the counters say so. */
	int shm = t->peer_same_node &&
		  (strcmp(t->pml_open, "ob1") != 0 || t->btl_open[0] == '\0' ||
		   strstr(t->btl_open, "vader") != NULL || strstr(t->btl_open, "sm") != NULL);
	if (shm)
		i = -1;
	put_param(ctx, "mpi.pml", t->pml_open, t->pml, t->pml_from);
	put_param(ctx, "mpi.btl", t->btl_open, t->btl, t->btl_from);
	put_param(ctx, "mpi.mtl", strcmp(t->pml_open, "cm") == 0 ? t->mtl_open : "", t->mtl,
		  t->mtl_from);
	put_param(ctx, "mpi.btl_tcp_if_include", "", t->if_include, t->if_include_from);
	if (t->ompi_info != NULL)
		peak_context_set_str(ctx, "mpi.fast_components",
				     t->fast_components[0] ? t->fast_components : "none");
	peak_context_set_num(ctx, "mpi.bytes_sent", (double)bytes_sent);
	char v[PEAK_CONTEXT_VALUE_LEN];
	int tcp = 0;
	if (i >= 0) {
		const struct cluster_link *l = &t->links[i];
		const char *proto = protocol(t, l);
		tcp = strcmp(proto, "tcp") == 0;
		peak_context_set_str(ctx, "mpi.interface", l->name);
		peak_context_set_num(ctx, "mpi.interface_bytes", (double)(l->tx1 - l->tx0));
		if (strcmp(proto, l->kind) == 0) /* "rdma over mlx5_0/1" */
			(void)peak_fmt(v, sizeof v, "%s over %s", proto, l->name);
		else
			(void)peak_fmt(v, sizeof v, "%s over %s %s", proto, l->kind, l->name);
	} else if (bytes_sent == 0) {
		(void)peak_fmt(v, sizeof v, "none (no MPI bytes sent)");
	} else if (shm) {
		peak_context_set_str(ctx, "mpi.interface", "none");
		(void)peak_fmt(v, sizeof v, "shared memory (the peer is on this node; btl %s)",
			       t->btl_open[0] ? t->btl_open
			       : t->btl[0]    ? t->btl
					      : "default");
	} else {
		peak_context_set_str(ctx, "mpi.interface", "none");
		(void)peak_fmt(
		    v, sizeof v,
		    "shared memory or an uncounted device (no link's counter moved by %llu bytes)",
		    (unsigned long long)bytes_sent);
	}
	peak_context_set_str(ctx, "mpi.transport", v);
	/* Debian's OpenMPI lists ucx, ofi and openib whether or not a fabric exists: a listing
	 * alone is no faster transport, an RDMA device is. */
	int fallback = tcp && t->rdma_devices > 0;
	peak_context_set_bool(ctx, "mpi.fallback", fallback);
	if (fallback) {
		char w[PEAK_CONTEXT_VALUE_LEN];
		(void)peak_fmt(w, sizeof w,
			       "MPI fell back to TCP (%s) although %u RDMA device(s) are in "
			       "/sys/class/infiniband%s%s; pml %s, btl %s",
			       v, t->rdma_devices,
			       t->fast_components[0] ? " and ompi_info lists " : "",
			       t->fast_components, t->pml[0] ? t->pml : "default",
			       t->btl[0] ? t->btl : "default");
		peak_context_warn(ctx, w);
	}
	return i;
}
