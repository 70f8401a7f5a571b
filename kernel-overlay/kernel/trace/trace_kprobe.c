// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobe events: trace events on instructions of the kernel.
 *
 * A probe names a place in the kernel: a symbol with an offset, maybe
 * of a module not loaded yet, or an address (kprobe_events,
 * dynamic_events, the kprobe_event= boot parameter, the in-kernel
 * command API, or the perf "kprobe" PMU for an event of its own).  The
 * probe is registered with the kprobes core as soon as it is defined,
 * disabled, and armed while its event is enabled.  A hit runs the fetch
 * programs of its arguments (compiled by trace_probe.c, run by
 * trace_probe_tmpl.h with the kernel-memory accessors below) straight
 * into each record: one per trace instance the event is enabled in,
 * one for perf.  Everything a hit runs is in probe context: nothing
 * here may be probed itself, sleep or fault.
 */
#define pr_fmt(fmt)	"trace_kprobe: " fmt

#include <linux/bpf.h>
#include <linux/ctype.h>
#include <linux/error-injection.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/security.h>
#include <linux/uaccess.h>

#include <asm/setup.h>	/* COMMAND_LINE_SIZE */

#include "trace_dynevent.h"
#include "trace_kprobe_selftest.h"
#include "trace_probe.h"
#include "trace_probe_tmpl.h"
#include "trace_probe_kernel.h"

#define KPROBE_EVENT_SYSTEM	"kprobes"
/* a kretprobe keeps this many return instances at most: they are walked */
#define KRETPROBE_MAXACTIVE_MAX	4096

struct trace_kprobe {
	struct dyn_event	devent;
	struct kretprobe	rp;		/* an entry probe uses rp.kp alone */
	unsigned long __percpu	*nhit;
	const char		*symbol;	/* "[MOD:]SYM", NULL for an address */
	bool			registered;	/* with the kprobes core */
	bool			has_strings;	/* an argument is stored past the fixed part */
	struct trace_probe	tp;
};

/*
 * A record: the common header, the probed address (entry) or the
 * function and the address it returns to (return), then the arguments.
 * The layout of kprobe_trace_entry_head and kretprobe_trace_entry_head.
 */
struct kprobe_record {
	struct trace_entry	ent;
	unsigned long		addr[];
};

static int kprobe_event_create(const char *raw_command);
static int kprobe_event_show(struct seq_file *m, struct dyn_event *ev);
static int kprobe_event_free(struct dyn_event *ev);
static bool kprobe_event_busy(struct dyn_event *ev);
static bool kprobe_event_match(const char *system, const char *event,
			       int argc, const char **argv, struct dyn_event *ev);

static struct dyn_event_operations trace_kprobe_ops = {
	.create	= kprobe_event_create,
	.show	= kprobe_event_show,
	.is_busy = kprobe_event_busy,
	.free	= kprobe_event_free,
	.match	= kprobe_event_match,
};

static struct trace_kprobe *to_trace_kprobe(struct dyn_event *ev)
{
	return container_of(ev, struct trace_kprobe, devent);
}

/* The kprobe event EV is, or NULL if it is of another kind. */
static struct trace_kprobe *kprobe_of_dyn(struct dyn_event *ev)
{
	return ev->ops == &trace_kprobe_ops ? to_trace_kprobe(ev) : NULL;
}

static struct trace_kprobe *kprobe_find(const char *event, const char *group)
{
	struct trace_kprobe *tk;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		tk = kprobe_of_dyn(pos);
		if (tk && !strcmp(trace_probe_name(&tk->tp), event) &&
		    !strcmp(trace_probe_group_name(&tk->tp), group))
			return tk;
	}
	return NULL;
}

static struct trace_kprobe *kprobe_of_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	return tp ? container_of(tp, struct trace_kprobe, tp) : NULL;
}

static nokprobe_inline bool kprobe_is_return(struct trace_kprobe *tk)
{
	return tk->rp.handler;
}

static nokprobe_inline int kprobe_head_size(struct trace_kprobe *tk)
{
	return sizeof(struct kprobe_record) +
	       sizeof(unsigned long) * (kprobe_is_return(tk) ? 2 : 1);
}

/* Where the probe is now: 0 if its symbol is not (yet) there. */
static unsigned long kprobe_address(struct trace_kprobe *tk)
{
	unsigned long addr;

	if (!tk->symbol)
		return (unsigned long)tk->rp.kp.addr;
	addr = kallsyms_lookup_name(tk->symbol);
	return addr ? addr + tk->rp.kp.offset : 0;
}

/* For BPF's bpf_override_return(): is the event's probe at a function's entry? */
bool trace_kprobe_on_func_entry(struct trace_event_call *call)
{
	struct trace_kprobe *tk = kprobe_of_call(call);
	struct kprobe *kp;

	if (!tk)
		return false;
	kp = &tk->rp.kp;
	if (kp->addr)
		return !kprobe_on_func_entry(kp->addr, NULL, 0);
	return !kprobe_on_func_entry(NULL, kp->symbol_name, kp->offset);
}

bool trace_kprobe_error_injectable(struct trace_event_call *call)
{
	struct trace_kprobe *tk = kprobe_of_call(call);

	return tk && within_error_injection_list(kprobe_address(tk));
}

/* ------------------------------------------------------------------ */
/* Fetching arguments from the kernel                                 */

/*
 * The fetch program reads memory from several places, each inlined
 * where it runs: the readers stay out of line, so that one copy of the
 * address test serves them all.
 */
static int kprobe_read_user(void *dest, void *src, size_t size)
{
	return copy_from_user_nofault(dest, (const void __user __force *)src, size);
}

NOKPROBE_SYMBOL(kprobe_read_user);

/* Kernel memory, or user memory where the two share addresses only by number. */
static int kprobe_read(void *dest, void *src, size_t size)
{
#ifdef CONFIG_ARCH_HAS_NON_OVERLAPPING_ADDRESS_SPACE
	if ((unsigned long)src < TASK_SIZE)
		return kprobe_read_user(dest, src, size);
#endif
	return copy_from_kernel_nofault(dest, src, size);
}

NOKPROBE_SYMBOL(kprobe_read);

static nokprobe_inline int probe_mem_read_user(void *dest, void *src, size_t size)
{
	return kprobe_read_user(dest, src, size);
}

static nokprobe_inline int probe_mem_read(void *dest, void *src, size_t size)
{
	return kprobe_read(dest, src, size);
}

/*
 * The bytes of the kernel string at ADDR with its NUL, at most
 * MAX_STRING_SIZE: what the store pass's strncpy_from_kernel_nofault()
 * will copy; -ERANGE where it may not be read, -EFAULT where a read
 * faults.  One section without page faults serves the whole string,
 * and the address is checked on each page it reaches; reading it byte
 * by byte through copy_from_kernel_nofault() paid both for every byte.
 */
static int kprobe_strlen(unsigned long addr)
{
	const char *str = (const char *)addr;
	int len = 0, ret;
	char c;

#ifdef CONFIG_ARCH_HAS_NON_OVERLAPPING_ADDRESS_SPACE
	if (addr < TASK_SIZE)
		return kern_fetch_store_strlen_user(addr);
#endif
	pagefault_disable();
	for (;;) {
		if ((!len || !offset_in_page(str + len)) &&
		    !copy_from_kernel_nofault_allowed(str + len, 1)) {
			ret = -ERANGE;
			break;
		}
		__get_kernel_nofault(&c, str + len, char, fault);
		len++;
		if (!c || len == MAX_STRING_SIZE) {
			ret = len;
			break;
		}
	}
	pagefault_enable();
	return ret;
fault:
	pagefault_enable();
	return -EFAULT;
}

