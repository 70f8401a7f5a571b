// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for HHF's heavy-hitter classification, seen from outside
 * as tc sees it: packets of synthetic UDP flows go through the qdisc's
 * ops, and what the filter decided shows in struct tc_hhf_xstats (a new
 * heavy hitter adds one to hh_tot_count) and in the order packets
 * leave (heavy hitters wait in their own bucket).  The flow hash is
 * keyed by a random perturbation on both implementations, so no test
 * depends on where a flow lands: they test properties that hold for
 * every key (no false negatives, shielding, the counters' reset, the
 * WDRR shares), or bound a rate over many flows with a stated margin.
 *
 * Expected values come from Estan and Varghese, "New Directions in
 * Traffic Measurement and Accounting" (SIGCOMM 2002), the seed commit's
 * description of HHF and the derivations in the comments.
 */

#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>

#include "sch_qdisc_kunit.h"

/*
 * The sizes make check runs (tools/kunit --full): without it,
 * hhf_classify_no_false_negatives runs one of its three mixes, the
 * marked hhf_classify_fewer_false_positives, whose 800,000 mice take
 * 40 s of TCG, is skipped, and so are the rows of
 * hhf_classify_exact_counting that first send gigabytes.  The fork's
 * hhf_filter suite measures that rate over a million mice through the
 * filter alone in 2 s, every run.
 */
static bool full;
module_param(full, bool, 0444);
MODULE_PARM_DESC(full, "hhf_classify at full size: three mixes without false negatives, 800,000 mice, every exact-counting row");

#define ADMIT_SMALL	10000	/* bytes; 1000-byte packets: the 11th passes */
#define LONG_USECS	60000000	/* 60 s: no reset or eviction mid-test */

/* The limits of the statistical tests, explained where they are used. */
/* BEGIN derived by kunit/derive/hhf_filter.py */
#define FP_TRIALS		5
#define FP_BOUND_PPM		111	/* 0.0001103 per mouse */
#define FP_MAX_PASSED		21	/* mean at most 5.5 */
#define FP_FORK_TRIALS		80
#define FP_FORK_MAX_PASSED	28	/* mean at most 9.0; upstream: about 60, P(<= 28) = 3e-06 */
#define CU_PLAIN_FEWEST		2486	/* 20 seeds, 4 x 1024 and 5 x 1024 counters */
#define CU_PLAIN_MOST		2837
#define CU_CONSERVATIVE_MOST	0
/* END derived */

static struct tc_hhf_xstats hhf_stats(struct kunit *test)
{
	struct tc_hhf_xstats st;

	qdisc_test_xstats(test, &st, sizeof(st));
	return st;
}

static u32 hhf_total(struct kunit *test)
{
	return hhf_stats(test).hh_tot_count;
}

/* The queue is empty and no bucket is on a round-robin list. */
static void hhf_expect_idle(struct kunit *test)
{
	KUNIT_ASSERT_NULL(test, qdisc_test_dequeue(test));
	KUNIT_ASSERT_EQ(test, qdisc_test_sch(test)->q.qlen, 0);
}

/* skb through the qdisc and out again, leaving it idle. */
static void hhf_pass_skb(struct kunit *test, struct sk_buff *skb)
{
	KUNIT_ASSERT_EQ(test, qdisc_test_enqueue(test, skb), NET_XMIT_SUCCESS);
	KUNIT_ASSERT_PTR_EQ(test, qdisc_test_dequeue(test), skb);
	hhf_expect_idle(test);
}

/* A packet of flow through the qdisc; true if it made a new heavy hitter. */
static bool hhf_pass_admits(struct kunit *test, u32 flow, u32 len)
{
	struct sk_buff *skb = qdisc_test_udp(test, flow, len, 0);
	u32 before = hhf_total(test);

	hhf_pass_skb(test, skb);
	kfree_skb(skb);
	return hhf_total(test) != before;
}

/* n packets of flow: at which one (1..n) it was admitted, 0 if none. */
static int hhf_admitted_at(struct kunit *test, u32 flow, int n, u32 len)
{
	int i, at = 0;

	for (i = 1; i <= n; i++)
		if (hhf_pass_admits(test, flow, len) && !at)
			at = i;
	return at;
}

