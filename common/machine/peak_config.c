/* peaks.conf and --set key=value: overrides for the inputs of the theoretical peaks.
 * Format (docs/peaks-conf.md): "key = value" per line, '#' starts a comment, known keys
 * only, every value a finite number > 0 (whole numbers for counts). */
#include "peak_config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_cloud.h"
#include "peak_uarch.h"

const char *const peak_config_keys[] = {
    "cpu.cores", "cpu.ghz",   "cpu.fma_units", "cpu.fma512_units", "mem.channels", "mem.mts",
    "mem.gbps",  "disk.mbps", "disk.iops",     "net.gbps",         NULL,
};

/* Keys whose value counts things and must be a whole number. */
static const char *const whole_keys[] = {"cpu.cores", "cpu.fma_units", "cpu.fma512_units",
					 "mem.channels", NULL};

static bool in_list(const char *const *list, const char *key)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(list[i], key) == 0)
			return true;
	return false;
}

void peak_config_init(struct peak_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
}

bool peak_config_get(const struct peak_config *cfg, const char *key, double *value)
{
	for (size_t i = 0; i < cfg->n; i++) {
		if (strcmp(cfg->key[i], key) == 0) {
			if (value)
				*value = cfg->value[i];
			return true;
		}
	}
	return false;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n > 0 &&
	       (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* Check key and value; store them. Returns 0, or -1 with the reason (no prefix) in err. */
/* cloud.provider (one of peak_cloud_providers) and cloud.instance_type (an instance type's
 * characters) into cfg, from origin ("--set", "peaks.conf:3"). Returns 0, or -1 with the
 * reason in err (an unknown cloud.* key, an unknown provider). */
static int put_cloud(struct peak_config *cfg, const char *key, const char *value,
		     const char *origin, char *err, size_t err_len)
{
	if (strcmp(key, "cloud.provider") == 0) {
		if (!peak_cloud_provider_known(value)) {
			(void)peak_fmt(
			    err, err_len,
			    "cloud.provider '%.40s' is not one of aws azure gce openstack "
			    "oracle alibaba hetzner digitalocean",
			    value);
			return -1;
		}
		(void)peak_fmt(cfg->cloud_provider, sizeof cfg->cloud_provider, "%s", value);
	} else if (strcmp(key, "cloud.instance_type") == 0) {
		if (!peak_cloud_type_plausible(value, sizeof cfg->cloud_instance_type)) {
			(void)peak_fmt(
			    err, err_len,
			    "cloud.instance_type '%.70s' is not an instance type (letters, "
			    "digits, '.', '_', '-'; under %zu characters)",
			    value, sizeof cfg->cloud_instance_type);
			return -1;
		}
		(void)peak_fmt(cfg->cloud_instance_type, sizeof cfg->cloud_instance_type, "%s", value);
	} else {
		(void)peak_fmt(
		    err, err_len,
		    "unknown key '%.40s' (cloud keys: cloud.provider cloud.instance_type)", key);
		return -1;
	}
	(void)peak_fmt(cfg->cloud_origin, sizeof cfg->cloud_origin, "%s", origin);
	return 0;
}

static int config_put(struct peak_config *cfg, const char *key, const char *text,
		      const char *origin, char *err, size_t err_len)
{
	if (!key[0]) {
		(void)peak_fmt(err, err_len, "missing key before '='");
		return -1;
	}
	if (strcmp(key, "cpu.uarch") != 0 && strcmp(key, "cpu.trust") != 0 &&
	    strncmp(key, "cloud.", 6) != 0 && !in_list(peak_config_keys, key)) {
		(void)peak_fmt(err, err_len,
			       "unknown key '%s' (known: cpu.uarch cpu.trust cloud.provider "
			       "cloud.instance_type cpu.cores cpu.ghz cpu.fma_units "
			       "cpu.fma512_units mem.channels mem.mts mem.gbps disk.mbps disk.iops "
			       "net.gbps)",
			       key);
		return -1;
	}
	if (!text[0]) {
		(void)peak_fmt(err, err_len, "missing value for '%s'", key);
		return -1;
	}
	if (strcmp(key, "cpu.uarch") == 0) {
		/* A name, not a number: a table entry (docs/cpu.md) or "measured". */
		if (!peak_uarch_name_known(text)) {
			(void)peak_fmt(err, err_len,
				       "cpu.uarch '%s' is not a table entry or 'measured' (names: "
				       "docs/cpu.md)",
				       text);
			return -1;
		}
		/* Both fit: a table name (checked above) and an origin of the same size. */
		(void)peak_fmt(cfg->uarch, sizeof cfg->uarch, "%s", text);
		(void)peak_fmt(cfg->uarch_origin, sizeof cfg->uarch_origin, "%s", origin);
		return 0;
	}
	if (strncmp(key, "cloud.", 6) == 0)
		return put_cloud(cfg, key, text, origin, err, err_len);
	if (strcmp(key, "cpu.trust") == 0) {
		/* Whether the probe may correct the table: "probe" (the default) or "table". */
		if (strcmp(text, "table") != 0 && strcmp(text, "probe") != 0) {
			(void)peak_fmt(err, err_len, "cpu.trust '%s' is not 'table' or 'probe'",
				       text);
			return -1;
		}
		cfg->trust_table = strcmp(text, "table") == 0;
		return 0;
	}
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end != '\0' || isnan(v)) {
		(void)peak_fmt(err, err_len, "value '%s' for '%s' is not a number", text, key);
		return -1;
	}
	if (errno == ERANGE || !isfinite(v) || v > 1e15) {
		(void)peak_fmt(err, err_len, "value '%s' for '%s' is out of range", text, key);
		return -1;
	}
	if (!(v > 0)) {
		(void)peak_fmt(err, err_len, "value '%s' for '%s' must be > 0", text, key);
		return -1;
	}
	if (in_list(whole_keys, key) && v != floor(v)) {
		(void)peak_fmt(err, err_len, "value '%s' for '%s' must be a whole number", text,
			       key);
		return -1;
	}
	size_t i;
	for (i = 0; i < cfg->n; i++)
		if (strcmp(cfg->key[i], key) == 0)
			break;
	if (i == cfg->n) {
		if (cfg->n >= PEAK_CONFIG_MAX) {
			(void)peak_fmt(err, err_len, "too many keys");
			return -1;
		}
		cfg->n++;
	}
	/* Both fit: a known key (in_list above) and an origin of the same size. */
	(void)peak_fmt(cfg->key[i], sizeof cfg->key[i], "%s", key);
	cfg->value[i] = v;
	(void)peak_fmt(cfg->origin[i], sizeof cfg->origin[i], "%s", origin);
	return 0;
}

int peak_config_set(struct peak_config *cfg, const char *assignment, char *err, size_t err_len)
{
	char buf[256];
	if (strlen(assignment) >= sizeof buf) {
		(void)peak_fmt(err, err_len, "assignment too long");
		return -1;
	}
	memcpy(buf, assignment, strlen(assignment) + 1);
	char *eq = strchr(buf, '=');
	if (!eq) {
		(void)peak_fmt(err, err_len, "expected key=value, got '%s'", assignment);
		return -1;
	}
	*eq = '\0';
	return config_put(cfg, trim(buf), trim(eq + 1), "--set", err, err_len);
}

static int parse_line(struct peak_config *cfg, char *line, const char *origin, char *err,
		      size_t err_len)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	char *s = trim(line);
	if (!s[0])
		return 0;
	char *eq = strchr(s, '=');
	if (!eq) {
		(void)peak_fmt(err, err_len, "expected 'key = value'");
		return -1;
	}
	*eq = '\0';
	return config_put(cfg, trim(s), trim(eq + 1), origin, err, err_len);
}

