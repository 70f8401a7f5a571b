// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for the pie qdisc, driven through its Qdisc_ops on a
 * real (unregistered) Ethernet device with synthetic packets: what tc
 * and the stack see. It runs against both implementations, so it only
 * uses what they share:
 *
 * - the ops, found by name on the chain of registered kinds
 *   (qdisc_test_find_ops());
 * - the netlink attributes of include/uapi/linux/pkt_sched.h, built and
 *   parsed here as tc would;
 * - the private data's leading part (struct pie_vars, struct pie_params,
 *   struct pie_stats, then the update timer, as both files lay it out),
 *   to put the controller in a known state: the random drop draw cannot
 *   be fixed, so drop decisions are forced through the accumulator's
 *   deterministic thresholds instead, and the timer is stopped so that
 *   the tests alone decide when the controller updates.
 *
 * Expected values come from RFC 8033, the UAPI header's units and the
 * hand derivations in the comments.
 */

#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/timer.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/pie.h>

#include "sch_qdisc_kunit.h"

#define MS(ms) PSCHED_NS2TICKS((u64)(ms) * NSEC_PER_MSEC)
#define PKT_LEN 1000

/* The start of both implementations' struct pie_sched_data. */
struct pie_test_priv {
	struct pie_vars vars;
	struct pie_params params;
	struct pie_stats stats;
	struct timer_list adapt_timer;
};

static struct pie_test_priv *pie_priv(struct Qdisc *sch)
{
	return qdisc_priv(sch);
}

static struct Qdisc *pie_sch(struct kunit *test)
{
	return qdisc_test_sch(test);
}

static int pie_test_init(struct kunit *test)
{
	return qdisc_test_setup(test, "pie");
}

/* A pie qdisc whose update timer is stopped: the tests update it. */
static int pie_create(struct kunit *test, const struct qdisc_test_attr *attrs, int n)
{
	int err = qdisc_test_create(test, attrs, n);

	if (!err)
		del_timer_sync(&pie_priv(pie_sch(test))->adapt_timer);
	return err;
}

static int pie_change(struct kunit *test, const struct qdisc_test_attr *attrs, int n)
{
	return qdisc_test_change(test, attrs, n);
}

/* An IPv4 packet of len bytes with the given TOS (ECN bits) and mark. */
static struct sk_buff *pie_packet(struct kunit *test, u32 len, u8 tos, u32 mark)
{
	struct sk_buff *skb = qdisc_test_udp(test, 1, len, tos);

	skb->mark = mark;
	return skb;
}

static int pie_enqueue(struct kunit *test, struct sk_buff *skb)
{
	return qdisc_test_enqueue(test, skb);
}

static void pie_enqueue_n(struct kunit *test, int n, u32 len)
{
	int i;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, pie_enqueue(test, pie_packet(test, len, 0, i)),
				NET_XMIT_SUCCESS);
}

static struct sk_buff *pie_dequeue(struct kunit *test)
{
	return qdisc_test_dequeue(test);
}

static void pie_dump_options(struct kunit *test, u32 *values)
{
	qdisc_test_dump_options(test, values, TCA_PIE_MAX);
}

static void pie_xstats(struct kunit *test, struct tc_pie_xstats *st)
{
	qdisc_test_xstats(test, st, sizeof(*st));
}

/*
 * Put the controller where the next arriving packet is surely dropped:
 * no burst allowance, delay at target (no low-delay bypass), and an
 * accumulated probability already at 8.5, the RFC 8033 section 5.4
 * threshold past which a drop is not random.
 */
static void pie_force_drop(struct Qdisc *sch, u64 prob)
{
	struct pie_test_priv *q = pie_priv(sch);

	q->vars.burst_time = 0;
	q->vars.qdelay = q->params.target;
	q->vars.prob = prob;
	q->vars.accu_prob = MAX_PROB / 2 * 17;
}

static u32 pie_jiffies_usecs(u32 us)
{
	return jiffies_to_usecs(usecs_to_jiffies(us));
}

/* tc qdisc add dev D root pie: RFC 8033's defaults, in tc's units. */
static void pie_qdisc_defaults(struct kunit *test)
{
	u32 v[TCA_PIE_MAX + 1];

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	pie_dump_options(test, v);
	KUNIT_EXPECT_EQ(test, v[TCA_PIE_TARGET], 15000);	/* us */
	KUNIT_EXPECT_EQ(test, v[TCA_PIE_LIMIT], 1000);		/* packets */
	/* 15 ms in whole jiffies: 16 ms at HZ=250, as tc shows it. */
	KUNIT_EXPECT_EQ(test, v[TCA_PIE_TUPDATE], pie_jiffies_usecs(15000));
	KUNIT_EXPECT_EQ(test, v[TCA_PIE_ALPHA], 2);		/* 0.125 */
	KUNIT_EXPECT_EQ(test, v[TCA_PIE_BETA], 20);		/* 1.25 */
	KUNIT_EXPECT_EQ(test, v[TCA_PIE_ECN], 0);
	KUNIT_EXPECT_EQ(test, v[TCA_PIE_BYTEMODE], 0);
	KUNIT_EXPECT_EQ(test, v[TCA_PIE_DQ_RATE_ESTIMATOR], 0);
	/* And the burst allowance starts full: 150 ms. */
	KUNIT_EXPECT_EQ(test, pie_priv(pie_sch(test))->vars.burst_time, MS(150));
}

struct pie_attr_case {
	const char *name;
	int type;
	u32 value;
};

static const struct pie_attr_case pie_attr_cases[] = {
	{ "target 20ms", TCA_PIE_TARGET, 20000 },
	{ "target 1us", TCA_PIE_TARGET, 1 },
	{ "limit 1", TCA_PIE_LIMIT, 1 },
	{ "limit 50000", TCA_PIE_LIMIT, 50000 },
	{ "tupdate 30ms", TCA_PIE_TUPDATE, 30000 },
	{ "tupdate 1us is one jiffy", TCA_PIE_TUPDATE, 1 },
	{ "alpha 0", TCA_PIE_ALPHA, 0 },
	{ "alpha 32", TCA_PIE_ALPHA, 32 },
	{ "beta 0", TCA_PIE_BETA, 0 },
	{ "beta 32", TCA_PIE_BETA, 32 },
	{ "ecn", TCA_PIE_ECN, 1 },
	{ "bytemode", TCA_PIE_BYTEMODE, 1 },
	{ "dq_rate_estimator", TCA_PIE_DQ_RATE_ESTIMATOR, 1 },
};

static void pie_attr_case_desc(const struct pie_attr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pie_attr, pie_attr_cases, pie_attr_case_desc);

/*
 * What tc shows for a value: times go through the kernel's units and
 * back, target through 64 ns psched ticks (1 us = 15 ticks = 960 ns,
 * shown as 0 us), tupdate through whole jiffies.
 */
static u32 pie_attr_expected(const struct pie_attr_case *c)
{
	u64 ns;

	switch (c->type) {
	case TCA_PIE_TARGET:
		ns = PSCHED_TICKS2NS(PSCHED_NS2TICKS((u64)c->value * NSEC_PER_USEC));
		return div_u64(ns, NSEC_PER_USEC);
	case TCA_PIE_TUPDATE:
		return pie_jiffies_usecs(c->value);
	default:
		return c->value;
	}
}

