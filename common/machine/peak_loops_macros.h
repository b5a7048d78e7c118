/* The preprocessor pieces every architecture's instruction-class loops share
 * (peak_loops_x86.c, peak_loops_arm64.c, peak_loops_sve.c): stringizing, and the repeaters
 * that write one instruction per chain. Each file keeps its own LOOP (its counter and
 * branch) and registers. */
#ifndef PEAK_LOOPS_MACROS_H
#define PEAK_LOOPS_MACROS_H

#define STR_(x) #x
#define STR(x)  STR_(x)

#define X10(M, ...)                                                                                \
	M(0, __VA_ARGS__) M(1, __VA_ARGS__) M(2, __VA_ARGS__) M(3, __VA_ARGS__) M(4, __VA_ARGS__)  \
	M(5, __VA_ARGS__) M(6, __VA_ARGS__) M(7, __VA_ARGS__) M(8, __VA_ARGS__) M(9, __VA_ARGS__)
#define X12(M, ...) X10(M, __VA_ARGS__) M(10, __VA_ARGS__) M(11, __VA_ARGS__)
#define X15(M, ...) X12(M, __VA_ARGS__) M(12, __VA_ARGS__) M(13, __VA_ARGS__) M(14, __VA_ARGS__)
/* Add chain a (0-5) beside multiply chain m (6-11): six of each, so adders and multipliers
 * both fill. */
#define P6(M, ...)                                                                                 \
	M(0, 6, __VA_ARGS__) M(1, 7, __VA_ARGS__) M(2, 8, __VA_ARGS__) M(3, 9, __VA_ARGS__)        \
	M(4, 10, __VA_ARGS__) M(5, 11, __VA_ARGS__)

#endif