NOKPROBE_SYMBOL(kprobe_strlen);

static nokprobe_inline int fetch_store_strlen(unsigned long addr)
{
	return kprobe_strlen(addr);
}

/* The other string readers: those every kernel-side probe kind shares. */
static nokprobe_inline int fetch_store_strlen_user(unsigned long addr)
{
	return kern_fetch_store_strlen_user(addr);
}

static nokprobe_inline int fetch_store_string(unsigned long addr, void *dest, void *base)
{
	return kern_fetch_store_string(addr, dest, base);
}

static nokprobe_inline int fetch_store_string_user(unsigned long addr, void *dest, void *base)
{
	return kern_fetch_store_string_user(addr, dest, base);
}

/*
 * The load of a fetch program, from the probed registers REC; the core
 * does the rest.  Not cloned, so that the blacklisted address is the
 * one that runs.
 */
static noinline __noclone int
process_fetch_insn(struct fetch_insn *code, void *rec, void *dest, void *base)
{
	struct pt_regs *regs = rec;
	unsigned long val;

	/* @SYM: the symbol's name, kept for re-resolving; its address follows */
	if (code->op == FETCH_NOP_SYMBOL)
		code++;
	switch (code->op) {
	case FETCH_OP_REG:
		val = regs_get_register(regs, code->param);
		break;
	case FETCH_OP_STACK:
		val = regs_get_kernel_stack_nth(regs, code->param);
		break;
	case FETCH_OP_STACKP:
		val = kernel_stack_pointer(regs);
		break;
	case FETCH_OP_RETVAL:
		val = regs_return_value(regs);
		break;
#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
	case FETCH_OP_ARG:
		val = regs_get_kernel_argument(regs, code->param);
		break;
#endif
	case FETCH_OP_IMM:
		val = code->immediate;
		break;
	case FETCH_OP_COMM:	/* a kernel string: the store reads it */
		val = (unsigned long)current->comm;
		break;
	case FETCH_OP_DATA:	/* an immediate string, kept by the program */
		val = (unsigned long)code->data;
		break;
	default:
		return -EILSEQ;
	}
	return process_fetch_insn_bottom(code + 1, val, dest, base);
}

NOKPROBE_SYMBOL(process_fetch_insn);

/* The bytes TK's strings take for this hit, 0 without a string argument. */
static nokprobe_inline int kprobe_strings_size(struct trace_kprobe *tk, struct pt_regs *regs)
{
	return unlikely(tk->has_strings) ? __get_data_size(&tk->tp, regs) : 0;
}

/*
 * Fill REC's head and arguments; STRINGS bytes follow the fixed part.
 * A string may have grown shorter since it was sized: what it left is
 * cleared, so no record shows what an older one left in its place.
 */
static nokprobe_inline void kprobe_fill_record(struct trace_kprobe *tk, struct pt_regs *regs,
					       struct kretprobe_instance *ri,
					       struct kprobe_record *rec, int strings)
{
	int head = kprobe_head_size(tk);
	void *args = (void *)rec + head;
	int used;

	rec->addr[0] = (unsigned long)tk->rp.kp.addr;
	if (ri)
		rec->addr[1] = get_kretprobe_retaddr(ri);
	used = store_trace_args(args, &tk->tp, regs, head, strings);
	if (unlikely(used < strings))
		memset(args + tk->tp.size + used, 0, strings - used);
}

/* ------------------------------------------------------------------ */
/* Writing records                                                    */

static nokprobe_inline void kprobe_write_trace(struct trace_kprobe *tk, struct pt_regs *regs,
					       struct kretprobe_instance *ri,
					       struct trace_event_file *file)
{
	struct trace_event_buffer fbuffer;
	struct kprobe_record *rec;
	int strings;

	if (trace_trigger_soft_disabled(file))
		return;
	strings = kprobe_strings_size(tk, regs);
	rec = trace_event_buffer_reserve(&fbuffer, file,
					 kprobe_head_size(tk) + tk->tp.size + strings);
	if (!rec)
		return;
	/* a stack trace of the event starts where the probe hit */
	fbuffer.regs = regs;
	kprobe_fill_record(tk, regs, ri, rec, strings);
	trace_event_buffer_commit(&fbuffer);
}

/* One record for each trace instance the event is enabled in. */
static void kprobe_write_traces(struct trace_kprobe *tk, struct pt_regs *regs,
				struct kretprobe_instance *ri)
{
	struct event_file_link *link;

	/* a probe handler runs with preemption off: an RCU reader */
	trace_probe_for_each_link_rcu(link, &tk->tp)
		kprobe_write_trace(tk, regs, ri, link->file);
}

NOKPROBE_SYMBOL(kprobe_write_traces);

#ifdef CONFIG_PERF_EVENTS
/*
 * The event's BPF programs first, then a record for the perf events
 * on this CPU.  1 tells the kprobes core that a program moved the
 * instruction pointer (bpf_override_return()): skip the instruction.
 */
static int kprobe_write_perf(struct trace_kprobe *tk, struct pt_regs *regs,
			     struct kretprobe_instance *ri)
{
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);
	unsigned long ip = instruction_pointer(regs);
	struct kprobe_record *rec;
	struct hlist_head *heads;
	int strings, len, size, rctx;

	if (bpf_prog_array_valid(call)) {
		bool pass = trace_call_bpf(call, regs);

		if (!ri && ip != instruction_pointer(regs))
			return 1;
		if (!pass)
			return 0;
	}
	heads = this_cpu_ptr(call->perf_events);
	if (hlist_empty(heads))
		return 0;
	strings = kprobe_strings_size(tk, regs);
	len = kprobe_head_size(tk) + tk->tp.size + strings;
	/* perf puts a u32 size before the record and wants u64 alignment */
	size = ALIGN(len + sizeof(u32), sizeof(u64)) - sizeof(u32);
	/* too big for perf's buffer: dropped, as perf_trace_buf_alloc() would, but quietly */
	if (size > PERF_MAX_TRACE_SIZE)
		return 0;
	rec = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!rec)
		return 0;
	kprobe_fill_record(tk, regs, ri, rec, strings);
	memset((void *)rec + len, 0, size - len);
	perf_trace_buf_submit(rec, size, rctx, call->event.type, 1, regs, heads, NULL);
	return 0;
}

NOKPROBE_SYMBOL(kprobe_write_perf);

/* BPF_TASK_FD_QUERY: what a perf event of a kprobe event probes. */
int bpf_get_kprobe_info(const struct perf_event *event, u32 *fd_type,
			const char **symbol, u64 *probe_offset,
			u64 *probe_addr, bool perf_type_tracepoint)
{
	struct trace_event_call *call = event->tp_event;
	struct trace_kprobe *tk;

	if (perf_type_tracepoint)
		tk = kprobe_find(trace_event_name(call), call->class->system);
	else
		tk = kprobe_of_call(call);
	if (!tk)
		return -EINVAL;
	*fd_type = kprobe_is_return(tk) ? BPF_FD_TYPE_KRETPROBE : BPF_FD_TYPE_KPROBE;
	/* a probe by symbol is known by it and the offset, else by its address */
	*symbol = tk->symbol;
	*probe_offset = tk->symbol ? tk->rp.kp.offset : 0;
	*probe_addr = tk->symbol ? 0 : (unsigned long)tk->rp.kp.addr;
	return 0;
}
#else
static int kprobe_write_perf(struct trace_kprobe *tk, struct pt_regs *regs,
			     struct kretprobe_instance *ri)
{
	return 0;
}
#endif /* CONFIG_PERF_EVENTS */

