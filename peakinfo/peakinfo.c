/* peakinfo: the context block of this machine and its theoretical peaks (CPU per ISA and
 * precision, memory, disk, network), each with its source and inputs. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "peak_bench.h"
#include "peak_bench_main.h"
#include "peak_c2c.h"
#include "peak_exit.h"
#include "peak_peak.h"
#include "peak_report.h"
#include "peak_sysinfo.h"
#include "peak_time.h"
#include "peakinfo.h"

/* --set assignments, kept in order and applied after --config so they win over it. */
struct set_list {
	size_t n;
	const char *v[PEAK_CONFIG_MAX];
	struct peak_config check; /* validates each one as it is parsed */
};

static int set_callback(const char *arg, void *dest, char *err, size_t err_len)
{
	struct set_list *sets = dest;
	if (sets->n >= PEAK_CONFIG_MAX) {
		(void)peak_fmt(err, err_len, "at most %d assignments", PEAK_CONFIG_MAX);
		return -1;
	}
	if (peak_config_set(&sets->check, arg, err, err_len) != 0)
		return -1;
	sets->v[sets->n++] = arg;
	return 0;
}

struct peakinfo_opts {
	struct peak_common_opts common;
	struct set_list sets;
	const char *config_path;
	const char *root;
	const char *placement_since; /* --placement-since: only the fingerprint, compared */
	bool placement;              /* --placement: only the fingerprint */
	bool caches;                 /* --caches: only the cache sizes (the latency curve) */
};

/* The program's state (peak_bench_main owns it). */
struct peakinfo {
	struct peakinfo_opts o;
	char config_used[PEAK_PATH_MAX];    /* --config or $PEAKBENCH_CONF: a checked path */
	char since[PEAK_CONTEXT_VALUE_LEN]; /* --placement-since's fingerprint */
};

/* --placement-since: a fingerprint, or a peakinfo JSON file (a run's raw/peakinfo.json)
 * whose context holds one. */
static int since_callback(const char *arg, void *dest, char *err, size_t err_len)
{
	struct peak_c2c_pair pairs[1];
	size_t n;
	if (access(arg, R_OK) != 0 && peak_c2c_parse(arg, pairs, 1, &n) != 0) {
		(void)peak_fmt(
		    err, err_len,
		    "'%s' is neither a fingerprint like 0-1:88/98 (c2c.round_trip_ns) nor "
		    "a readable peakinfo JSON file",
		    arg);
		return -1;
	}
	*(const char **)dest = arg;
	return 0;
}

/* The fingerprint in a peakinfo JSON file's context, or the argument itself. Returns 0,
 * or -1 with the reason. */
static int since_fingerprint(const char *arg, char *out, size_t len, char *err, size_t err_len)
{
	if (access(arg, R_OK) != 0) {
		(void)snprintf(out, len, "%s", arg);
		return 0;
	}
	FILE *f = fopen(arg, "r");
	char *text = f ? calloc(1, 1u << 20) : NULL;
	size_t got = text ? fread(text, 1, (1u << 20) - 1, f) : 0;
	if (f)
		(void)fclose(f);
	cJSON *doc = got ? cJSON_Parse(text) : NULL;
	free(text);
	const cJSON *fp = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(doc, "context"), "c2c.round_trip_ns");
	struct peak_c2c_pair pairs[1];
	size_t n;
	int rc = -1;
	if (cJSON_IsString(fp) && peak_c2c_parse(fp->valuestring, pairs, 1, &n) == 0) {
		(void)snprintf(out, len, "%s", fp->valuestring);
		rc = 0;
	} else {
		(void)peak_fmt(err, err_len,
			       "%s holds no placement fingerprint (c2c.round_trip_ns)", arg);
	}
	cJSON_Delete(doc);
	return rc;
}

/* --config FILE, else the one peaks.conf policy (peak_bench_config), then --set. A file
 * that does not load is bad input: e gets exit 2 and one line. */
static int load_config(const struct peakinfo_opts *o, struct peak_config *cfg, char *used,
		       size_t used_len, struct peak_bench_err *e)
{
	char err[PEAK_MSG_MAX];
	if (o->config_path) {
		peak_config_init(cfg);
		(void)peak_fmt(used, used_len, "%s", o->config_path); /* fits: PEAK_OPT_PATH */
		if (peak_config_load(cfg, o->config_path, false, err, sizeof err) != 0)
			return peak_bench_fail(e, PEAK_EXIT_USAGE, "--config: %s", err);
	} else {
		const char *env = getenv("PEAKBENCH_CONF");
		/* Loaded first: it checks $PEAKBENCH_CONF against the kernel's limits, after
		 * which it fits in used. */
		if (peak_bench_config(cfg, e) != 0)
			return -1;
		(void)peak_fmt(used, used_len, "%s",
			       env && env[0] ? env : "peaks.conf (if present)");
	}
	for (size_t i = 0; i < o->sets.n; i++)
		if (peak_config_set(cfg, o->sets.v[i], err, sizeof err) != 0)
			return peak_bench_fail(e, PEAK_EXIT_USAGE, "--set: %s", err);
	return 0;
}

