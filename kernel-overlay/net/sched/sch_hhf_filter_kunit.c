// SPDX-License-Identifier: GPL-2.0-only
/*
 * White-box KUnit suite for HHF's filter: sch_hhf.c includes this file,
 * so the suite calls the filter's static functions directly, with flow
 * hashes, packet lengths and times of its choosing, and reads the
 * counters themselves.  The fork's sch_hhf.c only: the distro's has no
 * such seam (hhf_classify and hhf_qdisc test both through the qdisc).
 *
 * Expected values come from the algorithm as Estan and Varghese state it
 * ("New Directions in Traffic Measurement and Accounting", SIGCOMM 2002)
 * and the derivations in the comments; the statistical limit from
 * kunit/derive/hhf_filter.py --suite hhf_filter.
 */

#include <kunit/kfork_fs_kunit.h>
#include <kunit/test.h>
#include <linux/prandom.h>

/* BEGIN derived by kunit/derive/hhf_filter.py */
#define FILTER_FP_TRIALS	100
#define FILTER_FP_MAX_PASSED	33	/* mean at most 11.3 */
#define FILTER_BASE		0x10000
static const u32 filter_muls[HHF_STAGES] = {
	0x9e3779b1, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f, 0x165667b1,
};

static const u32 filter_partners[HHF_STAGES] = {
	0x103db, 0x105be, 0x108fd, 0x10bb3, 0x10d9c,
};

/* END derived */

#define FILTER_ADMIT	10000	/* bytes; 1000-byte packets: the 11th passes */
#define FILTER_RESET	40	/* jiffies */
#define FILTER_EVICT	1000	/* jiffies */
#define FILTER_T0	5000	/* the period's start, in jiffies */

static struct hhf_filter *filter_of(struct kunit *test)
{
	return test->priv;
}

/*
 * The filter's per-packet functions are __always_inline.  The suite
 * calls each through one out-of-line copy, so that there are two copies
 * (this and hhf_enqueue()'s), not one per call: the coverage of each
 * is then what the suite and the qdisc's tests make of it.
 */
static noinline bool filter_heavy(struct hhf_filter *f, u32 hash, u32 len, u32 now)
{
	return hhf_filter_heavy(f, hash, len, now);
}

static noinline u32 filter_slot(const struct hhf_filter *f, u32 hash, int stage)
{
	return hhf_slot(f, hash, stage);
}

/* The counter of @hash in @stage, as the filter reads it now: bytes. */
static noinline u32 filter_counter(struct kunit *test, u32 hash, int stage)
{
	struct hhf_filter *f = filter_of(test);

	return *hhf_counter(f, f->fresh, stage, filter_slot(f, hash, stage));
}

/* Packets of @len bytes of @hash at @now until one is heavy: how many. */
static u32 filter_packets_to_heavy(struct kunit *test, u32 hash, u32 len, u32 now, u32 most)
{
	u32 n;

	for (n = 1; n <= most; n++)
		if (filter_heavy(filter_of(test), hash, len, now))
			return n;
	return 0;
}

/* Whether the flows @a and @b share no counter in any stage. */
static bool filter_apart(struct kunit *test, u32 a, u32 b)
{
	struct hhf_filter *f = filter_of(test);
	int stage;

	for (stage = 0; stage < HHF_STAGES; stage++)
		if (filter_slot(f, a, stage) == filter_slot(f, b, stage))
			return false;
	return true;
}

/*
 * No false negatives, and no early passes: a flow alone in the filter
 * leaves all its counters at its bytes so far (each packet's estimate is
 * the smallest counter plus the packet, and the counters are raised to
 * it), so packet k of len bytes passes when k * len > admit_bytes, with
 * packet floor(admit_bytes / len) + 1, as upstream's filter passes it.
 * Upstream adds in 32 bits: if that packet's sum is past U32_MAX it
 * wraps, and the flow never passes.
 *
 *   admit 131072: 43 bytes, 131072 / 43 = 3048.2, the 3049th; 64 bytes,
 *     exactly 2048 packets are admit_bytes itself, the 2049th; 1 byte,
 *     the 131073rd.
 *   admit 10^7: 64 bytes, 156250 packets are exactly 10^7, the 156251st.
 *   admit 65536: 3 bytes, 21845 * 3 = 65535, the 21846th.
 *   admit 0: the first byte.
 *   admit U32_MAX: 65535 * 65537 = 2^32 - 1 is U32_MAX itself, and the
 *     65538th packet's sum wraps to 65534: never, as upstream.
 */
