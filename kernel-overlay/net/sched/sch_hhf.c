// SPDX-License-Identifier: GPL-2.0-only
/*
 * net/sched/sch_hhf.c	Heavy-Hitter Filter (HHF)
 *
 * Two buckets, served by weighted deficit round robin: one for the
 * flows that send the most (heavy hitters, weight 1) and one for every
 * other flow (weight non_hh_weight, 2 by default).  Short request and
 * response flows then keep their share of the link, and their packets
 * do not wait behind bulk transfers.
 *
 * Heavy hitters are found with the multi-stage filter of C. Estan and
 * G. Varghese, "New Directions in Traffic Measurement and Accounting",
 * SIGCOMM 2002.  Each stage is an array of byte counters indexed by its
 * own hash of the flow; a packet passes the filter when every counter
 * of its flow, plus the packet, exceeds admit_bytes.  A flow that sent
 * more than admit_bytes within one period therefore always passes (no
 * false negatives); a small flow passes only if it shares a large
 * counter in every stage.  Two refinements of the paper keep those
 * false positives rare:
 *
 * - shielding: once a flow is a heavy hitter its bytes no longer go
 *   through the filter, so it stops inflating the counters it shares;
 * - conservative update: a packet raises each of its flow's counters
 *   only up to the new estimate of that flow, the smallest counter plus
 *   the packet, never by the whole packet.
 *
 * The counters are cleared every reset_timeout.  Flows that passed sit
 * in an exact-match table, keyed by the full flow hash, until they stay
 * silent for evict_timeout; at most hh_limit of them.
 *
 * The stages are indexed independently: the flow hash is mixed with an
 * odd multiplier drawn per stage and per qdisc (multiply-shift hashing,
 * which makes two flows meet in a stage with probability at most
 * 2/HHF_COUNTERS, independently in each stage).  The analysis behind
 * the false-positive bound assumes exactly that independence.
 *
 * What sets the false-positive rate is how many counters the heavy
 * hitters fill: a mouse passes when each of its counters is one of
 * theirs, so with n heavy hitters about (1 - e^(-n/counters))^stages of
 * the mice pass.  Upstream has four stages of 1024: for 100 heavy
 * hitters, 75 false positives per million mice.  This filter has five:
 * 7 per million (kunit/derive/hhf_fp_sim.c).  Stages stay at 1024
 * counters, as many as upstream's, because fewer fail many-flow loads:
 * with 4096 flows of 8000 bytes and admit_bytes 20000, eight stages of
 * 512 take nearly all of them for heavy hitters, conservative update or
 * not, where stages of 1024 take none (kunit/derive/hhf_filter.py).
 *
 * A counter holds bytes in 32 bits and a packet adds its length, as
 * upstream's do, so a flow alone in the filter passes with the very
 * packet upstream's passes with, whatever the lengths and admit_bytes.
 * Five pages of counters, 640 bytes of their fresh bits and a table of
 * 512 hlist heads (4 KiB) replace upstream's four pages of counters,
 * 512 bytes of bits and 16 KiB table of list heads.
 */

#include <linux/bitmap.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#define HHF_STAGES		5
#define HHF_STAGE_BITS		10
#define HHF_COUNTERS		BIT(HHF_STAGE_BITS)	/* per stage */
#define HHF_TABLE_BITS		9
#define HHF_TABLE_SIZE		BIT(HHF_TABLE_BITS)
#define HHF_HH_LIMIT_MAX	2048	/* the default, and tc's limit */
#define HHF_MIN_QUANTUM		256U

enum hhf_bucket_id {
	HHF_BUCKET_HH,		/* heavy hitters, weight 1 */
	HHF_BUCKET_OTHER,	/* everything else, weight non_hh_weight */
	HHF_BUCKETS
};

/* A heavy hitter in the exact-match table. */
struct hhf_flow {
	struct hlist_node node;
	u32 hash;
	u32 last_seen;		/* jiffies, truncated like every stamp here */
};

