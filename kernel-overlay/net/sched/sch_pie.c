// SPDX-License-Identifier: GPL-2.0-only
/*
 * PIE: Proportional Integral controller Enhanced, RFC 8033.
 *
 * A FIFO whose arriving packets are dropped (or ECN-marked) with a
 * probability that a PI controller moves every tupdate, so the queueing
 * delay stays near a target whatever the link rate:
 *
 *	p += alpha * (qdelay - target) + beta * (qdelay - qdelay_old)
 *
 * The controller (pie_calculate_probability, pie_process_dequeue and
 * pie_drop_early, declared in include/net/pie.h) is shared with fq_pie,
 * which runs one per flow; the rest of this file is the qdisc around it.
 *
 * Units: a probability p is kept as p * MAX_PROB (MAX_PROB = 2^56 - 1),
 * delays in psched ticks (64 ns), tupdate in jiffies, and in rate
 * estimator mode the dequeue rate in bytes per tick, shifted by
 * PIE_SCALE. Besides RFC 8033, Linux adds an extra 2% per update while
 * the delay is above 250 ms, and decays p by 1/64 while the queue is
 * idle; both are kept so that tc users see the behaviour they know.
 */

#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/types.h>
#include <net/inet_ecn.h>
#include <net/netlink.h>
#include <net/pie.h>
#include <net/pkt_sched.h>

/*
 * A delay difference is clamped to 2^28 ticks (17 s) before it is
 * multiplied by a gain, which bounds the products (pie_delay_terms).
 * Only a target of minutes or a queue stalled that long reaches it.
 */
#define PIE_DELAY_TERM_MAX	((s64)BIT_ULL(28))
/*
 * The change of p is saturated at 2^58, four times p's whole range:
 * past that, p ends at 0 or 100% (or moves by the 2% cap) whatever the
 * exact sum.
 */
#define PIE_DELTA_MAX		((s64)BIT_ULL(58))
/* tc's pie takes alpha and beta in iproute2's range only. */
#define PIE_GAIN_MAX		32
/* psched_mtu() bounds for pie_drop_early(): never 0, never absurd. */
#define PIE_MTU_MAX		BIT(20)

/* State of one PIE qdisc; the controller's part comes first. */
struct pie_qdisc {
	struct pie_vars vars;
	struct pie_params params;
	struct pie_stats stats;
	struct timer_list update_timer;	/* runs the controller every tupdate */
	struct Qdisc *qdisc;		/* back from the timer */
};

static u64 pie_percent(unsigned int n)
{
	return MAX_PROB / 100 * n;
}

/*
 * RFC 8033 section 4.2: when p is small, a full alpha/beta step would
 * be far too coarse, so both gains shrink with p: by 2 below 10%, and
 * by a further 4 for each decade below 1% (down to 1e-6), which gives
 * the divisors 2, 8, 32, 128, 512 and 2048. The decades are constants:
 * this runs on every update of every fq_pie flow.
 */
static const u64 pie_decades[] = {
	MAX_PROB / 100, MAX_PROB / 1000, MAX_PROB / 10000,
	MAX_PROB / 100000, MAX_PROB / 1000000,
};

static unsigned int pie_gain_shift(u64 prob)
{
	unsigned int shift = 1, i;

	if (prob >= MAX_PROB / 10)
		return 0;
	for (i = 0; i < ARRAY_SIZE(pie_decades) && prob < pie_decades[i]; i++)
		shift += 2;
	return shift;
}

/*
 * alpha or beta, in 1/16 units (iproute2 sends 0 to 32, RFC 8033's 0 to
 * 2 per second; fq_pie takes any u32 from netlink), as probability per
 * tick of delay: below 2^61, computed without overflow.
 */
static u64 pie_gain(u32 param, unsigned int shift)
{
	return mul_u64_u32_shr(MAX_PROB / PSCHED_TICKS_PER_SEC, param,
			       4 + shift);
}