/* ------------------------------------------------------------------ */
/* The kprobes core's calls                                           */

/*
 * A hit of TK, at an entry (RI NULL) or at a return: counted, then
 * written to the trace instances and to perf, as the event is enabled
 * for each.  perf's answer is the entry handler's: 1 when a BPF
 * program moved the instruction pointer.
 */
static nokprobe_inline int kprobe_hit(struct trace_kprobe *tk, struct pt_regs *regs,
				      struct kretprobe_instance *ri)
{
	unsigned int flags = trace_probe_load_flag(&tk->tp);
	int skip = 0;

	raw_cpu_inc(*tk->nhit);
	if (flags & TP_FLAG_TRACE)
		kprobe_write_traces(tk, regs, ri);
	if (flags & TP_FLAG_PROFILE)
		skip = kprobe_write_perf(tk, regs, ri);
	return skip;
}

static int kprobe_dispatcher(struct kprobe *kp, struct pt_regs *regs)
{
	return kprobe_hit(container_of(kp, struct trace_kprobe, rp.kp), regs, NULL);
}

NOKPROBE_SYMBOL(kprobe_dispatcher);

static int kretprobe_dispatcher(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	/* NULL when the kretprobe was unregistered since the function was entered */
	struct kretprobe *rp = get_kretprobe(ri);

	/* the kprobes core ignores a return handler's value */
	if (rp)
		kprobe_hit(container_of(rp, struct trace_kprobe, rp), regs, ri);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_dispatcher);

/* ------------------------------------------------------------------ */
/* Registration with the kprobes core                                 */

#if defined(CONFIG_DYNAMIC_FTRACE) && !defined(CONFIG_KPROBE_EVENTS_ON_NOTRACE)
/*
 * Is ADDR in a function ftrace may not trace?  Kprobe events keep out
 * of those: they are where tracing itself runs.  An address kallsyms
 * does not know is left for the kprobes core to judge.
 */
static bool kprobe_addr_in_notrace(unsigned long addr)
{
	unsigned long size, offset;

	if (!addr || !kallsyms_lookup_size_offset(addr, &size, &offset))
		return false;
	/* at a function's start, ftrace_location() finds its ftrace site anywhere in it */
	return !ftrace_location(addr - offset);
}

static bool kprobe_in_notrace(struct trace_kprobe *tk)
{
	unsigned long addr = kprobe_address(tk);
	char name[KSYM_NAME_LEN];
	char *suffix;

	if (!kprobe_addr_in_notrace(addr))
		return false;
	/* a compiler's copy ("foo.isra.0", "foo.cold") is judged by the function it is of */
	suffix = lookup_symbol_name(addr, name) ? NULL : strchr(name, '.');
	if (!suffix)
		return true;
	*suffix = '\0';
	addr = (unsigned long)kprobe_lookup_name(name, 0);
	return !addr || kprobe_addr_in_notrace(addr);
}
#else
static bool kprobe_in_notrace(struct trace_kprobe *tk)
{
	return false;
}
#endif

