/*
 * native.c - libswapsim's own trace format: reader and writer, text and binary,
 * and the CRC-32C both carry at their end.
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
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_internal.h"

/* ---- op names ----------------------------------------------------------- */

static const char *const op_names[] = {
	[SWS_TRACE_ACCESS] = "access",	 [SWS_TRACE_FORK] = "fork",
	[SWS_TRACE_EXIT] = "exit",	 [SWS_TRACE_MMAP] = "mmap",
	[SWS_TRACE_MUNMAP] = "munmap",	 [SWS_TRACE_MADV_PAGEOUT] = "pageout",
	[SWS_TRACE_MADV_DONTNEED] = "dontneed", [SWS_TRACE_RECLAIM] = "reclaim",
	[SWS_TRACE_EXEC] = "exec",	 [SWS_TRACE_MADV_FREE] = "free",
	[SWS_TRACE_FILE] = "file",
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

static inline uint8_t *put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The 48 canonical bytes as six little-endian words (x86-64 is little-endian):
 * the same CRC as crc32c_hw() over them. */
__attribute__((target("sse4.2"))) static uint32_t record_crc_hw(uint32_t crc, const struct sws_trace_record *x)
{
	uint64_t c = ~crc & 0xffffffffu;
	c = __builtin_ia32_crc32di(c, x->time_ns);
	c = __builtin_ia32_crc32di(c, x->addr);
	c = __builtin_ia32_crc32di(c, x->len);
	c = __builtin_ia32_crc32di(c, x->op | (uint64_t)x->flags << 32);
	c = __builtin_ia32_crc32di(c, x->pid | (uint64_t)x->tid << 32);
	c = __builtin_ia32_crc32di(c, x->cpu | (uint64_t)x->arg << 32);
	return ~(uint32_t)c;
}
#endif

uint32_t sws__trace_record_crc(uint32_t crc, const struct sws_trace_record *x)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (__builtin_cpu_supports("sse4.2"))
		return record_crc_hw(crc, x);
#endif
	uint8_t b[48], *p = b;
	p = put_le(p, x->time_ns, 8);
	p = put_le(p, x->addr, 8);
	p = put_le(p, x->len, 8);
	p = put_le(p, x->op, 4);
	p = put_le(p, x->flags, 4);
	p = put_le(p, x->pid, 4);
	p = put_le(p, x->tid, 4);
	p = put_le(p, x->cpu, 4);
	put_le(p, x->arg, 4);
	return sws__crc32c(crc, b, sizeof(b));
}

/* Count and checksum one more record read from a native trace. */
static void native_account(struct sws_trace_reader *r, const struct sws_trace_record *x)
{
	r->nrec++;
	r->crc = sws__trace_record_crc(r->crc, x);
}

/* ---- text reader ---------------------------------------------------------- */

int sws__native_text_open(struct sws_trace_reader *r)
{
	char *line;
	size_t len;
	int rc = sws__stream_line(r, &line, &len);
	if (rc < 0)
		return rc;
	if (rc == 0 || strncmp(line, SWS_TRACE_TEXT_HEADER, strlen(SWS_TRACE_TEXT_HEADER)))
		return sws__trace_err_line(r, SWS_EFORMAT,
					   "not a swapsim text trace (want \"%s%d\" as the first line)",
					   SWS_TRACE_TEXT_HEADER, SWS_TRACE_TEXT_VERSION);
	const char *v = line + strlen(SWS_TRACE_TEXT_HEADER);
	size_t vn = strcspn(v, " \t");
	uint32_t ver;
	if (sws__parse_u32(v, vn, 0, &ver))
		return sws__trace_err_line(r, SWS_EFORMAT, "bad version in the header");
	if (ver < 1 || ver > SWS_TRACE_TEXT_VERSION)
		return sws__trace_err_line(r, SWS_EVERSION,
					   "unsupported swapsim-trace version %u (this reader knows 1 to %d)",
					   ver, SWS_TRACE_TEXT_VERSION);
	r->version = ver;
	if (ver == 1)
		snprintf(r->warning, sizeof(r->warning),
			 "%s:1: swapsim-trace v1 text has no end record: a file cut short on a "
			 "line boundary reads as complete", r->path);
	r->st.skipped_lines++;
	return 0;
}