static s64 pie_delay_diff(psched_time_t a, psched_time_t b)
{
	return clamp_t(s64, (s64)(a - b), -PIE_DELAY_TERM_MAX,
		       PIE_DELAY_TERM_MAX);
}

/*
 * ga * da + gb * db, saturated at +-2^58. Up to iproute2's gain of 32 a
 * product stays below 2^62, but a gain fq_pie takes from netlink makes
 * it up to 2^89, and the two terms may cancel (delay under target but
 * rising). So each gain is split at bit 32 and the sum kept as
 * hi * 2^32 + lo: every partial product is below 2^60, and the sum is
 * exact until it is saturated.
 */
static s64 pie_delay_terms(u64 ga, s64 da, u64 gb, s64 db)
{
	s64 hi = (s64)(ga >> 32) * da + (s64)(gb >> 32) * db;
	s64 lo = (s64)(ga & U32_MAX) * da + (s64)(gb & U32_MAX) * db;

	hi += lo >> 32;		/* arithmetic: lo may be negative */
	lo &= U32_MAX;
	if (hi >= PIE_DELTA_MAX >> 32)
		return PIE_DELTA_MAX;
	if (hi < -(PIE_DELTA_MAX >> 32))
		return -PIE_DELTA_MAX;
	return hi * (s64)BIT_ULL(32) + lo;
}

/*
 * The change of p for one update. Above 10%, p moves up by at most 2%
 * per update (RFC 8033 section 5.5), except that Linux adds another 2%
 * while the delay exceeds 250 ms, to cope with a queue far past target.
 */
static s64 pie_prob_delta(const struct pie_params *params, u64 prob,
			  psched_time_t qdelay, psched_time_t qdelay_old)
{
	unsigned int shift = pie_gain_shift(prob);
	s64 delta;

	delta = pie_delay_terms(pie_gain(params->alpha, shift),
				pie_delay_diff(qdelay, params->target),
				pie_gain(params->beta, shift),
				pie_delay_diff(qdelay, qdelay_old));
	if (prob >= MAX_PROB / 10 && delta > (s64)pie_percent(2))
		delta = pie_percent(2);
	if (qdelay > PSCHED_NS2TICKS(250 * NSEC_PER_MSEC))
		delta += pie_percent(2);
	return delta;
}

/* p + delta, kept within [0, MAX_PROB]: tc shows p << 8 as a u64. */
static u64 pie_prob_add(u64 prob, s64 delta)
{
	if (delta < 0)
		return prob > (u64)-delta ? prob + delta : 0;
	return MAX_PROB - prob > (u64)delta ? prob + delta : MAX_PROB;
}

/*
 * Little's law for the rate estimator mode: backlog / dequeue rate,
 * computed in 64 bits because backlog << PIE_SCALE overflows a u32 from
 * 16 MiB of backlog on.
 */
static psched_time_t pie_delay_from_rate(const struct pie_vars *vars,
					 u32 backlog)
{
	if (!vars->avg_dq_rate)
		return 0;
	return div_u64((u64)backlog << PIE_SCALE, vars->avg_dq_rate);
}

/**
 * pie_calculate_probability() - one tupdate step of the controller
 * @params: the qdisc's (or fq_pie flow's) parameters
 * @vars: the controller state to update
 * @backlog: bytes queued now (fq_pie: in this flow)
 */
