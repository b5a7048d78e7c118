/* The cloud identification as a binary does it (peak_bench_main: DMI, PEAKBENCH_CLOUD,
 * --set, the metadata request), printed as key=value lines, for cloud_metadata.sh to run
 * inside the network namespace holding its stand-in metadata service.
 * Usage: cloud_identify [--no-metadata] [--set cloud.KEY=VALUE]... [--dmi-of DIR]
 * --dmi-of DIR: take DIR's DMI fixture for this machine's (the request is still made, as
 * on the live machine: only this test driver can do that). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "peak_cloud.h"
#include "peak_peak.h"

static double now_ms(void)
{
	struct timespec ts;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	struct peak_config cfg;
	struct peak_cloud c;
	char err[256], warn[320] = "";
	const char *dmi_of = NULL;
	bool metadata = true;
	peak_config_init(&cfg);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-metadata") == 0) {
			metadata = false;
		} else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
			if (peak_config_set(&cfg, argv[++i], err, sizeof err) != 0) {
				fprintf(stderr, "cloud_identify: --set: %s\n", err);
				return 2;
			}
		} else if (strcmp(argv[i], "--dmi-of") == 0 && i + 1 < argc) {
			dmi_of = argv[++i];
		} else {
			fprintf(stderr, "cloud_identify: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	double t0 = now_ms();
	if (dmi_of) {
		peak_cloud_from_dmi(&c, dmi_of);
		if (metadata && !c.instance_type[0] && peak_cloud_metadata_supported(c.provider) &&
		    peak_cloud_metadata(&c, err, sizeof err) != 0)
			(void)snprintf(warn, sizeof warn, "cloud metadata: %s", err);
	} else {
		const struct peak_cloud_set set = {.provider = cfg.cloud_provider,
						   .instance_type = cfg.cloud_instance_type,
						   .origin = cfg.cloud_origin};
		peak_cloud_identify(&c, "", &set, metadata, warn, sizeof warn);
	}
	double elapsed = now_ms() - t0;
	printf("cloud.provider=%s\ncloud.instance_type=%s\ncloud.source=%s\ncloud.note=%s\n"
	       "warning=%s\nelapsed_ms=%.0f\n",
	       c.provider, c.instance_type[0] ? c.instance_type : "unknown", c.source, c.note,
	       warn, elapsed);
	return 0;
}
