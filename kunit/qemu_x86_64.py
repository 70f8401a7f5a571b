# QEMU settings for tools/kunit: kunit.py's x86_64 machine under TCG
# (QEMU hangs with KVM on these hosts). The suites need no firmware
# tables: acpi=off saves two seconds of boot. kmemleak is set by
# tools/kunit on each run (kmemleak=off unless --kmemleak): kunit.py
# puts its --kernel_args before this line, and the last setting wins.
# kunit.py's own 1 GiB leaves room for KASAN's shadow. Two vCPUs (or
# $KFORK_VCPUS, for a measurement), each on a host thread of its own
# (multi-threaded TCG), as tools/vm boots: kunit/smp.config says why; a
# tools test keeps the two in step.
import os

from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 acpi=off',
			   extra_qemu_params=['-bios', 'qboot.rom',
					     '-smp', os.environ.get('KFORK_VCPUS', '2'),
					     '-accel', 'tcg,thread=multi'])