/*
 * Whether a packet of flow goes to the heavy hitters' bucket, from an
 * idle qdisc.  A probe packet of a new flow follows it.  The bucket of
 * other flows joins the new list and is served first; the heavy
 * hitters' bucket joins the old list.  So the probe leaves first
 * exactly when the two packets are in different buckets, and a new
 * flow of one small packet is never a heavy hitter here.
 */
static bool hhf_goes_heavy(struct kunit *test, u32 flow, u32 len, u32 probe_flow)
{
	struct sk_buff *mine = qdisc_test_udp(test, flow, len, 0);
	struct sk_buff *probe = qdisc_test_udp(test, probe_flow, 64, 0);
	struct sk_buff *first, *second;

	KUNIT_ASSERT_EQ(test, qdisc_test_enqueue(test, mine), NET_XMIT_SUCCESS);
	KUNIT_ASSERT_EQ(test, qdisc_test_enqueue(test, probe), NET_XMIT_SUCCESS);
	first = qdisc_test_dequeue(test);
	second = qdisc_test_dequeue(test);
	hhf_expect_idle(test);
	kfree_skb(first);
	kfree_skb(second);
	KUNIT_ASSERT_TRUE(test, first == mine || first == probe);
	KUNIT_ASSERT_TRUE(test, second == (first == mine ? probe : mine));
	return first == probe;
}

static void hhf_create(struct kunit *test, u32 admit, u32 reset_us, u32 evict_us)
{
	const struct qdisc_test_attr attrs[] = {
		{ TCA_HHF_ADMIT_BYTES, admit },
		{ TCA_HHF_RESET_TIMEOUT, reset_us },
		{ TCA_HHF_EVICT_TIMEOUT, evict_us },
	};

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, attrs, ARRAY_SIZE(attrs)), 0);
}

static void hhf_set(struct kunit *test, int type, u32 value)
{
	const struct qdisc_test_attr attr = { type, value };

	KUNIT_ASSERT_EQ(test, qdisc_test_change(test, &attr, 1), 0);
}

/*
 * No false negatives: a flow whose bytes in one period pass admit_bytes
 * is a heavy hitter by that packet at the latest.  Each of the flow's
 * counters holds at least its earlier bytes (they were raised to at
 * least the flow's running estimate), so with this packet every one of
 * them passes.  Randomized mixes: elephants of random packet sizes
 * until they pass, interleaved with one to three packet mice.
 */
static void hhf_classify_no_false_negatives(struct kunit *test)
{
	const u32 admit = 20000;
	struct rnd_state rnd;
	int seed;

	for (seed = 1; seed <= (full ? 3 : 1); seed++) {
		u32 elephants, mice, flows, sent = 0, f, total = 0, now;
		u32 *bytes, *left;
		bool *admitted;

		prandom_seed_state(&rnd, seed);
		elephants = 20 + prandom_u32_state(&rnd) % 41;
		mice = 500 + prandom_u32_state(&rnd) % 1001;
		flows = elephants + mice;
		bytes = kunit_kcalloc(test, flows, sizeof(*bytes), GFP_KERNEL);
		left = kunit_kcalloc(test, flows, sizeof(*left), GFP_KERNEL);
		admitted = kunit_kcalloc(test, flows, sizeof(*admitted), GFP_KERNEL);
		KUNIT_ASSERT_TRUE(test, bytes && left && admitted);
		for (f = 0; f < flows; f++)	/* packets still to send */
			left[f] = f < elephants ? U32_MAX : 1 + prandom_u32_state(&rnd) % 3;

		hhf_create(test, admit, LONG_USECS, LONG_USECS);
		while (sent < flows) {
			u32 len = 64 + prandom_u32_state(&rnd) % (1500 - 64 + 1);

			f = prandom_u32_state(&rnd) % flows;
			if (!left[f])
				continue;
			bytes[f] += len;
			if (hhf_pass_admits(test, seed << 24 | f, len)) {
				KUNIT_EXPECT_FALSE(test, admitted[f]);
				admitted[f] = true;
				total++;
			}
			KUNIT_EXPECT_TRUE_MSG(test, admitted[f] || bytes[f] <= admit,
					      "seed %d flow %u sent %u bytes and is not a heavy hitter",
					      seed, f, bytes[f]);
			/* An elephant stops once it passed admit_bytes. */
			if (f < elephants ? bytes[f] > admit : !--left[f]) {
				left[f] = 0;
				sent++;
			}
		}
		now = hhf_total(test);
		KUNIT_EXPECT_EQ(test, now, total);
		for (f = 0; f < elephants; f++)
			KUNIT_EXPECT_TRUE(test, admitted[f]);
	}
}

