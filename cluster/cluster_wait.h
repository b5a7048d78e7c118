/* Collectives that wait without spinning. OpenMPI's blocking calls busy-poll their
 * progress engine: a rank that waits in MPI_Gather while its peer measures burns a CPU.
 * On nodes that share CPUs (namespaces on one VM, oversubscribed hosts) that CPU is taken
 * from the pair being timed, and the spinning keeps the CPUs from idling, which shortens
 * every wake-up: the pair's figures stop being netbench's. These start the nonblocking
 * form and poll it with a sleep between tests; the waits are never inside a timing. */
#ifndef CLUSTER_WAIT_H
#define CLUSTER_WAIT_H

#include <mpi.h>

void cluster_barrier(MPI_Comm comm);
void cluster_gather(const void *send, int bytes, void *recv, int root, MPI_Comm comm);
void cluster_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);

/* The waits inside a measurement (a pair's iterations and their control messages), in
 * MPI_COMM_WORLD. With yield 0 they are MPI's blocking calls, as OSU's loops; with yield 1
 * (ranks that share a kernel beyond its CPUs, cluster_share.c) the nonblocking form polled
 * with sched_yield between tests, as OpenMPI's mpi_yield_when_idle does inside its own:
 * a waiting rank gives its CPU to whatever else is runnable (its peer, the kernel's network
 * work) and takes it back at once when nothing is. */
void cluster_wait_all(int n, MPI_Request *req, int yield);
void cluster_send(const void *buf, int bytes, int peer, int tag, int yield);
void cluster_recv(void *buf, int bytes, int peer, int tag, int yield);

#endif
