/*
 * The example of the uprobe fetch methods' cover letter (seed 001),
 * probed by the clients suite (tools/lib/kfork/guest_clients.py), which
 * takes every expected value from here: keep the two in step.
 */
int glob = -1;
char str[] = "hello uprobe.";

struct foo {
	unsigned int unused: 2;
	unsigned int foo: 20;
	unsigned int bar: 10;
} foo = {
	.foo = 5,
};

int main(int argc, char *argv[])
{
	long local = 0x1234;

	return 127;
}