/* tc qdisc add ... pie ATTR VALUE; tc qdisc show gives it back. */
static void pie_qdisc_attr_at_init(struct kunit *test)
{
	const struct pie_attr_case *c = test->param_value;
	struct qdisc_test_attr attr = { c->type, c->value };
	u32 v[TCA_PIE_MAX + 1];

	KUNIT_ASSERT_EQ(test, pie_create(test, &attr, 1), 0);
	pie_dump_options(test, v);
	KUNIT_EXPECT_EQ(test, v[c->type], pie_attr_expected(c));
}

/* tc qdisc change ... pie ATTR VALUE; the others stay as they were. */
static void pie_qdisc_attr_at_change(struct kunit *test)
{
	const struct pie_attr_case *c = test->param_value;
	struct qdisc_test_attr attr = { c->type, c->value };
	u32 before[TCA_PIE_MAX + 1], after[TCA_PIE_MAX + 1];
	int i;

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	pie_dump_options(test, before);
	KUNIT_ASSERT_EQ(test, pie_change(test, &attr, 1), 0);
	pie_dump_options(test, after);
	for (i = 1; i <= TCA_PIE_MAX; i++)
		KUNIT_EXPECT_EQ_MSG(test, after[i],
				    i == c->type ? pie_attr_expected(c) : before[i],
				    "attribute %d", i);
}

/* A FIFO: packets leave in order, and the counters follow them. */
static void pie_qdisc_fifo_order(struct kunit *test)
{
	struct Qdisc *sch;
	struct tc_pie_xstats st;
	struct sk_buff *skb;
	u32 i;

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	sch = pie_sch(test);
	pie_enqueue_n(test, 10, PKT_LEN);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 10);
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 10 * PKT_LEN);

	for (i = 0; i < 10; i++) {
		skb = pie_dequeue(test);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_EQ(test, skb->mark, i);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_NULL(test, pie_dequeue(test));
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 0);
	KUNIT_EXPECT_EQ(test, u64_stats_read(&sch->bstats.packets), 10);
	KUNIT_EXPECT_EQ(test, u64_stats_read(&sch->bstats.bytes), 10 * PKT_LEN);

	pie_xstats(test, &st);
	KUNIT_EXPECT_EQ(test, st.packets_in, 10);
	/* The deepest queue an arrival found: 9 packets ahead of the last. */
	KUNIT_EXPECT_EQ(test, st.maxq, 9);
	KUNIT_EXPECT_EQ(test, st.dropped, 0);
}

/* limit 5, 8 arrivals: the last 3 are dropped and counted as overlimit. */
static void pie_qdisc_limit_overflow(struct kunit *test)
{
	struct qdisc_test_attr limit = { TCA_PIE_LIMIT, 5 };
	struct tc_pie_xstats st;
	struct Qdisc *sch;
	int i;

	KUNIT_ASSERT_EQ(test, pie_create(test, &limit, 1), 0);
	sch = pie_sch(test);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, pie_enqueue(test, pie_packet(test, PKT_LEN, 0, i)),
				i < 5 ? NET_XMIT_SUCCESS : NET_XMIT_DROP);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 5);
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 5 * PKT_LEN);
	KUNIT_EXPECT_EQ(test, sch->qstats.drops, 3);
	pie_xstats(test, &st);
	KUNIT_EXPECT_EQ(test, st.overlimit, 3);
	KUNIT_EXPECT_EQ(test, st.dropped, 3);
	KUNIT_EXPECT_EQ(test, st.packets_in, 5);
}

/*
 * Two 1514-byte packets make the backlog reach 2 * MTU (psched_mtu() of
 * an Ethernet device: 1500 + 14), past the small-queue bypass.
 */
static void pie_fill_past_bypass(struct kunit *test)
{
	pie_enqueue_n(test, 2, 1514);
}

/* At an accumulated 8.5 the packet is dropped, and the sum restarts. */
static void pie_qdisc_drops_past_threshold(struct kunit *test)
{
	struct Qdisc *sch;
	struct tc_pie_xstats st;

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	sch = pie_sch(test);
	pie_fill_past_bypass(test);
	pie_force_drop(sch, MAX_PROB / 2);
	KUNIT_EXPECT_EQ(test, pie_enqueue(test, pie_packet(test, PKT_LEN, 0, 9)),
			NET_XMIT_DROP);
	KUNIT_EXPECT_EQ(test, pie_priv(sch)->vars.accu_prob, 0);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 2);
	pie_xstats(test, &st);
	KUNIT_EXPECT_EQ(test, st.dropped, 1);
	KUNIT_EXPECT_EQ(test, st.overlimit, 0);
}

/* Below an accumulated 0.85 no packet is dropped, whatever p is. */
static void pie_qdisc_spares_below_threshold(struct kunit *test)
{
	struct Qdisc *sch;

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	sch = pie_sch(test);
	pie_fill_past_bypass(test);
	pie_force_drop(sch, MAX_PROB / 2);
	/* 0 + 0.5 < 0.85 */
	pie_priv(sch)->vars.accu_prob = 0;
	KUNIT_EXPECT_EQ(test, pie_enqueue(test, pie_packet(test, PKT_LEN, 0, 9)),
			NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, pie_priv(sch)->vars.accu_prob, MAX_PROB / 2);
}

/*
 * pie dumps 8 u32 attributes (4 + 8 * 8 = 68 bytes): every dump
 * short of that fails.
 */
static void pie_qdisc_dump_overflow(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	qdisc_test_dump_overflow(test, 8);
}

struct pie_ecn_case {
	const char *name;
	bool ecn;
	u8 tos;
	u64 prob;
	bool marked;
};

/* RFC 8033 section 5.1: mark instead of drop, while p is at most 10%. */
static const struct pie_ecn_case pie_ecn_cases[] = {
	{ "ecn, ECT(0), p 5%: marked", true, INET_ECN_ECT_0, MAX_PROB / 20, true },
	{ "ecn, ECT(1), p 10%: marked", true, INET_ECN_ECT_1, MAX_PROB / 10, true },
	{ "ecn, ECT(0), p 20%: dropped", true, INET_ECN_ECT_0, MAX_PROB / 5, false },
	{ "ecn, not ECT, p 5%: dropped", true, INET_ECN_NOT_ECT, MAX_PROB / 20, false },
	{ "no ecn, ECT(0), p 5%: dropped", false, INET_ECN_ECT_0, MAX_PROB / 20, false },
};

static void pie_ecn_case_desc(const struct pie_ecn_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pie_ecn, pie_ecn_cases, pie_ecn_case_desc);

static void pie_qdisc_ecn_mark(struct kunit *test)
{
	const struct pie_ecn_case *c = test->param_value;
	struct qdisc_test_attr ecn = { TCA_PIE_ECN, c->ecn };
	struct sk_buff *skb;
	struct tc_pie_xstats st;
	struct Qdisc *sch;
	int ret;

	KUNIT_ASSERT_EQ(test, pie_create(test, &ecn, 1), 0);
	sch = pie_sch(test);
	pie_fill_past_bypass(test);
	pie_force_drop(sch, c->prob);
	skb = pie_packet(test, PKT_LEN, c->tos, 7);
	ret = pie_enqueue(test, skb);
	pie_xstats(test, &st);
	if (c->marked) {
		KUNIT_EXPECT_EQ(test, ret, NET_XMIT_SUCCESS);
		KUNIT_EXPECT_EQ(test, ipv4_get_dsfield(ip_hdr(skb)) & INET_ECN_MASK,
				INET_ECN_CE);
		KUNIT_EXPECT_EQ(test, st.ecn_mark, 1);
		KUNIT_EXPECT_EQ(test, st.dropped, 0);
	} else {
		KUNIT_EXPECT_EQ(test, ret, NET_XMIT_DROP);
		KUNIT_EXPECT_EQ(test, st.ecn_mark, 0);
		KUNIT_EXPECT_EQ(test, st.dropped, 1);
	}
}

