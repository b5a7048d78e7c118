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

#endif
