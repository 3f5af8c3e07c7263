/*
 * perf.c - the perf script importer: page faults (the user's and the kernel's
 * on user memory), vmscan reclaim split by LRU type, the life of processes
 * (fork, exit, exec, mmap, munmap, madvise) and file I/O through the page
 * cache (openat, close, lseek, dup, read, write and their variants). The rules are
 * written down in docs/trace-format.md; the parser is strict about the lines
 * it uses and says which line is wrong otherwise.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../trace_internal.h"

/*
 * The importer's state for the life of processes (HOW IT WORKS, below).
 * Tasks are kept in an open-addressing table keyed by tid
 * (linear probing, deletion by backward shift; tid 0 marks an empty slot),
 * only while there is something to remember about them:
 *
 *   tasks[]  ──▶ { tid, pid, flags, dup_fork/exit/exec, call in progress }
 *   q[]      ──▶ records made, handed out in order; a FORK whose child is not
 *                yet known for a process or a thread (PID/TID lines) holds
 *                back everything behind it
 */
struct sws__perf_task {    /* 144 bytes */
	uint32_t tid;           /* key; 0: empty slot */
	uint32_t pid;           /* its process (address space) */
	uint32_t call_arg;      /* mmap flags, madvise advice */
	uint8_t flags;          /* SWS__PT_* (from here to the end: cleared at exit) */
	uint8_t dup_fork;       /* SWS__SRC_* still to report the clone that made it */
	uint8_t dup_exit;       /* SWS__SRC_* still to report its exit */
	uint8_t dup_exec;       /* SWS__SRC_* still to report its last exec */
	uint8_t call;           /* system call in progress: SWS__CALL_* (0: none) */
	uint8_t call_dirtied;   /* ... a write that dirtied page cache (writeback_dirty_folio) */
	uint8_t fault_fallback;  /* SWS__PT_FAULT: its folio replaced a larger one (a fallback) */
	uint8_t fault_cow;       /* ... a write to a present page: a copy (copy-on-write) */
	uint64_t call_addr, call_len;
	uint64_t call_line;     /* the line of its sys_enter_* */
	uint64_t fork_line;     /* the line of the clone that made it */
	uint64_t fork_seq;      /* SWS__PT_PENDING: sequence number of its held FORK */
	uint64_t shrunk[2];     /* SWS__PT_SHRINK: anon, file pages its shrink_inactive
				   lines reclaimed since its last reclaim end */
	uint64_t fault_addr;    /* SWS__PT_FAULT: its last fault's address */
	uint64_t fault_pfn;     /* ... the folio tied to it (PFN + 1; 0: none yet), its order: */
	uint32_t fault_order;
	uint64_t named;         /* SWS__PT_NAMED: anon pages of its reclaim made RECLAIM v */
	uint64_t call_alloc;    /* a read in progress: page cache pages it allocated, no record yet */
	uint64_t call_done;     /* ... bytes its FILE records cover already (read_piece()) */
	uint64_t shrunk_done;   /* SWS__PT_RECLAIM: pages its shrink_inactive lines made RECLAIM of */
	uint64_t fault_seq;     /* SWS__PT_FAULT: its ACCESS, held (SWS__OUT_FAULT) until its
				   folio is known: queue sequence + 1; 0: none */
};
#define SWS__PT_THREAD 0x01u   /* a thread of pid (pid != tid) */
#define SWS__PT_ASSUMED 0x02u  /* a clone the trace did not describe, taken for a process */
#define SWS__PT_PENDING 0x04u  /* its FORK is held until its first PID/TID line */
#define SWS__PT_SHRINK 0x08u   /* shrink_inactive lines seen in its reclaim (shrunk[]) */
#define SWS__PT_FAULT 0x10u    /* a fault whose allocations tie a folio (perf_page_alloc()) */
#define SWS__PT_NAMED 0x20u    /* write_folio lines of its reclaim made RECLAIM v (named) */
#define SWS__PT_RECLAIM 0x40u  /* inside a reclaim (from its begin to its end) */
#define SWS__PT_MEMCG 0x80u    /* ... a memcg's (memcg_reclaim_begin), not the machine's */
#define SWS__SRC_TP 0x01u      /* sched:sched_process_* tracepoints */
#define SWS__SRC_PR 0x02u      /* perf's own PERF_RECORD_* lines */
enum {
	SWS__CALL_MMAP = 1,
	SWS__CALL_MUNMAP,
	SWS__CALL_MADVISE,
	SWS__CALL_OPENAT,
	SWS__CALL_CLOSE,
	SWS__CALL_LSEEK,
	SWS__CALL_DUP, /* dup, dup2, dup3, fcntl: a descriptor made from another (fd_dup()) */
	SWS__CALL_DUP2,
	SWS__CALL_DUP3,
	SWS__CALL_FCNTL,
	SWS__CALL_READ, /* from here on: calls that move bytes (file_call()) */
	SWS__CALL_READV,
	SWS__CALL_PREAD64,
	SWS__CALL_WRITE, /* from here on: writes */
	SWS__CALL_WRITEV,
	SWS__CALL_PWRITE64,
};

/* An open file descriptor of a process: the file id its openat() made and
 * the offset read(2) and write(2) use next. The file id names the open file
 * description: descriptors made from one by dup() or copied by fork() share
 * it, and its offset (fd_seek()). */
struct sws__perf_fd {
	uint32_t pid, fd;
	uint32_t file;          /* the FILE records' arg */
	uint8_t cloexec;        /* opened with O_CLOEXEC: closed by exec */
	uint8_t pagecache;      /* a write of its open file dirtied page cache (writeback_dirty_folio) */
	uint8_t pad[2];
	uint64_t pos;
};

/* A folio a traced fault allocated: its first PFN (key, + 1; 0: empty slot),
 * the address space and the address the folio maps first, its order. */
/* A folio's tie: by PFN (key PFN + 1) the address and process of the fault
 * that allocated it; by address (key vpn_key()) the PFN, in addr. */
struct sws__perf_tie {
	uint64_t key; /* 0: empty */
	uint64_t addr;
	uint32_t pid, order;
};

struct sws__perf_map { /* map_*(): cap slots (0 or a power of two), n used */
	struct sws__perf_tie *slot;
	uint32_t cap, n;
};

#define PERF_FORKS 64 /* the last process forks remembered: parent -> its last child */

struct sws__perf_out {
	struct sws_trace_record rec;
	uint64_t line;          /* the line that made it */
	uint32_t state;         /* SWS__OUT_* */
	uint32_t pad;
};
enum { SWS__OUT_READY = 0, SWS__OUT_PENDING, SWS__OUT_DROPPED, SWS__OUT_FAULT };

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
	struct sws__perf_fd *fds; /* SWS_TRACE_PERF_MAX_FDS slots once a file is opened */
	uint32_t nfds;
	uint32_t last_file;     /* the last file id given out */
	uint8_t alloc_seen;     /* a kmem:mm_page_alloc line was read: faults await theirs */
	struct sws__perf_map pfns; /* folio ties by PFN (pfn_*()) */
	struct sws__perf_map vpns; /* ... by address: the PFN of (process, page) */
	uint32_t forks[PERF_FORKS][2]; /* the last process forks: parent, child (0: none) */
	uint32_t nforks;
	struct sws_trace_perf_stats st;
};

static inline struct sws__perf *perf_of(const struct sws_trace_reader *r)
{
	return r->state;
}

/*
 * HOW IT WORKS. Every perf-script line is one event of one task. Page faults
 * and reclaim events become one record each, at once. The life of processes
 * needs state, because perf reports it in pieces:
 *
 *  - A clone is a new process or a new thread. sched:sched_process_fork does
 *    not say which; PERF_RECORD_FORK(pid:tid):(ppid:ptid) does (a thread has
 *    pid == ppid), and so do the PID/TID columns of `perf script -F pid,tid`
 *    on the child's own lines. A thread makes no record: its lines name its
 *    process's address space. A process makes a FORK (pid: the parent's
 *    process, arg: the child).
 *  - With PID/TID columns and no PERF_RECORD_FORK, the FORK is held in the
 *    output queue, with every record made after it, until the child's first
 *    line shows its pid (SWS__PT_PENDING). Records keep their order; a clone
 *    that made a thread loses its FORK. If the child shows no line before
 *    SWS_TRACE_PERF_MAX_HELD records are held, or before the end, the clone
 *    is taken for a process.
 *  - With thread ids only and no PERF_RECORD_FORK nothing says: the clone is
 *    taken for a process (SWS__PT_ASSUMED), and the assumption is checked:
 *    such a task that exits as one thread of several (group_dead=false) is
 *    an error that names both lines and says how to print the trace.
 *  - Fork, exit and exec may each be reported twice, by a tracepoint (TP)
 *    and by perf's own record (PR). The first report makes the record; the
 *    task remembers which source is still to report it (dup_*), and that
 *    report is dropped. A second report from the same source is a new event.
 *  - System calls come as sys_enter_X (the arguments) and sys_exit_X (the
 *    result) of one thread: the enter is kept in the thread's entry until
 *    the exit, which makes the record when the call succeeded.
 *  - File I/O: openat's result names a new file id in the process's
 *    descriptor table (fds[], searched in order; fork copies a process's
 *    entries, exec drops its O_CLOEXEC ones, exit all); read and write make
 *    a FILE record at the descriptor's offset and move it, pread64 and
 *    pwrite64 at their own; lseek and close keep the table true, and dup,
 *    dup2, dup3 and fcntl(F_DUPFD) give a new descriptor the old one's file.
 *    Descriptors that share a file id (dup, fork) share its offset.
 *  - Reclaim: a shrink_inactive line inside a task's reclaim (after its
 *    begin) makes a RECLAIM of the pages it freed, of its LRU type, at once:
 *    another task's faults that come before the reclaim's end find them free,
 *    as in the kernel. Its end reclaims what the lines did not count (slab:
 *    shrunk_done). Lines with no begin seen are summed by LRU type in the
 *    entry (shrunk[], SWS__PT_SHRINK) until the end, which then makes one
 *    RECLAIM per type instead of one for both.
 *  - Reclaim's victims: a fault leaves its address in the task's entry
 *    (SWS__PT_FAULT) until the task's next fault or system call. Its first
 *    kmem:mm_page_alloc of a movable folio (a user page, not a page table's;
 *    none inside a reclaim: zsmalloc's pages are movable too) ties the
 *    folio's PFN to that address (pfns[]); a smaller one after it (a large
 *    folio's fallback) takes its place; one as large or larger (readahead)
 *    unties it, the fault's folio being unknown. Any other allocation of a
 *    PFN unties it. An mm_vmscan_write_folio inside a reclaim of an anon
 *    folio so tied makes a RECLAIM of that folio (SWS_TRACE_F_VICTIM) and
 *    takes its pages off the anon count of the reclaim's end (named); one
 *    outside a reclaim (MADV_PAGEOUT's) only unties it.
 *
 * Bounds: at most SWS_TRACE_PERF_MAX_TASKS tasks are held (an entry goes as
 * soon as nothing is left to remember about its task: no call in progress,
 * no thread mapping, no report still to come), at most
 * SWS_TRACE_PERF_MAX_HELD records are queued, at most SWS_TRACE_PERF_MAX_FDS
 * descriptors and SWS_TRACE_PERF_MAX_PFNS folios are held, and one line makes at most two records (a MAP_FIXED
 * mmap: MUNMAP, then MMAP; a reclaim end: anon, then file; a memcg reclaim's
 * begin inside a read: the read's FILE piece, then the begin's RECLAIM).
 */

