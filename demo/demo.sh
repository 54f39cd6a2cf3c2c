#!/usr/bin/env bash
# make demo: run every section in demo/sections/ in order. Each section is a
# bash snippet that shows one capability of the fork against build/stage.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$top/build}" && pwd)
STAGE=$BUILD/stage
export BUILD STAGE
. "$BUILD/env.sh"

for section in "$top"/demo/sections/*.sh; do
	title=$(sed -n 's/^# demo: //p' "$section" | head -n1)
	printf '\n=== %s\n' "${title:-$(basename "$section" .sh)}"
	bash -euo pipefail "$section"
done
