/* The run's cache sizes: reported, effective, their verdicts and where they came from
 * (peak_cache.h), read from PEAK_CACHE_ENV and written to the context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_cache.h"

static const char *const level_key[PEAK_CACHE_LEVELS] = {"l1d", "l2", "l3"};

static int verdict_of(const char *word, size_t len, enum peak_cache_verdict *v)
{
	const enum peak_cache_verdict all[] = {PEAK_CACHE_UNMEASURED, PEAK_CACHE_NO_KNEE,
					       PEAK_CACHE_AGREES, PEAK_CACHE_SMALLER};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		const char *name = peak_cache_verdict_name(all[i]);
		if (strlen(name) == len && strncmp(word, name, len) == 0) {
			*v = all[i];
			return 0;
		}
	}
	return -1;
}

/* One "KEY=BYTES:VERDICT" item of the variable into cs. Returns 0 or -1. */
static int parse_item(const char *item, size_t len, struct peak_cache_sizes *cs)
{
	for (unsigned k = 0; k < PEAK_CACHE_LEVELS; k++) {
		size_t kl = strlen(level_key[k]);
		if (len <= kl + 1 || strncmp(item, level_key[k], kl) != 0 || item[kl] != '=')
			continue;
		char *end;
		unsigned long long b = strtoull(item + kl + 1, &end, 10);
		if (end == item + kl + 1 || *end != ':' || end >= item + len)
			return -1;
		if (verdict_of(end + 1, (size_t)(item + len - end - 1), &cs->verdict[k]) != 0)
			return -1;
		cs->effective[k] = b;
		return 0;
	}
	return -1;
}

int peak_cache_sizes_init(struct peak_cache_sizes *cs,
			  const uint64_t reported[PEAK_CACHE_LEVELS], char *why, size_t why_len)
{
	memset(cs, 0, sizeof *cs);
	for (unsigned k = 0; k < PEAK_CACHE_LEVELS; k++)
		cs->reported[k] = cs->effective[k] = reported[k];
	(void)snprintf(cs->source, sizeof cs->source, "reported");
	const char *env = getenv(PEAK_CACHE_ENV);
	if (!env || !env[0])
		return 0;
	struct peak_cache_sizes m = *cs;
	for (const char *p = env; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (parse_item(p, len, &m) != 0) {
			(void)snprintf(why, why_len,
				       "%s=%s: not l1d=BYTES:VERDICT,l2=...,l3=...; the reported "
				       "cache sizes stand",
				       PEAK_CACHE_ENV, env);
			return -1;
		}
		p += len + (comma ? 1 : 0);
	}
	/* A level whose verdict is not "smaller" keeps its reported size whatever the
	 * variable says: only a measured knee overrides the machine's word. */
	for (unsigned k = 0; k < PEAK_CACHE_LEVELS; k++)
		if (m.verdict[k] != PEAK_CACHE_SMALLER || !m.effective[k])
			m.effective[k] = m.reported[k];
	*cs = m;
	(void)snprintf(cs->source, sizeof cs->source, "measured by peakinfo (%s)",
		       PEAK_CACHE_ENV);
	return 0;
}

void peak_cache_sizes_measured(struct peak_cache_sizes *cs,
			       const struct peak_cache_level lv[PEAK_CACHE_LEVELS])
{
	for (unsigned k = 0; k < PEAK_CACHE_LEVELS; k++) {
		cs->effective[k] = lv[k].effective_bytes;
		cs->verdict[k] = lv[k].verdict;
	}
	(void)snprintf(cs->source, sizeof cs->source, "measured");
}

static void set_size(struct peak_context *ctx, const char *key, uint64_t v)
{
	if (v)
		peak_context_set_num(ctx, key, (double)v);
	else
		peak_context_set_str(ctx, key, "unknown");
}

void peak_cache_to_context(const struct peak_cache_sizes *cs, struct peak_context *ctx)
{
	char key[PEAK_CONTEXT_KEY_LEN], method[PEAK_CONTEXT_VALUE_LEN];
	int used = snprintf(method, sizeof method, "%s",
			    strcmp(cs->source, "reported") == 0 ? "reported (no latency curve)"
								 : "latency_knee");
	for (unsigned k = 0; k < PEAK_CACHE_LEVELS; k++) {
		(void)snprintf(key, sizeof key, "cache.%s_reported", level_key[k]);
		set_size(ctx, key, cs->reported[k]);
		(void)snprintf(key, sizeof key, "cache.%s_effective", level_key[k]);
		set_size(ctx, key, cs->effective[k]);
		(void)snprintf(key, sizeof key, "cache.%s_verdict", level_key[k]);
		peak_context_set_str(ctx, key, peak_cache_verdict_name(cs->verdict[k]));
		if (strcmp(cs->source, "reported") != 0 && used > 0 &&
		    (size_t)used < sizeof method)
			used += snprintf(method + used, sizeof method - (size_t)used, "%s %s %s",
					 k ? "," : ":", level_key[k],
					 peak_cache_verdict_name(cs->verdict[k]));
	}
	if (strcmp(cs->source, "reported") != 0 && used > 0 && (size_t)used < sizeof method)
		(void)snprintf(method + used, sizeof method - (size_t)used, "; %s", cs->source);
	peak_context_set_str(ctx, "cache.method", method);
}
