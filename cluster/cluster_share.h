/* Ranks that share a kernel (the same /proc/sys/kernel/random/boot_id) with more ranks than
 * that kernel's CPUs: found at start; their waits then yield, their rows say so. */
#ifndef CLUSTER_SHARE_H
#define CLUSTER_SHARE_H

#include <stdint.h>

#include "cluster.h"

#define CLUSTER_SHARE_FLAG "ranks_share_cpus"

/* Collective, after the nodes are known. Sets run->shares_cpus (the array returned, which
 * the caller frees) and run->yield; rank 0 marks the rows, sets cluster.ranks_share_cpus
 * with a warning, and says in one line whether the waits yield and, where they cannot
 * (MPI's own collectives), why. */
uint8_t *cluster_share_begin(struct cluster_run *run);

#endif