/*
 * The burst allowance (150 ms from the start) shields every packet; it
 * is spent by the time between dequeues, and then the drop comes.
 */
static void pie_qdisc_burst_allowance_expires(struct kunit *test)
{
	struct pie_test_priv *q;
	struct Qdisc *sch;

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	sch = pie_sch(test);
	q = pie_priv(sch);
	pie_enqueue_n(test, 3, 1514);
	pie_force_drop(sch, MAX_PROB);
	q->vars.burst_time = MS(1);
	KUNIT_EXPECT_EQ(test, pie_enqueue(test, pie_packet(test, 1514, 0, 3)),
			NET_XMIT_SUCCESS);

	/* The last dequeue 2 ms ago: this one spends the 1 ms left. */
	q->vars.dq_tstamp = psched_get_time() - MS(2);
	kfree_skb(pie_dequeue(test));
	KUNIT_EXPECT_EQ(test, q->vars.burst_time, 0);

	pie_force_drop(sch, MAX_PROB);
	KUNIT_EXPECT_EQ(test, pie_enqueue(test, pie_packet(test, 1514, 0, 4)),
			NET_XMIT_DROP);
}

/*
 * dq_rate_estimator (RFC 8033 5.3 and Appendix B): while 16384 bytes
 * (QUEUE_THRESHOLD) or more stay queued, the time 16384 bytes take to
 * leave gives the departure rate, kept in bytes per 64 ns tick << 8
 * (PIE_SCALE), and averaged as avg - (avg >> 3) + (sample >> 3).
 *
 * 40 packets of 1000 bytes: the first cycle starts at dequeue 1 (39000
 * bytes left) and counts that packet, so dequeue 16 (16000 bytes) takes
 * no sample and dequeue 17 (17000) does.  The clock may be as coarse as
 * a jiffy, so the test dates each cycle's start back instead of waiting:
 * 1 ms (15625 ticks) for the first, whose sample is then at most
 * (17000 << 8) / 15625 = 278 and at least (17000 << 8) over 15625 plus
 * the time measured since; 1 s for the second, which samples at dequeue
 * 34 (6000 bytes left, too few for a third cycle) and adds
 * (17000 << 8) / 15625000 = 0: the average becomes exactly
 * first - (first >> 3), which neither keeping the old rate nor taking
 * the new one gives.  tc shows the rate in bytes per second: ticks per
 * second times the rate >> 8.
 */
static u32 pie_dequeue_n(struct kunit *test, int n)
{
	int i;

	for (i = 0; i < n; i++)
		kfree_skb(pie_dequeue(test));
	return pie_priv(pie_sch(test))->vars.avg_dq_rate;
}

/* Date the running cycle's start back by ticks. */
static psched_time_t pie_cycle_started(struct kunit *test, psched_time_t ticks)
{
	psched_time_t now = psched_get_time();

	pie_priv(pie_sch(test))->vars.dq_tstamp = now - ticks;
	return now;
}

/* The slowest first sample the test can take: 17000 bytes since dated. */
static u32 pie_first_sample_least(psched_time_t dated)
{
	return div64_u64(17000 << 8, MS(1) + psched_get_time() - dated);
}

static void pie_qdisc_rate_estimator_samples(struct kunit *test)
{
	static const struct qdisc_test_attr on[] = {
		{ TCA_PIE_DQ_RATE_ESTIMATOR, 1 },
	};
	struct tc_pie_xstats st;
	psched_time_t dated;
	u32 first;

	KUNIT_ASSERT_EQ(test, pie_create(test, on, ARRAY_SIZE(on)), 0);
	pie_enqueue_n(test, 40, PKT_LEN);
	KUNIT_EXPECT_EQ(test, pie_dequeue_n(test, 1), 0);
	dated = pie_cycle_started(test, MS(1));
	KUNIT_EXPECT_EQ(test, pie_dequeue_n(test, 15), 0);
	first = pie_dequeue_n(test, 1);
	KUNIT_EXPECT_LE(test, first, 278);
	KUNIT_EXPECT_GE(test, first, pie_first_sample_least(dated));
	pie_xstats(test, &st);
	KUNIT_EXPECT_EQ(test, st.avg_dq_rate, (u32)((u64)first * PSCHED_TICKS_PER_SEC >> 8));
}

/*
 * The second sample, as in pie_qdisc_rate_estimator_samples, averages
 * with the first.  An eighth of a first sample under 8 is 0, which
 * cannot tell the average from the first sample: the case is skipped
 * when the host was too slow to sample 8 or more, and that is decided
 * before any expectation, so that a skip never hides a failure.
 */
static void pie_qdisc_rate_estimator_averages(struct kunit *test)
{
	static const struct qdisc_test_attr on[] = {
		{ TCA_PIE_DQ_RATE_ESTIMATOR, 1 },
	};
	psched_time_t dated;
	u32 first, least;

	KUNIT_ASSERT_EQ(test, pie_create(test, on, ARRAY_SIZE(on)), 0);
	pie_enqueue_n(test, 40, PKT_LEN);
	pie_dequeue_n(test, 1);
	dated = pie_cycle_started(test, MS(1));
	first = pie_dequeue_n(test, 16);
	least = pie_first_sample_least(dated);
	if (first < 8 && least < 8)
		kunit_skip(test, "host too slow: a first sample under 8 cannot show the average");
	KUNIT_EXPECT_GE(test, first, least);

	pie_cycle_started(test, MS(1000));
	KUNIT_EXPECT_EQ(test, pie_dequeue_n(test, 16), first);
	KUNIT_EXPECT_EQ(test, pie_dequeue_n(test, 1), first - (first >> 3));

	/* 6000 bytes left: no cycle, the average stays. */
	KUNIT_EXPECT_EQ(test, pie_dequeue_n(test, 6), first - (first >> 3));
}

/*
 * Under 16384 bytes queued no cycle starts: the rate stays unknown even
 * with a start dated back, which a cycle that wrongly began would use.
 */
static void pie_qdisc_rate_estimator_needs_a_queue(struct kunit *test)
{
	static const struct qdisc_test_attr on[] = {
		{ TCA_PIE_DQ_RATE_ESTIMATOR, 1 },
	};

	KUNIT_ASSERT_EQ(test, pie_create(test, on, ARRAY_SIZE(on)), 0);
	pie_enqueue_n(test, 17, PKT_LEN);	/* 16000 left after the first */
	KUNIT_EXPECT_EQ(test, pie_dequeue_n(test, 1), 0);
	pie_cycle_started(test, MS(1));
	KUNIT_EXPECT_EQ(test, pie_dequeue_n(test, 16), 0);
}

/* The delay is the head packet's time in the queue, shown in us. */
static void pie_qdisc_dequeue_measures_delay(struct kunit *test)
{
	struct tc_pie_xstats st;
	struct Qdisc *sch;
	psched_time_t qdelay;

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	sch = pie_sch(test);
	pie_enqueue_n(test, 2, PKT_LEN);
	/* The head arrived 40 ms ago. */
	get_pie_cb(sch->q.head)->enqueue_time = psched_get_time() - MS(40);
	kfree_skb(pie_dequeue(test));

	qdelay = pie_priv(sch)->vars.qdelay;
	KUNIT_EXPECT_GE(test, qdelay, MS(40));
	KUNIT_EXPECT_LT(test, qdelay, MS(50));
	pie_xstats(test, &st);
	KUNIT_EXPECT_GE(test, st.delay, 40000);
	KUNIT_EXPECT_LT(test, st.delay, 50000);

	/* The last packet leaves an empty queue: no delay to speak of. */
	kfree_skb(pie_dequeue(test));
	KUNIT_EXPECT_EQ(test, pie_priv(sch)->vars.qdelay, 0);
}

