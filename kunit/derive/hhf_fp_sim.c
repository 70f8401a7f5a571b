// SPDX-License-Identifier: GPL-2.0-only
/*
 * False positives of HHF's multi-stage filter on hhf_classify's
 * workload, by simulation: how many mice does a filter of a given
 * geometry take for heavy hitters, and does upstream's fourth stage,
 * derived from the other three by XOR, do worse than independent ones?
 *
 * Each trial: STAGES stages of COUNTERS 32-bit byte counters (four of
 * 1024 by default, upstream's), conservative update and shielding,
 * admit_bytes T = 131072; 100 elephants send 572 bytes and then
 * 1500-byte packets until they pass (leaving their counters at T), then
 * 10000 mice send one 64-byte packet each.  Flow hashes are uniform
 * 32-bit values, as siphash's are.
 *
 *	gcc -O2 -o /tmp/hhf_fp_sim kunit/derive/hhf_fp_sim.c
 *	/tmp/hhf_fp_sim 20000 [STAGES [COUNTERS]]	# trials per indexing;
 *							# about 30 s
 *
 * Measured on 2026-12-03 with 20000 trials (200 million mice each):
 * XOR 74.75 ppm, multiply-shift 75.64 ppm, fresh random indexes 74.86
 * ppm, each +-0.6 (one standard deviation); (1 - e^(-100/1024))^4 is
 * 75.3 ppm.  Independence does not lower the rate at this geometry.
 * On 2026-12-07, five stages of 1024 (the fork's): multiply-shift 7.07
 * ppm, random 6.97, each +-0.19; (1 - e^(-100/1024))^5 is 6.96 ppm.
 * Eight stages of 512 (2000 trials) let 0.75 ppm through, but fail the
 * many-flow load of kunit/derive/hhf_filter.py's conservative-update
 * simulation.  Chopping the 32-bit hash as upstream does cannot feed
 * more than three stages of 1024 and an XOR of them, so the XOR
 * indexing is only run at upstream's geometry.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STAGES	8
#define MAX_COUNTERS	2048
#define ADMIT	131072u

enum indexing { XOR_FOURTH, MULTIPLY_SHIFT, RANDOM, INDEXINGS };
static const char *const names[] = { "xor", "multiply-shift", "random" };

static uint32_t counters[MAX_STAGES][MAX_COUNTERS];
static unsigned int stages = 4, per_stage = 1024, stage_bits = 10;
static uint64_t state[2] = { 0x9e3779b97f4a7c15ull, 12345 };

static uint64_t next(void)		/* xorshift128+ */
{
	uint64_t s1 = state[0];
	const uint64_t s0 = state[1];

	state[0] = s0;
	s1 ^= s1 << 23;
	state[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
	return state[1] + s0;
}

static void slots(enum indexing how, uint32_t hash, const uint32_t *mul,
		  unsigned int *slot)
{
	int s;

	for (s = 0; s < stages; s++) {
		if (how == XOR_FOURTH)
			slot[s] = s < 3 ? (hash >> (stage_bits * s)) % per_stage :
				  (slot[0] ^ slot[1] ^ slot[2] ^ (hash >> 30)) %
				  per_stage;
		else if (how == MULTIPLY_SHIFT)
			slot[s] = (uint32_t)(hash * mul[s]) >> (32 - stage_bits);
		else
			slot[s] = next() % per_stage;
	}
}

/* One packet through the filter: 1 if the flow passes. */
static int packet(const unsigned int *slot, uint32_t len)
{
	uint64_t estimate;
	uint32_t least = UINT32_MAX;
	int s;

	for (s = 0; s < stages; s++)
		if (counters[s][slot[s]] < least)
			least = counters[s][slot[s]];
	estimate = (uint64_t)least + len;
	if (estimate > ADMIT)
		return 1;
	for (s = 0; s < stages; s++)
		if (counters[s][slot[s]] < estimate)
			counters[s][slot[s]] = estimate;
	return 0;
}

static long trial(enum indexing how)
{
	unsigned int slot[MAX_STAGES];
	uint32_t mul[MAX_STAGES];
	long passed = 0;
	int s, e, m;

	memset(counters, 0, sizeof(counters));
	for (s = 0; s < stages; s++)
		mul[s] = next() | 1;
	for (e = 0; e < 100; e++) {
		slots(how, next(), mul, slot);
		if (!packet(slot, 572))
			while (!packet(slot, 1500))
				;
	}
	for (m = 0; m < 10000; m++) {
		slots(how, next(), mul, slot);
		passed += packet(slot, 64);
	}
	return passed;
}

int main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 1000, t;
	enum indexing how;

	if (argc > 2)
		stages = atoi(argv[2]);
	if (argc > 3)
		per_stage = atoi(argv[3]);
	for (stage_bits = 0; (1u << stage_bits) < per_stage; stage_bits++)
		;
	if (stages < 1 || stages > MAX_STAGES || per_stage > MAX_COUNTERS ||
	    (1u << stage_bits) != per_stage) {
		fprintf(stderr, "usage: %s TRIALS [STAGES (1-%d) [COUNTERS (a power of two, at most %d)]]\n",
			argv[0], MAX_STAGES, MAX_COUNTERS);
		return 2;
	}
	/* upstream's XOR indexing is four stages of 1024 only */
	how = stages == 4 && per_stage == 1024 ? XOR_FOURTH : MULTIPLY_SHIFT;
	for (; how < INDEXINGS; how++) {
		long passed = 0;

		for (t = 0; t < trials; t++)
			passed += trial(how);
		printf("%u x %-5u %-15s %ld of %ld mice passed: %.2f ppm\n", stages,
		       per_stage, names[how], passed, trials * 10000L,
		       passed * 1e6 / (trials * 10000.0));
	}
	return 0;
}