/*
 * Exact counting: a flow alone in the filter becomes a heavy hitter with
 * the first packet that takes its bytes in the period past admit_bytes,
 * counted as upstream counts them: each counter plus the packet's
 * length, in 32 bits.  So a flow of L-byte packets passes with packet
 * floor(admit_bytes / L) + 1, unless that packet's sum is past U32_MAX:
 * then it wraps, and the flow never passes.  The rows cross the lengths
 * 1, 43, 1001, 1500, 9000 and 65535 with admit_bytes 1, 3000, 131072,
 * 10^7 and U32_MAX (kunit/derive/hhf_exact.py, which runs upstream's
 * rule packet by packet and checks it against that formula).  Where a
 * flow of one length would take more than 4000 packets, it first sends
 * @start bytes in packets of 65535 bytes and one of the remainder, which
 * leave 1000 packets of its length to admit_bytes exactly: a filter that
 * passed a flow at admit_bytes itself, or rounded lengths up, passes it
 * early.  Without --full the rows of more than 20 big packets are
 * skipped (at U32_MAX, 65536 of them).
 */
struct hhf_exact_case {
	u32 len, admit, start, run, heavy_at;	/* heavy_at 0: none of run */
};

static const struct hhf_exact_case hhf_exact_cases[] = {
/* BEGIN derived by kunit/derive/hhf_exact.py */
	{ 1, 1U, 0U, 2, 2 },
	{ 43, 1U, 0U, 1, 1 },
	{ 1001, 1U, 0U, 1, 1 },
	{ 1500, 1U, 0U, 1, 1 },
	{ 9000, 1U, 0U, 1, 1 },
	{ 65535, 1U, 0U, 1, 1 },
	{ 1, 3000U, 0U, 3001, 3001 },
	{ 43, 3000U, 0U, 70, 70 },
	{ 1001, 3000U, 0U, 3, 3 },
	{ 1500, 3000U, 0U, 3, 3 },
	{ 9000, 3000U, 0U, 1, 1 },
	{ 65535, 3000U, 0U, 1, 1 },
	{ 1, 131072U, 130072U, 1001, 1001 },
	{ 43, 131072U, 0U, 3049, 3049 },
	{ 1001, 131072U, 0U, 131, 131 },
	{ 1500, 131072U, 0U, 88, 88 },
	{ 9000, 131072U, 0U, 15, 15 },
	{ 65535, 131072U, 0U, 3, 3 },
	{ 1, 10000000U, 9999000U, 1001, 1001 },
	{ 43, 10000000U, 9957000U, 1001, 1001 },
	{ 1001, 10000000U, 8999000U, 1001, 1001 },
	{ 1500, 10000000U, 8500000U, 1001, 1001 },
	{ 9000, 10000000U, 0U, 1112, 1112 },
	{ 65535, 10000000U, 0U, 153, 153 },
	{ 1, 4294967295U, 4294966295U, 1010, 0 },
	{ 43, 4294967295U, 4294924295U, 1010, 0 },
	{ 1001, 4294967295U, 4293966295U, 1010, 0 },
	{ 1500, 4294967295U, 4293467295U, 1010, 0 },
	{ 9000, 4294967295U, 4285967295U, 1010, 0 },
	{ 65535, 4294967295U, 4229432295U, 1010, 0 },
	{ 1500, 4294967195U, 4293467195U, 1010, 0 },
/* END derived */
};

static void hhf_exact_case_desc(const struct hhf_exact_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u-byte packets, admit %u", c->len, c->admit);
}

KUNIT_ARRAY_PARAM(hhf_exact, hhf_exact_cases, hhf_exact_case_desc);

/* skb through the qdisc n times, as a packet of len bytes. */
static void hhf_pass_times(struct kunit *test, struct sk_buff *skb, u32 len, u32 n)
{
	qdisc_skb_cb(skb)->pkt_len = len;
	while (n--)
		hhf_pass_skb(test, skb);
}