/* tc change limit 4 with 10 queued: 6 leave from the head, counted. */
static void pie_qdisc_change_shrinks_queue(struct kunit *test)
{
	struct qdisc_test_attr limit = { TCA_PIE_LIMIT, 4 };
	struct sk_buff *skb;
	struct Qdisc *sch;
	u32 i;

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	sch = pie_sch(test);
	pie_enqueue_n(test, 10, PKT_LEN);
	KUNIT_EXPECT_EQ(test, pie_change(test, &limit, 1), 0);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 4);
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 4 * PKT_LEN);
	KUNIT_EXPECT_EQ(test, sch->qstats.drops, 6);
	for (i = 6; i < 10; i++) {
		skb = pie_dequeue(test);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_EQ(test, skb->mark, i);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 0);
}

/* xstats.prob is p on the UAPI scale, 2^64 for 100%: p << 8. */
static void pie_qdisc_xstats_prob_scale(struct kunit *test)
{
	struct tc_pie_xstats st;
	struct Qdisc *sch;

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	sch = pie_sch(test);
	pie_priv(sch)->vars.prob = MAX_PROB / 4;
	pie_xstats(test, &st);
	KUNIT_EXPECT_EQ(test, st.prob, (MAX_PROB / 4) << 8);
	KUNIT_EXPECT_EQ(test, st.dq_rate_estimating, 0);
}

/*
 * Project behaviour: held at 300 ms the probability reaches 100% and
 * stays there, so tc -s shows 100%, not a wrapped value. From 0 the
 * derived trajectory (pie_math) passes 77% after 20 updates and then
 * gains 4% per update (2% cap + 2% above 250 ms): 100% within 26.
 */
static void pie_qdisc_xstats_prob_saturates(struct kunit *test)
{
	struct tc_pie_xstats st;
	struct pie_test_priv *q;
	int i;

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	q = pie_priv(pie_sch(test));
	for (i = 0; i < 40; i++) {
		q->vars.qdelay = MS(300);
		q->vars.qdelay_old = MS(300);
		pie_calculate_probability(&q->params, &q->vars, 200000);
	}
	pie_xstats(test, &st);
	/* MAX_PROB << 8 = 2^64 - 256: 100% to 1 part in 2^56 */
	KUNIT_EXPECT_EQ(test, st.prob, MAX_PROB << 8);
}

/*
 * The update timer runs the controller on its own: re-armed with 300 ms
 * of delay standing and tupdate one jiffy, it raises p (by 2% at its
 * first update, pie_math's "over 250 ms from 0"). It must stop when the
 * qdisc is destroyed, which exit does: KASAN would report a timer
 * running on freed memory.
 */
static void pie_qdisc_timer_updates(struct kunit *test)
{
	struct qdisc_test_attr tupdate = { TCA_PIE_TUPDATE, 1 };
	struct pie_test_priv *q;
	struct Qdisc *sch;
	u64 prob;

	KUNIT_ASSERT_EQ(test, pie_create(test, &tupdate, 1), 0);
	sch = pie_sch(test);
	q = pie_priv(sch);
	pie_enqueue_n(test, 10, PKT_LEN);
	spin_lock_bh(qdisc_lock(sch));
	q->vars.qdelay = MS(300);
	q->vars.qdelay_old = MS(300);
	spin_unlock_bh(qdisc_lock(sch));

	mod_timer(&q->adapt_timer, jiffies + 1);
	msleep(jiffies_to_msecs(20));

	spin_lock_bh(qdisc_lock(sch));
	prob = q->vars.prob;
	spin_unlock_bh(qdisc_lock(sch));
	KUNIT_EXPECT_GE(test, prob, MAX_PROB / 50);
}

/* Project behaviour: reset leaves no controller state behind. */
static void pie_qdisc_reset_clears_controller(struct kunit *test)
{
	struct pie_test_priv *q;
	struct Qdisc *sch;

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	sch = pie_sch(test);
	q = pie_priv(sch);
	pie_enqueue_n(test, 3, PKT_LEN);
	q->vars.prob = MAX_PROB / 3;
	q->vars.qdelay = MS(80);
	q->vars.qdelay_old = MS(60);
	q->vars.burst_time = 0;
	q->vars.accu_prob = MAX_PROB / 2;
	q->vars.avg_dq_rate = 1234;
	q->vars.backlog_old = 3 * PKT_LEN;

	/* As dev_deactivate() does: under RTNL and the qdisc lock. */
	rtnl_lock();
	spin_lock_bh(qdisc_lock(sch));
	qdisc_reset(sch);
	spin_unlock_bh(qdisc_lock(sch));
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 0);
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 0);
	KUNIT_EXPECT_EQ(test, q->vars.prob, 0);
	KUNIT_EXPECT_EQ(test, q->vars.qdelay, 0);
	KUNIT_EXPECT_EQ(test, q->vars.qdelay_old, 0);
	KUNIT_EXPECT_EQ(test, q->vars.burst_time, MS(150));
	KUNIT_EXPECT_EQ(test, q->vars.accu_prob, 0);
	KUNIT_EXPECT_EQ(test, q->vars.avg_dq_rate, 0);
	KUNIT_EXPECT_EQ(test, q->vars.backlog_old, 0);
}

struct pie_bad_case {
	const char *name;
	int type;
	u32 value;
};

/*
 * Values iproute2 (tc/q_pie.c) never sends: it leaves out a zero limit,
 * target or tupdate and refuses alpha or beta above 32.  Raw netlink can.
 */
static const struct pie_bad_case pie_bad_cases[] = {
	{ "tupdate 0 would stop the timer", TCA_PIE_TUPDATE, 0 },
	{ "alpha 33", TCA_PIE_ALPHA, 33 },
	{ "alpha U32_MAX overflows the gain", TCA_PIE_ALPHA, U32_MAX },
	{ "beta 33", TCA_PIE_BETA, 33 },
	{ "target 0", TCA_PIE_TARGET, 0 },
	{ "limit 0", TCA_PIE_LIMIT, 0 },
};

static void pie_bad_case_desc(const struct pie_bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pie_bad, pie_bad_cases, pie_bad_case_desc);

/* Project behaviour: refused at init, with a reason for tc to print. */
static void pie_qdisc_rejects_bad_attr_at_init(struct kunit *test)
{
	const struct pie_bad_case *c = test->param_value;
	struct qdisc_test_attr attr = { c->type, c->value };
	struct qdisc_test_env *env = test->priv;

	KUNIT_EXPECT_LT(test, pie_create(test, &attr, 1), 0);
	KUNIT_EXPECT_NOT_NULL(test, env->extack._msg);
}

/* Project behaviour: refused at change, and nothing changed. */
static void pie_qdisc_rejects_bad_attr_at_change(struct kunit *test)
{
	const struct pie_bad_case *c = test->param_value;
	struct qdisc_test_attr attr = { c->type, c->value };
	u32 before[TCA_PIE_MAX + 1], after[TCA_PIE_MAX + 1];
	int i;

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	pie_dump_options(test, before);
	KUNIT_EXPECT_LT(test, pie_change(test, &attr, 1), 0);
	pie_dump_options(test, after);
	for (i = 1; i <= TCA_PIE_MAX; i++)
		KUNIT_EXPECT_EQ_MSG(test, after[i], before[i], "attribute %d", i);
}

