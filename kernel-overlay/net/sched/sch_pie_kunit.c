// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for the PIE controller, driven through include/net/pie.h:
 * the three functions that sch_pie.c and sch_fq_pie.c share.
 *
 * Every expected number is derived from RFC 8033 and the seed commit's
 * description, not read off a kernel: the probability tables come from
 * kunit/derive/pie_math.py (exact fractions; `make check` verifies the
 * tables below are its output), the rest is worked out in the comments.
 *
 * Units, from include/net/pie.h: a probability p is stored as
 * p * MAX_PROB (MAX_PROB = 2^56 - 1), a delay in psched ticks of 64 ns
 * (1 ms = 15625 ticks), and the dequeue rate as bytes per tick << 8.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <net/pie.h>
#include <net/sch_generic.h>

#include "sch_qdisc_kunit.h"

#define MS(ms) PSCHED_NS2TICKS((u64)(ms) * NSEC_PER_MSEC)

/* A fraction of MAX_PROB, for probabilities written as num/den. */
#define PROB(num, den) (MAX_PROB / (den) * (num))

struct pie_prob_case {
	const char *name;
	u32 qdelay_ms;
	u32 qdelay_old_ms;
	u32 backlog;
	u64 prob;
	u64 expect;
};

/* BEGIN derived by kunit/derive/pie_math.py */
static const struct pie_prob_case pie_prob_cases[] = {
	/* 0 -> 1.00708008e-05 */
	{ "rise from 0, /2048", 30, 15, 20000,
	  0ULL, 725677674332ULL },
	/* 5e-06 -> 4.52832031e-05 */
	{ "rise from 5e-6, /512", 30, 15, 20000,
	  360287970190ULL, 3262998667519ULL },
	/* 5e-05 -> 0.000211132812 */
	{ "rise from 5e-5, /128", 30, 15, 20000,
	  3602879701896ULL, 15213722491211ULL },
	/* 0.0005 -> 0.00114453125 */
	{ "rise from 5e-4, /32", 30, 15, 20000,
	  36028797018964ULL, 82472168176222ULL },
	/* 0.005 -> 0.007578125 */
	{ "rise from 5e-3, /8", 30, 15, 20000,
	  360287970189640ULL, 546061454818673ULL },
	/* 0.05 -> 0.0603125 */
	{ "rise from 5%, /2", 30, 15, 20000,
	  3602879701896397ULL, 4345973640412529ULL },
	/* 0.3 -> 0.32 */
	{ "rise from 30%, capped at 2%", 30, 15, 20000,
	  21617278211378380ULL, 23058430092136939ULL },
	/* 0.3 -> 0.306875 */
	{ "rise from 30%, under the cap", 20, 15, 20000,
	  21617278211378380ULL, 22112674170389135ULL },
	/* 0.05 -> 0.1084375 */
	{ "rise from 5%, no cap below 10%", 100, 15, 20000,
	  3602879701896397ULL, 7813745353487811ULL },
	/* 0.9 -> 0.92 */
	{ "rise from 90%, capped at 2%", 30, 15, 20000,
	  64851834634135142ULL, 66292986514893701ULL },
	/* 9.99999986e-07 -> 1.10708008e-05 */
	{ "just below 1e-6, /2048", 30, 15, 20000,
	  72057593013ULL, 797735267345ULL },
	/* 1.00000001e-06 -> 4.12832031e-05 */
	{ "just above 1e-6, /512", 30, 15, 20000,
	  72057595061ULL, 2974768292390ULL },
	/* 0.00999999977 -> 0.0125781248 */
	{ "just below 1%, /8", 30, 15, 20000,
	  720575923602063ULL, 906349408231096ULL },
	/* 0.0100000002 -> 0.0203125002 */
	{ "just above 1%, /2", 30, 15, 20000,
	  720575957156495ULL, 1463669895672627ULL },
	/* 0.0999999998 -> 0.1103125 */
	{ "just below 10%, /2", 30, 15, 20000,
	  7205759387015577ULL, 7948853325531709ULL },
	/* 0.1 -> 0.12 */
	{ "just above 10%, capped", 30, 15, 20000,
	  7205759420570009ULL, 8646911301328568ULL },
	/* 0.1 -> 0.12 */
	{ "exactly 10%, capped", 30, 15, 20000,
	  7205759403792793ULL, 8646911284551352ULL },
	/* 0.3 -> 0.2925 */
	{ "fall from 30%", 5, 10, 20000,
	  21617278211378380ULL, 21076846256093920ULL },
	/* 0.02 -> 0.0165625 */
	{ "fall from 2%, /2", 10, 15, 20000,
	  1441151880758559ULL, 1193453901253182ULL },
	/* 5e-06 -> 0 */
	{ "fall below 0 is bounded at 0", 5, 10, 20000,
	  360287970190ULL, 0ULL },
	/* 0.3 -> 0.34 */
	{ "over 250 ms adds 2% to the cap", 300, 300, 200000,
	  21617278211378380ULL, 24499581972895497ULL },
	/* 0 -> 0.0202005005 */
	{ "over 250 ms from 0", 300, 0, 200000,
	  0ULL, 1455599463547535ULL },
	/* 0.3 -> 0.32 */
	{ "exactly 250 ms adds nothing", 250, 250, 200000,
	  21617278211378380ULL, 23058430092136939ULL },
	/* 0.3 -> 0.293466797 */
	{ "idle queue decays by 1/64", 0, 0, 0,
	  21617278211378380ULL, 21146511312829808ULL },
	/* 0.005 -> 0.00469116211 */
	{ "idle and low, /8 then decay", 0, 0, 0,
	  360287970189640ULL, 338033854843454ULL },
	/* 0.3 -> 0.298125 */
	{ "zero delay with backlog: no decay", 0, 0, 1000,
	  21617278211378380ULL, 21482170222557265ULL },
};

