// SPDX-License-Identifier: GPL-2.0
/*
 * The stress suite's program (tools/lib/kfork/guest_stress.py).
 *
 *   hammer u THREADS CALLS      each thread calls kf_stress_hit() CALLS times
 *   hammer u THREADS -SECONDS   each thread calls it until SECONDS have passed
 *   hammer k THREADS ...        the same with openat(2) of a path that is
 *                               not there, "/kfork-stress/NAME/SEQ"
 *
 * It prints "ready", and starts when a line arrives on its standard
 * input: the suite reads the hit counts in between, so that a count
 * taken around the calls holds them and nothing of the program's start
 * (its loader's own openat calls).
 *
 * Thread i (from 1) is pinned to CPU (i - 1) modulo the CPUs it may run
 * on, so that with as many threads as vCPUs every vCPU hits the probe
 * at once. Each call passes the thread's own name, whose length is the
 * thread's number ("t1", "t22", "t333"...), a pair {id, seq} by pointer
 * and seq again by value: a record whose string belongs to another
 * thread than its id, or whose two seqs differ, was fetched from
 * another hit's memory or buffer. kf_stress_spare() has the same
 * arguments and is never called: the suite puts a second probe of the
 * event there.
 *
 * Prints "calls ID N" for each thread, then "total N".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 8

struct kf_pair {
	long id;
	long seq;
};

struct worker {
	pthread_t thread;
	int cpu;
	long id;
	long calls;	/* wanted, or 0: until the deadline */
	long made;
	char name[MAX_THREADS + 2];
};

static struct timespec deadline;
static int in_kernel;

/* The probed function: its arguments are what the event fetches. */
__attribute__((noinline)) long kf_stress_hit(const char *name, const struct kf_pair *pair,
					     long seq)
{
	__asm__ volatile("" : : "r"(name), "r"(pair) : "memory");
	return pair->id ^ seq;
}

__attribute__((noinline)) long kf_stress_spare(const char *name, const struct kf_pair *pair,
					       long seq)
{
	__asm__ volatile("" : : "r"(name), "r"(pair) : "memory");
	return pair->id + seq;
}

/* openat(2) of "/kfork-stress/NAME/SEQ", which is not there. */
static long open_missing(const char *name, long seq)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/kfork-stress/%s/%ld", name, seq);
	fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd;
}

static int past_deadline(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline.tv_sec ||
	       (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec);
}

static void *work(void *data)
{
	struct worker *w = data;
	struct kf_pair pair = { .id = w->id };
	cpu_set_t cpus;
	long sum = 0;

	CPU_ZERO(&cpus);
	CPU_SET(w->cpu, &cpus);
	if (pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus))
		fprintf(stderr, "hammer: thread %ld not pinned to CPU %d\n", w->id, w->cpu);
	for (w->made = 0; w->calls ? w->made < w->calls : !past_deadline(); w->made++) {
		pair.seq = w->made;
		if (in_kernel)
			sum += open_missing(w->name, w->made);
		else
			sum += kf_stress_hit(w->name, &pair, w->made);
	}
	return (void *)sum;
}

/* The CPUs this process may run on, in order. */
static int allowed_cpus(int *cpu, int most)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < most; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	return n;
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_THREADS];
	int cpu[MAX_THREADS], ncpus;
	long threads, count, total = 0;
	char go[8];

	if (argc != 4 || strlen(argv[1]) != 1 || !strchr("uk", argv[1][0]) ||
	    (threads = atol(argv[2])) < 1 || threads > MAX_THREADS || !atol(argv[3])) {
		fprintf(stderr, "usage: hammer u|k THREADS(1-%d) CALLS|-SECONDS\n", MAX_THREADS);
		return 2;
	}
	in_kernel = argv[1][0] == 'k';
	count = atol(argv[3]);
	ncpus = allowed_cpus(cpu, MAX_THREADS);
	if (!ncpus) {
		perror("hammer: sched_getaffinity");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	if (!fgets(go, sizeof(go), stdin))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	if (count < 0)
		deadline.tv_sec -= count;
	for (long i = 0; i < threads; i++) {
		struct worker *w = &workers[i];

		w->id = i + 1;
		w->cpu = cpu[i % ncpus];
		w->calls = count > 0 ? count : 0;
		memset(w->name, 't', 1);
		memset(w->name + 1, '0' + (char)w->id, (size_t)w->id);
		if (pthread_create(&w->thread, NULL, work, w)) {
			perror("hammer: pthread_create");
			return 1;
		}
	}
	for (long i = 0; i < threads; i++) {
		pthread_join(workers[i].thread, NULL);
		printf("calls %ld %ld\n", workers[i].id, workers[i].made);
		total += workers[i].made;
	}
	printf("total %ld\n", total);
	return 0;
}
