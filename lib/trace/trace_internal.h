/*
 * trace_internal.h - the pieces behind swapsim/trace.h: the byte stream every
 * reader sits on (a file, decompressed on the fly when it is a zstd stream),
 * the line splitter with its length cap, error formatting, the interface every
 * format implements (struct sws__trace_format; the list is formats.c, the
 * formats are format/, one file each) and the pieces formats share.
 *
 *   file ──fread──▶ [zstd DCtx] ──▶ buf[pos..len) ──▶ line (NUL-terminated, in place)
 *                                               └──▶ bytes (native binary decoder)
 *
 * The buffer holds at least max_line + 1 bytes, so a line is always handed out
 * as a pointer into it (no copy). Offsets: `raw_off` counts bytes read from the
 * file, `off` bytes delivered to the parsers (equal when not compressed).
 *
 * Depends on lib/common only (allocator). The types first, then one section
 * per defining file naming what it exports to the others (no lock is shared:
 * a reader belongs to one thread).
 */
#ifndef SWS_TRACE_INTERNAL_H
#define SWS_TRACE_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem: zstd allocates through the env */
#include <zstd.h>
#include <swapsim/error.h>
#include <swapsim/trace.h>

#include "../common/mem.h"

#define SWS_TRACE_ZSTD_WINDOW_LOG_MAX 27
#define SWS_TRACE_BIN_MAGIC "SWSTRACE"
#define SWS_TRACE_BIN_VERSION 2   /* written; 1 (no checksum) is still read */
#define SWS_TRACE_BIN_HEADER 16
#define SWS_TRACE_TEXT_HEADER "# swapsim-trace v"
#define SWS_TRACE_TEXT_VERSION 2  /* written; 1 (no end record) is still read */
#define SWS_TRACE_TEXT_END "end"  /* first word of the text end record */
#define SWS_TRACE_PAGE 4096u

/* Binary record tag: op in the low nibble, which fields follow above it. */
#define SWS__TAG_OP 0x0fu
#define SWS__TAG_TIME 0x10u /* zigzag varint time delta */
#define SWS__TAG_ADDR 0x20u /* zigzag varint addr delta */
#define SWS__TAG_LEN 0x40u  /* varint len (else: the previous record's) */
#define SWS__TAG_EXT 0x80u  /* an extension byte follows */
#define SWS__EXT_FLAGS 0x01u
#define SWS__EXT_PID 0x02u
#define SWS__EXT_TID 0x04u
#define SWS__EXT_CPU 0x08u /* varint cpu + 1 (mod 2^32): CPU_ANY is 0 */
#define SWS__EXT_ARG 0x10u
#define SWS__EXT_ALL 0x1fu

struct sws_trace_stream {
	FILE *f;
	const char *path;
	int zstd;           /* the file is a zstd stream */
	int eof;            /* no more bytes will come */
	int zin_eof;        /* the compressed file is exhausted */
	void *dctx;         /* ZSTD_DCtx */
	uint8_t *zin;       /* compressed input */
	size_t zin_size, zin_pos, zin_len;
	size_t zret;        /* last ZSTD_decompressStream() result: 0 at a frame end */
	uint8_t *buf;       /* decompressed / raw bytes */
	size_t cap, pos, len;
	uint64_t raw_off;   /* bytes read from the file */
	uint64_t base_off;  /* stream offset of buf[0] */
};

struct sws__trace_format;

struct sws_trace_reader {
	struct sws_mem mem;
	struct sws_trace_reader_config cfg;
	const struct sws__trace_format *fmt; /* the format being read (formats.c) */
	void *state;        /* the format's own state: fmt->state_size bytes */
	struct sws_trace_stream s;
	char path[256];
	uint64_t line;      /* number of the current line (1-based) */
	uint64_t rec_line;  /* sws_trace_reader_position(): where the last record came from */
	uint64_t read;      /* records the format returned (before any filter) */
	int err;            /* sticky error */
	char msg[512];
	char warning[1024]; /* sws_trace_reader_warning(): "" or a message */
	struct sws_trace_reader_stats st;
	int done;
	int skip_ifetch;    /* cfg.flags has SWS_TRACE_READ_NO_IFETCH */
	/* Records the format's next_batch() decoded, handed out from batch[bpos]
	 * (bpos == bn: none left); batch_end[i]: st.bytes once batch[i] is out. */
	struct sws_trace_record *batch;
	uint64_t *batch_end;
	uint32_t bpos, bn;
};
#define SWS__TRACE_BATCH 256 /* records per next_batch() */