/* 300 ms of delay held from probability 0, update by update */
static const u64 pie_prob_trajectory[] = {
	1442405324014223ULL,	/* 0.020017395 */
	4167083098573373ULL,	/* 0.057829895 */
	6891760873132523ULL,	/* 0.095642395 */
	9616438647691673ULL,	/* 0.133454895 */
	12498742409208791ULL,	/* 0.173454895 */
	15381046170725908ULL,	/* 0.213454895 */
	18263349932243026ULL,	/* 0.253454895 */
	21145653693760143ULL,	/* 0.293454895 */
	24027957455277260ULL,	/* 0.333454895 */
	26910261216794378ULL,	/* 0.373454895 */
	29792564978311495ULL,	/* 0.413454895 */
	32674868739828613ULL,	/* 0.453454895 */
	35557172501345730ULL,	/* 0.493454895 */
	38439476262862847ULL,	/* 0.533454895 */
	41321780024379965ULL,	/* 0.573454895 */
	44204083785897082ULL,	/* 0.613454895 */
	47086387547414200ULL,	/* 0.653454895 */
	49968691308931317ULL,	/* 0.693454895 */
	52850995070448434ULL,	/* 0.733454895 */
	55733298831965552ULL,	/* 0.773454895 */
};

/* END derived */

/*
 * The kernel computes in fixed point, the derivation in exact fractions:
 * alpha and beta lose their low bits when scaled to MAX_PROB per tick
 * and shifted by the auto-tuning, a few parts per million of a step at
 * most. A wrong band, cap or rule changes a step by a factor of two or
 * more, so 1/4096 of the step separates the two cleanly.
 */
static u64 pie_tolerance(u64 from, u64 to)
{
	u64 step = from > to ? from - to : to - from;

	return step / 4096 + 4096;
}

#define EXPECT_PROB_NEAR(test, got, from, want) do {			\
	u64 __got = (got), __want = (want);				\
	u64 __tol = pie_tolerance((from), __want);			\
									\
	KUNIT_EXPECT_TRUE_MSG(test, __got + __tol >= __want &&		\
			      __got <= __want + __tol,			\
			      "prob %llu, expected %llu +- %llu",	\
			      __got, __want, __tol);			\
} while (0)

static void pie_prob_case_desc(const struct pie_prob_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pie_prob, pie_prob_cases, pie_prob_case_desc);

/* Defaults as tc and RFC 8033 give them: the rest of the suite uses them. */
static void pie_params_defaults(struct kunit *test)
{
	struct pie_params params;

	pie_params_init(&params);
	/* 15 ms target = 15e6 ns / 64 ns */
	KUNIT_EXPECT_EQ(test, params.target, 234375);
	/* alpha 0.125 and beta 1.25, in units of 1/16 */
	KUNIT_EXPECT_EQ(test, params.alpha, 2);
	KUNIT_EXPECT_EQ(test, params.beta, 20);
	KUNIT_EXPECT_EQ(test, params.limit, 1000);
}

/* One update from a given probability and pair of delays. */
static void pie_prob_update(struct kunit *test)
{
	const struct pie_prob_case *c = test->param_value;
	struct pie_params params;
	struct pie_vars vars = {};

	pie_params_init(&params);
	pie_vars_init(&vars);
	vars.prob = c->prob;
	vars.qdelay = MS(c->qdelay_ms);
	vars.qdelay_old = MS(c->qdelay_old_ms);

	pie_calculate_probability(&params, &vars, c->backlog);

	EXPECT_PROB_NEAR(test, vars.prob, c->prob, c->expect);
	/* The delay just used is the previous one at the next update. */
	KUNIT_EXPECT_EQ(test, vars.qdelay, MS(c->qdelay_ms));
	KUNIT_EXPECT_EQ(test, vars.qdelay_old, MS(c->qdelay_ms));
}

