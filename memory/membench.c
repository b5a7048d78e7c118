/* membench: memory throughput (sequential and random block copy, read and write), load
 * latency versus working set (pointer chase) and STREAM, with the machine's theoretical
 * bandwidth beside each figure. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem_run.h"
#include "peak_exit.h"

static const char *const onoff_choices[] = {"auto", "on", "off", NULL};
static const char *const isa_choices[] = {"auto", "scalar", "sse2", "avx2", "avx512", NULL};

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

static int usage_error(const char *flag, const char *msg)
{
	fprintf(stderr, "membench: --%s: %s\n", flag, msg);
	return PEAK_EXIT_USAGE;
}

/* Turn parsed strings into the run's choices; exit code on bad combinations. */
static int resolve(struct mem_run *run, const struct raw_opts *raw)
{
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
		return usage_error("sweep", "applies to the latency test; add latency to --test");
	for (size_t i = 0; i < run->blocks.n; i++)
		if (run->blocks.v[i] % 8 != 0)
			return usage_error("block", "each block must be a multiple of 8 bytes "
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
	if (isa < 0 || !mem_isa_supported((enum mem_isa)isa, reason, sizeof(reason))) {
		fprintf(stderr, "membench: --isa %s: %s\n", raw->isa,
			isa < 0 ? "unknown ISA" : reason);
		return PEAK_EXIT_UNSUPPORTED;
	}
	run->ops = mem_ops_for((enum mem_isa)isa);
	if (run->hugepages == MEM_HP_ON && !peak_team_thp_available()) {
		fprintf(stderr,
			"membench: --hugepages on: transparent huge pages are disabled "
			"here (/sys/kernel/mm/transparent_hugepage/enabled); use auto or off\n");
		return PEAK_EXIT_UNSUPPORTED;
	}
	return 0;
}

static int parse_args(struct mem_run *run, int argc, char **argv)
{
	struct raw_opts raw = {.hugepages = "auto", .nt = "auto", .isa = "auto"};
	peak_opts_common_defaults(&run->common);
	run->blocks.n = 4;
	run->blocks.v[0] = 8;
	run->blocks.v[1] = 8 << 10;
	run->blocks.v[2] = 8 << 20;
	run->blocks.v[3] = 80 << 20;
	run->size_bytes = (uint64_t)1 << 30;
	run->seed = 1;
	const struct peak_opt opts[] = {
	    {"test", "LIST",
	     "tests: seq_rw,rand_rw,seq_read,seq_write,rand_read,rand_write,"
	     "latency,stream or all (default all)",
	     PEAK_OPT_CHOICE_LIST, &raw.tests, 0, 0, mem_test_names, NULL},
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
	     PEAK_OPT_CHOICE, &raw.hugepages, 0, 0, onoff_choices, NULL},
	    {"nt", "MODE", "non-temporal stores: auto (blocks/arrays larger than the LLC), on, off",
	     PEAK_OPT_CHOICE, &raw.nt, 0, 0, onoff_choices, NULL},
	    {"isa", "ISA", "kernels: auto (widest), scalar, sse2, avx2, avx512", PEAK_OPT_CHOICE,
	     &raw.isa, 0, 0, isa_choices, NULL},
	    {"seed", "N", "seed of the random orders (default 1)", PEAK_OPT_UINT, &run->seed, 0, 0,
	     NULL, NULL},
	    PEAK_OPTS_COMMON(&run->common),
	};
	const struct peak_cli cli = {
	    .prog = "membench",
	    .usage = "[options]",
	    .summary = "Memory throughput (block copy/read/write, sequential and random), "
		       "load latency versus working set, and STREAM.",
	    .opts = opts,
	    .nopts = sizeof(opts) / sizeof(opts[0]),
	    .common = &run->common,
	};
	enum peak_opts_status st = peak_opts_parse(&cli, argc, argv, NULL);
	if (st == PEAK_OPTS_EXIT)
		return -1;
	if (st != PEAK_OPTS_OK)
		return PEAK_EXIT_USAGE;
	return resolve(run, &raw);
}

static void human(uint64_t bytes, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f GiB", (double)bytes / (double)(1 << 30));
	if (bytes < ((uint64_t)1 << 30))
		snprintf(buf, len, "%.1f MiB", (double)bytes / (double)(1 << 20));
}

