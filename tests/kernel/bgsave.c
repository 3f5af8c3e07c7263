/*
 * bgsave.c - a Redis-BGSAVE-like run for recording the kernel's swap
 * behaviour with swapsim-record (built as sws_kernel_bgsave for the test
 * tools_record, which records it where the machine allows).
 * docs/trace-format.md ("Recording a kernel run") has the figures.
 *
 *   bgsave [MIB]          (default 128)
 *
 * 1. mmap MIB MiB anonymous private and write every page (each 8-byte word
 *    holds its own index, as usemem writes: neither zero nor same-filled, so
 *    zram compresses it and the kernel's zero-page shortcut does not apply);
 * 2. fork: the child reads every page (one word per 64 bytes) and exits, as a
 *    BGSAVE child serialises the data set;
 * 3. meanwhile the parent rewrites the first half (copy-on-write while the
 *    child lives), then waits for the child, unmaps the second half and reads
 *    the first half again.
 *
 * It prints what it did on stderr: the phases with their times.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void write_range(uint64_t *p, size_t words, uint64_t salt)
{
	for (size_t i = 0; i < words; i++)
		p[i] = i ^ salt;
}

static uint64_t read_range(const volatile uint64_t *p, size_t words)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < words; i += 8)
		sum += p[i];
	return sum;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 128;
	size_t bytes = mib << 20, words = bytes / 8, half = words / 2;
	double t0 = now();
	uint64_t *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	write_range(p, words, 0);
	fprintf(stderr, "bgsave: wrote %zu MiB in %.3f s\n", mib, now() - t0);
	pid_t child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		double t1 = now();
		uint64_t sum = read_range(p, words);
		fprintf(stderr, "bgsave: child read %zu MiB in %.3f s (sum %llx)\n", mib, now() - t1,
			(unsigned long long)sum);
		_exit(0);
	}
	double t2 = now();
	write_range(p, half, 0x5a5a5a5a5a5a5a5aull);
	fprintf(stderr, "bgsave: parent rewrote %zu MiB in %.3f s\n", mib / 2, now() - t2);
	int status;
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bgsave: the child failed\n");
		return 1;
	}
	if (munmap(p + half, bytes / 2)) {
		perror("munmap");
		return 1;
	}
	double t3 = now();
	uint64_t sum = read_range(p, half);
	fprintf(stderr, "bgsave: parent read %zu MiB again in %.3f s (sum %llx); total %.3f s\n",
		mib / 2, now() - t3, (unsigned long long)sum, now() - t0);
	return 0;
}
