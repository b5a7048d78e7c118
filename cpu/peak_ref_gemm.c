/* peak_ref_gemm: the reference beside cpubench's BF16 and INT8 rows (issue 37 §6,
 * docs/benchmarks/cpu.md): oneDNN's matmul (Debian's libdnnl) in bf16 (bf16 x bf16 -> f32)
 * or u8s8s32 (u8 x s8 -> s32), the library's own choice of kernel for this CPU (AMX, AVX512
 * BF16/VNNI, AVX-VNNI, or its fallback), on square matrices large enough to run at the
 * library's peak, weights reordered once into the layout it prefers (format "any"), as
 * an inference library runs a layer. Timed with clock_gettime around each matmul; one
 * untimed run first. Threads: oneDNN's OpenMP runtime, OMP_NUM_THREADS (the adapter sets
 * it; this program prints what the library reports).
 * Usage: peak_ref_gemm bf16|int8 [--size N] [--min-seconds S]
 * Prints one line: format=bf16 size=N threads=T reps=R seconds=S mean_g=G best_g=G
 * isa=ISA version=V (G: GFLOPS for bf16, GIOPS for int8: 2 N^3 per matmul). Exit 2 on bad
 * input, 3 when oneDNN has no such matmul on this CPU (the reason on stderr). */
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(const char *why)
{
	fprintf(stderr,
		"peak_ref_gemm: %s (usage: peak_ref_gemm bf16|int8 [--size N] [--min-seconds S])\n",
		why);
	exit(2);
}

#define CHECK(call, what)                                                                          \
	do {                                                                                       \
		dnnl_status_t st_ = (call);                                                        \
		if (st_ != dnnl_success) {                                                         \
			fprintf(stderr, "peak_ref_gemm: %s failed (oneDNN status %d)\n", what,     \
				(int)st_);                                                         \
			exit(st_ == dnnl_unimplemented ? 3 : 1);                                   \
		}                                                                                  \
	} while (0)

/* A memory object of md, its bytes set to a small repeating pattern (finite bf16 values,
 * small integers): the figures do not depend on the data. */
