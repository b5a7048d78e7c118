/* linpack's solver: an HPL-style random system, LAPACKE_dgesv from OpenBLAS, and the HPL
 * scaled residual. */
#include "linpack_solve.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "peak_time.h"

uint64_t linpack_bytes(size_t n)
{
	return (uint64_t)n * n * sizeof(double) + 2 * n * sizeof(double) + n * sizeof(int) + 4096;
}

int linpack_alloc(struct linpack_system *s, size_t n)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	size_t abytes = (n * n * sizeof(double) + 63) / 64 * 64;
	s->a = aligned_alloc(64, abytes);
	s->b = malloc(n * sizeof(double));
	s->x = malloc(n * sizeof(double));
	s->ipiv = malloc(n * sizeof(int));
	if (!s->a || !s->b || !s->x || !s->ipiv) {
		linpack_free(s);
		return -1;
	}
	return 0;
}

void linpack_free(struct linpack_system *s)
{
	free(s->ipiv);
	free(s->x);
	free(s->b);
	free(s->a);
	memset(s, 0, sizeof *s);
}

double linpack_flops(size_t n)
{
	double d = (double)n;
	return 2.0 / 3.0 * d * d * d + 2.0 * d * d;
}

/* splitmix64 of the element's index: any element regenerates without the others. */
static double entry(uint64_t seed, uint64_t index)
{
	uint64_t x = seed + index * 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	x ^= x >> 31;
	return (double)(x >> 11) * 0x1.0p-53 - 0.5;
}

static void generate(const struct linpack_system *s, uint64_t seed)
{
	size_t n = s->n;
	for (size_t j = 0; j < n; j++)
		for (size_t i = 0; i < n; i++)
			s->a[j * n + i] = entry(seed, (uint64_t)j * n + i);
	for (size_t i = 0; i < n; i++)
		s->b[i] = entry(~seed, i);
}

static double norm_inf_vec(const double *v, size_t n)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		m = fmax(m, fabs(v[i]));
	return m;
}

/* HPL's check: ||Ax - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n) with A and b
 * regenerated (the LU overwrote A), eps = 2^-53 (unit roundoff, as HPL's dlamch). */
static double scaled_residual(const struct linpack_system *s, uint64_t seed)
{
	int n = (int)s->n;
	generate(s, seed);
	double anorm = LAPACKE_dlange(LAPACK_COL_MAJOR, 'I', n, n, s->a, n);
	double bnorm = norm_inf_vec(s->b, s->n), xnorm = norm_inf_vec(s->x, s->n);
	/* b := A x - b */
	cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, s->a, n, s->x, 1, -1.0, s->b, 1);
	double rnorm = norm_inf_vec(s->b, s->n);
	double eps = DBL_EPSILON / 2;
	double denom = eps * (anorm * xnorm + bnorm) * (double)n;
	return denom > 0 ? rnorm / denom : INFINITY;
}

static double process_cpu_s(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int linpack_run(struct linpack_system *s, uint64_t seed, int corrupt, struct linpack_solve *out)
{
	int n = (int)s->n;
	memset(out, 0, sizeof *out);
	generate(s, seed);
	double c0 = process_cpu_s();
	uint64_t t0 = peak_time_now_ns();
	lapack_int info = LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, s->a, n, s->ipiv, s->b, n);
	uint64_t t1 = peak_time_now_ns();
	out->cpu_seconds = process_cpu_s() - c0;
	out->info = (int)info;
	if (info < 0)
		return -1;
	out->seconds = (double)(t1 - t0) * 1e-9;
	out->gflops = out->seconds > 0 ? linpack_flops(s->n) / out->seconds * 1e-9 : 0;
	memcpy(s->x, s->b, s->n * sizeof(double));
	if (corrupt)
		s->x[s->n / 2] += 1.0;
	out->scaled_residual = info == 0 ? scaled_residual(s, seed) : INFINITY;
	return 0;
}
