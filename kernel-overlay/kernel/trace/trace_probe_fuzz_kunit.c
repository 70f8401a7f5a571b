// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe_fuzz: the probe-event argument parser against 100,000 random
 * and mutated argument strings, the same ones on every run (a fixed
 * seed); a fiftieth of them unless the module parameter "full" is set
 * (make check sets it).  Each string is parsed as the one argument of a fresh probe of
 * one of the probe kinds, the way that kind's file calls the parser,
 * and the probe is freed again.  The parser must not crash or trip
 * KASAN or UBSAN (the run fails on their reports); every error_log
 * entry it makes must have its caret inside the string, and the fork
 * makes exactly one for each refused string and none for an accepted
 * one; and nothing it allocates may outlive the probe, which kmemleak
 * checks in boots that turn it on (tools/kunit --kmemleak).  Each case
 * draws and parses the strings it needs itself: none reads what
 * another left behind, so they run alone and in any order.
 *
 * The parser is called directly rather than through kprobe_events: each
 * accepted string would otherwise register a probe, and 100,000 of
 * those take minutes under TCG.  The calls are the interface the probe
 * kinds use, so the suite runs against either implementation.  Then
 * fuzz_fire defines real events with what a kprobe kind accepted, a few
 * arguments to an event, and fires and prints them.
 *
 * probe_parse_bench times the same calls on arguments of every kind:
 * a benchmark, not a test (tools/kunit bench).
 */
#include <linux/ctype.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace.h>
#include <linux/trace_events.h>
#include <linux/uaccess.h>

#include "trace_probe.h"
#include "trace_probe_fuzz_kunit.h"
#include "trace_probe_kunit.h"

/*
 * error_log keeps its last 8 entries (TRACING_LOG_ERRS_MAX): it is read
 * after 4 refusals, room for two entries each, or 16 strings.
 */
#define FUZZ_BATCH_REFUSALS	4
#define FUZZ_BATCH		16

/* A string parsed since error_log was read last, kept until it is checked. */
struct fuzz_parsed {
	const struct probe_kind *kind;
	struct fuzz_str arg;
	bool refused;
};

static bool full;
module_param(full, bool, 0444);
MODULE_PARM_DESC(full, "parse all 100,000 strings and fire every argument accepted, not a fiftieth");

/* What parsing a run of strings saw. */
struct fuzz_tally {
	unsigned int accepted, refused;
	/* strings refused without one entry, or accepted with one */
	unsigned int odd;
	char first_odd[FUZZ_MAX_LEN + 64];
};

/* Whether ERR is an entry of the string P: its subsystem and command. */
static bool fuzz_entry_of(const struct probe_test_error *err, const struct fuzz_parsed *p)
{
	char cmd[3 * (FUZZ_MAX_LEN + 1)];
	int len = scnprintf(cmd, sizeof(cmd), "%s %s %s", p->kind->words[0],
			    p->kind->words[1], p->arg.buf);

	return err->where_len == (int)strlen(p->kind->subsystem) &&
	       !strncmp(err->where, p->kind->subsystem, err->where_len) &&
	       err->cmd_len == len && !strncmp(err->cmd, cmd, len);
}

static void fuzz_note_odd(struct fuzz_tally *tally, const struct fuzz_parsed *p, int entries)
{
	if (tally->odd++)
		return;
	snprintf(tally->first_odd, sizeof(tally->first_odd), "%s with %d entries: %s",
		 p->refused ? "refused" : "accepted", entries, p->arg.buf);
}

/*
 * Match the strings of a batch, no two of one command, with the entries
 * of error_log, in order: the entries of a string are those that
 * follow with its command.  The caret of each must stand inside the
 * argument, or just past its end, where an error about something
 * missing points.  A string refused without exactly one entry, or
 * accepted with any, is counted (fuzz_one_entry_per_refusal judges the
 * count).  An entry left over belongs to no string.
 */
static void fuzz_check_batch(struct kunit *test, const struct fuzz_parsed *batch, int n,
			     struct fuzz_tally *tally)
{
	struct probe_test_error err;
	char *entry;
	int i, start, entries;

