// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for the hhf qdisc through its Qdisc_ops on an Ethernet
 * device, as tc and the stack drive it: every TCA_HHF_* attribute at
 * init, change and dump, bad attributes, order, the packet limit, the
 * drop policy, statistics, reset, and the fixes upstream needed over
 * the years (limit 1, a failed init, a zero quantum or weight, a round
 * that overflows the deficit, state left by reset).  It uses only the
 * ops and the UAPI, so it runs against both implementations.
 *
 * Expected values come from include/uapi/linux/pkt_sched.h, the seed
 * commit's defaults and the derivations in the comments.
 */

#include <kunit/kfork_fs_kunit.h>

#include "sch_qdisc_kunit.h"

#define PKT	1000
#define ADMIT	10000	/* 1000-byte packets: a flow passes with its 11th */

static u32 hhf_jiffies_usecs(u32 us)
{
	return jiffies_to_usecs(usecs_to_jiffies(us));
}

static struct tc_hhf_xstats hhf_stats(struct kunit *test)
{
	struct tc_hhf_xstats st;

	qdisc_test_xstats(test, &st, sizeof(st));
	return st;
}

static int hhf_enqueue(struct kunit *test, u32 flow)
{
	return qdisc_test_enqueue(test, qdisc_test_udp(test, flow, PKT, 0));
}

/* Dequeue one packet; its flow number, or 0 if the qdisc was empty. */
static u32 hhf_dequeue_flow(struct kunit *test)
{
	struct sk_buff *skb = qdisc_test_dequeue(test);
	u32 flow;

	if (!skb)
		return 0;
	flow = qdisc_test_flow_of(skb);
	kfree_skb(skb);
	return flow;
}

static void hhf_set(struct kunit *test, int type, u32 value)
{
	const struct qdisc_test_attr attr = { type, value };

	KUNIT_ASSERT_EQ(test, qdisc_test_change(test, &attr, 1), 0);
}

/* Make flow a heavy hitter: 11 packets in and out at admit_bytes 10000. */
static void hhf_make_heavy(struct kunit *test, u32 flow)
{
	int i;

	hhf_set(test, TCA_HHF_ADMIT_BYTES, ADMIT);
	for (i = 0; i < 11; i++) {
		KUNIT_ASSERT_EQ(test, hhf_enqueue(test, flow), NET_XMIT_SUCCESS);
		KUNIT_ASSERT_EQ(test, hhf_dequeue_flow(test), flow);
	}
	KUNIT_ASSERT_EQ(test, hhf_dequeue_flow(test), 0);
	KUNIT_ASSERT_EQ(test, hhf_stats(test).hh_cur_count, 1);
}

/* tc qdisc add dev D root hhf: the seed commit's defaults, in tc's units. */
static void hhf_qdisc_defaults(struct kunit *test)
{
	u32 v[TCA_HHF_MAX + 1];
	struct tc_hhf_xstats st;

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, NULL, 0), 0);
	qdisc_test_dump_options(test, v, TCA_HHF_MAX);
	KUNIT_EXPECT_EQ(test, v[TCA_HHF_BACKLOG_LIMIT], 1000);	/* packets */
	/* The device's MTU with its link header: 1500 + 14. */
	KUNIT_EXPECT_EQ(test, v[TCA_HHF_QUANTUM], 1514);
	KUNIT_EXPECT_EQ(test, v[TCA_HHF_HH_FLOWS_LIMIT], 2048);
	/* 40 ms and 1 s, kept in whole jiffies */
	KUNIT_EXPECT_EQ(test, v[TCA_HHF_RESET_TIMEOUT], hhf_jiffies_usecs(40000));
	KUNIT_EXPECT_EQ(test, v[TCA_HHF_ADMIT_BYTES], 131072);	/* 128 KiB */
	KUNIT_EXPECT_EQ(test, v[TCA_HHF_EVICT_TIMEOUT], 1000000);
	KUNIT_EXPECT_EQ(test, v[TCA_HHF_NON_HH_WEIGHT], 2);
	st = hhf_stats(test);
	KUNIT_EXPECT_EQ(test, st.drop_overlimit, 0);
	KUNIT_EXPECT_EQ(test, st.hh_overlimit, 0);
	KUNIT_EXPECT_EQ(test, st.hh_tot_count, 0);
	KUNIT_EXPECT_EQ(test, st.hh_cur_count, 0);
}

