/* Theoretical peaks: CPU (cores x GHz x ops per cycle for the ISA), memory (channels x
 * MT/s x 8), disk (rated MB/s, IOPS), network (link Gbit/s). Every input says where it
 * came from; peaks.conf and --set key=value override any of them. */
#ifndef PEAK_PEAK_H
#define PEAK_PEAK_H

#include <stdbool.h>
#include <stddef.h>

#include "peak_cloud.h"
#include "peak_cloud_limits.h"
#include "peak_config.h"
#include "peak_context.h"
#include "peak_isa.h"
#include "peak_path.h"
#include "peak_sysinfo.h"
#include "peak_uarch.h"
#include "peak_uarch_identity.h"
#include "peak_uarch_probe.h"

const char *peak_source_name(enum peak_source src);

struct peak_value {
	double value; /* meaningful only when source != PEAK_SRC_UNKNOWN */
	enum peak_source source;
	char note[PEAK_MSG_MAX]; /* may name a whole peaks.conf path ("cpu.ghz from PATH:LINE") */
};

/* The instance type's published limits as this run's peaks (peak_peak_cloud.c). */
struct peak_machine_cloud {
	char instance_type[64];          /* the type looked up; "" none known */
	bool listed;                     /* its row (or its family's rule) is in the table */
	struct peak_cloud_limits limits; /* when listed (instance_type points above) */
	/* The baselines beside the published peaks (the burst, the maximum): known only
	 * where the peak itself is the published one (not when peaks.conf set it). */
	struct peak_value disk_baseline_mbps;
	struct peak_value disk_baseline_iops;
	struct peak_value net_baseline_gbps;
};

/* All peak inputs of this machine. */
struct peak_machine {
	struct peak_uarch uarch;
	struct peak_uarch_identity identity; /* the model checked against the features */
	struct peak_value cores;        /* cores allowed to this process */
	struct peak_value ghz;          /* measured (dependent chain) unless overridden */
	struct peak_value nominal_ghz;  /* cpuid / brand string */
	struct peak_value mem_channels;
	struct peak_value mem_mts;
	struct peak_value mem_gbps;     /* channels x MT/s x 8 / 1000, or mem.gbps */
	struct peak_value disk_mbps;
	struct peak_value disk_iops;
	struct peak_value net_gbps;     /* link speed of the first up interface with a speed */
	char net_iface[32];
	/* The instance type's published limits: disk_* and net_gbps take them when listed. */
	struct peak_machine_cloud cloud;
	/* The two frequency witnesses behind ghz (unknown when cpu.ghz is configured). */
	struct peak_value ghz_imul;     /* imul r64,r64 chain */
	struct peak_value ghz_addsd;    /* addsd chain (unknown when the FP add latency is) */
	double freq_spread_pct;         /* |imul - addsd| / max x 100; negative when unknown */
	unsigned freq_trials;           /* runs per chain; ghz_* are the best of them */
	/* The probe's run on this CPU (probed false: not run, e.g. under a fake root), and the
	 * entry as the table or cpu.uarch gave it, before the probe corrected it. */
	bool probed;
	struct peak_probe probe;
	struct peak_uarch uarch_claimed;
};

/* Fill every input: measure the frequency (unless cpu.ghz is configured), read SMBIOS
 * and sysfs, apply the config. root as in peak_sysinfo_collect. */
void peak_machine_init(struct peak_machine *m, const struct peak_sysinfo *si,
		       const struct peak_config *cfg, const char *root);
/* The same, for a binary whose figures are judged against CPU peaks (peakinfo, cpubench,
 * linpack): the probe also runs (about a second) and checks the micro-architecture entry
 * (peak_uarch_check.h); its figures stay in m->probe. */
void peak_machine_init_cpu(struct peak_machine *m, const struct peak_sysinfo *si,
			   const struct peak_config *cfg, const char *root);

/* Floating-point operations per cycle per core for kernels of that ISA and precision.
 * avx2 and avx512 kernels use FMA: lanes x 2 x FMA units. scalar, sse and avx are the
 * baseline x86-64 / AVX1 instruction sets without FMA: lanes x add+mul ops per cycle.
 * Ops wider than a pipe run at pipe_bits/width. 0 if the ISA is unsupported by the uarch. */
double peak_cpu_flops_per_cycle(const struct peak_uarch *u, enum peak_isa isa,
				enum peak_precision prec);
/* Flops per cycle per core of an add+mul kernel (no FMA, adds and muls 1:1) at that ISA's
 * width: lanes x addmul_ops (512-bit: addmul512_ops). */
double peak_cpu_addmul_flops_per_cycle(const struct peak_uarch *u, enum peak_isa isa,
				       enum peak_precision prec);
/* Integer adds per cycle per core on lanes of lane_bits (32 or 64) for that ISA. */
double peak_cpu_int_ops_per_cycle(const struct peak_uarch *u, enum peak_isa isa,
				  unsigned lane_bits);

/* Theoretical GFLOPS for `cores` cores at `ghz`. */
double peak_cpu_gflops(const struct peak_uarch *u, enum peak_isa isa, enum peak_precision prec,
		       unsigned cores, double ghz);

/* Add the peak inputs (value and source of each) to the context block. */
void peak_machine_to_context(const struct peak_machine *m, struct peak_context *ctx);

/* The published limits of the cloud's instance type (peak_cloud_limits_find; vcpus for a
 * per-vCPU rule) become disk_mbps, disk_iops (the maximum) and net_gbps (the burst), source
 * published, where peaks.conf / --set did not set them. peak_machine_init calls it. */
void peak_machine_cloud_limits(struct peak_machine *m, const struct peak_cloud *cloud,
			       unsigned vcpus, const struct peak_config *cfg);
/* cloud.limit.* context keys when the type is listed; a warning when it is known but not
 * listed (its disk and network peaks stay unknown). */
void peak_machine_cloud_to_context(const struct peak_machine *m, struct peak_context *ctx);

#endif
