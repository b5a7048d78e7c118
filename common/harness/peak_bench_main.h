/* One way in and one way out for every binary: a binary declares what it is (a static
 * const struct peak_bench_program: its options, its hooks, its sweep) and its main is one
 * call of peak_bench_main, which owns option parsing, peaks.conf, sysinfo and the context
 * block, the machine's peaks (CPU init where asked), the output, errors and the exit code.
 *
 * The order, each hook optional but sweep:
 *   defaults, options -> parse (bad flag: one line, exit 2; --help/--version: exit 0)
 *   check      the options alone (resolve lists, exit 2 or 3 with e set)
 *   config     peaks.conf (NULL: peak_bench_config, a bad file is exit 2)
 *   start      the program's own start-up before the machine is read (EAL, a server)
 *   sysinfo    collected from env->root (skipped when env->bare)
 *   prepare    bad input against the machine (not enough memory), before any output
 *   machine    peak_machine_init or peak_machine_init_cpu (prog->machine)
 *   output     --format/--output opened (a bad --output is exit 2)
 *   setup      after the output opened (create a file, connect); a failure still writes
 *              the context and no rows
 *   context    sysinfo's and the machine's keys, then this hook's
 *   begin, sweep (only when setup succeeded), finish (always once the output is open),
 *   sysinfo finish, output close, cleanup (always: state may be half set up), exit code.
 * Hooks return 0 to go on, -1 with env->err set, or PEAK_BENCH_DONE to end here with
 * env->err's code (the dut of dpdkbench serves and writes no results). */
#ifndef PEAK_BENCH_MAIN_H
#define PEAK_BENCH_MAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "peak_bench.h"
#include "peak_context.h"
#include "peak_opts.h"
#include "peak_peak.h"
#include "peak_report.h"
#include "peak_sysinfo.h"

#define PEAK_BENCH_DONE     1
#define PEAK_BENCH_MAX_OPTS 64

/* What a program's hooks see: the run's facts, owned by peak_bench_main. */
struct peak_bench_env {
	const struct peak_bench_program *prog;
	void *state;                     /* the program's own, zeroed, prog->state_bytes */
	struct peak_common_opts *common; /* inside state, at prog->common_offset */
	int argc;                        /* the whole command line */
	char **argv;
	int first_arg;    /* prog->operands: argv index of the first operand (== argc: none) */
	int dashdash;     /* prog->args_after_dashdash: index of "--" in argv (0: none) */
	const char *root; /* sysinfo's and the machine's root ("" the real one); check may set */
	bool bare;        /* set by check: no sysinfo, no machine (peakinfo --placement) */
	struct peak_config cfg;
	struct peak_sysinfo si;
	struct peak_machine m;
	struct peak_context ctx;
	struct peak_output out;
	struct peak_bench_err err;
	struct peak_opt opts[PEAK_BENCH_MAX_OPTS]; /* the program's table, as options wrote it */
};

enum peak_bench_machine_kind {
	PEAK_BENCH_MACHINE_NONE = 0, /* sysinfo only */
	PEAK_BENCH_MACHINE_PEAKS,    /* peak_machine_init: memory, disk, network peaks */
	PEAK_BENCH_MACHINE_CPU,      /* peak_machine_init_cpu: also the probe and the CPU peaks */
};

typedef int (*peak_bench_hook)(struct peak_bench_env *env);

struct peak_bench_program {
	const char *name;     /* "cpubench": --help, the one line's prefix */
	const char *usage;    /* "[options]" */
	const char *summary;  /* one line on what the binary measures */
	size_t state_bytes;   /* the program's state, zeroed (at least one byte is given) */
	size_t common_offset; /* offsetof its struct peak_common_opts */
	/* After the common defaults: the program's own. */
	void (*defaults)(void *state);
	/* Write the option table into table (at most max rows; PEAK_OPTS_COMMON inside it)
	 * and return its length (peak_bench_opts_copy does the copy). */
	size_t (*options)(void *state, struct peak_opt *table, size_t max);
	bool operands;            /* non-option arguments allowed (env->first_arg) */
	bool args_after_dashdash; /* only argv after "--" is ours (all of it without one) */
	enum peak_bench_machine_kind machine;
	peak_bench_hook check, config, start, prepare, setup, context, sweep, finish, cleanup;
};

/* Run the program: the whole life of a binary. Returns the exit code. */
int peak_bench_main(int argc, char **argv, const struct peak_bench_program *prog);

/* Copy n option rows into table (at most max; more is a programming error: 0). */
size_t peak_bench_opts_copy(struct peak_opt *table, size_t max, const struct peak_opt *src,
			    size_t n);

/* peak_bench_sweep of suite s with the run's options, output and error. Returns 0 or -1. */
int peak_bench_main_sweep(struct peak_bench_env *env, const struct peak_bench_suite *s);

#endif