struct hhf_attr_case {
	const char *name;
	int type;
	u32 value;
	u32 shown;	/* what the dump gives back */
};

/* Timeouts go to whole jiffies and back: HZ=250 in this build (4 ms). */
static const struct hhf_attr_case hhf_attr_cases[] = {
	{ "limit 1", TCA_HHF_BACKLOG_LIMIT, 1, 1 },
	{ "limit 1500", TCA_HHF_BACKLOG_LIMIT, 1500, 1500 },
	{ "quantum 9000", TCA_HHF_QUANTUM, 9000, 9000 },
	{ "quantum 256", TCA_HHF_QUANTUM, 256, 256 },
	{ "quantum 100 is raised to 256", TCA_HHF_QUANTUM, 100, 256 },
	{ "quantum 0 is raised to 256", TCA_HHF_QUANTUM, 0, 256 },
	{ "hh_limit 1", TCA_HHF_HH_FLOWS_LIMIT, 1, 1 },
	{ "hh_limit 2048", TCA_HHF_HH_FLOWS_LIMIT, 2048, 2048 },
	{ "reset_timeout 20ms", TCA_HHF_RESET_TIMEOUT, 20000, 20000 },
	{ "reset_timeout 1us is a jiffy", TCA_HHF_RESET_TIMEOUT, 1, 4000 },
	{ "reset_timeout 5ms rounds up", TCA_HHF_RESET_TIMEOUT, 5000, 8000 },
	{ "admit_bytes 1", TCA_HHF_ADMIT_BYTES, 1, 1 },
	{ "admit_bytes 65536", TCA_HHF_ADMIT_BYTES, 65536, 65536 },
	{ "admit_bytes U32_MAX", TCA_HHF_ADMIT_BYTES, U32_MAX, U32_MAX },
	{ "evict_timeout 2s", TCA_HHF_EVICT_TIMEOUT, 2000000, 2000000 },
	{ "evict_timeout 1us is a jiffy", TCA_HHF_EVICT_TIMEOUT, 1, 4000 },
	{ "non_hh_weight 1", TCA_HHF_NON_HH_WEIGHT, 1, 1 },
	{ "non_hh_weight 1000", TCA_HHF_NON_HH_WEIGHT, 1000, 1000 },
};

static void hhf_attr_case_desc(const struct hhf_attr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hhf_attr, hhf_attr_cases, hhf_attr_case_desc);

static void hhf_check_attr(struct kunit *test, const struct hhf_attr_case *c)
{
	u32 v[TCA_HHF_MAX + 1];

	KUNIT_ASSERT_EQ_MSG(test, HZ, 250, "the timeouts' rounding assumes HZ=250");
	qdisc_test_dump_options(test, v, TCA_HHF_MAX);
	KUNIT_EXPECT_EQ(test, v[c->type], c->shown);
}

static void hhf_qdisc_attr_at_init(struct kunit *test)
{
	const struct hhf_attr_case *c = test->param_value;
	const struct qdisc_test_attr attr = { c->type, c->value };

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, &attr, 1), 0);
	hhf_check_attr(test, c);
}

static void hhf_qdisc_attr_at_change(struct kunit *test)
{
	const struct hhf_attr_case *c = test->param_value;

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, NULL, 0), 0);
	hhf_set(test, c->type, c->value);
	hhf_check_attr(test, c);
}

struct hhf_bad_case {
	const char *name;
	struct qdisc_test_attr attrs[2];
	int err;
};

/*
 * The deficit is an int: quantum * non_hh_weight must be 1..INT_MAX.
 * 2^20 * 2048 = 2^31 is one past; 2^20 * 2047 fits (see below).
 */
