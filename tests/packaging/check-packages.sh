#!/usr/bin/env bash
# check-packages.sh OUT: the .debs of `make deb` (OUT/<suite>/) on each
# suite they were built for (CHECK_SUITES, default "bookworm trixie").
#
# In a fresh root of the suite (cmake/suite-root.sh), with the suite's own
# ibverbs-utils, perftest, ucx-utils, rdmacm-utils and Open MPI installed:
#   1. our .debs go over the suite's with apt (the versions replaced are
#      shown); every library file has exactly one owner (dpkg -S), each
#      SONAME link resolves to our library, and apt-get check is clean;
#   2. ibv_devinfo, the suite's ib_write_bw (server and client), rping,
#      ucx_perftest (tag_bw over rc_mlx5/ud_mlx5) and an Open MPI job over
#      UCX with MPI_THREAD_MULTIPLE (mpi_threads.c) run on the emulated
#      device (mlx5emu) against the installed libraries, and so do our
#      benchmark and pyverbs;
#   3. apt pins (pin-test.sh): a repository with a higher libibverbs1 does
#      not replace ours in apt upgrade, unless asked;
#   4. the way back, the one command the README gives
#      (apt install --allow-downgrades --purge --autoremove $(tdshare-way-back)),
#      restores the suite's packages, with nothing of ours left.
# Also checks the private ABI of the packages and, unless
# CHECK_PACKAGES_LINTIAN=0, runs the lintian comparison (lintian-compare.sh),
# both against the suite's own rdma-core packages.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
out=$(realpath "${1:?usage: check-packages.sh OUT}")
top=$(cd "$here/../.." && pwd)
. "$top/cmake/apt-sources.sh"
. "$top/cmake/suite-root.sh"
suites=${CHECK_SUITES:-bookworm trixie}
fabric=check-packages-$$
clients="ibverbs-utils perftest ucx-utils rdmacm-utils openmpi-bin"

section() {
	printf '\n=== %s: %s\n' "$suite" "$*"
}
# elapsed START WHAT: how long WHAT took since START ($EPOCHREALTIME)
elapsed() {
	awk -v s="$1" -v e="$EPOCHREALTIME" -v w="$suite: $2" \
		'BEGIN { printf "%s: %.0f s\n", w, e - s }' | tee -a "$out/check-packages.times"
}

[ "$(id -u)" -eq 0 ] || die "check-packages needs root (debootstrap, chroot)"
root=
at_exit '[ -z "$root" ] || root_close "$root"'
: >"$out/check-packages.times"

installed_versions() {
	in_root "$root" dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' |
		awk '$1 == "ii" { print $2, $3 }' | sort
}

# one owner per library file; every SONAME link of ours resolves to ours
check_owners() {
	local files f owners real owner bad=0
	files=$(for p in $ours; do in_root "$root" dpkg -L "$p"; done | grep -E '\.so(\.[0-9.]+)?$' | sort -u)
	# and whatever else of that name is on disk (an old library left behind)
	files=$( (echo "$files"; for f in $files; do
		in_root "$root" sh -c "ls -d ${f%%.so*}.so* 2>/dev/null" || true
	done) | sort -u)
	for f in $files; do
		owners=$(in_root "$root" dpkg -S "$f" 2>/dev/null | sed 's/: .*//' | tr -d ' ' || true)
		case $owners in
		"") echo "FAIL: $f belongs to no package"; bad=1 ;;
		*,*) echo "FAIL: $f has several owners: $owners"; bad=1 ;;
		esac
		real=$(in_root "$root" readlink -f "$f")
		owner=$(in_root "$root" dpkg -S "$real" 2>/dev/null | sed 's/: .*//; s/:.*//' || true)
		case " $(echo $ours) " in
		*" $owner "*) ;;
		*) echo "FAIL: $f resolves to $real, of '$owner', not of our packages"; bad=1 ;;
		esac
	done
	[ $bad -eq 0 ] || die "library files of $suite are not owned once each (above)"
	echo "$(echo "$files" | wc -l) library files, one owner each, each link resolving to a file of ours"
}

emu() {
	in_root "$root" mlx5emu run --fabric="$fabric" -- "$@"
}

