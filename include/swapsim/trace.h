/*
 * swapsim/trace.h - trace records, the native trace format and importers.
 *
 * A trace is a sequence of struct sws_trace_record: page accesses, fork, exit,
 * exec, mmap/munmap, MADV_PAGEOUT/MADV_DONTNEED/MADV_FREE and explicit reclaim
 * events, each tagged with the task that did it, the CPU and a time. The replay driver
 * (swapsim/replay.h) consumes records; this header only produces and stores
 * them.
 *
 * Readers turn a file into records, one at a time, in bounded memory:
 *
 *   native   libswapsim's own format, text ("# swapsim-trace v2" header) or
 *            binary ("SWSTRACE" magic), either one optionally zstd-compressed
 *            (the whole file is then a zstd stream); told apart by header.
 *            Both end with the record count and a CRC-32C of the records, so
 *            a file cut short or changed in the middle is an error; files of
 *            version 1 (text without that end, binary without the checksum)
 *            still read, with a warning (sws_trace_reader_warning())
 *   perf     `perf script` text: the page-faults software event with -d
 *            addresses, the exceptions:page_fault_user tracepoint, the
 *            vmscan:* reclaim events, and the life of processes: the
 *            sched:sched_process_{fork,exit,exec} tracepoints, the
 *            syscalls:sys_{enter,exit}_{mmap,munmap,madvise} tracepoints
 *            paired per thread, and perf's own PERF_RECORD_FORK, _EXIT,
 *            _COMM exec and _MMAP2 lines (perf script --show-task-events,
 *            --show-mmap-events)
 *   lackey   valgrind --tool=lackey --trace-mem=yes output
 *   damon    damon:damon_aggregated perf-script lines, expanded to page reads
 *            as `damo replay` does
 *   addr     a plain address list, one access per line
 *
 * Any of the text formats may also be zstd-compressed as a whole. The layout of
 * each format and the exact import rules are in docs/trace-format.md.
 *
 * Safety on malicious input: every reader rejects malformed input with
 * SWS_EFORMAT (or SWS_EVERSION for a native trace of another version) and a
 * message naming the file and the line ("FILE:LINE: what is wrong") or, for
 * binary input, the byte offset ("FILE: byte OFFSET: what is wrong"). Memory
 * is bounded: lines longer than max_line are an error, a zstd window larger
 * than 2^27 bytes is an error, and a DAMON snapshot holds at most
 * SWS_TRACE_DAMON_MAX_REGIONS regions. Every call returns in time bounded by
 * the input it reads (no call loops without consuming input or producing a
 * record), and the whole output is bounded by the input too: DAMON, the one
 * format that expands lines into many records, refuses a region touched at
 * all that holds more than SWS_TRACE_DAMON_MAX_REGION_PAGES pages, and a
 * trace that would expand to more than damon_max_expansion records per byte
 * of the file (struct sws_trace_reader_config). A zstd-compressed file is
 * read at the cost of its decompressed size, which the format bounds at
 * about 2^15 times its own.
 *
 * Threading: a reader or a writer is used by one thread at a time; different
 * readers and writers are independent.
 */
#ifndef SWAPSIM_TRACE_H
#define SWAPSIM_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <swapsim/env.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 *  Records
 * ====================================================================== */

/* What a record does. Values are stable: they are stored in binary traces
 * (new ops are only ever added at the end). */
