#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the kernel tree: extract the Debian tarball once into a git repo
# with a "pristine" tag, then (re)apply the series with git am whenever it
# changed. Files whose content ends up the same keep their old mtime so that
# kbuild rebuilds only what the series really changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

extract() {
	[ -r "$TARBALL" ] || die "$TARBALL missing: run 'make deps' (package linux-source-6.1)"
	say "extracting $TARBALL into $TREE"
	mkdir -p "$CACHE_DIR"
	rm -rf "$TREE.tmp"
	mkdir "$TREE.tmp"
	tar -C "$TREE.tmp" -xf "$TARBALL" --strip-components=1
	# Debian's top-level .gitignore ignores everything but debian/: -f.
	git -C "$TREE.tmp" init -q
	git -C "$TREE.tmp" add -f -A
	git -C "$TREE.tmp" -c user.name="$PROJECT_NAME" -c user.email="$PROJECT_EMAIL" \
		commit -q -m "pristine $(basename "$TARBALL")"
	git -C "$TREE.tmp" tag pristine
	mv "$TREE.tmp" "$TREE"
}

apply_series() {
	local want have old f p tmp
	want=$(series_hash)
	have=$(git_tree config --get batching.series || true)
	if [ "$want" = "$have" ] && git_tree diff --quiet HEAD; then
		say "series already applied to $TREE"
		return
	fi
	say "applying $(series_files | wc -l) patches to $TREE"
	old=$(git_tree rev-parse HEAD)
	tmp=$(mktemp)
	# Remember content and mtime of every file the old series touched.
	git_tree diff --name-only pristine "$old" | while read -r f; do
		if [ -f "$TREE/$f" ]; then
			printf '%s\t%s\t%s\n' "$(git_tree rev-parse "$old:$f")" \
				"$(stat -c %Y "$TREE/$f")" "$f"
		fi
	done > "$tmp"
	git_tree am --abort >/dev/null 2>&1 || true
	git_tree config --unset batching.series || true
	git_tree checkout -q -f --detach pristine
	for p in $(series_files); do
		if ! git_tree am -q --keep-cr "$p" >/dev/null 2>&1; then
			git_tree am --abort >/dev/null 2>&1 || true
			rm -f "$tmp"
			die "patch ${p#"$REPO"/} does not apply to $(tree_version) in $TREE"
		fi
	done
	# Unchanged content: restore the old mtime.
	while IFS=$'\t' read -r blob mtime f; do
		[ -f "$TREE/$f" ] || continue
		if [ "$(git_tree rev-parse "HEAD:$f" 2>/dev/null)" = "$blob" ]; then
			touch -d "@$mtime" "$TREE/$f"
		fi
	done < "$tmp"
	rm -f "$tmp"
	git_tree config batching.series "$want"
	say "tree at $(git_tree log -1 --format='%h %s')"
}

[ -d "$TREE/.git" ] || extract
apply_series
