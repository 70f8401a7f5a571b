/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the fork's qdisc KUnit suites share: a qdisc of a kind named as
 * tc names it, on a real (unregistered) Ethernet device, created,
 * changed, fed and dumped through its Qdisc_ops the way the stack and
 * tc drive it.  Only what every implementation of the kind must
 * provide is used (the ops and the netlink attributes of the UAPI), so
 * a suite built on this runs against the fork and the distro files.
 */
#ifndef _NET_SCHED_SCH_QDISC_KUNIT_H
#define _NET_SCHED_SCH_QDISC_KUNIT_H

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/udp.h>
#include <net/gen_stats.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

struct qdisc_test_env {
	struct net_device *dev;
	const struct Qdisc_ops *ops;
	struct Qdisc *sch;
	struct sk_buff *msg;	/* holds the last options built */
	struct netlink_ext_ack extack;
	/* TCA_OPTIONS flagged NLA_F_NESTED, as tc sends some kinds' */
	bool nested_flag;
};

struct qdisc_test_attr {
	int type;
	u32 value;
};

static inline struct qdisc_test_env *qdisc_test_env(struct kunit *test)
{
	return test->priv;
}

static inline struct Qdisc *qdisc_test_sch(struct kunit *test)
{
	return qdisc_test_env(test)->sch;
}

/*
 * The registered kind named KIND, found without changing anything: the
 * kinds form a list through ->next, to which register_qdisc() appends.
 * pfifo_qdisc_ops is exported and registered by pktsched_init() (a
 * subsys_initcall), before any qdisc's own init, so every kind a suite
 * tests is on its chain.  The chain is read without sch_api.c's lock,
 * which is its own: the suites run after every initcall, when no
 * built-in kind is registered or unregistered any more.
 */
static inline const struct Qdisc_ops *qdisc_test_find_ops(struct kunit *test,
							  const char *kind)
{
	const struct Qdisc_ops *ops;

	for (ops = &pfifo_qdisc_ops; ops; ops = READ_ONCE(ops->next))
		if (!strcmp(ops->id, kind))
			return ops;
	KUNIT_ASSERT_FAILURE(test, "no qdisc kind %s registered", kind);
	return NULL;
}

/* For a suite's init: the device and the ops, no qdisc yet. */
static inline int qdisc_test_setup(struct kunit *test, const char *kind)
{
	struct qdisc_test_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, env);
	env->dev = alloc_etherdev(0);
	KUNIT_ASSERT_NOT_NULL(test, env->dev);
	env->ops = qdisc_test_find_ops(test, kind);
	test->priv = env;
	return 0;
}

/* Free the qdisc as the stack does, after an RCU grace period. */
static inline void qdisc_test_destroy(struct qdisc_test_env *env)
{
	if (!env->sch)
		return;
	netdev_get_tx_queue(env->dev, 0)->qdisc_sleeping = NULL;
	rtnl_lock();
	qdisc_put(env->sch);
	rtnl_unlock();
	rcu_barrier();
	env->sch = NULL;
}

/* For a suite's exit. */
static inline void qdisc_test_teardown(struct kunit *test)
{
	struct qdisc_test_env *env = test->priv;

	qdisc_test_destroy(env);
	kfree_skb(env->msg);
	free_netdev(env->dev);
}

/* TCA_OPTIONS holding the given u32 attributes, as tc sends them. */
static inline struct nlattr *qdisc_test_options(struct kunit *test,
						const struct qdisc_test_attr *attrs,
						int n)
{
	struct qdisc_test_env *env = test->priv;
	struct nlattr *nest;
	struct sk_buff *skb;
	int i;

	kfree_skb(env->msg);
	skb = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
	env->msg = skb;
	KUNIT_ASSERT_NOT_NULL(test, skb);
	nest = env->nested_flag ? nla_nest_start(skb, TCA_OPTIONS) :
		nla_nest_start_noflag(skb, TCA_OPTIONS);
	KUNIT_ASSERT_NOT_NULL(test, nest);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, nla_put_u32(skb, attrs[i].type, attrs[i].value), 0);
	nla_nest_end(skb, nest);
	return nest;
}

/*
 * The qdisc as the device queue's root, created as qdisc_create() does,
 * so its lock is the root lock that ->change takes.  On failure it is
 * undone as qdisc_create() undoes it: ->destroy, but no ->reset (which
 * may expect what a failed ->init never set up), the root lock's
 * lockdep key unregistered and the device put.
 */