static void hhf_classify_exact_counting(struct kunit *test)
{
	const struct hhf_exact_case *c = test->param_value;
	u32 before = c->heavy_at ? c->heavy_at - 1 : c->run;
	struct sk_buff *skb;

	if (!full && c->start > 20 * 65535)
		kunit_skip(test, "%u big packets first: at full size only (tools/kunit --full)",
			   c->start / 65535);
	skb = qdisc_test_udp(test, 1, 64, 0);
	hhf_create(test, c->admit, LONG_USECS, LONG_USECS);
	hhf_pass_times(test, skb, 65535, c->start / 65535);
	hhf_pass_times(test, skb, c->start % 65535, !!(c->start % 65535));
	hhf_pass_times(test, skb, c->len, before);
	KUNIT_EXPECT_EQ(test, hhf_total(test), 0U);
	if (c->heavy_at) {
		hhf_pass_times(test, skb, c->len, 1);
		KUNIT_EXPECT_EQ(test, hhf_total(test), 1U);
		/* served as one, where a new flow's 64 bytes are a mouse's */
		if (c->admit >= 64)
			KUNIT_EXPECT_TRUE(test, hhf_goes_heavy(test, 1, 64, 2));
	}
	kfree_skb(skb);
}

/*
 * The false-positive workload of the seed commit's description: 100
 * heavy hitters, then 10000 mice of one 64-byte packet each, in one
 * period at the default admit_bytes T = 131072.  An elephant sends one
 * packet of 572 bytes and 88 of 1500: 572 + 87 * 1500 = 131072 is T,
 * not above, so it passes with its last packet, and the counters it
 * alone holds are left at T itself.  That is the worst case for the
 * mice: one of 64 bytes passes wherever all of its counters are
 * elephants'.  Returns how many mice passed, over trials fresh
 * qdiscs (a new hash key each).
 */
#define FP_ELEPHANTS	100
#define FP_MICE		10000

static u32 hhf_per_million(u32 part, u32 whole)
{
	return div_u64((u64)part * 1000000, whole);
}

static u32 hhf_fp_trials(struct kunit *test, int trials)
{
	struct sk_buff *first = qdisc_test_udp(test, 0, 572, 0);
	struct sk_buff *big = qdisc_test_udp(test, 0, 1500, 0);
	struct sk_buff *mouse = qdisc_test_udp(test, 0, 64, 0);
	u32 passed = 0, flow, base;
	int trial, i;

	for (trial = 0; trial < trials; trial++) {
		hhf_create(test, 131072, LONG_USECS, LONG_USECS);
		base = trial << 20;
		for (flow = 0; flow < FP_ELEPHANTS; flow++) {
			qdisc_test_set_flow(first, base | flow);
			qdisc_test_set_flow(big, base | flow);
			hhf_pass_skb(test, first);
			for (i = 0; i < 88; i++)
				hhf_pass_skb(test, big);
		}
		/* Every elephant passed, exactly once. */
		KUNIT_ASSERT_EQ(test, hhf_total(test), FP_ELEPHANTS);
		for (flow = 0; flow < FP_MICE; flow++) {
			qdisc_test_set_flow(mouse, base | 0x80000 | flow);
			hhf_pass_skb(test, mouse);
		}
		passed += hhf_total(test) - FP_ELEPHANTS;
	}
	kfree_skb(first);
	kfree_skb(big);
	kfree_skb(mouse);
	return passed;
}

/*
 * The bound of Estan and Varghese for a multi-stage filter of d
 * independent stages of b counters, threshold T, C bytes counted in the
 * period: a stage has at most C / (T - s) counters of T - s bytes or
 * more, so a flow of s bytes passes with probability at most
 * (C / ((T - s) b))^d.  Shielding and conservative update only lower
 * counters, so the bound holds for them too, and so it does for more
 * stages than upstream's, which the fork has.  Here d = 4, b = 1024,
 * T = 131072, s = 64 and C <= 100 * 131072 + 10000 * 64 = 13747200:
 * p <= (13747200 / (131008 * 1024))^4 = 0.10248^4 = 1.103e-4 per mouse,
 * the "about 1e-4" of the seed commit (FP_BOUND_PPM).  The filter does
 * better: about (1 - e^(-100/1024))^4 = 7.5e-5 of the mice meet four
 * elephants' counters.
 *
 * Over FP_TRIALS * 10000 = 50000 mice the bound is a mean of at most
 * 5.5 false positives.  A filter that meets it passes more than
 * FP_MAX_PASSED (21) with probability below 1e-6 (Chernoff: P(X >=
 * (1 + e) m) <= (e^e / (1 + e)^(1 + e))^m, with m = 5.5 and e = 3.0 for
 * 22).  A filter whose stages were not independent would not: two
 * stages' worth of protection lets about (0.093)^2 of the mice through,
 * over 400.  This is the conformance check through the qdisc, on both
 * builds; the fork's hhf_filter suite measures its own filter directly
 * over a million mice.
 */
