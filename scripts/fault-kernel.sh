#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fault-kernel.sh BASE_BUILD: build the kernel KERNEL names, "fault" or
# "sanitize-fault" (scripts/lib.sh): the kernel of BASE_BUILD, the test
# kernel's or the sanitize kernel's build directory, plus
# selftests/faults/e1000-batch-faults.patch (never part of the series),
# in a directory of its own (make fault-check, make sanitize).
set -euo pipefail
base_build=${1:?usage: $0 BASE_BUILD}
. "$(dirname "$0")/lib.sh"

case "$KERNEL" in
fault) given=${BUILD_FAULT:-} ;;
sanitize-fault) given=${BUILD_SANITIZE_FAULT:-} ;;
*) die "KERNEL=$KERNEL: fault-kernel.sh builds fault or sanitize-fault" ;;
esac
FAULT_PATCH=$REPO/selftests/faults/e1000-batch-faults.patch

# The fault kernel starts as a copy of its base's build, so that only
# the faulted file compiles and vmlinux links again (about 45 s for the
# test kernel's, against some 220 s for a new directory with ccache warm,
# Dec 7). The objtool build (tools/) records its commands under absolute
# paths: in the copy they must name the copy, or objtool builds again and
# every object after it. A build directory given by its variable
# (BUILD_FAULT, BUILD_SANITIZE_FAULT) is built where it is.
mkdir -p "$BUILD"
# kbuild records them with symbolic links resolved
if [ -f "$base_build/.config" ]; then
	base_build=$(realpath -e "$base_build")
	BUILD=$(realpath -e "$BUILD")
fi
case "$BUILD/" in "$base_build/"*)
	die "the fault kernel's build directory is in its base's ($BUILD)"
esac
case "$base_build/" in "$BUILD/"*)
	die "the base kernel's build directory is in the fault kernel's ($BUILD)"
esac
if [ -z "$given" ] && [ -f "$base_build/.config" ]; then
	rsync -a --delete "$base_build/" "$BUILD/"
	# a literal replacement, whatever the paths hold
	[ -d "$BUILD/tools" ] || die "no tools/ in $base_build"
	find "$BUILD/tools" \( -name '.*.cmd' -o -name '.*.d' \) -exec \
		env FROM="$base_build/" TO="$BUILD/" \
		perl -pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/g' {} + ||
		die "cannot rewrite objtool's commands in $BUILD/tools"
	st=0
	grep -rqF --include='.*.cmd' --include='.*.d' "$base_build/" \
		"$BUILD/tools" || st=$?
	[ $st -eq 1 ] ||
		die "objtool's commands in $BUILD/tools still name $base_build (grep: $st)"
fi
# The fault is in the shared tree only while its kernel builds, and the
# file gets its old mtime back: the base kernel need not link again.
src=$TREE/drivers/net/ethernet/intel/e1000/e1000_main.c
mtime=$(stat -c %Y "$src")
unfault() {
	git -C "$TREE" apply -R "$FAULT_PATCH" && touch -d "@$mtime" "$src"
}
git -C "$TREE" apply "$FAULT_PATCH"
trap unfault EXIT
"$REPO/scripts/kernel.sh" build
unfault
trap - EXIT