	probe_test_read(test, "error_log");
	entry = probe_test_fs(test)->buf;
	if (!*entry)
		entry = NULL;
	for (i = 0; i < n; i++) {
		const struct fuzz_parsed *p = &batch[i];

		start = strlen(p->kind->words[0]) + strlen(p->kind->words[1]) + 2;
		for (entries = 0; entry && probe_test_parse_error(entry, &err) &&
		     fuzz_entry_of(&err, p); entries++) {
			KUNIT_ASSERT_TRUE_MSG(test, err.caret >= start &&
					      err.caret <= start + p->arg.len,
					      "%.*s: caret at %d, the argument is %d..%zu of: %.*s",
					      err.text_len, err.text, err.caret, start,
					      start + p->arg.len, err.cmd_len, err.cmd);
			entry = probe_test_next_error(entry);
		}
		if (entries != (p->refused ? 1 : 0))
			fuzz_note_odd(tally, p, entries);
	}
	KUNIT_ASSERT_NULL_MSG(test, entry, "an error_log entry of no string: %s", entry);
	probe_test_clear_errors(test);
}

static bool fuzz_in_batch(const struct fuzz_parsed *batch, int n,
			  const struct probe_kind *kind, const struct fuzz_str *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (batch[i].kind == kind && !strcmp(batch[i].arg.buf, s->buf))
			return true;
	return false;
}

static const int fuzz_runs[FUZZ_RUNS] = { 0, 1, 2, 3 };

static void fuzz_describe_run(const int *run, char *desc)
{
	fuzz_run_desc(*run, full, desc);
}

KUNIT_ARRAY_PARAM(fuzz_run, fuzz_runs, fuzz_describe_run);

/*
 * Parse run RUN's first N strings, each into a fresh probe of the kind
 * drawn with it, and check error_log after each batch (carets inside
 * the string; what is not one entry per refusal goes to TALLY).
 */
static void fuzz_parse_run(struct kunit *test, int run, int n, struct fuzz_tally *tally)
{
	struct fuzz_parsed *batch = kunit_kcalloc(test, FUZZ_BATCH, sizeof(*batch), GFP_KERNEL);
	struct trace_probe *tp = alloc_probe(test);
	const struct probe_kind *kind;
	struct rnd_state rnd;
	struct fuzz_str s;
	int i, batched = 0, refusals = 0, ret;

	KUNIT_ASSERT_NOT_NULL(test, batch);
	prandom_seed_state(&rnd, FUZZ_SEED + run);
	probe_test_clear_errors(test);
	for (i = 0; i < n; i++) {
		kind = fuzz_draw(&s, &rnd);
		/* whose entries are which would be ambiguous for a command twice */
		if (fuzz_in_batch(batch, batched, kind, &s)) {
			fuzz_check_batch(test, batch, batched, tally);
			batched = 0;
			refusals = 0;
		}
		ret = parse_one(tp, kind, s.buf, NULL);
		KUNIT_ASSERT_NE_MSG(test, ret, -ENOMEM, "%s", s.buf);
		if (ret)
			tally->refused++;
		else
			tally->accepted++;
		batch[batched++] = (struct fuzz_parsed) { .kind = kind, .arg = s, .refused = ret };
		refusals += !!ret;
		if (batched == FUZZ_BATCH || refusals == FUZZ_BATCH_REFUSALS) {
			fuzz_check_batch(test, batch, batched, tally);
			batched = 0;
			refusals = 0;
		}
		cond_resched();
	}
	fuzz_check_batch(test, batch, batched, tally);
}

static void fuzz_parse(struct kunit *test)
{
	struct fuzz_tally tally = {};
	int n = fuzz_run_length(full);

	fuzz_parse_run(test, *(const int *)test->param_value, n, &tally);
	kunit_info(test, "%d strings: %u accepted, %u refused; %u logged otherwise than one entry per refusal (%s)\n",
		   n, tally.accepted, tally.refused, tally.odd,
		   tally.odd ? tally.first_odd : "none");
	/* a fuzzer that only ever hits one side tests nothing of the other */
	KUNIT_EXPECT_GT(test, tally.accepted, (unsigned int)n / 20);
	KUNIT_EXPECT_LT(test, tally.accepted, (unsigned int)n / 2);
}