#define CLONE_KIND_UNKNOWN 0
#define CLONE_KIND_PROCESS 1
#define CLONE_KIND_THREAD 2

static uint32_t task_hash(uint32_t tid, uint32_t cap)
{
	return (uint32_t)((tid * 0x9e3779b1u) & (cap - 1));
}

static struct sws__perf_task *task_find(struct sws__perf *pf, uint32_t tid)
{
	if (!pf->tn || !tid)
		return NULL;
	for (uint32_t i = task_hash(tid, pf->tcap);; i = (i + 1) & (pf->tcap - 1)) {
		if (pf->tasks[i].tid == tid)
			return &pf->tasks[i];
		if (!pf->tasks[i].tid)
			return NULL;
	}
}

static int task_grow(struct sws_trace_reader *r)
{
	struct sws__perf *pf = perf_of(r);
	uint32_t ncap = pf->tcap ? pf->tcap * 2 : 64;
	struct sws__perf_task *n = sws__mem_zalloc(&r->mem, SWS__TRACE_MEM, ncap * sizeof(*n), 0);
	if (!n)
		return sws__trace_err_line(r, SWS_ENOMEM, "out of memory for the perf task table");
	for (uint32_t i = 0; i < pf->tcap; i++) {
		if (!pf->tasks[i].tid)
			continue;
		uint32_t j = task_hash(pf->tasks[i].tid, ncap);
		while (n[j].tid)
			j = (j + 1) & (ncap - 1);
		n[j] = pf->tasks[i];
	}
	if (pf->tasks)
		sws__mem_free(&r->mem, SWS__TRACE_MEM, pf->tasks, pf->tcap * sizeof(*n));
	pf->tasks = n;
	pf->tcap = ncap;
	return 0;
}

/* The entry of @tid, created empty (pid = tid) when there is none. NULL on error. */
static struct sws__perf_task *task_get(struct sws_trace_reader *r, uint32_t tid)
{
	struct sws__perf *pf = perf_of(r);
	struct sws__perf_task *e = task_find(pf, tid);
	if (e)
		return e;
	if (pf->tn >= SWS_TRACE_PERF_MAX_TASKS) {
		sws__trace_err_line(r, SWS_EFORMAT,
				    "more than %u tasks to track at once (system calls in "
				    "progress, threads, forks and exits not yet reported twice)",
				    SWS_TRACE_PERF_MAX_TASKS);
		return NULL;
	}
	if ((pf->tn + 1) * 2 > pf->tcap && task_grow(r))
		return NULL;
	uint32_t i = task_hash(tid, pf->tcap);
	while (pf->tasks[i].tid)
		i = (i + 1) & (pf->tcap - 1);
	e = &pf->tasks[i];
	memset(e, 0, sizeof(*e));
	e->tid = tid;
	e->pid = tid;
	pf->tn++;
	return e;
}

static void fault_release(struct sws__perf *pf, struct sws__perf_task *e);

/* Remove @e (backward-shift deletion keeps every probe chain unbroken). */
static void task_del(struct sws__perf *pf, struct sws__perf_task *e)
{
	fault_release(pf, e);
	uint32_t mask = pf->tcap - 1, i = (uint32_t)(e - pf->tasks), j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (!pf->tasks[j].tid)
			break;
		uint32_t h = task_hash(pf->tasks[j].tid, pf->tcap);
		/* may the entry at j move to the hole at i? (h not cyclically in (i, j]) */
		if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
			pf->tasks[i] = pf->tasks[j];
			i = j;
		}
	}
	pf->tasks[i].tid = 0;
	pf->tn--;
}

/* Drop @e when nothing is left to remember about its task. */
static void task_put(struct sws__perf *pf, struct sws__perf_task *e)
{
	if (e && !e->call && !e->flags && !e->dup_fork && !e->dup_exit && !e->dup_exec)
		task_del(pf, e);
}

/* ---- folio ties, by PFN and by address (linear probing, backward-shift
 * deletion as tasks[]): one map type for both ---- */

static uint32_t pfn_hash(uint64_t key, uint32_t cap)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static struct sws__perf_tie *map_find(const struct sws__perf_map *m, uint64_t key)
{
	if (!m->n)
		return NULL;
	for (uint32_t i = pfn_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->slot[i].key == key)
			return &m->slot[i];
		if (!m->slot[i].key)
			return NULL;
	}
}

static void map_del(struct sws__perf_map *m, struct sws__perf_tie *e)
{
	uint32_t mask = m->cap - 1, i = (uint32_t)(e - m->slot), j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (!m->slot[j].key)
			break;
		uint32_t h = pfn_hash(m->slot[j].key, m->cap);
		if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
			m->slot[i] = m->slot[j];
			i = j;
		}
	}
	m->slot[i].key = 0;
	m->n--;
}

/* @m's entry of @key, a new one (zeroed but for its key) when there is none:
 * @return it, or NULL with the reader's error set (out of memory). */
static struct sws__perf_tie *map_get(struct sws_trace_reader *r, struct sws__perf_map *m, uint64_t key)
{
	struct sws__perf_tie *e = map_find(m, key);
	if (e)
		return e;
	if ((m->n + 1) * 2 > m->cap) {
		uint32_t ncap = m->cap ? m->cap * 2 : 1024;
		struct sws__perf_tie *n = sws__mem_zalloc(&r->mem, SWS__TRACE_MEM, (size_t)ncap * sizeof(*n), 0);
		if (!n) {
			sws__trace_err_line(r, SWS_ENOMEM, "out of memory for the perf folio table");
			return NULL;
		}
		for (uint32_t i = 0; i < m->cap; i++) {
			if (!m->slot[i].key)
				continue;
			uint32_t j = pfn_hash(m->slot[i].key, ncap);
			while (n[j].key)
				j = (j + 1) & (ncap - 1);
			n[j] = m->slot[i];
		}
		if (m->slot)
			sws__mem_free(&r->mem, SWS__TRACE_MEM, m->slot, (size_t)m->cap * sizeof(*n));
		m->slot = n;
		m->cap = ncap;
	}
	uint32_t i = pfn_hash(key, m->cap);
	while (m->slot[i].key)
		i = (i + 1) & (m->cap - 1);
	e = &m->slot[i];
	*e = (struct sws__perf_tie){.key = key};
	m->n++;
	return e;
}

static void map_free(struct sws_trace_reader *r, struct sws__perf_map *m)
{
	if (m->slot)
		sws__mem_free(&r->mem, SWS__TRACE_MEM, m->slot, (size_t)m->cap * sizeof(*m->slot));
	*m = (struct sws__perf_map){0};
}

/* The key of a tie's reverse: (process, page of the folio's address). */
static uint64_t vpn_key(uint32_t pid, uint64_t addr)
{
	return ((uint64_t)pid << 36 | ((addr >> 12) & ((1ull << 36) - 1))) + 1;
}

static struct sws__perf_tie *pfn_find(struct sws__perf *pf, uint64_t pfn)
{
	return map_find(&pf->pfns, pfn + 1);
}

/* Untie folio @e (the PFN's entry) and drop its reverse. */
static void pfn_del(struct sws__perf *pf, struct sws__perf_tie *e)
{
	struct sws__perf_tie *v = map_find(&pf->vpns, vpn_key(e->pid, e->addr));
	if (v && v->addr == e->key - 1)
		map_del(&pf->vpns, v);
	map_del(&pf->pfns, e);
}

/* Tie folio @pfn (of @order) to address @addr of @pid, in place of what it
 * was tied to (the PFN was freed and allocated again). */
static int pfn_tie(struct sws_trace_reader *r, uint64_t pfn, uint32_t order, uint32_t pid, uint64_t addr)
{
	struct sws__perf *pf = perf_of(r);
	struct sws__perf_tie *e = pfn_find(pf, pfn);
	if (e) {
		pfn_del(pf, e);
	} else if (pf->pfns.n >= SWS_TRACE_PERF_MAX_PFNS) {
		pf->st.pfns_untracked++;
		return 0;
	}
	addr &= ~(((uint64_t)SWS_PAGE_SIZE << order) - 1);
	struct sws__perf_tie *v = map_get(r, &pf->vpns, vpn_key(pid, addr));
	if (!v)
		return r->err;
	if (!(e = map_get(r, &pf->pfns, pfn + 1))) {
		map_del(&pf->vpns, v);
		return r->err;
	}
	*e = (struct sws__perf_tie){.key = pfn + 1, .addr = addr, .pid = pid, .order = order};
	v->addr = pfn; /* (the reverse: the PFN) */
	return 0;
}

/* The last child process @pid forked (PERF_FORKS remembered); 0: none. */
static uint32_t fork_child(const struct sws__perf *pf, uint32_t pid)
{
	for (uint32_t k = 0; k < PERF_FORKS && k < pf->nforks; k++) {
		const uint32_t *f = pf->forks[(pf->nforks - 1 - k) % PERF_FORKS];
		if (f[0] == pid)
			return f[1];
	}
	return 0;
}