/*
 * Project behaviour: tc sends a target of up to U32_MAX us ("target
 * 20s"), and the dump gives it back through 64 ns ticks like any other
 * (pie_attr_expected); upstream truncates the nanoseconds to 32 bits,
 * so 20 s comes back as (20e9 mod 2^32) ns = 2820130 us.
 */
static void pie_qdisc_target_past_u32_ns(struct kunit *test)
{
	static const struct pie_attr_case targets[] = {
		{ "target 20s", TCA_PIE_TARGET, 20 * USEC_PER_SEC },
		{ "target U32_MAX us", TCA_PIE_TARGET, U32_MAX },
	};
	struct qdisc_test_attr attr = { TCA_PIE_TARGET, targets[0].value };
	u32 v[TCA_PIE_MAX + 1];

	KUNIT_ASSERT_EQ(test, pie_create(test, &attr, 1), 0);
	pie_dump_options(test, v);
	KUNIT_EXPECT_EQ(test, v[TCA_PIE_TARGET], 20 * USEC_PER_SEC);
	attr.value = targets[1].value;
	KUNIT_ASSERT_EQ(test, pie_change(test, &attr, 1), 0);
	pie_dump_options(test, v);
	/* 4294967295000 ns is 67108863984 ticks and 375/1000 of one */
	KUNIT_EXPECT_EQ(test, v[TCA_PIE_TARGET], pie_attr_expected(&targets[1]));
	KUNIT_EXPECT_EQ(test, v[TCA_PIE_TARGET], 4294967294U);
}

/*
 * fq_pie runs sch_pie.c's controller once per flow. Its file is the
 * distro's on both builds, so its private data is laid out alike on
 * both; this is that layout up to the update timer.
 */
struct fq_pie_test_flow {
	struct pie_vars vars;
	s32 deficit;
	u32 backlog;
	u32 qlen;
	struct list_head flowchain;
	struct sk_buff *head;
	struct sk_buff *tail;
};

struct fq_pie_test_priv {
	struct tcf_proto __rcu *filter_list;
	struct tcf_block *block;
	struct fq_pie_test_flow *flows;
	struct Qdisc *sch;
	struct list_head old_flows;
	struct list_head new_flows;
	struct pie_params p_params;
	u32 ecn_prob, flows_cnt, flows_cursor, quantum, memory_limit;
	u32 new_flow_count, memory_usage, overmemory;
	struct pie_stats stats;
	struct timer_list adapt_timer;
};

/* iproute2 sends fq_pie's options flagged, and fq_pie parses strictly. */
static int fq_pie_test_init(struct kunit *test)
{
	int err = qdisc_test_setup(test, "fq_pie");

	qdisc_test_env(test)->nested_flag = true;
	return err;
}

/* MAX_PROB per tick of delay for a gain of 16/16 per second */
#define FQ_PIE_PER_TICK		(MAX_PROB / PSCHED_TICKS_PER_SEC)
#define FQ_PIE_TARGET		MS(15)	/* fq_pie's default */
#define FQ_PIE_D		100	/* ticks, 6.4 us */

struct fq_pie_gain_case {
	const char *name;
	u32 alpha, beta;
	u64 prob;				/* before the update */
	psched_time_t qdelay, qdelay_old;
	u64 expected;				/* after it */
};

/*
 * One update of a flow at p = 50% (no auto-tuning: the gains are taken
 * whole, RFC 8033 section 4.2), p += alpha/16 * (qdelay - target) +
 * beta/16 * (qdelay - qdelay_old), a gain g/16 per second being
 * floor(g * FQ_PIE_PER_TICK / 16) per tick. fq_pie's policy takes any
 * u32 gain, and the distro runs with it: 64 must move p exactly twice
 * as far as 32, not be cut to iproute2's 32.
 */
static const struct fq_pie_gain_case fq_pie_gain_cases[] = {
	{ "alpha 32, under target", 32, 0, MAX_PROB / 2,
	  FQ_PIE_TARGET - FQ_PIE_D, FQ_PIE_TARGET - FQ_PIE_D,
	  MAX_PROB / 2 - 2 * FQ_PIE_PER_TICK * FQ_PIE_D },
	{ "alpha 64, under target", 64, 0, MAX_PROB / 2,
	  FQ_PIE_TARGET - FQ_PIE_D, FQ_PIE_TARGET - FQ_PIE_D,
	  MAX_PROB / 2 - 4 * FQ_PIE_PER_TICK * FQ_PIE_D },
	/* 1000/16 = 62.5; FQ_PIE_PER_TICK is even */
	{ "alpha 1000, under target", 1000, 0, MAX_PROB / 2,
	  FQ_PIE_TARGET - FQ_PIE_D, FQ_PIE_TARGET - FQ_PIE_D,
	  MAX_PROB / 2 - FQ_PIE_PER_TICK / 2 * 125 * FQ_PIE_D },
	{ "beta 64, delay falling", 0, 64, MAX_PROB / 2,
	  FQ_PIE_TARGET, FQ_PIE_TARGET + FQ_PIE_D,
	  MAX_PROB / 2 - 4 * FQ_PIE_PER_TICK * FQ_PIE_D },
	/*
	 * Under target by D but rising by D: the two terms, each about
	 * 8.6e19 (past 2^63), cancel but for alpha - beta = 16/16 per
	 * second (3e9 / 16 is whole, so the floors cancel too).
	 */
	{ "alpha 3e9 + 16, beta 3e9, terms cancel", 3000000016U, 3000000000U,
	  MAX_PROB / 2, FQ_PIE_TARGET - FQ_PIE_D, FQ_PIE_TARGET - 2 * FQ_PIE_D,
	  MAX_PROB / 2 - FQ_PIE_PER_TICK * FQ_PIE_D },
	/* (2^32 - 1)/16 per second for 1 ms: 268,000 times p's range */
	{ "alpha U32_MAX, under target", U32_MAX, 0, MAX_PROB / 2,
	  FQ_PIE_TARGET - MS(1), FQ_PIE_TARGET - MS(1), 0 },
};

static void fq_pie_gain_case_desc(const struct fq_pie_gain_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fq_pie_gain, fq_pie_gain_cases, fq_pie_gain_case_desc);

/* An fq_pie qdisc whose update timer is stopped: the tests update it. */
static struct fq_pie_test_priv *fq_pie_create(struct kunit *test,
					      const struct qdisc_test_attr *attrs,
					      int n)
{
	struct fq_pie_test_priv *q;

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, attrs, n), 0);
	q = qdisc_priv(qdisc_test_sch(test));
	del_timer_sync(&q->adapt_timer);
	/* the layout above still matches */
	KUNIT_ASSERT_PTR_EQ(test, q->sch, qdisc_test_sch(test));
	return q;
}

/*
 * Run fq_pie's update timer once on its one flow, in the state given.
 * A tupdate of 0 jiffies keeps the timer from re-arming itself, so
 * exactly one update runs.
 */