static inline int qdisc_test_create(struct kunit *test,
				    const struct qdisc_test_attr *attrs, int n)
{
	struct qdisc_test_env *env = test->priv;
	struct netdev_queue *txq = netdev_get_tx_queue(env->dev, 0);
	struct nlattr *opt = n ? qdisc_test_options(test, attrs, n) : NULL;
	struct Qdisc *sch;
	int err;

	qdisc_test_destroy(env);
	sch = qdisc_alloc(txq, env->ops, &env->extack);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sch));
	sch->handle = TC_H_MAKE(1 << 16, 0);
	sch->parent = TC_H_ROOT;
	env->sch = sch;
	txq->qdisc_sleeping = sch;
	memset(&env->extack, 0, sizeof(env->extack));
	rtnl_lock();
	err = env->ops->init(sch, opt, &env->extack);
	if (err) {
		if (env->ops->destroy)
			env->ops->destroy(sch);
		txq->qdisc_sleeping = NULL;
		env->sch = NULL;
		lockdep_unregister_key(&sch->root_lock_key);
		netdev_put(env->dev, &sch->dev_tracker);
		qdisc_free_rcu(sch);
	}
	rtnl_unlock();
	return err;
}

static inline int qdisc_test_change(struct kunit *test,
				    const struct qdisc_test_attr *attrs, int n)
{
	struct qdisc_test_env *env = test->priv;
	struct nlattr *opt = qdisc_test_options(test, attrs, n);
	int err;

	memset(&env->extack, 0, sizeof(env->extack));
	rtnl_lock();
	err = env->ops->change(env->sch, opt, &env->extack);
	rtnl_unlock();
	return err;
}

/* Enqueue under the qdisc lock; packets the qdisc drops are freed. */
static inline int qdisc_test_enqueue(struct kunit *test, struct sk_buff *skb)
{
	struct Qdisc *sch = qdisc_test_sch(test);
	struct sk_buff *to_free = NULL;
	int ret;

	spin_lock_bh(qdisc_lock(sch));
	ret = sch->enqueue(skb, sch, &to_free);
	spin_unlock_bh(qdisc_lock(sch));
	kfree_skb_list(to_free);
	return ret;
}

static inline struct sk_buff *qdisc_test_dequeue(struct kunit *test)
{
	struct Qdisc *sch = qdisc_test_sch(test);
	struct sk_buff *skb;

	spin_lock_bh(qdisc_lock(sch));
	skb = sch->dequeue(sch);
	spin_unlock_bh(qdisc_lock(sch));
	return skb;
}

/*
 * The qdisc's TCA_OPTIONS as tc reads them: values[type] for each type
 * up to max, all of them u32.  Expects every attribute in the dump.
 */
static inline void qdisc_test_dump_options(struct kunit *test, u32 *values,
					   int max)
{
	struct qdisc_test_env *env = test->priv;
	struct sk_buff *skb = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
	struct nlattr *tb[32], *opts;
	int i, missing = 0;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_LT(test, max, (int)ARRAY_SIZE(tb));
	opts = (struct nlattr *)skb->data;
	if (env->ops->dump(env->sch, skb) <= 0 || nla_type(opts) != TCA_OPTIONS ||
	    nla_parse_nested_deprecated(tb, max, opts, NULL, NULL)) {
		kfree_skb(skb);
		KUNIT_ASSERT_FAILURE(test, "no TCA_OPTIONS in the dump");
	}
	for (i = 1; i <= max; i++) {
		values[i] = tb[i] ? nla_get_u32(tb[i]) : 0;
		missing |= !tb[i] << i;
	}
	kfree_skb(skb);
	KUNIT_EXPECT_EQ_MSG(test, missing, 0, "attributes missing from the dump");
}

/*
 * A dump into a message without room for all of it must fail: a netlink
 * reply that fills up is trimmed by its caller (tc_fill_qdisc()) and
 * the dump goes on in the next one.  The nest of TCA_OPTIONS takes
 * nla_total_size(0) = 4 bytes and each of the attrs u32 attributes
 * nla_total_size(4) = 8, so room for none, for the nest alone, and
 * for the nest and 1 to attrs - 1 attributes must all fail, and room
 * for all of them must do.
 */
static inline void qdisc_test_dump_overflow(struct kunit *test, int attrs)
{
	struct qdisc_test_env *env = test->priv;
	unsigned int room;
	int ret, n;

	for (n = -1; n <= attrs; n++) {
		struct sk_buff *skb = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, skb);
		room = n < 0 ? 0 : 4 + 8 * n;
		skb_put(skb, skb_tailroom(skb) - room);
		ret = env->ops->dump(env->sch, skb);
		kfree_skb(skb);
		if (n < attrs)
			KUNIT_EXPECT_LT_MSG(test, ret, 0, "dump with %u bytes of room", room);
		else
			KUNIT_EXPECT_GT_MSG(test, ret, 0, "dump with %u bytes of room", room);
	}
}