/*
 * A fix of the fork (kunit/project-behaviour): one error_log entry for
 * each refused string and none for an accepted one.  6.1 refuses $comm
 * or an immediate string with another type without an entry, and logs
 * two for some eprobe arguments: about 2% of the strings, some ten
 * in the first run's sample, which is what this case parses.
 */
static void fuzz_one_entry_per_refusal(struct kunit *test)
{
	struct fuzz_tally tally = {};

	fuzz_parse_run(test, 0, fuzz_run_length(full), &tally);
	KUNIT_EXPECT_EQ_MSG(test, tally.odd, 0U, "the first: %s", tally.first_odd);
}

/*
 * fuzz_fire: what the parser accepts must also run. The same strings
 * again; every one a kprobe kind accepts becomes an argument of an
 * event on fuzz_target (FIRE_GROUP to an event, each renamed fN so
 * that no two clash), enabled in a trace instance, fired with an
 * object of known contents, and read back through the instance's
 * trace file: no checker report, and every field printed. A group the
 * event refuses (too big together) is fired one argument at a time.
 * The sample fires what the sample parsed, "full" every accepted one.
 * Uprobes are not fired here: a kthread runs no user code (the guest
 * uprobe suite fires them), nor eprobes.
 */
#define FIRE_EVENT	"kfork/fz"
#define FIRE_GROUP	16
#define FIRE_KINDS	3	/* probe_kinds[0..2]: the kprobe kinds */

/*
 * What the fired probes read: pointers to itself and to strings, small
 * numbers, and zeros for the rest of two pages, so that most short
 * dereference chains land on known bytes and long ones fault.
 */
struct fuzz_obj {
	u64 word;
	struct fuzz_obj *self;
	const char *name;
	u32 small[4];
	char text[16];
	char __user *user;	/* the second argument: "user" */
};

static struct trace_array *fire_instance;

static noinline int fuzz_target(struct fuzz_obj *obj, long a2, unsigned long a3, int a4)
{
	return READ_ONCE(obj->small[0]) + a2 + a3 + a4;
}

static void fuzz_call(struct fuzz_obj *obj, long a2, unsigned long a3, int a4)
{
	int (*target)(struct fuzz_obj *, long, unsigned long, int) = fuzz_target;

	OPTIMIZER_HIDE_VAR(target);
	target(obj, a2, a3, a4);
}

/* An argument a kprobe kind took, and what it prints as. */
struct fire_arg {
	struct fuzz_str s;
	struct arg_shape shape;
};

struct fire_group {
	int n;
	struct fire_arg args[FIRE_GROUP];
};

/* One case's firing: where, with what, and what it saw. */
struct fire_run {
	/* probe_kinds[2]'s place: fuzz_target plus the first offset kprobes take */
	unsigned int inside;
	struct fuzz_obj *obj;
	struct fire_group groups[FIRE_KINDS];
	unsigned int accepted, fired, events, refused_together, unknown_symbols;
};

static const char *fire_body(const char *arg)
{
	const char *body = strchr(arg, '=');

	return body ? body + 1 : arg;
}

/* The command defining KIND's event with the N arguments ARGS, renamed. */
static char *fire_command(struct kunit *test, const struct fire_run *fr, int kind,
			  const struct fire_arg *args, int n)
{
	static const char *const heads[FIRE_KINDS] = { "p:", "r:", "p:" };
	char *cmd = kunit_kzalloc(test, 64 + FIRE_GROUP * (FUZZ_MAX_LEN + 8), GFP_KERNEL);
	int i, len;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	len = sprintf(cmd, "%s" FIRE_EVENT " fuzz_target", heads[kind]);
	if (kind == 2)
		len += sprintf(cmd + len, "+%u", fr->inside);
	for (i = 0; i < n; i++)
		len += sprintf(cmd + len, " f%d=%s", i, fire_body(args[i].s.buf));
	return cmd;
}

/*
 * The instance's one record of the event: every field there, in order,
 * each printed as its type prints. A field runs to the next one's name,
 * the last to the record's final newline (a string read from memory
 * may hold one).
 */