# run_pair NAME SERVER... -- CLIENT...: a server and its client on the
# emulated device; their outputs in OUT/SUITE/NAME.{server,client}
run_pair() {
	local name=$1 server=() pid
	shift
	while [ "$1" != -- ]; do server+=("$1"); shift; done
	shift
	emu timeout -k 5 120 "${server[@]}" >"$res/$name.server" 2>&1 &
	pid=$!
	sleep 1
	emu timeout -k 5 120 "$@" >"$res/$name.client" 2>&1 || {
		kill $pid 2>/dev/null || true
		wait $pid 2>/dev/null || true
		cat "$res/$name.client"
		die "$name client failed (output: $res/$name.client)"
	}
	wait $pid || { cat "$res/$name.server"; die "$name server failed"; }
}

traffic() {
	local port=$((20000 + $$ % 10000)) path real owner version lib
	section "the emulated device, installed libraries"
	emu ibv_devinfo | head -n 8
	# the libraries the dynamic loader actually ran, and the package of each
	emu env LD_DEBUG=files ibv_devinfo 2>&1 >/dev/null |
		sed -n 's/.*calling init: \(.*lib\(ibverbs\|mlx5\)[-.][^/]*\)$/\1/p' | sort -u >"$res/loaded.txt"
	for lib in libibverbs.so.1 libmlx5.so.1; do
		path=$(grep "/${lib%%.so.1}[-.]" "$res/loaded.txt" | head -n1 || true)
		[ -n "$path" ] || die "ibv_devinfo did not load $lib"
		real=$(in_root "$root" readlink -f "$path")
		owner=$(in_root "$root" dpkg -S "$real" | cut -d: -f1)
		version=$(in_root "$root" dpkg-query -W -f '${Version}' "$owner")
		echo "loaded $lib: $path -> $real ($owner $version)"
		case $version in *tdshare*) ;; *) die "$lib came from $owner $version, not from our packages" ;; esac
	done

	section "the suite's ib_write_bw (perftest $(awk '$1 == "perftest" { print $2 }' "$res/after.txt"))"
	run_pair ib_write_bw ib_write_bw -p $port -D 2 -F -- ib_write_bw -p $port -D 2 -F localhost
	grep -A3 'BW average' "$res/ib_write_bw.client" || die "ib_write_bw printed no result"

	section "the suite's rping (rdmacm-utils $(awk '$1 == "rdmacm-utils" { print $2 }' "$res/after.txt"))"
	run_pair rping rping -s -a 127.0.0.1 -p $((port + 2)) -C 20 -- \
		rping -c -a 127.0.0.1 -p $((port + 2)) -C 20 -v
	[ "$(grep -c '^ping data' "$res/rping.client")" -eq 20 ] || die "rping: not 20 pings (output: $res/rping.client)"
	echo "rping: 20 pings verified over librdmacm"

	section "the suite's ucx_perftest (ucx-utils $(awk '$1 == "ucx-utils" { print $2 }' "$res/after.txt"))"
	# the mlx5 transports only: with its defaults UCX picks shared memory
	# between two local processes, never the device. UCX's info log names
	# the transport and device of the endpoint.
	# a ucx_perftest built with MPI (UCX 1.18 of Debian 13) takes MPI
	# mode unless told -P 0; Debian 12's has no MPI and no -P
	local mode=
	in_root "$root" ucx_perftest -h >"$res/ucx_perftest.help" 2>&1 || true
	if grep -q -- '-P <0|1>' "$res/ucx_perftest.help"; then mode="-P 0"; fi
	run_pair ucx env UCX_TLS=rc_mlx5,ud_mlx5,self ucx_perftest $mode -p $((port + 1)) -- \
		env UCX_TLS=rc_mlx5,ud_mlx5,self UCX_LOG_LEVEL=info \
		ucx_perftest $mode -p $((port + 1)) -t tag_bw -n 10000 localhost
	grep -E -m2 'cfg.*_mlx5/mlx5_0:1' "$res/ucx.client" ||
		die "ucx_perftest did not run over the emulated device (output: $res/ucx.client)"
	grep '^Final:' "$res/ucx.client" || die "ucx_perftest printed no result"

	section "the suite's Open MPI ($(awk '$1 == "openmpi-bin" { print $2 }' "$res/after.txt")) over UCX, MPI_THREAD_MULTIPLE"
	cp "$here/mpi_threads.c" "$root/tmp/"
	in_root "$root" mpicc -O2 -pthread -o /tmp/mpi_threads /tmp/mpi_threads.c
	emu env UCX_TLS=rc_mlx5,ud_mlx5,self UCX_NET_DEVICES=mlx5_0:1 timeout -k 5 180 \
		mpirun --allow-run-as-root --oversubscribe -np 2 --mca pml ucx \
		-x UCX_TLS -x UCX_NET_DEVICES /tmp/mpi_threads >"$res/mpi.txt" 2>&1 || {
		cat "$res/mpi.txt"
		die "the Open MPI job failed (output: $res/mpi.txt)"
	}
	grep '^mpi_threads: ok' "$res/mpi.txt" || { cat "$res/mpi.txt"; die "mpi_threads did not pass"; }

	section "our benchmark and pyverbs"
	emu ib_write_mt --loopback --endpoints=levels --threads=4 -n 2000 2>&1 | tail -n 6
	emu python3 -c 'import pyverbs, pyverbs.device as d; print("pyverbs", pyverbs.__file__, "sees:", [x.name.decode() for x in d.get_device_list()])'
}

