/*
 * native.c - libswapsim's own trace format: what its readers (native_text.c,
 * native_bin.c) and its writer (writer.c) share: the op names and the CRC-32C
 * every native trace carries at its end.
 *
 * Text (docs/trace-format.md): a first line "# swapsim-trace v2", then one
 * record per line, nine columns separated by blanks, then the end record:
 *
 *     time_ns pid tid cpu op addr len flags arg
 *     1000 42 42 0 access 0x7f0000001000 0 w 0
 *     end records=1 crc32c=3cab7bfb
 *
 * cpu is "-" for SWS_TRACE_CPU_ANY; flags are "-", letters (w = write,
 * x = instruction fetch, h = THP) or 0xHEX when other bits are set. '#'
 * starts a comment anywhere; blank lines are ignored. The end record is the
 * last line with data: the record count and the trace checksum (below), eight
 * hex digits. Version 1 is the same without the end record.
 *
 * Binary: a 16-byte header, then varint-delta records, then an end marker:
 *
 *     0  "SWSTRACE"         magic
 *     8  u16 LE version     2
 *     10 u16 LE reserved    0
 *     12 u32 LE reserved    0
 *     16 records: tag byte [ext byte] fields...
 *        tag  bits 0-3 op (1..SWS_TRACE_OP_MAX; 0 = end marker)
 *             0x10 time delta follows   (zigzag varint; absent: same time)
 *             0x20 addr delta follows   (zigzag varint; absent: same addr)
 *             0x40 len follows          (varint; absent: previous len)
 *             0x80 ext byte follows:    0x01 flags, 0x02 pid, 0x04 tid,
 *                                       0x08 cpu + 1, 0x10 arg (varints; absent:
 *                                       previous value); other bits zero
 *        end  0x00, varint record count, u32 LE trace checksum; the file (or
 *             zstd stream) ends here (version 1: no checksum)
 *
 * "Previous" starts as all zero (cpu 0). Varints are LEB128, at most 10 bytes;
 * 32-bit fields above 2^32-1 are errors. A zstd-compressed file is the same
 * bytes as one or more zstd frames; the stream layer decompresses it.
 *
 * The trace checksum is the CRC-32C of the records' canonical bytes, 48 per
 * record (sws__trace_record_crc), so text and binary forms of one trace carry
 * the same value. The count and the checksum make a file cut short (on a line
 * or record boundary too) or changed in the middle an error.
 */
#include <string.h>

#include "../trace_internal.h"

/* ---- op names ----------------------------------------------------------- */

static const char *const op_names[] = {
	[SWS_TRACE_ACCESS] = "access",	 [SWS_TRACE_FORK] = "fork",
	[SWS_TRACE_EXIT] = "exit",	 [SWS_TRACE_MMAP] = "mmap",
	[SWS_TRACE_MUNMAP] = "munmap",	 [SWS_TRACE_MADV_PAGEOUT] = "pageout",
	[SWS_TRACE_MADV_DONTNEED] = "dontneed", [SWS_TRACE_RECLAIM] = "reclaim",
	[SWS_TRACE_EXEC] = "exec",	 [SWS_TRACE_MADV_FREE] = "free",
	[SWS_TRACE_FILE] = "file",	 [SWS_TRACE_MADV_HUGEPAGE] = "hugepage",
	[SWS_TRACE_MADV_NOHUGEPAGE] = "nohugepage",
};

const char *sws_trace_op_name(uint32_t op)
{
	if (op >= 1 && op <= SWS_TRACE_OP_MAX)
		return op_names[op];
	return "?";
}

int sws_trace_op_parse(const char *name, uint32_t *op)
{
	if (!name || !op)
		return SWS_EINVAL;
	for (uint32_t i = 1; i <= SWS_TRACE_OP_MAX; i++)
		if (!strcmp(name, op_names[i])) {
			*op = i;
			return 0;
		}
	return SWS_EINVAL;
}

/* ---- CRC-32C -------------------------------------------------------------- */