static void fire_check_record(struct kunit *test, const char *cmd, const struct fire_arg *args,
			      int n)
{
	char *line, *at, *next, name[8];
	int i;

	probe_test_read(test, PROBE_TEST_TRACE);
	line = strstr(probe_test_fs(test)->buf, " fz: (");
	KUNIT_ASSERT_NOT_NULL_MSG(test, line, "no record of %s", cmd);
	KUNIT_EXPECT_NULL_MSG(test, strstr(line + 1, " fz: ("), "a second record of %s", cmd);
	snprintf(name, sizeof(name), " f0=");
	at = strstr(line, name);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_NOT_NULL_MSG(test, at, "field %d missing from %.1000s\nof %s",
					  i, line, cmd);
		at += strlen(name);
		snprintf(name, sizeof(name), " f%d=", i + 1);
		next = i + 1 < n ? strstr(at, name) : strrchr(at, '\n');
		KUNIT_ASSERT_NOT_NULL_MSG(test, next, "record of %s cut after field %d", cmd, i);
		KUNIT_EXPECT_TRUE_MSG(test, fire_field_ok(at, next, &args[i].shape),
				      "f%d, %s[%u], printed as %.*s\nof %s", i,
				      args[i].shape.type, args[i].shape.count,
				      (int)min_t(long, next - at, 500), at, cmd);
		at = next;
	}
}

/*
 * probe_kinds[2] probes inside a function: the first offset into
 * fuzz_target that kprobes take as an instruction boundary.
 */
static unsigned int fire_find_inside(struct kunit *test)
{
	char cmd[64];
	unsigned int off;

	for (off = 1; off < 16; off++) {
		snprintf(cmd, sizeof(cmd), "p:" FIRE_EVENT " fuzz_target+%u", off);
		if (probe_test_write(test, "kprobe_events", cmd) < 0)
			continue;
		KUNIT_ASSERT_GE(test, probe_test_write(test, "kprobe_events", "-:" FIRE_EVENT), 0);
		return off;
	}
	KUNIT_FAIL(test, "no offset of 1 to 15 into fuzz_target");
	return 0;
}

/* Define, enable, fire, read back and remove one event; false if refused. */
static bool fire_event(struct kunit *test, struct fire_run *fr, int kind,
		       const struct fire_arg *args, int n)
{
	char *cmd = fire_command(test, fr, kind, args, n);

	if (probe_test_write(test, "kprobe_events", cmd) < 0)
		return false;
	kfork_test_close(probe_test_open(test, PROBE_TEST_TRACE, O_WRONLY | O_TRUNC));
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(fire_instance, "kfork", "fz", true), 0);
	fuzz_call(fr->obj, (long)fr->obj->user, 0x1000, -1);
	KUNIT_EXPECT_EQ(test, trace_array_set_clr_event(fire_instance, "kfork", "fz", false), 0);
	fire_check_record(test, cmd, args, n);
	KUNIT_ASSERT_GE(test, probe_test_write(test, "kprobe_events", "-:" FIRE_EVENT), 0);
	fr->events++;
	return true;
}

/*
 * Whether ARG names a kernel symbol: @SYM, not @ADDR or @+OFFSET. A
 * bare '@' names the empty one. An immediate's '@' is text.
 */
static bool fire_names_symbol(const char *arg)
{
	const char *at;

	if (*fire_body(arg) == '\\')
		return false;
	for (at = strchr(arg, '@'); at; at = strchr(at + 1, '@'))
		if (at[1] != '+' && !isdigit(at[1]))
			return true;
	return false;
}

/*
 * Fire A alone. Only an argument naming a symbol may be refused: the
 * parser takes any name, and the event looks it up when it registers.
 */
static void fire_alone(struct kunit *test, struct fire_run *fr, int kind,
		       const struct fire_arg *a)
{
	if (fire_event(test, fr, kind, a, 1)) {
		fr->fired++;
		return;
	}
	KUNIT_EXPECT_TRUE_MSG(test, fire_names_symbol(a->s.buf),
			      "parsed alone, refused as an event: %s", a->s.buf);
	fr->unknown_symbols++;
}

