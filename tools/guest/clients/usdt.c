/*
 * A USDT probe with a semaphore, for the clients suite: each of TICKS
 * passes fires kfclients:tick with 100 + the pass, after counting the
 * passes that found the semaphore raised (a tracer raises it while it
 * listens). The suite takes every expected value from here.
 */
#include <stdio.h>

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#define TICKS 5
#define TICK_BASE 100

unsigned short kfclients_tick_semaphore __attribute__((section(".probes")));

int main(void)
{
	int i, raised = 0;

	for (i = 0; i < TICKS; i++) {
		if (*(volatile unsigned short *)&kfclients_tick_semaphore)
			raised++;
		STAP_PROBE1(kfclients, tick, TICK_BASE + i);
	}
	printf("raised %d of %d\n", raised, TICKS);
	return 0;
}
