// SPDX-License-Identifier: GPL-2.0
/*
 * The guest uprobe test's 32-bit program (gcc -m32, kfork.guest_uprobe's
 * compat case): main calls kf_m32 KF_CALLS times, by the i386 cdecl
 * convention, every argument in a 4-byte stack slot from the one above
 * the return address, the long long in two (low word first). The
 * values come from -D options, as in target.c.
 */
#include <stdio.h>

static const char kf_text[] = KF_M32_STR;

__attribute__((noinline)) int kf_m32(int a, unsigned short b, const char *s, long long c)
{
	return a + b + s[0] + (int)c;
}

int main(void)
{
	int i, sum = 0;

	for (i = 0; i < KF_CALLS; i++)
		sum += kf_m32(KF_M32_A + i, KF_M32_B, kf_text, KF_M32_C);
	printf("%d\n", sum);
	return 0;
}
