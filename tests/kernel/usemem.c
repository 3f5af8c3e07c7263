/*
 * usemem.c - a vm-scalability usemem-like run for recording the kernel's swap
 * behaviour and time with swapsim-record (built as sws_kernel_usemem):
 *
 *   usemem [-n TASKS] [MIB]      (default 1 task, 128 MiB)
 *
 * Each of TASKS processes maps MIB MiB anonymous private, writes every
 * 8-byte word with its own index (as usemem does: neither zero nor
 * same-filled), then unmaps it and exits; the parent waits for them all.
 * swapsim-replay's `--workload usemem -n TASKS MIB` is this run's model;
 * docs/tools.md has the recordings and their --check tables.
 * It prints on stderr each task's throughput and its time to free the memory.
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

static int task(size_t bytes)
{
	double t0 = now();
	uint64_t *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("usemem: mmap");
		return 1;
	}
	for (size_t i = 0; i < bytes / 8; i++)
		p[i] = i;
	double t1 = now();
	munmap(p, bytes);
	double t2 = now();
	fprintf(stderr, "usemem: pid %d: %.0f KB/s, %.0f usecs to free memory\n", getpid(),
		(double)bytes / 1024 / (t1 - t0), (t2 - t1) * 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	int tasks = 1, opt;
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n' || (tasks = atoi(optarg)) < 1 || tasks > 1024) {
			fprintf(stderr, "usage: usemem [-n TASKS] [MIB]\n");
			return 2;
		}
	}
	long mib = optind < argc ? atol(argv[optind]) : 128;
	if (mib < 1 || mib > (1l << 20)) {
		fprintf(stderr, "usemem: MIB: 1..1048576\n");
		return 2;
	}
	for (int t = 0; t < tasks; t++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("usemem: fork");
			return 1;
		}
		if (!pid)
			_exit(task((size_t)mib << 20));
	}
	int bad = 0, st;
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	return bad;
}
