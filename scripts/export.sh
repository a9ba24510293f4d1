#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the commits of the tree (pristine..HEAD) back into the repository,
# one patch file per commit, numbered by position in the series. The home of
# a patch follows its subject, as netdev names them:
#   "selftests: ..."        -> selftests/
#   subject mentions KUnit  -> kunit/
#   anything else           -> patches/
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -e "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
git -C "$TREE" diff --quiet HEAD || die "uncommitted changes in $TREE: commit them first"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
git -C "$TREE" format-patch -q --zero-commit --no-signature --keep-subject \
	-o "$out" pristine..HEAD

for d in $SERIES_DIRS; do
	rm -f "$REPO/$d"/[0-9][0-9][0-9][0-9]-*.patch
done
n=0
for p in "$out"/*.patch; do
	[ -f "$p" ] || continue
	subject=$(sed -n 's/^Subject: //p' "$p" | head -n 1)
	case "$subject" in
	selftests:*)		d=selftests ;;
	*KUnit*|*kunit*)	d=kunit ;;
	*)			d=patches ;;
	esac
	cp "$p" "$REPO/$d/$(basename "$p")"
	n=$((n + 1))
done
# The tree now matches the exported series: no need to re-apply it.
git -C "$TREE" config batching.series "$(series_hash)"
say "exported $n patches"
