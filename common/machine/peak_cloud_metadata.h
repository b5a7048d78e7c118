/* The metadata client (docs/cloud.md): one request to the provider's link-local service for
 * the instance type. It knows nothing of struct peak_cloud: peak_cloud.c asks it and keeps
 * the answer (peak_cloud_metadata in peak_cloud.h). */
#ifndef PEAK_CLOUD_METADATA_H
#define PEAK_CLOUD_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The metadata service's address: link-local on every cloud that has a client here. */
#define PEAK_CLOUD_METADATA_ADDR "169.254.169.254"
/* The whole metadata exchange (connect, token, answer) ends within this: under a second. */
#define PEAK_CLOUD_METADATA_BUDGET_MS 800

/* An instance type as the providers spell them: letters, digits and . _ - (m5.large,
 * Standard_D2s_v5, n2-standard-4, VM.Standard.E4.Flex), 1 to len - 1 characters. Inline:
 * the DMI reader (peak_cloud.c) checks with it too. */
static inline bool peak_cloud_type_plausible(const char *s, size_t len)
{
	size_t n = strlen(s);
	if (n == 0 || n >= len)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
		if (!ok)
			return false;
	}
	return true;
}

/* True when peak_cloud_metadata has a client for provider (aws gce azure openstack
 * oracle); the others' types come from --set only. */
bool peak_cloud_metadata_supported(const char *provider);
/* Ask provider's metadata service for the instance type (aws: IMDSv2 token then
 * instance-type; gce: machine-type with Metadata-Flavor; azure: compute/vmSize with
 * Metadata; openstack: the EC2-compatible instance-type; oracle: the shape). One exchange,
 * no retries, within PEAK_CLOUD_METADATA_BUDGET_MS. Returns 0 with the type in type and the
 * path asked in *path, or -1 with the one-line reason in why (no client for the provider,
 * refused, HTTP status, timed out, garbage). */
int peak_cloud_metadata_ask(const char *provider, char *type, size_t type_len, const char **path,
			    char *why, size_t why_len);

#endif