static const struct hhf_bad_case hhf_bad_cases[] = {
	{ "hh_limit 2049, past the policy", { { TCA_HHF_HH_FLOWS_LIMIT, 2049 } }, -ERANGE },
	{ "non_hh_weight 0 never ends a round",
	  { { TCA_HHF_NON_HH_WEIGHT, 0 } }, -EINVAL },
	{ "quantum 2000000 non_hh_weight 10000000",
	  { { TCA_HHF_QUANTUM, 2000000 }, { TCA_HHF_NON_HH_WEIGHT, 10000000 } }, -EINVAL },
	{ "quantum 2^20 non_hh_weight 2048",
	  { { TCA_HHF_QUANTUM, 1 << 20 }, { TCA_HHF_NON_HH_WEIGHT, 2048 } }, -EINVAL },
	{ "non_hh_weight U32_MAX", { { TCA_HHF_NON_HH_WEIGHT, U32_MAX } }, -EINVAL },
};

static void hhf_bad_case_desc(const struct hhf_bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hhf_bad, hhf_bad_cases, hhf_bad_case_desc);

static int hhf_bad_count(const struct hhf_bad_case *c)
{
	return c->attrs[1].type ? 2 : 1;
}

/*
 * Refused at init; qdisc_test_create() then runs ->destroy on the
 * half-built qdisc, as qdisc_create() does (upstream once dereferenced
 * NULL there, with the third case).
 */
static void hhf_qdisc_rejects_bad_attr_at_init(struct kunit *test)
{
	const struct hhf_bad_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, qdisc_test_create(test, c->attrs, hhf_bad_count(c)), c->err);
}

/* Refused at change, and the qdisc is as it was. */
static void hhf_qdisc_rejects_bad_attr_at_change(struct kunit *test)
{
	const struct hhf_bad_case *c = test->param_value;
	u32 before[TCA_HHF_MAX + 1], after[TCA_HHF_MAX + 1];
	int i;

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, NULL, 0), 0);
	qdisc_test_dump_options(test, before, TCA_HHF_MAX);
	KUNIT_EXPECT_EQ(test, qdisc_test_change(test, c->attrs, hhf_bad_count(c)), c->err);
	qdisc_test_dump_options(test, after, TCA_HHF_MAX);
	for (i = 1; i <= TCA_HHF_MAX; i++)
		KUNIT_EXPECT_EQ_MSG(test, after[i], before[i], "attribute %d", i);
}

/* The error says what is wrong: project behaviour (upstream is silent). */
static void hhf_qdisc_bad_round_says_why(struct kunit *test)
{
	const struct qdisc_test_attr attr = { TCA_HHF_NON_HH_WEIGHT, 0 };

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, qdisc_test_change(test, &attr, 1), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, qdisc_test_env(test)->extack._msg);
}

/* The largest round that fits: 2^20 * 2047 = 2146435072 <= INT_MAX. */
static void hhf_qdisc_largest_round(struct kunit *test)
{
	const struct qdisc_test_attr attrs[] = {
		{ TCA_HHF_QUANTUM, 1 << 20 }, { TCA_HHF_NON_HH_WEIGHT, 2047 },
	};
	u32 v[TCA_HHF_MAX + 1];

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, attrs, 2), 0);
	qdisc_test_dump_options(test, v, TCA_HHF_MAX);
	KUNIT_EXPECT_EQ(test, v[TCA_HHF_QUANTUM], 1 << 20);
	KUNIT_EXPECT_EQ(test, v[TCA_HHF_NON_HH_WEIGHT], 2047);
	/* And packets flow: the deficit did not wrap negative. */
	KUNIT_EXPECT_EQ(test, hhf_enqueue(test, 1), NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, hhf_dequeue_flow(test), 1);
}

