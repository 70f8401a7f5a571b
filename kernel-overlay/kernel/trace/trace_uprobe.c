// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobe events: trace events on instructions of user programs.
 *
 * A probe names a file and an offset in it (uprobe_events,
 * dynamic_events, or the perf "uprobe" PMU for an event of its own).
 * While its event is enabled, the probe is a consumer of the uprobes
 * core, which calls it in the task that reached the instruction.  The
 * probe then runs the fetch programs of its arguments (compiled by
 * trace_probe.c, run by trace_probe_tmpl.h with the user-memory
 * accessors below) and writes one record to each consumer: the trace
 * instances the event is enabled in, or perf and BPF.
 *
 * A hit fetches its arguments once, into a buffer of its CPU, and
 * copies them into each record.  User memory may need a page brought
 * in, which sleeps, so a hit first fetches with page faults disabled
 * and preemption off, which needs no lock; only when a read missed
 * does it fetch again, free to sleep, in a second buffer of the CPU
 * under that buffer's mutex.  The first fetch reads each string once;
 * the second, as 6.1 does, sizes the strings before it stores them.
 */
#define pr_fmt(fmt)	"trace_uprobe: " fmt

#include <linux/bpf.h>
#include <linux/ctype.h>
#include <linux/filter.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>

#include "trace_dynevent.h"
#include "trace_probe.h"
#include "trace_probe_tmpl.h"

#define UPROBE_EVENT_SYSTEM	"uprobes"

/* What a hit may fetch: the fixed part and the strings, at most a page. */
#define UPROBE_ARGS_MAX		PAGE_SIZE

struct trace_uprobe {
	struct dyn_event		devent;
	struct uprobe_consumer		consumer;
	struct path			path;		/* the probed file, held */
	struct inode			*inode;		/* set while registered */
	char				*filename;	/* as the command wrote it */
	unsigned long			offset;
	unsigned long			ref_ctr_offset;	/* USDT semaphore, 0 if none */
	unsigned long __percpu		*nhit;
	struct trace_probe		tp;
};

/*
 * A record: the common header, the probed address (entry) or the
 * function and the return address (return), then the arguments.
 */
struct uprobe_record {
	struct trace_entry	ent;
	unsigned long		addr[];
};

/* What a fetch program of a hit reads: the registers, and for @+ the file's base. */
struct uprobe_hit {
	struct pt_regs	*regs;
	unsigned long	func;		/* return probes: the function's address */
	unsigned long	file_base;	/* where offset 0 of the file is mapped */
};

static int uprobe_event_create(const char *raw_command);
static struct trace_uprobe *uprobe_find(const char *event, const char *group);
static int uprobe_event_show(struct seq_file *m, struct dyn_event *ev);
static int uprobe_event_free(struct dyn_event *ev);
static bool uprobe_event_busy(struct dyn_event *ev);
static bool uprobe_event_match(const char *system, const char *event,
			       int argc, const char **argv, struct dyn_event *ev);

static struct dyn_event_operations trace_uprobe_ops = {
	.create	= uprobe_event_create,
	.show	= uprobe_event_show,
	.is_busy = uprobe_event_busy,
	.free	= uprobe_event_free,
	.match	= uprobe_event_match,
};

static struct trace_uprobe *to_trace_uprobe(struct dyn_event *ev)
{
	return container_of(ev, struct trace_uprobe, devent);
}

/* The uprobe event EV is, or NULL if it is of another kind. */
static struct trace_uprobe *uprobe_of_dyn(struct dyn_event *ev)
{
	return ev->ops == &trace_uprobe_ops ? to_trace_uprobe(ev) : NULL;
}

static bool uprobe_is_return(struct trace_uprobe *tu)
{
	return tu->consumer.ret_handler;
}

static int uprobe_head_size(struct trace_uprobe *tu)
{
	return sizeof(struct uprobe_record) +
	       sizeof(unsigned long) * (uprobe_is_return(tu) ? 2 : 1);
}

static struct trace_uprobe *uprobe_of_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	return tp ? container_of(tp, struct trace_uprobe, tp) : NULL;
}

/* ------------------------------------------------------------------ */
/* Fetching arguments from user space                                 */

/*
 * The per-CPU buffers a hit fetches into.  @fast is used with
 * preemption off, so it is the CPU's alone; @missed says one of its
 * reads failed with page faults disabled, @cut that a string did not
 * fit the room its one pass gave it.  @slow is used under @lock by a
 * hit that may sleep and move to another CPU meanwhile.
 */
struct uprobe_fetch_area {
	void		*fast;
	void		*slow;
	struct mutex	lock;		/* guards @slow */
	bool		missed;
	bool		one_pass;	/* the fast fetch's one pass runs */
	bool		cut;
};

/* Allocated while any uprobe event is enabled; event_mutex guards both. */
static struct uprobe_fetch_area __percpu *uprobe_fetch_areas;
static unsigned int uprobe_fetch_users;

/*
 * The fetch interpreter of trace_probe_tmpl.h is inlined at each place
 * that runs a program, and would inline every read into each of its
 * instructions with it.  The reads of user memory are kept out of line
 * instead, each in one place: the copy, the miss of the fast way, the
 * $comm token.
 */

/* A read of user memory failed: in the fast way, maybe only a page out. */
static void uprobe_read_failed(void)
{
	if (pagefault_disabled())
		this_cpu_ptr(uprobe_fetch_areas)->missed = true;
}

/*
 * A string filled the room left for it (or found none).  6.1 shares the
 * room out by the strings' lengths, read first: in the one pass, which
 * reads no length, the fetch must then be done that way.
 */
static void uprobe_string_cut(void)
{
	struct uprobe_fetch_area *area;

	if (!pagefault_disabled())
		return;
	area = this_cpu_ptr(uprobe_fetch_areas);
	if (area->one_pass)
		area->cut = true;
}

static noinline int uprobe_copy_from_user(void *dest, const void __user *src, size_t size)
{
	if (likely(!copy_from_user(dest, src, size)))
		return 0;
	uprobe_read_failed();
	return -EFAULT;
}

static nokprobe_inline int probe_mem_read(void *dest, void *src, size_t size)
{
	return uprobe_copy_from_user(dest, (const void __user __force *)src, size);
}

/* A uprobe's memory is all user memory: +u is the same dereference. */
static nokprobe_inline int probe_mem_read_user(void *dest, void *src, size_t size)
{
	return probe_mem_read(dest, src, size);
}

