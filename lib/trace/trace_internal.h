/*
 * trace_internal.h - the pieces behind swapsim/trace.h: the byte stream every
 * reader sits on (a file, decompressed on the fly when it is a zstd stream),
 * the line splitter with its length cap, error formatting, and the per-format
 * parsers.
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

/* DAMON snapshot region. */
struct sws_damon_region {
	uint64_t start, end;
	uint32_t nr_accesses;
};

/*
 * The perf importer's state for the life of processes (import.c, "perf:
 * processes"). Tasks are kept in an open-addressing table keyed by tid
 * (linear probing, deletion by backward shift; tid 0 marks an empty slot),
 * only while there is something to remember about them:
 *
 *   tasks[]  ──▶ { tid, pid, flags, dup_fork/exit/exec, call in progress }
 *   q[]      ──▶ records made, handed out in order; a FORK whose child is not
 *                yet known for a process or a thread (PID/TID lines) holds
 *                back everything behind it
 */
struct sws__perf_task {    /* 56 bytes */
	uint32_t tid;           /* key; 0: empty slot */
	uint32_t pid;           /* its process (address space) */
	uint32_t call_arg;      /* mmap flags, madvise advice */
	uint8_t flags;          /* SWS__PT_* (from here to the end: cleared at exit) */
	uint8_t dup_fork;       /* SWS__SRC_* still to report the clone that made it */
	uint8_t dup_exit;       /* SWS__SRC_* still to report its exit */
	uint8_t dup_exec;       /* SWS__SRC_* still to report its last exec */
	uint8_t call;           /* system call in progress: SWS__CALL_* (0: none) */
	uint8_t pad[3];
	uint64_t call_addr, call_len;
	uint64_t call_line;     /* the line of its sys_enter_* */
	uint64_t fork_line;     /* the line of the clone that made it */
	uint64_t fork_seq;      /* SWS__PT_PENDING: sequence number of its held FORK */
};
#define SWS__PT_THREAD 0x01u   /* a thread of pid (pid != tid) */
#define SWS__PT_ASSUMED 0x02u  /* a clone the trace did not describe, taken for a process */
#define SWS__PT_PENDING 0x04u  /* its FORK is held until its first PID/TID line */
#define SWS__SRC_TP 0x01u      /* sched:sched_process_* tracepoints */
#define SWS__SRC_PR 0x02u      /* perf's own PERF_RECORD_* lines */
enum { SWS__CALL_MMAP = 1, SWS__CALL_MUNMAP, SWS__CALL_MADVISE };

struct sws__perf_out {
	struct sws_trace_record rec;
	uint32_t state;         /* SWS__OUT_* */
	uint32_t pad;
};
enum { SWS__OUT_READY = 0, SWS__OUT_PENDING, SWS__OUT_DROPPED };

struct sws__perf {
	struct sws__perf_task *tasks;
	uint32_t tcap, tn;      /* slots (0 or a power of two), tasks held */
	struct sws__perf_out *q;
	uint32_t qcap, qhead, qn;
	uint64_t qseq;          /* sequence number of q[qhead] */
	uint32_t npending;      /* FORKs held (SWS__OUT_PENDING) */
	uint8_t seen;           /* SWS__SRC_* of lifecycle lines read so far */
	uint8_t sys_mmap_seen;  /* a syscalls:sys_enter_mmap line was read */
	uint8_t eof;
	struct sws_trace_perf_stats st;
};

struct sws_trace_reader {
	struct sws_mem mem;
	struct sws_trace_reader_config cfg;
	enum sws_trace_format format;
	int binary;
	struct sws_trace_stream s;
	char path[256];
	uint64_t line;      /* number of the current line (1-based) */
	int err;            /* sticky error */
	char msg[512];
	char warning[512];  /* sws_trace_reader_warning(): "" or a message */
	struct sws_trace_reader_stats st;
	int done;
	/* native: the file's version, the records and their CRC-32C so far
	 * (checked against the end record / marker), binary: the previous record */
	uint32_t version;
	uint64_t nrec;
	uint32_t crc;
	int end_seen;       /* text v2: the end record was read */
	struct sws_trace_record prev;
	/* perf */
	struct sws__perf perf;
	/* damon */
	struct {
		struct sws_damon_region *regions;
		uint32_t nr, cap;      /* regions held, array size */
		uint32_t expect;       /* nr_regions the lines announce */
		uint32_t target;
		uint64_t time_ns;      /* time of the snapshot's first line */
		uint64_t line;         /* number of the snapshot's first line */
		int ready;             /* snapshot complete: expanding */
		uint32_t slice, idx;
		uint32_t nslices;      /* slices this snapshot touches: its largest
		                          nr_accesses (clamped to aggr / sample) */
		uint64_t addr;         /* next page in regions[idx] */
		uint64_t expanded;     /* records of the snapshots so far, this one included */
		int have_pending;      /* a parsed line that starts the next snapshot */
		struct sws_damon_region pending;
		uint32_t pending_target, pending_expect;
		uint64_t pending_time, pending_line;
	} damon;
};

/* Reader memory class: a reader's own struct sws_mem charges everything here. */
#define SWS__TRACE_MEM SWS_MEM_sim

/* ---- stream.c ---------------------------------------------------------------- */
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

/* Text encoding of flags ("-", letters "wxh", or 0xHEX). */
int sws__flags_parse(const char *s, uint32_t *out);

/* ---- native.c ---------------------------------------------------------------- */
/* The native formats' record producers: 1 record, 0 end, negative error. */
int sws__native_text_next(struct sws_trace_reader *r, struct sws_trace_record *rec);
int sws__native_bin_open(struct sws_trace_reader *r);
int sws__native_bin_next(struct sws_trace_reader *r, struct sws_trace_record *rec);
int sws__native_text_open(struct sws_trace_reader *r);
/* CRC-32C (Castagnoli, reflected 0x82f63b78, as in iSCSI and ext4) of @n bytes,
 * continuing @crc (0 to start): crc(crc(0, a), b) == crc(0, a b). sws__crc32c
 * uses the SSE4.2 instruction where the CPU has it, sws__crc32c_sw a table. */
uint32_t sws__crc32c(uint32_t crc, const void *buf, size_t n);
uint32_t sws__crc32c_sw(uint32_t crc, const void *buf, size_t n);
/* The trace checksum: @crc continued over the record's 48 canonical bytes
 * (time_ns, addr, len as u64, then op, flags, pid, tid, cpu, arg as u32, all
 * little endian). */
uint32_t sws__trace_record_crc(uint32_t crc, const struct sws_trace_record *x);

/* ---- import.c ---------------------------------------------------------------- */
/* The importers' record producers: 1 record, 0 end, negative error. */
int sws__perf_next(struct sws_trace_reader *r, struct sws_trace_record *rec);
int sws__lackey_next(struct sws_trace_reader *r, struct sws_trace_record *rec);
int sws__addr_next(struct sws_trace_reader *r, struct sws_trace_record *rec);
int sws__damon_next(struct sws_trace_reader *r, struct sws_trace_record *rec);
void sws__damon_free(struct sws_trace_reader *r);
void sws__perf_free(struct sws_trace_reader *r);
/* Format detection: could @line be one of the format's? */
int sws__lackey_line_ok(const char *line);
int sws__addr_line_ok(const char *line, int hex);

#endif