enum sws_trace_op {
	SWS_TRACE_ACCESS = 1,     /* touch [addr, addr+len) (len 0: one byte/page) */
	SWS_TRACE_FORK,           /* task forks: arg = child pid (child gets a copy of pid's address space) */
	SWS_TRACE_EXIT,           /* pid exits: its address space goes */
	SWS_TRACE_MMAP,           /* map [addr, addr+len) anonymous; flags may carry SWS_TRACE_F_THP */
	SWS_TRACE_MUNMAP,         /* unmap [addr, addr+len) */
	SWS_TRACE_MADV_PAGEOUT,   /* reclaim [addr, addr+len) now */
	SWS_TRACE_MADV_DONTNEED,  /* drop [addr, addr+len) (pages and swap entries freed) */
	SWS_TRACE_RECLAIM,        /* reclaim len pages of memcg arg (explicit reclaim event) */
	SWS_TRACE_EXEC,           /* pid execs: its address space goes (as at exit) and a
				     new, empty one takes its place under the same pid */
	SWS_TRACE_MADV_FREE,      /* lazily free [addr, addr+len): swap entries freed, pages
				     dropped by reclaim unless written again first */
	SWS_TRACE_FILE,           /* read(2), with SWS_TRACE_F_WRITE write(2), of bytes
				     [addr, addr+len) of file arg (len 0: one page) through
				     the page cache */
	SWS_TRACE_MADV_HUGEPAGE,  /* madvise(MADV_HUGEPAGE) of [addr, addr+len): VM_HUGEPAGE,
				     the mTHP sizes set "madvise" apply there */
	SWS_TRACE_MADV_NOHUGEPAGE, /* madvise(MADV_NOHUGEPAGE): VM_NOHUGEPAGE, no mTHP there */
};
#define SWS_TRACE_OP_MAX SWS_TRACE_MADV_NOHUGEPAGE /* the highest valid op */

#define SWS_TRACE_F_WRITE (1u << 0)   /* ACCESS or FILE is a write */
#define SWS_TRACE_F_IFETCH (1u << 1)  /* instruction fetch */
#define SWS_TRACE_F_THP (1u << 2)     /* MMAP: the region may use large folios */
#define SWS_TRACE_F_ZSWAP_WB (1u << 3) /* RECLAIM: memory.reclaim "SIZE zswap_writeback_only":
					* len pages of the memcg's zswap entries written back */
#define SWS_TRACE_F_ANON_LRU (1u << 4) /* RECLAIM: from the anon LRU lists only */
#define SWS_TRACE_F_FILE_LRU (1u << 5) /* RECLAIM: from the file (page cache) LRU lists only */
#define SWS_TRACE_F_VICTIM (1u << 6)   /* RECLAIM: the kernel wrote out the folio of len pages
					* mapped at addr of pid: that folio, not one the model picks */
#define SWS_TRACE_F_FOLIO_SHIFT 8     /* ACCESS: bits 8-12, the order + 1 of the folio the kernel
					* allocated for the fault (its mm_page_alloc lines); 0: not known */
#define SWS_TRACE_F_FOLIO_MASK (0x1fu << SWS_TRACE_F_FOLIO_SHIFT)
#define SWS_TRACE_F_FALLBACK (1u << 13) /* ACCESS: ... after a larger folio's (its charge failed) */
#define SWS_TRACE_F_CHARGE (1u << 7)   /* RECLAIM: the reclaim of the charge before it (a kernel
					* trace's memcg reclaim), not a memory.reclaim */

/* cpu: the source does not say which CPU ran the task. */
#define SWS_TRACE_CPU_ANY UINT32_MAX

/* RECLAIM arg values with a fixed meaning (other values are memcg ids). */
#define SWS_TRACE_MEMCG_ROOT 0u          /* global reclaim: the whole machine */
#define SWS_TRACE_MEMCG_TASK UINT32_MAX  /* the memcg task pid is charged to */

/*
 * One trace event. 48 bytes, no padding. Field units:
 *
 *   time_ns  event time in nanoseconds on a monotonic clock (perf's
 *            "secs.usecs:" converted), 0 when the source has no times
 *   addr     virtual address in bytes (ACCESS, MMAP, MUNMAP, MADV_*); 0 otherwise
 *   len      bytes for the ranges of ACCESS/MMAP/MUNMAP/MADV_*; an ACCESS
 *            with len 0 touches the one page holding addr; pages for RECLAIM
 *   op       enum sws_trace_op
 *   flags    SWS_TRACE_F_* bits; unknown bits are carried through unchanged
 *   pid      the address space (process); importers without one use the
 *            reader's default_pid
 *   tid      the task (thread) that ran it; equals pid for single-threaded
 *            sources and for perf's tid-only output
 *   cpu      the CPU that ran it, or SWS_TRACE_CPU_ANY
 *   arg      FORK: the child's pid; RECLAIM: the memcg id (SWS_TRACE_MEMCG_ROOT,
 *            SWS_TRACE_MEMCG_TASK or a memcg id); FILE: the file id; 0 otherwise
 */