/*
 * A string of kernel memory into a string field: $comm and immediate
 * strings, the two a uprobe has that are not user memory.  Without
 * DEST, the bytes it needs with its NUL.
 */
static int uprobe_store_kernel_string(const char *text, void *dest, void *base)
{
	int len = strlen(text), room;
	char *to;

	if (!dest)
		return len + 1;
	room = get_loc_len(*(u32 *)dest);
	if (unlikely(len >= room))
		uprobe_string_cut();
	if (unlikely(!room))
		return -ENOMEM;
	len = min(len, room - 1);
	to = get_loc_data(dest, base);
	memcpy(to, text, len);
	to[len] = '\0';
	*(u32 *)dest = make_data_loc(len + 1, to - (char *)base);
	return len + 1;
}

/* The bytes the string at ADDR takes with its NUL; 0 if unreadable or too long. */
static noinline int uprobe_user_strlen(unsigned long addr)
{
	long len;

	if (addr == FETCH_TOKEN_COMM)
		return uprobe_store_kernel_string(current->comm, NULL, NULL);
	len = strnlen_user((const char __user __force *)addr, MAX_STRING_SIZE);
	if (!len)
		uprobe_read_failed();
	return len > MAX_STRING_SIZE ? 0 : len;
}

/*
 * Copy the user string at ADDR where the data_loc at DEST points, cut
 * to the room the data_loc gives, and set the data_loc to what it took
 * (0 bytes for a fault, shown as "(fault)").
 */
static noinline int uprobe_store_user_string(unsigned long addr, void *dest, void *base)
{
	int room = get_loc_len(*(u32 *)dest);
	char *to = get_loc_data(dest, base);
	long len;

	if (addr == FETCH_TOKEN_COMM)
		return uprobe_store_kernel_string(current->comm, dest, base);
	if (unlikely(!room)) {
		uprobe_string_cut();
		return -ENOMEM;
	}
	len = strncpy_from_user(to, (const char __user __force *)addr, room);
	if (len < 0) {
		uprobe_read_failed();
		*(u32 *)dest = make_data_loc(0, to - (char *)base);
		return len;
	}
	/* no NUL within the room: keep what fits before one */
	if (unlikely(len >= room))
		uprobe_string_cut();
	len = min_t(long, len, room - 1);
	to[len] = '\0';
	*(u32 *)dest = make_data_loc(len + 1, to - (char *)base);
	return len + 1;
}

/* A uprobe's strings are all user strings, with or without +u or ustring. */
static nokprobe_inline int fetch_store_strlen(unsigned long addr)
{
	return uprobe_user_strlen(addr);
}

static nokprobe_inline int fetch_store_strlen_user(unsigned long addr)
{
	return uprobe_user_strlen(addr);
}

static nokprobe_inline int fetch_store_string(unsigned long addr, void *dest, void *base)
{
	return uprobe_store_user_string(addr, dest, base);
}

static nokprobe_inline int fetch_store_string_user(unsigned long addr, void *dest, void *base)
{
	return uprobe_store_user_string(addr, dest, base);
}

/* Entry N of the user stack, or 0 if it cannot be read. */
static unsigned long uprobe_stack_entry(struct pt_regs *regs, unsigned int n)
{
	unsigned long __user *slot = (unsigned long __user *)user_stack_pointer(regs);
	unsigned long val;

#ifdef CONFIG_STACK_GROWSUP
	slot -= n;
#else
	slot += n;
#endif
	return uprobe_copy_from_user(&val, slot, sizeof(val)) ? 0 : val;
}

#ifdef CONFIG_X86_64
/*
 * Argument N (from 0) of a 32-bit task's function at its first
 * instruction, by the i386 cdecl convention: every argument on the
 * stack, a 4-byte slot each, from the slot above the return address.
 * 0 if it cannot be read.
 */
static unsigned long uprobe_func_arg_i386(struct pt_regs *regs, unsigned int n)
{
	u32 __user *slot = (u32 __user *)user_stack_pointer(regs) + n + 1;
	u32 val;

	return uprobe_copy_from_user(&val, slot, sizeof(val)) ? 0 : val;
}

/*
 * Argument N (from 0) of a user function at its first instruction, by
 * the x86-64 System V convention: the first six in registers, the rest
 * on the stack from the word above the return address.  A task running
 * 32-bit code (compat) calls by its own convention.
 */
static unsigned long uprobe_func_arg(struct pt_regs *regs, unsigned int n)
{
	static const unsigned int in_regs[] = {
		offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, cx),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	};

	if (!user_64bit_mode(regs))
		return uprobe_func_arg_i386(regs, n);
	if (n < ARRAY_SIZE(in_regs))
		return regs_get_register(regs, in_regs[n]);
	return uprobe_stack_entry(regs, n - ARRAY_SIZE(in_regs) + 1);
}
#else
/* the parser takes $argN on uprobes only on x86-64 */
static unsigned long uprobe_func_arg(struct pt_regs *regs, unsigned int n)
{
	return 0;
}
#endif

/* The load of a fetch program, from the hit REC; the core does the rest. */
static noinline int process_fetch_insn(struct fetch_insn *code, void *rec, void *dest, void *base)
{
	struct uprobe_hit *hit = rec;
	unsigned long val;

	switch (code->op) {
	case FETCH_OP_REG:
		val = regs_get_register(hit->regs, code->param);
		break;
	case FETCH_OP_STACK:
		val = uprobe_stack_entry(hit->regs, code->param);
		break;
	case FETCH_OP_STACKP:
		val = user_stack_pointer(hit->regs);
		break;
	case FETCH_OP_RETVAL:
		val = regs_return_value(hit->regs);
		break;
	case FETCH_OP_ARG:
		val = uprobe_func_arg(hit->regs, code->param);
		break;
	case FETCH_OP_FOFFS:	/* @+OFFS: from the probed mapping's base */
		val = hit->file_base + code->immediate;
		break;
	case FETCH_OP_DATA:
		/*
		 * An immediate string, kept by the program in kernel memory:
		 * read as a user address it would fault (as it does in 6.1).
		 * The parser gives it no type but string and no array, so
		 * storing it is all the rest of the program does.
		 */
		return uprobe_store_kernel_string(code->data, dest, base);
	case FETCH_OP_COMM:	/* the store step copies current->comm */
		val = FETCH_TOKEN_COMM;
		break;
	case FETCH_OP_IMM:
		val = code->immediate;
		break;
	default:
		return -EILSEQ;
	}
	return process_fetch_insn_bottom(code + 1, val, dest, base);
}