/*
 * The copy of a folio that @pid's write fault at @addr made (copy-on-write of
 * a page shared at fork): the page it copied, tied to @pid's address until
 * now, is its last child's (the child kept it), when that is an order-0 folio.
 */
static int cow_untie(struct sws_trace_reader *r, uint32_t pid, uint64_t addr, uint64_t new_pfn)
{
	struct sws__perf *pf = perf_of(r);
	uint32_t child = fork_child(pf, pid);
	const struct sws__perf_tie *v = child ? map_find(&pf->vpns, vpn_key(pid, addr)) : NULL;
	if (!v || v->addr == new_pfn)
		return 0;
	uint64_t old = v->addr;
	const struct sws__perf_tie *t = pfn_find(pf, old);
	return t && !t->order ? pfn_tie(r, old, 0, child, t->addr) : 0;
}

/* The process (address space) of the line's task. */
static uint32_t line_pid(struct sws_trace_reader *r, const struct sws_perf_line *pl)
{
	if (!pl->has_tid)
		return r->cfg.default_pid;
	if (pl->has_pid)
		return pl->pid;
	const struct sws__perf_task *e = task_find(perf_of(r), pl->tid);
	return e ? e->pid : pl->tid;
}

/* The software fault events, with perf's optional ":u"/":k"/... modifiers. */
static int is_sw_fault_event(const char *ev)
{
	static const char *const names[] = {"page-faults", "faults", "minor-faults",
					    "major-faults"};
	for (size_t i = 0; i < SWS_ARRAY_SIZE(names); i++) {
		size_t n = strlen(names[i]);
		if (!strncmp(ev, names[i], n) && (ev[n] == '\0' || ev[n] == ':'))
			return 1;
	}
	return 0;
}

/* ---- open files ---- */

#define O_CLOEXEC_ 0x80000u
#define PERF_MAX_FILES (1u << 24) /* FILE records' arg is below 2^24 */

static struct sws__perf_fd *fd_find(struct sws__perf *pf, uint32_t pid, uint32_t fd)
{
	for (uint32_t i = 0; i < pf->nfds; i++)
		if (pf->fds[i].pid == pid && pf->fds[i].fd == fd)
			return &pf->fds[i];
	return NULL;
}

static void fd_del(struct sws__perf *pf, struct sws__perf_fd *f)
{
	*f = pf->fds[--pf->nfds];
}

/* @pid's descriptors close: all of them (its exit), or the O_CLOEXEC ones (its exec). */
static void fds_close(struct sws__perf *pf, uint32_t pid, int cloexec_only)
{
	for (uint32_t i = 0; i < pf->nfds;)
		if (pf->fds[i].pid == pid && (!cloexec_only || pf->fds[i].cloexec))
			fd_del(pf, &pf->fds[i]);
		else
			i++;
}

/* A new process @cpid, forked by @ppid, gets a copy of its descriptors (each
 * with its own offset from here on: the kernel shares the offset). */
/* A clone of @ppid that is, or may be, a process: its last child (cow_untie()). */
static void fork_note(struct sws__perf *pf, uint32_t ppid, uint32_t cpid)
{
	uint32_t *f = pf->forks[pf->nforks++ % PERF_FORKS];
	f[0] = ppid;
	f[1] = cpid;
}

static void fds_fork(struct sws__perf *pf, uint32_t ppid, uint32_t cpid)
{
	fds_close(pf, cpid, 0); /* a reused pid's */
	for (uint32_t i = 0, n = pf->nfds; i < n; i++) {
		if (pf->fds[i].pid != ppid)
			continue;
		if (pf->nfds == SWS_TRACE_PERF_MAX_FDS) {
			pf->st.fds_untracked++;
			continue;
		}
		pf->fds[pf->nfds] = pf->fds[i];
		pf->fds[pf->nfds++].pid = cpid;
	}
}

/* ---- the output queue ---- */

static struct sws__perf_out *q_at(struct sws__perf *pf, uint64_t seq)
{
	return &pf->q[(pf->qhead + (uint32_t)(seq - pf->qseq)) % pf->qcap];
}

/* Task @e's held fault ACCESS goes out, with the order of the folio its
 * allocations tied when there is one (SWS_TRACE_F_FOLIO_*, SWS_TRACE_F_FALLBACK). */
static void fault_release(struct sws__perf *pf, struct sws__perf_task *e)
{
	if (!e->fault_seq)
		return;
	struct sws__perf_out *o = q_at(pf, e->fault_seq - 1);
	if (e->fault_pfn)
		o->rec.flags |= (e->fault_order + 1) << SWS_TRACE_F_FOLIO_SHIFT |
				(e->fault_fallback ? SWS_TRACE_F_FALLBACK : 0);
	o->state = SWS__OUT_READY;
	e->fault_seq = 0;
}

/* Queue @rec (state SWS__OUT_*). @return 0 or an error. */
static int q_push(struct sws_trace_reader *r, const struct sws_trace_record *rec, uint32_t state)
{
	struct sws__perf *pf = perf_of(r);
	if (pf->qn == pf->qcap) {
		uint32_t ncap = pf->qcap ? pf->qcap * 2 : 16;
		struct sws__perf_out *n =
		    sws__mem_alloc(&r->mem, SWS__TRACE_MEM, ncap * sizeof(*n), 0);
		if (!n)
			return sws__trace_err_line(r, SWS_ENOMEM, "out of memory for held records");
		for (uint32_t i = 0; i < pf->qn; i++)
			n[i] = pf->q[(pf->qhead + i) % pf->qcap];
		if (pf->q)
			sws__mem_free(&r->mem, SWS__TRACE_MEM, pf->q, pf->qcap * sizeof(*n));
		pf->q = n;
		pf->qcap = ncap;
		pf->qhead = 0;
	}
	struct sws__perf_out *o = &pf->q[(pf->qhead + pf->qn) % pf->qcap];
	o->rec = *rec;
	o->line = r->line;
	o->state = state;
	pf->qn++;
	return 0;
}

static int q_rec(struct sws_trace_reader *r, const struct sws_perf_line *pl, uint32_t op,
		 uint64_t addr, uint64_t len, uint32_t flags, uint32_t pid, uint32_t tid,
		 uint32_t arg)
{
	struct sws_trace_record rec = {.time_ns = pl->time_ns,
				       .addr = addr,
				       .len = len,
				       .op = op,
				       .flags = flags,
				       .pid = pid,
				       .tid = tid,
				       .cpu = pl->cpu,
				       .arg = arg};
	return q_push(r, &rec, SWS__OUT_READY);
}

/* A held FORK is decided: the child @e is a process (the FORK goes out) or a
 * thread of @pid (it is dropped). */
static void fork_resolve(struct sws__perf *pf, struct sws__perf_task *e, int process, uint32_t pid)
{
	struct sws__perf_out *o = q_at(pf, e->fork_seq);
	e->flags &= (uint8_t)~SWS__PT_PENDING;
	pf->npending--;
	if (process) {
		o->state = SWS__OUT_READY;
		pf->st.forks++;
		fds_fork(pf, o->rec.pid, e->tid);
		e->pid = e->tid;
	} else {
		o->state = SWS__OUT_DROPPED;
		pf->st.threads++;
		e->flags |= SWS__PT_THREAD;
		e->pid = pid;
		for (uint32_t k = 0; k < PERF_FORKS; k++) /* no child process after all */
			if (pf->forks[k][0] == o->rec.pid && pf->forks[k][1] == e->tid)
				pf->forks[k][0] = pf->forks[k][1] = 0;
	}
}

/* The oldest held FORK: no line of its child came in time, it is a process. */
static void fork_undecided(struct sws__perf *pf)
{
	struct sws__perf_out *o = &pf->q[pf->qhead];
	struct sws__perf_task *e = task_find(pf, o->rec.arg);
	pf->st.forks_undecided++;
	if (e && (e->flags & SWS__PT_PENDING) && e->fork_seq == pf->qseq) {
		fork_resolve(pf, e, 1, 0);
		task_put(pf, e);
	} else { /* (every path that drops a held child resolves it first) */
		o->state = SWS__OUT_READY;
		pf->npending--;
		pf->st.forks++;
		fds_fork(pf, o->rec.pid, o->rec.arg);
	}
}

/* ---- payload fields ---- */

/* The last "KEY=" in [s, end) that starts @s or follows a blank: its value, or NULL. */
static const char *kv_last(const char *s, const char *end, const char *key)
{
	size_t kn = strlen(key);
	const char *found = NULL;
	for (const char *p = s; (p = strstr(p, key)) && p < end; p += kn)
		if ((p == s || sws__is_space(p[-1])) && p[kn] == '=')
			found = p + kn + 1;
	return found;
}

/* Is @v the word @w (followed by a blank or the end)? */
static int word_is(const char *v, const char *w)
{
	size_t n = strlen(w);
	return !strncmp(v, w, n) && (!v[n] || sws__is_space(v[n]));
}

/* The number at @v up to a blank, ',' or the end. @return 0 or -1. */
static int num_at(const char *v, int hex, uint64_t *out)
{
	size_t n = 0;
	if (!v)
		return -1;
	while (v[n] && !sws__is_space(v[n]) && v[n] != ',')
		n++;
	return sws__parse_u64(v, n, hex, out);
}