int peak_config_load(struct peak_config *cfg, const char *path, bool optional, char *err,
		     size_t err_len)
{
	char why[256];
	if (peak_path_check(path, why, sizeof why) != 0) {
		/* The start of it, so the line stays a line: the whole would be 4 KiB. */
		(void)peak_fmt(err, err_len, "%.60s...: %s", path, why);
		return -1;
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		if (optional && errno == ENOENT)
			return 0;
		(void)peak_fmt(err, err_len, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	char line[512];
	unsigned lineno = 0;
	int rc = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		/* reason quotes the line's key or value (under 512 bytes); the origin fits since
		 * the path passed peak_path_check. */
		char reason[1024], origin[PEAK_CONFIG_ORIGIN_LEN];
		size_t len = strlen(line);
		if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
			(void)peak_fmt(err, err_len, "%s:%u: line too long", path, lineno);
			rc = -1;
			break;
		}
		(void)peak_fmt(origin, sizeof origin, "%s:%u", path, lineno);
		if (parse_line(cfg, line, origin, reason, sizeof reason) != 0) {
			(void)peak_fmt(err, err_len, "%s:%u: %s", path, lineno, reason);
			rc = -1;
			break;
		}
	}
	if (rc == 0 && ferror(f)) {
		(void)peak_fmt(err, err_len, "%s: read error", path);
		rc = -1;
	}
	(void)fclose(f);
	return rc;
}

int peak_config_load_default(struct peak_config *cfg, char *err, size_t err_len)
{
	const char *env = getenv("PEAKBENCH_CONF");
	if (env && env[0])
		return peak_config_load(cfg, env, false, err, err_len);
	return peak_config_load(cfg, "peaks.conf", true, err, err_len);
}