/*
 * Fetch TU's arguments for HIT into BUF, laid out as they follow the
 * record's head; the bytes they take.  The strings are sized first and
 * share the room by those sizes, as in 6.1; strings that would pass
 * the buffer's end are cut there.
 */
static int uprobe_fetch_args(struct trace_uprobe *tu, struct uprobe_hit *hit, void *buf)
{
	int strings = 0;

	if (tu->tp.nr_args) {
		strings = min_t(int, __get_data_size(&tu->tp, hit),
				UPROBE_ARGS_MAX - tu->tp.size);
		store_trace_args(buf, &tu->tp, hit, uprobe_head_size(tu), strings);
	}
	return tu->tp.size + strings;
}

/*
 * The same in one pass, each string stored in the room left: what the
 * sizes would have given whenever every string fits, that is unless a
 * string is cut (longer than the page allows, or than 6.1 sizes).
 */
static int uprobe_fetch_once(struct trace_uprobe *tu, struct uprobe_hit *hit,
			     struct uprobe_fetch_area *area)
{
	int len = tu->tp.size;

	if (!tu->tp.nr_args)
		return len;
	area->cut = false;
	area->one_pass = true;
	len += store_trace_args(area->fast, &tu->tp, hit, uprobe_head_size(tu),
				UPROBE_ARGS_MAX - tu->tp.size);
	area->one_pass = false;
	return area->cut ? uprobe_fetch_args(tu, hit, area->fast) : len;
}

/* With preemption off: the bytes fetched, or -EFAULT if a read missed. */
static int uprobe_fetch_fast(struct trace_uprobe *tu, struct uprobe_hit *hit,
			     struct uprobe_fetch_area *area)
{
	int len;

	area->missed = false;
	pagefault_disable();
	len = uprobe_fetch_once(tu, hit, area);
	pagefault_enable();
	return area->missed ? -EFAULT : len;
}

static void uprobe_fetch_areas_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct uprobe_fetch_area *area = per_cpu_ptr(uprobe_fetch_areas, cpu);

		free_page((unsigned long)area->fast);
		free_page((unsigned long)area->slow);
	}
	free_percpu(uprobe_fetch_areas);
	uprobe_fetch_areas = NULL;
}

static void *uprobe_page_on(int cpu)
{
	struct page *page = alloc_pages_node(cpu_to_node(cpu), GFP_KERNEL, 0);

	return page ? page_address(page) : NULL;
}

static int uprobe_fetch_areas_get(void)
{
	int cpu;

	lockdep_assert_held(&event_mutex);
	if (uprobe_fetch_users++)
		return 0;
	uprobe_fetch_areas = alloc_percpu(struct uprobe_fetch_area);
	if (!uprobe_fetch_areas)
		goto fail;
	for_each_possible_cpu(cpu) {
		struct uprobe_fetch_area *area = per_cpu_ptr(uprobe_fetch_areas, cpu);

		mutex_init(&area->lock);
		area->fast = uprobe_page_on(cpu);
		area->slow = uprobe_page_on(cpu);
		if (!area->fast || !area->slow) {
			uprobe_fetch_areas_free();
			goto fail;
		}
	}
	return 0;
fail:
	uprobe_fetch_users--;
	return -ENOMEM;
}

static void uprobe_fetch_areas_put(void)
{
	lockdep_assert_held(&event_mutex);
	if (!--uprobe_fetch_users)
		uprobe_fetch_areas_free();
}

/* ------------------------------------------------------------------ */
/* Writing records                                                    */

static void uprobe_fill_head(struct trace_uprobe *tu, struct uprobe_hit *hit,
			     struct uprobe_record *rec)
{
	if (uprobe_is_return(tu)) {
		rec->addr[0] = hit->func;
		rec->addr[1] = instruction_pointer(hit->regs);
	} else {
		rec->addr[0] = instruction_pointer(hit->regs);
	}
}

static void uprobe_write_trace(struct trace_uprobe *tu, struct uprobe_hit *hit,
			       const void *args, int len, struct trace_event_file *file)
{
	int head = uprobe_head_size(tu);
	struct trace_event_buffer fbuffer;
	struct uprobe_record *rec;

	if (trace_trigger_soft_disabled(file))
		return;
	rec = trace_event_buffer_reserve(&fbuffer, file, head + len);
	if (!rec)
		return;
	uprobe_fill_head(tu, hit, rec);
	memcpy((void *)rec + head, args, len);
	trace_event_buffer_commit(&fbuffer);
}

static void uprobe_write_traces(struct trace_uprobe *tu, struct uprobe_hit *hit,
				const void *args, int len)
{
	struct event_file_link *link;

	rcu_read_lock();
	trace_probe_for_each_link_rcu(link, &tu->tp)
		uprobe_write_trace(tu, hit, args, len, link->file);
	rcu_read_unlock();
}

#ifdef CONFIG_PERF_EVENTS
/* Are perf events of TU's event waiting on this CPU?  Preemption is off. */
static bool uprobe_perf_listening(struct trace_uprobe *tu)
{
	return !hlist_empty(this_cpu_ptr(trace_probe_event_call(&tu->tp)->perf_events));
}

static void uprobe_write_perf(struct trace_uprobe *tu, struct uprobe_hit *hit,
			      const void *args, int len)
{
	struct trace_event_call *call = trace_probe_event_call(&tu->tp);
	int head = uprobe_head_size(tu);
	/* perf puts a u32 size before the record and wants u64 alignment */
	int size = ALIGN(head + len + sizeof(u32), sizeof(u64)) - sizeof(u32);
	struct uprobe_record *rec;
	int rctx;

	if (size > PERF_MAX_TRACE_SIZE)
		return;
	preempt_disable();
	if (!uprobe_perf_listening(tu))
		goto out;
	rec = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!rec)
		goto out;
	uprobe_fill_head(tu, hit, rec);
	memcpy((void *)rec + head, args, len);
	memset((void *)rec + head + len, 0, size - head - len);
	perf_trace_buf_submit(rec, size, rctx, call->event.type, 1, hit->regs,
			      this_cpu_ptr(call->perf_events), NULL);
out:
	preempt_enable();
}