/* The addresses of the arguments' @SYM, as the symbols are now. */
static int kprobe_resolve_symbols(struct trace_kprobe *tk)
{
	struct probe_arg *arg;
	int ret;

	for (arg = tk->tp.args; arg < tk->tp.args + tk->tp.nr_args; arg++) {
		ret = traceprobe_update_arg(arg);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Register TK with the kprobes core, armed only if its event is
 * enabled.  The arguments' @SYM addresses are looked up now: a module
 * loaded since may have moved them.
 */
static int kprobe_register(struct trace_kprobe *tk)
{
	int ret = security_locked_down(LOCKDOWN_KPROBES);

	if (ret)
		return ret;
	if (tk->registered)
		return -EINVAL;
	if (kprobe_in_notrace(tk)) {
		pr_warn("Could not probe notrace function %s\n",
			tk->symbol ? tk->symbol : "unknown");
		return -EINVAL;
	}
	ret = kprobe_resolve_symbols(tk);
	if (ret)
		return ret;
	/* armed only while the event is enabled */
	tk->rp.kp.flags &= ~KPROBE_FLAG_DISABLED;
	if (!trace_probe_is_enabled(&tk->tp))
		tk->rp.kp.flags |= KPROBE_FLAG_DISABLED;
	ret = kprobe_is_return(tk) ? register_kretprobe(&tk->rp) : register_kprobe(&tk->rp.kp);
	if (!ret)
		tk->registered = true;
	return ret;
}

/* Unregister TK and make its kprobe registrable again, by symbol if it has one. */
static void kprobe_unregister(struct trace_kprobe *tk)
{
	if (!tk->registered)
		return;
	if (kprobe_is_return(tk))
		unregister_kretprobe(&tk->rp);
	else
		unregister_kprobe(&tk->rp.kp);
	tk->registered = false;
	INIT_HLIST_NODE(&tk->rp.kp.hlist);
	INIT_LIST_HEAD(&tk->rp.kp.list);
	if (tk->symbol)
		tk->rp.kp.addr = NULL;
}

#ifdef CONFIG_MODULES
/* Is TK's symbol "MOD:SYM" of the module MOD? */
static bool kprobe_in_module(struct trace_kprobe *tk, struct module *mod)
{
	size_t len = strlen(module_name(mod));

	return tk->symbol && !strncmp(tk->symbol, module_name(mod), len) &&
	       tk->symbol[len] == ':';
}

/*
 * Could TK's symbol be there?  A kernel symbol or one of a loaded
 * module: yes; a module not loaded: not yet.  An address: no.
 */
static bool kprobe_place_loaded(struct trace_kprobe *tk)
{
	char name[MODULE_NAME_LEN];
	const char *colon;
	bool loaded;

	if (!tk->symbol)
		return false;
	colon = strchr(tk->symbol, ':');
	if (!colon)
		return true;
	if (colon - tk->symbol >= MODULE_NAME_LEN)
		return false;
	strscpy(name, tk->symbol, colon - tk->symbol + 1);
	rcu_read_lock_sched();
	loaded = find_module(name);
	rcu_read_unlock_sched();
	return loaded;
}

/* A module comes: the probes on its symbols can now be registered. */
static int kprobe_module_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct module *mod = data;
	struct trace_kprobe *tk;
	struct dyn_event *pos;
	int ret;

	if (val != MODULE_STATE_COMING)
		return NOTIFY_DONE;
	mutex_lock(&event_mutex);
	for_each_dyn_event(pos) {
		tk = kprobe_of_dyn(pos);
		if (!tk || !kprobe_in_module(tk, mod))
			continue;
		/* registered before on an older load of the module: gone since */
		kprobe_unregister(tk);
		ret = kprobe_register(tk);
		if (ret)
			pr_warn("Failed to re-register probe %s on %s: %d\n",
				trace_probe_name(&tk->tp), module_name(mod), ret);
	}
	mutex_unlock(&event_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block kprobe_module_nb = {
	.notifier_call	= kprobe_module_notify,
	/* after the kprobes core and jump labels have seen the module */
	.priority	= 2,
};
#else
static bool kprobe_place_loaded(struct trace_kprobe *tk)
{
	return tk->symbol && !strchr(tk->symbol, ':');
}
#endif /* CONFIG_MODULES */

/*
 * Register TK; a symbol of a module not loaded yet is no error: the
 * probe waits for the module.
 */
static int kprobe_register_or_wait(struct trace_kprobe *tk)
{
	int ret = kprobe_register(tk);

	if (ret == -ENOENT && !kprobe_place_loaded(tk)) {
		pr_warn("This probe might be able to register after target module is loaded. Continue.\n");
		return 0;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Enabling and disabling an event                                    */

static void kprobe_disarm_all(struct trace_probe *tp)
{
	struct trace_kprobe *tk;

	list_for_each_entry(tk, trace_probe_probe_list(tp), tp.list) {
		if (!tk->registered)
			continue;
		if (kprobe_is_return(tk))
			disable_kretprobe(&tk->rp);
		else
			disable_kprobe(&tk->rp.kp);
	}
}

/* Arm every probe of the event that is in the kernel now. */
static int kprobe_arm_all(struct trace_probe *tp)
{
	struct trace_kprobe *tk;
	int ret;

	list_for_each_entry(tk, trace_probe_probe_list(tp), tp.list) {
		if (!tk->registered || kprobe_gone(&tk->rp.kp))
			continue;
		ret = kprobe_is_return(tk) ? enable_kretprobe(&tk->rp) : enable_kprobe(&tk->rp.kp);
		if (ret) {
			kprobe_disarm_all(tp);
			return ret;
		}
	}
	return 0;
}

/*
 * Enable for FILE (a trace instance) or, without one, for perf; both
 * may be served at once.  The probes are armed with the first.
 */
static int kprobe_event_enable(struct trace_event_call *call, struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	bool was_enabled;
	int ret;

	if (!tp)
		return -ENODEV;
	was_enabled = trace_probe_is_enabled(tp);
	if (file) {
		ret = trace_probe_add_file(tp, file);
		if (ret)
			return ret;
	} else {
		trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	}
	if (was_enabled)
		return 0;
	ret = kprobe_arm_all(tp);
	if (!ret)
		return 0;
	if (file)
		trace_probe_remove_file(tp, file);
	else
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	return ret;
}

static int kprobe_event_disable(struct trace_event_call *call, struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (!tp)
		return -ENODEV;
	if (file) {
		/* waits for hits still writing to FILE */
		if (trace_probe_remove_file(tp, file))
			return -ENOENT;
	} else {
		/* perf waits for its hits itself, in perf_trace_event_unreg() */
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	}
	if (!trace_probe_is_enabled(tp))
		kprobe_disarm_all(tp);
	return 0;
}

/* Called under event_mutex, by ftrace for a trace instance (DATA) and by perf. */
static int kprobe_event_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	switch (type) {
	case TRACE_REG_REGISTER:
		return kprobe_event_enable(call, data);
	case TRACE_REG_UNREGISTER:
		return kprobe_event_disable(call, data);
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		return kprobe_event_enable(call, NULL);
	case TRACE_REG_PERF_UNREGISTER:
		return kprobe_event_disable(call, NULL);
#endif
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/* The event's format and output                                      */

static enum print_line_t kprobe_print(struct trace_iterator *iter, int flags,
				      struct trace_event *event)
{
	struct trace_event_call *call = container_of(event, struct trace_event_call, event);
	struct kprobe_record *rec = (struct kprobe_record *)iter->ent;
	struct trace_kprobe *tk = kprobe_of_call(call);
	struct trace_seq *s = &iter->seq;

	if (!tk)
		return trace_handle_return(s);
	trace_seq_printf(s, "%s: (", trace_probe_name(&tk->tp));
	/* a return shows where it returns to, then the function itself */
	if (kprobe_is_return(tk)) {
		if (!seq_print_ip_sym(s, rec->addr[1], flags | TRACE_ITER_SYM_OFFSET))
			return trace_handle_return(s);
		trace_seq_puts(s, " <- ");
		if (!seq_print_ip_sym(s, rec->addr[0], flags & ~TRACE_ITER_SYM_OFFSET))
			return trace_handle_return(s);
	} else if (!seq_print_ip_sym(s, rec->addr[0], flags | TRACE_ITER_SYM_OFFSET)) {
		return trace_handle_return(s);
	}
	trace_seq_putc(s, ')');
	if (!print_probe_args(s, tk->tp.args, tk->tp.nr_args,
			      (u8 *)rec + kprobe_head_size(tk), rec))
		trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static int kprobe_define_fields(struct trace_event_call *call)
{
	struct trace_kprobe *tk = kprobe_of_call(call);

	if (!tk)
		return -ENOENT;
	return traceprobe_define_probe_fields(call, kprobe_is_return(tk), &tk->tp);
}

static struct trace_event_functions kprobe_event_funcs = {
	.trace = kprobe_print,
};

static struct trace_event_fields kprobe_event_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = kprobe_define_fields },
	{}
};

static void kprobe_init_call(struct trace_kprobe *tk)
{
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);

	call->event.funcs = &kprobe_event_funcs;
	call->class->fields_array = kprobe_event_fields;
	call->class->reg = kprobe_event_reg;
	call->flags = TRACE_EVENT_FL_KPROBE;
}

/* ------------------------------------------------------------------ */
/* Probe life cycle                                                   */

static void kprobe_free(struct trace_kprobe *tk)
{
	trace_probe_cleanup(&tk->tp);
	free_percpu(tk->nhit);
	kfree(tk->symbol);
	kfree(tk);
}

/* Where a command puts its probe. */
struct kprobe_place {
	char		*symbol;	/* "[MOD:]SYM", cut before "+OFFS"; NULL for an address */
	void		*addr;
	long		offset;
	unsigned int	maxactive;	/* a kretprobe's instances, 0 for the default */
	bool		is_return;
	unsigned int	flags;		/* TPARG_FL_* for the arguments */
};

/* A probe at PLACE, taking over its symbol. */
static struct trace_kprobe *kprobe_alloc(const char *group, const char *event,
					 struct kprobe_place *place, int nargs)
{
	struct trace_kprobe *tk = kzalloc(struct_size(tk, tp.args, nargs), GFP_KERNEL);
	int ret;

	if (!tk)
		return ERR_PTR(-ENOMEM);
	tk->nhit = alloc_percpu(unsigned long);
	ret = tk->nhit ? trace_probe_init(&tk->tp, event, group, false) : -ENOMEM;
	if (ret) {
		/* no symbol taken yet: the probe is freed as far as it got */
		kprobe_free(tk);
		return ERR_PTR(ret);
	}
	tk->symbol = place->symbol;
	place->symbol = NULL;
	if (tk->symbol) {
		tk->rp.kp.symbol_name = tk->symbol;
		tk->rp.kp.offset = place->offset;
	} else {
		tk->rp.kp.addr = place->addr;
	}
	if (place->is_return)
		tk->rp.handler = kretprobe_dispatcher;
	else
		tk->rp.kp.pre_handler = kprobe_dispatcher;
	tk->rp.maxactive = place->maxactive;
	INIT_HLIST_NODE(&tk->rp.kp.hlist);
	INIT_LIST_HEAD(&tk->rp.kp.list);
	dyn_event_init(&tk->devent, &trace_kprobe_ops);
	return tk;
}

/* Do A and B name the same place the same way? */
static bool kprobe_same_place(struct trace_kprobe *a, struct trace_kprobe *b)
{
	if (!a->symbol || !b->symbol)
		return !a->symbol && !b->symbol && a->rp.kp.addr == b->rp.kp.addr;
	return !strcmp(a->symbol, b->symbol) && a->rp.kp.offset == b->rp.kp.offset;
}

static bool kprobe_probes_same_place(struct trace_probe *a, struct trace_probe *b)
{
	return kprobe_same_place(container_of(a, struct trace_kprobe, tp),
				 container_of(b, struct trace_kprobe, tp));
}

/* Add TK to the event of TO, which must record the same arguments. */
static int kprobe_event_join(struct trace_kprobe *tk, struct trace_kprobe *to)
{
	int ret;

	ret = trace_probe_check_join(&tk->tp, &to->tp,
				     kprobe_is_return(tk) == kprobe_is_return(to),
				     kprobe_probes_same_place);
	if (ret)
		return ret;
	ret = trace_probe_append(&tk->tp, &to->tp);
	if (ret)
		return ret;
	ret = kprobe_register_or_wait(tk);
	if (ret) {
		trace_probe_unlink(&tk->tp);
		return ret;
	}
	dyn_event_add(&tk->devent, trace_probe_event_call(&tk->tp));
	return 0;
}

/* TK as the first probe of a new event. */
static int kprobe_event_new(struct trace_kprobe *tk)
{
	int ret;

	kprobe_init_call(tk);
	ret = trace_probe_register_event_call(&tk->tp);
	if (ret == -EEXIST) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, EVENT_EXIST);
		return ret;
	}
	if (ret) {
		pr_warn("Failed to register probe event(%d)\n", ret);
		return ret;
	}
	ret = kprobe_register_or_wait(tk);
	if (ret) {
		trace_probe_unregister_event_call(&tk->tp);
		return ret;
	}
	dyn_event_add(&tk->devent, trace_probe_event_call(&tk->tp));
	return 0;
}

static int kprobe_event_add(struct trace_kprobe *tk)
{
	struct trace_kprobe *old;
	int ret;

	mutex_lock(&event_mutex);
	old = kprobe_find(trace_probe_name(&tk->tp), trace_probe_group_name(&tk->tp));
	ret = old ? kprobe_event_join(tk, old) : kprobe_event_new(tk);
	mutex_unlock(&event_mutex);
	return ret;
}

/*
 * Remove TK, the event with it if it is the last probe.  Called under
 * event_mutex.  One probe of several may go while the event is
 * enabled: unregistering it waits for its running handlers.
 */
static int kprobe_event_remove(struct trace_kprobe *tk)
{
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);

	if (!trace_probe_has_sibling(&tk->tp)) {
		if (trace_probe_is_enabled(&tk->tp) || trace_event_dyn_busy(call))
			return -EBUSY;
		/* refused while ftrace or perf still use the event */
		if (trace_probe_unregister_event_call(&tk->tp))
			return -EBUSY;
	}
	kprobe_unregister(tk);
	dyn_event_remove(&tk->devent);
	trace_probe_unlink(&tk->tp);
	kprobe_free(tk);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Commands                                                           */

/* "rN" in the command's first word: N instances of a kretprobe. */
static int kprobe_parse_maxactive(struct kprobe_place *place, const char *head)
{
	const char *digits = head + 1;
	size_t len = strcspn(digits, ":");
	char buf[MAX_EVENT_NAME_LEN];

	if (!isdigit(*digits))
		return 0;
	if (!place->is_return) {
		trace_probe_log_err(1, MAXACT_NO_KPROBE);
		return -EINVAL;
	}
	if (len >= sizeof(buf)) {
		trace_probe_log_err(1, BAD_MAXACT);
		return -EINVAL;
	}
	memcpy(buf, digits, len);
	buf[len] = '\0';
	if (kstrtouint(buf, 0, &place->maxactive) || !place->maxactive) {
		trace_probe_log_err(1, BAD_MAXACT);
		return -EINVAL;
	}
	if (place->maxactive > KRETPROBE_MAXACTIVE_MAX) {
		trace_probe_log_err(1, MAXACT_TOO_BIG);
		return -EINVAL;
	}
	return 0;
}

struct kprobe_symbol_count {
	const char	*name;
	unsigned int	n;
};

static int kprobe_count_kernel_symbol(void *data, unsigned long addr)
{
	((struct kprobe_symbol_count *)data)->n++;
	return 0;
}

static int kprobe_count_module_symbol(void *data, const char *name,
				      struct module *mod, unsigned long addr)
{
	struct kprobe_symbol_count *count = data;

	if (!strcmp(name, count->name))
		count->n++;
	return 0;
}

/* How many symbols, of the kernel and of every module, are called NAME. */
static unsigned int kprobe_symbols_named(const char *name)
{
	struct kprobe_symbol_count count = { .name = name };

	kallsyms_on_each_match_symbol(kprobe_count_kernel_symbol, name, &count);
	module_kallsyms_on_each_symbol(kprobe_count_module_symbol, &count);
	return count.n;
}

/*
 * A place by symbol alone must be one symbol: -EADDRNOTAVAIL if several
 * have the name (an address says which), -ENOENT if none has.  A
 * module's symbol "MOD:SYM" is one, and may not be loaded yet.
 */
static int kprobe_check_symbol(const char *symbol)
{
	unsigned int n;

	if (strchr(symbol, ':'))
		return 0;
	n = kprobe_symbols_named(symbol);
	return n == 1 ? 0 : n ? -EADDRNOTAVAIL : -ENOENT;
}

/* "[MOD:]SYM[+OFFS][%return]": the place WORD names by symbol. */
static int kprobe_parse_symbol(struct kprobe_place *place, const char *word)
{
	char *suffix;
	int ret;

	place->symbol = kstrdup(word, GFP_KERNEL);
	if (!place->symbol)
		return -ENOMEM;
	suffix = strchr(place->symbol, '%');
	if (suffix) {
		if (strcmp(suffix, "%return")) {
			trace_probe_log_err(suffix - place->symbol, BAD_ADDR_SUFFIX);
			return -EINVAL;
		}
		*suffix = '\0';
		place->is_return = true;
	}
	ret = traceprobe_split_symbol_offset(place->symbol, &place->offset);
	if (ret || place->offset < 0 || place->offset > UINT_MAX) {
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		return -EINVAL;
	}
	/* -ENOENT (not there yet) is left for the registration to report */
	ret = kprobe_on_func_entry(NULL, place->symbol, place->offset);
	if (!ret) {
		place->flags |= TPARG_FL_FENTRY;
	} else if (ret == -EINVAL && place->is_return) {
		trace_probe_log_err(0, BAD_RETPROBE);
		return -EINVAL;
	}
	ret = kprobe_check_symbol(place->symbol);
	if (ret)
		__trace_probe_log_err(0, ret == -ENOENT ? TP_ERR_BAD_PROBE_ADDR :
				      TP_ERR_NON_UNIQ_SYMBOL);
	return ret;
}

/*
 * "[MOD:]SYM[+OFFS][%return]" or "MEMADDR".  -ECANCELED if WORD is a
 * uprobe's place, "PATH:OFFSET", for dynamic_events to offer it on.
 */
static int kprobe_parse_place(struct kprobe_place *place, const char *word)
{
	if (!kstrtoul(word, 0, (unsigned long *)&place->addr))
		return 0;
	if (strchr(word, '/') && strchr(word, ':'))
		return -ECANCELED;
	return kprobe_parse_symbol(place, word);
}

/* "p_" or "r_", the symbol and the offset, or the address; '_' for what a name cannot hold. */
static void kprobe_default_name(char *buf, const struct kprobe_place *place)
{
	char kind = place->is_return ? 'r' : 'p';

	if (place->symbol)
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_%s_%ld", kind, place->symbol, place->offset);
	else
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_0x%p", kind, place->addr);
	sanitize_event_name(buf);
}

static int kprobe_parse_args(struct trace_kprobe *tk, int argc, const char **argv,
			     unsigned int flags)
{
	int i, ret;

	/* the arguments are words 2 on */
	ret = traceprobe_check_nr_args(argc, 2);
	if (ret)
		return ret;
	for (i = 0; i < argc; i++) {
		trace_probe_log_set_index(i + 2);
		ret = traceprobe_parse_probe_arg(&tk->tp, i, argv[i], flags);
		if (ret)
			return ret;
		tk->has_strings |= tk->tp.args[i].dynamic;
	}
	return traceprobe_set_print_fmt(&tk->tp, kprobe_is_return(tk) ?
					PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL);
}

/* What went wrong registering the probe, in error_log under its place. */
static void kprobe_log_register_error(int ret)
{
	enum trace_probe_error why;

	switch (ret) {
	case -ENOMEM:
	case -EEXIST:	/* logged where the event was found taken */
		return;
	case -EILSEQ:	/* the kprobes core's word for "inside an instruction" */
		why = TP_ERR_BAD_INSN_BNDRY;
		break;
	case -ENOENT:
		why = TP_ERR_BAD_PROBE_ADDR;
		break;
	default:
		why = TP_ERR_FAIL_REG_PROBE;
		break;
	}
	trace_probe_log_set_index(1);
	__trace_probe_log_err(0, why);
}

/* A probe for the command ARGV, parsed; the errors are logged. */
static struct trace_kprobe *kprobe_from_command(int argc, const char **argv)
{
	const char *event = strchr(argv[0] + 1, ':'), *group = KPROBE_EVENT_SYSTEM;
	struct kprobe_place place = { .flags = TPARG_FL_KERNEL };
	char name[MAX_EVENT_NAME_LEN];
	char gbuf[MAX_EVENT_NAME_LEN];
	struct trace_kprobe *tk;
	int ret;

	place.is_return = argv[0][0] == 'r';
	ret = kprobe_parse_maxactive(&place, argv[0]);
	if (ret)
		goto fail;
	trace_probe_log_set_index(1);
	ret = kprobe_parse_place(&place, argv[1]);
	if (ret)
		goto fail;
	/* $retval, by symbol or by address (6.1 allowed it by symbol only) */
	if (place.is_return)
		place.flags |= TPARG_FL_RETURN;

	trace_probe_log_set_index(0);
	if (event) {
		event++;
		ret = traceprobe_parse_event_name(&event, &group, gbuf, event - argv[0]);
		if (ret)
			goto fail;
	}
	if (!event) {
		kprobe_default_name(name, &place);
		event = name;
	}

	tk = kprobe_alloc(group, event, &place, argc - 2);
	if (IS_ERR(tk)) {
		ret = PTR_ERR(tk);
		goto fail;
	}
	ret = kprobe_parse_args(tk, argc - 2, argv + 2, place.flags);
	if (ret) {
		kprobe_free(tk);
		return ERR_PTR(ret);
	}
	return tk;
fail:
	kfree(place.symbol);
	return ERR_PTR(ret);
}

/*
 * "p|r[MAXACTIVE][:[GRP/][EVENT]] [MOD:]SYM[+OFFS][%return]|MEMADDR [ARGS]".
 * -ECANCELED says the command is not a kprobe's, for dynamic_events to
 * offer it to the other kinds.
 */
static int kprobe_parse_command(int argc, const char **argv)
{
	struct trace_kprobe *tk;
	int ret;

	if ((argv[0][0] != 'p' && argv[0][0] != 'r') || argc < 2)
		return -ECANCELED;
	trace_probe_log_init("trace_kprobe", argc, argv);
	tk = kprobe_from_command(argc, argv);
	if (IS_ERR(tk)) {
		ret = PTR_ERR(tk);
	} else {
		ret = kprobe_event_add(tk);
		if (ret) {
			kprobe_log_register_error(ret);
			kprobe_free(tk);
		}
	}
	trace_probe_log_clear();
	return ret;
}

static int kprobe_event_create(const char *raw_command)
{
	return trace_probe_create(raw_command, kprobe_parse_command);
}

/* A line of kprobe_events, the boot parameter or the command API. */
static int kprobe_events_command(const char *raw_command)
{
	return trace_probe_kind_command(raw_command, &trace_kprobe_ops);
}

static int kprobe_event_free(struct dyn_event *ev)
{
	return kprobe_event_remove(to_trace_kprobe(ev));
}

static bool kprobe_event_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&to_trace_kprobe(ev)->tp);
}