/*
 * A trace format (one file under format/, listed once in formats.c). The
 * reader picks one at open: by the file's first bytes (@magic) or first lines
 * (@detect_head, @detect) when the configuration says SWS_TRACE_FORMAT_AUTO,
 * else the one of the configured @id whose @magic matches or is absent. It
 * then zeroes @state_size bytes of state for it, calls @open, and @next for
 * each record; @free at close gives back what the state points to.
 */
#define SWS__TRACE_FORMAT_VERSION 1
/* A format's table: SWS__TRACE_FORMAT(sws__trace_x, .id = ..., .name = ..., ...). */
#define SWS__TRACE_FORMAT(var, ...) \
	const struct sws__trace_format var = {.version = SWS__TRACE_FORMAT_VERSION, __VA_ARGS__}
struct sws__trace_format {
	uint32_t version;         /* SWS__TRACE_FORMAT_VERSION */
	enum sws_trace_format id; /* what sws_trace_reader_format() reports */
	const char *name;         /* sws_trace_format_name(id) */
	const char *magic;        /* binary: the file's first bytes; NULL: text */
	uint32_t header_size;     /* binary: bytes of the header the magic starts */
	size_t state_size;        /* bytes of r->state (zeroed before open) */
	/* Text detection: @detect_head on the first line (a header naming the
	 * format), @detect on each line that is neither blank nor a comment
	 * (could it be one of the format's?). Either may be NULL. */
	int (*detect_head)(const struct sws_trace_reader *r, const char *line);
	int (*detect)(const struct sws_trace_reader *r, const char *line);
	/* After the choice: the header, at the start of the stream. NULL: none. */
	int (*open)(struct sws_trace_reader *r);
	/* The next record: 1, 0 at the end, or a negative error (sticky). */
	int (*next)(struct sws_trace_reader *r, struct sws_trace_record *rec);
	/* Optional, binary formats: the next records, up to @max, decoded in a
	 * row into @recs, @ends[i] the stream offset after @recs[i]. It stops
	 * before any record it cannot vouch for, which @next then reads (errors
	 * come from there only). @return how many (0: call @next). */
	uint32_t (*next_batch)(struct sws_trace_reader *r, struct sws_trace_record *recs, uint64_t *ends,
			       uint32_t max);
	/* What the state points to, at close. NULL: nothing. */
	void (*free)(struct sws_trace_reader *r);
};

/* Reader memory class: a reader's own struct sws_mem charges everything here. */
#define SWS__TRACE_MEM SWS_MEM_sim

/* ---- stream.c ---------------------------------------------------------------- */
/* The one sticky-error formatter of readers and the writer: when *@err is 0,
 * @code goes to *@err and "@where: " then the message to @msg (@size bytes).
 * @return *@err (the first error recorded). */
int sws__trace_verr(int *err, char *msg, size_t size, int code, const char *where, const char *fmt,
		    va_list ap) __attribute__((format(printf, 6, 0)));
/* Errors: all return the code they record (sticky in r->err). _line names
 * the current line, _at line @line. */