/* Refuse, before anything is allocated, a run whose buffers do not fit in MemAvailable. */
static int check_memory(struct mem_run *run)
{
	uint64_t tp = mem_throughput_need(run), lat = mem_latency_need(run),
		 st = mem_stream_need(run);
	uint64_t need = tp > lat ? tp : lat;
	need = need > st ? need : st;
	uint64_t avail = run->si.mem_available_bytes;
	if (avail == 0) {
		peak_context_warn(&run->ctx,
				  "membench: MemAvailable unknown, buffer size not checked");
		return 0;
	}
	if (need <= avail)
		return 0;
	char n[32], a[32];
	human(need, n, sizeof(n));
	human(avail, a, sizeof(a));
	const char *flag = lat == need && run->sweep.set ? "sweep" : "size";
	fprintf(stderr,
		"membench: --%s: buffers and random orders need %s (%" PRIu64
		" bytes) but only %s (%" PRIu64
		" bytes) is available (MemAvailable); use a smaller --%s\n",
		flag, n, need, a, avail, flag);
	return PEAK_EXIT_USAGE;
}

/* Machine facts for the row's peaks; cfg is peaks.conf, loaded by peak_bench_config. */
static void machine(struct mem_run *run, const struct peak_config *cfg)
{
	peak_machine_init(&run->machine, &run->si, cfg, "");
	peak_machine_to_context(&run->machine, &run->ctx);
	run->llc_bytes = peak_sysinfo_llc_bytes(&run->si);
	run->theoretical_mbps = run->machine.mem_gbps.source != PEAK_SRC_UNKNOWN
				    ? run->machine.mem_gbps.value * 1000.0
				    : NAN;
	run->ghz = run->machine.ghz.source != PEAK_SRC_UNKNOWN ? run->machine.ghz.value : 0.0;
	peak_context_set_str(&run->ctx, "membench_isa", run->ops->name);
	peak_context_set_str(&run->ctx, "membench_nt",
			     run->nt == MEM_NT_ON    ? "on"
			     : run->nt == MEM_NT_OFF ? "off"
						     : "auto");
	peak_context_set_str(&run->ctx, "membench_hugepages",
			     run->hugepages == MEM_HP_ON    ? "on"
			     : run->hugepages == MEM_HP_OFF ? "off"
							    : "auto");
	peak_context_set_num(&run->ctx, "membench_seed", (double)run->seed);
	peak_context_set_num(&run->ctx, "membench_size_bytes", (double)run->size_bytes);
	if (!run->llc_bytes)
		peak_context_warn(&run->ctx, "membench: LLC size unknown, no non-temporal stores");
	if (run->ghz <= 0)
		peak_context_warn(&run->ctx, "membench: core clock unknown, no latency in cycles");
}

/* Option parsing and declarations; the parts measure (main -> parts -> kernels/common). */
int main(int argc, char **argv)
{
	struct mem_run *run = calloc(1, sizeof(*run));
	if (!run) {
		fprintf(stderr, "membench: out of memory\n");
		return PEAK_EXIT_FAIL;
	}
	int rc = parse_args(run, argc, argv);
	if (rc != 0) {
		free(run);
		return rc < 0 ? PEAK_EXIT_OK : rc;
	}
	/* A peaks.conf that does not parse is bad input (exit 2), before anything runs. */
	struct peak_config cfg;
	if (peak_bench_config(&cfg, &run->err) != 0) {
		rc = peak_bench_exit(&run->err, "membench");
		free(run);
		return rc;
	}
	peak_sysinfo_collect(&run->si, "");
	peak_context_init(&run->ctx);
	peak_sysinfo_to_context(&run->si, &run->ctx);
	rc = check_memory(run);
	if (rc != 0) {
		free(run);
		return rc;
	}
	char err[256];
	if (peak_output_open(&run->out, run->common.format, run->common.output, err, sizeof(err)) !=
	    0) {
		fprintf(stderr, "membench: %s\n", err);
		free(run);
		return PEAK_EXIT_USAGE;
	}
	machine(run, &cfg);
	rc = 0;
	if (peak_output_begin(&run->out, &run->ctx) != 0)
		rc = mem_fail(run, PEAK_EXIT_FAIL, "writing the results failed");
	if (rc == 0)
		rc = mem_throughput_run(run);
	if (rc == 0 && run->want[MEM_T_LATENCY])
		rc = mem_latency_run(run);
	if (rc == 0 && run->want[MEM_T_STREAM])
		rc = mem_stream_run(run);
	if (run->progress_shown)
		fprintf(stderr, "\r\033[K");
	(void)peak_sysinfo_finish(&run->si, &run->ctx);
	if (peak_output_close(&run->out, &run->ctx) != 0)
		(void)mem_fail(run, PEAK_EXIT_FAIL, "writing the results failed");
	rc = peak_bench_exit(&run->err, "membench");
	free(run);
	return rc;
}
