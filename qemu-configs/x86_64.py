# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for this project: stock x86_64 settings plus the
# serial console. The accelerator is not set here: scripts/kernel.sh adds
# "--qemu_args=-accel tcg" (or kvm when a boot probe succeeded), so the
# command line kunit.py prints says which one ran.
#
# With KUNIT_USERSPACE=1 (scripts/kernel.sh, for the kmemleak scan after
# the suites) the command line ends in "--": kunit.py appends
# kunit_shutdown=reboot after it, which then reaches init as an argument
# instead of powering the guest off before init runs.
import os

from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0' +
			   (' --' if os.environ.get('KUNIT_USERSPACE') == '1'
			    else ''),
			   extra_qemu_params=['-bios', 'qboot.rom'])