struct hhf_bucket {
	struct sk_buff *head;
	struct sk_buff *tail;
	struct list_head active;	/* on new_buckets or old_buckets */
	int deficit;
};

/*
 * The multi-stage filter and the table of heavy hitters: given a flow's
 * hash, a packet's length and the time, whether the packet is a heavy
 * hitter's.  Nothing here knows the qdisc, so the white-box suite
 * (sch_hhf_filter_kunit.c) drives it directly.
 */
struct hhf_filter {
	u32 stage_mul[HHF_STAGES];	/* odd, one per stage */
	u32 *counters[HHF_STAGES];	/* HHF_COUNTERS each, bytes */
	/*
	 * A counter whose bit is clear holds a previous period's value and
	 * reads as zero: clearing 640 bytes of bits at each reset is cheaper
	 * than rewriting 20 KiB of counters the next packets may not touch.
	 */
	unsigned long *fresh;
	u32 period_start;		/* jiffies of the last reset */
	struct hlist_head *table;	/* heavy hitters by hash */

	u32 hh_limit;
	u32 reset_timeout;		/* jiffies */
	u32 admit_bytes;
	u32 evict_timeout;		/* jiffies */

	/* of struct tc_hhf_xstats, written under the qdisc lock */
	u32 hh_overlimit;
	u32 hh_total;
	u32 hh_current;
};

struct hhf_sched_data {
	struct hhf_bucket buckets[HHF_BUCKETS];
	/*
	 * A bucket that becomes backlogged joins new_buckets if it holds
	 * other flows and old_buckets if it holds heavy hitters; new ones
	 * are served first, so a burst of small flows goes out at once.
	 */
	struct list_head new_buckets;
	struct list_head old_buckets;

	siphash_key_t perturbation;
	struct hhf_filter filter;

	u32 quantum;
	u32 non_hh_weight;
	u32 drop_overlimit;		/* written under the qdisc lock */
};

static u32 hhf_now(void)
{
	return (u32)jiffies;
}

/* True when more than @timeout jiffies have passed since @stamp. */
static bool hhf_expired(u32 stamp, u32 timeout, u32 now)
{
	return (s32)(now - (stamp + timeout)) > 0;
}

static u32 hhf_weight(const struct hhf_sched_data *q, enum hhf_bucket_id id)
{
	return id == HHF_BUCKET_HH ? 1 : q->non_hh_weight;
}

/* ---- the multi-stage filter ---- */

static void hhf_filter_clear(struct hhf_filter *f, u32 now)
{
	bitmap_zero(f->fresh, HHF_STAGES * HHF_COUNTERS);
	f->period_start = now;
}

/* Where @hash counts in stage @stage: an index into its counters. */
static __always_inline u32 hhf_slot(const struct hhf_filter *f, u32 hash, int stage)
{
	return (hash * f->stage_mul[stage]) >> (32 - HHF_STAGE_BITS);
}

/* The counter of @slot in @stage, zeroed first if it is a stale one. */
static __always_inline u32 *hhf_counter(struct hhf_filter *f, unsigned long *fresh,
					int stage, u32 slot)
{
	u32 *counter = &f->counters[stage][slot];
	u32 bit = stage * HHF_COUNTERS + slot;

	if (!test_bit(bit, fresh)) {
		__set_bit(bit, fresh);
		*counter = 0;
	}
	return counter;
}

/* Stage @stage's counter of the flow plus @len, in 32 bits; the counter in @counters. */
static __always_inline u32 hhf_stage_sum(struct hhf_filter *f, unsigned long *fresh, u32 hash,
					 u32 len, int stage, u32 **counters)
{
	counters[stage] = hhf_counter(f, fresh, stage, hhf_slot(f, hash, stage));
	return *counters[stage] + len;
}

static __always_inline void hhf_raise(u32 *counter, u32 estimate)
{
	if (*counter < estimate)
		*counter = estimate;
}