struct sws_trace_record {
	uint64_t time_ns;  /* event time, ns (monotonic; 0 when the source has none) */
	uint64_t addr;     /* virtual address (bytes) */
	uint64_t len;      /* bytes for ranges; pages for RECLAIM */
	uint32_t op;       /* enum sws_trace_op */
	uint32_t flags;    /* SWS_TRACE_F_* */
	uint32_t pid;      /* address space (process) */
	uint32_t tid;      /* task (thread); equals pid for single-threaded sources */
	uint32_t cpu;      /* CPU that ran it, or SWS_TRACE_CPU_ANY */
	uint32_t arg;      /* FORK: child pid; RECLAIM: memcg id; FILE: file id */
};

/** @return the op's short name ("access", "fork", "exit", "mmap", "munmap",
 *  "pageout", "dontneed", "reclaim", "exec", "free", "file", "hugepage",
 *  "nohugepage"), or "?" for an unknown op. */
const char *sws_trace_op_name(uint32_t op);

/** Parse an op name as sws_trace_op_name() prints it. @return 0 or SWS_EINVAL. */
int sws_trace_op_parse(const char *name, uint32_t *op);

/* ======================================================================
 *  Formats
 * ====================================================================== */

enum sws_trace_format {
	SWS_TRACE_FORMAT_AUTO = 0,   /* detect from the first bytes and lines */
	SWS_TRACE_FORMAT_NATIVE = 1, /* text or binary, with or without zstd: by header */
	SWS_TRACE_FORMAT_PERF = 2,   /* perf script: page faults, vmscan reclaim, process life */
	SWS_TRACE_FORMAT_LACKEY = 3, /* valgrind lackey --trace-mem=yes */
	SWS_TRACE_FORMAT_DAMON = 4,  /* damon:damon_aggregated perf-script lines */
	SWS_TRACE_FORMAT_ADDR = 5,   /* plain address list */
};
#define SWS_TRACE_NR_FORMATS 6

/** @return "auto", "native", "perf", "lackey", "damon", "addr", or "unknown". */
const char *sws_trace_format_name(enum sws_trace_format fmt);

/** Parse a format name as sws_trace_format_name() prints it. @return 0 or SWS_EINVAL. */
int sws_trace_format_parse(const char *name, enum sws_trace_format *out);

/* ======================================================================
 *  Reading
 * ====================================================================== */

struct sws_trace_reader;

#define SWS_TRACE_READER_CONFIG_VERSION 2

#define SWS_TRACE_MAX_LINE_DEFAULT 65536u     /* bytes */
#define SWS_TRACE_MAX_LINE_LIMIT (16u << 20)  /* the largest max_line accepted */
#define SWS_TRACE_DAMON_MAX_REGIONS (1u << 20) /* regions in one DAMON snapshot */
/* Pages (4 KiB) in one DAMON region with nr_accesses > 0, at most (4 GiB):
 * a larger one is SWS_EFORMAT "FILE:LINE: damon_aggregated: region of N
 * pages exceeds the per-region limit of 1048576". Regions never accessed
 * expand to nothing and may be of any size. */
#define SWS_TRACE_DAMON_MAX_REGION_PAGES (1u << 20)
/* Default damon_max_expansion: records per byte of input. */
#define SWS_TRACE_DAMON_EXPANSION_DEFAULT 4096u