struct filter_first_case {
	const char *name;
	u32 admit, len, heavy_at;	/* heavy_at 0: not within tried */
	u32 tried;
};

static const struct filter_first_case filter_first_cases[] = {
	{ "1000-byte packets, admit 10000", 10000, 1000, 11, 11 },
	{ "1500-byte packets, admit 10000", 10000, 1500, 7, 7 },
	{ "43-byte packets, admit 131072", 131072, 43, 3049, 3049 },
	{ "64-byte packets, admit 131072", 131072, 64, 2049, 2049 },
	{ "572-byte packets, admit 131072", 131072, 572, 230, 230 },
	{ "1-byte packets, admit 131072", 131072, 1, 131073, 131073 },
	{ "64-byte packets, admit 10^7", 10000000, 64, 156251, 156251 },
	{ "3-byte packets, admit 65536", 65536, 3, 21846, 21846 },
	{ "one byte, admit 0", 0, 1, 1, 1 },
	{ "65535-byte packets, admit U32_MAX", U32_MAX, 65535, 0, 65540 },
};

static void filter_first_case_desc(const struct filter_first_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(filter_first, filter_first_cases, filter_first_case_desc);

static void filter_heavy_exactly_past_admit(struct kunit *test)
{
	const struct filter_first_case *c = test->param_value;
	struct hhf_filter *f = filter_of(test);
	bool heavy = c->heavy_at;

	f->admit_bytes = c->admit;
	KUNIT_EXPECT_EQ(test, filter_packets_to_heavy(test, 1, c->len, FILTER_T0, c->tried),
			c->heavy_at);
	KUNIT_EXPECT_EQ(test, f->hh_total, (u32)heavy);
	KUNIT_EXPECT_EQ(test, f->hh_current, (u32)heavy);
	/* from the table now, whatever the size; or still a mouse */
	KUNIT_EXPECT_EQ(test, filter_heavy(f, 1, 1, FILTER_T0), heavy);
}

/*
 * The sum wraps as upstream's does, and a wrapped sum raises nothing: a
 * flow's counters at 1, a packet of U32_MAX bytes sums to 2^32, which is
 * 0 in 32 bits and no more than admit_bytes, so it is a mouse's and the
 * counters stay at 1.  9999 bytes more bring them to FILTER_ADMIT itself
 * and one byte past it passes.  A sum in 64 bits, or one saturating at
 * U32_MAX, would have passed the big packet.
 */
static void filter_sum_wraps_as_upstream(struct kunit *test)
{
	struct hhf_filter *f = filter_of(test);
	int stage;

	KUNIT_ASSERT_FALSE(test, filter_heavy(f, 2, 1, FILTER_T0));
	KUNIT_EXPECT_FALSE(test, filter_heavy(f, 2, U32_MAX, FILTER_T0));
	for (stage = 0; stage < HHF_STAGES; stage++)
		KUNIT_EXPECT_EQ(test, filter_counter(test, 2, stage), 1U);
	KUNIT_EXPECT_FALSE(test, filter_heavy(f, 2, 9999, FILTER_T0));
	KUNIT_EXPECT_TRUE(test, filter_heavy(f, 2, 1, FILTER_T0));
}

/*
 * A new admit_bytes applies to the bytes already counted, as upstream
 * applies it: the period goes on.  A flow has 5000 bytes counted at
 * FILTER_ADMIT.  Raised to 131072, 1000-byte packets pass with the
 * 127th (5000 + 127000 = 132000 > 131072; 131000 is not); lowered to
 * 3000, the next packet passes (6000).  Counting again from zero would
 * take the 132nd and the 4th.
 */
struct filter_admit_case {
	const char *name;
	u32 admit, heavy_at;
};

static const struct filter_admit_case filter_admit_cases[] = {
	{ "raised to 131072", 131072, 127 },
	{ "lowered to 3000", 3000, 1 },
};

static void filter_admit_case_desc(const struct filter_admit_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(filter_admit, filter_admit_cases, filter_admit_case_desc);

static void filter_admit_change_keeps_counts(struct kunit *test)
{
	const struct filter_admit_case *c = test->param_value;
	struct hhf_filter *f = filter_of(test);
	int i;

	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_FALSE(test, filter_heavy(f, 4, 1000, FILTER_T0));
	f->admit_bytes = c->admit;
	KUNIT_EXPECT_EQ(test, filter_packets_to_heavy(test, 4, 1000, FILTER_T0 + 1, 200),
			c->heavy_at);
}

/* The stages, a case each. */
static const int filter_stages[HHF_STAGES] = { 0, 1, 2, 3, 4 };

static void filter_stage_desc(const int *stage, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "stage %d", *stage);
}

KUNIT_ARRAY_PARAM(filter_stage, filter_stages, filter_stage_desc);

/* FILTER_BASE's partner in @stage meets it there and in no other stage. */
static void filter_assert_partner(struct kunit *test, int stage)
{
	struct hhf_filter *f = filter_of(test);
	u32 partner = filter_partners[stage];
	int t;

	for (t = 0; t < HHF_STAGES; t++)
		KUNIT_ASSERT_EQ(test, filter_slot(f, FILTER_BASE, t) == filter_slot(f, partner, t),
				t == stage);
}

/* @packets packets of @len bytes of @hash, each a mouse's. */
static void filter_send(struct kunit *test, u32 hash, u32 len, u32 packets)
{
	while (packets--)
		KUNIT_ASSERT_FALSE(test, filter_heavy(filter_of(test), hash, len, FILTER_T0));
}

/*
 * Conservative update, in each stage s: a (FILTER_BASE) and b (its
 * partner in s) share their stage-s counter only.  a sends 3000 bytes:
 * its five counters hold 3000.  b's packet of 100 bytes is estimated at
 * its smallest counter plus the packet, 0 + 100, so it raises its own
 * four counters to 100 and leaves the shared one at 3000: adding the
 * packet to every counter would make it 3100.  a's next estimate is
 * still its own bytes: 3000 + 7000 = 10000 is not above admit_bytes,
 * 11000 is, with the 8th packet of 1000.
 */
static void filter_conservative_update(struct kunit *test)
{
	const int s = *(const int *)test->param_value;
	u32 a = FILTER_BASE, b = filter_partners[s];
	int t;

	filter_assert_partner(test, s);
	filter_send(test, a, 1000, 3);
	filter_send(test, b, 100, 1);
	for (t = 0; t < HHF_STAGES; t++) {
		KUNIT_EXPECT_EQ(test, filter_counter(test, a, t), 3000U);
		if (t != s)
			KUNIT_EXPECT_EQ(test, filter_counter(test, b, t), 100U);
	}
	KUNIT_EXPECT_EQ(test, filter_packets_to_heavy(test, a, 1000, FILTER_T0, 20), 8U);
}

/*
 * Every stage counts in the estimate: a flow whose stage-s counter is
 * its smallest is estimated from that one.  The partners of a
 * (FILTER_BASE) in the other stages send 3000 bytes each; each meets a
 * in its own stage only and no other partner anywhere, so a's counters
 * hold 3000 in those four stages and 0 in s.  a's packet of 100 bytes
 * is estimated at 0 + 100: stage s rises to 100, the others stay at
 * 3000 (an estimate that left s out would be 3100, and raise all five).
 * a then passes on its own bytes: 100 + 9 * 1000 = 9100 is not above
 * admit_bytes, 10100 is, with the 10th packet of 1000.
 */
static void filter_estimate_takes_every_stage(struct kunit *test)
{
	const int s = *(const int *)test->param_value;
	u32 a = FILTER_BASE;
	int t;

	for (t = 0; t < HHF_STAGES; t++) {
		filter_assert_partner(test, t);
		if (t != s)
			filter_send(test, filter_partners[t], 1000, 3);
	}
	filter_send(test, a, 100, 1);
	for (t = 0; t < HHF_STAGES; t++)
		KUNIT_EXPECT_EQ(test, filter_counter(test, a, t), t == s ? 100U : 3000U);
	KUNIT_EXPECT_EQ(test, filter_packets_to_heavy(test, a, 1000, FILTER_T0, 20), 10U);
}

/*
 * Shielding: a heavy hitter's packets no longer reach the counters.  The
 * flow's counters hold 10000 after its first ten packets; the eleventh
 * passes and 50 more follow: the counters stay at 10000.
 */
static void filter_shields_heavy_hitters(struct kunit *test)
{
	struct hhf_filter *f = filter_of(test);
	int stage, i;

	KUNIT_ASSERT_EQ(test, filter_packets_to_heavy(test, 7, 1000, FILTER_T0, 20), 11U);
	for (i = 0; i < 50; i++)
		KUNIT_ASSERT_TRUE(test, filter_heavy(f, 7, 1000, FILTER_T0));
	for (stage = 0; stage < HHF_STAGES; stage++)
		KUNIT_EXPECT_EQ(test, filter_counter(test, 7, stage), (u32)FILTER_ADMIT);
}

/*
 * The counters last reset_timeout jiffies: a flow at admit_bytes passes
 * with one more byte at the period's last jiffy, and not one jiffy
 * later, when the counters read zero again.  The stamps are 32-bit
 * jiffies, so the same holds across their wrap.
 */
struct filter_period_case {
	const char *name;
	u32 start, later;
	bool heavy;
};

static const struct filter_period_case filter_period_cases[] = {
	{ "the period's last jiffy", FILTER_T0, FILTER_RESET, true },
	{ "one jiffy past the period", FILTER_T0, FILTER_RESET + 1, false },
	{ "last jiffy, across the wrap", U32_MAX - 10, FILTER_RESET, true },
	{ "one past, across the wrap", U32_MAX - 10, FILTER_RESET + 1, false },
	{ "2^31 jiffies later", FILTER_T0, 0x80000000, false },
};

static void filter_period_case_desc(const struct filter_period_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(filter_period, filter_period_cases, filter_period_case_desc);

static void filter_counters_last_one_period(struct kunit *test)
{
	const struct filter_period_case *c = test->param_value;
	struct hhf_filter *f = filter_of(test);
	int i;

	hhf_filter_clear(f, c->start);
	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_FALSE(test, filter_heavy(f, 3, 1000, c->start));
	KUNIT_EXPECT_EQ(test, filter_heavy(f, 3, 1, c->start + c->later), c->heavy);
}

/*
 * The first period starts when the filter is allocated, not at time 0:
 * jiffies start 300 s before their 32-bit wrap (INITIAL_JIFFIES), where
 * a period taken to start at 0 would not end for five minutes.  Flows
 * 0x100 and 0x200, apart in every stage, each bring 10000 bytes at the
 * start: one more byte of the first is heavy at the period's last jiffy,
 * of the second one jiffy later is not.
 */
static void filter_period_starts_at_alloc(struct kunit *test)
{
	struct hhf_filter *f = filter_of(test);
	u32 boot = (u32)INITIAL_JIFFIES;
	int i;

	hhf_filter_free(f);
	KUNIT_ASSERT_EQ(test, hhf_filter_alloc(f, boot), 0);
	memcpy(f->stage_mul, filter_muls, sizeof(filter_muls));
	KUNIT_ASSERT_TRUE(test, filter_apart(test, 0x100, 0x200));
	for (i = 0; i < 10; i++) {
		KUNIT_ASSERT_FALSE(test, filter_heavy(f, 0x100, 1000, boot));
		KUNIT_ASSERT_FALSE(test, filter_heavy(f, 0x200, 1000, boot));
	}
	KUNIT_EXPECT_TRUE(test, filter_heavy(f, 0x100, 1, boot + FILTER_RESET));
	KUNIT_EXPECT_FALSE(test, filter_heavy(f, 0x200, 1, boot + FILTER_RESET + 1));
}

/*
 * A filter as hhf_filter_alloc() leaves it, with its own multipliers:
 * each odd (an even one loses the hash's top bit), and no two alike (two
 * alike would be one stage counted twice; the chance that random ones
 * are is 10 in 2^31).  It counts from the start: at 131072, 64-byte
 * packets pass with the 2049th, as in filter_heavy_exactly_past_admit.
 */
static void filter_alloc_stages(struct kunit *test)
{
	struct hhf_filter *f = filter_of(test);
	int i, j;

	/* again, from the zeroes of a new qdisc's private area */
	hhf_filter_free(f);
	memset(f->stage_mul, 0, sizeof(f->stage_mul));
	f->admit_bytes = 131072;
	KUNIT_ASSERT_EQ(test, hhf_filter_alloc(f, FILTER_T0), 0);
	for (i = 0; i < HHF_STAGES; i++) {
		KUNIT_EXPECT_TRUE(test, f->stage_mul[i] & 1);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, f->stage_mul[i], f->stage_mul[j]);
	}
	KUNIT_EXPECT_EQ(test, filter_packets_to_heavy(test, 1, 64, FILTER_T0, 2049), 2049U);
}

/*
 * Eviction: a heavy hitter silent for more than evict_timeout leaves the
 * table when a packet's lookup meets it.  Seen at t, it is still there
 * at t + evict_timeout (and seen again); at t + 2 * evict_timeout + 1
 * it is gone, and as the counters were cleared meanwhile, its packet
 * goes through the filter and is not heavy.  The total stays.
 */
static void filter_evicts_idle(struct kunit *test)
{
	struct hhf_filter *f = filter_of(test);
	u32 t = FILTER_T0;

	KUNIT_ASSERT_EQ(test, filter_packets_to_heavy(test, 9, 1000, t, 20), 11U);
	KUNIT_EXPECT_TRUE(test, filter_heavy(f, 9, 1000, t + FILTER_EVICT));
	KUNIT_EXPECT_EQ(test, f->hh_current, 1U);
	KUNIT_EXPECT_FALSE(test, filter_heavy(f, 9, 1000, t + 2 * FILTER_EVICT + 1));
	KUNIT_EXPECT_EQ(test, f->hh_current, 0U);
	KUNIT_EXPECT_EQ(test, f->hh_total, 1U);
}

/*
 * Eviction is lazy: only a lookup that walks the idle flow's chain of
 * the table evicts it.  Chains are chosen by the hash's low bits, so
 * flows 0x101 and 0x100 have chains of their own: a packet of 0x100
 * long after 0x101 went idle leaves 0x101 counted, until a packet of
 * its own.
 */
static void filter_evicts_only_its_chain(struct kunit *test)
{
	struct hhf_filter *f = filter_of(test);
	u32 t = FILTER_T0 + 2 * FILTER_EVICT + 1;

	KUNIT_ASSERT_EQ(test, filter_packets_to_heavy(test, 0x101, 1000, FILTER_T0, 20), 11U);
	KUNIT_EXPECT_FALSE(test, filter_heavy(f, 0x100, 1000, t));
	KUNIT_EXPECT_EQ(test, f->hh_current, 1U);
	KUNIT_EXPECT_FALSE(test, filter_heavy(f, 0x101, 1000, t));
	KUNIT_EXPECT_EQ(test, f->hh_current, 0U);
}

/*
 * At most hh_limit heavy hitters.  With a limit of 2, three flows apart
 * in every stage (asserted) each pass with their 11th packet; the third
 * finds the table full.  It is not counted either, so each of its
 * packets from the 11th on passes again and is refused again: 15
 * packets make hh_overlimit 5, none of them heavy.
 */
static void filter_hh_limit_caps_table(struct kunit *test)
{
	struct hhf_filter *f = filter_of(test);
	u32 flows[] = { 0x100, 0x200, 0x300 };
	int i;

	KUNIT_ASSERT_TRUE(test, filter_apart(test, flows[0], flows[1]));
	KUNIT_ASSERT_TRUE(test, filter_apart(test, flows[0], flows[2]));
	KUNIT_ASSERT_TRUE(test, filter_apart(test, flows[1], flows[2]));
	f->hh_limit = 2;
	KUNIT_EXPECT_EQ(test, filter_packets_to_heavy(test, flows[0], 1000, FILTER_T0, 20), 11U);
	KUNIT_EXPECT_EQ(test, filter_packets_to_heavy(test, flows[1], 1000, FILTER_T0, 20), 11U);
	for (i = 0; i < 15; i++)
		KUNIT_EXPECT_FALSE(test, filter_heavy(f, flows[2], 1000, FILTER_T0));
	KUNIT_EXPECT_EQ(test, f->hh_overlimit, 5U);
	KUNIT_EXPECT_EQ(test, f->hh_current, 2U);
	KUNIT_EXPECT_EQ(test, f->hh_total, 2U);
}

/*
 * hhf_filter_reset (the qdisc's reset): heavy hitters and counters go,
 * the totals stay.  A flow that was heavy needs its eleven packets
 * again.
 */
static void filter_reset_keeps_totals(struct kunit *test)
{
	struct hhf_filter *f = filter_of(test);

	KUNIT_ASSERT_EQ(test, filter_packets_to_heavy(test, 5, 1000, FILTER_T0, 20), 11U);
	hhf_filter_reset(f, FILTER_T0 + 1);
	KUNIT_EXPECT_EQ(test, f->hh_current, 0U);
	KUNIT_EXPECT_EQ(test, f->hh_total, 1U);
	KUNIT_EXPECT_EQ(test, filter_counter(test, 5, 0), 0U);
	KUNIT_EXPECT_EQ(test, filter_packets_to_heavy(test, 5, 1000, FILTER_T0 + 1, 20), 11U);
	KUNIT_EXPECT_EQ(test, f->hh_total, 2U);
}

/*
 * The false-positive rate, measured on the filter alone: the workload
 * of hhf_classify's test, 100 elephants that each pass with their last
 * packet (572 + 87 * 1500 = 131072 bytes, the threshold itself, then
 * 1500 more) and 10000 mice of one 64-byte packet, at the default
 * admit_bytes, FILTER_FP_TRIALS times with fresh multipliers.  Estan
 * and Varghese bound the chance that a mouse passes by
 * (C / ((T - s) b))^d = (13747200 / (131008 * 1024))^5 = 1.1e-5; the
 * filter meeting it passes more than FILTER_FP_MAX_PASSED of the
 * million mice with probability below 1e-6 (Chernoff).  The keys are
 * distinct numbers, as multiply-shift hashing asks; a filter whose
 * stages were not independent would pass thousands.
 */
static void filter_false_positive_rate(struct kunit *test)
{
	struct hhf_filter *f = filter_of(test);
	struct rnd_state rnd;
	u32 passed = 0, flow;
	int trial, stage, i;

	prandom_seed_state(&rnd, 0x686866);
	f->admit_bytes = 131072;
	for (trial = 0; trial < FILTER_FP_TRIALS; trial++) {
		hhf_filter_reset(f, FILTER_T0);
		f->hh_total = 0;
		for (stage = 0; stage < HHF_STAGES; stage++)
			f->stage_mul[stage] = prandom_u32_state(&rnd) | 1;
		/* an elephant meeting others may pass early; by its last, it has */
		for (flow = 1; flow <= 100; flow++) {
			filter_heavy(f, flow, 572, FILTER_T0);
			for (i = 0; i < 87; i++)
				filter_heavy(f, flow, 1500, FILTER_T0);
			KUNIT_ASSERT_TRUE(test, filter_heavy(f, flow, 1500, FILTER_T0));
		}
		KUNIT_ASSERT_EQ(test, f->hh_total, 100U);
		for (flow = 1000; flow < 11000; flow++)
			passed += filter_heavy(f, flow, 64, FILTER_T0);
		cond_resched();
	}
	kunit_info(test, "%u of %u mice passed\n", passed, FILTER_FP_TRIALS * 10000);
	KUNIT_EXPECT_LE(test, passed, (u32)FILTER_FP_MAX_PASSED);
}

/*
 * The suite's last case: hhf_filter_free() frees everything, heavy
 * hitters included, and so did the cases before it.  Three flows made
 * heavy in a filter of this case's own; then kmemleak (a boot with it
 * on: tools/kunit run --kmemleak; skipped without) finds nothing.
 * kmemleak missed heavy hitters left in the table (tools/mutate deleted
 * the hhf_table_clear() call): some pointer still reaches small objects
 * like them, likely one left in a dead frame of a test thread's stack,
 * which it scans whole.  So each must also have been forgotten one by
 * one, as hh_current counts.
 */
static void filter_free_leaves_nothing(struct kunit *test)
{
	struct hhf_filter *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct kfork_test_fs *fs = kunit_kzalloc(test, sizeof(*fs), GFP_KERNEL);
	u32 flow;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, fs);
	kfork_test_fs_buffers(test, fs);
	kfork_test_kmemleak_begin(test, fs);
	f->hh_limit = HHF_HH_LIMIT_MAX;
	f->reset_timeout = FILTER_RESET;
	f->admit_bytes = FILTER_ADMIT;
	f->evict_timeout = FILTER_EVICT;
	KUNIT_ASSERT_EQ(test, hhf_filter_alloc(f, FILTER_T0), 0);
	for (flow = 1; flow <= 3; flow++)
		for (i = 0; i < 11; i++)
			filter_heavy(f, flow, 1000, FILTER_T0);
	KUNIT_EXPECT_EQ(test, f->hh_current, 3U);
	hhf_filter_free(f);
	KUNIT_EXPECT_EQ(test, f->hh_current, 0U);
	kfork_test_expect_no_leaks(test, fs);
}