/* Does the event's BPF program, if any, let the hit through to perf? */
static bool uprobe_bpf_pass(struct trace_uprobe *tu, struct pt_regs *regs)
{
#ifdef CONFIG_BPF_EVENTS
	struct trace_event_call *call = trace_probe_event_call(&tu->tp);

	if (bpf_prog_array_valid(call))
		return bpf_prog_run_array_sleepable(call->prog_array, regs, bpf_prog_run);
#endif
	return true;
}
#else
static bool uprobe_perf_listening(struct trace_uprobe *tu)
{
	return false;
}

static void uprobe_write_perf(struct trace_uprobe *tu, struct uprobe_hit *hit,
			      const void *args, int len)
{
}

static bool uprobe_bpf_pass(struct trace_uprobe *tu, struct pt_regs *regs)
{
	return false;
}
#endif /* CONFIG_PERF_EVENTS */

static void uprobe_write_records(struct trace_uprobe *tu, struct uprobe_hit *hit,
				 const void *args, int len, bool trace, bool perf)
{
	if (trace)
		uprobe_write_traces(tu, hit, args, len);
	if (perf)
		uprobe_write_perf(tu, hit, args, len);
}

/*
 * Record a hit for the consumers FLAGS names.  The arguments are
 * fetched only if a record will hold them: a BPF program alone, or
 * perf events on other CPUs only, read none.
 */
static void uprobe_record_hit(struct trace_uprobe *tu, struct uprobe_hit *hit,
			      unsigned int flags)
{
	bool trace = flags & TP_FLAG_TRACE;
	bool perf = (flags & TP_FLAG_PROFILE) && uprobe_bpf_pass(tu, hit->regs);
	struct uprobe_fetch_area *area;
	int len;

	if (!trace && !perf)
		return;
	preempt_disable();
	if (!trace && !uprobe_perf_listening(tu)) {
		preempt_enable();
		return;
	}
	area = this_cpu_ptr(uprobe_fetch_areas);
	len = uprobe_fetch_fast(tu, hit, area);
	if (len >= 0)
		uprobe_write_records(tu, hit, area->fast, len, trace, perf);
	preempt_enable();
	if (len >= 0)
		return;

	/* a read needs a page brought in, or faults for good: fetch sleeping */
	area = per_cpu_ptr(uprobe_fetch_areas, raw_smp_processor_id());
	mutex_lock(&area->lock);
	len = uprobe_fetch_args(tu, hit, area->slow);
	uprobe_write_records(tu, hit, area->slow, len, trace, perf);
	mutex_unlock(&area->lock);
}

/* ------------------------------------------------------------------ */
/* Perf's per-process filter                                          */

#ifdef CONFIG_PERF_EVENTS
/* Does a perf event of FILTER want hits in MM?  Under its lock. */
static bool uprobe_filter_wants(struct trace_uprobe_filter *filter, struct mm_struct *mm)
{
	struct perf_event *event;

	if (filter->nr_systemwide)
		return true;
	list_for_each_entry(event, &filter->perf_events, hw.tp_list)
		if (event->hw.target->mm == mm)
			return true;
	return false;
}

/*
 * The uprobes core asks this before it puts the breakpoint into MM,
 * and a hit asks it to take the breakpoint out of an MM nobody wants.
 * A system-wide event wants every MM: that needs no lock.
 */
static bool uprobe_perf_filter(struct uprobe_consumer *uc, enum uprobe_filter_ctx ctx,
			       struct mm_struct *mm)
{
	struct trace_uprobe *tu = container_of(uc, struct trace_uprobe, consumer);
	struct trace_uprobe_filter *filter = tu->tp.event->filter;
	bool wanted;

	if (READ_ONCE(filter->nr_systemwide))
		return true;
	read_lock(&filter->rwlock);
	wanted = uprobe_filter_wants(filter, mm);
	read_unlock(&filter->rwlock);
	return wanted;
}

