#!/bin/bash
# mlx5emu/recipe/ as far as a machine without docker or a CI service can
# check it: the Dockerfile and the GitHub Actions job install packages
# this tree builds (the same ones), give the NIC thread CAP_SYS_NICE, and
# the commands they run work on the staged build: the image's default
# command, and a project's `make check` under `mlx5emu run`.
#
#   recipe_test.sh SOURCE_DIR STAGE_BIN      ($MLX5EMU: the launcher)
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
src=$1 bin=$2
recipe=$src/mlx5emu/recipe
scratch_dir dir

# the packages each installs, by name
grep -o '/tmp/packages/[a-z0-9.+-]*_' "$recipe/Dockerfile" | sed 's|.*/||; s|_$||' |
	sort -u >"$dir/docker"
grep -o '/tmp/debs/[a-z0-9.+-]*_' "$recipe/github-actions.yml" | sed 's|.*/||; s|_$||' |
	sort -u >"$dir/actions"
[ -s "$dir/docker" ] || die "the Dockerfile installs no package"
diff "$dir/docker" "$dir/actions" ||
	die "the Dockerfile and the CI job install different packages"
while read -r p; do
	grep -qx "Package: $p" "$src/debian/control" || die "$p is not a package of debian/control"
done <"$dir/docker"
grep -qx 'usr/bin/mlx5emu' "$src/debian/mlx5emu.install" ||
	die "the mlx5emu package does not ship the launcher the image runs"
echo "installed: $(tr '\n' ' ' <"$dir/docker")"

# the CI job is a workflow GitHub can read, with the capability
python3 - "$recipe/github-actions.yml" <<'PY'
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
job = next(iter(wf["jobs"].values()))
assert job["container"]["image"] == "debian:12", job["container"]
assert "SYS_NICE" in job["container"]["options"], job["container"]
runs = [s.get("run", "") for s in job["steps"]]
assert any("mlx5emu run --" in r for r in runs), runs
print("workflow: %d steps" % len(job["steps"]))
PY
grep -q -- '--cap-add=SYS_NICE' "$recipe/Dockerfile" ||
	die "the Dockerfile's run commands do not give CAP_SYS_NICE"

# ENTRYPOINT + CMD of the image
grep -qx 'ENTRYPOINT \["mlx5emu", "run", "--"\]' "$recipe/Dockerfile" ||
	die "the image does not run its commands under mlx5emu"
"$MLX5EMU" run -- "$bin/ibv_devinfo" | grep -q 'hca_id:.*mlx5_0' ||
	die "ibv_devinfo under mlx5emu run shows no mlx5_0"

# a project's test suite under `mlx5emu run`, as the CI job's last step
cat >"$dir/Makefile" <<MK
check:
	$bin/ibv_devices | grep -q mlx5_0
	$bin/ib_write_mt --loopback --endpoints=dynamic --threads=2 -n 1000 >/dev/null
MK
"$MLX5EMU" run -- make -s -C "$dir" check || die "make check under mlx5emu run failed"
echo "make check under mlx5emu run: passed"
