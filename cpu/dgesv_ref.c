/* dgesv_ref: the reference linpack is compared with in docs/benchmarks/cpu.md: a bare
 * LAPACKE_dgesv call on a random system, timed with clock_gettime, no harness at all.
 * Usage: dgesv_ref N [REPS] */
#include <cblas.h>
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: dgesv_ref N [REPS]\n");
		return 2;
	}
	int n = atoi(argv[1]), reps = argc > 2 ? atoi(argv[2]) : 3;
	if (n < 1 || reps < 1) {
		fprintf(stderr, "dgesv_ref: N and REPS must be positive\n");
		return 2;
	}
	size_t nn = (size_t)n * (size_t)n;
	double *a = malloc(nn * sizeof *a), *b = malloc((size_t)n * sizeof *b);
	int *ipiv = malloc((size_t)n * sizeof *ipiv);
	if (!a || !b || !ipiv) {
		fprintf(stderr, "dgesv_ref: out of memory\n");
		return 1;
	}
	printf("openblas %s, %d threads\n", openblas_get_corename(), openblas_get_num_threads());
	srand48(42);
	for (int r = 0; r < reps; r++) {
		for (size_t i = 0; i < nn; i++)
			a[i] = drand48() - 0.5;
		for (int i = 0; i < n; i++)
			b[i] = drand48() - 0.5;
		double t0 = now_s();
		int info = LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, a, n, ipiv, b, n);
		double t = now_s() - t0;
		double dn = n;
		printf("N=%d rep=%d info=%d time=%.3f s GFLOPS=%.2f\n", n, r, info, t,
		       (2.0 / 3.0 * dn * dn * dn + 2.0 * dn * dn) / t * 1e-9);
	}
	free(ipiv);
	free(b);
	free(a);
	return 0;
}