# mlx5emu alone over the suite's own rdma-core, as a new project's CI
# installs it: the steps of mlx5emu/recipe/github-actions.yml, run in the
# root from the example project (mlx5emu/recipe/example), with the .deb
# given by its address. apt installs mlx5emu without any other package of
# ours, the project builds against the suite's libibverbs-dev and its
# make check passes, and the suite's ib_write_bw runs on the device.
mlx5emu_alone() {
	local port=$((19000 + $$ % 1000)) v deb
	section "mlx5emu alone over the suite's rdma-core ($(awk '$1 == "libibverbs1" { print $2 }' "$res/before.txt"))"
	rm -rf "$root/tmp/emu"
	mkdir -p "$root/tmp/emu/project"
	cp "$out/$suite"/mlx5emu_*.deb "$root/tmp/emu/"
	cp "$top/mlx5emu/recipe/example/"* "$root/tmp/emu/project/"
	python3 - "$top/mlx5emu/recipe/github-actions.yml" >"$root/tmp/emu/recipe.sh" <<'PY'
import sys, yaml
job = next(iter(yaml.safe_load(open(sys.argv[1]))["jobs"].values()))
print("set -ex")
for step in job["steps"]:
    if "run" in step:
        print(step["run"])
PY
	deb=$(cd "$root" && ls tmp/emu/mlx5emu_*.deb)
	in_root "$root" env MLX5EMU_DEB_URL="file:///$deb" DEBIAN_FRONTEND=noninteractive \
		sh -c 'cd /tmp/emu/project && bash /tmp/emu/recipe.sh' >"$res/emu-recipe.log" 2>&1 || {
		tail -n 30 "$res/emu-recipe.log" >&2
		die "the recipe's steps failed in a $suite root (log: $res/emu-recipe.log)"
	}
	grep -q 'hello_verbs: mlx5_0 wrote 4096 bytes to itself' "$res/emu-recipe.log" ||
		die "the example project's make check did not run (log: $res/emu-recipe.log)"
	echo "the recipe's steps: the example project built and passed its make check"
	v=$(in_root "$root" dpkg-query -W -f '${Version}' libibverbs1)
	case $v in *tdshare*) die "installing mlx5emu brought our libibverbs1 $v" ;; esac
	run_pair emu_ib_write_bw ib_write_bw -p $port -D 1 -F -- ib_write_bw -p $port -D 1 -F localhost
	grep -q 'BW average' "$res/emu_ib_write_bw.client" || die "ib_write_bw printed no result"
	echo "the suite's ib_write_bw ran on mlx5emu over the suite's libibverbs1 $v"
	in_root "$root" apt-get purge -y -qq mlx5emu >/dev/null
	rm -rf "$root/tmp/emu"
}