/*
 * The flow's bytes this period with the packet's @len: the smallest of
 * its counters plus the packet.  Each sum is taken in 32 bits, as
 * upstream takes it, so one past U32_MAX wraps to a small number: a
 * flow that comes within a packet of U32_MAX bytes in a period then
 * stays a mouse, its counters where they were, on both.  Fills
 * @counters with the flow's counters, for the update.
 *
 * The stages are written out, here and in hhf_filter_raise(): gcc -O2
 * keeps a loop of five, whose counting and index arithmetic came to a
 * third of the filter's instructions (QEMU -icount: 949 a packet in and
 * out, against upstream's 920 for four stages).
 */
static __always_inline u32 hhf_filter_estimate(struct hhf_filter *f, u32 hash, u32 len,
					       u32 **counters)
{
	unsigned long *fresh = f->fresh;
	u32 least;

	BUILD_BUG_ON(HHF_STAGES != 5);
	least = hhf_stage_sum(f, fresh, hash, len, 0, counters);
	least = min(least, hhf_stage_sum(f, fresh, hash, len, 1, counters));
	least = min(least, hhf_stage_sum(f, fresh, hash, len, 2, counters));
	least = min(least, hhf_stage_sum(f, fresh, hash, len, 3, counters));
	return min(least, hhf_stage_sum(f, fresh, hash, len, 4, counters));
}

/* Conservative update: no counter is raised past the flow's estimate. */
static __always_inline void hhf_filter_raise(u32 *const *counters, u32 estimate)
{
	hhf_raise(counters[0], estimate);
	hhf_raise(counters[1], estimate);
	hhf_raise(counters[2], estimate);
	hhf_raise(counters[3], estimate);
	hhf_raise(counters[4], estimate);
}

/* ---- the table of heavy hitters ---- */

static struct hlist_head *hhf_chain(struct hhf_filter *f, u32 hash)
{
	return &f->table[hash & (HHF_TABLE_SIZE - 1)];
}

static void hhf_forget(struct hhf_filter *f, struct hhf_flow *flow)
{
	hlist_del(&flow->node);
	kfree(flow);
	WRITE_ONCE(f->hh_current, f->hh_current - 1);
}

/* The heavy hitter with @hash; idle ones met on the way are evicted. */
static __always_inline struct hhf_flow *hhf_lookup(struct hhf_filter *f, u32 hash, u32 now)
{
	struct hhf_flow *flow;
	struct hlist_node *next;

	hlist_for_each_entry_safe(flow, next, hhf_chain(f, hash), node) {
		if (hhf_expired(flow->last_seen, f->evict_timeout, now))
			hhf_forget(f, flow);
		else if (flow->hash == hash)
			return flow;
	}
	return NULL;
}

/* Enter a flow that passed the filter; false if the table is full. */
static bool hhf_admit(struct hhf_filter *f, u32 hash, u32 now)
{
	struct hhf_flow *flow;

	if (f->hh_current >= f->hh_limit) {
		WRITE_ONCE(f->hh_overlimit, f->hh_overlimit + 1);
		return false;
	}
	flow = kmalloc(sizeof(*flow), GFP_ATOMIC);
	if (!flow)
		return false;
	flow->hash = hash;
	flow->last_seen = now;
	hlist_add_head(&flow->node, hhf_chain(f, hash));
	WRITE_ONCE(f->hh_current, f->hh_current + 1);
	WRITE_ONCE(f->hh_total, f->hh_total + 1);
	return true;
}

static void hhf_table_clear(struct hhf_filter *f)
{
	struct hhf_flow *flow;
	struct hlist_node *next;
	u32 i;

	for (i = 0; i < HHF_TABLE_SIZE; i++)
		hlist_for_each_entry_safe(flow, next, &f->table[i], node)
			hhf_forget(f, flow);
}

