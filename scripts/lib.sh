# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared settings and helpers for the host-side scripts. Sourced, not run.
# Every path and default lives here once; the Makefile passes overrides in
# the environment (CACHE_DIR, TREE, BUILD, RESULTS, ACCEL, JOBS, KERNEL).

# Debian's tools first: the python3 modules checkpatch.pl and kunit.py use
# come from Debian's packages, not from whatever python3 is first in PATH.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/xmit-batching}
TARBALL=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
TREE=${TREE:-$CACHE_DIR/linux-source-6.1}
# Three kernels from the same tree and kunitconfig: "test" (KUnit and the
# selftests, with the debugging options), "kasan" (the same plus KASAN,
# less what only the guests use, for a second KUnit run:
# qemu-configs/kasan.config) and "release" (make
# demo, make bench: qemu-configs/release.config turns the debugging off).
# A fourth, "fault", is the test kernel with a deliberate bug from
# selftests/faults/ (make fault-check: the tests must catch it).
# "sanitize" is the test kernel plus KASAN, for the selftest guests
# (make sanitize: qemu-configs/sanitize.config), and "sanitize-fault"
# that with the deliberate bugs (a use-after-free KASAN must report).
# KUNIT_RESULTS names the results of a KUnit run on that kernel.
# Each has its build directory, overridable: BUILD (test), BUILD_KASAN,
# BUILD_RELEASE, BUILD_FAULT, BUILD_SANITIZE, BUILD_SANITIZE_FAULT.
# KCONFIG_FRAGMENT is what the kernel adds to the kunitconfig;
# GUEST_KERNEL_ARGS what its selftest guests add to their command line.
KERNEL=${KERNEL:-test}
KCONFIG_FRAGMENT=
GUEST_KERNEL_ARGS=
case "$KERNEL" in
test)	BUILD=${BUILD:-$CACHE_DIR/build} ;;
kasan)	BUILD=${BUILD_KASAN:-$CACHE_DIR/build-kasan}
	KCONFIG_FRAGMENT=$REPO/qemu-configs/kasan.config ;;
release) BUILD=${BUILD_RELEASE:-$CACHE_DIR/build-release}
	KCONFIG_FRAGMENT=$REPO/qemu-configs/release.config ;;
fault)	BUILD=${BUILD_FAULT:-$CACHE_DIR/build-fault} ;;
sanitize) BUILD=${BUILD_SANITIZE:-$CACHE_DIR/build-sanitize} ;;
sanitize-fault)
	BUILD=${BUILD_SANITIZE_FAULT:-$CACHE_DIR/build-sanitize-fault} ;;
*)	echo "error: KERNEL=$KERNEL: test, kasan, release, fault, sanitize" \
		"or sanitize-fault" >&2; exit 1 ;;
esac
case "$KERNEL" in
sanitize*)
	KCONFIG_FRAGMENT=$REPO/qemu-configs/sanitize.config
	# SeaBIOS's PCI interrupt routing instead of ACPI's _PRT, which
	# stalls a KASAN guest's boot (qemu-configs/sanitize.config)
	GUEST_KERNEL_ARGS=pci=noacpi ;;
esac
KUNIT_RESULTS=kunit
[ "$KERNEL" = test ] || KUNIT_RESULTS=kunit-$KERNEL
RESULTS=${RESULTS:-$REPO/results}
JOBS=${JOBS:-$(nproc)}
# ccache's depend mode takes the dependencies from gcc's -MMD output
# instead of running the preprocessor once more for each object it
# does not have: a miss costs some 1% over plain gcc instead of some
# 20% (Dec 7: net/core/dev.o 3.63 s against 4.36 s, 3.56 s without
# ccache), and a cold make check builds three kernels.
# Every kernel build (kunit.py's and bench.sh's make) goes through ccache.
export CCACHE_DEPEND=1
BZIMAGE=$BUILD/arch/x86/boot/bzImage

# The three homes of the series, in no particular order: patches are
# applied sorted by their global number (NNNN-), whatever their directory.
SERIES_DIRS="patches kunit selftests"

# The project's identity: patches are authored by the project.
PROJECT_NAME="xmit-batching project"
PROJECT_EMAIL="xmit-batching@localhost"
git_tree() {
	git -C "$TREE" -c user.name="$PROJECT_NAME" -c user.email="$PROJECT_EMAIL" "$@"
}

# kunit_py CMD ARGS...: kunit.py in $TREE, building in $BUILD (a caller
# may set both for one call), with the kunitconfig and, for the kasan and
# release kernels, the lines of their fragment as kunit.py's own
# --kconfig_add options, which override the kunitconfig's values
# ("# CONFIG_X is not set" included; kunit.py refuses two --kunitconfig
# files that disagree).
kunit_py() {
	local cmd=$1 line
	shift
	set -- --kunitconfig="$REPO/kunitconfig" "$@"
	if [ -n "$KCONFIG_FRAGMENT" ]; then
		while read -r line; do
			set -- --kconfig_add="$line" "$@"
		done < <(grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set$)' \
			"$KCONFIG_FRAGMENT")
	fi
	(cd "$TREE" && python3 tools/testing/kunit/kunit.py "$cmd" \
		--arch=x86_64 \
		--qemu_config="$REPO/qemu-configs/x86_64.py" \
		--build_dir="$BUILD" --make_options "CC=ccache gcc" "$@")
}

say()  { printf '==> %s\n' "$*"; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# series_files: every patch of the series, in application order.
series_files() {
	local d f
	for d in $SERIES_DIRS; do
		for f in "$REPO/$d"/[0-9][0-9][0-9][0-9]-*.patch; do
			if [ -f "$f" ]; then echo "$f"; fi
		done
	done | awk -F/ '{ print $NF "\t" $0 }' | sort | cut -f2-
}

# series_hash: identifies the series content; stored with the applied tree.
series_hash() {
	series_files | xargs -r cat | sha256sum | cut -d' ' -f1
}

tree_version() {
	local v
	v=$(make -s -C "$TREE" kernelversion 2>/dev/null)
	echo "${v:-unknown} ($(dpkg-query -W -f='${Package} ${Version}' linux-source-6.1 2>/dev/null || echo "$TARBALL"))"
}