/* Updates chain: each starts from where the last one left the state. */
static void pie_prob_steady_overload(struct kunit *test)
{
	struct pie_params params;
	struct pie_vars vars = {};
	u64 from = 0;
	int i;

	pie_params_init(&params);
	pie_vars_init(&vars);
	vars.qdelay = MS(300);
	vars.qdelay_old = MS(300);

	for (i = 0; i < ARRAY_SIZE(pie_prob_trajectory); i++) {
		pie_calculate_probability(&params, &vars, 200000);
		EXPECT_PROB_NEAR(test, vars.prob, from, pie_prob_trajectory[i]);
		from = vars.prob;
		vars.qdelay = MS(300);
	}
}

/*
 * With dq_rate_estimator the delay is not measured but derived by
 * Little's law, backlog / departure rate. At 1 Gbit/s, 125e6 B/s, a tick
 * of 64 ns carries 8 bytes: avg_dq_rate = 8 << 8 = 2048. A backlog of
 * 3,750,000 bytes drains in 30 ms, i.e. 468750 ticks, so from a previous
 * 15 ms this is the table's first case: 0 -> 0.020625 / 2048.
 */
static void pie_prob_from_departure_rate(struct kunit *test)
{
	struct pie_params params;
	struct pie_vars vars = {};

	pie_params_init(&params);
	params.dq_rate_estimator = true;
	pie_vars_init(&vars);
	vars.avg_dq_rate = 2048;
	vars.qdelay = MS(15);

	pie_calculate_probability(&params, &vars, 3750000);

	KUNIT_EXPECT_EQ(test, vars.qdelay, MS(30));
	KUNIT_EXPECT_EQ(test, vars.qdelay_old, MS(15));
	EXPECT_PROB_NEAR(test, vars.prob, 0, pie_prob_cases[0].expect);
}

/*
 * RFC 8033 4.2: once the probability is 0 and both delays are under half
 * the target, the burst allowance is rearmed (150 ms = 2343750 ticks) and
 * the derandomization accumulator cleared.
 */
static void pie_prob_rearms_burst_allowance(struct kunit *test)
{
	struct pie_params params;
	struct pie_vars vars = {};

	pie_params_init(&params);
	pie_vars_init(&vars);
	vars.burst_time = 0;
	vars.accu_prob = PROB(1, 2);

	pie_calculate_probability(&params, &vars, 0);

	KUNIT_EXPECT_EQ(test, vars.prob, 0);
	KUNIT_EXPECT_EQ(test, vars.burst_time, 2343750);
	KUNIT_EXPECT_EQ(test, vars.accu_prob, 0);
}

/*
 * dq_rate_estimator, RFC 8033 Appendix B: a departure with at least
 * QUEUE_THRESHOLD (16384) bytes still queued starts a measurement
 * cycle, and its own packet is the cycle's first bytes; below the
 * threshold no cycle starts.  The departure that brings the cycle to
 * 16384 bytes or more ends it: the rate is its bytes << PIE_SCALE over
 * its ticks, and the next cycle starts at once from 0 bytes if the
 * threshold is still queued, else waits (the count invalid).
 *
 * 1000-byte packets: leaving 8000 bytes behind, nothing; leaving 20000,
 * a cycle of 1000 bytes.  15 more make 16000, the 17th 17000, which
 * ends it after at least 200 us (3125 ticks), so the rate is at most
 * (17000 << 8) / 3125 = 1392.
 */
struct pie_cycle_case {
	const char *name;
	u32 backlog_at_end;
	u64 count_after;
};

static const struct pie_cycle_case pie_cycle_cases[] = {
	{ "still 16 KiB queued: the next cycle starts", 20000, 0 },
	{ "less queued: the next cycle waits", 8000, (u64)DQCOUNT_INVALID },
};

static void pie_cycle_case_desc(const struct pie_cycle_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pie_cycle, pie_cycle_cases, pie_cycle_case_desc);