/* crc32c_table[i]: the CRC of byte i (reflected polynomial 0x82f63b78). */
static const uint32_t crc32c_table[256] = {
	0x00000000, 0xf26b8303, 0xe13b70f7, 0x1350f3f4, 0xc79a971f, 0x35f1141c,
	0x26a1e7e8, 0xd4ca64eb, 0x8ad958cf, 0x78b2dbcc, 0x6be22838, 0x9989ab3b,
	0x4d43cfd0, 0xbf284cd3, 0xac78bf27, 0x5e133c24, 0x105ec76f, 0xe235446c,
	0xf165b798, 0x030e349b, 0xd7c45070, 0x25afd373, 0x36ff2087, 0xc494a384,
	0x9a879fa0, 0x68ec1ca3, 0x7bbcef57, 0x89d76c54, 0x5d1d08bf, 0xaf768bbc,
	0xbc267848, 0x4e4dfb4b, 0x20bd8ede, 0xd2d60ddd, 0xc186fe29, 0x33ed7d2a,
	0xe72719c1, 0x154c9ac2, 0x061c6936, 0xf477ea35, 0xaa64d611, 0x580f5512,
	0x4b5fa6e6, 0xb93425e5, 0x6dfe410e, 0x9f95c20d, 0x8cc531f9, 0x7eaeb2fa,
	0x30e349b1, 0xc288cab2, 0xd1d83946, 0x23b3ba45, 0xf779deae, 0x05125dad,
	0x1642ae59, 0xe4292d5a, 0xba3a117e, 0x4851927d, 0x5b016189, 0xa96ae28a,
	0x7da08661, 0x8fcb0562, 0x9c9bf696, 0x6ef07595, 0x417b1dbc, 0xb3109ebf,
	0xa0406d4b, 0x522bee48, 0x86e18aa3, 0x748a09a0, 0x67dafa54, 0x95b17957,
	0xcba24573, 0x39c9c670, 0x2a993584, 0xd8f2b687, 0x0c38d26c, 0xfe53516f,
	0xed03a29b, 0x1f682198, 0x5125dad3, 0xa34e59d0, 0xb01eaa24, 0x42752927,
	0x96bf4dcc, 0x64d4cecf, 0x77843d3b, 0x85efbe38, 0xdbfc821c, 0x2997011f,
	0x3ac7f2eb, 0xc8ac71e8, 0x1c661503, 0xee0d9600, 0xfd5d65f4, 0x0f36e6f7,
	0x61c69362, 0x93ad1061, 0x80fde395, 0x72966096, 0xa65c047d, 0x5437877e,
	0x4767748a, 0xb50cf789, 0xeb1fcbad, 0x197448ae, 0x0a24bb5a, 0xf84f3859,
	0x2c855cb2, 0xdeeedfb1, 0xcdbe2c45, 0x3fd5af46, 0x7198540d, 0x83f3d70e,
	0x90a324fa, 0x62c8a7f9, 0xb602c312, 0x44694011, 0x5739b3e5, 0xa55230e6,
	0xfb410cc2, 0x092a8fc1, 0x1a7a7c35, 0xe811ff36, 0x3cdb9bdd, 0xceb018de,
	0xdde0eb2a, 0x2f8b6829, 0x82f63b78, 0x709db87b, 0x63cd4b8f, 0x91a6c88c,
	0x456cac67, 0xb7072f64, 0xa457dc90, 0x563c5f93, 0x082f63b7, 0xfa44e0b4,
	0xe9141340, 0x1b7f9043, 0xcfb5f4a8, 0x3dde77ab, 0x2e8e845f, 0xdce5075c,
	0x92a8fc17, 0x60c37f14, 0x73938ce0, 0x81f80fe3, 0x55326b08, 0xa759e80b,
	0xb4091bff, 0x466298fc, 0x1871a4d8, 0xea1a27db, 0xf94ad42f, 0x0b21572c,
	0xdfeb33c7, 0x2d80b0c4, 0x3ed04330, 0xccbbc033, 0xa24bb5a6, 0x502036a5,
	0x4370c551, 0xb11b4652, 0x65d122b9, 0x97baa1ba, 0x84ea524e, 0x7681d14d,
	0x2892ed69, 0xdaf96e6a, 0xc9a99d9e, 0x3bc21e9d, 0xef087a76, 0x1d63f975,
	0x0e330a81, 0xfc588982, 0xb21572c9, 0x407ef1ca, 0x532e023e, 0xa145813d,
	0x758fe5d6, 0x87e466d5, 0x94b49521, 0x66df1622, 0x38cc2a06, 0xcaa7a905,
	0xd9f75af1, 0x2b9cd9f2, 0xff56bd19, 0x0d3d3e1a, 0x1e6dcdee, 0xec064eed,
	0xc38d26c4, 0x31e6a5c7, 0x22b65633, 0xd0ddd530, 0x0417b1db, 0xf67c32d8,
	0xe52cc12c, 0x1747422f, 0x49547e0b, 0xbb3ffd08, 0xa86f0efc, 0x5a048dff,
	0x8ecee914, 0x7ca56a17, 0x6ff599e3, 0x9d9e1ae0, 0xd3d3e1ab, 0x21b862a8,
	0x32e8915c, 0xc083125f, 0x144976b4, 0xe622f5b7, 0xf5720643, 0x07198540,
	0x590ab964, 0xab613a67, 0xb831c993, 0x4a5a4a90, 0x9e902e7b, 0x6cfbad78,
	0x7fab5e8c, 0x8dc0dd8f, 0xe330a81a, 0x115b2b19, 0x020bd8ed, 0xf0605bee,
	0x24aa3f05, 0xd6c1bc06, 0xc5914ff2, 0x37faccf1, 0x69e9f0d5, 0x9b8273d6,
	0x88d28022, 0x7ab90321, 0xae7367ca, 0x5c18e4c9, 0x4f48173d, 0xbd23943e,
	0xf36e6f75, 0x0105ec76, 0x12551f82, 0xe03e9c81, 0x34f4f86a, 0xc69f7b69,
	0xd5cf889d, 0x27a40b9e, 0x79b737ba, 0x8bdcb4b9, 0x988c474d, 0x6ae7c44e,
	0xbe2da0a5, 0x4c4623a6, 0x5f16d052, 0xad7d5351,
};