/* One flow's packets leave in the order they came. */
static void hhf_qdisc_fifo_order(struct kunit *test)
{
	u32 i;

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, NULL, 0), 0);
	for (i = 0; i < 10; i++) {
		struct sk_buff *skb = qdisc_test_udp(test, 1, PKT, 0);

		skb->mark = i;
		KUNIT_ASSERT_EQ(test, qdisc_test_enqueue(test, skb), NET_XMIT_SUCCESS);
	}
	KUNIT_EXPECT_EQ(test, qdisc_test_sch(test)->q.qlen, 10);
	KUNIT_EXPECT_EQ(test, qdisc_test_sch(test)->qstats.backlog, 10 * PKT);
	for (i = 0; i < 10; i++) {
		struct sk_buff *skb = qdisc_test_dequeue(test);

		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_EQ(test, skb->mark, i);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_NULL(test, qdisc_test_dequeue(test));
	KUNIT_EXPECT_EQ(test, qdisc_test_sch(test)->qstats.backlog, 0);
	KUNIT_EXPECT_EQ(test, u64_stats_read(&qdisc_test_sch(test)->bstats.packets), 10);
	KUNIT_EXPECT_EQ(test, u64_stats_read(&qdisc_test_sch(test)->bstats.bytes), 10 * PKT);
}

/*
 * limit 5, six packets of one mouse: the sixth makes 6 > 5, and with no
 * heavy hitter queued the mouse bucket's head (the first packet) goes.
 * Its own bucket paid, so the sender hears NET_XMIT_CN.
 */
static void hhf_qdisc_limit_overflow(struct kunit *test)
{
	struct Qdisc *sch;
	u32 i;

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, NULL, 0), 0);
	hhf_set(test, TCA_HHF_BACKLOG_LIMIT, 5);
	sch = qdisc_test_sch(test);
	for (i = 1; i <= 5; i++)
		KUNIT_ASSERT_EQ(test, hhf_enqueue(test, i), NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, hhf_enqueue(test, 6), NET_XMIT_CN);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 5);
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 5 * PKT);
	KUNIT_EXPECT_EQ(test, sch->qstats.drops, 1);
	KUNIT_EXPECT_EQ(test, hhf_stats(test).drop_overlimit, 1);
	for (i = 2; i <= 6; i++)
		KUNIT_EXPECT_EQ(test, hhf_dequeue_flow(test), i);
}

/*
 * On overflow the heavy hitters pay first: one heavy-hitter packet and
 * four of mice fill limit 5; a fifth mouse packet pushes out the heavy
 * hitter's, and since another bucket paid the sender hears success.
 */
static void hhf_qdisc_overflow_drops_heavy_first(struct kunit *test)
{
	u32 i;

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, NULL, 0), 0);
	hhf_make_heavy(test, 100);
	hhf_set(test, TCA_HHF_BACKLOG_LIMIT, 5);
	KUNIT_ASSERT_EQ(test, hhf_enqueue(test, 100), NET_XMIT_SUCCESS);
	for (i = 1; i <= 4; i++)
		KUNIT_ASSERT_EQ(test, hhf_enqueue(test, i), NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, hhf_enqueue(test, 5), NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, qdisc_test_sch(test)->q.qlen, 5);
	KUNIT_EXPECT_EQ(test, hhf_stats(test).drop_overlimit, 1);
	for (i = 1; i <= 5; i++)
		KUNIT_EXPECT_EQ(test, hhf_dequeue_flow(test), i);
	KUNIT_EXPECT_EQ(test, hhf_dequeue_flow(test), 0);
}

/* limit 1 holds one packet (upstream once stalled: qlen < limit). */
static void hhf_qdisc_limit_one(struct kunit *test)
{
	const struct qdisc_test_attr attr = { TCA_HHF_BACKLOG_LIMIT, 1 };
	int i;

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, &attr, 1), 0);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, hhf_enqueue(test, 1), NET_XMIT_SUCCESS);
		KUNIT_EXPECT_EQ(test, qdisc_test_sch(test)->q.qlen, 1);
		KUNIT_EXPECT_EQ(test, hhf_dequeue_flow(test), 1);
	}
	KUNIT_EXPECT_EQ(test, qdisc_test_sch(test)->qstats.drops, 0);
}

/*
 * The smallest quantum, 256, with 1500-byte packets: a round needs
 * several refills before a packet fits, and dequeue still returns each
 * one (a zero quantum once looped forever; it is raised to 256).
 */
