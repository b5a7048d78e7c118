/* Which transport carried MPI's traffic, named and measured: the OpenMPI MCA parameters as
 * used (OMPI_MCA_* environment, mca-params.conf, MPI_T control variables read in-process),
 * the components ompi_info lists (its --parsable output, written once by cluster_run.sh),
 * and every interface's byte counters before and after: the interface whose transmit
 * counter moved by at least the bytes this rank sent is the one that carried them. */
#ifndef CLUSTER_TRANSPORT_H
#define CLUSTER_TRANSPORT_H

#include <stdint.h>

#include "peak_context.h"

#define CLUSTER_TRANSPORT_MAX_LINKS 64

/* One counted link: a network interface (/sys/class/net/NAME/statistics/{rx,tx}_bytes) or
 * an RDMA port (/sys/class/infiniband/DEV/ports/P/counters/port_{xmit,rcv}_data). */
struct cluster_link {
	char name[48];     /* "eth0", "mlx5_0/1" */
	char kind[24];     /* driver ("veth", "ena", "mlx5_core"), "ipoib", "rdma", "loopback" */
	uint64_t tx0, rx0; /* bytes at begin */
	uint64_t tx1, rx1; /* bytes at end */
};

struct cluster_transport {
	/* In: set before begin (zeroed struct: the defaults). */
	const char *sysroot;   /* "" or NULL: the real /sys and /etc; a test's fake tree */
	const char *ompi_info; /* `ompi_info --parsable` output file, or NULL: not read */
	int peer_same_node;    /* the ranks this one sent to share its node (MPI's own view:
				* MPI_COMM_TYPE_SHARED): shared memory, no link is named */
	/* What MPI was told: each value and where it came from ("env", "mca-params.conf",
	 * "MPI_T", or "" when nothing set it: OpenMPI's own choice). */
	char pml[64], btl[128], mtl[64], if_include[128];
	char pml_from[24], btl_from[24], mtl_from[24], if_include_from[24];
	/* The components left open after MPI_Init (MPI_T: their variables are still valid;
	 * OpenMPI deregisters the others): the PML selected, the BTLs and MTLs it may use. */
	char pml_open[64], btl_open[128], mtl_open[64];
	char fast_components[96]; /* ucx, ofi, openib, psm2, psm as ompi_info lists them */
	unsigned rdma_devices;    /* entries of /sys/class/infiniband */
	unsigned nlinks;
	struct cluster_link links[CLUSTER_TRANSPORT_MAX_LINKS];
};

/* Read the parameters and every link's counters (this node only; no MPI call but MPI_T,
 * which needs MPI_Init done). Call right before the measured traffic. */
void cluster_transport_begin(struct cluster_transport *t);

/* begin without MPI_T (tests; a process before MPI_Init). */
void cluster_transport_read(struct cluster_transport *t);

/* Read the counters again and put into ctx: mpi.pml, mpi.btl, mpi.mtl,
 * mpi.btl_tcp_if_include (each with its source), mpi.interface and
 * mpi.interface_bytes (the link that carried bytes_sent, this rank's payload: of the links
 * whose transmit counter moved by at least that, the one that moved least), mpi.transport ("tcp
 * over veth eth1", "rdma over mlx5_0/1", "shared memory (no link moved)"), mpi.fallback (true when
 * TCP ran where an RDMA device exists) with a warning saying so. Returns the index of the link that
 * carried the bytes, or -1 when none moved by bytes_sent. */
int cluster_transport_end(struct cluster_transport *t, uint64_t bytes_sent,
			  struct peak_context *ctx);

/* Collective, after the measured traffic (t begun on every rank): each rank ends its
 * transport; rank 0 puts every node's mpi.* keys into that node's context block
 * (run->node_ctxs) and its own, with any warning, into the run context (run->ctx). */
struct cluster_run;
void cluster_transport_share(const struct cluster_run *run, struct cluster_transport *t,
			     uint64_t bytes_sent);

/* Collective, before a run's tests: every rank sends 4 MiB to the next (a ring, over MPI)
 * between begin and share, so the transport is named for every test, also those whose
 * measured traffic is not MPI's. ompi_info: as in struct cluster_transport. */
void cluster_transport_probe(const struct cluster_run *run, const char *ompi_info);

#endif
