/* Which cloud and which instance type this machine is (docs/cloud.md): the DMI fields any
 * user may read (/sys/class/dmi/id), then peaks.conf or --set (cloud.provider,
 * cloud.instance_type), then at most one metadata request, only when DMI or --set named
 * the cloud and the type is still unknown. A machine whose DMI names no cloud sends
 * nothing anywhere. */
#ifndef PEAK_CLOUD_H
#define PEAK_CLOUD_H

#include <stdbool.h>
#include <stddef.h>

#include "peak_cloud_metadata.h"
#include "peak_context.h"

/* The run's identification, handed down by run_all.sh from peakinfo (which asks the
 * metadata service once): "PROVIDER,TYPE,SOURCE" (TYPE may be empty). A binary that finds
 * it sends no request of its own. */
#define PEAK_CLOUD_ENV "PEAKBENCH_CLOUD"

struct peak_cloud {
	/* aws azure gce openstack oracle alibaba hetzner digitalocean unknown */
	char provider[32];
	char instance_type[64]; /* "" unknown */
	char source[16];        /* of the type when known, else of the provider: dmi metadata
				 * --set unknown (--set also stands for peaks.conf) */
	char note[160];         /* how it was found or why the type is unknown ("" none) */
};

/* The providers peak_cloud knows, NULL-terminated ("unknown" not among them). */
extern const char *const peak_cloud_providers[];
/* True when name is one of peak_cloud_providers. */
bool peak_cloud_provider_known(const char *name);

/* DMI only, under root ("" the live /sys): provider and, where DMI carries it (AWS Nitro's
 * product_name), the type. Reads world-readable files; sends nothing. Unknown: provider
 * "unknown", type "", source "unknown". */
void peak_cloud_from_dmi(struct peak_cloud *c, const char *root);

/* What overrides DMI: peaks.conf / --set values (NULL or "" when not set). */
struct peak_cloud_set {
	const char *provider;
	const char *instance_type;
	const char *origin; /* "--set" or "peaks.conf:3" (for the note) */
};

/* The whole identification: DMI under root, then PEAK_CLOUD_ENV (live root only), then set,
 * then, when metadata is true, root is the live one (a --root tree is another machine's),
 * the provider is known and the type is not, and no PEAK_CLOUD_ENV was found, one
 * metadata request (peak_cloud_metadata). A failed request
 * leaves one sentence in warn (warn[0] == '\0' when none; warn may be NULL). */
void peak_cloud_identify(struct peak_cloud *c, const char *root, const struct peak_cloud_set *set,
			 bool metadata, char *warn, size_t warn_len);

/* peak_cloud_metadata_ask for c->provider: 0 with c->instance_type set (source "metadata",
 * the path asked in the note), or -1 with the one-line reason in why. */
int peak_cloud_metadata(struct peak_cloud *c, char *why, size_t why_len);

/* cloud.provider, cloud.instance_type ("unknown" when ""), cloud.source, cloud.note. */
void peak_cloud_to_context(const struct peak_cloud *c, struct peak_context *ctx);

/* "PROVIDER,TYPE,SOURCE": the value of PEAK_CLOUD_ENV for c. */
void peak_cloud_env_value(const struct peak_cloud *c, char *buf, size_t len);

#endif
