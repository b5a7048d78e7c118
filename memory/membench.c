/* membench: memory throughput (sequential and random block copy, read and write), load
 * latency versus working set (pointer chase) and STREAM, with the machine's theoretical
 * bandwidth beside each figure. */
#include <inttypes.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem_run.h"
#include "peak_bench_main.h"
#include "peak_exit.h"
#include "peak_isa.h"

static const char *const onoff_choices[] = {"auto", "on", "off", NULL};
#if defined(__aarch64__)
#define ISA_HELP "kernels: auto (widest), scalar, neon, sve"
#else
#define ISA_HELP "kernels: auto (widest), scalar, sse2, avx2, avx512"
#endif

/* --sweep MIN:MAX[:STEPS]: working sets from MIN to MAX, STEPS points per power of two. */
static int parse_sweep(const char *arg, void *dest, char *err, size_t err_len)
{
	struct mem_sweep *s = dest;
	char lo[64], hi[64], steps[16] = "4";
	const char *c1 = strchr(arg, ':');
	const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	size_t l1 = c1 ? (size_t)(c1 - arg) : 0;
	size_t l2 = c1 ? (c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1)) : 0;
	if (!c1 || l1 == 0 || l1 >= sizeof(lo) || l2 == 0 || l2 >= sizeof(hi) ||
	    (c2 && (strlen(c2 + 1) == 0 || strlen(c2 + 1) >= sizeof(steps)))) {
		snprintf(err, err_len, "'%s' is not MIN:MAX[:STEPS], e.g. 4KiB:1GiB or 4KiB:1GiB:4",
			 arg);
		return -1;
	}
	memcpy(lo, arg, l1);
	lo[l1] = '\0';
	memcpy(hi, c1 + 1, l2);
	hi[l2] = '\0';
	if (c2)
		snprintf(steps, sizeof(steps), "%s", c2 + 1);
	char why[128];
	uint64_t n = 0;
	if (peak_parse_size(lo, &s->min_bytes, why, sizeof(why)) != 0 ||
	    peak_parse_size(hi, &s->max_bytes, why, sizeof(why)) != 0 ||
	    peak_parse_u64(steps, &n, why, sizeof(why)) != 0) {
		snprintf(err, err_len, "'%s': %s", arg, why);
		return -1;
	}
	if (s->min_bytes < 128 || s->max_bytes < s->min_bytes || n < 1 || n > 16 ||
	    s->max_bytes > ((uint64_t)1 << 40)) {
		snprintf(err, err_len,
			 "'%s' needs 128B <= MIN <= MAX <= 1TiB and 1 <= STEPS <= 16 (e.g. "
			 "4KiB:1GiB:4)",
			 arg);
		return -1;
	}
	s->steps_per_octave = (unsigned)n;
	s->set = true;
	return 0;
}

struct raw_opts {
	struct peak_str_list tests;
	const char *hugepages, *nt, *isa;
};

/* The program's state (peak_bench_main owns it): the run the parts share and the option
 * strings resolve() turns into its choices. */
struct membench {
	struct mem_run run;
	struct raw_opts raw;
};

/* check: turn parsed strings into the run's choices; bad combinations are exit 2, an ISA
 * or THP this machine lacks exit 3. */