/* Put the breakpoints of every probe of TU's event in or out of the MMs the filter wants. */
static int uprobe_filter_apply(struct trace_uprobe *tu, bool add)
{
	struct trace_uprobe *each;
	int ret;

	list_for_each_entry(each, trace_probe_probe_list(&tu->tp), tp.list) {
		ret = uprobe_apply(each->inode, each->offset, &each->consumer, add);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Take EVENT out of the filter.  Breakpoints need taking out unless
 * what remains still wants its MM (or all), or the task is exiting.
 */
static int uprobe_perf_close(struct trace_uprobe *tu, struct perf_event *event)
{
	struct trace_uprobe_filter *filter = tu->tp.event->filter;
	bool still_wanted;

	write_lock(&filter->rwlock);
	if (event->hw.target) {
		list_del(&event->hw.tp_list);
		still_wanted = (event->hw.target->flags & PF_EXITING) ||
			       uprobe_filter_wants(filter, event->hw.target->mm);
	} else {
		WRITE_ONCE(filter->nr_systemwide, filter->nr_systemwide - 1);
		still_wanted = filter->nr_systemwide;
	}
	write_unlock(&filter->rwlock);
	return still_wanted ? 0 : uprobe_filter_apply(tu, false);
}

/*
 * Add EVENT to the filter.  Breakpoints need putting in unless the MM
 * already has them: wanted before, a child of a traced task (fork
 * copies them) or a task that has yet to exec (exec's mmap puts them).
 */
static int uprobe_perf_open(struct trace_uprobe *tu, struct perf_event *event)
{
	struct trace_uprobe_filter *filter = tu->tp.event->filter;
	bool had_them;
	int ret;

	write_lock(&filter->rwlock);
	if (event->hw.target) {
		had_them = event->parent || event->attr.enable_on_exec ||
			   uprobe_filter_wants(filter, event->hw.target->mm);
		list_add(&event->hw.tp_list, &filter->perf_events);
	} else {
		had_them = filter->nr_systemwide;
		WRITE_ONCE(filter->nr_systemwide, filter->nr_systemwide + 1);
	}
	write_unlock(&filter->rwlock);
	if (had_them)
		return 0;
	ret = uprobe_filter_apply(tu, true);
	if (ret)
		uprobe_perf_close(tu, event);
	return ret;
}

/* BPF_TASK_FD_QUERY: what a perf event of a uprobe event probes. */
int bpf_get_uprobe_info(const struct perf_event *event, u32 *fd_type,
			const char **filename, u64 *probe_offset,
			u64 *probe_addr, bool perf_type_tracepoint)
{
	struct trace_event_call *call = event->tp_event;
	struct trace_uprobe *tu;

	if (perf_type_tracepoint)
		tu = uprobe_find(trace_event_name(call), call->class->system);
	else
		tu = uprobe_of_call(call);
	if (!tu)
		return -EINVAL;
	/* a uprobe is known by its file and offset, not an address */
	*probe_addr = 0;
	*probe_offset = tu->offset;
	*filename = tu->filename;
	*fd_type = uprobe_is_return(tu) ? BPF_FD_TYPE_URETPROBE : BPF_FD_TYPE_UPROBE;
	return 0;
}
#else
static bool uprobe_perf_filter(struct uprobe_consumer *uc, enum uprobe_filter_ctx ctx,
			       struct mm_struct *mm)
{
	return true;
}
#endif /* CONFIG_PERF_EVENTS */

/* ------------------------------------------------------------------ */
/* The uprobes core's calls                                           */

static int uprobe_entry_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct trace_uprobe *tu = container_of(uc, struct trace_uprobe, consumer);
	unsigned long ip = instruction_pointer(regs);
	struct uprobe_hit hit = {
		.regs = regs, .file_base = ip - tu->offset,
	};
	unsigned int flags;

	this_cpu_inc(*tu->nhit);
	flags = trace_probe_load_flag(&tu->tp);
	/* perf's filter: a hit in an MM no event wants takes the breakpoint out */
	if ((flags & TP_FLAG_PROFILE) &&
	    !uprobe_perf_filter(uc, UPROBE_FILTER_REGISTER, current->mm))
		return UPROBE_HANDLER_REMOVE;
	/* a return probe's entry only counts the hit */
	if (!uprobe_is_return(tu))
		uprobe_record_hit(tu, &hit, flags);
	return 0;
}

static int uprobe_return_handler(struct uprobe_consumer *uc, unsigned long func,
				 struct pt_regs *regs)
{
	struct trace_uprobe *tu = container_of(uc, struct trace_uprobe, consumer);
	struct uprobe_hit hit = {
		.regs = regs, .func = func, .file_base = func - tu->offset,
	};

	uprobe_record_hit(tu, &hit, trace_probe_load_flag(&tu->tp));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Enabling and disabling an event                                    */

typedef bool (*uprobe_filter_t)(struct uprobe_consumer *uc, enum uprobe_filter_ctx ctx,
				struct mm_struct *mm);

static void uprobe_detach_all(struct trace_probe *tp)
{
	struct trace_uprobe *tu;

	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list) {
		if (!tu->inode)
			continue;
		uprobe_unregister(tu->inode, tu->offset, &tu->consumer);
		tu->inode = NULL;
	}
}

static int uprobe_attach_all(struct trace_probe *tp, uprobe_filter_t filter)
{
	struct trace_uprobe *tu;
	int ret;

	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list) {
		tu->consumer.filter = filter;
		tu->inode = d_real_inode(tu->path.dentry);
		ret = uprobe_register_refctr(tu->inode, tu->offset, tu->ref_ctr_offset,
					     &tu->consumer);
		if (ret) {
			tu->inode = NULL;
			uprobe_detach_all(tp);
			return ret;
		}
	}
	return 0;
}

/*
 * Enable for FILE (a trace instance) or, without one, for perf.  An
 * event serves one kind of consumer at a time.  The probes go into the
 * uprobes core with the first consumer.
 */
static int uprobe_event_enable(struct trace_event_call *call, struct trace_event_file *file,
			       uprobe_filter_t filter)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	bool was_enabled;
	int ret;

	if (!tp)
		return -ENODEV;
	was_enabled = trace_probe_is_enabled(tp);
	if (trace_probe_test_flag(tp, file ? TP_FLAG_PROFILE : TP_FLAG_TRACE))
		return -EINTR;
	if (file) {
		ret = trace_probe_add_file(tp, file);
		if (ret)
			return ret;
	} else {
		trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	}
	if (was_enabled)
		return 0;

	ret = uprobe_fetch_areas_get();
	if (!ret) {
		ret = uprobe_attach_all(tp, filter);
		if (!ret)
			return 0;
		uprobe_fetch_areas_put();
	}
	if (file)
		trace_probe_remove_file(tp, file);
	else
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	return ret;
}

static void uprobe_event_disable(struct trace_event_call *call, struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (!tp || !trace_probe_is_enabled(tp))
		return;
	if (file) {
		if (trace_probe_remove_file(tp, file) || trace_probe_is_enabled(tp))
			return;
	} else {
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	}
	uprobe_detach_all(tp);
	uprobe_fetch_areas_put();
}

#ifdef CONFIG_PERF_EVENTS
/* perf's side: one registration for all its events, then each opened. */
static int uprobe_event_reg_perf(struct trace_event_call *call, enum trace_reg type,
				 void *data)
{
	struct trace_uprobe *tu;

	if (type == TRACE_REG_PERF_REGISTER)
		return uprobe_event_enable(call, NULL, uprobe_perf_filter);
	if (type == TRACE_REG_PERF_UNREGISTER) {
		uprobe_event_disable(call, NULL);
		return 0;
	}
	if (type != TRACE_REG_PERF_OPEN && type != TRACE_REG_PERF_CLOSE)
		return 0;
	tu = uprobe_of_call(call);
	if (!tu)
		return -ENODEV;
	return type == TRACE_REG_PERF_OPEN ? uprobe_perf_open(tu, data) :
					     uprobe_perf_close(tu, data);
}
#endif

static int uprobe_event_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	/* a trace instance's event file: DATA is that file */
	if (type == TRACE_REG_REGISTER)
		return uprobe_event_enable(call, data, NULL);
	if (type == TRACE_REG_UNREGISTER) {
		uprobe_event_disable(call, data);
		return 0;
	}
#ifdef CONFIG_PERF_EVENTS
	return uprobe_event_reg_perf(call, type, data);
#else
	return 0;
#endif
}

/* ------------------------------------------------------------------ */
/* The event's format and output                                      */

static enum print_line_t uprobe_print(struct trace_iterator *iter, int flags,
				      struct trace_event *event)
{
	struct trace_event_call *call = container_of(event, struct trace_event_call, event);
	struct uprobe_record *rec = (struct uprobe_record *)iter->ent;
	struct trace_uprobe *tu = uprobe_of_call(call);
	struct trace_seq *s = &iter->seq;