static u64 fq_pie_update_once(struct kunit *test, u32 alpha, u32 beta, u64 prob,
			      psched_time_t qdelay, psched_time_t qdelay_old)
{
	const struct qdisc_test_attr attrs[] = {
		{ TCA_FQ_PIE_FLOWS, 1 },
		{ TCA_FQ_PIE_TUPDATE, 0 },
		{ TCA_FQ_PIE_ALPHA, alpha },
		{ TCA_FQ_PIE_BETA, beta },
	};
	struct fq_pie_test_priv *q;
	struct Qdisc *sch;
	int i;

	q = fq_pie_create(test, attrs, ARRAY_SIZE(attrs));
	sch = qdisc_test_sch(test);
	KUNIT_ASSERT_EQ(test, q->flows_cnt, 1);
	KUNIT_ASSERT_EQ(test, q->p_params.alpha, alpha);
	KUNIT_ASSERT_EQ(test, q->p_params.beta, beta);
	KUNIT_ASSERT_EQ(test, q->p_params.target, FQ_PIE_TARGET);

	spin_lock_bh(qdisc_lock(sch));
	q->flows[0].vars.prob = prob;
	q->flows[0].vars.qdelay = qdelay;
	q->flows[0].vars.qdelay_old = qdelay_old;
	spin_unlock_bh(qdisc_lock(sch));

	mod_timer(&q->adapt_timer, jiffies);
	for (i = 0; i < 50 && timer_pending(&q->adapt_timer); i++)
		msleep(20);
	/* it ran (del_timer_sync waits for its end), and did not re-arm */
	KUNIT_EXPECT_EQ(test, del_timer_sync(&q->adapt_timer), 0);

	spin_lock_bh(qdisc_lock(sch));
	prob = q->flows[0].vars.prob;
	spin_unlock_bh(qdisc_lock(sch));
	return prob;
}

static void fq_pie_qdisc_gain(struct kunit *test)
{
	const struct fq_pie_gain_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, fq_pie_update_once(test, c->alpha, c->beta, c->prob,
						 c->qdelay, c->qdelay_old),
			c->expected);
}

/*
 * Project behaviour: at p = 5% the gains are halved (RFC 8033 section
 * 4.2), and (2^32 - 1)/32 per second for 1 ms over target asks for p
 * to rise by 134,000 times its range: p stops at 100%. Upstream's gain
 * (2^32 - 1) * FQ_PIE_PER_TICK wraps in 64 bits, and p passes 100%
 * (about 1.78 times MAX_PROB) unseen, as pie_math's
 * pie_prob_never_exceeds_max shows for small gains.
 */
static void fq_pie_qdisc_huge_gain_saturates(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fq_pie_update_once(test, U32_MAX, 0, MAX_PROB / 20,
						 FQ_PIE_TARGET + MS(1),
						 FQ_PIE_TARGET + MS(1)),
			MAX_PROB);
}

/*
 * Whole-qdisc differential runs: a seeded schedule of arrivals,
 * departures and controller updates through the qdisc's own enqueue
 * and dequeue, digested as it goes (the verdict of every packet, the
 * flow of every departure, p after every update, the counters);
 * tools/kunit compare expects the same kfork-diff digests on both
 * builds. The inputs are the same on both: time and randomness are the
 * only others, so kretprobes on ktime_get() and the random sources hand
 * this task a virtual clock and a fixed random sequence (every other
 * caller gets the real ones). The schedule keeps p under 100% and the
 * backlog far under 16 MiB, out of reach of the fork's marked fixes.
 */
#define DIFF_STEPS		3000	/* of 1 ms: 200 updates of 15 ms */
#define DIFF_EVERY		1000
#define DIFF_START_NS		(10ULL * NSEC_PER_SEC)

struct qdisc_diff_source {
	/* the fork draws with get_random_u64(), the distro get_random_bytes() */
	struct kretprobe clock, random, bytes;
	struct task_struct *task;
	u64 now_ns;
	u64 random_state;
};

/* One run at a time: KUnit runs its cases one after another. */
static struct qdisc_diff_source *qdisc_diff_active;

static int qdisc_diff_clock(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qdisc_diff_source *src = READ_ONCE(qdisc_diff_active);

	if (src && current == src->task)
		regs_set_return_value(regs, src->now_ns);
	return 0;
}

static int qdisc_diff_random(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qdisc_diff_source *src = READ_ONCE(qdisc_diff_active);

	if (src && current == src->task)
		regs_set_return_value(regs, qdisc_test_xorshift(&src->random_state));
	return 0;
}

/* get_random_bytes(buf, len), as its return handler finds them */
struct qdisc_diff_buf {
	u8 *buf;
	size_t len;
};

static int qdisc_diff_bytes_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qdisc_diff_source *src = READ_ONCE(qdisc_diff_active);
	struct qdisc_diff_buf *b = (struct qdisc_diff_buf *)ri->data;

	if (!src || current != src->task)
		return 1;	/* not ours: no return handler */
	b->buf = (u8 *)regs_get_kernel_argument(regs, 0);
	b->len = regs_get_kernel_argument(regs, 1);
	return 0;
}

/* The same sequence as get_random_u64() gets, 8 bytes a value. */
static int qdisc_diff_bytes(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qdisc_diff_source *src = READ_ONCE(qdisc_diff_active);
	struct qdisc_diff_buf *b = (struct qdisc_diff_buf *)ri->data;
	size_t i;
	u64 v;

	for (i = 0; i < b->len; i += sizeof(v)) {
		v = qdisc_test_xorshift(&src->random_state);
		memcpy(b->buf + i, &v, min(sizeof(v), b->len - i));
	}
	return 0;
}

static int qdisc_diff_source_init(struct kunit_resource *res, void *context)
{
	struct qdisc_diff_source *src = context;
	int err;

	src->clock.kp.symbol_name = "ktime_get";
	src->clock.handler = qdisc_diff_clock;
	src->clock.maxactive = 64;
	src->random.kp.symbol_name = "get_random_u64";
	src->random.handler = qdisc_diff_random;
	src->random.maxactive = 64;
	src->bytes.kp.symbol_name = "get_random_bytes";
	src->bytes.entry_handler = qdisc_diff_bytes_entry;
	src->bytes.handler = qdisc_diff_bytes;
	src->bytes.data_size = sizeof(struct qdisc_diff_buf);
	src->bytes.maxactive = 64;
	src->task = current;
	src->now_ns = DIFF_START_NS;
	src->random_state = 0x2545f4914f6cdd1dULL;
	WRITE_ONCE(qdisc_diff_active, src);
	res->data = src;
	err = register_kretprobe(&src->clock);
	if (err)
		goto out;
	err = register_kretprobe(&src->random);
	if (err)
		goto out_clock;
	err = register_kretprobe(&src->bytes);
	if (!err)
		return 0;
	unregister_kretprobe(&src->random);
out_clock:
	unregister_kretprobe(&src->clock);
out:
	WRITE_ONCE(qdisc_diff_active, NULL);
	return err;
}

static void qdisc_diff_source_free(struct kunit_resource *res)
{
	struct qdisc_diff_source *src = res->data;

	unregister_kretprobe(&src->bytes);
	unregister_kretprobe(&src->random);
	unregister_kretprobe(&src->clock);
	WRITE_ONCE(qdisc_diff_active, NULL);
	kfree(src);
}

/* The virtual sources, until the test ends (even by a failed assertion). */
static struct qdisc_diff_source *qdisc_diff_source(struct kunit *test)
{
	struct qdisc_diff_source *src;