/* The end record "end records=N crc32c=XXXXXXXX" in tokens @t[0..n). @return 0 or an error. */
static int text_end(struct sws_trace_reader *r, char **t, int n)
{
	uint64_t count;
	uint32_t crc;
	const char *c = n == 3 ? t[2] : "";
	if (n != 3 || strncmp(t[1], "records=", 8) ||
	    sws__parse_u64(t[1] + 8, strlen(t[1] + 8), 0, &count) || strncmp(c, "crc32c=", 7) ||
	    strlen(c + 7) != 8 || (c[7] == '0' && (c[8] == 'x' || c[8] == 'X')) ||
	    sws__parse_u32(c + 7, 8, 1, &crc))
		return sws__trace_err_line(r, SWS_EFORMAT,
					   "bad end record (want \"end records=N crc32c=XXXXXXXX\")");
	if (count != r->nrec)
		return sws__trace_err_line(r, SWS_EFORMAT, "end record counts %llu records, file holds %llu",
					   (unsigned long long)count, (unsigned long long)r->nrec);
	if (crc != r->crc)
		return sws__trace_err_line(r, SWS_EFORMAT,
					   "checksum mismatch: the end record says crc32c=%08x, "
					   "the records give %08x", crc, r->crc);
	r->end_seen = 1;
	return 0;
}

int sws__native_text_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	static const char *const col[] = {"time_ns", "pid", "tid", "cpu", "op",
					  "addr",    "len", "flags", "arg"};
	for (;;) {
		char *line;
		size_t len;
		int rc = sws__stream_line(r, &line, &len);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			if (r->version >= 2 && !r->end_seen)
				return sws__trace_err_line(r, SWS_EFORMAT,
							   "trace ends without its end record (cut short?)");
			return 0;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *p = line;
		char *t[10];
		int n = 0;
		while (n < 10 && (t[n] = sws__token(&p)))
			n++;
		if (n == 0) {
			r->st.skipped_lines++;
			continue;
		}
		if (r->end_seen)
			return sws__trace_err_line(r, SWS_EFORMAT, "data after the end record");
		if (r->version >= 2 && !strcmp(t[0], SWS_TRACE_TEXT_END)) {
			if ((rc = text_end(r, t, n)))
				return rc;
			r->st.skipped_lines++;
			continue;
		}
		if (n != 9)
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "%s columns: want 9 (%s)", n < 9 ? "too few" : "too many",
						   "time_ns pid tid cpu op addr len flags arg");
		struct sws_trace_record x;
		int bad = -1;
		if (sws__parse_u64(t[0], strlen(t[0]), 0, &x.time_ns))
			bad = 0;
		else if (sws__parse_u32(t[1], strlen(t[1]), 0, &x.pid))
			bad = 1;
		else if (sws__parse_u32(t[2], strlen(t[2]), 0, &x.tid))
			bad = 2;
		else if (strcmp(t[3], "-") ? sws__parse_u32(t[3], strlen(t[3]), 0, &x.cpu) != 0
					   : (x.cpu = SWS_TRACE_CPU_ANY, 0))
			bad = 3;
		else if (sws_trace_op_parse(t[4], &x.op))
			bad = 4;
		else if (sws__parse_u64(t[5], strlen(t[5]), 0, &x.addr))
			bad = 5;
		else if (sws__parse_u64(t[6], strlen(t[6]), 0, &x.len))
			bad = 6;
		else if (sws__flags_parse(t[7], &x.flags))
			bad = 7;
		else if (sws__parse_u32(t[8], strlen(t[8]), 0, &x.arg))
			bad = 8;
		if (bad >= 0)
			return sws__trace_err_line(r, SWS_EFORMAT, "bad %s \"%.40s\"", col[bad], t[bad]);
		native_account(r, &x);
		*rec = x;
		return 1;
	}
}

/* ---- binary reader --------------------------------------------------------- */

static inline int get_byte(struct sws_trace_reader *r, uint8_t *b)
{
	struct sws_trace_stream *s = &r->s;
	if (sws_unlikely(s->pos == s->len)) {
		int rc = sws__stream_fill(r, 1);
		if (rc)
			return rc;
		if (s->pos == s->len)
			return sws__trace_err_byte(r, SWS_EFORMAT, sws__stream_off(s),
						   "truncated: the file ends inside a record "
						   "(no end marker)");
	}
	*b = s->buf[s->pos++];
	return 0;
}

static int get_varint(struct sws_trace_reader *r, uint64_t *out)
{
	uint64_t v = 0;
	uint64_t at = sws__stream_off(&r->s);
	for (unsigned shift = 0;; shift += 7) {
		uint8_t b = 0;
		int rc = get_byte(r, &b);
		if (rc)
			return rc;
		if (shift == 63 && b > 1)
			return sws__trace_err_byte(r, SWS_EFORMAT, at, "varint overflows 64 bits");
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		if (shift == 63)
			return sws__trace_err_byte(r, SWS_EFORMAT, at, "varint longer than 10 bytes");
	}
	*out = v;
	return 0;
}