	if (!tu)
		return trace_handle_return(s);
	if (uprobe_is_return(tu))
		trace_seq_printf(s, "%s: (0x%lx <- 0x%lx)", trace_probe_name(&tu->tp),
				 rec->addr[1], rec->addr[0]);
	else
		trace_seq_printf(s, "%s: (0x%lx)", trace_probe_name(&tu->tp), rec->addr[0]);
	if (!print_probe_args(s, tu->tp.args, tu->tp.nr_args,
			      (u8 *)rec + uprobe_head_size(tu), rec))
		trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static int uprobe_define_fields(struct trace_event_call *call)
{
	struct trace_uprobe *tu = uprobe_of_call(call);

	if (!tu)
		return -ENODEV;
	return traceprobe_define_probe_fields(call, uprobe_is_return(tu), &tu->tp);
}

static struct trace_event_functions uprobe_event_funcs = {
	.trace = uprobe_print,
};

static struct trace_event_fields uprobe_event_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = uprobe_define_fields },
	{}
};

static void uprobe_init_call(struct trace_uprobe *tu)
{
	struct trace_event_call *call = trace_probe_event_call(&tu->tp);

	call->event.funcs = &uprobe_event_funcs;
	call->class->fields_array = uprobe_event_fields;
	call->class->reg = uprobe_event_reg;
	call->flags = TRACE_EVENT_FL_UPROBE | TRACE_EVENT_FL_CAP_ANY;
}

/* ------------------------------------------------------------------ */
/* Probe life cycle                                                   */

static void uprobe_free(struct trace_uprobe *tu)
{
	path_put(&tu->path);
	trace_probe_cleanup(&tu->tp);
	free_percpu(tu->nhit);
	kfree(tu->filename);
	kfree(tu);
}

static struct trace_uprobe *uprobe_alloc(const char *group, const char *event,
					 int nargs, bool is_return)
{
	struct trace_uprobe *tu = kzalloc(struct_size(tu, tp.args, nargs), GFP_KERNEL);
	struct trace_uprobe_filter *filter;
	int ret;

	if (!tu)
		return ERR_PTR(-ENOMEM);
	tu->nhit = alloc_percpu(unsigned long);
	ret = tu->nhit ? trace_probe_init(&tu->tp, event, group, true) : -ENOMEM;
	if (ret) {
		/* no path nor file name yet: the probe is freed as far as it got */
		uprobe_free(tu);
		return ERR_PTR(ret);
	}
	filter = tu->tp.event->filter;
	rwlock_init(&filter->rwlock);
	INIT_LIST_HEAD(&filter->perf_events);
	dyn_event_init(&tu->devent, &trace_uprobe_ops);
	tu->consumer.handler = uprobe_entry_handler;
	if (is_return)
		tu->consumer.ret_handler = uprobe_return_handler;
	return tu;
}

static struct trace_uprobe *uprobe_find(const char *event, const char *group)
{
	struct trace_uprobe *tu;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		tu = uprobe_of_dyn(pos);
		if (tu && !strcmp(trace_probe_name(&tu->tp), event) &&
		    !strcmp(trace_probe_group_name(&tu->tp), group))
			return tu;
	}
	return NULL;
}

static bool uprobe_same_place(struct trace_uprobe *a, struct trace_uprobe *b)
{
	return d_real_inode(a->path.dentry) == d_real_inode(b->path.dentry) &&
	       a->offset == b->offset;
}

static bool uprobe_probes_same_place(struct trace_probe *a, struct trace_probe *b)
{
	return uprobe_same_place(container_of(a, struct trace_uprobe, tp),
				 container_of(b, struct trace_uprobe, tp));
}

/* Add TU to the event of TO, which must record the same arguments. */
static int uprobe_event_join(struct trace_uprobe *tu, struct trace_uprobe *to)
{
	int ret;

	ret = trace_probe_check_join(&tu->tp, &to->tp,
				     uprobe_is_return(tu) == uprobe_is_return(to),
				     uprobe_probes_same_place);
	if (ret)
		return ret;
	ret = trace_probe_append(&tu->tp, &to->tp);
	if (ret)
		return ret;
	dyn_event_add(&tu->devent, trace_probe_event_call(&tu->tp));
	return 0;
}

/* The uprobes core keeps one reference counter per place. */
static bool uprobe_refctr_conflicts(struct trace_uprobe *tu)
{
	struct trace_uprobe *other;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		other = uprobe_of_dyn(pos);
		if (other && uprobe_same_place(other, tu) &&
		    other->ref_ctr_offset != tu->ref_ctr_offset)
			return true;
	}
	return false;
}

static int uprobe_event_add(struct trace_uprobe *tu)
{
	struct trace_uprobe *old;
	int ret;

	mutex_lock(&event_mutex);
	if (uprobe_refctr_conflicts(tu)) {
		pr_warn("Reference counter offset mismatch.");
		ret = -EINVAL;
		goto out;
	}
	old = uprobe_find(trace_probe_name(&tu->tp), trace_probe_group_name(&tu->tp));
	if (old) {
		ret = uprobe_event_join(tu, old);
		goto out;
	}
	uprobe_init_call(tu);
	ret = trace_probe_register_event_call(&tu->tp);
	if (ret == -EEXIST) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, EVENT_EXIST);
	} else if (ret) {
		pr_warn("Failed to register probe event(%d)\n", ret);
	} else {
		dyn_event_add(&tu->devent, trace_probe_event_call(&tu->tp));
	}
out:
	mutex_unlock(&event_mutex);
	return ret;
}

/*
 * Remove TU, the event with it if it is the last probe.  Called under
 * event_mutex.  An enabled event keeps all its probes: each one is a
 * consumer the uprobes core may be calling.
 */