static void hhf_classify_false_positive_rate(struct kunit *test)
{
	u32 passed = hhf_fp_trials(test, FP_TRIALS);

	kunit_info(test, "%u of %u mice passed: %u per million (bound %u)\n",
		   passed, FP_TRIALS * FP_MICE,
		   hhf_per_million(passed, FP_TRIALS * FP_MICE), FP_BOUND_PPM);
	KUNIT_EXPECT_LE(test, passed, FP_MAX_PASSED);
}

/*
 * Project behaviour: fewer mice taken for heavy hitters than upstream,
 * in less memory.  The fork's filter has five stages of 1024 counters,
 * not four, so the same bound gives
 * p <= (13747200 / (131008 * 1024))^5 = 1.13e-5, a mean of at most 9.0
 * over FP_FORK_TRIALS * 10000 = 800000 mice, exceeded past
 * FP_FORK_MAX_PASSED (28) with probability below 1e-6 (the Chernoff
 * bound again).  Four stages let about (1 - e^(-100/1024))^4 = 7.5e-5
 * through, a mean of 60, and stay within 28 with probability 3e-6.
 */
static void hhf_classify_fewer_false_positives(struct kunit *test)
{
	u32 passed;

	if (!full)
		kunit_skip(test, "800,000 mice: at full size only (tools/kunit --full)");
	passed = hhf_fp_trials(test, FP_FORK_TRIALS);

	kunit_info(test, "%u of %u mice passed: %u per million\n",
		   passed, FP_FORK_TRIALS * FP_MICE,
		   hhf_per_million(passed, FP_FORK_TRIALS * FP_MICE));
	KUNIT_EXPECT_LE(test, passed, FP_FORK_MAX_PASSED);
}

/*
 * Idle heavy hitters are evicted: with evict_timeout and reset_timeout
 * at 200 ms, after a pause of a second the flow is out of the table and
 * the first packet after the pause clears the counters.  That packet
 * goes to the other flows' bucket, and the flow passes again only with
 * its 11th packet of 1000 bytes since the pause.
 */
static void hhf_classify_evicts_idle(struct kunit *test)
{
	hhf_create(test, ADMIT_SMALL, 200000, 200000);
	KUNIT_ASSERT_EQ(test, hhf_admitted_at(test, 1, 11, 1000), 11);
	msleep(1000);
	KUNIT_EXPECT_FALSE(test, hhf_goes_heavy(test, 1, 1000, 2));
	KUNIT_EXPECT_EQ(test, hhf_admitted_at(test, 1, 10, 1000), 10);
	KUNIT_EXPECT_EQ(test, hhf_total(test), 2);
}

/* With evict_timeout long, the same pause changes nothing. */
static void hhf_classify_keeps_active(struct kunit *test)
{
	hhf_create(test, ADMIT_SMALL, LONG_USECS, LONG_USECS);
	KUNIT_ASSERT_EQ(test, hhf_admitted_at(test, 1, 11, 1000), 11);
	msleep(1000);
	KUNIT_EXPECT_TRUE(test, hhf_goes_heavy(test, 1, 1000, 2));
	KUNIT_EXPECT_EQ(test, hhf_admitted_at(test, 1, 20, 1000), 0);
	KUNIT_EXPECT_EQ(test, hhf_stats(test).hh_cur_count, 1);
}

/*
 * At most hh_limit heavy hitters: with a limit of 5, eight flows of
 * 16 packets of 1000 bytes each pass the filter (by the 11th packet),
 * the first five enter the table and the other three do not.  Their
 * counters are not raised once they pass, so each of their packets
 * from the 11th on passes again and counts in hh_overlimit: at least
 * 3 * 6 = 18, at most 3 * 16 = 48.  They stay in the other bucket.
 */
static void hhf_classify_hh_limit_caps_table(struct kunit *test)
{
	struct tc_hhf_xstats st;
	u32 flow;

	hhf_create(test, ADMIT_SMALL, LONG_USECS, LONG_USECS);
	hhf_set(test, TCA_HHF_HH_FLOWS_LIMIT, 5);
	for (flow = 1; flow <= 8; flow++)
		hhf_admitted_at(test, flow, 16, 1000);
	st = hhf_stats(test);
	KUNIT_EXPECT_EQ(test, st.hh_tot_count, 5);
	KUNIT_EXPECT_EQ(test, st.hh_cur_count, 5);
	KUNIT_EXPECT_GE(test, st.hh_overlimit, 18);
	KUNIT_EXPECT_LE(test, st.hh_overlimit, 48);
	KUNIT_EXPECT_FALSE(test, hhf_goes_heavy(test, 8, 1000, 100));
}

