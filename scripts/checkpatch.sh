#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make checkpatch: scripts/checkpatch.pl --strict on every patch of the
# series, as the netdev CI runs it. Fails when any patch has a problem.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The Debian tree is a tarball without upstream history, so no commit id
# of a Fixes: tag can be looked up in it: UNKNOWN_COMMIT_ID is the one
# check left out (each Fixes: id was checked by hand against upstream).
rc=0
for p in $(series_files); do
	if ! (cd "$TREE" && scripts/checkpatch.pl --strict -q \
		--max-line-length=80 --ignore UNKNOWN_COMMIT_ID "$p"); then
		echo "checkpatch: ${p#"$REPO"/} has problems"
		rc=1
	fi
done
[ $rc -eq 0 ] && say "checkpatch --strict: $(series_files | wc -l) patches clean"
exit $rc
