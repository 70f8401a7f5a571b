// SPDX-License-Identifier: GPL-2.0
/*
 * The program the guest uprobe test probes (kfork.guest_uprobe). Every
 * value comes from a -D option the test passes to gcc, so the test knows
 * what each probe must record without running anything. Built -O0 with
 * frame pointers, as an executable (non-PIE, PIE or static) or, with
 * -Dmain=kf_main, as a shared library a stub calls: the test reads
 * addresses, file offsets, the call sites, the local's frame slot and
 * the USDT note from the ELF it gets.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

/* A USDT probe with a semaphore: tracers count it up while they listen. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short kfork_tick_semaphore __attribute__((section(".probes")));

/* Low bits first, as GCC lays out bitfields on little-endian x86-64. */
struct kf_bits {
	unsigned int low : 4;
	unsigned int mid : 7;
	unsigned int high : 21;
};

struct kf_rec {
	long id;
	const char *name;
	struct kf_bits bits;
	short neg16;
	signed char neg8;
	unsigned char byte;
};

/* The offsets the probes use; the test states the same layout. */
_Static_assert(offsetof(struct kf_rec, id) == 0, "layout");
_Static_assert(offsetof(struct kf_rec, name) == 8, "layout");
_Static_assert(offsetof(struct kf_rec, bits) == 16, "layout");
_Static_assert(offsetof(struct kf_rec, neg16) == 20, "layout");
_Static_assert(offsetof(struct kf_rec, neg8) == 22, "layout");
_Static_assert(offsetof(struct kf_rec, byte) == 23, "layout");

int kf_int = KF_INT;
char kf_str[] = KF_STR;
struct kf_bits kf_flags = { KF_FLAG_LOW, KF_FLAG_MID, KF_FLAG_HIGH };
/* In .rodata, which lies at the text's load bias: see the @+ probe. */
const unsigned long long kf_ro = KF_RO;

/* Takes the local's address, so kf_work must keep it in its frame. */
__attribute__((noinline)) int kf_sink(volatile int *p)
{
	return *p;
}

/* Eight integer arguments: the last two are passed on the stack. */
__attribute__((noinline)) long kf_work(long a, long b, const char *s,
				       struct kf_rec *rec, struct kf_bits *bits,
				       long f, long g, long h)
{
	volatile int kf_local = (int)(a * KF_LOCAL_MUL);

	kf_sink(&kf_local);
	return a - b + (s[0] != 0) + (bits == &rec->bits) + f + g + h;
}

/*
 * Gets pointers into a file mapping the program never reads: the probe
 * reads the strings, so its first reads find the pages not yet mapped.
 */
__attribute__((noinline)) void kf_cold(const char *cold, const char *edge)
{
	__asm__ volatile("" : : "r"(cold), "r"(edge) : "memory");
}

/*
 * With a second argument the program stops at each step: it prints the
 * step and its semaphore, then waits for a byte on stdin, so the test
 * can look at its mappings and define, enable or disable probes.
 */
static int kf_step(int argc, const char *step)
{
	char go;

	if (argc != 3)
		return 0;
	printf("%s %u\n", step, *(volatile unsigned short *)&kfork_tick_semaphore);
	fflush(stdout);
	return read(0, &go, 1) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct kf_rec rec = {
		KF_ID, KF_NAME, { KF_REC_LOW, KF_REC_MID, KF_REC_HIGH },
		KF_NEG16, KF_NEG8, KF_BYTE,
	};
	long sum = 0;
	const char *cold;
	int i, fd;

	if (argc != 2 && argc != 3)
		return 2;
	fd = open(argv[1], O_RDONLY);
	cold = mmap(NULL, 2 * KF_PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	if (fd < 0 || cold == MAP_FAILED)
		return 3;
	if (kf_step(argc, "ready"))
		return 4;
	for (i = 0; i < KF_CALLS; i++) {
		sum += kf_work(KF_A + i, KF_B, kf_str, &rec, &rec.bits,
			       KF_F, KF_G, KF_H);
		kf_cold(cold, cold + KF_PAGE - KF_EDGE_BEFORE);
		STAP_PROBE1(kfork, tick, KF_TICK + i);
	}
	if (kf_step(argc, "done"))
		return 4;
	if (kf_step(argc, "after"))
		return 4;
	return sum == KF_SUM ? 0 : 1;
}

/* An instruction uprobes refuse to step (hlt), never executed. */
__asm__(".text\n"
	".globl kf_unprobeable\n"
	".type kf_unprobeable, @function\n"
	"kf_unprobeable:\n"
	"\thlt\n"
	".size kf_unprobeable, 1\n");