void pie_calculate_probability(struct pie_params *params, struct pie_vars *vars,
			       u32 backlog)
{
	psched_time_t qdelay, qdelay_old;
	bool decay;

	if (params->dq_rate_estimator) {
		qdelay_old = vars->qdelay;
		vars->qdelay_old = qdelay_old;
		qdelay = pie_delay_from_rate(vars, backlog);
	} else {
		qdelay = vars->qdelay;
		qdelay_old = vars->qdelay_old;
	}

	/* prob and qdelay are dumped without the qdisc lock */
	WRITE_ONCE(vars->prob, pie_prob_add(vars->prob,
					    pie_prob_delta(params, vars->prob, qdelay,
							   qdelay_old)));

	/*
	 * No delay over two updates with an empty queue: the link is idle,
	 * so let p decay by 1/64 per update. A zero delay with bytes queued
	 * only means the queue is too short to measure, and p stays.
	 */
	decay = qdelay == 0 && qdelay_old == 0 && backlog == 0;
	if (decay)
		WRITE_ONCE(vars->prob, vars->prob - vars->prob / 64);

	WRITE_ONCE(vars->qdelay, qdelay);
	vars->backlog_old = backlog;

	/*
	 * Quiet again (both delays under half the target, p back to 0, and
	 * in rate mode a rate known): re-arm the burst allowance and start
	 * a new measurement cycle, RFC 8033 section 4.4.
	 */
	if (qdelay < params->target / 2 &&
	    vars->qdelay_old < params->target / 2 && vars->prob == 0 &&
	    (!params->dq_rate_estimator || vars->avg_dq_rate))
		pie_vars_init(vars);

	if (!params->dq_rate_estimator)
		vars->qdelay_old = qdelay;
}
EXPORT_SYMBOL_GPL(pie_calculate_probability);

static void pie_spend_burst(struct pie_vars *vars, psched_time_t elapsed)
{
	vars->burst_time -= min(vars->burst_time, elapsed);
}

/*
 * Default mode: each dequeued packet carries its enqueue time, so the
 * queueing delay is measured, not estimated.
 */
static void pie_dequeue_timestamped(struct sk_buff *skb, struct pie_vars *vars,
				    u32 backlog)
{
	psched_time_t now = psched_get_time();
	psched_time_t elapsed = 0;

	WRITE_ONCE(vars->qdelay, backlog ? now - pie_get_enqueue_time(skb) : 0);
	if (vars->dq_tstamp != DTIME_INVALID)
		elapsed = now - vars->dq_tstamp;
	vars->dq_tstamp = now;
	if (elapsed)
		pie_spend_burst(vars, elapsed);
}

/*
 * dq_rate_estimator mode (RFC 8033 section 5.3 / Appendix B): while at
 * least QUEUE_THRESHOLD bytes are queued, time how long QUEUE_THRESHOLD
 * bytes take to leave and keep an average rate (EWMA, weight 1/8);
 * pie_calculate_probability() turns it into a delay with Little's law.
 */
static void pie_dequeue_rate_sample(struct sk_buff *skb, struct pie_vars *vars,
				    u32 backlog)
{
	psched_time_t now, elapsed;
	u32 rate;

	if (vars->dq_count == DQCOUNT_INVALID) {
		if (backlog < QUEUE_THRESHOLD)
			return;
		/* Enough queued to time a cycle: start one. */
		vars->dq_tstamp = psched_get_time();
		vars->dq_count = 0;
	}

	vars->dq_count += skb->len;
	if (vars->dq_count < QUEUE_THRESHOLD)
		return;

	now = psched_get_time();
	elapsed = now - vars->dq_tstamp;
	if (!elapsed)
		return;

	rate = div64_u64(vars->dq_count << PIE_SCALE, elapsed);
	if (vars->avg_dq_rate)
		rate = vars->avg_dq_rate - (vars->avg_dq_rate >> 3) + (rate >> 3);
	WRITE_ONCE(vars->avg_dq_rate, rate);

	/* Time the next cycle while the queue stays long; else keep the rate. */
	vars->dq_count = backlog >= QUEUE_THRESHOLD ? 0 : DQCOUNT_INVALID;
	vars->dq_tstamp = now;
	pie_spend_burst(vars, elapsed);
}

/*
 * The per-packet halves of the controller are inlined into the qdisc's
 * enqueue and dequeue, one call less per packet; fq_pie and the tests
 * reach the same code through the exported functions.
 */
static __always_inline void pie_account_dequeue(struct sk_buff *skb,
						const struct pie_params *params,
						struct pie_vars *vars, u32 backlog)
{
	if (params->dq_rate_estimator)
		pie_dequeue_rate_sample(skb, vars, backlog);
	else
		pie_dequeue_timestamped(skb, vars, backlog);
}