/* The VM placement fingerprint: core-to-core round trips between the first 6 allowed
 * CPUs (15 pairs at most, a few ms each; the context value holds that many). Not with
 * --root: a fake tree has no cores. With since (a fingerprint taken earlier, at a run's
 * start), c2c.moved says whether any pair changed by more than 1.5x since. */
static void placement_to_context(struct peak_context *ctx, bool fake_root, const char *since)
{
	struct peak_c2c_pair pairs[15], before[15];
	size_t n = 0, nb = 0;
	char err[160], text[PEAK_CONTEXT_VALUE_LEN];
	if (fake_root) {
		peak_context_set_str(ctx, "c2c.round_trip_ns", "not measured (--root)");
		return;
	}
	if (peak_c2c_measure(6, 5, 200, pairs, 15, &n, err, sizeof err) != 0) {
		peak_context_set_str(ctx, "c2c.round_trip_ns", "unknown");
		peak_context_set_str(ctx, "c2c.note", err);
		return;
	}
	peak_c2c_format(pairs, n, text, sizeof text);
	peak_context_set_str(ctx, "c2c.round_trip_ns", text);
	if (since && peak_c2c_parse(since, before, 15, &nb) == 0) {
		peak_context_set_str(ctx, "c2c.since", since);
		peak_context_set_bool(ctx, "c2c.moved", peak_c2c_moved(before, nb, pairs, n));
	}
	peak_context_set_str(ctx, "c2c.note",
			     n ? "cache-line round trip per pair of allowed CPUs: min/median ns "
				 "of 5 samples x 200 round trips"
			       : "one allowed CPU: nothing to pair");
}

static void pi_defaults(void *state)
{
	peak_config_init(&((struct peakinfo_opts *)state)->sets.check);
}

static size_t pi_options(void *state, struct peak_opt *t, size_t max)
{
	struct peakinfo_opts *o = state;
	const struct peak_opt table[] = {
	    PEAK_OPTS_COMMON(&o->common),
	    {"set", "KEY=VALUE", "override a peak input, e.g. mem.channels=6 (repeatable)",
	     PEAK_OPT_CALLBACK, &o->sets, 0, 0, NULL, set_callback},
	    {"config", "FILE", "peaks file (default: $PEAKBENCH_CONF, else ./peaks.conf)",
	     PEAK_OPT_PATH, &o->config_path, 0, 0, NULL, NULL},
	    {"placement-since", "FINGERPRINT",
	     "only measure the VM placement fingerprint again and say whether it moved since "
	     "FINGERPRINT (c2c.round_trip_ns of an earlier run, e.g. 0-1:88/98)",
	     PEAK_OPT_CALLBACK, &o->placement_since, 0, 0, NULL, since_callback},
	    {"placement", NULL,
	     "only measure the VM placement fingerprint (c2c.round_trip_ns), in a few ms: "
	     "run_all.sh takes one before and after each side of a paired round",
	     PEAK_OPT_FLAG, &o->placement, 0, 0, NULL, NULL},
	    {"caches", NULL,
	     "only the cache sizes, reported and effective (a short load-latency curve, about "
	     "a second): run_all.sh measures them once, before anything sized from the caches",
	     PEAK_OPT_FLAG, &o->caches, 0, 0, NULL, NULL},
	    {"root", "DIR", "testing: read /proc and /sys from DIR (skips cpuid, hwloc, libnuma)",
	     PEAK_OPT_PATH, &o->root, 0, 0, NULL, NULL},
	};
	return peak_bench_opts_copy(t, max, table, sizeof table / sizeof table[0]);
}

/* --root reads a fake tree; --placement(-since) measures the fingerprint alone (bare: no
 * sysinfo, no peaks). */
static int pi_check(struct peak_bench_env *env)
{
	struct peakinfo *p = env->state;
	char err[PEAK_MSG_MAX];
	env->root = p->o.root ? p->o.root : "";
	env->bare = p->o.placement_since || p->o.placement;
	if (p->o.placement_since && since_fingerprint(p->o.placement_since, p->since,
						      sizeof p->since, err, sizeof err) != 0)
		return peak_bench_fail(&env->err, PEAK_EXIT_UNSUPPORTED, "--placement-since: %s",
				       err);
	return 0;
}

