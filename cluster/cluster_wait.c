/* How clusterbench's ranks wait: between tests without spinning (cluster_wait.h), and inside
 * a measurement as OSU's loops do, or yielding the CPU when ranks share it. */
#define _GNU_SOURCE
#include "cluster_wait.h"

#include <sched.h>
#include <time.h>

/* The nap between tests grows from 100 us to 10 ms: a collective that completes at once
 * (the ranks arrive together) costs little, and a rank that waits through a peer's timed
 * round (a second or more) wakes at most 100 times a second. */
static void wait_quietly(MPI_Request *req)
{
	long nap_ns = 100000;
	int done = 0;
	for (;;) {
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		const struct timespec nap = {.tv_sec = 0, .tv_nsec = nap_ns};
		nanosleep(&nap, NULL);
		if (nap_ns < 10000000)
			nap_ns *= 2;
	}
}

void cluster_barrier(MPI_Comm comm)
{
	MPI_Request req;
	MPI_Ibarrier(comm, &req);
	wait_quietly(&req);
}

void cluster_gather(const void *send, int bytes, void *recv, int root, MPI_Comm comm)
{
	MPI_Request req;
	MPI_Igather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, root, comm, &req);
	wait_quietly(&req);
}

void cluster_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	MPI_Request req;
	MPI_Ibcast(buf, count, type, root, comm, &req);
	wait_quietly(&req);
}

void cluster_wait_all(int n, MPI_Request *req, int yield)
{
	if (!yield) {
		MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
		return;
	}
	int done = 0;
	for (;;) {
		MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
		if (done)
			return;
		sched_yield();
	}
}

void cluster_send(const void *buf, int bytes, int peer, int tag, int yield)
{
	if (!yield) {
		MPI_Send(buf, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
		return;
	}
	MPI_Request req;
	MPI_Isend(buf, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req);
	cluster_wait_all(1, &req, 1);
}

void cluster_recv(void *buf, int bytes, int peer, int tag, int yield)
{
	if (!yield) {
		MPI_Recv(buf, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		return;
	}
	MPI_Request req;
	MPI_Irecv(buf, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req);
	cluster_wait_all(1, &req, 1);
}