static int mem_check(struct peak_bench_env *env)
{
	struct membench *mb = env->state;
	struct mem_run *run = &mb->run;
	const struct raw_opts *raw = &mb->raw;
	struct peak_bench_err *e = &env->err;
	run->si = &env->si;
	run->ctx = &env->ctx;
	run->out = &env->out;
	run->err = e;
	if (raw->tests.n == 0) {
		/* --sweep alone asks for the latency curve; otherwise every test. */
		for (int t = 0; t < MEM_T_COUNT; t++)
			run->want[t] = !run->sweep.set || t == MEM_T_LATENCY;
	}
	for (size_t i = 0; i < raw->tests.n; i++)
		for (int t = 0; t < MEM_T_COUNT; t++)
			if (strcmp(raw->tests.v[i], mem_test_names[t]) == 0)
				run->want[t] = true;
	if (run->sweep.set && !run->want[MEM_T_LATENCY])
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--sweep: applies to the latency test; add latency to --test");
	for (size_t i = 0; i < run->blocks.n; i++)
		if (run->blocks.v[i] % 8 != 0)
			return peak_bench_fail(e, PEAK_EXIT_USAGE,
					       "--block: each block must be a multiple of 8 bytes "
					       "(e.g. 8B,8KiB,8MiB,80MiB)");
	run->hugepages = strcmp(raw->hugepages, "on") == 0    ? MEM_HP_ON
			 : strcmp(raw->hugepages, "off") == 0 ? MEM_HP_OFF
							      : MEM_HP_AUTO;
	run->nt = strcmp(raw->nt, "on") == 0    ? MEM_NT_ON
		  : strcmp(raw->nt, "off") == 0 ? MEM_NT_OFF
						: MEM_NT_AUTO;
	int isa = mem_isa_parse(raw->isa);
	if (isa == -2)
		isa = (int)mem_isa_best();
	char reason[96];
	if (isa < 0 || !mem_isa_supported((enum mem_isa)isa, reason, sizeof(reason)))
		return peak_bench_fail(e, PEAK_EXIT_UNSUPPORTED, "--isa %s: %s", raw->isa,
				       isa < 0 ? "unknown ISA" : reason);
	run->ops = mem_ops_for((enum mem_isa)isa);
	if (run->hugepages == MEM_HP_ON && !peak_team_thp_available())
		return peak_bench_fail(e, PEAK_EXIT_UNSUPPORTED,
				       "--hugepages on: transparent huge pages are disabled here "
				       "(/sys/kernel/mm/transparent_hugepage/enabled); use auto or off");
	return 0;
}

static void mem_defaults(void *state)
{
	struct membench *mb = state;
	struct mem_run *run = &mb->run;
	mb->raw = (struct raw_opts){.hugepages = "auto", .nt = "auto", .isa = "auto"};
	run->blocks.n = 4;
	run->blocks.v[0] = 8;
	run->blocks.v[1] = 8 << 10;
	run->blocks.v[2] = 8 << 20;
	run->blocks.v[3] = 80 << 20;
	run->size_bytes = (uint64_t)1 << 30;
	run->seed = 1;
}

static size_t mem_options(void *state, struct peak_opt *t, size_t max)
{
	struct membench *mb = state;
	struct mem_run *run = &mb->run;
	struct raw_opts *raw = &mb->raw;
	const struct peak_opt opts[] = {
	    {"test", "LIST",
	     "tests: seq_rw,rand_rw,seq_read,seq_write,rand_read,rand_write,"
	     "latency,stream or all (default all)",
	     PEAK_OPT_CHOICE_LIST, &raw->tests, 0, 0, mem_test_names, NULL},
	    {"block", "LIST", "block sizes of the throughput tests (default 8B,8KiB,8MiB,80MiB)",
	     PEAK_OPT_SIZE_LIST, &run->blocks, 8, 1099511627776.0, NULL, NULL},
	    {"size", "SIZE",
	     "buffer shared by the threads; STREAM's three arrays together; "
	     "latency's largest default point (default 1GiB)",
	     PEAK_OPT_SIZE, &run->size_bytes, 4096, 1125899906842624.0, NULL, NULL},
	    {"sweep", "MIN:MAX[:STEPS]",
	     "latency curve over working sets, STEPS points per "
	     "power of two (default 4), e.g. 4KiB:1GiB",
	     PEAK_OPT_CALLBACK, &run->sweep, 0, 0, NULL, parse_sweep},
	    {"hugepages", "MODE",
	     "auto (THP where the kernel allows; latency: 4k and THP), "
	     "on, off",
	     PEAK_OPT_CHOICE, &raw->hugepages, 0, 0, onoff_choices, NULL},
	    {"nt", "MODE", "non-temporal stores: auto (blocks/arrays larger than the LLC), on, off",
	     PEAK_OPT_CHOICE, &raw->nt, 0, 0, onoff_choices, NULL},
	    {"isa", "ISA", ISA_HELP, PEAK_OPT_CHOICE, &raw->isa, 0, 0, mem_isa_choices, NULL},
	    {"seed", "N", "seed of the random orders (default 1)", PEAK_OPT_UINT, &run->seed, 0, 0,
	     NULL, NULL},
	    PEAK_OPTS_COMMON(&run->common),
	};
	return peak_bench_opts_copy(t, max, opts, sizeof(opts) / sizeof(opts[0]));
}

static void human(uint64_t bytes, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f GiB", (double)bytes / (double)(1 << 30));
	if (bytes < ((uint64_t)1 << 30))
		snprintf(buf, len, "%.1f MiB", (double)bytes / (double)(1 << 20));
}