static int num32_at(const char *v, int hex, uint32_t *out)
{
	uint64_t x;
	if (num_at(v, hex, &x) || x > UINT32_MAX)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

/* A system call argument, "NAME: 0xVALUE" at the start or after ", ". @return 0 or -1. */
static int sc_arg(const char *rest, const char *name, uint64_t *out)
{
	size_t kn = strlen(name);
	for (const char *p = rest; (p = strstr(p, name)); p += kn)
		if ((p == rest || (p >= rest + 2 && p[-2] == ',' && p[-1] == ' ')) &&
		    p[kn] == ':' && p[kn + 1] == ' ')
			return num_at(p + kn + 2, 1, out);
	return -1;
}

/* "(A:B)" at *p: @return 0 and *p past it, or -1. */
static int pair_at(const char **p, uint32_t *a, uint32_t *b)
{
	const char *s = *p, *colon, *close;
	if (*s != '(' || !(colon = strchr(s, ':')) || !(close = strchr(colon, ')')) ||
	    sws__parse_u32(s + 1, (size_t)(colon - s - 1), 0, a) ||
	    sws__parse_u32(colon + 1, (size_t)(close - colon - 1), 0, b))
		return -1;
	*p = close + 1;
	return 0;
}

/* ---- fork, exit, exec ---- */

static uint8_t other_src(uint8_t src)
{
	return src == SWS__SRC_TP ? SWS__SRC_PR : SWS__SRC_TP;
}

/*
 * A clone of task @ptid (process @ppid) made task @ctid; @kind says whether
 * it is a process or a thread, or CLONE_KIND_UNKNOWN (sched_process_fork).
 */
static int on_fork(struct sws_trace_reader *r, const struct sws_perf_line *pl, uint8_t src,
		   uint32_t ppid, uint32_t ptid, uint32_t ctid, int kind)
{
	struct sws__perf *pf = perf_of(r);
	struct sws__perf_task *e = task_find(pf, ctid);
	if (!ctid)
		return sws__trace_err_line(r, SWS_EFORMAT, "clone of task 0");
	if (e && (e->dup_fork & src)) { /* the other report of a clone already seen */
		e->dup_fork = 0;
		pf->st.duplicates++;
		if (kind != CLONE_KIND_UNKNOWN && (e->flags & SWS__PT_PENDING))
			fork_resolve(pf, e, kind == CLONE_KIND_PROCESS, ppid);
		else if (kind == CLONE_KIND_THREAD && (e->flags & SWS__PT_ASSUMED))
			return sws__trace_err_line(
			    r, SWS_EFORMAT,
			    "PERF_RECORD_FORK shows task %u as a thread of %u, "
			    "but its clone at line %llu was taken for a process",
			    ctid, ppid, (unsigned long long)e->fork_line);
		task_put(pf, e);
		return 0;
	}
	if (e && (e->flags & SWS__PT_PENDING)) /* the tid's earlier life never showed */
		fork_undecided(pf), e = task_find(pf, ctid);
	if (!e && !(e = task_get(r, ctid)))
		return r->err;
	fault_release(pf, e); /* a reused tid's last fault */
	memset(e, 0, sizeof(*e));
	e->tid = ctid;
	e->pid = ctid;
	e->dup_fork = other_src(src);
	e->fork_line = r->line;
	if (kind == CLONE_KIND_UNKNOWN) {
		if (pl->has_pid) {
			struct sws_trace_record rec = {.time_ns = pl->time_ns,
						       .op = SWS_TRACE_FORK,
						       .pid = ppid,
						       .tid = ptid,
						       .cpu = pl->cpu,
						       .arg = ctid};
			e->flags |= SWS__PT_PENDING;
			e->fork_seq = pf->qseq + pf->qn;
			pf->npending++;
			fork_note(pf, ppid, ctid); /* its parent may copy before it shows */
			return q_push(r, &rec, SWS__OUT_PENDING);
		}
		kind = CLONE_KIND_PROCESS;
		e->flags |= SWS__PT_ASSUMED;
		pf->st.forks_assumed++;
	}
	if (kind == CLONE_KIND_THREAD) {
		e->flags |= SWS__PT_THREAD;
		e->pid = ppid;
		pf->st.threads++;
		return 0;
	}
	pf->st.forks++;
	fork_note(pf, ppid, ctid);
	fds_fork(pf, ppid, ctid);
	return q_rec(r, pl, SWS_TRACE_FORK, 0, 0, 0, ppid, ptid, ctid);
}

/*
 * Task @tid exits: @group 1 when its process goes with it, 0 when it is one
 * thread of several, -1 when the line does not say (a kernel without
 * group_dead: the task's own process unless it is known for a thread).
 * @pid_hint: its process as the line names it.
 */
static int on_exit(struct sws_trace_reader *r, const struct sws_perf_line *pl, uint8_t src,
		   uint32_t pid_hint, uint32_t tid, int group)
{
	struct sws__perf *pf = perf_of(r);
	struct sws__perf_task *e = task_find(pf, tid);
	uint32_t pid = e && (e->flags & SWS__PT_THREAD) ? e->pid : pid_hint;
	if (group < 0)
		group = !(e && (e->flags & SWS__PT_THREAD));
	if (e && (e->flags & SWS__PT_PENDING))
		fork_resolve(pf, e, group, pid);
	if (!group && e && (e->flags & SWS__PT_ASSUMED))
		return sws__trace_err_line(
		    r, SWS_EFORMAT,
		    "task %u exits as one thread of several (group_dead=false), "
		    "but this trace names thread ids only and its clone at line "
		    "%llu was taken for a process: print the trace with perf "
		    "script -F +pid or --show-task-events",
		    tid, (unsigned long long)e->fork_line);
	uint32_t key = group ? pid : tid;
	struct sws__perf_task *k = key == tid ? e : task_find(pf, key);
	if (k && (k->dup_exit & src)) { /* the other report of this exit */
		pf->st.duplicates++;
		k->dup_exit = 0;
		if (e && e != k) {
			if (e->call)
				pf->st.unfinished_calls++;
			task_del(pf, e);
			k = task_find(pf, key);
		}
		task_put(pf, k);
		return 0;
	}
	if (e && e->call)
		pf->st.unfinished_calls++;
	if (e && e != k)
		task_del(pf, e), k = task_find(pf, key);
	if (k) {
		if (k->call && k != e)
			pf->st.unfinished_calls++;
		if (k->flags & SWS__PT_PENDING) /* its own clone: a process after all */
			fork_resolve(pf, k, 1, 0);
		fault_release(pf, k);
		memset(&k->flags, 0, sizeof(*k) - offsetof(struct sws__perf_task, flags));
		k->pid = k->tid;
	}
	if (pf->seen & other_src(src)) {
		if (!k && !(k = task_get(r, key)))
			return r->err;
		k->dup_exit = other_src(src);
	}
	task_put(pf, k);
	if (!group) {
		pf->st.thread_exits++;
		return 0;
	}
	fds_close(pf, pid, 0);
	return q_rec(r, pl, SWS_TRACE_EXIT, 0, 0, 0, pid, tid, 0);
}

/* Process @pid execs (@old_tid: the thread that called execve, now @pid). */
static int on_exec(struct sws_trace_reader *r, const struct sws_perf_line *pl, uint8_t src,
		   uint32_t pid, uint32_t old_tid)
{
	struct sws__perf *pf = perf_of(r);
	struct sws__perf_task *e;
	if (!pid)
		return sws__trace_err_line(r, SWS_EFORMAT, "exec of task 0");
	if (old_tid != pid && (e = task_find(pf, old_tid))) {
		if (e->flags & SWS__PT_PENDING)
			fork_resolve(pf, e, 0, pid);
		if (e->call)
			pf->st.unfinished_calls++;
		task_del(pf, e);
	}
	e = task_find(pf, pid);
	if (e && (e->dup_exec & src)) {
		pf->st.duplicates++;
		e->dup_exec = 0;
		task_put(pf, e);
		return 0;
	}
	if (!e && !(e = task_get(r, pid)))
		return r->err;
	if (e->flags & SWS__PT_PENDING)
		fork_resolve(pf, e, 1, pid);
	fault_release(pf, e); /* the old image's last fault */
	e->flags &= (uint8_t)~(SWS__PT_THREAD | SWS__PT_FAULT);
	e->pid = pid;
	e->dup_exec = other_src(src);
	fds_close(pf, pid, 1);
	return q_rec(r, pl, SWS_TRACE_EXEC, 0, 0, 0, pid, pid, 0);
}

/* ---- system calls ---- */

static const char *const call_names[] = {"",	   "mmap",  "munmap", "madvise", "openat", "close",
					 "lseek", "dup",   "dup2",   "dup3",	"fcntl",  "read",
					 "readv", "pread64", "write", "writev", "pwrite64"};

static int call_enter(struct sws_trace_reader *r, const struct sws_perf_line *pl, uint8_t call,
		      uint64_t addr, uint64_t len, uint32_t arg)
{
	if (!pl->has_tid)
		return sws__trace_err_line(
		    r, SWS_EFORMAT,
		    "sys_enter_%s without a thread id: system calls are paired "
		    "per thread (print the tid column)",
		    call_names[call]);
	struct sws__perf_task *e = task_get(r, pl->tid);
	if (!e)
		return r->err;
	if (e->call)
		return sws__trace_err_line(
		    r, SWS_EFORMAT,
		    "thread %u enters %s while its %s entered at line %llu has "
		    "not returned (lost events?)",
		    pl->tid, call_names[call], call_names[e->call],
		    (unsigned long long)e->call_line);
	e->call = call;
	e->call_addr = addr;
	e->call_len = len;
	e->call_arg = arg;
	e->call_dirtied = 0;
	e->call_line = r->line;
	e->call_alloc = e->call_done = 0;
	fault_release(perf_of(r), e);
	e->flags &= (uint8_t)~SWS__PT_FAULT; /* its allocations are the call's */
	return 0;
}

/* The exit of @call on the line's thread: @return 1 with its arguments taken,
 * 0 when no enter is pending (counted), or an error. */
static int call_exit(struct sws_trace_reader *r, const struct sws_perf_line *pl, uint8_t call,
		     uint64_t *addr, uint64_t *len, uint32_t *arg, int *dirtied, uint64_t *done)
{
	struct sws__perf *pf = perf_of(r);
	struct sws__perf_task *e = pl->has_tid ? task_find(pf, pl->tid) : NULL;
	if (!e || !e->call) {
		pf->st.unpaired_exits++;
		return 0;
	}
	if (e->call != call)
		return sws__trace_err_line(
		    r, SWS_EFORMAT,
		    "sys_exit_%s of thread %u, but the call it entered at line "
		    "%llu is %s",
		    call_names[call], pl->tid, (unsigned long long)e->call_line,
		    call_names[e->call]);
	*addr = e->call_addr;
	*len = e->call_len;
	*arg = e->call_arg;
	*dirtied = e->call_dirtied;
	*done = e->call_done;
	e->call = 0;
	task_put(pf, e);
	return 1;
}

/* The system call @name (after "sys_enter_" or "sys_exit_"): SWS__CALL_*, or 0. */
static uint8_t call_lookup(const char *name)
{
	for (uint8_t c = 1; c < SWS_ARRAY_SIZE(call_names); c++)
		if (!strcmp(name, call_names[c]))
			return c;
	return 0;
}

/* sys_enter_* of @call: its arguments kept on the thread's entry. */
static int call_args(struct sws_trace_reader *r, const struct sws_perf_line *pl, uint8_t call)
{
	struct sws__perf *pf = perf_of(r);
	uint64_t a = 0, b = 0, c = 0;
	switch (call) {
	case SWS__CALL_MMAP:
		pf->sys_mmap_seen = 1;
		if (sc_arg(pl->rest, "len", &b) || sc_arg(pl->rest, "flags", &c) || c > UINT32_MAX)
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "sys_enter_mmap: bad or missing len: or flags:");
		break;
	case SWS__CALL_MUNMAP:
		if (sc_arg(pl->rest, "addr", &a) || sc_arg(pl->rest, "len", &b))
			return sws__trace_err_line(
			    r, SWS_EFORMAT, "sys_enter_munmap: bad or missing addr: or len:");
		break;
	case SWS__CALL_MADVISE:
		if (sc_arg(pl->rest, "start", &a) || sc_arg(pl->rest, "len_in", &b) ||
		    sc_arg(pl->rest, "behavior", &c) || c > UINT32_MAX)
			return sws__trace_err_line(
			    r, SWS_EFORMAT,
			    "sys_enter_madvise: bad or missing start:, len_in: or behavior:");
		break;
	case SWS__CALL_OPENAT:
		if (sc_arg(pl->rest, "flags", &c) || c > UINT32_MAX)
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "sys_enter_openat: bad or missing flags:");
		break;
	case SWS__CALL_DUP: /* the old descriptor in arg; dup3's flags and fcntl's cmd in len */
		if (sc_arg(pl->rest, "fildes", &c) || c > UINT32_MAX)
			return sws__trace_err_line(r, SWS_EFORMAT, "sys_enter_dup: bad or missing fildes:");
		break;
	case SWS__CALL_DUP2:
	case SWS__CALL_DUP3:
		if (sc_arg(pl->rest, "oldfd", &c) || c > UINT32_MAX ||
		    (call == SWS__CALL_DUP3 && sc_arg(pl->rest, "flags", &b)))
			return sws__trace_err_line(r, SWS_EFORMAT, "sys_enter_%s: bad or missing %s",
						   call_names[call],
						   call == SWS__CALL_DUP3 ? "oldfd: or flags:" : "oldfd:");
		break;
	case SWS__CALL_FCNTL:
		if (sc_arg(pl->rest, "fd", &c) || c > UINT32_MAX || sc_arg(pl->rest, "cmd", &b))
			return sws__trace_err_line(r, SWS_EFORMAT, "sys_enter_fcntl: bad or missing fd: or cmd:");
		break;
	default: /* the calls on a descriptor; pread64 and pwrite64 at an offset */
		if (sc_arg(pl->rest, "fd", &c) || c > UINT32_MAX ||
		    ((call == SWS__CALL_PREAD64 || call == SWS__CALL_PWRITE64) &&
		     sc_arg(pl->rest, "pos", &a)))
			return sws__trace_err_line(r, SWS_EFORMAT, "sys_enter_%s: bad or missing %s",
						   call_names[call],
						   call == SWS__CALL_PREAD64 || call == SWS__CALL_PWRITE64
						       ? "fd: or pos:"
						       : "fd:");
		break;
	}
	return call_enter(r, pl, call, a, b, (uint32_t)c);
}