static int get_u32(struct sws_trace_reader *r, uint32_t *out, const char *what)
{
	uint64_t at = sws__stream_off(&r->s);
	uint64_t v;
	int rc = get_varint(r, &v);
	if (rc)
		return rc;
	if (v > UINT32_MAX)
		return sws__trace_err_byte(r, SWS_EFORMAT, at, "%s does not fit in 32 bits", what);
	*out = (uint32_t)v;
	return 0;
}

static inline uint64_t unzigzag(uint64_t v) { return (v >> 1) ^ (0 - (v & 1)); }
static inline uint64_t zigzag(uint64_t d) { return (d << 1) ^ (0 - (d >> 63)); }

int sws__native_bin_open(struct sws_trace_reader *r)
{
	struct sws_trace_stream *s = &r->s;
	int rc = sws__stream_fill(r, SWS_TRACE_BIN_HEADER);
	if (rc)
		return rc;
	if (s->len - s->pos < SWS_TRACE_BIN_HEADER)
		return sws__trace_err_byte(r, SWS_EFORMAT, s->len - s->pos,
					   "truncated header (%zu of %d bytes)", s->len - s->pos,
					   SWS_TRACE_BIN_HEADER);
	const uint8_t *h = s->buf + s->pos;
	if (memcmp(h, SWS_TRACE_BIN_MAGIC, 8))
		return sws__trace_err_byte(r, SWS_EFORMAT, 0, "bad magic (not a swapsim binary trace)");
	unsigned ver = h[8] | (unsigned)h[9] << 8;
	if (ver < 1 || ver > SWS_TRACE_BIN_VERSION)
		return sws__trace_err_byte(r, SWS_EVERSION, 8,
					   "unsupported swapsim-trace binary version %u (this reader knows 1 to %d)",
					   ver, SWS_TRACE_BIN_VERSION);
	r->version = ver;
	if (ver == 1)
		snprintf(r->warning, sizeof(r->warning),
			 "%s: byte 8: swapsim binary trace v1 has no checksum: records changed in "
			 "the middle of the file may read as valid", r->path);
	for (int i = 10; i < 16; i++)
		if (h[i])
			return sws__trace_err_byte(r, SWS_EFORMAT, (uint64_t)i,
						   "reserved header bytes are not zero");
	s->pos += SWS_TRACE_BIN_HEADER;
	r->binary = 1;
	memset(&r->prev, 0, sizeof(r->prev));
	return 0;
}

/*
 * The fast path: a whole record of at most SWS__BIN_RECORD_MAX bytes lies in
 * the buffer, so bytes are taken without a refill check. A varint of 9 or
 * more bytes (a 32-bit field of 6 or more), an unknown op or field bit, and the
 * end marker are left to the checking path below, which reads the record
 * again from its first byte: every error it reports is the same.
 */
#define SWS__BIN_RECORD_MAX 64 /* tag, ext, 3 varints of 8 bytes, 5 of 5, and 8 bytes' over-read */

/* A varint of at most @max (<= 8) bytes from @*p: @return 0 (none that
 * short) or 1. Past one byte, little-endian hosts read 8 bytes as one word: the
 * terminator is its lowest byte with bit 7 clear, and the 7-bit groups are
 * packed in three steps (8 -> 16 -> 32 -> 64-bit lanes). */
static inline int fast_varint(const uint8_t **p, unsigned max, uint64_t *out)
{
	const uint8_t *q = *p;
	if (!(q[0] & 0x80)) { /* one byte: time deltas, flags, small lengths */
		*p = q + 1;
		*out = q[0];
		return 1;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w;
	memcpy(&w, q, sizeof(w));
	uint64_t stop = ~w & 0x8080808080808080ull;
	if (!stop)
		return 0;
	unsigned n = (unsigned)__builtin_ctzll(stop) / 8 + 1;
	if (n > max)
		return 0;
	uint64_t x = w & (stop ^ (stop - 1)) & 0x7f7f7f7f7f7f7f7full;
	x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
	x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
	x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
	*p = q + n;
	*out = x;
	return 1;
#else
	uint64_t v = 0;
	for (unsigned i = 0; i < max; i++) {
		uint8_t b = q[i];
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*p = q + i + 1;
			*out = v;
			return 1;
		}
	}
	return 0;
#endif
}

static inline int fast_u32(const uint8_t **p, uint32_t *out)
{
	uint64_t v;
	if (!fast_varint(p, 5, &v) || v > UINT32_MAX)
		return 0;
	*out = (uint32_t)v;
	return 1;
}