/*
 * Whether the packet of @len bytes of the flow with @hash is a heavy
 * hitter's.  It and the helpers above run for every packet and are
 * inlined into hhf_enqueue() whatever else calls them: with the
 * white-box suite's many calls in the build, gcc kept them out of line,
 * five calls a packet.
 */
static __always_inline bool hhf_filter_heavy(struct hhf_filter *f, u32 hash, u32 len, u32 now)
{
	u32 *counters[HHF_STAGES], estimate;
	struct hhf_flow *flow;

	if (hhf_expired(f->period_start, f->reset_timeout, now))
		hhf_filter_clear(f, now);

	flow = hhf_lookup(f, hash, now);
	if (flow) {
		flow->last_seen = now;
		return true;
	}

	estimate = hhf_filter_estimate(f, hash, len, counters);
	if (estimate <= f->admit_bytes) {
		hhf_filter_raise(counters, estimate);
		return false;
	}
	/*
	 * Passed: from now on the flow is shielded from the filter.  A flow
	 * the full table cannot take is not counted either, so its counters
	 * stay where it passed and every later packet tries again.
	 */
	return hhf_admit(f, hash, now);
}

/* Counters, heavy hitters and odd multipliers; the period starts @now. */
static int hhf_filter_alloc(struct hhf_filter *f, u32 now)
{
	int stage;

	/*
	 * A stage a page: one array of all five would take an order-3
	 * block, eight pages, from kmalloc.
	 */
	for (stage = 0; stage < HHF_STAGES; stage++) {
		f->counters[stage] = kvcalloc(HHF_COUNTERS, sizeof(u32), GFP_KERNEL);
		if (!f->counters[stage])
			return -ENOMEM;
		f->stage_mul[stage] = get_random_u32() | 1;
	}
	f->fresh = bitmap_zalloc(HHF_STAGES * HHF_COUNTERS, GFP_KERNEL);
	/* Zeroed, every chain is empty: an hlist_head is its first pointer. */
	f->table = kvcalloc(HHF_TABLE_SIZE, sizeof(*f->table), GFP_KERNEL);
	if (!f->fresh || !f->table)
		return -ENOMEM;
	f->period_start = now;
	return 0;
}

/* Also after a failed hhf_filter_alloc(). */
static void hhf_filter_free(struct hhf_filter *f)
{
	int stage;

	if (f->table)
		hhf_table_clear(f);
	kvfree(f->table);
	bitmap_free(f->fresh);
	for (stage = 0; stage < HHF_STAGES; stage++)
		kvfree(f->counters[stage]);
}

/* Counters and heavy hitters go; the totals stay. */
static void hhf_filter_reset(struct hhf_filter *f, u32 now)
{
	hhf_table_clear(f);
	hhf_filter_clear(f, now);
}

static enum hhf_bucket_id hhf_classify(struct hhf_sched_data *q,
				       struct sk_buff *skb)
{
	u32 hash = skb_get_hash_perturb(skb, &q->perturbation);

	return hhf_filter_heavy(&q->filter, hash, qdisc_pkt_len(skb), hhf_now()) ?
	       HHF_BUCKET_HH : HHF_BUCKET_OTHER;
}

/* ---- the two buckets and WDRR ---- */

static void hhf_bucket_push(struct hhf_bucket *b, struct sk_buff *skb)
{
	skb->next = NULL;
	if (b->head)
		b->tail->next = skb;
	else
		b->head = skb;
	b->tail = skb;
}

static struct sk_buff *hhf_bucket_pop(struct Qdisc *sch, struct hhf_bucket *b)
{
	struct sk_buff *skb = b->head;

	b->head = skb->next;
	skb_mark_not_on_list(skb);
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	return skb;
}

/* Overflow: the heavy hitters lose their oldest packet first. */
static enum hhf_bucket_id hhf_drop_head(struct Qdisc *sch,
					struct sk_buff **to_free)
{
	struct hhf_sched_data *q = qdisc_priv(sch);
	enum hhf_bucket_id id = HHF_BUCKET_HH;