	if (!IS_ENABLED(CONFIG_KRETPROBES))
		kunit_skip(test, "needs CONFIG_KRETPROBES for its virtual clock");
	src = kzalloc(sizeof(*src), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	if (!kunit_alloc_resource(test, qdisc_diff_source_init,
				  qdisc_diff_source_free, GFP_KERNEL, src)) {
		kfree(src);
		KUNIT_ASSERT_FAILURE(test, "cannot put kretprobes on ktime_get and get_random_*");
	}
	return src;
}

struct qdisc_diff_config {
	const char *key;
	struct qdisc_test_attr attrs[3];
	u8 tos;		/* INET_ECN_ECT_0: ECN-capable traffic */
	u32 flows;	/* fq_pie: the packets' flows (skb->priority) */
};

/* What a run saw, besides its digest. */
struct qdisc_diff_result {
	u64 peak_prob;
	u32 enqueued, dropped, sent;
};

/*
 * The controller update that the qdisc's timer runs every tupdate, run
 * here on the virtual schedule instead (the timer is stopped); each
 * flow's p goes into the digest.
 */
static void qdisc_diff_update(struct Qdisc *sch, const struct qdisc_diff_config *c,
			      struct qdisc_diff_result *r, u64 *hash)
{
	u32 i;

	spin_lock_bh(qdisc_lock(sch));
	if (!c->flows) {
		struct pie_test_priv *q = pie_priv(sch);

		pie_calculate_probability(&q->params, &q->vars, sch->qstats.backlog);
		r->peak_prob = max(r->peak_prob, q->vars.prob);
		*hash = qdisc_test_fnv(*hash, q->vars.prob);
	} else {
		struct fq_pie_test_priv *q = qdisc_priv(sch);

		for (i = 0; i < q->flows_cnt; i++) {
			struct fq_pie_test_flow *f = &q->flows[i];

			pie_calculate_probability(&q->p_params, &f->vars, f->backlog);
			r->peak_prob = max(r->peak_prob, f->vars.prob);
			*hash = qdisc_test_fnv(*hash, f->vars.prob);
		}
	}
	spin_unlock_bh(qdisc_lock(sch));
}

/* One departure: 0 if the queue was empty, else 1 + the packet's flow. */
static u64 qdisc_diff_depart(struct kunit *test, struct qdisc_diff_result *r)
{
	struct sk_buff *skb = qdisc_test_dequeue(test);
	u64 seen = skb ? 1 + TC_H_MIN(skb->priority) : 0;

	r->sent += !!skb;
	kfree_skb(skb);
	return seen;
}

/*
 * 1 ms per step: 0 to 4 arrivals of 1000 bytes, 200 us apart (2 per ms
 * on average), then one or two departures, 8 every 5 ms: the link is
 * offered 1.25 times its rate, so p must settle near 1 - 1/1.25 = 20%
 * once it has drained what built up during the burst allowance. fq_pie's packets go
 * to its two flows alike, which overloads each of them as much.
 */
static void qdisc_diff_run(struct kunit *test, const struct qdisc_diff_config *c,
			   struct qdisc_diff_result *r)
{
	struct qdisc_diff_source *src = qdisc_diff_source(test);
	struct Qdisc *sch = qdisc_test_sch(test);
	u64 seed = 0x9e3779b97f4a7c15ULL, hash = QDISC_TEST_FNV_START;
	u64 step_ns = DIFF_START_NS;
	int step, i, n, ret;