/* The open file description @file's offset is now @pos, in every descriptor
 * that shares it. */
static void fd_seek(struct sws__perf *pf, uint32_t file, uint64_t pos)
{
	for (uint32_t i = 0; i < pf->nfds; i++)
		if (pf->fds[i].file == file)
			pf->fds[i].pos = pos;
}

#define F_DUPFD_ 0u
#define F_DUPFD_CLOEXEC_ 1030u

/* The successful return @newfd of dup(), dup2(), dup3() or fcntl(F_DUPFD,
 * F_DUPFD_CLOEXEC) by process @pid on @oldfd: @newfd now refers to @oldfd's
 * open file (its file id and offset), closed by exec only with O_CLOEXEC
 * (dup3's flags, F_DUPFD_CLOEXEC; dup() and dup2() clear it). What @newfd
 * held before is closed (dup2, dup3). @how: dup3's flags, fcntl's command. */
static int fd_dup(struct sws__perf *pf, uint8_t call, uint32_t pid, uint32_t oldfd, uint64_t how, uint64_t newfd)
{
	if (call == SWS__CALL_FCNTL && how != F_DUPFD_ && how != F_DUPFD_CLOEXEC_)
		return 0; /* another fcntl command: the table stays */
	if (newfd == oldfd || !pf->nfds)
		return 0; /* dup2() of a descriptor onto itself; or no file opened yet */
	struct sws__perf_fd *f = fd_find(pf, pid, oldfd), *n = fd_find(pf, pid, (uint32_t)newfd);
	if (!f) { /* not a file of the trace: neither is the new descriptor */
		if (n)
			fd_del(pf, n);
		return 0;
	}
	if (!n) {
		if (pf->nfds == SWS_TRACE_PERF_MAX_FDS) {
			pf->st.fds_untracked++;
			return 0;
		}
		n = &pf->fds[pf->nfds++];
	}
	*n = *f;
	n->fd = (uint32_t)newfd;
	n->cloexec = call == SWS__CALL_DUP3 ? !!(how & O_CLOEXEC_) : call == SWS__CALL_FCNTL && how == F_DUPFD_CLOEXEC_;
	return 0;
}

/* The successful return @ret of a file call of process @pid: the descriptor
 * table follows openat, close and lseek; read and write make a FILE record of
 * the bytes they moved, at the descriptor's offset (@pos for pread64 and
 * pwrite64). @fd_or_flags: the call's fd (openat: its flags). @dirtied: a
 * write that dirtied page cache (SWS_TRACE_READ_DIRTY_EVENTS). */
static int file_call(struct sws_trace_reader *r, const struct sws_perf_line *pl, uint8_t call,
		     uint32_t pid, uint64_t pos, uint32_t fd_or_flags, uint64_t ret, int dirtied, uint64_t done)
{
	struct sws__perf *pf = perf_of(r);
	struct sws__perf_fd *f;
	if (call == SWS__CALL_OPENAT) {
		if (ret > INT32_MAX)
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "sys_exit_openat: descriptor 0x%llx out of range",
						   (unsigned long long)ret);
		if (pf->last_file + 1 >= PERF_MAX_FILES)
			return sws__trace_err_line(r, SWS_EFORMAT, "more than %u files opened",
						   PERF_MAX_FILES - 1);
		if (!pf->fds && !(pf->fds = sws__mem_alloc(&r->mem, SWS__TRACE_MEM,
							 SWS_TRACE_PERF_MAX_FDS * sizeof(*pf->fds), 0)))
			return sws__trace_err_line(r, SWS_ENOMEM, "out of memory for open files");
		f = fd_find(pf, pid, (uint32_t)ret); /* its close was not traced */
		if (!f) {
			if (pf->nfds == SWS_TRACE_PERF_MAX_FDS) {
				pf->st.fds_untracked++;
				return 0;
			}
			f = &pf->fds[pf->nfds++];
		}
		*f = (struct sws__perf_fd){.pid = pid,
					   .fd = (uint32_t)ret,
					   .file = ++pf->last_file,
					   .cloexec = !!(fd_or_flags & O_CLOEXEC_)};
		pf->st.files_opened++;
		return 0;
	}
	f = pf->nfds ? fd_find(pf, pid, fd_or_flags) : NULL;
	if (call == SWS__CALL_CLOSE || call == SWS__CALL_LSEEK) {
		if (f && call == SWS__CALL_CLOSE)
			fd_del(pf, f);
		else if (f)
			fd_seek(pf, f->file, ret);
		return 0;
	}
	if (!f) {
		pf->st.file_io_other_fd++;
		return 0;
	}
	if (!ret)
		return 0; /* the end of the file: nothing moved */
	if (call >= SWS__CALL_WRITE && (r->cfg.flags & SWS_TRACE_READ_DIRTY_EVENTS)) {
		if (dirtied) /* the open file's: every descriptor that shares it */
			for (uint32_t i = 0; i < pf->nfds; i++)
				pf->fds[i].pagecache |= pf->fds[i].file == f->file;
		if (!f->pagecache) { /* no write of it has gone through the page cache */
			pf->st.writes_no_pagecache++;
			return 0;
		}
	}
	int positioned = call == SWS__CALL_PREAD64 || call == SWS__CALL_PWRITE64;
	uint64_t off = positioned ? pos : f->pos;
	if (!positioned)
		fd_seek(pf, f->file, off + ret);
	pf->st.file_io++;
	if (done >= ret)
		return 0; /* read_piece() made its records */
	return q_rec(r, pl, SWS_TRACE_FILE, off + done, ret - done,
		     call >= SWS__CALL_WRITE ? SWS_TRACE_F_WRITE : 0, pid, pl->tid, f->file);
}

/* syscalls:sys_enter_* / sys_exit_* of the memory-map and file calls (@ev
 * without "syscalls:"); other system calls are not used. */