static int uprobe_event_remove(struct trace_uprobe *tu)
{
	int ret;

	if (trace_probe_is_enabled(&tu->tp))
		return -EBUSY;
	if (!trace_probe_has_sibling(&tu->tp)) {
		if (trace_event_dyn_busy(trace_probe_event_call(&tu->tp)))
			return -EBUSY;
		ret = trace_probe_unregister_event_call(&tu->tp);
		if (ret)
			return ret;
	}
	dyn_event_remove(&tu->devent);
	trace_probe_unlink(&tu->tp);
	uprobe_free(tu);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Commands                                                           */

/* Where a command puts its probe: "PATH:OFFSET[%return][(REF_CTR_OFFSET)]". */
struct uprobe_place {
	char		*filename;	/* the word, cut at the last ':' */
	struct path	path;
	unsigned long	offset;
	unsigned long	ref_ctr_offset;
	bool		is_return;
};

/*
 * Hold the file NAME names in PATH.  Only a regular file can be probed:
 * anything else is -EINVAL, with nothing held.
 */
static int uprobe_hold_file(const char *name, struct path *path)
{
	int ret = kern_path(name, LOOKUP_FOLLOW, path);

	if (ret || d_is_reg(path->dentry))
		return ret;
	path_put(path);
	*path = (struct path){};
	return -EINVAL;
}

/* "(REF_CTR_OFFSET)" at the end of the word, if there; cut off. */
static int uprobe_parse_refctr(struct uprobe_place *place, char *spec)
{
	char *open = strchr(spec, '('), *close;
	int ret;

	if (!open)
		return 0;
	close = strchr(open, ')');
	if (!close) {
		trace_probe_log_err(open + strlen(open) - place->filename, REFCNT_OPEN_BRACE);
		return -EINVAL;
	}
	if (close[1]) {
		trace_probe_log_err(close + 1 - place->filename, BAD_REFCNT_SUFFIX);
		return -EINVAL;
	}
	*open = '\0';
	*close = '\0';
	ret = kstrtoul(open + 1, 0, &place->ref_ctr_offset);
	if (ret)
		trace_probe_log_err(open + 1 - place->filename, BAD_REFCNT);
	return ret;
}

/*
 * The place in WORD, whose last ':' is at COLON.  The file must exist
 * and be a regular file before the rest is looked at, as in 6.1.
 */
static int uprobe_parse_place(struct uprobe_place *place, char *word, char *colon)
{
	char *spec = colon + 1, *suffix;
	int ret;

	place->filename = word;
	*colon = '\0';
	ret = uprobe_hold_file(word, &place->path);
	if (ret) {
		__trace_probe_log_err(0, ret == -EINVAL ? TP_ERR_NO_REGULAR_FILE :
				      TP_ERR_FILE_NOT_FOUND);
		return ret;
	}
	ret = uprobe_parse_refctr(place, spec);
	if (ret)
		return ret;
	suffix = strchr(spec, '%');
	if (suffix) {
		if (strcmp(suffix, "%return")) {
			trace_probe_log_err(suffix - word, BAD_ADDR_SUFFIX);
			return -EINVAL;
		}
		*suffix = '\0';
		place->is_return = true;
	}
	ret = kstrtoul(spec, 0, &place->offset);
	if (ret)
		trace_probe_log_err(spec - word, BAD_UPROBE_OFFS);
	return ret;
}

/* "p_" and the file's name up to its first '.', '-' or '_', "_0x" and the offset. */
static void uprobe_default_name(char *buf, const struct uprobe_place *place)
{
	const char *base = kbasename(place->filename);

	snprintf(buf, MAX_EVENT_NAME_LEN, "p_%.*s_0x%lx",
		 (int)strcspn(base, ".-_"), base, place->offset);
}

static int uprobe_parse_args(struct trace_uprobe *tu, int argc, const char **argv)
{
	unsigned int flags = uprobe_is_return(tu) ? TPARG_FL_RETURN : TPARG_FL_FENTRY;
	int i, ret;

	/* the arguments are words 2 on */
	ret = traceprobe_check_nr_args(argc, 2);
	if (ret)
		return ret;
	for (i = 0; i < argc; i++) {
		trace_probe_log_set_index(i + 2);
		ret = traceprobe_parse_probe_arg(&tu->tp, i, argv[i], flags);
		if (ret)
			return ret;
	}
	return traceprobe_set_print_fmt(&tu->tp, uprobe_is_return(tu) ?
					PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL);
}

/*
 * "p|r[:[GRP/][EVENT]] PATH:OFFSET[%return][(REF_CTR_OFFSET)] [ARGS]".
 * -ECANCELED says the command is not a uprobe's, for dynamic_events to
 * offer it to the other kinds.
 */
static int uprobe_parse_command(int argc, const char **argv)
{
	const char *event = NULL, *group = UPROBE_EVENT_SYSTEM;
	struct uprobe_place place = {};
	char name[MAX_EVENT_NAME_LEN];
	char gbuf[MAX_EVENT_NAME_LEN];
	struct trace_uprobe *tu;
	char *word, *colon;
	int ret;

	if ((argv[0][0] != 'p' && argv[0][0] != 'r') || argc < 2 || !strchr(argv[1], '/'))
		return -ECANCELED;
	colon = strrchr(argv[1], ':');
	if (!colon || !isdigit(colon[1]))
		return -ECANCELED;
	word = kstrdup(argv[1], GFP_KERNEL);
	if (!word)
		return -ENOMEM;

	trace_probe_log_init("trace_uprobe", argc, argv);
	trace_probe_log_set_index(1);
	place.is_return = argv[0][0] == 'r';
	ret = uprobe_parse_place(&place, word, word + (colon - argv[1]));
	if (ret)
		goto fail;

	trace_probe_log_set_index(0);
	if (argv[0][1] == ':') {
		event = argv[0] + 2;
		ret = traceprobe_parse_event_name(&event, &group, gbuf, 2);
		if (ret)
			goto fail;
	}
	if (!event) {
		uprobe_default_name(name, &place);
		event = name;
	}

	tu = uprobe_alloc(group, event, argc - 2, place.is_return);
	if (IS_ERR(tu)) {
		ret = PTR_ERR(tu);
		goto fail;
	}
	tu->filename = place.filename;
	tu->path = place.path;
	tu->offset = place.offset;
	tu->ref_ctr_offset = place.ref_ctr_offset;
	ret = uprobe_parse_args(tu, argc - 2, argv + 2);
	if (!ret)
		ret = uprobe_event_add(tu);
	if (ret)
		uprobe_free(tu);
	trace_probe_log_clear();
	return ret;

fail:
	trace_probe_log_clear();
	path_put(&place.path);
	kfree(word);
	return ret;
}

static int uprobe_event_create(const char *raw_command)
{
	return trace_probe_create(raw_command, uprobe_parse_command);
}

static int uprobe_events_command(const char *raw_command)
{
	return trace_probe_kind_command(raw_command, &trace_uprobe_ops);
}

static int uprobe_event_free(struct dyn_event *ev)
{
	return uprobe_event_remove(to_trace_uprobe(ev));
}

static bool uprobe_event_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&to_trace_uprobe(ev)->tp);
}