/*
 * For benchmarks: laps times, the n skbs in and then all n out, under
 * the qdisc lock.  The same skbs go round, so the figure is the
 * qdisc's and not the allocator's; none may be dropped.  Nanoseconds.
 */
static inline u64 qdisc_test_bench_laps(struct kunit *test, struct sk_buff **skbs,
					int n, int laps)
{
	struct Qdisc *sch = qdisc_test_sch(test);
	struct sk_buff *to_free = NULL;
	int lap, i, lost = 0;
	u64 start;

	start = ktime_get_ns();
	spin_lock_bh(qdisc_lock(sch));
	for (lap = 0; lap < laps; lap++) {
		for (i = 0; i < n; i++)
			sch->enqueue(skbs[i], sch, &to_free);
		for (i = 0; i < n; i++) {
			skbs[i] = sch->dequeue(sch);
			lost += !skbs[i];
		}
	}
	spin_unlock_bh(qdisc_lock(sch));
	KUNIT_ASSERT_EQ(test, lost, 0);
	KUNIT_ASSERT_NULL(test, to_free);
	return ktime_get_ns() - start;
}

/* The qdisc's xstats (struct tc_KIND_xstats) as tc -s reads them. */
static inline void qdisc_test_xstats(struct kunit *test, void *st, int size)
{
	struct qdisc_test_env *env = test->priv;
	struct sk_buff *skb = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
	struct nlattr *app = NULL;
	struct gnet_dump d;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	/* under RTNL, as tc_fill_qdisc() (fq_pie takes the tree lock) */
	rtnl_lock();
	if (!gnet_stats_start_copy(skb, TCA_STATS2, NULL, &d, TCA_PAD) &&
	    !env->ops->dump_stats(env->sch, &d) && !gnet_stats_finish_copy(&d))
		app = nla_find(nla_data(d.tail), nla_len(d.tail), TCA_STATS_APP);
	rtnl_unlock();
	if (!app || nla_len(app) != size) {
		kfree_skb(skb);
		KUNIT_ASSERT_FAILURE(test, "no xstats of the right size in the dump");
	}
	memcpy(st, nla_data(app), size);
	kfree_skb(skb);
}

/*
 * Make skb, an IPv4 UDP packet, one of the flow numbered flow:
 * addresses and ports follow from the number, so distinct numbers are
 * distinct flows to the flow dissector.  A suite that sends many
 * packets moves one skb from flow to flow instead of allocating.
 */
static inline void qdisc_test_set_flow(struct sk_buff *skb, u32 flow)
{
	struct iphdr *iph = ip_hdr(skb);

	iph->saddr = htonl(0x0a000000 | (flow >> 16));	/* 10.0.0.0/8 */
	iph->check = 0;
	iph->check = ip_fast_csum((u8 *)iph, iph->ihl);
	udp_hdr(skb)->source = htons(flow & 0xffff);
}

/* An IPv4 UDP packet of len bytes (at least the two headers). */
static inline struct sk_buff *qdisc_test_udp(struct kunit *test, u32 flow,
					     u32 len, u8 tos)
{
	struct qdisc_test_env *env = test->priv;
	struct sk_buff *skb = alloc_skb(len, GFP_KERNEL);
	struct udphdr *uh;
	struct iphdr *iph;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_GE(test, len, (u32)(sizeof(*iph) + sizeof(*uh)));
	skb_put_zero(skb, len);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, sizeof(*iph));
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = tos;
	iph->tot_len = htons(len);
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->daddr = htonl(0xc0a80001);			/* 192.168.0.1 */
	uh = udp_hdr(skb);
	uh->dest = htons(9);
	uh->len = htons(len - sizeof(*iph));
	qdisc_test_set_flow(skb, flow);
	skb->protocol = htons(ETH_P_IP);
	skb->dev = env->dev;
	qdisc_skb_cb(skb)->pkt_len = len;
	return skb;
}

/*
 * A fixed pseudo-random sequence, the same on every build and boot
 * (xorshift64, Marsaglia 2003); state must not be 0.
 */
static inline u64 qdisc_test_xorshift(u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* FNV-1a over the 8 bytes of value, for the kfork-diff digests. */
static inline u64 qdisc_test_fnv(u64 hash, u64 value)
{
	int i;

	for (i = 0; i < 8; i++, value >>= 8)
		hash = (hash ^ (value & 0xff)) * 0x100000001b3ULL;
	return hash;
}

#define QDISC_TEST_FNV_START	0xcbf29ce484222325ULL

/* The flow number qdisc_test_udp() gave skb. */
static inline u32 qdisc_test_flow_of(const struct sk_buff *skb)
{
	return (ntohl(ip_hdr(skb)->saddr) & 0xffff) << 16 |
	       ntohs(udp_hdr(skb)->source);
}

#endif /* _NET_SCHED_SCH_QDISC_KUNIT_H */