static int pi_config(struct peak_bench_env *env)
{
	struct peakinfo *p = env->state;
	return load_config(&p->o, &env->cfg, p->config_used, sizeof p->config_used, &env->err);
}

/* The run's effective cache sizes: the figure run_all.sh handed down (PEAK_CACHE_ENV, read
 * by peak_sysinfo_collect) when there is one, else this process measures the curve. A
 * fake root has no caches to chase through, and under qemu's translator (CI's emulated
 * CPUs) every load is translated code and the caches are the host's: the reported sizes
 * stand, and cache.method says why. */
static void caches_to_context(struct peak_bench_env *env, bool fake_root)
{
	struct peak_sysinfo *si = &env->si;
	bool translated = strcmp(si->hypervisor, "qemu-tcg") == 0;
	if (!fake_root && !translated && strcmp(si->cache.source, "reported") == 0) {
		struct peak_cache_point pts[PEAK_CACHE_PROBE_MAX];
		struct peak_cache_level lv[PEAK_CACHE_LEVELS];
		uint64_t t0 = peak_time_now_ns();
		size_t n = peak_cache_probe(si->cache.reported[PEAK_CACHE_LEVELS - 1],
					    si->mem_available_bytes, pts, PEAK_CACHE_PROBE_MAX);
		/* Where peakinfo's time goes (issue 41: 3.4-3.8 s on the Zen 5 record): the
		 * curve beside peak.probe_seconds. */
		peak_context_set_num(&env->ctx, "cache.curve_seconds",
				     (double)(peak_time_now_ns() - t0) * 1e-9);
		if (n) {
			peak_cache_knees(pts, n, si->cache.reported, lv);
			peak_cache_sizes_measured(&si->cache, lv);
			peak_context_set_num(&env->ctx, "cache.l3_plateau_ns",
					     lv[PEAK_CACHE_LEVELS - 1].plateau_ns);
			peak_context_set_num(&env->ctx, "cache.l3_knee",
					     (double)lv[PEAK_CACHE_LEVELS - 1].knee_bytes);
		}
	}
	peak_cache_to_context(&si->cache, &env->ctx);
	if (translated && strcmp(si->cache.source, "reported") == 0)
		peak_context_set_str(&env->ctx, "cache.method",
				     "reported (qemu-tcg translates every load: no latency curve)");
}

static int pi_context(struct peak_bench_env *env)
{
	struct peakinfo *p = env->state;
	if (!env->bare)
		caches_to_context(env, p->o.root != NULL);
	if (p->o.caches)
		return 0;
	if (env->bare) {
		placement_to_context(&env->ctx, p->o.root != NULL, p->since[0] ? p->since : NULL);
		return 0;
	}
	peak_context_set_str(&env->ctx, "peakinfo.config", p->config_used);
	for (size_t i = 0; i < env->cfg.n; i++) {
		char key[PEAK_CONTEXT_KEY_LEN];
		(void)snprintf(key, sizeof key, "override.%s", env->cfg.key[i]);
		peak_context_set_str(&env->ctx, key, env->cfg.origin[i]);
	}
	placement_to_context(&env->ctx, p->o.root != NULL, NULL);
	return 0;
}

/* The peak records (none for the fingerprint alone). */
static int pi_sweep(struct peak_bench_env *env)
{
	struct peakinfo *p = env->state;
	struct peak_loopback lo;
	if (env->bare || p->o.caches)
		return 0;
	(void)peak_loopback_measure(&lo); /* a failure leaves gbps 0 and the reason */
	if (peakinfo_report(&env->out, &env->si, &env->m, &lo) != 0)
		return peak_bench_fail(&env->err, PEAK_EXIT_FAIL, "writing %s failed",
				       env->common->output ? env->common->output : "stdout");
	return 0;
}

static const struct peak_bench_program peakinfo = {
    .name = "peakinfo",
    .usage = "[options]",
    .summary = "Print this machine's context and theoretical peaks (CPU, memory, disk, "
	       "network) with the source of every input. Overrides: docs/peaks-conf.md.",
    .state_bytes = sizeof(struct peakinfo),
    .common_offset = offsetof(struct peakinfo, o.common),
    .defaults = pi_defaults,
    .options = pi_options,
    .machine = PEAK_BENCH_MACHINE_CPU,
    .check = pi_check,
    .config = pi_config,
    .context = pi_context,
    .sweep = pi_sweep,
};

int main(int argc, char **argv)
{
	return peak_bench_main(argc, argv, &peakinfo);
}