int sws__trace_err_line(struct sws_trace_reader *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sws__trace_err_at(struct sws_trace_reader *r, int code, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int sws__trace_err_byte(struct sws_trace_reader *r, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

int sws__stream_open(struct sws_trace_reader *r, const char *path);
void sws__stream_close(struct sws_trace_reader *r);
/* Fill the buffer so that at least @want bytes are available from pos (fewer at EOF).
 * @return 0 or an error. */
int sws__stream_fill(struct sws_trace_reader *r, size_t want);
/* The next line (without '\n' or "\r\n"), NUL-terminated, in *line. Empty
 * lines after the first one are not handed out: they are counted in r->line,
 * st.lines and st.skipped_lines (every reader skips them).
 * @return 1, 0 at end of input, or an error (over-long line, NUL byte). */
int sws__stream_line(struct sws_trace_reader *r, char **line, size_t *len);
/* Offset in the (decompressed) stream of the next byte handed out. */
static inline uint64_t sws__stream_off(const struct sws_trace_stream *s)
{
	return s->base_off + s->pos;
}
/* Bytes of the file itself used so far: the stream offset, or for a zstd
 * file the compressed bytes the decoder has consumed. */
static inline uint64_t sws__stream_file_off(const struct sws_trace_stream *s)
{
	return s->zstd ? s->raw_off - (s->zin_len - s->zin_pos) : sws__stream_off(s);
}
/* zstd's allocations through the injected allocator, charged to @m. */
ZSTD_customMem sws__trace_zstd_mem(struct sws_mem *m);

/* mmap(2) flags the importers read (Linux's values). */
#define SWS__MAP_TYPE 0x0fu
#define SWS__MAP_PRIVATE 0x02u
#define SWS__MAP_FIXED 0x10u
#define SWS__MAP_ANONYMOUS 0x20u
#define SWS__MAP_HUGETLB 0x40000u
/* The record a madvise(2) @advice makes (SWS_TRACE_MADV_*), or 0 for advice
 * the model does not act on. */
static inline uint32_t sws__madvise_op(uint64_t advice)
{
	return advice == 4 || advice == 24 ? SWS_TRACE_MADV_DONTNEED /* MADV_DONTNEED(_LOCKED) */
	       : advice == 8		   ? SWS_TRACE_MADV_FREE
	       : advice == 21		   ? SWS_TRACE_MADV_PAGEOUT
	       : advice == 14		   ? SWS_TRACE_MADV_HUGEPAGE
	       : advice == 15		   ? SWS_TRACE_MADV_NOHUGEPAGE
						   : 0;
}

/* ---- parse.c ----------------------------------------------------------------- */
static inline int sws__is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
static inline char *sws__skip_space(char *p)
{
	while (sws__is_space(*p))
		p++;
	return p;
}
/* Next whitespace-separated token: *p advanced past it; NULL at the end. NUL-terminates. */
char *sws__token(char **p);
/* Parse all of @s as a number. hex: base 16 (an optional 0x prefix);
 * else base 10. @return 0 or -1 (empty, bad digit, overflow). */
int sws__parse_u64(const char *s, size_t n, int hex, uint64_t *out);
int sws__parse_u32(const char *s, size_t n, int hex, uint32_t *out);
/* "secs.frac" (up to 9 fractional digits) to ns. @return 0 or -1. */
int sws__parse_time(const char *s, size_t n, uint64_t *ns);

/* perf-script line header, shared by perf and damon. */
struct sws_perf_line {
	uint32_t pid, tid, cpu;
	int has_tid;
	int has_pid;         /* the line printed PID/TID (perf script -F pid,tid) */
	int has_period;
	uint64_t time_ns;
	char *comm;          /* first token (may be the tid when comm is absent) */
	char *event;         /* without the trailing ':' */
	char *rest;          /* after the event token */
};
/* @return 0, or -1 when the line is not a perf-script sample line (message in @why). */
int sws__perf_split(char *line, struct sws_perf_line *pl, const char **why);
#define SWS__DAMON_EVENT "damon:damon_aggregated"
/* Format detection: is @line a perf-script sample line of DAMON's event
 * (@damon) or of another? */
int sws__perf_line_is(const char *line, int damon);

/* Text encoding of flags ("-", letters "wxh", or 0xHEX). */
int sws__flags_parse(const char *s, uint32_t *out);
/* "key=value" in @rest: the value as a string (NUL-terminated in place), or NULL. */
char *sws__kv_find(char *rest, const char *key);
/* @rec: an access of @len bytes at @addr (an importer's record). */
static inline void sws__rec_access(struct sws_trace_record *rec, uint64_t addr, uint64_t len,
				   uint32_t flags, uint32_t pid, uint32_t tid, uint32_t cpu,
				   uint64_t time_ns)
{
	rec->time_ns = time_ns;
	rec->addr = addr;
	rec->len = len;
	rec->op = SWS_TRACE_ACCESS;
	rec->flags = flags;
	rec->pid = pid;
	rec->tid = tid;
	rec->cpu = cpu;
	rec->arg = 0;
}

/* ---- formats.c --------------------------------------------------------------- */
/* The format of @id whose magic is @binary's (a binary format for 1, a text
 * one for 0): NULL when there is none. */
const struct sws__trace_format *sws__trace_format_find(enum sws_trace_format id, int binary);
/* The binary format whose magic starts @p (@n bytes): *prefix set when @n is
 * shorter than the magic and the bytes match its start. NULL when none. */
const struct sws__trace_format *sws__trace_format_magic(const uint8_t *p, size_t n, int *prefix);
/* The text format the first lines of the buffer say (they are copied, the
 * stream is not consumed), or NULL with *bad_line set to the first line
 * nothing recognises (0: no data line among them). */
const struct sws__trace_format *sws__trace_format_detect(struct sws_trace_reader *r, uint64_t *bad_line);

/* ---- format/native.c: the native format's shared pieces ------------------------ */
/* The state both native readers keep: the file's version, the records and
 * their CRC-32C so far (checked against the end record / marker), and for
 * binary the previous record. */
struct sws__native_state {
	uint32_t version;
	uint32_t crc;
	uint64_t nrec;
	int end_seen;       /* text v2: the end record was read */
	struct sws_trace_record prev;
};
/* CRC-32C (Castagnoli, reflected 0x82f63b78, as in iSCSI and ext4) of @n bytes,
 * continuing @crc (0 to start): crc(crc(0, a), b) == crc(0, a b). sws__crc32c
 * uses the SSE4.2 instruction where the CPU has it, sws__crc32c_sw a table. */
uint32_t sws__crc32c(uint32_t crc, const void *buf, size_t n);
uint32_t sws__crc32c_sw(uint32_t crc, const void *buf, size_t n);
/* The trace checksum: @crc continued over the record's 48 canonical bytes
 * (time_ns, addr, len as u64, then op, flags, pid, tid, cpu, arg as u32, all
 * little endian). */
uint32_t sws__trace_record_crc(uint32_t crc, const struct sws_trace_record *x);
/* The same over @n records in a row: the checksum of a batch (format/native_bin.c). */
uint32_t sws__trace_records_crc(uint32_t crc, const struct sws_trace_record *x, size_t n);
/* Count and checksum one more record read from a native trace. */
static inline void sws__native_account(struct sws__native_state *ns, const struct sws_trace_record *x)
{
	ns->nrec++;
	ns->crc = sws__trace_record_crc(ns->crc, x);
}
/* @bytes little-endian bytes of @v at @p: @return the byte after them. */
static inline uint8_t *sws__put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}
static inline uint64_t sws__unzigzag(uint64_t v) { return (v >> 1) ^ (0 - (v & 1)); }
static inline uint64_t sws__zigzag(uint64_t d) { return (d << 1) ^ (0 - (d >> 63)); }

/* ---- format/: the formats formats.c lists, one file each ---------------------- */
extern const struct sws__trace_format sws__trace_native_text;
extern const struct sws__trace_format sws__trace_native_bin;
extern const struct sws__trace_format sws__trace_perf;
extern const struct sws__trace_format sws__trace_lackey;
extern const struct sws__trace_format sws__trace_damon;
extern const struct sws__trace_format sws__trace_addr;

#endif