/**
 * pie_process_dequeue() - account one dequeued packet
 * @skb: the packet leaving the queue
 * @params: the parameters, for the delay measurement mode
 * @vars: the controller state to update
 * @backlog: bytes still queued after @skb (fq_pie: in this flow)
 */
void pie_process_dequeue(struct sk_buff *skb, struct pie_params *params,
			 struct pie_vars *vars, u32 backlog)
{
	pie_account_dequeue(skb, params, vars, backlog);
}
EXPORT_SYMBOL_GPL(pie_process_dequeue);

/*
 * The packet may go through untouched: during the burst allowance,
 * while the delay is low and p is under 20%, or when the queue holds
 * less than two full-size packets (RFC 8033 section 5.1 and 5.4).
 */
static bool pie_spares(const struct pie_params *params,
		       const struct pie_vars *vars, u32 backlog, u32 mtu)
{
	if (vars->burst_time)
		return true;
	if (vars->qdelay < params->target / 2 && vars->prob < MAX_PROB / 5)
		return true;
	return backlog < 2 * mtu;
}

static __always_inline bool pie_decide_drop(struct Qdisc *sch,
					    const struct pie_params *params,
					    struct pie_vars *vars, u32 backlog,
					    u32 packet_size)
{
	u32 mtu = clamp_t(u32, psched_mtu(qdisc_dev(sch)), 1, PIE_MTU_MAX);
	u64 prob = vars->prob;

	if (pie_spares(params, vars, backlog, mtu))
		return false;

	/* bytemode: small packets are dropped in proportion to their size. */
	if (params->bytemode && packet_size <= mtu)
		prob = div_u64(prob, mtu) * packet_size;

	/*
	 * Derandomization, RFC 8033 section 5.4: sum p over the packets
	 * since the last drop; none before the sum reaches 0.85, surely one
	 * once it reaches 8.5, a random draw in between.
	 */
	if (!prob) {
		vars->accu_prob = 0;
		return false;
	}
	vars->accu_prob += prob;
	if (vars->accu_prob < pie_percent(85))
		return false;
	if (vars->accu_prob >= MAX_PROB / 2 * 17)
		return true;
	if ((get_random_u64() >> BITS_PER_BYTE) >= prob)
		return false;
	vars->accu_prob = 0;
	return true;
}

/**
 * pie_drop_early() - decide whether an arriving packet is dropped
 * @sch: the qdisc, for its device's MTU
 * @params: the parameters
 * @vars: the controller state (the drop accumulator is updated)
 * @backlog: bytes queued now (fq_pie: in the packet's flow)
 * @packet_size: the arriving packet's length
 *
 * Return: true to drop (or ECN-mark) the packet.
 */
bool pie_drop_early(struct Qdisc *sch, struct pie_params *params,
		    struct pie_vars *vars, u32 backlog, u32 packet_size)
{
	return pie_decide_drop(sch, params, vars, backlog, packet_size);
}
EXPORT_SYMBOL_GPL(pie_drop_early);

/* The qdisc. */

static int pie_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	struct pie_qdisc *q = qdisc_priv(sch);
	u32 qlen = qdisc_qlen(sch);

	if (unlikely(qlen >= sch->limit)) {
		WRITE_ONCE(q->stats.overlimit, q->stats.overlimit + 1);
		goto drop;
	}

	/* Below 10%, an ECN-capable packet is marked instead of dropped. */
	if (pie_decide_drop(sch, &q->params, &q->vars, sch->qstats.backlog,
			    skb->len)) {
		if (!q->params.ecn || q->vars.prob > MAX_PROB / 10 ||
		    !INET_ECN_set_ce(skb))
			goto drop;
		WRITE_ONCE(q->stats.ecn_mark, q->stats.ecn_mark + 1);
	}

	if (!q->params.dq_rate_estimator)
		pie_set_enqueue_time(skb);
	/* the counters are dumped without the qdisc lock */
	WRITE_ONCE(q->stats.packets_in, q->stats.packets_in + 1);
	WRITE_ONCE(q->stats.maxq, max(q->stats.maxq, qlen));
	return qdisc_enqueue_tail(skb, sch);