/* perf: tasks (threads) the importer tracks at once, at most: one with a
 * system call in progress, a thread whose process the lines do not name, a
 * child whose fork was seen, ... More is SWS_EFORMAT naming the line. */
#define SWS_TRACE_PERF_MAX_TASKS (1u << 18)
/* perf: records held back, at most, while a PID/TID trace has not yet shown
 * whether a clone made a process or a thread (the child's first line tells);
 * when full, the oldest such clone is taken for a process. */
#define SWS_TRACE_PERF_MAX_HELD (1u << 16)
/* The perf importer's open file descriptors held at once (all processes); one
 * opened beyond is counted (fds_untracked) and its I/O not imported. */
#define SWS_TRACE_PERF_MAX_FDS 1024u
/* The perf importer's folios (PFN -> the fault that allocated it) held at once
 * (two tables, by PFN and by address, of up to twice as many 24-byte slots
 * each: 384 MiB, about 480 MiB while one doubles); one allocated beyond
 * is counted (pfns_untracked) and not tied. */
#define SWS_TRACE_PERF_MAX_PFNS (1u << 22)

/* Reader flags (struct sws_trace_reader_config.flags). */
#define SWS_TRACE_READ_ADDR_HEX (1u << 0)   /* addr: bare digits are hex, not decimal */
#define SWS_TRACE_READ_NO_IFETCH (1u << 1)  /* drop ACCESS records flagged IFETCH */
#define SWS_TRACE_READ_DIRTY_EVENTS (1u << 2) /* perf: the trace has writeback:writeback_dirty_folio;
					      * a write that dirtied no page cache to a file
					      * none of whose writes has is no FILE record */

/*
 * Reader configuration; a zero-filled struct (or NULL) means all defaults.
 */
struct sws_trace_reader_config {
	uint32_t version;               /* SWS_TRACE_READER_CONFIG_VERSION or 0 */
	enum sws_trace_format format;   /* 0: SWS_TRACE_FORMAT_AUTO */
	uint32_t flags;                 /* SWS_TRACE_READ_* */
	uint32_t max_line;              /* longest accepted line, bytes; 0: 65536; 256..16 MiB */
	uint32_t default_pid;           /* pid and tid for records whose source names no
	                                   task (lackey, addr lines without a task id); 0: 1 */
	uint32_t damon_sample_us;       /* DAMON sampling interval, us; 0: 5000 (damo's default) */
	uint32_t damon_aggr_us;         /* DAMON aggregation interval, us; 0: 100000 (damo's
	                                   default); at least damon_sample_us */
	uint32_t damon_max_expansion;   /* DAMON: records per byte of the file (compressed
	                                   bytes for a zstd file), at most, counted from the
	                                   start of the trace up to each snapshot; more is
	                                   SWS_EFORMAT naming the snapshot's first line.
	                                   0: 4096 (SWS_TRACE_DAMON_EXPANSION_DEFAULT) */
	const struct sws_env *env;      /* allocator; NULL: defaults */
};

/* What a reader has consumed so far. */
struct sws_trace_reader_stats {
	uint64_t lines;          /* text lines read (0 for binary input) */
	uint64_t skipped_lines;  /* lines that carried no record: comments, blank lines,
	                            `==` lines, events without a data address, unused events */
	uint64_t records;        /* records returned by sws_trace_reader_next() */
	uint64_t bytes;          /* bytes of (decompressed) input consumed */
};

/**
 * Open a trace file for reading. With format AUTO the format is chosen from
 * the first bytes: zstd magic (decompressed, then detected again inside),
 * the native binary magic, "# swapsim-trace" (native text), then the first
 * lines that carry data: lackey instruction/data lines or `==` banners, perf
 * script lines (damon:damon_aggregated ones select damon), else an address.
 * A native file of another version gives SWS_EVERSION.
 *
 * @param errbuf  optional: on failure a message ("FILE: ...") is written here
 * @return 0, SWS_EINVAL (bad argument or config), SWS_EVERSION (config
 *         version, or native trace version), SWS_EIO (cannot open or read),
 *         SWS_EFORMAT (empty file, format not recognised, bad header) or SWS_ENOMEM.
 *         On failure *out is NULL.
 */