	if (!q->buckets[id].head)
		id = HHF_BUCKET_OTHER;
	qdisc_drop(hhf_bucket_pop(sch, &q->buckets[id]), sch, to_free);
	return id;
}

static int hhf_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	struct hhf_sched_data *q = qdisc_priv(sch);
	enum hhf_bucket_id id = hhf_classify(q, skb);
	struct hhf_bucket *b = &q->buckets[id];
	unsigned int backlog;

	hhf_bucket_push(b, skb);
	qdisc_qstats_backlog_inc(sch, skb);
	if (list_empty(&b->active)) {
		b->deficit = hhf_weight(q, id) * q->quantum;
		list_add_tail(&b->active, id == HHF_BUCKET_HH ?
			      &q->old_buckets : &q->new_buckets);
	}
	if (++sch->q.qlen <= sch->limit)
		return NET_XMIT_SUCCESS;

	WRITE_ONCE(q->drop_overlimit, q->drop_overlimit + 1);
	backlog = sch->qstats.backlog;
	/* The packet counts as refused if its own bucket paid for it. */
	if (hhf_drop_head(sch, to_free) == id)
		return NET_XMIT_CN;
	qdisc_tree_reduce_backlog(sch, 1, backlog - sch->qstats.backlog);
	return NET_XMIT_SUCCESS;
}

static struct sk_buff *hhf_dequeue(struct Qdisc *sch)
{
	struct hhf_sched_data *q = qdisc_priv(sch);
	struct list_head *list;
	struct hhf_bucket *b;
	struct sk_buff *skb;

	for (;;) {
		list = list_empty(&q->new_buckets) ? &q->old_buckets :
						      &q->new_buckets;
		b = list_first_entry_or_null(list, struct hhf_bucket, active);
		if (!b)
			return NULL;
		if (b->deficit <= 0) {
			b->deficit += hhf_weight(q, b - q->buckets) * q->quantum;
			list_move_tail(&b->active, &q->old_buckets);
		} else if (b->head) {
			break;
		} else if (list == &q->new_buckets &&
			   !list_empty(&q->old_buckets)) {
			/*
			 * An emptied new bucket still takes one turn behind the
			 * heavy hitters; otherwise a bucket that keeps emptying
			 * and refilling would always be new and always first.
			 */
			list_move_tail(&b->active, &q->old_buckets);
		} else {
			list_del_init(&b->active);
		}
	}
	skb = hhf_bucket_pop(sch, b);
	b->deficit -= qdisc_pkt_len(skb);
	qdisc_bstats_update(sch, skb);
	return skb;
}

static void hhf_purge(struct Qdisc *sch)
{
	struct hhf_sched_data *q = qdisc_priv(sch);
	int id;

	for (id = 0; id < HHF_BUCKETS; id++) {
		struct hhf_bucket *b = &q->buckets[id];

		while (b->head) {
			struct sk_buff *skb = hhf_bucket_pop(sch, b);

			rtnl_kfree_skbs(skb, skb);
		}
		b->tail = NULL;
		list_del_init(&b->active);
	}
}

/* Packets, counters and heavy hitters all go; the totals stay. */
static void hhf_reset(struct Qdisc *sch)
{
	struct hhf_sched_data *q = qdisc_priv(sch);

	hhf_purge(sch);
	/* qdisc_create_dflt() puts a qdisc whose init failed: no tables. */
	if (!q->filter.table || !q->filter.fresh)
		return;
	hhf_filter_reset(&q->filter, hhf_now());
}

/* ---- configuration ---- */

