#include "cluster_wait.h"

#include <time.h>

/* 200 us: short beside a round (a second or more), long enough that a waiting rank uses
 * well under 1% of a CPU. */
static void wait_quietly(MPI_Request *req)
{
	const struct timespec nap = {.tv_sec = 0, .tv_nsec = 200000};
	int done = 0;
	for (;;) {
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		nanosleep(&nap, NULL);
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