int sws_trace_reader_open(const char *path, const struct sws_trace_reader_config *cfg,
			  struct sws_trace_reader **out, char *errbuf, size_t errlen);

/**
 * Read the next record into @rec. A native trace is checked at its end: a
 * missing end record or marker, a count or a checksum that does not match the
 * records read, or data after the end, is SWS_EFORMAT (so a caller sees the
 * error only after the records before it).
 * @return 1 with a record, 0 at the end of the trace, or a negative error:
 *         SWS_EFORMAT (malformed input), SWS_EIO (read error) or SWS_ENOMEM.
 *         After an error every later call returns the same error;
 *         sws_trace_reader_error() says what and where.
 */
int sws_trace_reader_next(struct sws_trace_reader *r, struct sws_trace_record *rec);

/** @return the last error's message, "FILE:LINE: what" or "FILE: byte N: what";
 *  "" when there was none. Valid until the reader is closed. */
const char *sws_trace_reader_error(const struct sws_trace_reader *r);

/** @return a warning about the file, "" when there is none: a native trace of
 *  version 1, whose end the reader cannot check ("FILE:1: swapsim-trace v1
 *  text has no end record: ..." or "FILE: byte 8: swapsim binary trace v1 has
 *  no checksum: ...", set by sws_trace_reader_open()), or a lackey stream of
 *  several processes ("FILE:LINE: a line of pid P in the lackey stream of pid
 *  Q: ...", set by the sws_trace_reader_next() that read that line). One
 *  warning per reader, the first; reading goes on as usual. Valid until the
 *  reader is closed. */
const char *sws_trace_reader_warning(const struct sws_trace_reader *r);

/** @return where the record the last sws_trace_reader_next() returned is in
 *  the input: its line in a text format (a perf script event's line, the
 *  first line of a DAMON snapshot), its number (1-based, counting every
 *  record of the file) in a binary one; 0 before the first record. */
uint64_t sws_trace_reader_position(const struct sws_trace_reader *r);

/** @return the format being read (never AUTO once open). */
enum sws_trace_format sws_trace_reader_format(const struct sws_trace_reader *r);

/** @return 1 when the input was native binary, 0 otherwise; *zstd (optional)
 *  receives 1 when the file was zstd-compressed. */
int sws_trace_reader_is_binary(const struct sws_trace_reader *r, int *zstd);

/** Copy the reader's counters into @out. */
void sws_trace_reader_stats_get(const struct sws_trace_reader *r, struct sws_trace_reader_stats *out);
/* Obsolete: the old name of sws_trace_reader_stats_get(), in C only (in C++ a function of a
 * struct's name hides the struct: "struct" would be needed before every use). */
#ifndef __cplusplus
SWS_DEPRECATED("use sws_trace_reader_stats_get()") void sws_trace_reader_stats(const struct sws_trace_reader *r, struct sws_trace_reader_stats *out);
#endif


/*
 * What the perf importer made of the life of processes (all zero for the
 * other formats). The rules are in docs/trace-format.md ("perf: processes,
 * threads and memory maps"); each counter names events that made no record,
 * and why, so that a trace's gaps are visible rather than silent.
 */