static void pie_dequeue_rate_cycle(struct kunit *test)
{
	const struct pie_cycle_case *c = test->param_value;
	struct sk_buff *skb = alloc_skb(1000, GFP_KERNEL);
	struct pie_params params;
	struct pie_vars vars = {};
	int i;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_zero(skb, 1000);
	pie_params_init(&params);
	params.dq_rate_estimator = true;
	pie_vars_init(&vars);

	pie_process_dequeue(skb, &params, &vars, 8000);
	KUNIT_EXPECT_EQ(test, vars.dq_count, (u64)DQCOUNT_INVALID);
	KUNIT_EXPECT_EQ(test, vars.dq_tstamp, DTIME_INVALID);
	pie_process_dequeue(skb, &params, &vars, 20000);
	KUNIT_EXPECT_EQ(test, vars.dq_count, 1000);
	KUNIT_EXPECT_NE(test, vars.dq_tstamp, DTIME_INVALID);

	for (i = 0; i < 15; i++)
		pie_process_dequeue(skb, &params, &vars, 20000);
	KUNIT_EXPECT_EQ(test, vars.dq_count, 16000);
	KUNIT_EXPECT_EQ(test, vars.avg_dq_rate, 0);
	usleep_range(200, 400);
	pie_process_dequeue(skb, &params, &vars, c->backlog_at_end);
	KUNIT_EXPECT_EQ(test, vars.dq_count, c->count_after);
	KUNIT_EXPECT_GT(test, vars.avg_dq_rate, 0);
	KUNIT_EXPECT_LE(test, vars.avg_dq_rate, (17000 << 8) / 3125);
	kfree_skb(skb);
}

/*
 * Project behaviour: Little's law with a large backlog. At 10 Gbit/s,
 * 1.25e9 B/s, a 64 ns tick carries 80 bytes: avg_dq_rate = 80 << 8 =
 * 20480. 32 MiB then drains in 33554432 / 80 = 419430.4 ticks (26.8 ms),
 * so qdelay = 419430. backlog << 8 is 2^33 here: it needs 64 bits.
 */
static void pie_prob_large_backlog_delay(struct kunit *test)
{
	struct pie_params params;
	struct pie_vars vars = {};

	pie_params_init(&params);
	params.dq_rate_estimator = true;
	pie_vars_init(&vars);
	vars.avg_dq_rate = 20480;

	pie_calculate_probability(&params, &vars, 32 << 20);

	KUNIT_EXPECT_EQ(test, vars.qdelay, 419430);
}

/*
 * Project behaviour: held at 300 ms, p rises 4% per update past 77%
 * (pie_prob_trajectory) and reaches 100% within 26 updates; it must
 * then stay at MAX_PROB, never above it.
 */
static void pie_prob_never_exceeds_max(struct kunit *test)
{
	struct pie_params params;
	struct pie_vars vars = {};
	int i, over = -1;

	pie_params_init(&params);
	pie_vars_init(&vars);
	for (i = 0; i < 60; i++) {
		vars.qdelay = MS(300);
		vars.qdelay_old = MS(300);
		pie_calculate_probability(&params, &vars, 200000);
		if (over < 0 && vars.prob > MAX_PROB)
			over = i;
	}
	KUNIT_EXPECT_EQ_MSG(test, over, -1, "p passed 100%% at update %d", over);
	KUNIT_EXPECT_EQ(test, vars.prob, MAX_PROB);
}

/*
 * Differential test: the same inputs through both implementations must
 * leave the controller in the same state, bit for bit. The test prints
 * a digest of the whole state every 500 updates ("kfork-diff: KEY HEX");
 * tools/kunit compare puts the two builds' digests side by side, and a
 * difference fails the comparison.
 *
 * The inputs come from a closed loop, so they stay where neither build
 * applies a fix of the fork (p stays well under 100%, delays under
 * 250 ms, backlogs under 16 MiB): a 10 Mbit/s link (1250 bytes/ms)
 * under an offered load that a xorshift64 walk (fixed seed, independent
 * of the kernel's PRNG) moves between 50% and 200% of the link, thinned
 * by the current p, one tupdate of 15 ms per step.
 */
#define DIFF_STEPS	2000
#define DIFF_EVERY	500
#define LINK_BYTES_MS	1250

struct pie_diff_config {
	const char *key;
	u32 alpha, beta, target_ms;
	bool rate_mode;
};

static const struct pie_diff_config pie_diff_configs[] = {
	{ "pie.defaults", 2, 20, 15, false },
	{ "pie.agile", 8, 32, 5, false },
	{ "pie.rate_mode", 2, 20, 15, true },
};

static u64 pie_state_digest(u64 hash, const struct pie_vars *v)
{
	hash = qdisc_test_fnv(hash, v->prob);
	hash = qdisc_test_fnv(hash, v->qdelay);
	hash = qdisc_test_fnv(hash, v->qdelay_old);
	hash = qdisc_test_fnv(hash, v->burst_time);
	hash = qdisc_test_fnv(hash, v->dq_tstamp);
	hash = qdisc_test_fnv(hash, v->accu_prob);
	hash = qdisc_test_fnv(hash, v->dq_count);
	hash = qdisc_test_fnv(hash, v->avg_dq_rate);
	return qdisc_test_fnv(hash, v->backlog_old);
}