/* @return 1 and the record, or 0: take the checking path. */
static inline int bin_next_fast(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	struct sws_trace_stream *s = &r->s;
	const uint8_t *p = s->buf + s->pos;
	uint8_t tag = *p++, ext = 0;
	unsigned op = tag & SWS__TAG_OP;
	if (op == 0 || op > SWS_TRACE_OP_MAX)
		return 0;
	if (tag & SWS__TAG_EXT) {
		ext = *p++;
		if (ext & ~SWS__EXT_ALL)
			return 0;
	}
	struct sws_trace_record x = r->prev;
	uint64_t v;
	x.op = op;
	if (tag & SWS__TAG_TIME) {
		if (!fast_varint(&p, 8, &v))
			return 0;
		x.time_ns += unzigzag(v);
	}
	if (tag & SWS__TAG_ADDR) {
		if (!fast_varint(&p, 8, &v))
			return 0;
		x.addr += unzigzag(v);
	}
	if ((tag & SWS__TAG_LEN) && !fast_varint(&p, 8, &x.len))
		return 0;
	if (sws_unlikely(ext)) {
		uint32_t c = 0;
		if (((ext & SWS__EXT_FLAGS) && !fast_u32(&p, &x.flags)) ||
		    ((ext & SWS__EXT_PID) && !fast_u32(&p, &x.pid)) ||
		    ((ext & SWS__EXT_TID) && !fast_u32(&p, &x.tid)))
			return 0;
		if (ext & SWS__EXT_CPU) {
			if (!fast_u32(&p, &c))
				return 0;
			x.cpu = c - 1u;
		}
		if ((ext & SWS__EXT_ARG) && !fast_u32(&p, &x.arg))
			return 0;
	}
	s->pos = (size_t)(p - s->buf);
	r->prev = x;
	native_account(r, &x);
	r->st.bytes = sws__stream_off(s);
	*rec = x;
	return 1;
}

int sws__native_bin_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	struct sws_trace_stream *s = &r->s;
	if (sws_likely(s->len - s->pos >= SWS__BIN_RECORD_MAX) && bin_next_fast(r, rec))
		return 1;
	uint64_t at = sws__stream_off(s);
	uint8_t tag = 0, ext = 0;
	int rc = get_byte(r, &tag);
	if (rc)
		return rc;
	unsigned op = tag & SWS__TAG_OP;
	if (op == 0) { /* end marker */
		if (tag)
			return sws__trace_err_byte(r, SWS_EFORMAT, at, "bad end marker 0x%02x", tag);
		uint64_t count;
		if ((rc = get_varint(r, &count)))
			return rc;
		if (count != r->nrec)
			return sws__trace_err_byte(r, SWS_EFORMAT, at,
						   "end marker counts %llu records, file holds %llu",
						   (unsigned long long)count, (unsigned long long)r->nrec);
		if (r->version >= 2) {
			if ((rc = sws__stream_fill(r, 4)))
				return rc;
			if (s->len - s->pos < 4)
				return sws__trace_err_byte(r, SWS_EFORMAT, sws__stream_off(s),
							   "truncated: the file ends inside the end marker");
			const uint8_t *c = s->buf + s->pos;
			uint32_t crc = c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 |
				       (uint32_t)c[3] << 24;
			if (crc != r->crc)
				return sws__trace_err_byte(r, SWS_EFORMAT, sws__stream_off(s),
							   "checksum mismatch: the end marker says crc32c=%08x, "
							   "the records give %08x", crc, r->crc);
			s->pos += 4;
		}
		uint64_t end = sws__stream_off(s);
		if ((rc = sws__stream_fill(r, 1)))
			return rc;
		if (s->pos != s->len)
			return sws__trace_err_byte(r, SWS_EFORMAT, end, "data after the end marker");
		return 0;
	}
	if (op > SWS_TRACE_OP_MAX)
		return sws__trace_err_byte(r, SWS_EFORMAT, at, "unknown op %u", op);
	if (tag & SWS__TAG_EXT) {
		if ((rc = get_byte(r, &ext)))
			return rc;
		if (ext & ~SWS__EXT_ALL)
			return sws__trace_err_byte(r, SWS_EFORMAT, at + 1,
						   "unknown field bits 0x%02x", ext);
	}
	struct sws_trace_record x = r->prev;
	uint64_t v;
	x.op = op;
	if (tag & SWS__TAG_TIME) {
		if ((rc = get_varint(r, &v)))
			return rc;
		x.time_ns += unzigzag(v);
	}
	if (tag & SWS__TAG_ADDR) {
		if ((rc = get_varint(r, &v)))
			return rc;
		x.addr += unzigzag(v);
	}
	if ((tag & SWS__TAG_LEN) && (rc = get_varint(r, &x.len)))
		return rc;
	if ((ext & SWS__EXT_FLAGS) && (rc = get_u32(r, &x.flags, "flags")))
		return rc;
	if ((ext & SWS__EXT_PID) && (rc = get_u32(r, &x.pid, "pid")))
		return rc;
	if ((ext & SWS__EXT_TID) && (rc = get_u32(r, &x.tid, "tid")))
		return rc;
	if (ext & SWS__EXT_CPU) {
		uint32_t c = 0;
		if ((rc = get_u32(r, &c, "cpu")))
			return rc;
		x.cpu = c - 1u;
	}
	if ((ext & SWS__EXT_ARG) && (rc = get_u32(r, &x.arg, "arg")))
		return rc;
	r->prev = x;
	native_account(r, &x);
	r->st.bytes = sws__stream_off(s);
	*rec = x;
	return 1;
}