/*
 * Shielding: a heavy hitter's bytes no longer reach its counters.  A
 * flow of 1000-byte packets passes admit_bytes 10000 with its 11th;
 * its counters hold 10000.  It sends 50 more, then pauses until it is
 * evicted (evict_timeout 40 ms; the counters last the test).  With
 * admit_bytes raised to 30000 it passes again after 20 more packets
 * (10000 + 20 * 1000 = 30000 is not above), with the 21st.  Unshielded,
 * its counters would hold 60000 and the first packet would pass.
 */
static void hhf_classify_shielding(struct kunit *test)
{
	hhf_create(test, ADMIT_SMALL, LONG_USECS, 40000);
	KUNIT_ASSERT_EQ(test, hhf_admitted_at(test, 1, 11, 1000), 11);
	KUNIT_EXPECT_EQ(test, hhf_admitted_at(test, 1, 50, 1000), 0);
	hhf_set(test, TCA_HHF_ADMIT_BYTES, 30000);
	msleep(200);
	KUNIT_EXPECT_EQ(test, hhf_admitted_at(test, 1, 21, 1000), 21);
}

/*
 * Conservative update: 4096 mice send 8 packets of 1000 bytes each,
 * round robin, with admit_bytes 20000; none sends more than 8000.  The
 * mean counter holds four flows' bytes (stages of 1024), so a filter
 * that adds every packet to all of a flow's counters (shielding kept)
 * passes many of them: simulations of both geometries, four and five
 * stages (uniform independent indexes, 20 seeds each) passed
 * CU_PLAIN_FEWEST to CU_PLAIN_MOST (2486 to 2837).  With conservative update a counter
 * grows only to the largest estimate among its flows, and the same
 * simulations passed CU_CONSERVATIVE_MOST (none).  Fewer than a tenth
 * of the plain filter's fewest shows the effect with a margin both ways.
 */
static void hhf_classify_conservative_update(struct kunit *test)
{
	struct sk_buff *skb = qdisc_test_udp(test, 0, 1000, 0);
	u32 flow;
	int round;

	hhf_create(test, 20000, LONG_USECS, LONG_USECS);
	for (round = 0; round < 8; round++)
		for (flow = 0; flow < 4096; flow++) {
			qdisc_test_set_flow(skb, flow);
			hhf_pass_skb(test, skb);
		}
	kfree_skb(skb);
	KUNIT_EXPECT_LT(test, hhf_total(test), CU_PLAIN_FEWEST / 10);
}

/*
 * The counters are cleared every reset_timeout (400 ms here).  Ten
 * packets of 1000 bytes right after the qdisc is created leave the
 * flow at admit_bytes, not above.  After a second the next packet
 * starts a new period, so ten more are again not enough and the 11th
 * passes; with the counters kept the first would have.
 */
static void hhf_classify_counters_reset(struct kunit *test)
{
	hhf_create(test, ADMIT_SMALL, 400000, LONG_USECS);
	KUNIT_ASSERT_EQ(test, hhf_admitted_at(test, 1, 10, 1000), 0);
	msleep(1000);
	KUNIT_EXPECT_EQ(test, hhf_admitted_at(test, 1, 11, 1000), 11);
}

/*
 * WDRR with both buckets backlogged: quantum 1000 and packets of 1000
 * bytes, so a round gives the heavy hitters one packet and the other
 * flows non_hh_weight packets.  admit_bytes is raised once the elephant
 * is admitted, so that the mouse's 300000 bytes keep it a mouse.
 */
static const u32 hhf_weights[] = { 1, 2, 3 };

static void hhf_weight_desc(const u32 *w, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "non_hh_weight %u", *w);
}

KUNIT_ARRAY_PARAM(hhf_weight, hhf_weights, hhf_weight_desc);

#define WDRR_ELEPHANT	1
#define WDRR_MOUSE	2
#define WDRR_EACH	300