	for (step = 1; step <= DIFF_STEPS; step++, step_ns += NSEC_PER_MSEC) {
		n = qdisc_test_xorshift(&seed) % 5;
		for (i = 0; i < n; i++) {
			struct sk_buff *skb = pie_packet(test, PKT_LEN, c->tos, 0);

			if (c->flows)
				skb->priority = sch->handle |
					(1 + qdisc_test_xorshift(&seed) % c->flows);
			WRITE_ONCE(src->now_ns, step_ns + i * 200 * NSEC_PER_USEC);
			ret = qdisc_test_enqueue(test, skb);
			r->enqueued += ret == NET_XMIT_SUCCESS;
			r->dropped += ret != NET_XMIT_SUCCESS;
			hash = qdisc_test_fnv(hash, ret);
		}
		for (i = (step - 1) * 8 / 5; i < step * 8 / 5; i++) {
			WRITE_ONCE(src->now_ns, step_ns + (900 + i % 2 * 50) * NSEC_PER_USEC);
			hash = qdisc_test_fnv(hash, qdisc_diff_depart(test, r));
		}
		if (step % 15 == 0)
			qdisc_diff_update(sch, c, r, &hash);
		if (step % DIFF_EVERY == 0) {
			hash = qdisc_test_fnv(hash, sch->qstats.backlog);
			hash = qdisc_test_fnv(hash, sch->qstats.drops);
			kunit_info(test, "kfork-diff: %s.%04d %016llx\n", c->key, step, hash);
		}
	}
}

static int qdisc_diff_attr_count(const struct qdisc_diff_config *c)
{
	int n = 0;

	while (n < ARRAY_SIZE(c->attrs) && c->attrs[n].type)
		n++;
	return n;
}

static void qdisc_diff_config_desc(const struct qdisc_diff_config *c, char *desc)
{
	strscpy(desc, c->key, KUNIT_PARAM_DESC_SIZE);
}

/*
 * What holds whatever the digests: the controller worked (p past 10%)
 * and stayed out of the fixes (p never at 100%, where the fork clamps
 * and the distro passes it), the overload was dropped, and every packet
 * taken in was sent or is still queued.
 */
static void qdisc_diff_expect(struct kunit *test, const struct qdisc_diff_result *r)
{
	struct Qdisc *sch = qdisc_test_sch(test);

	KUNIT_EXPECT_GT(test, r->peak_prob, MAX_PROB / 10);
	KUNIT_EXPECT_LT(test, r->peak_prob, MAX_PROB);
	KUNIT_EXPECT_GT(test, r->dropped, 0);
	KUNIT_EXPECT_EQ(test, r->enqueued, r->sent + sch->q.qlen);
}

/*
 * The digests only count where tools/kunit compare sets the builds side
 * by side; a run of one build checks what holds whatever the digests.
 * So each table runs whole at full size (make check's compare) and only
 * its first configuration otherwise: every configuration is a second of
 * TCG or more.
 */
static bool full;
module_param(full, bool, 0444);
MODULE_PARM_DESC(full, "every differential configuration, not the first of each table");

static const void *qdisc_diff_first_unless_full(const void *prev, char *desc,
						const void *(*gen)(const void *, char *))
{
	return prev && !full ? NULL : gen(prev, desc);
}

static const struct qdisc_diff_config pie_diff_configs[] = {
	{ "pie_qdisc.defaults" },
	{ "pie_qdisc.ecn", { { TCA_PIE_ECN, 1 } }, INET_ECN_ECT_0 },
	/* a 50 ms target keeps 50 KB queued: the estimator needs 16 KB */
	{ "pie_qdisc.rate_mode",
	  { { TCA_PIE_DQ_RATE_ESTIMATOR, 1 }, { TCA_PIE_TARGET, 50000 } } },
};

KUNIT_ARRAY_PARAM(pie_diff, pie_diff_configs, qdisc_diff_config_desc);

static const void *pie_diff_run_gen(const void *prev, char *desc)
{
	return qdisc_diff_first_unless_full(prev, desc, pie_diff_gen_params);
}

static void pie_qdisc_diff_schedule(struct kunit *test)
{
	const struct qdisc_diff_config *c = test->param_value;
	struct qdisc_diff_result r = {};
	struct tc_pie_xstats st;

	KUNIT_ASSERT_EQ(test, pie_create(test, c->attrs, qdisc_diff_attr_count(c)), 0);
	qdisc_diff_run(test, c, &r);
	qdisc_diff_expect(test, &r);
	pie_xstats(test, &st);
	KUNIT_EXPECT_EQ(test, st.packets_in, r.enqueued);
	/* ECN-capable packets are marked, not dropped, while p <= 10% */
	if (c->tos)
		KUNIT_EXPECT_GT(test, st.ecn_mark, 0);
}

static struct kunit_case pie_qdisc_cases[] = {
	KUNIT_CASE(pie_qdisc_defaults),
	KUNIT_CASE_PARAM(pie_qdisc_attr_at_init, pie_attr_gen_params),
	KUNIT_CASE_PARAM(pie_qdisc_attr_at_change, pie_attr_gen_params),
	KUNIT_CASE(pie_qdisc_fifo_order),
	KUNIT_CASE(pie_qdisc_limit_overflow),
	KUNIT_CASE(pie_qdisc_drops_past_threshold),
	KUNIT_CASE(pie_qdisc_spares_below_threshold),
	KUNIT_CASE_PARAM(pie_qdisc_ecn_mark, pie_ecn_gen_params),
	KUNIT_CASE(pie_qdisc_burst_allowance_expires),
	KUNIT_CASE(pie_qdisc_dequeue_measures_delay),
	KUNIT_CASE(pie_qdisc_rate_estimator_samples),
	KUNIT_CASE(pie_qdisc_rate_estimator_averages),
	KUNIT_CASE(pie_qdisc_rate_estimator_needs_a_queue),
	KUNIT_CASE(pie_qdisc_change_shrinks_queue),
	KUNIT_CASE(pie_qdisc_xstats_prob_scale),
	KUNIT_CASE(pie_qdisc_xstats_prob_saturates),
	KUNIT_CASE(pie_qdisc_timer_updates),
	KUNIT_CASE(pie_qdisc_reset_clears_controller),
	KUNIT_CASE(pie_qdisc_dump_overflow),
	KUNIT_CASE_PARAM(pie_qdisc_rejects_bad_attr_at_init, pie_bad_gen_params),
	KUNIT_CASE_PARAM(pie_qdisc_rejects_bad_attr_at_change, pie_bad_gen_params),
	KUNIT_CASE(pie_qdisc_target_past_u32_ns),
	KUNIT_CASE_PARAM(pie_qdisc_diff_schedule, pie_diff_run_gen),
	{}
};

static struct kunit_suite pie_qdisc_suite = {
	.name = "pie_qdisc",
	.init = pie_test_init,
	.exit = qdisc_test_teardown,
	.test_cases = pie_qdisc_cases,
};

static const struct qdisc_diff_config fq_pie_diff_configs[] = {
	{ "fq_pie_qdisc.two_flows", { { TCA_FQ_PIE_FLOWS, 2 } }, 0, 2 },
	{ "fq_pie_qdisc.ecn", { { TCA_FQ_PIE_FLOWS, 2 }, { TCA_FQ_PIE_ECN, 1 } },
	  INET_ECN_ECT_0, 2 },
};

KUNIT_ARRAY_PARAM(fq_pie_diff, fq_pie_diff_configs, qdisc_diff_config_desc);

static const void *fq_pie_diff_run_gen(const void *prev, char *desc)
{
	return qdisc_diff_first_unless_full(prev, desc, fq_pie_diff_gen_params);
}

static void fq_pie_qdisc_diff_schedule(struct kunit *test)
{
	const struct qdisc_diff_config *c = test->param_value;
	struct qdisc_diff_result r = {};
	struct tc_fq_pie_xstats st;

	fq_pie_create(test, c->attrs, qdisc_diff_attr_count(c));
	qdisc_diff_run(test, c, &r);
	qdisc_diff_expect(test, &r);
	qdisc_test_xstats(test, &st, sizeof(st));
	KUNIT_EXPECT_EQ(test, st.packets_in, r.enqueued);
	KUNIT_EXPECT_EQ(test, st.dropped, r.dropped);
	if (c->tos)
		KUNIT_EXPECT_GT(test, st.ecn_mark, 0);
}

static struct kunit_case fq_pie_qdisc_cases[] = {
	KUNIT_CASE_PARAM(fq_pie_qdisc_gain, fq_pie_gain_gen_params),
	KUNIT_CASE(fq_pie_qdisc_huge_gain_saturates),
	KUNIT_CASE_PARAM(fq_pie_qdisc_diff_schedule, fq_pie_diff_run_gen),
	{}
};

static struct kunit_suite fq_pie_qdisc_suite = {
	.name = "fq_pie_qdisc",
	.init = fq_pie_test_init,
	.exit = qdisc_test_teardown,
	.test_cases = fq_pie_qdisc_cases,
};

/*
 * pie_bench is a benchmark, not a test: it asserts nothing about time.
 * tools/kunit bench boots each build with sch_pie_qdisc_kunit.bench=1
 * and compares the figures it prints ("kfork-bench: KEY VALUE"), the
 * lower the better. Without the parameter it skips, so ordinary runs
 * do not pay for it. Each figure is the best of BENCH_ROUNDS, the
 * round least disturbed by the host.
 */
static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench, "run the pie_bench benchmark (tools/kunit bench)");

#define BENCH_ROUNDS	5
#define BENCH_BATCH	64
#define BENCH_PACKETS	(BENCH_BATCH * 128)
#define BENCH_UPDATES	16384

/* BENCH_UPDATES probability updates over delays around the target. */
static u64 pie_bench_updates(void)
{
	struct pie_params params;
	struct pie_vars vars;
	u64 start;
	int i;

	pie_params_init(&params);
	pie_vars_init(&vars);
	start = ktime_get_ns();
	for (i = 0; i < BENCH_UPDATES; i++) {
		/* 0 to 40 ms and back: p rises and decays, every branch runs. */
		WRITE_ONCE(vars.qdelay, MS(i % 41));
		pie_calculate_probability(&params, &vars, 100 * PKT_LEN);
	}
	return ktime_get_ns() - start;
}

static void pie_bench_run(struct kunit *test)
{
	struct qdisc_test_env *env = test->priv;
	struct sk_buff *skbs[BENCH_BATCH];
	u64 packets = U64_MAX, updates = U64_MAX, ns;
	int i;

	if (!bench)
		kunit_skip(test, "a benchmark: tools/kunit bench runs it");

	KUNIT_ASSERT_EQ(test, pie_create(test, NULL, 0), 0);
	for (i = 0; i < BENCH_BATCH; i++)
		skbs[i] = pie_packet(test, PKT_LEN, 0, i);
	for (i = 0; i < BENCH_ROUNDS; i++) {
		/* With p at 0 nothing is dropped. */
		ns = qdisc_test_bench_laps(test, skbs, BENCH_BATCH,
					   BENCH_PACKETS / BENCH_BATCH);
		packets = min(packets, ns);
		updates = min(updates, pie_bench_updates());
	}
	for (i = 0; i < BENCH_BATCH; i++)
		kfree_skb(skbs[i]);

	kunit_info(test, "kfork-bench: pie.enqueue_dequeue_ns %llu\n",
		   div_u64(packets, BENCH_PACKETS));
	kunit_info(test, "kfork-bench: pie.update_ns %llu\n",
		   div_u64(updates, BENCH_UPDATES));
	/* Memory per qdisc beyond struct Qdisc, which both share. */
	kunit_info(test, "kfork-bench: pie.qdisc_priv_bytes %u\n", env->ops->priv_size);
}

static struct kunit_case pie_bench_cases[] = {
	KUNIT_CASE(pie_bench_run),
	{}
};

static struct kunit_suite pie_bench_suite = {
	.name = "pie_bench",
	.init = pie_test_init,
	.exit = qdisc_test_teardown,
	.test_cases = pie_bench_cases,
};

kunit_test_suites(&pie_qdisc_suite, &fq_pie_qdisc_suite, &pie_bench_suite);

MODULE_LICENSE("GPL");