/* prepare: refuse, before anything is allocated, a run whose buffers do not fit in
 * MemAvailable (exit 2). */
static int mem_prepare(struct peak_bench_env *env)
{
	struct mem_run *run = &((struct membench *)env->state)->run;
	uint64_t tp = mem_throughput_need(run), lat = mem_latency_need(run),
		 st = mem_stream_need(run);
	uint64_t need = tp > lat ? tp : lat;
	need = need > st ? need : st;
	uint64_t avail = run->si->mem_available_bytes;
	if (avail == 0) {
		peak_context_warn(run->ctx,
				  "membench: MemAvailable unknown, buffer size not checked");
		return 0;
	}
	if (need <= avail)
		return 0;
	char n[32], a[32];
	human(need, n, sizeof(n));
	human(avail, a, sizeof(a));
	const char *flag = lat == need && run->sweep.set ? "sweep" : "size";
	return peak_bench_fail(&env->err, PEAK_EXIT_USAGE,
			       "--%s: buffers and random orders need %s (%" PRIu64
			       " bytes) but only %s (%" PRIu64
			       " bytes) is available (MemAvailable); use a smaller --%s",
			       flag, n, need, a, avail, flag);
}

/* context: machine facts for the rows' peaks (peak_machine_init's) and the run's keys. */
static int mem_context(struct peak_bench_env *env)
{
	struct mem_run *run = &((struct membench *)env->state)->run;
	const struct peak_machine *m = &env->m;
	/* The effective LLC (the run's latency knee where it says less than the reported
	 * size): what decides `cached`, `small_arrays` and --nt auto. */
	run->llc_bytes = peak_sysinfo_llc_effective_bytes(run->si);
	run->theoretical_mbps =
	    m->mem_gbps.source != PEAK_SRC_UNKNOWN ? m->mem_gbps.value * 1000.0 : NAN;
	run->ghz = m->ghz.source != PEAK_SRC_UNKNOWN ? m->ghz.value : 0.0;
	peak_context_set_str(run->ctx, "membench_isa", run->ops->name);
	peak_context_set_str(run->ctx, "membench_nt",
			     run->nt == MEM_NT_ON    ? "on"
			     : run->nt == MEM_NT_OFF ? "off"
						     : "auto");
	peak_context_set_str(run->ctx, "membench_hugepages",
			     run->hugepages == MEM_HP_ON    ? "on"
			     : run->hugepages == MEM_HP_OFF ? "off"
							    : "auto");
	if (run->ops->isa == MEM_ISA_SVE) /* scalable: the length the kernels ran at */
		peak_context_set_num(run->ctx, "membench_sve_vl_bits",
				     (double)peak_isa_sve_vl_bits());
	peak_context_set_num(run->ctx, "membench_seed", (double)run->seed);
	peak_context_set_num(run->ctx, "membench_size_bytes", (double)run->size_bytes);
	if (!run->llc_bytes)
		peak_context_warn(run->ctx, "membench: LLC size unknown, no non-temporal stores");
	if (run->ghz <= 0)
		peak_context_warn(run->ctx, "membench: core clock unknown, no latency in cycles");
	return 0;
}


/* The parts, each its sweeps of the harness (main -> parts -> kernels/common). */
static int mem_sweep(struct peak_bench_env *env)
{
	struct mem_run *run = &((struct membench *)env->state)->run;
	int rc = mem_throughput_run(run);
	if (rc == 0 && run->want[MEM_T_LATENCY])
		rc = mem_latency_run(run);
	if (rc == 0 && run->want[MEM_T_STREAM])
		rc = mem_stream_run(run);
	return rc;
}

static const struct peak_bench_program membench = {
    .name = "membench",
    .usage = "[options]",
    .summary = "Memory throughput (block copy/read/write, sequential and random), "
	       "load latency versus working set, and STREAM.",
    .state_bytes = sizeof(struct membench),
    .common_offset = offsetof(struct membench, run.common),
    .defaults = mem_defaults,
    .options = mem_options,
    .machine = PEAK_BENCH_MACHINE_PEAKS,
    .check = mem_check,
    .prepare = mem_prepare,
    .context = mem_context,
    .sweep = mem_sweep,
};

int main(int argc, char **argv)
{
	return peak_bench_main(argc, argv, &membench);
}
