/* The life of a binary, from its argv to its exit code: see peak_bench_main.h. */
#include "peak_bench_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t peak_bench_opts_copy(struct peak_opt *table, size_t max, const struct peak_opt *src,
			    size_t n)
{
	if (n > max)
		return 0;
	memcpy(table, src, n * sizeof *src);
	return n;
}

int peak_bench_main_sweep(struct peak_bench_env *env, const struct peak_bench_suite *s)
{
	const struct peak_bench_cfg cfg = {.common = env->common};
	return peak_bench_sweep(s, &cfg, &env->out, NULL, &env->err);
}

/* A hook's answer: 0 go on, PEAK_BENCH_DONE stop, -1 stop with an error (a generic one
 * when the hook set none). */
static int call(peak_bench_hook h, struct peak_bench_env *env, const char *what)
{
	if (!h)
		return 0;
	int rc = h(env);
	if (rc < 0 && env->err.code == PEAK_EXIT_OK)
		peak_bench_fail(&env->err, PEAK_EXIT_FAIL, "%s failed", what);
	return rc < 0 ? -1 : rc;
}

/* The program's options: the common ones' defaults, its own, the table, argv (all of it,
 * or what follows "--"). Returns 0, or the exit code (0 after --help, 2 after one line). */
static int parse(struct peak_bench_env *env, int argc, char **argv)
{
	const struct peak_bench_program *p = env->prog;
	struct peak_opt *table = env->opts;
	peak_opts_common_defaults(env->common);
	if (p->defaults)
		p->defaults(env->state);
	size_t n = p->options ? p->options(env->state, table, PEAK_BENCH_MAX_OPTS) : 0;
	const struct peak_cli cli = {.prog = p->name,
				     .usage = p->usage,
				     .summary = p->summary,
				     .opts = table,
				     .nopts = n,
				     .common = env->common};
	int our_argc = argc;
	char **our_argv = argv;
	if (p->args_after_dashdash) {
		for (int i = 1; i < argc && env->dashdash == 0; i++)
			if (strcmp(argv[i], "--") == 0)
				env->dashdash = i;
		if (env->dashdash) { /* argv[dashdash] stands in for argv[0] */
			our_argc = argc - env->dashdash;
			our_argv = argv + env->dashdash;
		}
	}
	char *first = our_argv[0];
	our_argv[0] = argv[0];
	enum peak_opts_status st =
	    peak_opts_parse(&cli, our_argc, our_argv, p->operands ? &env->first_arg : NULL);
	our_argv[0] = first;
	if (p->operands)
		env->first_arg += (int)(our_argv - argv);
	return st == PEAK_OPTS_EXIT ? PEAK_BENCH_DONE : st == PEAK_OPTS_OK ? 0 : PEAK_EXIT_USAGE;
}

/* The cloud and instance type past DMI: the run's PEAK_CLOUD_ENV, peaks.conf / --set, and
 * the one metadata request unless --no-metadata (peak_cloud_identify). */
static void identify_cloud(struct peak_bench_env *env)
{
	char warn[PEAK_MSG_MAX];
	const struct peak_config *cfg = &env->cfg;
	const struct peak_cloud_set set = {.provider = cfg->cloud_provider,
					   .instance_type = cfg->cloud_instance_type,
					   .origin = cfg->cloud_origin};
	peak_cloud_identify(&env->si.cloud, env->root, &set, !env->common->no_metadata, warn,
			    sizeof warn);
	if (warn[0])
		peak_sysinfo_warn(&env->si, warn);
}

/* Up to the open output: check, peaks.conf, start, sysinfo, prepare, machine. */
static int start_up(struct peak_bench_env *env)
{
	const struct peak_bench_program *p = env->prog;
	int rc = call(p->check, env, "checking the options");
	if (rc == 0)
		rc = p->config ? call(p->config, env, "peaks.conf")
			       : peak_bench_config(&env->cfg, &env->err);
	if (rc == 0)
		rc = call(p->start, env, "starting");
	if (rc == 0 && !env->bare) {
		peak_sysinfo_collect(&env->si, env->root);
		identify_cloud(env);
	}
	if (rc == 0)
		rc = call(p->prepare, env, "preparing");
	if (rc != 0 || env->bare)
		return rc;
	if (p->machine == PEAK_BENCH_MACHINE_CPU)
		peak_machine_init_cpu(&env->m, &env->si, &env->cfg, env->root);
	else if (p->machine == PEAK_BENCH_MACHINE_PEAKS)
		peak_machine_init(&env->m, &env->si, &env->cfg, env->root);
	return 0;
}

/* The output's whole life: setup, context, begin, sweep, finish, close. */
static void run(struct peak_bench_env *env)
{
	const struct peak_bench_program *p = env->prog;
	char err[PEAK_MSG_MAX];
	const char *path = env->common->output;
	if (peak_output_open(&env->out, env->common->format, path, err, sizeof err) != 0) {
		peak_bench_fail(&env->err, PEAK_EXIT_USAGE, "--output: %s", err);
		return;
	}
	int rc = call(p->setup, env, "setting up");
	if (!env->bare) {
		peak_sysinfo_to_context(&env->si, &env->ctx);
		if (p->machine != PEAK_BENCH_MACHINE_NONE)
			peak_machine_to_context(&env->m, &env->ctx);
	}
	(void)call(p->context, env, "the context");
	bool written = peak_output_begin(&env->out, &env->ctx) == 0;
	if (rc == 0 && written)
		(void)call(p->sweep, env, "the sweep");
	(void)call(p->finish, env, "finishing");
	if (!env->bare)
		(void)peak_sysinfo_finish(&env->si, &env->ctx);
	written &= peak_output_close(&env->out, &env->ctx) == 0;
	if (!written)
		peak_bench_fail(&env->err, PEAK_EXIT_FAIL, "writing %s failed",
				path ? path : "the results to stdout");
}

int peak_bench_main(int argc, char **argv, const struct peak_bench_program *prog)
{
	struct peak_bench_env *env = calloc(1, sizeof *env);
	void *state = calloc(1, prog->state_bytes ? prog->state_bytes : 1);
	if (!env || !state ||
	    prog->common_offset + sizeof(struct peak_common_opts) >
		(prog->state_bytes ? prog->state_bytes : 1)) {
		fprintf(stderr, "%s: out of memory\n", prog->name);
		free(state);
		free(env);
		return PEAK_EXIT_FAIL;
	}
	env->prog = prog;
	env->state = state;
	env->common = (struct peak_common_opts *)((char *)state + prog->common_offset);
	env->argc = argc;
	env->argv = argv;
	env->root = "";
	peak_context_init(&env->ctx);
	int code = parse(env, argc, argv); /* 0, PEAK_BENCH_DONE, or 2 after its one line */
	if (code == 0 && start_up(env) == 0)
		run(env);
	if (prog->cleanup)
		(void)prog->cleanup(env);
	if (code == 0)
		code = peak_bench_exit(&env->err, prog->name);
	else if (code == PEAK_BENCH_DONE)
		code = PEAK_EXIT_OK;
	free(state);
	free(env);
	return code;
}