static void hhf_qdisc_small_quantum_dequeues(struct kunit *test)
{
	const struct qdisc_test_attr attrs[] = {
		{ TCA_HHF_QUANTUM, 0 }, { TCA_HHF_NON_HH_WEIGHT, 1 },
	};
	int i;

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, attrs, 2), 0);
	for (i = 1; i <= 3; i++)
		KUNIT_ASSERT_EQ(test, qdisc_test_enqueue(test, qdisc_test_udp(test, i, 1500, 0)),
				NET_XMIT_SUCCESS);
	for (i = 1; i <= 3; i++)
		KUNIT_EXPECT_EQ(test, hhf_dequeue_flow(test), i);
	KUNIT_EXPECT_EQ(test, hhf_dequeue_flow(test), 0);
}

/*
 * Lowering the limit drops from the head until the queue fits: of ten
 * packets of one flow with limit 4, the last four stay.
 */
static void hhf_qdisc_change_shrinks_queue(struct kunit *test)
{
	struct Qdisc *sch;
	u32 i;

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, NULL, 0), 0);
	sch = qdisc_test_sch(test);
	for (i = 1; i <= 10; i++) {
		struct sk_buff *skb = qdisc_test_udp(test, 1, PKT, 0);

		skb->mark = i;
		KUNIT_ASSERT_EQ(test, qdisc_test_enqueue(test, skb), NET_XMIT_SUCCESS);
	}
	hhf_set(test, TCA_HHF_BACKLOG_LIMIT, 4);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 4);
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 4 * PKT);
	for (i = 7; i <= 10; i++) {
		struct sk_buff *skb = qdisc_test_dequeue(test);

		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_EQ(test, skb->mark, i);
		kfree_skb(skb);
	}
}

/*
 * Reset empties the queue and forgets the heavy hitters and the
 * counters (upstream once kept them): the flow made heavy before must
 * pass the filter again, with its 11th packet of 1000 bytes.
 */
static void hhf_qdisc_reset_clears_state(struct kunit *test)
{
	struct Qdisc *sch;
	u32 total;
	int i;

	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, NULL, 0), 0);
	sch = qdisc_test_sch(test);
	hhf_make_heavy(test, 1);
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, hhf_enqueue(test, 2), NET_XMIT_SUCCESS);

	rtnl_lock();
	spin_lock_bh(qdisc_lock(sch));
	qdisc_reset(sch);
	spin_unlock_bh(qdisc_lock(sch));
	rtnl_unlock();

	KUNIT_EXPECT_EQ(test, sch->q.qlen, 0);
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 0);
	KUNIT_EXPECT_EQ(test, hhf_dequeue_flow(test), 0);
	KUNIT_EXPECT_EQ(test, hhf_stats(test).hh_cur_count, 0);
	total = hhf_stats(test).hh_tot_count;
	for (i = 1; i <= 11; i++) {
		KUNIT_ASSERT_EQ(test, hhf_enqueue(test, 1), NET_XMIT_SUCCESS);
		KUNIT_ASSERT_EQ(test, hhf_dequeue_flow(test), 1);
		KUNIT_EXPECT_EQ_MSG(test, hhf_stats(test).hh_tot_count, total + (i == 11),
				    "after packet %d", i);
	}
}

/*
 * hhf dumps 7 u32 attributes (4 + 7 * 8 = 60 bytes): every dump
 * short of that fails.
 */
static void hhf_qdisc_dump_overflow(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, NULL, 0), 0);
	qdisc_test_dump_overflow(test, 7);
}

#if KFORK_TEST_FAILSLAB
/*
 * A qdisc made by qdisc_create_dflt(), as a parent makes its default
 * child, with each of its slab allocations failing in turn.  The
 * function returns NULL exactly when one failed, having put the qdisc
 * back through ->reset and then ->destroy: both must cope with
 * whatever the failed ->init had set up, one table of several, say.
 */