drop:
	WRITE_ONCE(q->stats.dropped, q->stats.dropped + 1);
	q->vars.accu_prob = 0;
	return qdisc_drop(skb, sch, to_free);
}

static struct sk_buff *pie_dequeue(struct Qdisc *sch)
{
	struct sk_buff *head = qdisc_dequeue_head(sch);
	struct pie_qdisc *q;

	if (!head)
		return NULL;
	q = qdisc_priv(sch);
	pie_account_dequeue(head, &q->params, &q->vars, sch->qstats.backlog);
	return head;
}

static const struct nla_policy pie_policy[TCA_PIE_MAX + 1] = {
	[TCA_PIE_TARGET]		= { .type = NLA_U32 },
	[TCA_PIE_LIMIT]			= NLA_POLICY_MIN(NLA_U32, 1),
	[TCA_PIE_TUPDATE]		= { .type = NLA_U32 },
	[TCA_PIE_ALPHA]			= NLA_POLICY_MAX(NLA_U32, PIE_GAIN_MAX),
	[TCA_PIE_BETA]			= NLA_POLICY_MAX(NLA_U32, PIE_GAIN_MAX),
	/*
	 * The flags take any u32, as they always have: tc sends 0 or 1, and
	 * a dump returns what was set, so a stricter range would only break
	 * raw netlink users that work today.
	 */
	[TCA_PIE_ECN]			= { .type = NLA_U32 },
	[TCA_PIE_BYTEMODE]		= { .type = NLA_U32 },
	[TCA_PIE_DQ_RATE_ESTIMATOR]	= { .type = NLA_U32 },
};

/*
 * Attributes the policy cannot express: time values whose meaning
 * depends on their conversion.
 */
static int pie_check_times(struct nlattr **tb, struct netlink_ext_ack *extack)
{
	/*
	 * Any other target tc can send (up to U32_MAX us, 71 minutes) is
	 * taken: a delay term clamps its difference before multiplying.
	 */
	if (tb[TCA_PIE_TARGET] && !nla_get_u32(tb[TCA_PIE_TARGET])) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_PIE_TARGET],
				    "PIE target must be at least 1 us");
		return -EINVAL;
	}
	/* 0 would stop the controller for good: its timer re-arms on it. */
	if (tb[TCA_PIE_TUPDATE] && !nla_get_u32(tb[TCA_PIE_TUPDATE])) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_PIE_TUPDATE],
				    "PIE tupdate must be at least 1 us");
		return -EINVAL;
	}
	return 0;
}

static void pie_apply(struct pie_qdisc *q, struct Qdisc *sch,
		      struct nlattr **tb)
{
	struct pie_params *p = &q->params;

	if (tb[TCA_PIE_TARGET])
		WRITE_ONCE(p->target,
			   PSCHED_NS2TICKS((u64)nla_get_u32(tb[TCA_PIE_TARGET]) *
					   NSEC_PER_USEC));
	if (tb[TCA_PIE_TUPDATE])
		WRITE_ONCE(p->tupdate,
			   usecs_to_jiffies(nla_get_u32(tb[TCA_PIE_TUPDATE])));
	if (tb[TCA_PIE_LIMIT]) {
		WRITE_ONCE(p->limit, nla_get_u32(tb[TCA_PIE_LIMIT]));
		WRITE_ONCE(sch->limit, p->limit);
	}
	if (tb[TCA_PIE_ALPHA])
		WRITE_ONCE(p->alpha, nla_get_u32(tb[TCA_PIE_ALPHA]));
	if (tb[TCA_PIE_BETA])
		WRITE_ONCE(p->beta, nla_get_u32(tb[TCA_PIE_BETA]));
	if (tb[TCA_PIE_ECN])
		WRITE_ONCE(p->ecn, nla_get_u32(tb[TCA_PIE_ECN]));
	if (tb[TCA_PIE_BYTEMODE])
		WRITE_ONCE(p->bytemode, nla_get_u32(tb[TCA_PIE_BYTEMODE]));
	if (tb[TCA_PIE_DQ_RATE_ESTIMATOR])
		WRITE_ONCE(p->dq_rate_estimator,
			   nla_get_u32(tb[TCA_PIE_DQ_RATE_ESTIMATOR]));
}

