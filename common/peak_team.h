/* A team of pthreads: pinned one per allowed CPU (round-robin when oversubscribed),
 * each runs the same function on its own index, started and stopped at barriers.
 * Team time = latest finish - earliest start, never shorter than the slowest thread. */
#ifndef PEAK_TEAM_H
#define PEAK_TEAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct peak_team;

/* Work of one thread. Return 0 on success; any non-zero makes peak_team_run fail. */
typedef int (*peak_team_fn)(void *arg, unsigned thread_index, unsigned nthreads);

/* Create nthreads workers. pin: bind worker i to the i-th allowed CPU (mod count).
 * Returns NULL with a message in err when threads cannot be created. */
struct peak_team *peak_team_create(unsigned nthreads, bool pin, char *err, size_t err_len);

/* Run fn on every worker, all released from one barrier.
 * team_ns (may be NULL): latest finish - earliest start over the team.
 * thread_ns (may be NULL, else nthreads entries): each worker's own elapsed time.
 * Returns 0, or the first non-zero value a worker returned. */
int peak_team_run(struct peak_team *team, peak_team_fn fn, void *arg, uint64_t *team_ns,
		  uint64_t *thread_ns);

unsigned peak_team_size(const struct peak_team *team);
/* CPU worker i is pinned to, or -1 when not pinned. */
int peak_team_cpu(const struct peak_team *team, unsigned thread_index);
/* True when there are more workers than CPUs this process may run on. */
bool peak_team_oversubscribed(const struct peak_team *team);
/* True when pinning was asked for and every worker was pinned. */
bool peak_team_pinned(const struct peak_team *team);

void peak_team_destroy(struct peak_team *team);

/* Number of CPUs in this process's affinity mask. */
unsigned peak_team_allowed_cpus(void);

/* Memory on the calling thread's NUMA node (libnuma when available), page-aligned
 * and touched by the caller so its pages land where the caller runs. NULL on failure. */
void *peak_team_alloc_local(size_t bytes);
void peak_team_free_local(void *ptr, size_t bytes);

#endif