/* Is WORD the place as the listing shows it, "PATH:0x%016lx[(0x%lx)]"? */
static bool uprobe_place_is(struct trace_uprobe *tu, const char *word)
{
	size_t len = strlen(tu->filename);
	char spec[2 * (2 + 2 * sizeof(long)) + 3];

	if (strncmp(word, tu->filename, len) || word[len] != ':')
		return false;
	if (tu->ref_ctr_offset)
		snprintf(spec, sizeof(spec), "0x%0*lx(0x%lx)", (int)(2 * sizeof(void *)),
			 tu->offset, tu->ref_ctr_offset);
	else
		snprintf(spec, sizeof(spec), "0x%0*lx", (int)(2 * sizeof(void *)), tu->offset);
	return !strcmp(word + len + 1, spec);
}

/* A removal names the probe; if it adds words, they must be its place and arguments. */
static bool uprobe_event_match(const char *system, const char *event,
			       int argc, const char **argv, struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);

	if (event[0] && strcmp(trace_probe_name(&tu->tp), event))
		return false;
	if (system && strcmp(trace_probe_group_name(&tu->tp), system))
		return false;
	if (!argc)
		return true;
	return uprobe_place_is(tu, argv[0]) &&
	       trace_probe_match_command_args(&tu->tp, argc - 1, argv + 1);
}

static int uprobe_event_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);
	const struct probe_arg *arg = tu->tp.args;
	const struct probe_arg *end = arg + tu->tp.nr_args;

	/* The definition as perf parses it back: the offset in 16 digits. */
	seq_printf(m, "%c:%s/%s ", uprobe_is_return(tu) ? 'r' : 'p',
		   trace_probe_group_name(&tu->tp), trace_probe_name(&tu->tp));
	seq_printf(m, "%s:0x%0*lx", tu->filename, (int)(2 * sizeof(void *)), tu->offset);
	if (tu->ref_ctr_offset)
		seq_printf(m, "(0x%lx)", tu->ref_ctr_offset);
	for (; arg < end; arg++)
		seq_printf(m, " %s=%s", arg->name, arg->comm);
	seq_putc(m, '\n');
	return 0;
}

/* ------------------------------------------------------------------ */
/* tracefs: uprobe_events and uprobe_profile                          */

static int uprobe_events_seq_show(struct seq_file *m, void *v)
{
	struct dyn_event *ev = v;

	return ev->ops == &trace_uprobe_ops ? uprobe_event_show(m, ev) : 0;
}

static const struct seq_operations uprobe_events_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= uprobe_events_seq_show,
};

static int uprobe_events_open(struct inode *inode, struct file *file)
{
	return trace_probe_list_open(file, &uprobe_events_seq_ops, &trace_uprobe_ops);
}

static ssize_t uprobe_events_write(struct file *file, const char __user *buffer,
				   size_t count, loff_t *ppos)
{
	return trace_parse_run_command(file, buffer, count, ppos, uprobe_events_command);
}

static const struct file_operations uprobe_events_fops = {
	.owner		= THIS_MODULE,
	.open		= uprobe_events_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
	.write		= uprobe_events_write,
};

static unsigned long uprobe_hits(struct trace_uprobe *tu)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(tu->nhit, cpu);
	return sum;
}

static int uprobe_profile_seq_show(struct seq_file *m, void *v)
{
	struct dyn_event *ev = v;
	struct trace_uprobe *tu;

	if (ev->ops != &trace_uprobe_ops)
		return 0;
	tu = to_trace_uprobe(ev);
	seq_printf(m, "  %s %-44s %15lu\n", tu->filename, trace_probe_name(&tu->tp),
		   uprobe_hits(tu));
	return 0;
}

static const struct seq_operations uprobe_profile_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= uprobe_profile_seq_show,
};

static int uprobe_profile_open(struct inode *inode, struct file *file)
{
	return trace_probe_list_open(file, &uprobe_profile_seq_ops, NULL);
}

static const struct file_operations uprobe_profile_fops = {
	.owner		= THIS_MODULE,
	.open		= uprobe_profile_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

/* ------------------------------------------------------------------ */
/* The perf "uprobe" PMU: an event of its own, outside dyn_event_list */

#ifdef CONFIG_PERF_EVENTS
struct trace_event_call *create_local_trace_uprobe(char *name, unsigned long offs,
						   unsigned long ref_ctr_offset, bool is_return)
{
	struct trace_uprobe *tu;
	struct path path;
	int ret = uprobe_hold_file(name, &path);

	if (ret)
		return ERR_PTR(ret);
	/* never in dyn_event_list, so its name need not be unique */
	tu = uprobe_alloc(UPROBE_EVENT_SYSTEM, "DUMMY_EVENT", 0, is_return);
	if (IS_ERR(tu)) {
		path_put(&path);
		return ERR_CAST(tu);
	}
	tu->path = path;
	tu->offset = offs;
	tu->ref_ctr_offset = ref_ctr_offset;
	tu->filename = kstrdup(name, GFP_KERNEL);
	uprobe_init_call(tu);
	if (!tu->filename || traceprobe_set_print_fmt(&tu->tp, is_return ?
						      PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL)) {
		uprobe_free(tu);
		return ERR_PTR(-ENOMEM);
	}
	return trace_probe_event_call(&tu->tp);
}

void destroy_local_trace_uprobe(struct trace_event_call *event_call)
{
	struct trace_uprobe *tu = uprobe_of_call(event_call);

	if (tu)
		uprobe_free(tu);
}
#endif /* CONFIG_PERF_EVENTS */

static __init int uprobe_events_init(void)
{
	int ret = dyn_event_register(&trace_uprobe_ops);

	if (ret)
		return ret;
	/* without tracefs the events still serve perf */
	if (tracing_init_dentry())
		return 0;
	trace_create_file("uprobe_events", TRACE_MODE_WRITE, NULL, NULL, &uprobe_events_fops);
	trace_create_file("uprobe_profile", TRACE_MODE_READ, NULL, NULL, &uprobe_profile_fops);
	return 0;
}
fs_initcall(uprobe_events_init);

/* The fetch's white-box suite: it calls the static functions above. */
#if IS_ENABLED(CONFIG_KFORK_KUNIT_TESTS)
#include "trace_uprobe_fetch_kunit.c"
#endif