/* The place as the listing shows it: "SYM", "SYM+OFFS" or the (hashed) address. */
static void kprobe_place_string(struct trace_kprobe *tk, char *buf, size_t size)
{
	if (!tk->symbol)
		snprintf(buf, size, "0x%p", tk->rp.kp.addr);
	else if (tk->rp.kp.offset)
		snprintf(buf, size, "%s+%u", tk->symbol, tk->rp.kp.offset);
	else
		snprintf(buf, size, "%s", tk->symbol);
}

/* A removal names the probe; if it adds words, they must be its place and arguments. */
static bool kprobe_event_match(const char *system, const char *event,
			       int argc, const char **argv, struct dyn_event *ev)
{
	struct trace_kprobe *tk = to_trace_kprobe(ev);
	char place[MAX_ARGSTR_LEN + 1];

	if (event[0] && strcmp(trace_probe_name(&tk->tp), event))
		return false;
	if (system && strcmp(trace_probe_group_name(&tk->tp), system))
		return false;
	if (!argc)
		return true;
	kprobe_place_string(tk, place, sizeof(place));
	return !strcmp(place, argv[0]) &&
	       trace_probe_match_command_args(&tk->tp, argc - 1, argv + 1);
}

static int kprobe_event_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_kprobe *tk = to_trace_kprobe(ev);
	const struct probe_arg *arg = tk->tp.args;
	const struct probe_arg *end = arg + tk->tp.nr_args;
	char place[KSYM_NAME_LEN + MODULE_NAME_LEN + 16];

	seq_putc(m, kprobe_is_return(tk) ? 'r' : 'p');
	if (kprobe_is_return(tk) && tk->rp.maxactive)
		seq_printf(m, "%d", tk->rp.maxactive);
	kprobe_place_string(tk, place, sizeof(place));
	seq_printf(m, ":%s/%s %s", trace_probe_group_name(&tk->tp),
		   trace_probe_name(&tk->tp), place);
	for (; arg < end; arg++)
		seq_printf(m, " %s=%s", arg->name, arg->comm);
	seq_putc(m, '\n');
	return 0;
}

