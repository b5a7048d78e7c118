/* The number-format rates of the x86 table's entries (peak_uarch.h: fp16_fma512_ops ...
 * amx_fp16_ops), by entry name, each row with its source. A 0 is a rate no source we hold
 * settles: the probe measures it (peak_uarch_probe.c), never a guess. docs/cpu.md
 * ("Number formats") lists them. */
#include <string.h>

#include "peak_uarch.h"
#include "peak_uarch_formats.h"

struct formats_entry {
	const char *name;
	unsigned fp16, bf16_512, bf16_256, vnni512, vnni256, avxvnni, amx_bf16, amx_int8, amx_fp16;
	const char *source;
};

/* Operations per cycle per core: vfmadd231ph zmm 32 lanes x 2; vdpbf16ps zmm 32 pairs x 2
 * (ymm 16 x 2); vpdpbusd zmm 64 byte products and their adds (ymm 32 x 2); a tdpbf16ps
 * of 16x32 tiles 16*16*32*2 = 16384 flop, tdpbssd 16*16*64*2 = 32768 ops. */
/* clang-format off */
static const struct formats_entry formats_table[] = {
	/* Golden Cove server cores. AMX: Intel's optimization manual (AMX chapter): a
	 * 16x32x16 tile multiply every 16 cycles, 1024 BF16 flop and 2048 INT8 ops a cycle.
	 * vfmadd231ph zmm: the FP32 FMA ports p0 and p5 (Intel's AVX512-FP16 architecture
	 * specification: FP16 at twice FP32's lanes, the same latency and throughput), so 2 a
	 * cycle. vpdpbusd zmm: LLVM's SapphireRapids scheduling model gives one port (p0), so
	 * 128; published measurements read two a cycle: the table keeps LLVM's and the probe
	 * decides (docs/cpu.md). vpdpbusd ymm and {vex} ymm: p01 (uops.info ADL-P, the same
	 * core), 2 a cycle. vdpbf16ps: in no source we hold per port: 0, measured. */
	{"sapphirerapids", 128, 0, 0, 128, 128, 128, 1024, 2048, 0,
	 "Intel optimization manual (AMX, AVX512-FP16); LLVM SapphireRapids model (vpdpbusd zmm); uops.info ADL-P (ymm VNNI)"},
	{"emeraldrapids", 128, 0, 0, 128, 128, 128, 1024, 2048, 0,
	 "as sapphirerapids (the same Raptor Cove server core, Intel optimization manual)"},
	/* Granite Rapids adds AMX-FP16 at the BF16 rate (Intel's AMX-FP16 specification: the
	 * same tile shape). */
	{"graniterapids", 128, 0, 0, 128, 128, 128, 1024, 2048, 1024,
	 "as sapphirerapids; AMX-FP16 at the BF16 tile rate (Intel ISA extensions reference)"},
	/* Zen 4 and 4c: 512-bit ops in two 256-bit passes: 64 BF16 flop and 128 INT8 ops a
	 * cycle (AMD family 19h software optimization guide; issue 37's table), so one zmm or
	 * two ymm instructions a cycle. */
	{"zen4", 0, 64, 64, 128, 128, 0, 0, 0, 0,
	 "AMD family 19h software optimization guide (512-bit ops as two 256-bit passes)"},
	{"zen4c", 0, 64, 64, 128, 128, 0, 0, 0, 0,
	 "as zen4 (the same execution units, AMD family 19h software optimization guide)"},
	/* Zen 5 with the full 512-bit datapath: twice Zen 4's zmm rates (AMD family 1Ah
	 * software optimization guide). Its ymm and AVX-VNNI rates: measured. */
	{"zen5", 0, 128, 0, 256, 0, 0, 0, 0, 0,
	 "AMD family 1Ah software optimization guide (full 512-bit datapath: twice Zen 4)"},
};
/* clang-format on */

void peak_uarch_formats_fill(struct peak_uarch *u)
{
	u->fp16_fma512_ops = u->bf16_dot512_ops = u->bf16_dot256_ops = 0;
	u->vnni512_ops = u->vnni256_ops = u->avxvnni_ops = 0;
	u->amx_bf16_ops = u->amx_int8_ops = u->amx_fp16_ops = 0;
	u->formats_source = NULL;
	for (size_t i = 0; i < sizeof formats_table / sizeof formats_table[0]; i++) {
		const struct formats_entry *e = &formats_table[i];
		if (strcmp(u->name, e->name) != 0)
			continue;
		u->fp16_fma512_ops = e->fp16;
		u->bf16_dot512_ops = e->bf16_512;
		u->bf16_dot256_ops = e->bf16_256;
		u->vnni512_ops = e->vnni512;
		u->vnni256_ops = e->vnni256;
		u->avxvnni_ops = e->avxvnni;
		u->amx_bf16_ops = e->amx_bf16;
		u->amx_int8_ops = e->amx_int8;
		u->amx_fp16_ops = e->amx_fp16;
		u->formats_source = e->source;
		return;
	}
}

bool peak_uarch_formats_entry_at(size_t i, const char **name, const char **source)
{
	if (i >= sizeof formats_table / sizeof formats_table[0])
		return false;
	*name = formats_table[i].name;
	*source = formats_table[i].source;
	return true;
}