static const struct nla_policy hhf_policy[TCA_HHF_MAX + 1] = {
	[TCA_HHF_BACKLOG_LIMIT]	 = { .type = NLA_U32 },
	[TCA_HHF_QUANTUM]	 = { .type = NLA_U32 },
	[TCA_HHF_HH_FLOWS_LIMIT] = NLA_POLICY_MAX(NLA_U32, HHF_HH_LIMIT_MAX),
	[TCA_HHF_RESET_TIMEOUT]	 = { .type = NLA_U32 },
	[TCA_HHF_ADMIT_BYTES]	 = { .type = NLA_U32 },
	[TCA_HHF_EVICT_TIMEOUT]	 = { .type = NLA_U32 },
	[TCA_HHF_NON_HH_WEIGHT]	 = { .type = NLA_U32 },
};

static u32 hhf_get_u32(struct nlattr **tb, int type, u32 current_value)
{
	return tb[type] ? nla_get_u32(tb[type]) : current_value;
}

static u32 hhf_get_usecs(struct nlattr **tb, int type, u32 current_jiffies)
{
	return tb[type] ? usecs_to_jiffies(nla_get_u32(tb[type])) :
			  current_jiffies;
}

/* Drop from the head until the queue fits a lowered limit. */
static void hhf_trim(struct Qdisc *sch)
{
	unsigned int packets = 0, bytes = 0;
	struct sk_buff *skb;

	while (sch->q.qlen > sch->limit) {
		skb = qdisc_dequeue_internal(sch, false);
		if (!skb)
			break;
		packets++;
		bytes += qdisc_pkt_len(skb);
		rtnl_kfree_skbs(skb, skb);
	}
	qdisc_tree_reduce_backlog(sch, packets, bytes);
}

static int hhf_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct hhf_sched_data *q = qdisc_priv(sch);
	struct hhf_filter *f = &q->filter;
	struct nlattr *tb[TCA_HHF_MAX + 1];
	u32 quantum, weight;
	u64 round;
	int err;

	err = nla_parse_nested_deprecated(tb, TCA_HHF_MAX, opt, hhf_policy,
					  extack);
	if (err < 0)
		return err;

	/* A quantum below 256 bytes would only make rounds longer. */
	quantum = max(HHF_MIN_QUANTUM,
		      hhf_get_u32(tb, TCA_HHF_QUANTUM, q->quantum));
	weight = hhf_get_u32(tb, TCA_HHF_NON_HH_WEIGHT, q->non_hh_weight);
	/* The deficit is an int, and a round of zero bytes never ends. */
	round = (u64)quantum * weight;
	if (!round || round > INT_MAX) {
		NL_SET_ERR_MSG_MOD(extack,
				   "quantum * non_hh_weight must be 1 to INT_MAX bytes");
		return -EINVAL;
	}

	sch_tree_lock(sch);
	sch->limit = hhf_get_u32(tb, TCA_HHF_BACKLOG_LIMIT, sch->limit);
	q->quantum = quantum;
	q->non_hh_weight = weight;
	f->hh_limit = hhf_get_u32(tb, TCA_HHF_HH_FLOWS_LIMIT, f->hh_limit);
	f->reset_timeout = hhf_get_usecs(tb, TCA_HHF_RESET_TIMEOUT,
					 f->reset_timeout);
	f->admit_bytes = hhf_get_u32(tb, TCA_HHF_ADMIT_BYTES, f->admit_bytes);
	f->evict_timeout = hhf_get_usecs(tb, TCA_HHF_EVICT_TIMEOUT,
					 f->evict_timeout);
	hhf_trim(sch);
	sch_tree_unlock(sch);
	return 0;
}