/* ------------------------------------------------------------------ */
/* The in-kernel command API (trace_events.h)                         */

static int kprobe_run_cmd(struct dynevent_cmd *cmd)
{
	return kprobe_events_command(cmd->seq.buffer);
}

/**
 * kprobe_event_cmd_init - Initialize a kprobe event command object
 * @cmd: the command to build
 * @buf: where its text goes
 * @maxlen: the size of @buf
 *
 * Call before the other kprobe_event_*() functions on @cmd.
 */
void kprobe_event_cmd_init(struct dynevent_cmd *cmd, char *buf, int maxlen)
{
	dynevent_cmd_init(cmd, buf, maxlen, DYNEVENT_TYPE_KPROBE, kprobe_run_cmd);
}
EXPORT_SYMBOL_GPL(kprobe_event_cmd_init);

/* Append the fetch arguments in FIELDS, up to a NULL, to CMD. */
static int kprobe_cmd_add_fields(struct dynevent_cmd *cmd, va_list fields)
{
	struct dynevent_arg arg;
	const char *field;
	int ret;

	dynevent_arg_init(&arg, 0);
	while ((field = va_arg(fields, const char *))) {
		if (++cmd->n_fields > MAX_TRACE_ARGS)
			return -EINVAL;
		arg.str = field;
		ret = dynevent_arg_add(cmd, &arg, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * __kprobe_event_gen_cmd_start - Generate a kprobe event command from arg list
 * @cmd: the command, set up by kprobe_event_cmd_init()
 * @kretprobe: a return probe?
 * @name: the event's name, in group "kprobes"
 * @loc: the place, as kprobe_events takes it; required
 * @...: fetch arguments, ending with NULL
 *
 * Use the kprobe_event_gen_cmd_start() and kretprobe_event_gen_cmd_start()
 * wrappers, which add the NULL.  kprobe_event_add_fields() may add more
 * arguments before kprobe_event_gen_cmd_end() runs the command.
 *
 * Return: 0 if successful, error otherwise.
 */
int __kprobe_event_gen_cmd_start(struct dynevent_cmd *cmd, bool kretprobe,
				 const char *name, const char *loc, ...)
{
	char head[MAX_EVENT_NAME_LEN];
	struct dynevent_arg arg;
	va_list fields;
	int ret;

	if (cmd->type != DYNEVENT_TYPE_KPROBE || !loc)
		return -EINVAL;
	snprintf(head, sizeof(head), "%c:%s/%s", kretprobe ? 'r' : 'p',
		 KPROBE_EVENT_SYSTEM, name);
	ret = dynevent_str_add(cmd, head);
	if (ret)
		return ret;
	dynevent_arg_init(&arg, 0);
	arg.str = loc;
	ret = dynevent_arg_add(cmd, &arg, NULL);
	if (ret)
		return ret;
	va_start(fields, loc);
	ret = kprobe_cmd_add_fields(cmd, fields);
	va_end(fields);
	return ret;
}
EXPORT_SYMBOL_GPL(__kprobe_event_gen_cmd_start);

/**
 * __kprobe_event_add_fields - Add probe fields to a kprobe command from arg list
 * @cmd: the command, started by __kprobe_event_gen_cmd_start()
 * @...: fetch arguments, ending with NULL
 *
 * Use the kprobe_event_add_fields() wrapper, which adds the NULL.
 *
 * Return: 0 if successful, error otherwise.
 */
int __kprobe_event_add_fields(struct dynevent_cmd *cmd, ...)
{
	va_list fields;
	int ret;

	if (cmd->type != DYNEVENT_TYPE_KPROBE)
		return -EINVAL;
	va_start(fields, cmd);
	ret = kprobe_cmd_add_fields(cmd, fields);
	va_end(fields);
	return ret;
}
EXPORT_SYMBOL_GPL(__kprobe_event_add_fields);

/**
 * kprobe_event_delete - Delete a kprobe event
 * @name: the event's name
 *
 * Return: 0 if successful, error otherwise.
 */
int kprobe_event_delete(const char *name)
{
	char cmd[MAX_EVENT_NAME_LEN];

	snprintf(cmd, sizeof(cmd), "-:%s", name);
	return kprobe_events_command(cmd);
}
EXPORT_SYMBOL_GPL(kprobe_event_delete);

/* ------------------------------------------------------------------ */
/* tracefs: kprobe_events and kprobe_profile                          */

static int kprobe_events_seq_show(struct seq_file *m, void *v)
{
	struct dyn_event *ev = v;

	return kprobe_of_dyn(ev) ? kprobe_event_show(m, ev) : 0;
}

static const struct seq_operations kprobe_events_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= kprobe_events_seq_show,
};

static int kprobe_events_open(struct inode *inode, struct file *file)
{
	return trace_probe_list_open(file, &kprobe_events_seq_ops, &trace_kprobe_ops);
}

static ssize_t kprobe_events_write(struct file *file, const char __user *buffer,
				   size_t count, loff_t *ppos)
{
	return trace_parse_run_command(file, buffer, count, ppos, kprobe_events_command);
}

static const struct file_operations kprobe_events_fops = {
	.owner		= THIS_MODULE,
	.open		= kprobe_events_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
	.write		= kprobe_events_write,
};

static unsigned long kprobe_hits(struct trace_kprobe *tk)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(tk->nhit, cpu);
	return sum;
}

/* Hits the kprobes core could not hand over: a kretprobe's also count its lost returns. */
static unsigned long kprobe_misses(struct trace_kprobe *tk)
{
	return tk->rp.kp.nmissed + (kprobe_is_return(tk) ? tk->rp.nmissed : 0);
}

static int kprobe_profile_seq_show(struct seq_file *m, void *v)
{
	struct trace_kprobe *tk = kprobe_of_dyn(v);

	if (tk)
		seq_printf(m, "  %-44s %15lu %15lu\n", trace_probe_name(&tk->tp),
			   kprobe_hits(tk), kprobe_misses(tk));
	return 0;
}

static const struct seq_operations kprobe_profile_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= kprobe_profile_seq_show,
};