/* 300 packets of the elephant (a heavy hitter) and 300 of the mouse. */
static void hhf_wdrr_backlog(struct kunit *test, u32 non_hh_weight)
{
	int i;

	hhf_create(test, ADMIT_SMALL, LONG_USECS, LONG_USECS);
	hhf_set(test, TCA_HHF_QUANTUM, 1000);
	hhf_set(test, TCA_HHF_NON_HH_WEIGHT, non_hh_weight);
	KUNIT_ASSERT_EQ(test, hhf_admitted_at(test, WDRR_ELEPHANT, 11, 1000), 11);
	hhf_set(test, TCA_HHF_ADMIT_BYTES, 1000000000);
	for (i = 0; i < WDRR_EACH; i++) {
		qdisc_test_enqueue(test, qdisc_test_udp(test, WDRR_ELEPHANT, 1000, 0));
		qdisc_test_enqueue(test, qdisc_test_udp(test, WDRR_MOUSE, 1000, 0));
	}
	KUNIT_ASSERT_EQ(test, qdisc_test_sch(test)->q.qlen, 2 * WDRR_EACH);
}

/* The flow of the next packet out. */
static u32 hhf_next_flow(struct kunit *test)
{
	struct sk_buff *skb = qdisc_test_dequeue(test);
	u32 flow;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	flow = qdisc_test_flow_of(skb);
	kfree_skb(skb);
	return flow;
}

/*
 * Of the first 300 out, the mouse gets 300 * w / (w + 1): 300 is a
 * whole number of rounds for each weight here.
 */
static void hhf_classify_wdrr_share(struct kunit *test)
{
	const u32 w = *(const u32 *)test->param_value;
	u32 got_mouse = 0;
	int i;

	hhf_wdrr_backlog(test, w);
	for (i = 0; i < WDRR_EACH; i++)
		got_mouse += hhf_next_flow(test) == WDRR_MOUSE;
	KUNIT_EXPECT_EQ(test, got_mouse, WDRR_EACH * w / (w + 1));
	KUNIT_EXPECT_EQ(test, hhf_total(test), 1);
}

/*
 * The turns themselves, which whole rounds cannot show: a bucket whose
 * deficit falls to exactly 0 has no credit left and yields.  The
 * mouse's bucket is new, so it goes first with w * 1000 bytes of credit
 * and sends w packets; then the heavy hitters' bucket sends one.  So
 * the first two rounds are w mouse packets and one elephant packet,
 * twice.  A bucket that went on sending at deficit 0 would put w + 1
 * mouse packets first.
 */
static void hhf_classify_wdrr_turns(struct kunit *test)
{
	const u32 w = *(const u32 *)test->param_value;
	u32 round, i;

	hhf_wdrr_backlog(test, w);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < w; i++)
			KUNIT_EXPECT_EQ_MSG(test, hhf_next_flow(test), WDRR_MOUSE,
					    "round %u, packet %u", round, i);
		KUNIT_EXPECT_EQ_MSG(test, hhf_next_flow(test), WDRR_ELEPHANT,
				    "round %u, packet %u", round, w);
	}
}

static int hhf_test_init(struct kunit *test)
{
	return qdisc_test_setup(test, "hhf");
}

static struct kunit_case hhf_classify_cases[] = {
	KUNIT_CASE(hhf_classify_no_false_negatives),
	KUNIT_CASE_PARAM(hhf_classify_exact_counting, hhf_exact_gen_params),
	KUNIT_CASE(hhf_classify_false_positive_rate),
	KUNIT_CASE(hhf_classify_fewer_false_positives),
	KUNIT_CASE(hhf_classify_evicts_idle),
	KUNIT_CASE(hhf_classify_keeps_active),
	KUNIT_CASE(hhf_classify_hh_limit_caps_table),
	KUNIT_CASE(hhf_classify_shielding),
	KUNIT_CASE(hhf_classify_conservative_update),
	KUNIT_CASE(hhf_classify_counters_reset),
	KUNIT_CASE_PARAM(hhf_classify_wdrr_share, hhf_weight_gen_params),
	KUNIT_CASE_PARAM(hhf_classify_wdrr_turns, hhf_weight_gen_params),
	{}
};

static struct kunit_suite hhf_classify_suite = {
	.name = "hhf_classify",
	.init = hhf_test_init,
	.exit = qdisc_test_teardown,
	.test_cases = hhf_classify_cases,
};