/* One step of the plant: the queue after 15 ms of arrivals thinned by p. */
static u32 pie_plant_step(u64 *seed, u32 backlog, u64 prob)
{
	u64 offered = LINK_BYTES_MS * 15 * (50 + qdisc_test_xorshift(seed) % 151) / 100;
	u64 kept = offered - div64_u64(offered * (prob >> 24), MAX_PROB >> 24);
	u64 drained = LINK_BYTES_MS * 15;

	return backlog + kept > drained ? backlog + kept - drained : 0;
}

static void pie_diff_trajectory(struct kunit *test)
{
	const struct pie_diff_config *c;
	struct pie_params params;
	struct pie_vars vars;
	u64 seed, hash, peak;
	u32 backlog;
	int i;

	for (c = pie_diff_configs; c < pie_diff_configs + ARRAY_SIZE(pie_diff_configs); c++) {
		pie_params_init(&params);
		params.alpha = c->alpha;
		params.beta = c->beta;
		params.target = MS(c->target_ms);
		params.dq_rate_estimator = c->rate_mode;
		memset(&vars, 0, sizeof(vars));
		pie_vars_init(&vars);
		seed = 0x9e3779b97f4a7c15ULL;
		hash = QDISC_TEST_FNV_START;
		backlog = 0;
		peak = 0;

		for (i = 1; i <= DIFF_STEPS; i++) {
			backlog = pie_plant_step(&seed, backlog, vars.prob);
			/*
			 * The dequeue side of the plant: timestamp mode measures
			 * the delay, backlog / link rate; rate mode measures the
			 * link rate, 1250 bytes/ms = 0.08 bytes per 64 ns tick,
			 * << 8 is 20.48 (set each step: a quiet spell re-arms
			 * the controller, which clears the estimate).
			 */
			if (c->rate_mode)
				vars.avg_dq_rate = 20;
			else
				vars.qdelay = div_u64((u64)backlog * MS(1), LINK_BYTES_MS);
			pie_calculate_probability(&params, &vars, backlog);
			peak = max(peak, vars.prob);
			hash = pie_state_digest(hash, &vars);
			if (i % DIFF_EVERY == 0)
				kunit_info(test, "kfork-diff: %s.%04d %016llx\n",
					   c->key, i, hash);
		}
		/*
		 * The offered load averages 125% of the link, so holding the
		 * queue needs p near 1 - 1/1.25 = 20%: the controller did
		 * work (over 10%) and stayed out of the fork's fixes (under
		 * 90%).
		 */
		KUNIT_EXPECT_GT_MSG(test, peak, MAX_PROB / 10, "%s", c->key);
		KUNIT_EXPECT_LT_MSG(test, peak, MAX_PROB / 10 * 9, "%s", c->key);
	}
}

/* A previous delay of 10 ms is not under 7.5 ms: no rearming. */
static void pie_prob_keeps_burst_spent_after_delay(struct kunit *test)
{
	struct pie_params params;
	struct pie_vars vars = {};

	pie_params_init(&params);
	pie_vars_init(&vars);
	vars.burst_time = 0;
	vars.qdelay = 0;
	vars.qdelay_old = MS(10);

	pie_calculate_probability(&params, &vars, 0);

	KUNIT_EXPECT_EQ(test, vars.prob, 0);
	KUNIT_EXPECT_EQ(test, vars.burst_time, 0);
}

/*
 * pie_drop_early() needs a qdisc only for its device's MTU. An Ethernet
 * device has mtu 1500 and a 14-byte header: psched_mtu() = 1514, so
 * "fewer than two MTU-sized packets" is a backlog under 3028 bytes.
 */
#define PIE_TEST_MTU 1514
#define PIE_BIG_BACKLOG (100 * PIE_TEST_MTU)

struct pie_early {
	struct net_device *dev;
	struct Qdisc *sch;
	struct pie_params params;
	struct pie_vars vars;
};

