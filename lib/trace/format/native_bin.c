/*
 * native_bin.c - the native binary trace reader (the format is written down in
 * native.c and docs/trace-format.md): the 16-byte header, varint-delta
 * records (a fast path for records wholly in the buffer, a checking path for
 * the rest), the end marker with the count and the checksum.
 */
#include <limits.h>
#include <string.h>

#include "../trace_internal.h"

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

static int native_bin_open(struct sws_trace_reader *r)
{
	struct sws__native_state *ns = r->state;
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
	ns->version = ver;
	if (ver == 1)
		snprintf(r->warning, sizeof(r->warning),
			 "%s: byte 8: swapsim binary trace v1 has no checksum: records changed in "
			 "the middle of the file may read as valid", r->path);
	for (int i = 10; i < 16; i++)
		if (h[i])
			return sws__trace_err_byte(r, SWS_EFORMAT, (uint64_t)i,
						   "reserved header bytes are not zero");
	s->pos += SWS_TRACE_BIN_HEADER;
	memset(&ns->prev, 0, sizeof(ns->prev));
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

/* The record at *@pp, the fields it does not give taken from @prev, into
 * *@x (which @prev must not overlap): @return 1 with *@pp past it, or 0
 * (*@pp as it was, *@x undefined): take the checking path. The caller knows
 * SWS__BIN_RECORD_MAX bytes lie at *@pp. */
static inline int bin_decode(const uint8_t **pp, const struct sws_trace_record *prev,
			     struct sws_trace_record *x)
{
	const uint8_t *p = *pp;
	uint8_t tag = *p++, ext = 0;
	unsigned op = tag & SWS__TAG_OP;
	if (op == 0 || op > SWS_TRACE_OP_MAX)
		return 0;
	if (tag & SWS__TAG_EXT) {
		ext = *p++;
		if (ext & ~SWS__EXT_ALL)
			return 0;
	}
	*x = *prev;
	uint64_t v;
	x->op = op;
	if (tag & SWS__TAG_TIME) {
		if (!fast_varint(&p, 8, &v))
			return 0;
		x->time_ns += sws__unzigzag(v);
	}
	if (tag & SWS__TAG_ADDR) {
		if (!fast_varint(&p, 8, &v))
			return 0;
		x->addr += sws__unzigzag(v);
	}
	if ((tag & SWS__TAG_LEN) && !fast_varint(&p, 8, &x->len))
		return 0;
	if (sws_unlikely(ext)) {
		uint32_t c = 0;
		if (((ext & SWS__EXT_FLAGS) && !fast_u32(&p, &x->flags)) ||
		    ((ext & SWS__EXT_PID) && !fast_u32(&p, &x->pid)) ||
		    ((ext & SWS__EXT_TID) && !fast_u32(&p, &x->tid)))
			return 0;
		if (ext & SWS__EXT_CPU) {
			if (!fast_u32(&p, &c))
				return 0;
			x->cpu = c - 1u;
		}
		if ((ext & SWS__EXT_ARG) && !fast_u32(&p, &x->arg))
			return 0;
	}
	*pp = p;
	return 1;
}

/*
 * A batch (struct sws__trace_format's next_batch): records decoded in a row
 * while SWS__BIN_RECORD_MAX bytes remain in the buffer, each from the one
 * before it, counted and checksummed together. It stops before a record the
 * fast path leaves to the checking path, and before the buffer's last bytes
 * (native_bin_next() reads those, refilling), so that every error is
 * reported at the same record and offset as one record at a time would.
 */
static uint32_t native_bin_next_batch(struct sws_trace_reader *r, struct sws_trace_record *recs,
				      uint64_t *ends, uint32_t max)
{
	struct sws__native_state *ns = r->state;
	struct sws_trace_stream *s = &r->s;
	if (s->len - s->pos < SWS__BIN_RECORD_MAX)
		return 0;
	const uint8_t *buf = s->buf, *p = buf + s->pos, *last = buf + (s->len - SWS__BIN_RECORD_MAX);
	const struct sws_trace_record *prev = &ns->prev;
	uint64_t base = s->base_off;
	uint32_t n = 0;
	while (n < max && p <= last && bin_decode(&p, prev, &recs[n])) {
		ends[n] = base + (uint64_t)(p - buf);
		prev = &recs[n++];
	}
	if (!n)
		return 0;
	s->pos = (size_t)(p - buf);
	ns->prev = recs[n - 1];
	ns->nrec += n;
	ns->crc = sws__trace_records_crc(ns->crc, recs, n);
	return n;
}

/* @return 1 and the record, or 0: take the checking path. */
static inline int bin_next_fast(struct sws_trace_reader *r, struct sws__native_state *ns,
				struct sws_trace_record *rec)
{
	struct sws_trace_stream *s = &r->s;
	const uint8_t *p = s->buf + s->pos;
	struct sws_trace_record x;
	if (!bin_decode(&p, &ns->prev, &x))
		return 0;
	s->pos = (size_t)(p - s->buf);
	ns->prev = x;
	sws__native_account(ns, &x);
	r->st.bytes = sws__stream_off(s);
	*rec = x;
	return 1;
}

static int native_bin_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	struct sws__native_state *ns = r->state;
	struct sws_trace_stream *s = &r->s;
	if (sws_likely(s->len - s->pos >= SWS__BIN_RECORD_MAX) && bin_next_fast(r, ns, rec))
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
		if (count != ns->nrec)
			return sws__trace_err_byte(r, SWS_EFORMAT, at,
						   "end marker counts %llu records, file holds %llu",
						   (unsigned long long)count, (unsigned long long)ns->nrec);
		if (ns->version >= 2) {
			if ((rc = sws__stream_fill(r, 4)))
				return rc;
			if (s->len - s->pos < 4)
				return sws__trace_err_byte(r, SWS_EFORMAT, sws__stream_off(s),
							   "truncated: the file ends inside the end marker");
			const uint8_t *c = s->buf + s->pos;
			uint32_t crc = c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 |
				       (uint32_t)c[3] << 24;
			if (crc != ns->crc)
				return sws__trace_err_byte(r, SWS_EFORMAT, sws__stream_off(s),
							   "checksum mismatch: the end marker says crc32c=%08x, "
							   "the records give %08x", crc, ns->crc);
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
	struct sws_trace_record x = ns->prev;
	uint64_t v;
	x.op = op;
	if (tag & SWS__TAG_TIME) {
		if ((rc = get_varint(r, &v)))
			return rc;
		x.time_ns += sws__unzigzag(v);
	}
	if (tag & SWS__TAG_ADDR) {
		if ((rc = get_varint(r, &v)))
			return rc;
		x.addr += sws__unzigzag(v);
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
	ns->prev = x;
	sws__native_account(ns, &x);
	r->st.bytes = sws__stream_off(s);
	*rec = x;
	return 1;
}

SWS__TRACE_FORMAT(sws__trace_native_bin,
		  .id = SWS_TRACE_FORMAT_NATIVE,
		  .name = "native",
		  .magic = SWS_TRACE_BIN_MAGIC,
		  .header_size = SWS_TRACE_BIN_HEADER,
		  .state_size = sizeof(struct sws__native_state),
		  .open = native_bin_open,
		  .next = native_bin_next,
		  .next_batch = native_bin_next_batch);