/* Fire a group together, or its arguments one at a time if refused. */
static void fire_group(struct kunit *test, struct fire_run *fr, int kind)
{
	struct fire_group *g = &fr->groups[kind];
	int i;

	if (g->n > 1 && fire_event(test, fr, kind, g->args, g->n)) {
		fr->fired += g->n;
	} else {
		fr->refused_together += g->n > 1;
		for (i = 0; i < g->n; i++)
			fire_alone(test, fr, kind, &g->args[i]);
	}
	g->n = 0;
}

/*
 * What is not fired. A '#' starts a comment in a tracefs command, so an
 * argument with one cannot be written there. An array of strings from
 * an immediate: the fork refuses it (probe_parse's
 * parse_string_array_needs_pointers, a marked fix); 6.1 accepts it, and
 * printing its record reads freed memory, so it is not fired on either
 * build.
 */
static bool fire_skipped(const char *arg)
{
	return strchr(arg, '#') || (*fire_body(arg) == '\\' && strstr(arg, "string["));
}

/*
 * An object for the probes to read, with a pointer to user memory past
 * what reading the trace file writes to.
 */
static struct fuzz_obj *fire_object(struct kunit *test)
{
	char __user *user = probe_test_fs(test)->ubuf + KFORK_TEST_BUF_SIZE - PAGE_SIZE;
	struct fuzz_obj *obj = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_ASSERT_EQ(test, copy_to_user(user, "user", 5), 0);
	*obj = (struct fuzz_obj) {
		.word = 0x0123456789abcdefULL, .self = obj, .name = "fuzz",
		.small = { 1, 2, 3, 4 }, .text = "known text", .user = user,
	};
	return obj;
}

/*
 * Fire what a kprobe kind accepts of run RUN's first N strings.
 * Arguments naming a symbol are fired alone, as most name none the
 * kernel has; the rest FIRE_GROUP to an event.
 */
static void fire_strings(struct kunit *test, int run, int n, struct fire_run *fr)
{
	struct trace_probe *tp = alloc_probe(test);
	const struct probe_kind *kind;
	struct rnd_state rnd;
	struct fire_arg a;
	struct fire_group *g;
	int i, k;

	if (!fire_instance)
		kunit_skip(test, "no trace instance " PROBE_TEST_INSTANCE);
	fr->inside = fire_find_inside(test);
	fr->obj = fire_object(test);
	prandom_seed_state(&rnd, FUZZ_SEED + run);
	for (i = 0; i < n; i++) {
		kind = fuzz_draw(&a.s, &rnd);
		k = kind - probe_kinds;
		if (k >= FIRE_KINDS || (k == 2 && !fr->inside) || fire_skipped(a.s.buf) ||
		    parse_one(tp, kind, a.s.buf, &a.shape))
			continue;
		fr->accepted++;
		if (fire_names_symbol(a.s.buf)) {
			fire_alone(test, fr, k, &a);
			continue;
		}
		g = &fr->groups[k];
		g->args[g->n++] = a;
		if (g->n == FIRE_GROUP)
			fire_group(test, fr, k);
		cond_resched();
	}
	for (k = 0; k < FIRE_KINDS; k++)
		fire_group(test, fr, k);
	probe_test_clear_errors(test);
}

