/* Which cloud and which instance type (peak_cloud.h, docs/cloud.md): DMI, the run's
 * PEAK_CLOUD_ENV, peaks.conf / --set, then the metadata request (peak_cloud_metadata.c). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "peak_cloud.h"
#include "peak_sysinfo.h"

const char *const peak_cloud_providers[] = {
    "aws", "azure", "gce", "openstack", "oracle", "alibaba", "hetzner", "digitalocean", NULL,
};

bool peak_cloud_provider_known(const char *name)
{
	for (size_t i = 0; name && peak_cloud_providers[i]; i++)
		if (strcmp(name, peak_cloud_providers[i]) == 0)
			return true;
	return false;
}

static void set_str(char *dst, size_t len, const char *src)
{
	(void)peak_fmt(dst, len, "%s", src ? src : "");
}

/* The world-readable DMI fields (0444 in the kernel's dmi-id; product_serial and
 * product_uuid are root's only, so nothing here needs them). */
struct dmi {
	char sys_vendor[128], product_name[128], product_version[128], chassis_asset_tag[128],
	    chassis_vendor[128], bios_vendor[128], bios_version[128];
};

static void dmi_read(struct dmi *d, const char *root)
{
	const struct {
		const char *file;
		char *buf;
		size_t len;
	} f[] = {
	    {"/sys/class/dmi/id/sys_vendor", d->sys_vendor, sizeof d->sys_vendor},
	    {"/sys/class/dmi/id/product_name", d->product_name, sizeof d->product_name},
	    {"/sys/class/dmi/id/product_version", d->product_version, sizeof d->product_version},
	    {"/sys/class/dmi/id/chassis_asset_tag", d->chassis_asset_tag,
	     sizeof d->chassis_asset_tag},
	    {"/sys/class/dmi/id/chassis_vendor", d->chassis_vendor, sizeof d->chassis_vendor},
	    {"/sys/class/dmi/id/bios_vendor", d->bios_vendor, sizeof d->bios_vendor},
	    {"/sys/class/dmi/id/bios_version", d->bios_version, sizeof d->bios_version},
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (peak_sysinfo_read(root, f[i].file, f[i].buf, f[i].len) != 0)
			f[i].buf[0] = '\0';
}

/* The DMI values each provider uses (cloud-init's ds-identify and DataSource modules;
 * AWS's "Identify EC2 instances" page; Azure's fixed chassis asset tag). */
void peak_cloud_from_dmi(struct peak_cloud *c, const char *root)
{
	struct dmi d;
	memset(c, 0, sizeof *c);
	dmi_read(&d, root);
	const char *p = "unknown", *field = "";
	if (strcmp(d.sys_vendor, "Amazon EC2") == 0)
		p = "aws", field = "sys_vendor";
	else if (strcasestr(d.bios_version, "amazon"))
		p = "aws", field = "bios_version"; /* Xen instances: "4.11.amazon" */
	else if (strcmp(d.chassis_asset_tag, "7783-7084-3265-9085-8269-3286-77") == 0)
		p = "azure", field = "chassis_asset_tag";
	else if (strcmp(d.product_name, "Google Compute Engine") == 0)
		p = "gce", field = "product_name";
	else if (strcmp(d.product_name, "OpenStack Nova") == 0 ||
		 strcmp(d.product_name, "OpenStack Compute") == 0)
		p = "openstack", field = "product_name";
	else if (strcmp(d.chassis_asset_tag, "OpenStack Nova") == 0 ||
		 strcmp(d.chassis_asset_tag, "OpenStack Compute") == 0)
		p = "openstack", field = "chassis_asset_tag";
	else if (strcmp(d.chassis_asset_tag, "OracleCloud.com") == 0)
		p = "oracle", field = "chassis_asset_tag";
	else if (strcmp(d.product_name, "Alibaba Cloud ECS") == 0)
		p = "alibaba", field = "product_name";
	else if (strcmp(d.sys_vendor, "Hetzner") == 0)
		p = "hetzner", field = "sys_vendor";
	else if (strcmp(d.sys_vendor, "DigitalOcean") == 0)
		p = "digitalocean", field = "sys_vendor";
	set_str(c->provider, sizeof c->provider, p);
	set_str(c->source, sizeof c->source, strcmp(p, "unknown") ? "dmi" : "unknown");
	if (!strcmp(p, "unknown")) {
		set_str(c->note, sizeof c->note,
			d.sys_vendor[0] || d.product_name[0] ? "DMI names no cloud"
							     : "no DMI (/sys/class/dmi/id)");
		return;
	}
	/* AWS Nitro's product_name is the instance type ("m5.large"); Xen's is "HVM domU". */
	if (!strcmp(field, "sys_vendor") && !strcmp(p, "aws") &&
	    peak_cloud_type_plausible(d.product_name, sizeof c->instance_type)) {
		set_str(c->instance_type, sizeof c->instance_type, d.product_name);
		set_str(c->note, sizeof c->note, "DMI sys_vendor and product_name");
		return;
	}
	(void)peak_fmt(c->note, sizeof c->note, "DMI %s", field);
}

/* PEAK_CLOUD_ENV: "PROVIDER,TYPE,SOURCE". Returns 0 when it is set and well formed. */
static int from_env(struct peak_cloud *c, char *warn, size_t warn_len)
{
	const char *env = getenv(PEAK_CLOUD_ENV);
	if (!env || !env[0])
		return -1;
	char buf[160];
	set_str(buf, sizeof buf, env);
	const char *p = buf;
	char *t = strchr(buf, ','), *s = t ? strchr(t + 1, ',') : NULL;
	if (s) {
		*t++ = '\0';
		*s++ = '\0';
	}
	bool ok = s && !strchr(s, ',') && (peak_cloud_provider_known(p) || !strcmp(p, "unknown")) &&
		  (!t[0] || peak_cloud_type_plausible(t, sizeof c->instance_type)) &&
		  (!strcmp(s, "dmi") || !strcmp(s, "metadata") || !strcmp(s, "--set") ||
		   !strcmp(s, "unknown"));
	if (!ok) {
		/* The value quoted without ';', which would split the warnings list. */
		char shown[64];
		set_str(shown, sizeof shown, env);
		for (char *q = strchr(shown, ';'); q; q = strchr(q, ';'))
			*q = ',';
		if (warn && warn_len)
			(void)peak_fmt(warn, warn_len,
				       "%s=%s: not PROVIDER,TYPE,SOURCE, identified here instead",
				       PEAK_CLOUD_ENV, shown);
		return -1;
	}
	set_str(c->provider, sizeof c->provider, p);
	set_str(c->instance_type, sizeof c->instance_type, t);
	set_str(c->source, sizeof c->source, s);
	(void)peak_fmt(c->note, sizeof c->note, "identified once for the run (%s)", PEAK_CLOUD_ENV);
	return 0;
}

void peak_cloud_identify(struct peak_cloud *c, const char *root, const struct peak_cloud_set *set,
			 bool metadata, char *warn, size_t warn_len)
{
	bool live = !root || !root[0], handed = false;
	if (warn && warn_len)
		warn[0] = '\0';
	peak_cloud_from_dmi(c, root);
	if (live)
		handed = from_env(c, warn, warn_len) == 0;
	const char *origin = set && set->origin && set->origin[0] ? set->origin : "--set";
	if (set && set->provider && set->provider[0] && strcmp(set->provider, c->provider) != 0) {
		set_str(c->provider, sizeof c->provider, set->provider);
		c->instance_type[0] = '\0'; /* DMI's type belongs to DMI's cloud */
		set_str(c->source, sizeof c->source, "--set");
		(void)peak_fmt(c->note, sizeof c->note, "cloud.provider from %s", origin);
	}
	if (set && set->instance_type && set->instance_type[0]) {
		set_str(c->instance_type, sizeof c->instance_type, set->instance_type);
		set_str(c->source, sizeof c->source, "--set");
		(void)peak_fmt(c->note, sizeof c->note, "cloud.instance_type from %s", origin);
	}
	if (handed || c->instance_type[0] || !peak_cloud_provider_known(c->provider))
		return;
	/* The note so far, then why no request is made (a copy: peak_fmt cannot overlap). */
	char so_far[sizeof c->note];
	set_str(so_far, sizeof so_far, c->note[0] ? c->note : "provider known");
	if (!peak_cloud_metadata_supported(c->provider)) {
		(void)peak_fmt(c->note, sizeof c->note,
			       "%.80s; no metadata client for %s: set cloud.instance_type", so_far,
			       c->provider);
		return;
	}
	if (!live) {
		(void)peak_fmt(c->note, sizeof c->note,
			       "%.100s; no metadata request for a --root tree", so_far);
		return;
	}
	if (!metadata) {
		(void)peak_fmt(c->note, sizeof c->note,
			       "%.100s; no metadata request (--no-metadata)", so_far);
		return;
	}
	char why[256];
	if (peak_cloud_metadata(c, why, sizeof why) != 0 && warn && warn_len)
		(void)peak_fmt(warn, warn_len, "cloud metadata: %s", why);
}

void peak_cloud_to_context(const struct peak_cloud *c, struct peak_context *ctx)
{
	peak_context_set_str(ctx, "cloud.provider", c->provider[0] ? c->provider : "unknown");
	peak_context_set_str(ctx, "cloud.instance_type",
			     c->instance_type[0] ? c->instance_type : "unknown");
	peak_context_set_str(ctx, "cloud.source", c->source[0] ? c->source : "unknown");
	if (c->note[0])
		peak_context_set_str(ctx, "cloud.note", c->note);
}

void peak_cloud_env_value(const struct peak_cloud *c, char *buf, size_t len)
{
	(void)peak_fmt(buf, len, "%s,%s,%s", c->provider[0] ? c->provider : "unknown",
		       c->instance_type, c->source[0] ? c->source : "unknown");
}

int peak_cloud_metadata(struct peak_cloud *c, char *why, size_t why_len)
{
	char type[sizeof c->instance_type];
	const char *path = "";
	if (peak_cloud_metadata_ask(c->provider, type, sizeof type, &path, why, why_len) != 0)
		return -1;
	(void)peak_fmt(c->instance_type, sizeof c->instance_type, "%s", type);
	(void)peak_fmt(c->source, sizeof c->source, "metadata");
	(void)peak_fmt(c->note, sizeof c->note, "%s metadata service (%s)", c->provider, path);
	return 0;
}