/* ---- writer ---------------------------------------------------------------- */

/*
 * Atomic output. A regular file is never written in place: open() creates a
 * temporary beside it, ".NAME.XXXXXX" in the same directory (rename() is
 * atomic only within one file system), and close() finishes it, fsync()s it
 * and renames it over NAME. An error, or abort(), removes the temporary and
 * leaves NAME as it was; a process killed on the way leaves NAME as it was
 * and its temporary behind.
 *
 *   open:   NAME ──(symbolic links followed)──▶ final; create .final.XXXXXX
 *   write:  record ──▶ buf ──▶ [zstd] ──▶ FILE on the temporary
 *   close:  end record, flush, fsync, rename(temporary, final), fsync(dir)
 *
 * An existing file keeps its permission bits (a new one gets 0666 less the
 * umask, as with fopen()); a symbolic link is followed, so its target is
 * replaced and the link stays. An output that exists and is not a regular
 * file (a character device, a FIFO: /dev/null, a pipe behind /dev/stdout)
 * cannot be replaced: it is written in place. The temporary's letters come
 * from getrandom(); they decide nothing a simulation sees.
 */

#define WBUF_SIZE (64u << 10)
#define TMP_LETTERS 6   /* random letters at the end of the temporary's name */
#define TMP_TRIES 64    /* names tried before giving up (O_EXCL collisions) */
#define TMP_BASE_MAX 200 /* bytes of NAME kept in the temporary's name */

struct sws_trace_writer {
	struct sws_mem mem;
	struct sws_trace_writer_config cfg;
	FILE *f;
	char *final;        /* where the file goes (symbolic links resolved) */
	char *tmp;          /* the temporary beside it; NULL: written in place */
	size_t final_size, tmp_size;
	ZSTD_CCtx *cctx;
	uint8_t *buf; /* records before compression / writing */
	size_t len;
	uint8_t *zout;
	size_t zout_size;
	struct sws_trace_record prev;
	uint64_t nrec;
	uint32_t crc;       /* the trace checksum so far */
	int err;
	char path[256];     /* the name given, for messages */
	char msg[512];
};

__attribute__((format(printf, 3, 4))) static int werr(struct sws_trace_writer *w, int code,
						      const char *fmt, ...)
{
	if (w->err)
		return w->err;
	int n = snprintf(w->msg, sizeof(w->msg), "%s: ", w->path);
	if (n < 0 || (size_t)n >= sizeof(w->msg))
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->msg + n, sizeof(w->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	w->err = code;
	return code;
}

static int wflush(struct sws_trace_writer *w, int end)
{
	if (w->err)
		return w->err;
	if (!w->cctx) {
		if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len)
			return werr(w, SWS_EIO, "write error: %s", strerror(errno));
		w->len = 0;
		return 0;
	}
	ZSTD_inBuffer in = {w->buf, w->len, 0};
	for (;;) {
		ZSTD_outBuffer out = {w->zout, w->zout_size, 0};
		size_t ret = ZSTD_compressStream2(w->cctx, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(ret))
			return werr(w, SWS_ENOMEM, "zstd compression failed: %s", ZSTD_getErrorName(ret));
		if (out.pos && fwrite(w->zout, 1, out.pos, w->f) != out.pos)
			return werr(w, SWS_EIO, "write error: %s", strerror(errno));
		if (end ? ret == 0 : in.pos == in.size)
			break;
	}
	w->len = 0;
	return 0;
}

static int wbytes(struct sws_trace_writer *w, const void *p, size_t n)
{
	if (w->len + n > WBUF_SIZE) {
		int rc = wflush(w, 0);
		if (rc)
			return rc;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
	return 0;
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Fill @p with TMP_LETTERS letters, different for each @attempt. */
static void tmp_letters(char *p, unsigned attempt, const void *salt)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	uint8_t rnd[TMP_LETTERS];
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		uint64_t x = ((uint64_t)getpid() << 32 ^ (uintptr_t)salt) + attempt;
		for (size_t i = 0; i < sizeof(rnd); i++) {
			x = x * 0x9e3779b97f4a7c15ull + 1;
			rnd[i] = (uint8_t)(x >> 56);
		}
	}
	for (size_t i = 0; i < TMP_LETTERS; i++)
		p[i] = abc[rnd[i] % (sizeof(abc) - 1)];
}

