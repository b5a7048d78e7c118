/* x86 number-format features (cpuid, XCR0) and the AMX state permission Linux asks for
 * (peak_formats_feat_x86.c); the format loops (peak_loops_fmt_x86.c). */
#ifndef PEAK_FORMATS_X86_H
#define PEAK_FORMATS_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peak_loops.h"

enum peak_fmt_feat {
	PEAK_FMTF_AVX512 = 1u << 0,      /* AVX512F with the OS saving zmm and k (XCR0 5-7) */
	PEAK_FMTF_AVX512VL = 1u << 1,
	PEAK_FMTF_AVX512_BF16 = 1u << 2, /* cpuid 7.1 eax 5 */
	PEAK_FMTF_AVX512_VNNI = 1u << 3, /* cpuid 7.0 ecx 11 */
	PEAK_FMTF_AVX512_FP16 = 1u << 4, /* cpuid 7.0 edx 23 */
	PEAK_FMTF_AVX_VNNI = 1u << 5,    /* cpuid 7.1 eax 4, with AVX's ymm state */
	PEAK_FMTF_AMX_TILE = 1u << 6,    /* cpuid 7.0 edx 24 */
	PEAK_FMTF_AMX_BF16 = 1u << 7,    /* cpuid 7.0 edx 22 */
	PEAK_FMTF_AMX_INT8 = 1u << 8,    /* cpuid 7.0 edx 25 */
	PEAK_FMTF_AMX_FP16 = 1u << 9,    /* cpuid 7.1 eax 21 */
	PEAK_FMTF_AMX_XCR0 = 1u << 10,   /* the OS enables XTILECFG and XTILEDATA (XCR0 17, 18) */
};

/* The features this CPU reports (and, for AVX-512 and AVX, the OS enables); 0 elsewhere.
 * The test hook PEAKBENCH_TEST_PRETEND_MISSING=fp16,bf16,vnni,avxvnni,amx removes them. */
unsigned peak_fmt_features(void);
/* True when need (PEAK_FMTF_*) is all there; else reason names the first missing:
 * "avx512_bf16 not reported by this CPU". */
bool peak_fmt_can_run(unsigned need, char *reason, size_t reason_len);

/* True when the format form of that cpubench variant (peak_formats_x86.c) runs here,
 * AMX's permission included; else reason says why. */
bool peak_formats_x86_form_runs(const char *variant, char *reason, size_t reason_len);

/* AMX's state permission (Linux 5.16+): arch_prctl(ARCH_GET_XCOMP_SUPP) must list
 * XTILEDATA (18), then ARCH_REQ_XCOMP_PERM grants it to the process, and every thread may
 * then use the tiles. Returns true, or false with the reason: the CPU or the hypervisor
 * masks the state (XCR0), the kernel is older (EINVAL), the kernel does not offer it, or
 * the signal stack (AT_MINSIGSTKSZ) is too small for it. Asked once per process and the
 * answer kept; threads ask again (cheap) before they load a tile configuration. */
bool peak_amx_request(char *reason, size_t reason_len);
/* The same decision on given features (PEAK_FMTF_*) and arch_prctl (which sets errno on
 * failure, as the syscall does): the test's seam for the kernels and hypervisors it does
 * not run on. */
typedef long (*peak_amx_prctl_fn)(int code, unsigned long arg);
bool peak_amx_request_with(unsigned feats, peak_amx_prctl_fn amx_prctl, char *reason,
			   size_t reason_len);
/* arch_prctl's codes (arch/x86/include/uapi/asm/prctl.h) and the tile data component. */
#define PEAK_ARCH_GET_XCOMP_SUPP 0x1021
#define PEAK_ARCH_REQ_XCOMP_PERM 0x1023
#define PEAK_XFEATURE_XTILEDATA  18

/* The format loops, the probe's and cpubench's (peak_loops_fmt_x86.c). Registers as
 * struct peak_loop_regs: 12 chains in v[0..11], operands in v[12..14] (the loops read
 * v12 and v13 only). Each instruction: chain = chain + op(v12, v13).
 *   fp16 fma:   x = x*v12 + v13 (vfmadd231ph: x += v12*v13 as fp16; v12, v13 chosen so the
 *               sum is exact: cpu_fmt_verify.c)
 *   bf16 dot:   x += v12.bf16 pairs . v13.bf16 pairs (fp32 lanes)
 *   int8 dot:   x += v12.u8 quads . v13.s8 quads (i32 lanes, wrapping) */
PEAK_LOOP_PROTO(peak_loop_avx512_fp16_fma);
PEAK_LOOP_PROTO(peak_loop_avx512_bf16_dot);
PEAK_LOOP_PROTO(peak_loop_avx512_bf16_dot_ymm);
PEAK_LOOP_PROTO(peak_loop_avx512_int8_dot);
PEAK_LOOP_PROTO(peak_loop_avx512_int8_dot_ymm);
PEAK_LOOP_PROTO(peak_loop_avxvnni_int8_dot);

/* AMX tiles: 8 tiles of 16 rows x 64 bytes; tmm0-3 accumulate (C: 16x16 fp32 or i32),
 * tmm4-5 hold A (16 rows of 32 bf16/fp16 or 64 int8), tmm6-7 B (16 rows, VNNI-packed).
 * Each iteration runs PEAK_AMX_STEPS tile multiplies per accumulator: C_i += A_(i&1) x
 * B_(i>>1), 4 independent accumulators. */
#define PEAK_AMX_ACC   4
#define PEAK_AMX_STEPS 4
struct peak_amx_tiles {
	_Alignas(64) unsigned char c[PEAK_AMX_ACC][16][64];
	unsigned char a[2][16][64];
	unsigned char b[2][16][64];
};
enum peak_amx_op {
	PEAK_AMX_BF16,
	PEAK_AMX_FP16,
	PEAK_AMX_SS,
	PEAK_AMX_SU,
	PEAK_AMX_US,
	PEAK_AMX_UU,
	PEAK_AMX_OP_COUNT
};
/* Load the tile configuration (ldtilecfg), the tiles from t, run n iterations of op, store
 * C back to t and release the tiles (tilerelease). The caller holds the permission. */
void peak_amx_run(enum peak_amx_op op, struct peak_amx_tiles *t, uint64_t n);

#endif