/*
 * hhf_bench is a benchmark, not a test (see pie_bench): it runs with
 * sch_hhf_kunit.bench=1 and prints "kfork-bench: KEY VALUE" figures,
 * the lower the better.
 */
static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench, "run the hhf_bench benchmark (tools/kunit bench)");

#define BENCH_ROUNDS	5
#define BENCH_FLOWS	1024	/* packets in flight, each of its own flow */
#define BENCH_LAPS	16
#define BENCH_QDISCS	32
#define BENCH_FP_TRIALS	60	/* 600,000 mice, a steadier figure than the test's */

static unsigned long hhf_bench_pages(void)
{
	return global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B) +
	       global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
	       vmalloc_nr_pages();
}

/*
 * Memory of one qdisc with its tables, as the slab and vmalloc pages
 * that BENCH_QDISCS of them take, divided among them (struct Qdisc
 * included, which both builds share).
 */
static u64 hhf_bench_memory(struct kunit *test)
{
	struct qdisc_test_env *env = test->priv;
	struct netdev_queue *txq = netdev_get_tx_queue(env->dev, 0);
	struct Qdisc *qdiscs[BENCH_QDISCS];
	unsigned long before, pages;
	int i, err;

	rcu_barrier();
	before = hhf_bench_pages();
	for (i = 0; i < BENCH_QDISCS; i++) {
		qdiscs[i] = qdisc_alloc(txq, env->ops, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(qdiscs[i]));
		rtnl_lock();
		err = env->ops->init(qdiscs[i], NULL, NULL);
		rtnl_unlock();
		KUNIT_ASSERT_EQ(test, err, 0);
	}
	pages = hhf_bench_pages() - before;
	rtnl_lock();
	for (i = 0; i < BENCH_QDISCS; i++)
		qdisc_put(qdiscs[i]);
	rtnl_unlock();
	rcu_barrier();
	return (u64)pages * PAGE_SIZE / BENCH_QDISCS;
}

static void hhf_bench_run(struct kunit *test)
{
	u64 packets = U64_MAX, bytes = U64_MAX, ns;
	struct sk_buff **skbs;
	u32 fp;
	int i;

	if (!bench)
		kunit_skip(test, "a benchmark: tools/kunit bench runs it");
	skbs = kunit_kcalloc(test, BENCH_FLOWS, sizeof(*skbs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skbs);

	/*
	 * The many-flow case, where every packet walks the filter:
	 * BENCH_FLOWS packets in flight, each of its own flow but for a
	 * sixteenth that belong to one elephant, which becomes a heavy
	 * hitter, so both buckets and the table lookup are in the figure.
	 * Defaults, but no reset or eviction while the clock runs.
	 */
	hhf_create(test, 131072, LONG_USECS, LONG_USECS);
	hhf_set(test, TCA_HHF_BACKLOG_LIMIT, 2 * BENCH_FLOWS);
	for (i = 0; i < BENCH_FLOWS; i++)
		skbs[i] = qdisc_test_udp(test, i % 16 ? i : 0, 1000, 0);
	for (i = 0; i < BENCH_ROUNDS; i++) {
		ns = qdisc_test_bench_laps(test, skbs, BENCH_FLOWS, BENCH_LAPS);
		packets = min(packets, ns);
		bytes = min(bytes, hhf_bench_memory(test));
	}
	for (i = 0; i < BENCH_FLOWS; i++)
		kfree_skb(skbs[i]);
	kunit_info(test, "kfork-bench: hhf.enqueue_dequeue_ns %llu\n",
		   div_u64(packets, BENCH_LAPS * BENCH_FLOWS));
	kunit_info(test, "kfork-bench: hhf.qdisc_bytes %llu\n", bytes);

	/* False positives per million mice on hhf_classify's workload. */
	fp = hhf_fp_trials(test, BENCH_FP_TRIALS);
	kunit_info(test, "kfork-bench: hhf.false_positives_ppm %u\n",
		   hhf_per_million(fp, BENCH_FP_TRIALS * FP_MICE));
}

static struct kunit_case hhf_bench_cases[] = {
	KUNIT_CASE(hhf_bench_run),
	{}
};

static struct kunit_suite hhf_bench_suite = {
	.name = "hhf_bench",
	.init = hhf_test_init,
	.exit = qdisc_test_teardown,
	.test_cases = hhf_bench_cases,
};

kunit_test_suites(&hhf_classify_suite, &hhf_bench_suite);

MODULE_LICENSE("GPL");