/* After a smaller limit: drop from the head until the queue fits it. */
static void pie_trim_to_limit(struct Qdisc *sch)
{
	unsigned int packets = 0, bytes = 0;
	struct sk_buff *skb;

	while (sch->q.qlen > sch->limit) {
		skb = qdisc_dequeue_internal(sch, true);
		if (!skb)
			break;
		packets++;
		bytes += qdisc_pkt_len(skb);
		rtnl_qdisc_drop(skb, sch);
	}
	qdisc_tree_reduce_backlog(sch, packets, bytes);
}

static int pie_qdisc_change(struct Qdisc *sch, struct nlattr *opt,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *attrs[TCA_PIE_MAX + 1];
	int err;

	/* Liberal parsing, as ever for pie: old tc binaries keep working. */
	err = nla_parse_nested_deprecated(attrs, TCA_PIE_MAX, opt, pie_policy,
					  extack);
	if (!err)
		err = pie_check_times(attrs, extack);
	if (err)
		return err;

	sch_tree_lock(sch);
	pie_apply(qdisc_priv(sch), sch, attrs);
	pie_trim_to_limit(sch);
	sch_tree_unlock(sch);
	return 0;
}

/* Every tupdate, under the qdisc lock, from the queue's current backlog. */
static void pie_update(struct timer_list *t)
{
	struct pie_qdisc *q = from_timer(q, t, update_timer);
	struct Qdisc *root;
	u32 period;

	rcu_read_lock();
	root = qdisc_root_sleeping(q->qdisc);
	spin_lock(qdisc_lock(root));
	pie_calculate_probability(&q->params, &q->vars,
				  q->qdisc->qstats.backlog);
	/* pie_qdisc_destroy() zeroes tupdate first, so the timer stays stopped. */
	period = q->params.tupdate;
	if (period)
		mod_timer(&q->update_timer, jiffies + period);
	spin_unlock(qdisc_lock(root));
	rcu_read_unlock();
}

static void pie_clear_controller(struct pie_qdisc *q)
{
	memset(&q->vars, 0, sizeof(q->vars));
	pie_vars_init(&q->vars);
}

static int pie_qdisc_init(struct Qdisc *sch, struct nlattr *opt,
			  struct netlink_ext_ack *extack)
{
	struct pie_qdisc *q = qdisc_priv(sch);
	int err;

	q->qdisc = sch;
	timer_setup(&q->update_timer, pie_update, 0);
	pie_params_init(&q->params);
	sch->limit = q->params.limit;
	pie_clear_controller(q);

	err = opt ? pie_qdisc_change(sch, opt, extack) : 0;
	/* The first update after half a second, then every tupdate. */
	if (!err)
		mod_timer(&q->update_timer, jiffies + HZ / 2);
	return err;
}

