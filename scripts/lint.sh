#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make lint, and make check's first stage: shellcheck on the shell scripts
# of scripts/, guest/, .ci/ and the net/batching selftests (from the
# tree, where the series put them), pyflakes on the Python ones.
# Warnings and errors fail (not the info and style levels: unquoted
# expansions, SC2086, are not flagged); three checks are off, each for a
# reason:
#   SC1007  "x= y=": the scripts declare empty locals so on purpose;
#   SC2034  variables set for the script that sources the file (lib.sh's
#           settings, the R_* figures a test reads);
#   SC2154  variables set by a sourced file (the R_* figures again),
#           which shellcheck does not follow through "source $dir/...".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SELFTESTS=$TREE/tools/testing/selftests/net/batching
[ -f "$SELFTESTS/lib.sh" ] ||
	die "no net/batching selftests in $TREE: run 'make tree' first"
command -v shellcheck >/dev/null && command -v pyflakes3 >/dev/null ||
	die "shellcheck and pyflakes3 are needed: make deps"

# Each checker must still find a planted problem with these options
say "lint: $(shellcheck --version | sed -n 's/^version: /shellcheck /p')," \
	"$(pyflakes3 --version 2>&1 | head -n 1 | sed 's/^/pyflakes /')"
rc=0
if printf '#!/bin/bash\nx=$(ls | grep a)\n' |
	shellcheck -S warning -e SC1007,SC2034,SC2154 - >/dev/null; then
	say "lint: shellcheck passed a script with a known warning"
	rc=1
fi
if printf 'import os\n' | pyflakes3 >/dev/null 2>&1; then
	say "lint: pyflakes3 passed an unused import"
	rc=1
fi
shells=("$REPO"/scripts/*.sh "$REPO"/guest/*.sh "$REPO"/.ci/run
	"$SELFTESTS"/*.sh)
pythons=("$REPO"/scripts/*.py "$REPO"/guest/*.py "$SELFTESTS"/*.py)
shellcheck -S warning -e SC1007,SC2034,SC2154 "${shells[@]}" || rc=1
pyflakes3 "${pythons[@]}" || rc=1
if [ $rc -eq 0 ]; then
	say "lint: ${#shells[@]} shell scripts and ${#pythons[@]} Python files clean"
else
	say "lint: shellcheck or pyflakes3 found problems (above)"
fi
exit $rc