/* Create the temporary ".BASE.XXXXXX" beside w->final, with @mode when @keep_mode. */
static int create_tmp(struct sws_trace_writer *w, int keep_mode, mode_t mode)
{
	const char *slash = strrchr(w->final, '/');
	size_t dn = slash ? (size_t)(slash - w->final) + 1 : 0;
	const char *base = w->final + dn;
	size_t bn = strlen(base) < TMP_BASE_MAX ? strlen(base) : TMP_BASE_MAX;
	w->tmp_size = dn + 1 + bn + 1 + TMP_LETTERS + 1;
	w->tmp = sws__mem_alloc(&w->mem, SWS__TRACE_MEM, w->tmp_size, 0);
	if (!w->tmp)
		return werr(w, SWS_ENOMEM, "out of memory");
	char *p = w->tmp;
	memcpy(p, w->final, dn);
	p += dn;
	*p++ = '.';
	memcpy(p, base, bn);
	p += bn;
	*p++ = '.';
	p[TMP_LETTERS] = '\0';
	int fd = -1;
	for (unsigned i = 0; i < TMP_TRIES && fd < 0; i++) {
		tmp_letters(p, i, w);
		fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	int e = errno;
	if (fd >= 0 && keep_mode)
		(void)fchmod(fd, mode); /* best effort: the file is ours either way */
	if (fd >= 0 && !(w->f = fdopen(fd, "wb"))) {
		e = errno;
		close(fd);
		unlink(w->tmp);
	}
	if (!w->f) {
		sws__mem_free(&w->mem, SWS__TRACE_MEM, w->tmp, w->tmp_size);
		w->tmp = NULL;
		return werr(w, SWS_EIO, "cannot create a temporary file beside it: %s", strerror(e));
	}
	return 0;
}

/* Decide where the output goes (w->final) and open what is written. */
static int wcreate(struct sws_trace_writer *w, const char *path)
{
	char resolved[PATH_MAX];
	const char *target = path;
	struct stat st;
	int exists = lstat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return werr(w, SWS_EIO, "cannot create: %s", strerror(errno));
	if (exists && S_ISLNK(st.st_mode)) {
		if (realpath(path, resolved) && !stat(resolved, &st)) {
			target = resolved;
		} else {
			/* A pipe or a socket behind /proc/self/fd/N (/dev/stdout) links to
			 * no path ("pipe:[N]"), yet opens: written in place, below. */
			int e = errno;
			if (stat(path, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
				return werr(w, SWS_EIO, "cannot follow the symbolic link: %s", strerror(e));
		}
	}
	if (exists && S_ISDIR(st.st_mode))
		return werr(w, SWS_EIO, "cannot create: %s", strerror(EISDIR));
	/* Replacing a file this process could not write would lift its protection. */
	if (exists && faccessat(AT_FDCWD, target, W_OK, AT_EACCESS))
		return werr(w, SWS_EIO, "cannot create: %s", strerror(errno));
	w->final_size = strlen(target) + 1;
	w->final = sws__mem_alloc(&w->mem, SWS__TRACE_MEM, w->final_size, 0);
	if (!w->final)
		return werr(w, SWS_ENOMEM, "out of memory");
	memcpy(w->final, target, w->final_size);
	if (exists && !S_ISREG(st.st_mode)) {
		w->f = fopen(target, "wb");
		if (!w->f)
			return werr(w, SWS_EIO, "cannot create: %s", strerror(errno));
		return 0;
	}
	return create_tmp(w, exists, st.st_mode & 07777);
}

/* fsync() the directory holding @file, so that the rename is durable too.
 * Best effort: the file is complete under its name whatever happens here. */
static void sync_dir(const char *file)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(file, '/');
	size_t n = !slash ? 1 : slash == file ? 1 : (size_t)(slash - file);
	if (n >= sizeof(dir))
		return;
	memcpy(dir, slash ? file : ".", n);
	dir[n] = '\0';
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

/* Close the file and remove the temporary, if any: the final name is untouched. */
static void wdiscard(struct sws_trace_writer *w)
{
	if (w->f)
		fclose(w->f);
	w->f = NULL;
	if (w->tmp) {
		unlink(w->tmp);
		sws__mem_free(&w->mem, SWS__TRACE_MEM, w->tmp, w->tmp_size);
		w->tmp = NULL;
	}
}

static void wfree(struct sws_trace_writer *w)
{
	if (w->cctx)
		ZSTD_freeCCtx(w->cctx);
	if (w->zout)
		sws__mem_free(&w->mem, SWS__TRACE_MEM, w->zout, w->zout_size);
	if (w->buf)
		sws__mem_free(&w->mem, SWS__TRACE_MEM, w->buf, WBUF_SIZE);
	if (w->final)
		sws__mem_free(&w->mem, SWS__TRACE_MEM, w->final, w->final_size);
	struct sws_mem mem = w->mem;
	sws__mem_free(&mem, SWS__TRACE_MEM, w, sizeof(*w));
}

int sws_trace_writer_open(const char *path, const struct sws_trace_writer_config *cfg,
			  struct sws_trace_writer **out, char *errbuf, size_t errlen)
{
	static const struct sws_trace_writer_config defaults = {0};
	if (out)
		*out = NULL;
	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!path || !out)
		return SWS_EINVAL;
	if (!cfg)
		cfg = &defaults;
	if (cfg->version > SWS_TRACE_WRITER_CONFIG_VERSION ||
	    (cfg->env && cfg->env->version > SWS_ENV_VERSION)) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: unsupported config version", path);
		return SWS_EVERSION;
	}
	if ((cfg->encoding != SWS_TRACE_TEXT && cfg->encoding != SWS_TRACE_BINARY) ||
	    (cfg->flags & ~SWS_TRACE_WRITE_ZSTD) || cfg->zstd_level < 0 || cfg->zstd_level > 19 ||
	    (cfg->env && cfg->env->reserved)) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: invalid writer configuration", path);
		return SWS_EINVAL;
	}
	struct sws_mem mem;
	sws__mem_init(&mem, cfg->env ? &cfg->env->allocator : NULL);
	struct sws_trace_writer *w = sws__mem_zalloc(&mem, SWS__TRACE_MEM, sizeof(*w), 0);
	if (!w) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: out of memory", path);
		return SWS_ENOMEM;
	}
	w->mem = mem;
	w->cfg = *cfg;
	snprintf(w->path, sizeof(w->path), "%s", path);
	int rc = 0;
	w->buf = sws__mem_alloc(&w->mem, SWS__TRACE_MEM, WBUF_SIZE, 0);
	if (!w->buf) {
		rc = werr(w, SWS_ENOMEM, "out of memory");
		goto fail;
	}
	if (cfg->flags & SWS_TRACE_WRITE_ZSTD) {
		w->zout_size = ZSTD_CStreamOutSize();
		w->zout = sws__mem_alloc(&w->mem, SWS__TRACE_MEM, w->zout_size, 0);
		w->cctx = ZSTD_createCCtx_advanced(sws__trace_zstd_mem(&w->mem));
		if (!w->zout || !w->cctx) {
			rc = werr(w, SWS_ENOMEM, "out of memory for zstd compression");
			goto fail;
		}
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel,
				       cfg->zstd_level ? cfg->zstd_level : 3);
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
		/* Keep the window within what readers accept. */
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_windowLog, 23);
	}
	if ((rc = wcreate(w, path)))
		goto fail;
	if (cfg->encoding == SWS_TRACE_BINARY) {
		uint8_t h[SWS_TRACE_BIN_HEADER] = {0};
		memcpy(h, SWS_TRACE_BIN_MAGIC, 8);
		h[8] = SWS_TRACE_BIN_VERSION;
		rc = wbytes(w, h, sizeof(h));
	} else {
		char h[160];
		int n = snprintf(h, sizeof(h), "%s%d\n# time_ns pid tid cpu op addr len flags arg\n",
				 SWS_TRACE_TEXT_HEADER, SWS_TRACE_TEXT_VERSION);
		rc = wbytes(w, h, (size_t)n);
	}
	if (rc)
		goto fail;
	*out = w;
	return 0;