static int kprobe_profile_open(struct inode *inode, struct file *file)
{
	return trace_probe_list_open(file, &kprobe_profile_seq_ops, NULL);
}

static const struct file_operations kprobe_profile_fops = {
	.owner		= THIS_MODULE,
	.open		= kprobe_profile_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

/* ------------------------------------------------------------------ */
/* The perf "kprobe" PMU: an event of its own, outside dyn_event_list */

#ifdef CONFIG_PERF_EVENTS
struct trace_event_call *create_local_trace_kprobe(char *func, void *addr,
						   unsigned long offs, bool is_return)
{
	struct kprobe_place place = {
		.addr = addr, .offset = offs, .is_return = is_return,
	};
	struct trace_kprobe *tk;
	int ret;

	if (func) {
		ret = kprobe_check_symbol(func);
		if (ret)
			return ERR_PTR(ret);
		place.symbol = kstrdup(func, GFP_KERNEL);
		if (!place.symbol)
			return ERR_PTR(-ENOMEM);
	}
	/* never in dyn_event_list, so its name need not be unique */
	tk = kprobe_alloc(KPROBE_EVENT_SYSTEM, func ? func : "DUMMY_EVENT", &place, 0);
	if (IS_ERR(tk)) {
		kfree(place.symbol);
		return ERR_CAST(tk);
	}
	kprobe_init_call(tk);
	ret = traceprobe_set_print_fmt(&tk->tp, is_return ? PROBE_PRINT_RETURN :
				       PROBE_PRINT_NORMAL);
	if (!ret)
		ret = kprobe_register(tk);
	if (ret) {
		kprobe_free(tk);
		return ERR_PTR(ret);
	}
	return trace_probe_event_call(&tk->tp);
}

void destroy_local_trace_kprobe(struct trace_event_call *event_call)
{
	struct trace_kprobe *tk = kprobe_of_call(event_call);

	/* perf disables its event before it destroys it */
	if (!tk || WARN_ON(trace_probe_is_enabled(&tk->tp)))
		return;
	kprobe_unregister(tk);
	kprobe_free(tk);
}
#endif /* CONFIG_PERF_EVENTS */

/* ------------------------------------------------------------------ */
/* kprobe_event=: events defined and enabled at boot                  */

static char kprobe_boot_events[COMMAND_LINE_SIZE] __initdata;

static int __init kprobe_boot_events_setup(char *str)
{
	strscpy(kprobe_boot_events, str, sizeof(kprobe_boot_events));
	/* the startup self-tests would see these events */
	disable_tracing_selftest("running kprobe events");
	return 1;
}
__setup("kprobe_event=", kprobe_boot_events_setup);

/* TK's event file in the top trace instance, NULL if it has none.  Under event_mutex. */
static __init struct trace_event_file *kprobe_top_file(struct trace_kprobe *tk)
{
	struct trace_event_file *file;

	list_for_each_entry(file, &top_trace_array()->events, list)
		if (file->event_call == trace_probe_event_call(&tk->tp))
			return file;
	return NULL;
}

/* The events defined at boot record in the top instance from the start. */
static __init void kprobe_boot_events_enable(void)
{
	struct trace_event_file *file;
	struct trace_kprobe *tk;
	struct dyn_event *pos;

	mutex_lock(&event_mutex);
	for_each_dyn_event(pos) {
		tk = kprobe_of_dyn(pos);
		file = tk ? kprobe_top_file(tk) : NULL;
		if (file)
			trace_event_enable_disable(file, 1, 0);
	}
	mutex_unlock(&event_mutex);
}

/* "CMD;CMD;...", each with ',' for ' ' as a boot parameter has no spaces. */
static __init void kprobe_boot_events_run(void)
{
	char *next = kprobe_boot_events, *cmd;
	int ret;

	strreplace(kprobe_boot_events, ',', ' ');
	while ((cmd = strsep(&next, ";")) && *cmd) {
		ret = kprobe_events_command(cmd);
		if (ret)
			pr_warn("Failed to add event(%d): %s\n", ret, cmd);
	}
	kprobe_boot_events_enable();
}

/* Early, so that boot-time tracing (trace_boot.c) can define events before tracefs. */
static __init int kprobe_events_init_early(void)
{
	int ret = dyn_event_register(&trace_kprobe_ops);

	if (ret)
		return ret;
#ifdef CONFIG_MODULES
	if (register_module_notifier(&kprobe_module_nb))
		return -EINVAL;
#endif
	return 0;
}
core_initcall(kprobe_events_init_early);

static __init int kprobe_events_init(void)
{
	/* without tracefs the events still serve perf */
	if (tracing_init_dentry())
		return 0;
	trace_create_file("kprobe_events", TRACE_MODE_WRITE, NULL, NULL, &kprobe_events_fops);
	trace_create_file("kprobe_profile", TRACE_MODE_READ, NULL, NULL, &kprobe_profile_fops);
	return 0;
}
fs_initcall(kprobe_events_init);

/*
 * The events of kprobe_event=, once tracefs has its events folder:
 * trace.c makes it from a work item that on SMP may still be running at
 * fs_initcall, and an event added meanwhile got no folder of its own.
 * trace_eval_sync() waits for that work at late_initcall_sync, before
 * this file's calls of that level.
 */
static __init int kprobe_boot_events_init(void)
{
	if (!tracing_init_dentry())
		kprobe_boot_events_run();
	return 0;
}
late_initcall_sync(kprobe_boot_events_init);

/* ------------------------------------------------------------------ */
/* The startup self-test (CONFIG_FTRACE_STARTUP_TEST)                 */

#ifdef CONFIG_FTRACE_STARTUP_TEST
/* Define CMD, enable its event NAME in the top instance; the probe, or NULL. */
static __init struct trace_kprobe *kprobe_selftest_add(const char *cmd, const char *name)
{
	struct trace_event_file *file;
	struct trace_kprobe *tk;

	if (WARN_ON_ONCE(kprobe_events_command(cmd))) {
		pr_warn("error on defining %s\n", name);
		return NULL;
	}
	mutex_lock(&event_mutex);
	tk = kprobe_find(name, KPROBE_EVENT_SYSTEM);
	file = tk ? kprobe_top_file(tk) : NULL;
	if (!WARN_ON_ONCE(!file))
		trace_event_enable_disable(file, 1, 0);
	mutex_unlock(&event_mutex);
	if (!file)
		pr_warn("error on enabling %s\n", name);
	return file ? tk : NULL;
}

/* The probe of NAME was hit once; disable it.  Whether all went well. */
static __init bool kprobe_selftest_check(const char *name)
{
	struct trace_event_file *file;
	struct trace_kprobe *tk;
	bool ok;

	mutex_lock(&event_mutex);
	tk = kprobe_find(name, KPROBE_EVENT_SYSTEM);
	file = tk ? kprobe_top_file(tk) : NULL;
	ok = file && kprobe_hits(tk) == 1;
	if (file)
		trace_event_enable_disable(file, 0, 0);
	mutex_unlock(&event_mutex);
	if (!ok)
		pr_warn("%s was not hit once\n", name);
	return ok;
}

/*
 * An entry probe with stack arguments and a return probe with the
 * return value on kprobe_trace_selftest_target(): one call hits each
 * once.  Then both go, with whatever else the test left.
 */
static __init int kprobe_trace_self_tests_init(void)
{
	static const char entry_cmd[] __initconst =
		"p:testprobe kprobe_trace_selftest_target $stack $stack0 +0($stack)";
	static const char return_cmd[] __initconst =
		"r:testprobe2 kprobe_trace_selftest_target $retval";
	int (*target)(int, int, int, int, int, int) = kprobe_trace_selftest_target;
	bool ok;

	if (tracing_is_disabled())
		return -ENODEV;
	if (tracing_selftest_disabled)
		return 0;
	ok = kprobe_selftest_add(entry_cmd, "testprobe") &&
	     kprobe_selftest_add(return_cmd, "testprobe2");
	if (ok) {
		/* 1 + ... + 6; the check keeps the call from being optimized away */
		ok = target(1, 2, 3, 4, 5, 6) == 21;
		ok = kprobe_selftest_check("testprobe") && ok;
		ok = kprobe_selftest_check("testprobe2") && ok;
		ok = !WARN_ON_ONCE(kprobe_events_command("-:testprobe")) && ok;
		ok = !WARN_ON_ONCE(kprobe_events_command("-:testprobe2")) && ok;
	}
	if (WARN_ON_ONCE(dyn_events_release_all(&trace_kprobe_ops))) {
		pr_warn("error on cleaning up probes.\n");
		ok = false;
	}
	/* the optimizer must be done with the probes before __init text goes */
	wait_for_kprobe_optimizer();
	pr_info("Testing kprobe tracing: %s\n",
		ok ? "OK" : "NG: Some tests are failed. Please check them.");
	return 0;
}
late_initcall(kprobe_trace_self_tests_init);
#endif /* CONFIG_FTRACE_STARTUP_TEST */

/* The fetch's white-box suite: it calls the static functions above. */
#if IS_ENABLED(CONFIG_KFORK_KUNIT_TESTS)
#include "trace_kprobe_fetch_kunit.c"
#endif
