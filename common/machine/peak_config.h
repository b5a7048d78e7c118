/* peaks.conf and --set: key=value overrides of the theoretical peaks' inputs
 * (docs/peaks-conf.md), read and checked here; peak_peak.c applies them. */
#ifndef PEAK_CONFIG_H
#define PEAK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "peak_path.h"

/* Peaks configuration: key=value overrides from peaks.conf and --set. */
#define PEAK_CONFIG_MAX 32
/* An origin: a path the kernel takes (peak_config_load checks it), ':' and a line number. */
#define PEAK_CONFIG_ORIGIN_LEN (PEAK_PATH_MAX + 16)
struct peak_config {
	size_t n;
	char key[PEAK_CONFIG_MAX][48];    /* known keys only (peak_config_keys): all fit */
	double value[PEAK_CONFIG_MAX];
	char origin[PEAK_CONFIG_MAX][PEAK_CONFIG_ORIGIN_LEN]; /* "peaks.conf:3" or "--set" */
	char uarch[32];          /* cpu.uarch: a table entry's name or "measured"; "" unset */
	char uarch_origin[PEAK_CONFIG_ORIGIN_LEN];
	bool trust_table;        /* cpu.trust=table: the probe checks but corrects nothing */
	/* cloud.provider and cloud.instance_type (names, not numbers: peak_cloud.h); "" unset,
	 * cloud_origin where the last of them came from. */
	char cloud_provider[32];
	char cloud_instance_type[64];
	char cloud_origin[PEAK_CONFIG_ORIGIN_LEN];
};

/* Known keys (docs/peaks-conf.md): cpu.uarch (a name, not a number), cpu.trust (table or
 * probe), cloud.provider and cloud.instance_type (names: docs/cloud.md), cpu.cores,
 * cpu.ghz, cpu.fma_units, cpu.fma512_units, mem.channels, mem.mts, mem.gbps, disk.mbps,
 * disk.iops, net.gbps. NULL-terminated. */
extern const char *const peak_config_keys[];

void peak_config_init(struct peak_config *cfg);
/* Load a peaks.conf file ("key = value", '#' comments). A missing file is not an error
 * when optional is true; a path the kernel cannot take (peak_path_check) is. Returns 0, or
 * -1 with "peaks.conf:LINE: reason" in err (size it PEAK_MSG_MAX: it may hold the path). */
int peak_config_load(struct peak_config *cfg, const char *path, bool optional, char *err,
		     size_t err_len);
/* Apply one "key=value" (from --set). Returns 0, or -1 with a reason in err. */
int peak_config_set(struct peak_config *cfg, const char *assignment, char *err, size_t err_len);
/* Look up a key; returns true and the value when set. */
bool peak_config_get(const struct peak_config *cfg, const char *key, double *value);
/* Default search: $PEAKBENCH_CONF, else ./peaks.conf. Loads it when present. */
int peak_config_load_default(struct peak_config *cfg, char *err, size_t err_len);

#endif