fail:
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s", w->msg);
	wdiscard(w);
	wfree(w);
	return rc;
}

static int write_text(struct sws_trace_writer *w, const struct sws_trace_record *x)
{
	char line[256], cpu[16], flags[16];
	if (x->cpu == SWS_TRACE_CPU_ANY)
		strcpy(cpu, "-");
	else
		snprintf(cpu, sizeof(cpu), "%u", x->cpu);
	if (!x->flags) {
		strcpy(flags, "-");
	} else if (x->flags & ~(SWS_TRACE_F_WRITE | SWS_TRACE_F_IFETCH | SWS_TRACE_F_THP)) {
		snprintf(flags, sizeof(flags), "0x%x", x->flags);
	} else {
		char *p = flags;
		if (x->flags & SWS_TRACE_F_WRITE)
			*p++ = 'w';
		if (x->flags & SWS_TRACE_F_IFETCH)
			*p++ = 'x';
		if (x->flags & SWS_TRACE_F_THP)
			*p++ = 'h';
		*p = '\0';
	}
	int n = snprintf(line, sizeof(line), "%llu %u %u %s %s 0x%llx %llu %s %u\n",
			 (unsigned long long)x->time_ns, x->pid, x->tid, cpu, sws_trace_op_name(x->op),
			 (unsigned long long)x->addr, (unsigned long long)x->len, flags, x->arg);
	return wbytes(w, line, (size_t)n);
}