struct sws_trace_perf_stats {
	uint64_t forks;            /* FORK records made (one per new process) */
	uint64_t forks_assumed;    /* ... of which the trace did not say process or thread:
				      taken for a process (tid-only lines, no PERF_RECORD_FORK) */
	uint64_t forks_undecided;  /* ... of which a PID/TID trace never showed the child
				      before SWS_TRACE_PERF_MAX_HELD records or its end */
	uint64_t threads;          /* clones that made a thread: no record */
	uint64_t thread_exits;     /* exits of one thread of several (group_dead=false, or
				      PERF_RECORD_EXIT of a non-leader): no record */
	uint64_t duplicates;       /* fork, exit or exec reported both by a tracepoint and by
				      perf's own record: the second report dropped */
	uint64_t mmap_file;        /* mmap() of a file: not modelled, no record */
	uint64_t mmap_shared;      /* MAP_SHARED anonymous (shmem) or MAP_HUGETLB: no record */
	uint64_t mmap2_skipped;    /* PERF_RECORD_MMAP2 lines that made no record (not
				      anonymous private, or the trace has sys_enter_mmap) */
	uint64_t calls_failed;     /* mmap/munmap/madvise that returned an error: no record */
	uint64_t madvise_other;    /* madvise() advice other than DONTNEED(_LOCKED), FREE,
				      PAGEOUT: not modelled, no record */
	uint64_t unpaired_exits;   /* sys_exit_* with no sys_enter_* pending on its thread
				      (the trace began inside the call, or perf lost the
				      enter): no record */
	uint64_t unfinished_calls; /* sys_enter_* whose exit never came (the trace ended,
				      or the thread exited): no record */
	uint64_t files_opened;     /* openat() that returned a descriptor: a new file id */
	uint64_t file_io;          /* read/write/pread64/pwrite64/readv/writev of an opened
				      file that moved bytes: one FILE record each */
	uint64_t file_io_other_fd; /* ... of a descriptor no traced openat() returned (a
				      pipe, a terminal, stdin, a dup()): no record */
	uint64_t fds_untracked;    /* openat() results past SWS_TRACE_PERF_MAX_FDS open at
				      once: their I/O is not imported */
	uint64_t kernel_faults;    /* exceptions:page_fault_kernel on a user address: ACCESS */
	uint64_t writes_no_pagecache; /* with SWS_TRACE_READ_DIRTY_EVENTS: writes left out, of
				      files no write of which dirtied page cache (a device
				      such as /dev/null, O_DIRECT) */
	uint64_t reclaim_split;    /* reclaim ends replaced by their shrink_inactive lines'
				      anon and file counts (SWS_TRACE_F_ANON_LRU/_FILE_LRU) */
	uint64_t victims;          /* mm_vmscan_write_folio of an anon folio whose
				      kmem:mm_page_alloc followed a traced fault: RECLAIM
				      of that folio (SWS_TRACE_F_VICTIM) */
	uint64_t victims_untied;   /* ... of a folio no traced fault allocated (or perf lost
				      the lines): left to the reclaim end's count */
	uint64_t pfns_untracked;   /* fault folio allocations past SWS_TRACE_PERF_MAX_PFNS held,
				      or of an order above the model's (SWS_NR_ORDERS) */
	uint64_t file_io_pieces;   /* FILE records of a read's page cache made when a reclaim
				      began inside it (the rest at its exit) */
	uint64_t reclaim_lines;    /* shrink_inactive lines inside a task's reclaim (after
				      its begin): RECLAIM of the pages each freed, at once */
};

/** Copy the perf importer's counters into @out (zero for other formats). */
void sws_trace_reader_perf_stats(const struct sws_trace_reader *r, struct sws_trace_perf_stats *out);

/** @return the bytes this reader holds (buffers, decompression state, DAMON
 *  regions, the perf importer's task table and held records). */
size_t sws_trace_reader_memory_usage(const struct sws_trace_reader *r);

/** Close a reader and free everything it holds. NULL is a no-op. */
void sws_trace_reader_close(struct sws_trace_reader *r);

/* ======================================================================
 *  Writing the native format
 * ====================================================================== */

struct sws_trace_writer;

#define SWS_TRACE_WRITER_CONFIG_VERSION 1

enum sws_trace_encoding {
	SWS_TRACE_TEXT = 0,   /* "# swapsim-trace v2", one record per line, end record */
	SWS_TRACE_BINARY = 1, /* "SWSTRACE" header, varint-delta records, end marker */
};