static void fuzz_fire(struct kunit *test)
{
	struct fire_run *fr = kunit_kzalloc(test, sizeof(*fr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fr);
	fire_strings(test, *(const int *)test->param_value, fuzz_run_length(full), fr);
	kunit_info(test, "of %u accepted kprobe arguments, %u fired in %u events (%u groups refused together), %u refused alone for an unknown symbol\n",
		   fr->accepted, fr->fired, fr->events, fr->refused_together,
		   fr->unknown_symbols);
	KUNIT_EXPECT_GT(test, fr->fired, 0U);
}

/*
 * Nothing the parser or the events allocate outlives them: after
 * parsing and firing the sample of the first run itself, kmemleak finds
 * no object nothing points to (also none the cases before left, when
 * they ran in this boot).
 */
static void fuzz_no_leaks(struct kunit *test)
{
	struct fire_run *fr = kunit_kzalloc(test, sizeof(*fr), GFP_KERNEL);
	struct fuzz_tally tally = {};

	KUNIT_ASSERT_NOT_NULL(test, fr);
	kfork_test_kmemleak_begin(test, probe_test_fs(test));
	fuzz_parse_run(test, 0, fuzz_run_length(false), &tally);
	fire_strings(test, 0, fuzz_run_length(false), fr);
	kfork_test_expect_no_leaks(test, probe_test_fs(test));
}

static int fuzz_test_init(struct kunit *test)
{
	int ret = probe_test_fs_init(test);

	if (!ret)
		probe_test_write(test, "kprobe_events", "-:" FIRE_EVENT);
	return ret;
}

/* The trace instance the events are enabled in. */
static int fuzz_suite_init(struct kunit_suite *suite)
{
	fire_instance = probe_test_instance_get();
	return fire_instance ? 0 : -ENOMEM;
}

static void fuzz_suite_exit(struct kunit_suite *suite)
{
	trace_array_put(fire_instance);
	fire_instance = NULL;
}

static struct kunit_case fuzz_test_cases[] = {
	KUNIT_CASE_PARAM(fuzz_parse, fuzz_run_gen_params),
	KUNIT_CASE(fuzz_one_entry_per_refusal),
	KUNIT_CASE_PARAM(fuzz_fire, fuzz_run_gen_params),
	KUNIT_CASE(fuzz_no_leaks),
	{}
};

static struct kunit_suite fuzz_test_suite = {
	.name = "probe_fuzz",
	.suite_init = fuzz_suite_init,
	.suite_exit = fuzz_suite_exit,
	.init = fuzz_test_init,
	.exit = probe_test_fs_exit,
	.test_cases = fuzz_test_cases,
};

/*
 * probe_parse_bench: the time to parse one argument into a fresh probe
 * and free it, over arguments of every method, on the probe kinds that
 * take them.  The figure is the best of BENCH_ROUNDS rounds, each
 * parsing every argument BENCH_LAPS times: the round least disturbed
 * by the host.
 */
#define BENCH_ROUNDS	5
#define BENCH_LAPS	200

static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench, "run the probe_parse_bench benchmark (tools/kunit bench)");

struct bench_arg {
	int kind;	/* into probe_kinds */
	const char *arg;
};

static const struct bench_arg bench_args[] = {
	{ 0, "%di" }, { 0, "a=+8(%si):u32" }, { 0, "$stack2:s16" }, { 0, "@jiffies" },
	{ 0, "name=+0(%di):string" }, { 0, "%ax:b4@2/16" }, { 0, "$comm" },
	{ 0, "\\123:u8" }, { 0, "$arg1" }, { 0, "+0(+8(+16(%di))):x64[4]" },
	{ 1, "$retval:s32" }, { 3, "+u0(%sp):ustring" }, { 3, "@+0x40:u8" },
	{ 5, "+0($prev_comm):u8" },
};

static void parse_bench_run(struct kunit *test)
{
	struct trace_probe *tp = alloc_probe(test);
	u64 best = U64_MAX, start, ns;
	int round, lap, i;

	if (!bench)
		kunit_skip(test, "a benchmark: tools/kunit bench runs it");
	for (i = 0; i < ARRAY_SIZE(bench_args); i++)
		KUNIT_ASSERT_EQ_MSG(test, parse_one(tp, &probe_kinds[bench_args[i].kind],
						    bench_args[i].arg, NULL), 0,
				    "%s", bench_args[i].arg);
	for (round = 0; round < BENCH_ROUNDS; round++) {
		start = ktime_get_ns();
		for (lap = 0; lap < BENCH_LAPS; lap++)
			for (i = 0; i < ARRAY_SIZE(bench_args); i++)
				parse_one(tp, &probe_kinds[bench_args[i].kind],
					  bench_args[i].arg, NULL);
		ns = ktime_get_ns() - start;
		best = min(best, ns);
		cond_resched();
	}
	kunit_info(test, "kfork-bench: probe.parse_arg_ns %llu\n",
		   div_u64(best, BENCH_LAPS * ARRAY_SIZE(bench_args)));
}

static struct kunit_case parse_bench_cases[] = {
	KUNIT_CASE(parse_bench_run),
	{}
};

static struct kunit_suite parse_bench_suite = {
	.name = "probe_parse_bench",
	.test_cases = parse_bench_cases,
};

kunit_test_suites(&fuzz_test_suite, &parse_bench_suite);

MODULE_LICENSE("GPL");