static int hhf_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct hhf_sched_data *q = qdisc_priv(sch);
	int i, err;

	INIT_LIST_HEAD(&q->new_buckets);
	INIT_LIST_HEAD(&q->old_buckets);
	for (i = 0; i < HHF_BUCKETS; i++)
		INIT_LIST_HEAD(&q->buckets[i].active);
	get_random_bytes(&q->perturbation, sizeof(q->perturbation));

	sch->limit = 1000;
	q->quantum = clamp_t(u32, psched_mtu(qdisc_dev(sch)), HHF_MIN_QUANTUM,
			     SZ_1M);
	q->non_hh_weight = 2;
	q->filter.hh_limit = HHF_HH_LIMIT_MAX;
	q->filter.reset_timeout = HZ / 25;	/* 40 ms */
	/* 128 KiB per 40 ms: flows above about 26 Mbit/s are heavy */
	q->filter.admit_bytes = 128 * 1024;
	q->filter.evict_timeout = HZ;		/* 1 s */

	/* on failure qdisc_create() calls hhf_destroy() */
	err = hhf_filter_alloc(&q->filter, hhf_now());
	if (err || !opt)
		return err;
	return hhf_change(sch, opt, extack);
}

static void hhf_destroy(struct Qdisc *sch)
{
	struct hhf_sched_data *q = qdisc_priv(sch);

	hhf_filter_free(&q->filter);
}

static int hhf_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct hhf_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts = nla_nest_start_noflag(skb, TCA_OPTIONS);

	if (!opts ||
	    nla_put_u32(skb, TCA_HHF_BACKLOG_LIMIT, sch->limit) ||
	    nla_put_u32(skb, TCA_HHF_QUANTUM, q->quantum) ||
	    nla_put_u32(skb, TCA_HHF_HH_FLOWS_LIMIT, q->filter.hh_limit) ||
	    nla_put_u32(skb, TCA_HHF_RESET_TIMEOUT,
			jiffies_to_usecs(q->filter.reset_timeout)) ||
	    nla_put_u32(skb, TCA_HHF_ADMIT_BYTES, q->filter.admit_bytes) ||
	    nla_put_u32(skb, TCA_HHF_EVICT_TIMEOUT,
			jiffies_to_usecs(q->filter.evict_timeout)) ||
	    nla_put_u32(skb, TCA_HHF_NON_HH_WEIGHT, q->non_hh_weight)) {
		nla_nest_cancel(skb, opts);
		return -EMSGSIZE;
	}
	return nla_nest_end(skb, opts);
}

static int hhf_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	const struct hhf_sched_data *q = qdisc_priv(sch);
	const struct hhf_filter *f = &q->filter;
	struct tc_hhf_xstats st;

	/* Read without the qdisc lock: each counter on its own is enough. */
	st.drop_overlimit = READ_ONCE(q->drop_overlimit);
	st.hh_overlimit = READ_ONCE(f->hh_overlimit);
	st.hh_tot_count = READ_ONCE(f->hh_total);
	st.hh_cur_count = READ_ONCE(f->hh_current);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops hhf_ops __read_mostly = {
	.id		= "hhf",
	.owner		= THIS_MODULE,
	.priv_size	= sizeof(struct hhf_sched_data),
	/* configuration, under RTNL */
	.init		= hhf_init,
	.change		= hhf_change,
	.dump		= hhf_dump,
	.dump_stats	= hhf_dump_stats,
	.reset		= hhf_reset,
	.destroy	= hhf_destroy,
	/* the data path, under the qdisc lock */
	.enqueue	= hhf_enqueue,
	.dequeue	= hhf_dequeue,
	.peek		= qdisc_peek_dequeued,
};

static int __init sch_hhf_init(void)
{
	return register_qdisc(&hhf_ops);
}
module_init(sch_hhf_init);

static void __exit sch_hhf_exit(void)
{
	unregister_qdisc(&hhf_ops);
}
module_exit(sch_hhf_exit);

MODULE_DESCRIPTION("Heavy-Hitter Filter (HHF)");
MODULE_AUTHOR("Kernel Fork Developers");
MODULE_LICENSE("GPL");

/* The filter's white-box suite: it calls the static functions above. */
#if IS_ENABLED(CONFIG_KFORK_KUNIT_TESTS)
#include "sch_hhf_filter_kunit.c"
#endif