static int pie_early_init(struct kunit *test)
{
	struct pie_early *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->sch = kunit_kzalloc(test, sizeof(*e->sch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->sch);
	e->dev = alloc_etherdev(0);
	KUNIT_ASSERT_NOT_NULL(test, e->dev);
	test->priv = e;
	e->sch->dev_queue = netdev_get_tx_queue(e->dev, 0);

	/* A congested queue past its burst allowance. */
	pie_params_init(&e->params);
	pie_vars_init(&e->vars);
	e->vars.burst_time = 0;
	e->vars.qdelay = MS(20);
	return 0;
}

static void pie_early_exit(struct kunit *test)
{
	struct pie_early *e = test->priv;

	/* test->priv is set only once the device exists. */
	if (e)
		free_netdev(e->dev);
}

static bool pie_early(struct pie_early *e, u32 backlog, u32 size)
{
	return pie_drop_early(e->sch, &e->params, &e->vars, backlog, size);
}

static void pie_early_mtu_is_ethernet(struct kunit *test)
{
	struct pie_early *e = test->priv;

	KUNIT_EXPECT_EQ(test, psched_mtu(e->dev), PIE_TEST_MTU);
}

/*
 * RFC 8033 5.4, derandomization: probabilities accumulate, and below
 * 0.85 nothing is dropped. 0.2 four times is 0.8, still under.
 */
static void pie_early_accumulates_below_threshold(struct kunit *test)
{
	struct pie_early *e = test->priv;
	int i;

	e->vars.prob = PROB(1, 5);
	for (i = 1; i <= 4; i++) {
		KUNIT_EXPECT_FALSE(test, pie_early(e, PIE_BIG_BACKLOG, 1000));
		KUNIT_EXPECT_EQ(test, e->vars.accu_prob, i * PROB(1, 5));
	}
}

/* At 8.5 or more accumulated the packet is dropped, random or not. */
static void pie_early_drops_past_upper_threshold(struct kunit *test)
{
	struct pie_early *e = test->priv;

	e->vars.prob = PROB(3, 10);
	e->vars.accu_prob = PROB(83, 10);	/* 8.3 + 0.3 = 8.6 */
	KUNIT_EXPECT_TRUE(test, pie_early(e, PIE_BIG_BACKLOG, 1000));
}

/*
 * Between 0.85 and 8.5 accumulated, a packet is dropped with probability
 * p, and only a drop empties the accumulator (RFC 8033 5.4). With the
 * sum at 1 before each packet (1 + p after it), the drops of 20000
 * packets are binomial: mean 20000 p, standard deviation
 * sqrt(20000 p (1 - p)). Six deviations either way fail a correct
 * implementation about once in 5e8 runs. p = 0.5 alone cannot tell a
 * draw against p from one against 1 - p; the others can (1000 drops
 * against 19000 at p = 0.05).
 */
struct pie_draw_case {
	const char *name;
	u64 prob;
	unsigned int mean, six_sd;
};

static const struct pie_draw_case pie_draw_cases[] = {
	{ "p 0.05", PROB(1, 20), 1000, 185 },	/* sd sqrt(950) = 30.8 */
	{ "p 0.3", PROB(3, 10), 6000, 389 },	/* sd sqrt(4200) = 64.8 */
	{ "p 0.5", PROB(1, 2), 10000, 424 },	/* sd sqrt(5000) = 70.7 */
	{ "p 0.9", PROB(9, 10), 18000, 255 },	/* sd sqrt(1800) = 42.4 */
};

static void pie_draw_case_desc(const struct pie_draw_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pie_draw, pie_draw_cases, pie_draw_case_desc);

static void pie_early_draws_between_thresholds(struct kunit *test)
{
	const struct pie_draw_case *c = test->param_value;
	struct pie_early *e = test->priv;
	unsigned int i, drops = 0, bad_sums = 0;

	e->vars.prob = c->prob;
	for (i = 0; i < 20000; i++) {
		bool dropped;

		e->vars.accu_prob = PROB(1, 1);
		dropped = pie_early(e, PIE_BIG_BACKLOG, 1000);
		drops += dropped;
		bad_sums += e->vars.accu_prob != (dropped ? 0 : PROB(1, 1) + c->prob);
	}
	KUNIT_EXPECT_GE(test, drops, c->mean - c->six_sd);
	KUNIT_EXPECT_LE(test, drops, c->mean + c->six_sd);
	KUNIT_EXPECT_EQ_MSG(test, bad_sums, 0, "accumulator not emptied by a drop or not kept");
}

/* A zero probability clears the accumulator (RFC 8033 5.4). */
static void pie_early_zero_prob_clears_accumulator(struct kunit *test)
{
	struct pie_early *e = test->priv;

	e->vars.prob = 0;
	e->vars.accu_prob = PROB(1, 2);
	KUNIT_EXPECT_FALSE(test, pie_early(e, PIE_BIG_BACKLOG, 1000));
	KUNIT_EXPECT_EQ(test, e->vars.accu_prob, 0);
}

/* While burst allowance remains, nothing is dropped (RFC 8033 4.4). */
static void pie_early_burst_allowance_protects(struct kunit *test)
{
	struct pie_early *e = test->priv;

	e->vars.burst_time = 1;
	e->vars.prob = PROB(1, 2);
	e->vars.accu_prob = PROB(9, 1);
	KUNIT_EXPECT_FALSE(test, pie_early(e, PIE_BIG_BACKLOG, 1000));
	KUNIT_EXPECT_EQ(test, e->vars.accu_prob, PROB(9, 1));
}

/*
 * RFC 8033 4.1: no early drop while the delay is under half the target
 * (7.5 ms) and the probability under 20%. Either condition failing is
 * enough to drop at an accumulated 8.4 + p >= 8.5.
 */
static void pie_early_low_delay_low_prob_protects(struct kunit *test)
{
	struct pie_early *e = test->priv;

	e->vars.qdelay = MS(7);
	e->vars.prob = PROB(19, 100);
	e->vars.accu_prob = PROB(84, 10);
	KUNIT_EXPECT_FALSE(test, pie_early(e, PIE_BIG_BACKLOG, 1000));

	e->vars.qdelay = MS(8);
	KUNIT_EXPECT_TRUE(test, pie_early(e, PIE_BIG_BACKLOG, 1000));

	e->vars.qdelay = MS(7);
	e->vars.prob = PROB(21, 100);
	e->vars.accu_prob = PROB(84, 10);
	KUNIT_EXPECT_TRUE(test, pie_early(e, PIE_BIG_BACKLOG, 1000));
}

/*
 * The same protection at its edges: it needs the delay strictly under
 * half the target (target / 2 = 117187 ticks) and p strictly under
 * MAX_PROB / 5.  At either edge, with 8.4 accumulated, the packet is
 * dropped.
 */
struct pie_edge_case {
	const char *name;
	u32 delay_below_half;	/* ticks under target / 2 */
	u64 prob_below_fifth;	/* under MAX_PROB / 5 */
	bool drop;
};

static const struct pie_edge_case pie_edge_cases[] = {
	{ "a tick under half the target, p just under 20%", 1, 1, false },
	{ "the delay at half the target", 0, 1, true },
	{ "p at 20%", 1, 0, true },
};

static void pie_edge_case_desc(const struct pie_edge_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pie_edge, pie_edge_cases, pie_edge_case_desc);

static void pie_early_protection_edges(struct kunit *test)
{
	const struct pie_edge_case *c = test->param_value;
	struct pie_early *e = test->priv;

	e->vars.qdelay = e->params.target / 2 - c->delay_below_half;
	e->vars.prob = MAX_PROB / 5 - c->prob_below_fifth;
	e->vars.accu_prob = PROB(84, 10);
	KUNIT_EXPECT_EQ(test, pie_early(e, PIE_BIG_BACKLOG, 1000), c->drop);
}

/* Fewer than two MTU-sized packets queued: no early drop. */
static void pie_early_small_backlog_protects(struct kunit *test)
{
	struct pie_early *e = test->priv;

	e->vars.prob = PROB(3, 10);
	e->vars.accu_prob = PROB(83, 10);
	KUNIT_EXPECT_FALSE(test, pie_early(e, 2 * PIE_TEST_MTU - 1, 1000));
	KUNIT_EXPECT_TRUE(test, pie_early(e, 2 * PIE_TEST_MTU, 1000));
}

/*
 * bytemode scales the probability by size / MTU: half an MTU (757 of
 * 1514 bytes) at 30% adds 15%; a packet over the MTU adds the full 30%.
 */
static void pie_early_bytemode_scales_by_size(struct kunit *test)
{
	struct pie_early *e = test->priv;

	e->params.bytemode = true;
	e->vars.prob = PROB(3, 10);
	KUNIT_EXPECT_FALSE(test, pie_early(e, PIE_BIG_BACKLOG, PIE_TEST_MTU / 2));
	EXPECT_PROB_NEAR(test, e->vars.accu_prob, 0, PROB(3, 20));

	e->vars.accu_prob = 0;
	KUNIT_EXPECT_FALSE(test, pie_early(e, PIE_BIG_BACKLOG, 2000));
	KUNIT_EXPECT_EQ(test, e->vars.accu_prob, PROB(3, 10));
}

/*
 * "Fewer than two MTU-sized packets" on other devices: psched_mtu()
 * (mtu + hard_header_len) is taken between 1 and 2^20 bytes, so a
 * device reporting 0 spares up to 1 byte queued, and one of 2 MiB
 * (which a dummy device takes) up to 2 MiB - 1 bytes, as one of 1 MiB.
 * With 8.3 + 0.3 accumulated, a packet not spared is dropped.
 */
struct pie_mtu_case {
	const char *name;
	u32 mtu;
	u32 header;
	u32 backlog;
	bool drop;
};

static const struct pie_mtu_case pie_mtu_cases[] = {
	{ "MTU 0, a byte queued", 0, 0, 1, false },
	{ "MTU 0, two bytes queued", 0, 0, 2, true },
	{ "2 MiB MTU, a byte under 2 MiB", SZ_2M, 14, SZ_2M - 1, false },
	{ "2 MiB MTU, 2 MiB", SZ_2M, 14, SZ_2M, true },
};

static void pie_mtu_case_desc(const struct pie_mtu_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pie_mtu, pie_mtu_cases, pie_mtu_case_desc);

static void pie_early_mtu_bounds(struct kunit *test)
{
	const struct pie_mtu_case *c = test->param_value;
	struct pie_early *e = test->priv;

	e->dev->mtu = c->mtu;
	e->dev->hard_header_len = c->header;
	e->vars.prob = PROB(3, 10);
	e->vars.accu_prob = PROB(83, 10);
	KUNIT_EXPECT_EQ(test, pie_early(e, c->backlog, 1000), c->drop);
}

/*
 * A device reporting MTU 0 (psched_mtu() = mtu + header = 0) must not
 * make bytemode divide by zero: the MTU counts as 1 byte.  A packet of
 * 100 bytes is over it and adds the full p, so past 8.5 accumulated it
 * is dropped; a packet of 0 bytes adds p * 0 / 1 = 0, which empties the
 * accumulator instead.
 */
static void pie_early_zero_mtu_bytemode(struct kunit *test)
{
	struct pie_early *e = test->priv;

	e->dev->mtu = 0;
	e->dev->hard_header_len = 0;
	e->params.bytemode = true;
	e->vars.prob = PROB(1, 2);
	e->vars.accu_prob = MAX_PROB / 2 * 17;
	KUNIT_EXPECT_TRUE(test, pie_early(e, PIE_BIG_BACKLOG, 100));
	e->vars.accu_prob = MAX_PROB / 2 * 17;
	KUNIT_EXPECT_FALSE(test, pie_early(e, PIE_BIG_BACKLOG, 0));
	KUNIT_EXPECT_EQ(test, e->vars.accu_prob, 0);
}

static struct kunit_case pie_math_cases[] = {
	KUNIT_CASE(pie_params_defaults),
	KUNIT_CASE_PARAM(pie_prob_update, pie_prob_gen_params),
	KUNIT_CASE(pie_prob_steady_overload),
	KUNIT_CASE(pie_prob_from_departure_rate),
	KUNIT_CASE(pie_prob_rearms_burst_allowance),
	KUNIT_CASE(pie_prob_keeps_burst_spent_after_delay),
	KUNIT_CASE_PARAM(pie_dequeue_rate_cycle, pie_cycle_gen_params),
	KUNIT_CASE(pie_prob_large_backlog_delay),
	KUNIT_CASE(pie_prob_never_exceeds_max),
	KUNIT_CASE(pie_diff_trajectory),
	{}
};

static struct kunit_suite pie_math_suite = {
	.name = "pie_math",
	.test_cases = pie_math_cases,
};

static struct kunit_case pie_drop_early_cases[] = {
	KUNIT_CASE(pie_early_mtu_is_ethernet),
	KUNIT_CASE(pie_early_accumulates_below_threshold),
	KUNIT_CASE(pie_early_drops_past_upper_threshold),
	KUNIT_CASE_PARAM(pie_early_draws_between_thresholds, pie_draw_gen_params),
	KUNIT_CASE(pie_early_zero_prob_clears_accumulator),
	KUNIT_CASE(pie_early_burst_allowance_protects),
	KUNIT_CASE(pie_early_low_delay_low_prob_protects),
	KUNIT_CASE_PARAM(pie_early_protection_edges, pie_edge_gen_params),
	KUNIT_CASE(pie_early_small_backlog_protects),
	KUNIT_CASE(pie_early_bytemode_scales_by_size),
	KUNIT_CASE_PARAM(pie_early_mtu_bounds, pie_mtu_gen_params),
	KUNIT_CASE(pie_early_zero_mtu_bytemode),
	{}
};

static struct kunit_suite pie_drop_early_suite = {
	.name = "pie_math_drop_early",
	.init = pie_early_init,
	.exit = pie_early_exit,
	.test_cases = pie_drop_early_cases,
};

kunit_test_suites(&pie_math_suite, &pie_drop_early_suite);

MODULE_DESCRIPTION("KUnit tests for the PIE controller of include/net/pie.h");
MODULE_LICENSE("GPL");
