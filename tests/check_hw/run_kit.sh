#!/usr/bin/env bash
# run_kit.sh STAGE SRCDIR EXPECT: tdshare-check-hw on the emulated device,
# its report judged by check_report.py. EXPECT=fail runs it against a
# stand-in run_tests.py whose tests fail: the kit must exit 1 and say so.
set -euo pipefail
stage=$1 src=$2 expect=$3
export PATH="$stage/bin:$PATH"
export PYTHONPATH="$stage/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=(--emulated -n 2000 --max-threads=2 -o "$out/report")
if [ "$expect" = fail ]; then
	mkdir "$out/tests"
	cp "$src/fake_run_tests.py" "$out/tests/run_tests.py"
	args+=(--tests-dir="$out/tests")
fi
rc=0
"$stage/bin/tdshare-check-hw" "${args[@]}" || rc=$?
if [ "$expect" = pass ] && [ $rc -ne 0 ]; then
	cat "$out/report/report.md" 2>/dev/null || true
	echo "tdshare-check-hw exited $rc" >&2
	exit 1
fi
if [ "$expect" = fail ] && [ $rc -ne 1 ]; then
	echo "tdshare-check-hw exited $rc for failing tests, not 1" >&2
	exit 1
fi
"$src/check_report.py" "$out/report" "$expect"
echo "report judged: $expect"