/* A filter of the test's own, with the fixed multipliers, at FILTER_T0. */
static int filter_test_init(struct kunit *test)
{
	struct hhf_filter *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int err;

	if (!f)
		return -ENOMEM;
	test->priv = f;
	f->hh_limit = HHF_HH_LIMIT_MAX;
	f->reset_timeout = FILTER_RESET;
	f->admit_bytes = FILTER_ADMIT;
	f->evict_timeout = FILTER_EVICT;
	err = hhf_filter_alloc(f, FILTER_T0);
	memcpy(f->stage_mul, filter_muls, sizeof(filter_muls));
	return err;
}

static void filter_test_exit(struct kunit *test)
{
	hhf_filter_free(filter_of(test));
}

static struct kunit_case filter_test_cases[] = {
	KUNIT_CASE_PARAM(filter_heavy_exactly_past_admit, filter_first_gen_params),
	KUNIT_CASE(filter_sum_wraps_as_upstream),
	KUNIT_CASE_PARAM(filter_admit_change_keeps_counts, filter_admit_gen_params),
	KUNIT_CASE_PARAM(filter_conservative_update, filter_stage_gen_params),
	KUNIT_CASE_PARAM(filter_estimate_takes_every_stage, filter_stage_gen_params),
	KUNIT_CASE(filter_shields_heavy_hitters),
	KUNIT_CASE_PARAM(filter_counters_last_one_period, filter_period_gen_params),
	KUNIT_CASE(filter_period_starts_at_alloc),
	KUNIT_CASE(filter_alloc_stages),
	KUNIT_CASE(filter_evicts_idle),
	KUNIT_CASE(filter_evicts_only_its_chain),
	KUNIT_CASE(filter_hh_limit_caps_table),
	KUNIT_CASE(filter_reset_keeps_totals),
	KUNIT_CASE(filter_false_positive_rate),
	KUNIT_CASE(filter_free_leaves_nothing),
	{}
};

static struct kunit_suite filter_test_suite = {
	.name = "hhf_filter",
	.init = filter_test_init,
	.exit = filter_test_exit,
	.test_cases = filter_test_cases,
};

kunit_test_suite(filter_test_suite);