check_suite() {
	local suite=$1 debs start base names left missing
	res=$out/$suite/check
	debs=("$out/$suite"/*.deb)
	[ -e "${debs[0]}" ] || die "no .deb in $out/$suite: run make deb"
	rm -rf "$res"
	mkdir -p "$res"
	ours=$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done | sort)

	section "a root with the suite's clients"
	start=$EPOCHREALTIME
	root=$out/$suite-check-root
	root_open "$root" "$suite" clients $clients libopenmpi-dev gcc libc6-dev
	elapsed "$start" "root with the suite's clients"

	start=$EPOCHREALTIME
	section "private ABI, against the suite's own packages"
	DEBIAN_REFERENCE_ROOT=$root "$here/private-abi.sh" "$out/$suite"
	if [ "${CHECK_PACKAGES_LINTIAN:-1}" != 0 ]; then
		section "lintian, against the suite's own packages"
		DEBIAN_REFERENCE_ROOT=$root "$here/lintian-compare.sh" "$out/$suite"
	fi
	elapsed "$start" "private ABI and lintian"

	start=$EPOCHREALTIME
	installed_versions >"$res/before.txt"
	mlx5emu_alone
	elapsed "$start" "mlx5emu over the suite's rdma-core"

	start=$EPOCHREALTIME
	section "our packages over the suite's (apt install ./*.deb)"
	mkdir -p "$root/tmp/debs"
	cp "${debs[@]}" "$root/tmp/debs/"
	in_root "$root" sh -c 'apt-get install -y -qq /tmp/debs/*.deb' >"$res/install.log" 2>&1 || {
		tail -n 30 "$res/install.log" >&2
		die "apt could not install our packages (log: $res/install.log)"
	}
	installed_versions >"$res/after.txt"
	join -a2 <(join <(echo "$ours") "$res/before.txt") \
		<(join <(echo "$ours") "$res/after.txt") |
		awk 'NF == 3 { printf "  %-22s %s -> %s\n", $1, $2, $3; next }
		     { printf "  %-22s (new) %s\n", $1, $2 }'
	# everything that uses the verbs libraries is still installed
	for p in $clients; do
		grep -q "^$p " "$res/after.txt" || die "installing our packages removed $p"
	done
	names=$(comm -23 <(cut -d' ' -f1 "$res/before.txt") <(cut -d' ' -f1 "$res/after.txt"))
	[ -z "$names" ] || die "installing our packages removed: $names"
	check_owners
	for p in $ours; do in_root "$root" dpkg -L "$p"; done | sort -u >"$res/our-files.txt"
	in_root "$root" apt-get check -q || die "apt-get check fails with our packages installed"
	echo "apt-get check: clean"
	elapsed "$start" "install"

	start=$EPOCHREALTIME
	traffic
	elapsed "$start" "clients on the emulated device"

	if [ "$suite" = trixie ] || [ -n "${CHECK_PACKAGES_PIN:-}" ]; then
		start=$EPOCHREALTIME
		section "the apt pin against a repository with a higher libibverbs1"
		"$here/pin-test.sh" "$root" "$out/$suite"
		elapsed "$start" "apt pin"
	fi

	start=$EPOCHREALTIME
	section "the way back: apt install --allow-downgrades --purge --autoremove \$(tdshare-way-back)"
	back=$(in_root "$root" tdshare-way-back)
	echo "tdshare-way-back: $back"
	in_root "$root" sh -c 'apt-get install -y -qq --allow-downgrades --purge --autoremove $(tdshare-way-back)' \
		>"$res/restore.log" 2>&1 || {
		tail -n 30 "$res/restore.log" >&2
		die "apt could not restore the suite's packages (log: $res/restore.log)"
	}
	installed_versions >"$res/restored.txt"
	join <(echo "$ours") "$res/restored.txt" | sed 's/^/  restored: /'
	left=$(in_root "$root" dpkg-query -W -f '${Package} ${Version} ${db:Status-Abbrev}\n' |
		grep tdshare || true)
	[ -z "$left" ] || die "still in dpkg's database after the way back: $left"
	for f in /usr/lib/mlx5emu /usr/bin/mlx5emu /usr/bin/ib_write_mt \
		/etc/apt/preferences.d/rdma-core-tdshare.pref /usr/bin/tdshare-way-back; do
		[ ! -e "$root$f" ] || die "$f is still there after the way back"
	done
	# what was installed before is back at its version; packages that
	# came with ours stay as the suite's own (the way back puts the
	# suite's rdma-core in place of the fork's, package for package)
	missing=$(comm -23 "$res/before.txt" "$res/restored.txt")
	[ -z "$missing" ] || die "not as before the install: $missing"
	added=$(comm -13 "$res/before.txt" "$res/restored.txt" | cut -d' ' -f1)
	[ -z "$added" ] || echo "the suite's own, in place of ours that came new: $(echo $added)"
	in_root "$root" apt-get check -q || die "apt-get check fails after the way back"
	# every file our packages had is gone, or belongs to a package of the
	# suite now
	in_root "$root" sh -c 'while read -r f; do
		[ -f "$f" ] || [ -L "$f" ] || continue
		dpkg -S "$f" >/dev/null 2>&1 || echo "$f"
	done' <"$res/our-files.txt" >"$res/left-files.txt"
	[ ! -s "$res/left-files.txt" ] || { cat "$res/left-files.txt"; die "files of our packages are left after the way back (above)"; }
	echo "the suite's packages are back, nothing of ours is left, apt-get check is clean"
	elapsed "$start" "the way back"
	root_close "$root"
	root=
}

for suite in $suites; do
	check_suite "$suite"
done
printf '\n=== times\n'
cat "$out/check-packages.times"