static int pie_dump_params(struct Qdisc *sch, struct sk_buff *skb)
{
	struct pie_qdisc *q = qdisc_priv(sch);
	const struct pie_params *p = &q->params;
	u64 target_ns = PSCHED_TICKS2NS(READ_ONCE(p->target));
	struct nlattr *nest = nla_nest_start_noflag(skb, TCA_OPTIONS);

	if (!nest)
		return -EMSGSIZE;

	if (nla_put_u32(skb, TCA_PIE_TARGET, div_u64(target_ns, NSEC_PER_USEC)) ||
	    nla_put_u32(skb, TCA_PIE_LIMIT, READ_ONCE(sch->limit)) ||
	    nla_put_u32(skb, TCA_PIE_TUPDATE,
			jiffies_to_usecs(READ_ONCE(p->tupdate))) ||
	    nla_put_u32(skb, TCA_PIE_ALPHA, READ_ONCE(p->alpha)) ||
	    nla_put_u32(skb, TCA_PIE_BETA, READ_ONCE(p->beta)) ||
	    nla_put_u32(skb, TCA_PIE_ECN, READ_ONCE(p->ecn)) ||
	    nla_put_u32(skb, TCA_PIE_BYTEMODE, READ_ONCE(p->bytemode)) ||
	    nla_put_u32(skb, TCA_PIE_DQ_RATE_ESTIMATOR,
			READ_ONCE(p->dq_rate_estimator))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	return nla_nest_end(skb, nest);
}

/* Microseconds for tc, saturated rather than wrapped past 71 minutes. */
static u32 pie_ticks_to_usecs(psched_time_t ticks)
{
	u64 us = div_u64(PSCHED_TICKS2NS(min_t(u64, ticks, U64_MAX >> 6)),
			 NSEC_PER_USEC);

	return min_t(u64, us, U32_MAX);
}

static int pie_dump_xstats(struct Qdisc *sch, struct gnet_dump *d)
{
	const struct pie_qdisc *q = qdisc_priv(sch);
	const struct pie_stats *counts = &q->stats;
	struct tc_pie_xstats st = {};

	/* UAPI scale: 2^64 is 100%, as iproute2 divides by it. */
	st.prob = READ_ONCE(q->vars.prob) << BITS_PER_BYTE;
	st.delay = pie_ticks_to_usecs(READ_ONCE(q->vars.qdelay));
	/* The rate exists only in rate estimator mode; in bytes per second. */
	st.dq_rate_estimating = READ_ONCE(q->params.dq_rate_estimator);
	if (st.dq_rate_estimating)
		st.avg_dq_rate = (u64)READ_ONCE(q->vars.avg_dq_rate) *
				 PSCHED_TICKS_PER_SEC >> PIE_SCALE;
	st.packets_in = READ_ONCE(counts->packets_in);
	st.dropped = READ_ONCE(counts->dropped);
	st.overlimit = READ_ONCE(counts->overlimit);
	st.ecn_mark = READ_ONCE(counts->ecn_mark);
	st.maxq = READ_ONCE(counts->maxq);

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static void pie_qdisc_reset(struct Qdisc *sch)
{
	struct pie_qdisc *q = qdisc_priv(sch);

	qdisc_reset_queue(sch);
	pie_clear_controller(q);
}

static void pie_qdisc_destroy(struct Qdisc *sch)
{
	struct pie_qdisc *q = qdisc_priv(sch);

	/* The timer re-arms itself only while tupdate is non-zero. */
	q->params.tupdate = 0;
	del_timer_sync(&q->update_timer);
}

static struct Qdisc_ops pie_ops __read_mostly = {
	.id		= "pie",
	.owner		= THIS_MODULE,
	.priv_size	= sizeof(struct pie_qdisc),
	.init		= pie_qdisc_init,
	.change		= pie_qdisc_change,
	.reset		= pie_qdisc_reset,
	.destroy	= pie_qdisc_destroy,
	.enqueue	= pie_enqueue,
	.dequeue	= pie_dequeue,
	.peek		= qdisc_peek_dequeued,
	.dump		= pie_dump_params,
	.dump_stats	= pie_dump_xstats,
};

static int __init sch_pie_init(void)
{
	return register_qdisc(&pie_ops);
}
module_init(sch_pie_init);

static void __exit sch_pie_exit(void)
{
	unregister_qdisc(&pie_ops);
}
module_exit(sch_pie_exit);

MODULE_DESCRIPTION("PIE: Proportional Integral controller Enhanced AQM (RFC 8033)");
MODULE_AUTHOR("Kernel Fork Developers");
MODULE_LICENSE("GPL");