static void hhf_qdisc_default_init_failures(struct kunit *test)
{
	struct qdisc_test_env *env = qdisc_test_env(test);
	struct netdev_queue *txq = netdev_get_tx_queue(env->dev, 0);
	struct kfork_test_fs *fs = kunit_kzalloc(test, sizeof(*fs), GFP_KERNEL);
	unsigned int nth, failed = 0;
	bool injected = true, made = false;
	struct Qdisc *sch;

	KUNIT_ASSERT_NOT_NULL(test, fs);
	kfork_test_fs_buffers(test, fs);
	kfork_test_failslab(test, fs, true);
	for (nth = 1; injected && nth < 10000; nth++) {
		rtnl_lock();
		kfork_test_fail_nth(nth);
		sch = qdisc_create_dflt(txq, env->ops, TC_H_MAKE(1 << 16, 1), NULL);
		injected = kfork_test_fail_nth_end();
		if (sch)
			qdisc_put(sch);
		rtnl_unlock();
		made = sch;
		KUNIT_EXPECT_TRUE_MSG(test, made || injected, "allocation %u: none failed", nth);
		failed += !made;
	}
	kfork_test_failslab(test, fs, false);
	rcu_barrier();
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_EXPECT_TRUE(test, made);
	kunit_info(test, "%u allocations, %u of their failures failed the qdisc\n", nth - 2,
		   failed);
}
#endif

/*
 * The suite's last case: a qdisc destroyed with a heavy hitter and
 * packets of two flows queued leaves nothing behind, and neither did
 * the cases before it: kmemleak (a boot with it on: tools/kunit run
 * --kmemleak; skipped without) finds no object.
 */
static void hhf_qdisc_destroy_leaves_nothing(struct kunit *test)
{
	struct kfork_test_fs *fs = kunit_kzalloc(test, sizeof(*fs), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, fs);
	kfork_test_fs_buffers(test, fs);
	kfork_test_kmemleak_begin(test, fs);
	KUNIT_ASSERT_EQ(test, qdisc_test_create(test, NULL, 0), 0);
	hhf_make_heavy(test, 1);
	for (i = 0; i < 5; i++) {
		KUNIT_ASSERT_EQ(test, hhf_enqueue(test, 1), NET_XMIT_SUCCESS);
		KUNIT_ASSERT_EQ(test, hhf_enqueue(test, 2), NET_XMIT_SUCCESS);
	}
	qdisc_test_destroy(qdisc_test_env(test));
	kfork_test_expect_no_leaks(test, fs);
}

static int hhf_test_init(struct kunit *test)
{
	return qdisc_test_setup(test, "hhf");
}

static struct kunit_case hhf_qdisc_cases[] = {
	KUNIT_CASE(hhf_qdisc_defaults),
	KUNIT_CASE_PARAM(hhf_qdisc_attr_at_init, hhf_attr_gen_params),
	KUNIT_CASE_PARAM(hhf_qdisc_attr_at_change, hhf_attr_gen_params),
	KUNIT_CASE_PARAM(hhf_qdisc_rejects_bad_attr_at_init, hhf_bad_gen_params),
	KUNIT_CASE_PARAM(hhf_qdisc_rejects_bad_attr_at_change, hhf_bad_gen_params),
	KUNIT_CASE(hhf_qdisc_bad_round_says_why),
	KUNIT_CASE(hhf_qdisc_largest_round),
	KUNIT_CASE(hhf_qdisc_fifo_order),
	KUNIT_CASE(hhf_qdisc_limit_overflow),
	KUNIT_CASE(hhf_qdisc_overflow_drops_heavy_first),
	KUNIT_CASE(hhf_qdisc_limit_one),
	KUNIT_CASE(hhf_qdisc_small_quantum_dequeues),
	KUNIT_CASE(hhf_qdisc_change_shrinks_queue),
	KUNIT_CASE(hhf_qdisc_reset_clears_state),
	KUNIT_CASE(hhf_qdisc_dump_overflow),
#if KFORK_TEST_FAILSLAB
	KUNIT_CASE(hhf_qdisc_default_init_failures),
#endif
	KUNIT_CASE(hhf_qdisc_destroy_leaves_nothing),
	{}
};

static struct kunit_suite hhf_qdisc_suite = {
	.name = "hhf_qdisc",
	.init = hhf_test_init,
	.exit = qdisc_test_teardown,
	.test_cases = hhf_qdisc_cases,
};

kunit_test_suite(hhf_qdisc_suite);

MODULE_LICENSE("GPL");
