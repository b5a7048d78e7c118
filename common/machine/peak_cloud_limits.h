/* The published limits of cloud instance types (data/cloud_limits.tsv, compiled into
 * libpeak at build time by scripts/cloud_limits/gen_c.py): network baseline and burst,
 * block storage baseline and maximum, the burst's duration, and the row's source. */
#ifndef PEAK_CLOUD_LIMITS_H
#define PEAK_CLOUD_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

/* One row. A figure below 0 is not published in the sources read: unknown. A pattern row's
 * instance_type holds one '*' (any run of characters: "e2-*-2", every e2 shape of 2 vCPUs);
 * a rule row's '*' is last ("n2-*") and it may give the per-vCPU egress rule instead. */
struct peak_cloud_limits {
	const char *provider; /* aws azure gce */
	const char *instance_type;
	double vcpus;
	double net_baseline_gbps;
	double net_burst_gbps;
	double net_per_vcpu_gbps;  /* rule rows only */
	double net_cap_gbps;       /* rule rows only */
	double disk_baseline_mbps; /* MB/s, 10^6 B/s */
	double disk_max_mbps;
	double disk_baseline_iops;
	double disk_max_iops;
	double burst_minutes;  /* how long the disk maximum holds (AWS: 30 a day) */
	const char *source;    /* "aws-ec2-user-guide@d289961+..." (docs/cloud.md) */
	const char *date_read; /* YYYY-MM-DD */
};

/* The generated table (peak_cloud_limits_table.c). */
extern const struct peak_cloud_limits peak_cloud_limits_table[];
extern const unsigned peak_cloud_limits_count;

/* The row of instance_type, of provider when it is given (NULL, "" or "unknown": any
 * provider). An exact row first; else the longest pattern row the type matches, returned
 * in out with instance_type the type asked; a rule's network limit computed from vcpus
 * (per-vCPU rate x vcpus, at most the cap; unknown when vcpus is 0). Returns true when found;
 * out (may be NULL) receives the row. table/n: the table to search (peak_cloud_limits_table
 * and peak_cloud_limits_count for the shipped one). */
bool peak_cloud_limits_find_in(const struct peak_cloud_limits *table, size_t n,
			       const char *provider, const char *instance_type, unsigned vcpus,
			       struct peak_cloud_limits *out);
/* The same in the shipped table. */
bool peak_cloud_limits_find(const char *provider, const char *instance_type, unsigned vcpus,
			    struct peak_cloud_limits *out);

#endif