static int perf_syscall(struct sws_trace_reader *r, const struct sws_perf_line *pl, const char *ev)
{
	struct sws__perf *pf = perf_of(r);
	uint64_t a = 0, b = 0, d, ret;
	uint32_t arg = 0;
	int enter = !strncmp(ev, "sys_enter_", 10);
	if (!enter && strncmp(ev, "sys_exit_", 9))
		return 0;
	uint8_t call = call_lookup(ev + (enter ? 10 : 9));
	if (!call)
		return 0; /* another system call: not used */
	if (enter)
		return call_args(r, pl, call);
	char *p = pl->rest;
	char *t = sws__token(&p);
	if (!t || sws__token(&p) || sws__parse_u64(t, strlen(t), 1, &ret))
		return sws__trace_err_line(r, SWS_EFORMAT, "%s: bad or missing return value", ev);
	int dirtied = 0;
	uint64_t done = 0;
	int rc = call_exit(r, pl, call, &a, &b, &arg, &dirtied, &done);
	if (rc <= 0)
		return rc;
	uint32_t pid = line_pid(r, pl);
	switch (call) {
	case SWS__CALL_MMAP:
		if (ret >= (uint64_t)-4095) { /* -errno */
			pf->st.calls_failed++;
			return 0;
		}
		if (!(arg & SWS__MAP_ANONYMOUS)) {
			pf->st.mmap_file++;
			return 0;
		}
		if ((arg & SWS__MAP_TYPE) != SWS__MAP_PRIVATE || (arg & SWS__MAP_HUGETLB)) { /* not MAP_PRIVATE */
			pf->st.mmap_shared++;
			return 0;
		}
		/* MAP_FIXED replaces what was mapped there (mmap(2)): unmapped first */
		if ((arg & SWS__MAP_FIXED) &&
		    (rc = q_rec(r, pl, SWS_TRACE_MUNMAP, ret, b, 0, pid, pl->tid, 0)))
			return rc;
		return q_rec(r, pl, SWS_TRACE_MMAP, ret, b, 0, pid, pl->tid, 0);
	case SWS__CALL_MUNMAP:
		if (ret) {
			pf->st.calls_failed++;
			return 0;
		}
		return q_rec(r, pl, SWS_TRACE_MUNMAP, a, b, 0, pid, pl->tid, 0);
	case SWS__CALL_MADVISE:
		if (ret) {
			pf->st.calls_failed++;
			return 0;
		}
		d = sws__madvise_op(arg);
		if (!d) {
			pf->st.madvise_other++;
			return 0;
		}
		if (!b)
			return 0; /* madvise(2) of no bytes succeeds and does nothing */
		return q_rec(r, pl, (uint32_t)d, a, b, 0, pid, pl->tid, 0);
	default:
		if (ret >= (uint64_t)-4095) {
			pf->st.calls_failed++;
			return 0;
		}
		if (call >= SWS__CALL_DUP && call <= SWS__CALL_FCNTL)
			return fd_dup(pf, call, pid, arg, b, ret);
		return file_call(r, pl, call, pid, a, arg, ret, dirtied, done);
	}
}

/* sched:sched_process_fork / _exit / _exec (@ev without "sched:"). */
static int perf_sched(struct sws_trace_reader *r, const struct sws_perf_line *pl, const char *ev)
{
	const char *rest = pl->rest, *end = rest + strlen(rest);
	uint32_t a, b;
	if (!strcmp(ev, "sched_process_fork")) {
		const char *cc = kv_last(rest, end, "child_comm");
		perf_of(r)->seen |= SWS__SRC_TP;
		if (!cc || num32_at(kv_last(rest, cc, "pid"), 0, &a) ||
		    num32_at(kv_last(cc, end, "child_pid"), 0, &b))
			return sws__trace_err_line(
			    r, SWS_EFORMAT,
			    "sched_process_fork: want \"comm=C pid=P child_comm=C "
			    "child_pid=P\"");
		/* the parent is the line's task: its process as the line names it */
		uint32_t ppid = pl->has_tid && pl->tid == a ? line_pid(r, pl) : a;
		return on_fork(r, pl, SWS__SRC_TP, ppid, a, b, CLONE_KIND_UNKNOWN);
	}
	if (!strcmp(ev, "sched_process_exit")) {
		const char *gd = kv_last(rest, end, "group_dead");
		perf_of(r)->seen |= SWS__SRC_TP;
		int dead = !gd ? -1 : word_is(gd, "true") ? 1 : word_is(gd, "false") ? 0 : -2;
		if (num32_at(kv_last(rest, gd ? gd : end, "pid"), 0, &a) || dead == -2)
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "sched_process_exit: want \"comm=C pid=P prio=N "
						   "[group_dead=true|false]\"");
		uint32_t pid = pl->has_pid && pl->tid == a ? pl->pid : a;
		return on_exit(r, pl, SWS__SRC_TP, pid, a, dead);
	}
	if (!strcmp(ev, "sched_process_exec")) {
		const char *op = kv_last(rest, end, "old_pid");
		perf_of(r)->seen |= SWS__SRC_TP;
		if (!op || num32_at(kv_last(rest, op, "pid"), 0, &a) || num32_at(op, 0, &b))
			return sws__trace_err_line(
			    r, SWS_EFORMAT,
			    "sched_process_exec: want \"filename=F pid=P old_pid=P\"");
		return on_exec(r, pl, SWS__SRC_TP, a, b);
	}
	return 0;
}

/* perf's own side-band records: FORK, EXIT, COMM exec, MMAP2; the others are not used. */
static int perf_record(struct sws_trace_reader *r, const struct sws_perf_line *pl)
{
	struct sws__perf *pf = perf_of(r);
	const char *ev = pl->event + 12; /* after "PERF_RECORD_" */
	uint32_t pid, tid, ppid, ptid;
	pf->seen |= SWS__SRC_PR;
	if (!strncmp(ev, "FORK(", 5) || !strncmp(ev, "EXIT(", 5)) {
		const char *p = ev + 4;
		if (pair_at(&p, &pid, &tid) || *p++ != ':' || pair_at(&p, &ppid, &ptid) || *p)
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "%.16s: want (PID:TID):(PPID:PTID)", pl->event);
		if (ev[0] == 'F')
			return on_fork(r, pl, SWS__SRC_PR, ppid, ptid, tid,
				       pid == ppid ? CLONE_KIND_THREAD : CLONE_KIND_PROCESS);
		return on_exit(r, pl, SWS__SRC_PR, pid, tid, pid == tid);
	}
	if (!strcmp(ev, "COMM")) {
		if (strncmp(pl->rest, "exec:", 5))
			return 0; /* a comm change (prctl), not an exec */
		const char *c = strrchr(pl->rest, ':'), *slash = c ? strchr(c, '/') : NULL;
		if (!slash || c < pl->rest + 5 ||
		    sws__parse_u32(c + 1, (size_t)(slash - c - 1), 0, &pid) ||
		    num32_at(slash + 1, 0, &tid))
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "PERF_RECORD_COMM exec: want COMM:PID/TID");
		return on_exec(r, pl, SWS__SRC_PR, pid, pid);
	}
	if (!strcmp(ev, "MMAP2")) {
		/* PID/TID: [0xSTART(0xLEN) @ PGOFF ...]: PROT NAME */
		char *p = pl->rest, *t = sws__token(&p), *slash = t ? strchr(t, '/') : NULL;
		const char *open = strchr(p, '['), *paren = open ? strchr(open, '(') : NULL;
		const char *close = paren ? strchr(paren, ')') : NULL;
		const char *end = close ? strstr(close, "]: ") : NULL;
		uint64_t start, len;
		size_t tn = t ? strlen(t) : 0;
		if (!slash || tn < 4 || t[tn - 1] != ':' ||
		    sws__parse_u32(t, (size_t)(slash - t), 0, &pid) ||
		    sws__parse_u32(slash + 1, tn - (size_t)(slash - t) - 2, 0, &tid) || !end ||
		    sws__parse_u64(open + 1, (size_t)(paren - open - 1), 1, &start) ||
		    sws__parse_u64(paren + 1, (size_t)(close - paren - 1), 1, &len))
			return sws__trace_err_line(
			    r, SWS_EFORMAT,
			    "PERF_RECORD_MMAP2: want PID/TID: [0xSTART(0xLEN) @ ...]: "
			    "PROT NAME");
		p = (char *)end + 3;
		char *prot = sws__token(&p), *name = sws__token(&p);
		if (pf->sys_mmap_seen || !prot || strlen(prot) != 4 || prot[3] != 'p' || !name ||
		    strcmp(name, "//anon") || sws__token(&p)) {
			pf->st.mmap2_skipped++;
			return 0;
		}
		return q_rec(r, pl, SWS_TRACE_MMAP, start, len, 0, pid, tid, 0);
	}
	return 0;
}

/*
 * mm_vmscan_write_folio (mm_vmscan_writepage before 6.2): an anon folio a
 * traced fault allocated makes a RECLAIM of it, in the reclaiming task's
 * memcg (the kernel reclaims the memcg over its limit), owned by the process
 * whose fault it was; the reclaim's end counts it as named.
 */
static int perf_write_folio(struct sws_trace_reader *r, const struct sws_perf_line *pl)
{
	struct sws__perf *pf = perf_of(r);
	const char *fl = sws__kv_find(pl->rest, "flags");
	char *v = sws__kv_find(pl->rest, "pfn");
	uint64_t pfn;
	if (!v || sws__parse_u64(v, strlen(v), 1, &pfn))
		return sws__trace_err_line(r, SWS_EFORMAT, "mm_vmscan_write_folio: bad or missing pfn=");
	struct sws__perf_tie *f = pfn_find(pf, pfn);
	uint64_t addr = f ? f->addr : 0, pages = f ? 1ull << f->order : 0;
	uint32_t owner = f ? f->pid : 0;
	if (f)
		pfn_del(pf, f); /* written, then freed: its next allocation ties it again */
	/* Named only in a reclaim of a task (not MADV_PAGEOUT's, whose record is
	 * its own; not kswapd's, whose shrink lines are its records). */
	struct sws__perf_task *e = pl->has_tid ? task_find(pf, pl->tid) : NULL;
	if (!fl || !strstr(fl, "RECLAIM_WB_ANON") || !e || !(e->flags & SWS__PT_RECLAIM) ||
	    (pl->comm && !strncmp(pl->comm, "kswapd", 6)))
		return 0;
	if (!f) {
		pf->st.victims_untied++;
		return 0;
	}
	e->flags |= SWS__PT_NAMED;
	e->named += pages;
	pf->st.victims++;
	return q_rec(r, pl, SWS_TRACE_RECLAIM, addr, pages, SWS_TRACE_F_VICTIM | SWS_TRACE_F_CHARGE, owner, owner,
		     SWS_TRACE_MEMCG_TASK);
}

/*
 * A reclaim begins inside a read: the page cache folios the read allocated
 * so far were charged before it (the reclaim is theirs), so they make a FILE
 * record now, the rest of the read one at its exit.
 */