uint32_t sws__crc32c_sw(uint32_t crc, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	crc = ~crc;
	while (n--)
		crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The SSE4.2 crc32 instruction computes the same CRC, 8 bytes at a time. */
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const void *buf,
							    size_t n)
{
	const uint8_t *p = buf;
	uint64_t c = ~crc & 0xffffffffu;
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t v;
		memcpy(&v, p, sizeof(v));
		c = __builtin_ia32_crc32di(c, v);
	}
	uint32_t c32 = (uint32_t)c;
	while (n--)
		c32 = __builtin_ia32_crc32qi(c32, *p++);
	return ~c32;
}
#endif

uint32_t sws__crc32c(uint32_t crc, const void *buf, size_t n)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (__builtin_cpu_supports("sse4.2"))
		return crc32c_hw(crc, buf, n);
#endif
	return sws__crc32c_sw(crc, buf, n);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The 48 canonical bytes of each record as six little-endian words (x86-64
 * is little-endian): the same CRC as crc32c_hw() over them. */
__attribute__((target("sse4.2"))) static uint32_t records_crc_hw(uint32_t crc, const struct sws_trace_record *x,
								size_t n)
{
	uint64_t c = ~crc & 0xffffffffu;
	for (; n; n--, x++) {
		c = __builtin_ia32_crc32di(c, x->time_ns);
		c = __builtin_ia32_crc32di(c, x->addr);
		c = __builtin_ia32_crc32di(c, x->len);
		c = __builtin_ia32_crc32di(c, x->op | (uint64_t)x->flags << 32);
		c = __builtin_ia32_crc32di(c, x->pid | (uint64_t)x->tid << 32);
		c = __builtin_ia32_crc32di(c, x->cpu | (uint64_t)x->arg << 32);
	}
	return ~(uint32_t)c;
}
#endif

uint32_t sws__trace_records_crc(uint32_t crc, const struct sws_trace_record *x, size_t n)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (__builtin_cpu_supports("sse4.2"))
		return records_crc_hw(crc, x, n);
#endif
	for (; n; n--, x++) {
		uint8_t b[48], *p = b;
		p = sws__put_le(p, x->time_ns, 8);
		p = sws__put_le(p, x->addr, 8);
		p = sws__put_le(p, x->len, 8);
		p = sws__put_le(p, x->op, 4);
		p = sws__put_le(p, x->flags, 4);
		p = sws__put_le(p, x->pid, 4);
		p = sws__put_le(p, x->tid, 4);
		p = sws__put_le(p, x->cpu, 4);
		sws__put_le(p, x->arg, 4);
		crc = sws__crc32c(crc, b, sizeof(b));
	}
	return crc;
}

uint32_t sws__trace_record_crc(uint32_t crc, const struct sws_trace_record *x)
{
	return sws__trace_records_crc(crc, x, 1);
}
