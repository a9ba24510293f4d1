#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series: the applied tree's commits as a mailable series, with the
# cover letter from patches/cover-letter.txt, in $RESULTS/series/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$RESULTS/series
cover=$REPO/patches/cover-letter.txt
[ -f "$cover" ] || die "missing $cover"
rm -rf "$out"
git_tree format-patch -q --cover-letter --zero-commit --no-signature \
	--subject-prefix="PATCH net-next" -o "$out" pristine..HEAD
# Fill in the cover letter: first line of cover-letter.txt is the subject.
python3 - "$out"/0000-cover-letter.patch "$cover" <<'PY'
import sys
path, cover = sys.argv[1], sys.argv[2]
subject, _, body = open(cover).read().partition('\n')
text = open(path).read()
text = text.replace('*** SUBJECT HERE ***', subject.strip())
text = text.replace('*** BLURB HERE ***', body.strip())
open(path, 'w').write(text)
PY
n=0
for f in "$out"/*.patch; do
	[[ ${f##*/} == 0000-* ]] || n=$((n + 1))
done
say "series of $n patches in $out"
say "check it with: git am on a pristine tree, or 'make checkpatch'"