static dnnl_memory_t filled(const dnnl_memory_desc_t *md, dnnl_engine_t eng, unsigned char v)
{
	dnnl_memory_t m;
	void *p;
	CHECK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE), "memory");
	CHECK(dnnl_memory_get_data_handle(m, &p), "memory handle");
	memset(p, v, dnnl_memory_desc_get_size(md));
	return m;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "bf16") != 0 && strcmp(argv[1], "int8") != 0))
		usage("the first argument is bf16 or int8");
	int bf16 = strcmp(argv[1], "bf16") == 0;
	long n = 1024;
	double min_s = 1.0;
	for (int i = 2; i < argc; i += 2) {
		if (i + 1 >= argc)
			usage("an option needs a value");
		char *end;
		if (strcmp(argv[i], "--size") == 0) {
			n = strtol(argv[i + 1], &end, 10);
			if (*end || n < 16 || n > 32768)
				usage("--size: a whole number from 16 to 32768");
		} else if (strcmp(argv[i], "--min-seconds") == 0) {
			min_s = strtod(argv[i + 1], &end);
			if (*end || !(min_s > 0 && min_s <= 600))
				usage("--min-seconds: seconds above 0, at most 600");
		} else {
			usage("unknown option");
		}
	}

	dnnl_engine_t eng;
	dnnl_stream_t s;
	CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0), "engine");
	CHECK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags), "stream");
	dnnl_dims_t dims = {n, n};
	dnnl_memory_desc_t a_md, b_plain, b_any, c_md;
	dnnl_data_type_t ta = bf16 ? dnnl_bf16 : dnnl_u8, tb = bf16 ? dnnl_bf16 : dnnl_s8;
	CHECK(dnnl_memory_desc_init_by_tag(&a_md, 2, dims, ta, dnnl_ab), "src desc");
	CHECK(dnnl_memory_desc_init_by_tag(&b_plain, 2, dims, tb, dnnl_ab), "weights desc");
	CHECK(dnnl_memory_desc_init_by_tag(&b_any, 2, dims, tb, dnnl_format_tag_any), "weights");
	CHECK(dnnl_memory_desc_init_by_tag(&c_md, 2, dims, bf16 ? dnnl_f32 : dnnl_s32, dnnl_ab),
	      "dst desc");
	dnnl_matmul_desc_t md;
	CHECK(dnnl_matmul_desc_init(&md, &a_md, &b_any, NULL, &c_md), "matmul desc");
	dnnl_primitive_desc_t pd;
	dnnl_status_t st = dnnl_primitive_desc_create(&pd, &md, NULL, eng, NULL);
	if (st == dnnl_unimplemented) {
		fprintf(stderr, "peak_ref_gemm: oneDNN has no %s matmul on this CPU\n",
			bf16 ? "bf16" : "u8s8s32");
		/* the stream and engine are oneDNN's allocations: freed, exit 3 stays 3 under
		 * LeakSanitizer (a leak turns it into 1, the adapter's "failed") */
		dnnl_stream_destroy(s);
		dnnl_engine_destroy(eng);
		return 3;
	}
	CHECK(st, "matmul primitive desc");
	const char *impl = NULL;
	if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success)
		impl = "?";
	const dnnl_memory_desc_t *b_md = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);

	dnnl_memory_t a = filled(&a_md, eng, bf16 ? 0x3f : 3);
	dnnl_memory_t bp = filled(&b_plain, eng, bf16 ? 0x3f : 5);
	dnnl_memory_t b = filled(b_md, eng, 0);
	dnnl_memory_t c = filled(&c_md, eng, 0);
	/* the weights into the library's layout, once */
	dnnl_primitive_desc_t rpd;
	dnnl_primitive_t reorder;
	CHECK(dnnl_reorder_primitive_desc_create(&rpd, &b_plain, eng, b_md, eng, NULL), "reorder");
	CHECK(dnnl_primitive_create(&reorder, rpd), "reorder primitive");
	dnnl_exec_arg_t rargs[] = {{DNNL_ARG_FROM, bp}, {DNNL_ARG_TO, b}};
	CHECK(dnnl_primitive_execute(reorder, s, 2, rargs), "reorder run");
	CHECK(dnnl_stream_wait(s), "stream wait");

	dnnl_primitive_t mm;
	CHECK(dnnl_primitive_create(&mm, pd), "matmul primitive");
	dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
	CHECK(dnnl_primitive_execute(mm, s, 3, args), "matmul run");
	CHECK(dnnl_stream_wait(s), "stream wait");

	double ops = 2.0 * (double)n * (double)n * (double)n, total = 0, best = 0;
	long reps = 0;
	while (total < min_s || reps < 3) {
		double t0 = now_s();
		CHECK(dnnl_primitive_execute(mm, s, 3, args), "matmul run");
		CHECK(dnnl_stream_wait(s), "stream wait");
		double dt = now_s() - t0;
		total += dt;
		reps++;
		if (dt > 0 && ops / dt > best)
			best = ops / dt;
	}
	const dnnl_version_t *v = dnnl_version();
	const char *omp = getenv("OMP_NUM_THREADS");
	printf("format=%s size=%ld threads=%s reps=%ld seconds=%.6f mean_g=%.6g best_g=%.6g "
	       "impl=%s version=oneDNN-%d.%d.%d\n",
	       bf16 ? "bf16" : "int8", n, omp && *omp ? omp : "default", reps, total,
	       ops * (double)reps / total / 1e9, best / 1e9, impl, v->major, v->minor, v->patch);
	dnnl_primitive_destroy(mm);
	dnnl_primitive_destroy(reorder);
	dnnl_primitive_desc_destroy(rpd);
	dnnl_primitive_desc_destroy(pd);
	dnnl_memory_destroy(a);
	dnnl_memory_destroy(bp);
	dnnl_memory_destroy(b);
	dnnl_memory_destroy(c);
	dnnl_stream_destroy(s);
	dnnl_engine_destroy(eng);
	return 0;
}
