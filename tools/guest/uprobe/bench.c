// SPDX-License-Identifier: GPL-2.0
/*
 * The program tools/vm bench probes (kfork.guest_bench): ROUNDS rounds
 * of CALLS calls of kb_hit, and the best round's nanoseconds per call.
 * Without a probe that is the loop's own cost; with one, the loop's
 * cost plus one uprobe hit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* What the six-argument probes read: a chain, a bitfield, a string. */
struct kb_rec {
	long id;
	const char *name;
	unsigned int bits;
};

__attribute__((noinline)) long kb_hit(long a, struct kb_rec *rec, const char *s,
				      long d, long e, long f)
{
	__asm__ volatile("" : : "r"(rec), "r"(s) : "memory");
	return a + d + e + f;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	struct kb_rec rec = { 42, "record-name", 0x5a5a };
	long calls, rounds, i, r, sum = 0;
	long long best = -1;

	if (argc != 3)
		return 2;
	calls = atol(argv[1]);
	rounds = atol(argv[2]);
	if (calls <= 0 || rounds <= 0)
		return 2;
	for (r = 0; r < rounds; r++) {
		long long start = now_ns(), took;

		for (i = 0; i < calls; i++)
			sum += kb_hit(i, &rec, "a-string", 1, 2, 3);
		took = now_ns() - start;
		if (best < 0 || took < best)
			best = took;
	}
	printf("%.1f\n", (double)best / calls);
	/* sum = rounds * (calls * (calls - 1) / 2 + 6 * calls): never 0 */
	return sum == 0;
}
