/*
 * lifecycle.c - one of each event the perf importer reads, for recording a
 * small trace (tests/data/perf_threads.txt; not built by CMake, not run by
 * CI): a thread that touches memory and exits (glibc madvises its stack
 * away), madvise FREE, DONTNEED, PAGEOUT and WILLNEED, a MAP_SHARED
 * anonymous mapping, a child that writes and exits, a child that execs
 * /bin/true, munmap of a mapped and of an already unmapped range. Recorded
 * with
 *
 *   gcc -O1 -pthread tests/kernel/lifecycle.c -o lifecycle
 *   perf record -e exceptions:page_fault_user -e sched:sched_process_fork \
 *       -e sched:sched_process_exit -e sched:sched_process_exec \
 *       -e syscalls:sys_enter_mmap -e syscalls:sys_exit_mmap \
 *       -e syscalls:sys_enter_munmap -e syscalls:sys_exit_munmap \
 *       -e syscalls:sys_enter_madvise -e syscalls:sys_exit_madvise ./lifecycle
 *   perf script --show-task-events --show-mmap-events > perf_threads.txt
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void *thread_main(void *arg)
{
	char *p = arg;
	p[0] = 1;
	return NULL;
}

int main(void)
{
	char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memset(p, 1, 1 << 20);
	pthread_t t;
	pthread_create(&t, NULL, thread_main, p);
	pthread_join(t, NULL);
	madvise(p, 4096, MADV_FREE);
	madvise(p + 4096, 4096, MADV_DONTNEED);
	madvise(p + 8192, 4096, MADV_PAGEOUT);
	madvise(p, 4096, MADV_WILLNEED);
	char *s = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return 1;
	s[0] = 1;
	pid_t c = fork();
	if (!c) {
		p[0] = 2;
		_exit(0);
	}
	waitpid(c, NULL, 0);
	c = fork();
	if (!c) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(1);
	}
	waitpid(c, NULL, 0);
	munmap(p, 1 << 20);
	munmap(p, 4096);
	return 0;
}