static int write_bin(struct sws_trace_writer *w, const struct sws_trace_record *x)
{
	uint8_t rec[2 + 3 * 10 + 5 * 5]; /* tag, ext, 3 64-bit and 5 32-bit varints */
	uint8_t fields[3 * 10 + 5 * 5], *p = fields;
	const struct sws_trace_record *pv = &w->prev;
	uint8_t tag = (uint8_t)x->op, ext = 0;
	if (x->time_ns != pv->time_ns) {
		tag |= SWS__TAG_TIME;
		p = put_varint(p, zigzag(x->time_ns - pv->time_ns));
	}
	if (x->addr != pv->addr) {
		tag |= SWS__TAG_ADDR;
		p = put_varint(p, zigzag(x->addr - pv->addr));
	}
	if (x->len != pv->len) {
		tag |= SWS__TAG_LEN;
		p = put_varint(p, x->len);
	}
	if (x->flags != pv->flags) {
		ext |= SWS__EXT_FLAGS;
		p = put_varint(p, x->flags);
	}
	if (x->pid != pv->pid) {
		ext |= SWS__EXT_PID;
		p = put_varint(p, x->pid);
	}
	if (x->tid != pv->tid) {
		ext |= SWS__EXT_TID;
		p = put_varint(p, x->tid);
	}
	if (x->cpu != pv->cpu) {
		ext |= SWS__EXT_CPU;
		p = put_varint(p, (uint32_t)(x->cpu + 1u));
	}
	if (x->arg != pv->arg) {
		ext |= SWS__EXT_ARG;
		p = put_varint(p, x->arg);
	}
	size_t n = 0;
	rec[n++] = tag | (ext ? SWS__TAG_EXT : 0);
	if (ext)
		rec[n++] = ext;
	memcpy(rec + n, fields, (size_t)(p - fields));
	n += (size_t)(p - fields);
	w->prev = *x;
	return wbytes(w, rec, n);
}

int sws_trace_writer_write(struct sws_trace_writer *w, const struct sws_trace_record *rec)
{
	if (!w || !rec)
		return SWS_EINVAL;
	if (w->err)
		return w->err;
	if (rec->op < 1 || rec->op > SWS_TRACE_OP_MAX)
		return SWS_EINVAL;
	int rc = w->cfg.encoding == SWS_TRACE_BINARY ? write_bin(w, rec) : write_text(w, rec);
	if (!rc) {
		w->nrec++;
		w->crc = sws__trace_record_crc(w->crc, rec);
	}
	return rc;
}

const char *sws_trace_writer_error(const struct sws_trace_writer *w)
{
	return w ? w->msg : "";
}

int sws_trace_writer_close(struct sws_trace_writer *w, char *errbuf, size_t errlen)
{
	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!w)
		return 0;
	int rc = w->err;
	if (!rc && w->cfg.encoding == SWS_TRACE_BINARY) {
		uint8_t end[1 + 10 + 4], *p = end;
		*p++ = 0;
		p = put_varint(p, w->nrec);
		p = put_le(p, w->crc, 4);
		rc = wbytes(w, end, (size_t)(p - end));
	} else if (!rc) {
		char end[64];
		int n = snprintf(end, sizeof(end), "%s records=%llu crc32c=%08x\n", SWS_TRACE_TEXT_END,
				 (unsigned long long)w->nrec, w->crc);
		rc = wbytes(w, end, (size_t)n);
	}
	if (!rc)
		rc = wflush(w, 1);
	if (!rc && fflush(w->f))
		rc = werr(w, SWS_EIO, "write error: %s", strerror(errno));
	if (!rc && w->tmp && fsync(fileno(w->f)))
		rc = werr(w, SWS_EIO, "fsync: %s", strerror(errno));
	if (fclose(w->f) && !rc)
		rc = werr(w, SWS_EIO, "close: %s", strerror(errno));
	w->f = NULL;
	if (!rc && w->tmp) {
		if (rename(w->tmp, w->final)) {
			rc = werr(w, SWS_EIO, "cannot rename the temporary file over it: %s",
				  strerror(errno));
		} else {
			sws__mem_free(&w->mem, SWS__TRACE_MEM, w->tmp, w->tmp_size);
			w->tmp = NULL;
			sync_dir(w->final);
		}
	}
	if (rc && errbuf && errlen)
		snprintf(errbuf, errlen, "%s", w->msg);
	wdiscard(w);
	wfree(w);
	return rc;
}

void sws_trace_writer_abort(struct sws_trace_writer *w)
{
	if (!w)
		return;
	wdiscard(w);
	wfree(w);
}
