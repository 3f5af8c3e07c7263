/*
 * forkstorm.c - a build-like run for recording the kernel's swap behaviour
 * with perf: many short-lived children touching memory they inherited, as
 * make's children (a shell, a compiler) do (recorded with swapsim-record;
 * not built by CMake, not run by CI).
 *
 *   forkstorm [MIB [CHILDREN [PARALLEL]]]     (defaults 96, 64, 2)
 *
 * The parent maps MIB MiB anonymous private and writes every page (each word
 * its own index), then starts CHILDREN children, PARALLEL at a time. Child k
 * reads one eighth of the region (the k-th eighth, wrapping), writes every
 * 16th page of it (copy-on-write), maps 4 MiB of its own, writes it,
 * releases half of it with MADV_DONTNEED and the rest with munmap, and
 * exits; every 8th child execs /bin/true instead of exiting (its inherited
 * address space goes at the exec). Between waves the parent rewrites one
 * page in 64 of the whole region.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096u

static void child_run(uint64_t *p, size_t bytes, unsigned k)
{
	size_t slice = bytes / 8, off = (size_t)(k % 8) * slice;
	volatile uint64_t *s = (volatile uint64_t *)((char *)p + off);
	uint64_t sum = 0;
	for (size_t i = 0; i < slice / 8; i += 8)
		sum += s[i];
	for (size_t pg = 0; pg < slice / PAGE; pg += 16)
		s[pg * (PAGE / 8)] = sum + pg;
	size_t own = 4u << 20;
	char *q = mmap(NULL, own, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		_exit(2);
	memset(q, (int)(k | 1), own);
	madvise(q, own / 2, MADV_DONTNEED);
	munmap(q, own);
	if (k % 8 == 7) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(3);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 96;
	unsigned children = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 64;
	unsigned parallel = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 2;
	size_t bytes = mib << 20, words = bytes / 8;
	uint64_t *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || !parallel) {
		perror("mmap");
		return 1;
	}
	for (size_t i = 0; i < words; i++)
		p[i] = i;
	unsigned started = 0, failed = 0;
	while (started < children) {
		unsigned wave = 0;
		for (; wave < parallel && started < children; wave++, started++) {
			pid_t c = fork();
			if (c < 0) {
				perror("fork");
				return 1;
			}
			if (c == 0)
				child_run(p, bytes, started);
		}
		for (; wave; wave--) {
			int st;
			if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				failed++;
		}
		for (size_t pg = started % 64; pg < bytes / PAGE; pg += 64)
			p[pg * (PAGE / 8)] += 1;
	}
	munmap(p, bytes);
	fprintf(stderr, "forkstorm: %zu MiB, %u children (%u at a time), %u failed\n", mib, children,
		parallel, failed);
	return failed != 0;
}
