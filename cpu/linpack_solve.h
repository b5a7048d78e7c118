/* linpack's solver: an HPL-style random system, LAPACKE_dgesv from OpenBLAS, and the HPL
 * scaled residual. */
#ifndef LINPACK_SOLVE_H
#define LINPACK_SOLVE_H

#include <stddef.h>
#include <stdint.h>

/* HPL accepts a solve whose scaled residual is below this. */
#define LINPACK_RESIDUAL_THRESHOLD 16.0

struct linpack_system {
	size_t n;
	double *a; /* n x n, column major */
	double *b; /* right-hand side, overwritten by the solution */
	double *x; /* copy of the solution */
	int *ipiv;
};

struct linpack_solve {
	double seconds;         /* LAPACKE_dgesv alone */
	double cpu_seconds;     /* CPU time of the whole process during the solve */
	double gflops;          /* (2/3 n^3 + 2 n^2) / seconds / 1e9 */
	double scaled_residual; /* ||Ax - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n) */
	int info;               /* dgesv's info: 0 ok, > 0 singular */
};

/* Bytes the system needs (matrix, vectors, pivots). */
uint64_t linpack_bytes(size_t n);
/* Allocate; returns 0 or -1. */
int linpack_alloc(struct linpack_system *s, size_t n);
void linpack_free(struct linpack_system *s);
/* Floating-point operations of a solve of order n (LU + triangular solves). */
double linpack_flops(size_t n);
/* Generate A and b (entries uniform in [-0.5, 0.5), reproducible from seed), solve, and
 * compute the residual against a regenerated A. corrupt perturbs the solution first (the
 * test that a wrong solve fails the check). Returns 0 when dgesv ran (see info). */
int linpack_run(struct linpack_system *s, uint64_t seed, int corrupt, struct linpack_solve *out);

#endif