static int read_piece(struct sws_trace_reader *r, const struct sws_perf_line *pl, struct sws__perf_task *e)
{
	struct sws__perf *pf = perf_of(r);
	if (e->call < SWS__CALL_READ || e->call > SWS__CALL_PREAD64 || !e->call_alloc)
		return 0;
	uint64_t len = e->call_alloc * SWS_PAGE_SIZE;
	e->call_alloc = 0;
	uint32_t pid = line_pid(r, pl);
	struct sws__perf_fd *f = pf->nfds ? fd_find(pf, pid, e->call_arg) : NULL;
	if (!f)
		return 0;
	uint64_t off = (e->call == SWS__CALL_PREAD64 ? e->call_addr : f->pos) + e->call_done;
	e->call_done += len;
	pf->st.file_io_pieces++;
	return q_rec(r, pl, SWS_TRACE_FILE, off, len, 0, pid, pl->tid, f->file);
}

/*
 * kmem:mm_page_alloc: the first allocation of a movable folio (a user page,
 * GFP_HIGHUSER_MOVABLE or a large folio's GFP_TRANSHUGE*) after a task's
 * fault is that fault's folio; one in a read, with no fault pending, is a
 * page cache folio the read fills (read_piece()).
 */
static int perf_page_alloc(struct sws_trace_reader *r, const struct sws_perf_line *pl, uint32_t pid)
{
	struct sws__perf *pf = perf_of(r);
	pf->alloc_seen = 1;
	/* (the last key first: sws__kv_find() ends each value it finds with a NUL) */
	const char *gfp = sws__kv_find(pl->rest, "gfp_flags");
	char *o = sws__kv_find(pl->rest, "order");
	char *v = sws__kv_find(pl->rest, "pfn");
	uint64_t pfn, order;
	if (!v || sws__parse_u64(v, strlen(v), 1, &pfn) || !o || sws__parse_u64(o, strlen(o), 0, &order))
		return sws__trace_err_line(r, SWS_EFORMAT, "mm_page_alloc: bad or missing pfn= or order=");
	if (!pfn || pfn >= UINT64_MAX >> 12)
		return 0; /* a failed allocation (no page: pfn 0), or none */
	struct sws__perf_tie *old = pfn_find(pf, pfn);
	if (old) /* freed and allocated again: its tie is over */
		pfn_del(pf, old);
	struct sws__perf_task *e = pl->has_tid ? task_find(pf, pl->tid) : NULL;
	if (!e || (e->flags & SWS__PT_RECLAIM) || !gfp || (!strstr(gfp, "MOVABLE") && !strstr(gfp, "TRANSHUGE")))
		return 0; /* a page table, slab, reclaim's own (zsmalloc) */
	if (order >= SWS_NR_ORDERS) {
		pf->st.pfns_untracked++; /* larger than the model's folios */
		return 0;
	}
	if (!(e->flags & SWS__PT_FAULT)) {
		if (e->call >= SWS__CALL_READ && e->call <= SWS__CALL_PREAD64)
			e->call_alloc += 1ull << order; /* the read's page cache */
		return 0;
	}
	if (e->fault_pfn && e->call) {
		/* a kernel-mode fault's folio came first: the rest are the call's (a
		 * read's page cache), none its fallback */
		fault_release(pf, e);
		e->flags &= (uint8_t)~SWS__PT_FAULT;
		if (e->call >= SWS__CALL_READ && e->call <= SWS__CALL_PREAD64)
			e->call_alloc += 1ull << order;
		return 0;
	}
	if (e->fault_pfn) {
		struct sws__perf_tie *t = pfn_find(pf, e->fault_pfn - 1);
		if (t)
			pfn_del(pf, t);
		e->fault_pfn = 0;
		if (order >= e->fault_order) { /* several folios (readahead): which is the fault's? */
			fault_release(pf, e);
			e->flags &= (uint8_t)~SWS__PT_FAULT;
			task_put(pf, e);
			return 0;
		}
		e->fault_fallback = 1;
	}
	e->fault_pfn = pfn + 1;
	e->fault_order = (uint32_t)order;
	int rc = e->fault_cow && !order ? cow_untie(r, pid, e->fault_addr, pfn) : 0;
	return rc ? rc : pfn_tie(r, pfn, (uint32_t)order, pid, e->fault_addr);
}

/*
 * A shrink_inactive line of task @e inside its reclaim: the @n pages of the
 * LRU type @file it freed, less the anon folios named already (RECLAIM v),
 * as a RECLAIM of its memcg (with the charge flag) or of the machine.
 */
static int shrink_now(struct sws_trace_reader *r, const struct sws_perf_line *pl, struct sws__perf_task *e,
		      int file, uint64_t n, uint32_t pid, uint32_t tid)
{
	const bool memcg = e->flags & SWS__PT_MEMCG;
	e->shrunk_done += n;
	if (!file) {
		uint64_t named = e->named < n ? e->named : n;
		n -= named;
		e->named -= named;
		if (!e->named)
			e->flags &= (uint8_t)~SWS__PT_NAMED;
	}
	perf_of(r)->st.reclaim_lines++;
	return n ? q_rec(r, pl, SWS_TRACE_RECLAIM, 0, n,
			 (file ? SWS_TRACE_F_FILE_LRU : SWS_TRACE_F_ANON_LRU) | (memcg ? SWS_TRACE_F_CHARGE : 0), pid,
			 tid, memcg ? SWS_TRACE_MEMCG_TASK : SWS_TRACE_MEMCG_ROOT)
		 : 0;
}

/*
 * vmscan:* (@ev without "vmscan:"). A reclaim's end makes a RECLAIM of what
 * it reclaimed; when the task's mm_vmscan_lru_shrink_inactive lines came
 * before it, one per LRU type (their flags say RECLAIM_WB_ANON or
 * RECLAIM_WB_FILE: the file pages they count, the rest anon), so that the
 * replay reclaims anon and page cache as the kernel did. kswapd has no
 * begin/end pair: each of its shrink lines is one.
 */
static int perf_vmscan(struct sws_trace_reader *r, const struct sws_perf_line *pl, const char *ev,
		       uint32_t pid, uint32_t tid)
{
	struct sws__perf *pf = perf_of(r);
	uint32_t memcg;
	uint64_t n;
	if (!strcmp(ev, "mm_vmscan_write_folio") || !strcmp(ev, "mm_vmscan_writepage"))
		return perf_write_folio(r, pl);
	if (strstr(ev, "_reclaim_begin")) { /* until its end, allocations are reclaim's own */
		if (!pl->has_tid)
			return 0;
		struct sws__perf_task *e = task_get(r, pl->tid);
		if (!e)
			return r->err;
		/* its folio was allocated before the charge's reclaim; a large one's
		 * charge may reclaim and still fail: its fallback comes after */
		if (!e->fault_pfn || !e->fault_order)
			fault_release(pf, e);
		e->flags = (uint8_t)((e->flags & ~SWS__PT_MEMCG) | SWS__PT_RECLAIM |
				     (strstr(ev, "memcg") ? SWS__PT_MEMCG : 0));
		int rc = read_piece(r, pl, e);
		if (rc || strcmp(ev, "mm_vmscan_memcg_reclaim_begin"))
			return rc;
		/* an order-0 charge found the memcg full: RECLAIM c of 0 pages */
		const char *o = sws__kv_find(pl->rest, "order");
		return o && !strcmp(o, "0") ? q_rec(r, pl, SWS_TRACE_RECLAIM, 0, 0, SWS_TRACE_F_CHARGE, line_pid(r, pl),
						    pl->tid, SWS_TRACE_MEMCG_TASK)
					  : 0;
	}
	int shrink = !strcmp(ev, "mm_vmscan_lru_shrink_inactive");
	/* (flags= first: sws__kv_find() ends each value it finds with a NUL) */
	const char *fl = shrink ? sws__kv_find(pl->rest, "flags") : NULL;
	int file = fl && strstr(fl, "RECLAIM_WB_FILE");
	char *v = sws__kv_find(pl->rest, "nr_reclaimed");
	if (!strcmp(ev, "mm_vmscan_memcg_reclaim_end") ||
	    !strcmp(ev, "mm_vmscan_memcg_softlimit_reclaim_end"))
		memcg = SWS_TRACE_MEMCG_TASK;
	else if (!strcmp(ev, "mm_vmscan_direct_reclaim_end") ||
		 !strcmp(ev, "mm_vmscan_node_reclaim_end") || shrink)
		memcg = SWS_TRACE_MEMCG_ROOT;
	else
		return 0;
	if (!v || sws__parse_u64(v, strlen(v), 0, &n))
		return sws__trace_err_line(r, SWS_EFORMAT, "%s: bad or missing nr_reclaimed=", ev);
	/* a memcg's: the reclaim of the charge that found it full */
	const uint32_t charge = memcg == SWS_TRACE_MEMCG_TASK ? SWS_TRACE_F_CHARGE : 0;
	if (shrink) {
		uint32_t type = file ? SWS_TRACE_F_FILE_LRU : SWS_TRACE_F_ANON_LRU;
		if (pl->comm && !strncmp(pl->comm, "kswapd", 6))
			return q_rec(r, pl, SWS_TRACE_RECLAIM, 0, n, type, pid, tid, memcg);
		if (!pl->has_tid)
			return 0; /* whose reclaim it belongs to is unknown: its end counts it */
		struct sws__perf_task *e = task_get(r, pl->tid);
		if (!e)
			return r->err;
		if (e->flags & SWS__PT_RECLAIM)
			return shrink_now(r, pl, e, file, n, pid, tid);
		e->flags |= SWS__PT_SHRINK;
		e->shrunk[file] += n;
		return 0;
	}
	struct sws__perf_task *e = pl->has_tid ? task_find(pf, pl->tid) : NULL;
	if (e && (e->flags & SWS__PT_RECLAIM)) {
		uint64_t done = e->shrunk_done < n ? e->shrunk_done : n;
		n -= done; /* what its lines did not count: slab */
		e->shrunk_done = 0;
		e->flags &= (uint8_t)~(SWS__PT_RECLAIM | SWS__PT_MEMCG);
		task_put(pf, e);
		e = task_find(pf, pl->tid);
		if (done && !n)
			return 0;
	}
	if (!e || !(e->flags & (SWS__PT_SHRINK | SWS__PT_NAMED))) /* (0 pages: none; a c record of 0 is a begin) */
		return n ? q_rec(r, pl, SWS_TRACE_RECLAIM, 0, n, charge, pid, tid, memcg) : 0;
	/* The end's count stays the total (lines perf lost, slab pages): the
	 * page cache's share as its lines say, at most all of it; anon the rest,
	 * less the folios named already (RECLAIM v). */
	uint64_t cache = e->shrunk[1] < n ? e->shrunk[1] : n, anon = n - cache;
	int rc = 0, split = e->flags & SWS__PT_SHRINK;
	/* Named folios this end does not count (a swap device that completes
	 * writes later frees them in a later pass) are the next end's. */
	uint64_t named = e->named < anon ? e->named : anon;
	anon -= named;
	e->named -= named;
	e->flags &= (uint8_t)~(SWS__PT_SHRINK | (e->named ? 0 : SWS__PT_NAMED));
	e->shrunk[0] = e->shrunk[1] = 0;
	task_put(pf, e);
	if (!split)
		return anon ? q_rec(r, pl, SWS_TRACE_RECLAIM, 0, anon, charge, pid, tid, memcg) : 0;
	pf->st.reclaim_split++;
	if (anon)
		rc = q_rec(r, pl, SWS_TRACE_RECLAIM, 0, anon, SWS_TRACE_F_ANON_LRU | charge, pid, tid, memcg);
	if (!rc && cache)
		rc = q_rec(r, pl, SWS_TRACE_RECLAIM, 0, cache, SWS_TRACE_F_FILE_LRU | charge, pid, tid, memcg);
	return rc;
}