/* Writer flags (struct sws_trace_writer_config.flags). */
#define SWS_TRACE_WRITE_ZSTD (1u << 0) /* compress the whole file as one zstd stream */

/* Writer configuration; zero-filled (or NULL) means uncompressed text. */
struct sws_trace_writer_config {
	uint32_t version;                 /* SWS_TRACE_WRITER_CONFIG_VERSION or 0 */
	enum sws_trace_encoding encoding; /* 0: text */
	uint32_t flags;                   /* SWS_TRACE_WRITE_* */
	int32_t zstd_level;               /* 0: 3; 1..19 */
	const struct sws_env *env;        /* allocator; NULL: defaults */
};

/*
 * Atomic output. A writer never writes a regular file in place: open()
 * creates a temporary file beside @path (".NAME.XXXXXX" in the same
 * directory) and close() writes the end of the trace, fsync()s the temporary
 * and renames it over @path. So @path holds either what it held before (an
 * earlier file, or nothing) or the complete new trace, never a part:
 *
 *   - after an error (any call), sws_trace_writer_close() and
 *     sws_trace_writer_abort() remove the temporary and leave @path as it was;
 *   - a process killed while it writes leaves @path as it was (and its
 *     temporary behind, to be deleted by hand).
 *
 * A symbolic link at @path is followed: its target is replaced (the
 * temporary goes beside the target), the link stays. An existing file keeps its permission bits, a new one gets 0666 less
 * the umask; other hard links to an existing file keep the old content (the
 * new file is a new inode). A file this process may not write is refused. An
 * output that exists and is not a regular file (a character device such as
 * /dev/null, a FIFO or a pipe, /dev/stdout on a pipe among them) cannot be
 * replaced and is written in place.
 */

/**
 * Start writing a native trace to @path (atomically: see above; nothing
 * appears at @path before sws_trace_writer_close() succeeds).
 * @param errbuf  optional: on failure a message ("FILE: ...") is written here
 * @return 0, SWS_EINVAL, SWS_EVERSION, SWS_EIO (the temporary cannot be
 *         created, @path is a directory, a dangling symbolic link or a file
 *         this process may not write) or SWS_ENOMEM; on failure *out is NULL.
 */
int sws_trace_writer_open(const char *path, const struct sws_trace_writer_config *cfg,
			  struct sws_trace_writer **out, char *errbuf, size_t errlen);

/**
 * Append one record. op must be 1..SWS_TRACE_OP_MAX; every other field may
 * hold any value and is stored exactly.
 * @return 0, SWS_EINVAL (bad op), SWS_EIO or SWS_ENOMEM (compression state).
 */
int sws_trace_writer_write(struct sws_trace_writer *w, const struct sws_trace_record *rec);

/** @return the last error's message ("FILE: ..."), "" when none. */
const char *sws_trace_writer_error(const struct sws_trace_writer *w);

/**
 * Finish the file (text: end record; binary: end marker; both with the record
 * count and checksum; zstd: end of frame), fsync it and
 * rename it over the path given to sws_trace_writer_open(), then free the
 * writer. After an earlier error, or when one of these steps fails, the
 * temporary is removed instead and the path is left as it was. NULL is a
 * no-op returning 0.
 * @param errbuf  optional: on failure the message is copied here
 * @return 0, the writer's earlier error, or SWS_EIO if the final writes, the
 *         fsync or the rename fail.
 */
int sws_trace_writer_close(struct sws_trace_writer *w, char *errbuf, size_t errlen);

/**
 * Give up: close and remove the temporary, leave the path as it was, free the
 * writer (an output written in place keeps what was written). For a caller
 * that stops early, on an error of its own or a signal; not async-signal-safe
 * (a signal handler sets a flag, the normal flow calls this). NULL is a no-op.
 */
void sws_trace_writer_abort(struct sws_trace_writer *w);

#ifdef __cplusplus
}
#endif
#endif
