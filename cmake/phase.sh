#!/usr/bin/env bash
# phase.sh NAME COMMAND...: run one phase of the build and say how long it took.
name=$1
shift
start=$EPOCHREALTIME
"$@"
rc=$?
awk -v n="$name" -v s="$start" -v e="$EPOCHREALTIME" -v rc=$rc 'BEGIN {
	printf "== %s: %.1f s%s\n", n, e - s, rc ? " (failed, exit " rc ")" : "" }' >&2
exit $rc
