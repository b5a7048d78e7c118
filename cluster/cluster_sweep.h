/* node_sweep: every node runs the same short suite points at the same time (the suite's
 * own binaries, --format csv), rank 0 tabulates them per node and flags the node that is
 * slow beyond its own noise. */
#ifndef CLUSTER_SWEEP_H
#define CLUSTER_SWEEP_H

#include "cluster_out.h"
#include "cluster_pair.h"

/* bindir: the build directory holding cpu/cpubench, memory/membench, disk/diskbench;
 * dir: diskbench's directory (NULL: no disk points). out is rank 0's only. */
void cluster_sweep(const struct cluster_cfg *cfg, const char *bindir, const char *dir, int rank,
		   int nranks, const struct cluster_node *nodes, struct cluster_out *out,
		   double round_s);

#endif
