#!/usr/bin/env bash
# run_kit.sh STAGE SRCDIR EXPECT: tdshare-check-hw on the emulated device,
# its report judged by check_report.py. EXPECT=fail runs it against a
# stand-in run_tests.py whose tests fail: the kit must exit 1 and say so.
. "$(dirname "$0")/../lib.sh"
stage=$1 src=$2 expect=$3
export PATH="$stage/bin:$PATH"
export PYTHONPATH="$stage/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}"
scratch_dir out
# 4 threads: at 2, level-3 TDs still get a uUAR each (no sharing to show)
args=(--emulated -n 2000 --max-threads=4 -o "$out/report")
if [ "$expect" = fail ]; then
	mkdir "$out/tests"
	cp "$src/fake_run_tests.py" "$out/tests/run_tests.py"
	args+=(--tests-dir="$out/tests")
fi
rc=0
"$stage/bin/tdshare-check-hw" "${args[@]}" || rc=$?
if [ "$expect" = pass ] && [ $rc -ne 0 ]; then
	cat "$out/report/report.md" 2>/dev/null || true
	die "tdshare-check-hw exited $rc"
fi
[ "$expect" = pass ] || [ $rc -eq 1 ] ||
	die "tdshare-check-hw exited $rc for failing tests, not 1"
"$src/check_report.py" "$out/report" "$expect"
echo "report judged: $expect"