/* One perf-script line: its records go to the queue. @return 0 or an error. */
static int perf_line(struct sws_trace_reader *r, char *line)
{
	struct sws__perf *pf = perf_of(r);
	struct sws_perf_line pl;
	const char *why;
	if (sws__perf_split(line, &pl, &why))
		return sws__trace_err_line(r, SWS_EFORMAT, "not a perf script sample line: %s",
					   why);
	if (pf->npending && pl.has_pid) { /* a held clone's child shows its pid */
		struct sws__perf_task *e = task_find(pf, pl.tid);
		if (e && (e->flags & SWS__PT_PENDING)) {
			fork_resolve(pf, e, pl.pid == pl.tid, pl.pid);
			task_put(pf, e);
		}
	}
	if (!strncmp(pl.event, "PERF_RECORD_", 12))
		return perf_record(r, &pl);
	if (!strncmp(pl.event, "sched:", 6))
		return perf_sched(r, &pl, pl.event + 6);
	if (!strncmp(pl.event, "syscalls:", 9))
		return perf_syscall(r, &pl, pl.event + 9);
	uint32_t pid = line_pid(r, &pl);
	uint32_t tid = pl.has_tid ? pl.tid : r->cfg.default_pid;

	int kernel = !strcmp(pl.event, "exceptions:page_fault_kernel");
	if (kernel || !strcmp(pl.event, "exceptions:page_fault_user")) {
		const char *name = pl.event + 11;
		char *a = sws__kv_find(pl.rest, "address");
		char *rest2 = a ? a + strlen(a) + 1 : NULL;
		char *ec = rest2 ? sws__kv_find(rest2, "error_code") : NULL;
		uint64_t addr, code;
		if (!a || sws__parse_u64(a, strlen(a), 1, &addr))
			return sws__trace_err_line(r, SWS_EFORMAT, "%s: bad or missing address=",
						   name);
		if (!ec || sws__parse_u64(ec, strlen(ec), 1, &code))
			return sws__trace_err_line(r, SWS_EFORMAT, "%s: bad or missing error_code=",
						   name);
		/* A kernel-mode fault on user memory (a system call's copy to or
		 * from a user buffer, the ELF loader) touches the user's page as
		 * the user's own fault would; one on a kernel address (its top
		 * bit set) or below mmap_min_addr (64 KiB) is no user page. */
		if (kernel) {
			if (addr < 0x10000 || (addr >> 63))
				return 0;
			pf->st.kernel_faults++;
		}
		uint32_t flags = ((code & 0x2) ? SWS_TRACE_F_WRITE : 0) |
				 ((code & 0x10) ? SWS_TRACE_F_IFETCH : 0);
		if (pf->alloc_seen && pl.has_tid) { /* its folio's allocation comes next */
			struct sws__perf_task *e = task_get(r, pl.tid);
			if (!e)
				return r->err;
			fault_release(pf, e);
			e->flags |= SWS__PT_FAULT;
			e->fault_addr = addr;
			e->fault_pfn = 0;
			e->fault_fallback = 0;
			e->fault_cow = (code & 0x3) == 0x3; /* a write to a present page */
			/* held until its folio is known (the task's next fault, call or reclaim) */
			e->fault_seq = pf->qseq + pf->qn + 1;
			struct sws_trace_record rec = {.time_ns = pl.time_ns, .addr = addr, .op = SWS_TRACE_ACCESS,
						       .flags = flags, .pid = pid, .tid = tid, .cpu = pl.cpu};
			return q_push(r, &rec, SWS__OUT_FAULT);
		}
		return q_rec(r, &pl, SWS_TRACE_ACCESS, addr, 0, flags, pid, tid, 0);
	}
	if (!strcmp(pl.event, "kmem:mm_page_alloc"))
		return perf_page_alloc(r, &pl, pid);
	if (!strcmp(pl.event, "writeback:writeback_dirty_folio")) {
		/* page cache dirtied: by a write in progress, that write's */
		struct sws__perf_task *e = pl.has_tid ? task_find(pf, pl.tid) : NULL;
		if (e && e->call >= SWS__CALL_WRITE)
			e->call_dirtied = 1;
		return 0;
	}
	if (is_sw_fault_event(pl.event)) {
		/* With a period column this is perf script's default layout: the
		 * next field is the ip, not a data address. Nothing to replay. */
		if (pl.has_period)
			return 0;
		char *p = pl.rest;
		char *a = sws__token(&p);
		uint64_t addr;
		if (!a || sws__parse_u64(a, strlen(a), 1, &addr))
			return sws__trace_err_line(
			    r, SWS_EFORMAT,
			    "%s: bad or missing data address (record with -d, "
			    "print with -F ...,addr)",
			    pl.event);
		return q_rec(r, &pl, SWS_TRACE_ACCESS, addr, 0, 0, pid, tid, 0);
	}
	if (!strncmp(pl.event, "vmscan:", 7))
		return perf_vmscan(r, &pl, pl.event + 7, pid, tid);
	return 0; /* another event: not used */
}

/* The end of the input: held FORKs go out, calls still open are counted. */
static void perf_end(struct sws__perf *pf)
{
	pf->eof = 1;
	for (uint32_t i = 0; i < pf->tcap; i++)
		if (pf->tasks[i].tid && pf->tasks[i].call) {
			pf->tasks[i].call = 0;
			pf->st.unfinished_calls++;
		}
}

static int perf_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	struct sws__perf *pf = perf_of(r);
	for (;;) {
		while (pf->qn) {
			struct sws__perf_out *o = &pf->q[pf->qhead];
			if (o->state == SWS__OUT_PENDING) {
				if (!pf->eof && pf->qn + 2 <= SWS_TRACE_PERF_MAX_HELD)
					break;
				fork_undecided(pf);
			}
			if (o->state == SWS__OUT_FAULT) {
				if (!pf->eof && pf->qn + 2 <= SWS_TRACE_PERF_MAX_HELD)
					break;
				struct sws__perf_task *e = task_find(pf, o->rec.tid);
				if (e && e->fault_seq == pf->qseq + 1)
					fault_release(pf, e);
				else
					o->state = SWS__OUT_READY;
			}
			pf->qhead = (pf->qhead + 1) % pf->qcap;
			pf->qn--;
			pf->qseq++;
			if (o->state == SWS__OUT_READY) {
				*rec = o->rec;
				r->rec_line = o->line;
				return 1;
			}
		}
		if (pf->eof)
			return 0;
		char *line;
		size_t len;
		int rc = sws__stream_line(r, &line, &len);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			perf_end(pf);
			continue;
		}
		/* comments (perf script --header), blank lines, call-chain lines */
		char *p = sws__skip_space(line);
		uint64_t before = pf->qseq + pf->qn;
		if (*p && *p != '#' && line[0] != '\t' && (rc = perf_line(r, line)))
			return rc;
		if (pf->qseq + pf->qn == before)
			r->st.skipped_lines++;
	}
}

static void perf_free(struct sws_trace_reader *r)
{
	struct sws__perf *pf = perf_of(r);
	if (pf->tasks)
		sws__mem_free(&r->mem, SWS__TRACE_MEM, pf->tasks, pf->tcap * sizeof(*pf->tasks));
	if (pf->q)
		sws__mem_free(&r->mem, SWS__TRACE_MEM, pf->q, pf->qcap * sizeof(*pf->q));
	if (pf->fds)
		sws__mem_free(&r->mem, SWS__TRACE_MEM, pf->fds,
			      SWS_TRACE_PERF_MAX_FDS * sizeof(*pf->fds));
	map_free(r, &pf->pfns);
	map_free(r, &pf->vpns);
	pf->tasks = NULL;
	pf->q = NULL;
	pf->fds = NULL;
}

void sws_trace_reader_perf_stats(const struct sws_trace_reader *r, struct sws_trace_perf_stats *out)
{
	if (r->fmt == &sws__trace_perf)
		*out = perf_of(r)->st;
	else
		memset(out, 0, sizeof(*out));
}

/* A perf-script sample line of any event but DAMON's. */
static int perf_detect(const struct sws_trace_reader *r, const char *line)
{
	(void)r;
	return sws__perf_line_is(line, 0);
}

SWS__TRACE_FORMAT(sws__trace_perf,
		  .id = SWS_TRACE_FORMAT_PERF,
		  .name = "perf",
		  .state_size = sizeof(struct sws__perf),
		  .detect = perf_detect,
		  .next = perf_next,
		  .free = perf_free);
