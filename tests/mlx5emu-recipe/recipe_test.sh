#!/bin/bash
# mlx5emu/recipe/ as far as a machine without docker or a CI service can
# check it: the Dockerfile and the GitHub Actions job install the same
# packages (the distribution's rdma-core and a compiler, our mlx5emu),
# give the NIC thread CAP_SYS_NICE, and the commands they run work on the
# staged build: the image's default command, and a new project's (the
# example's) `make check` under `mlx5emu run`. check-packages runs the
# job's steps in a fresh Debian root.
#
#   recipe_test.sh SOURCE_DIR STAGE_BIN      ($MLX5EMU: the launcher)
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
src=$1 bin=$2
recipe=$src/mlx5emu/recipe
scratch_dir dir

# both install the same packages: Debian's (the distribution's rdma-core
# and a compiler) and our mlx5emu, from a .deb; no placeholder address
pkgs() { # the words of FILE's apt-get install lines that are packages
	awk '/apt-get install/ { on = 1 } on { print } on && !/\\$/ { on = 0 }' "$1" | tr ' \\' '\n\n' |
		grep -E '^[a-z0-9][a-z0-9.+-]+$' | grep -vxE 'apt-get|install|curl|ca-certificates|rm|-rf|&&' |
		sort -u
}
pkgs "$recipe/Dockerfile" >"$dir/docker"
pkgs "$recipe/github-actions.yml" >"$dir/actions"
[ -s "$dir/docker" ] || die "the Dockerfile installs no package"
diff "$dir/docker" "$dir/actions" ||
	die "the Dockerfile and the CI job install different packages"
for p in gcc make libibverbs-dev ibverbs-providers; do
	grep -qx "$p" "$dir/docker" || die "the recipe does not install $p"
done
grep -q '/tmp/packages/mlx5emu_\*\.deb' "$recipe/Dockerfile" ||
	die "the Dockerfile does not install our mlx5emu .deb"
grep -q 'apt-get install .*/tmp/mlx5emu.deb' "$recipe/github-actions.yml" ||
	die "the CI job does not install our mlx5emu .deb"
! grep -rn 'example\.\(org\|com\)' "$recipe" || die "the recipe has a placeholder address"
grep -qx 'usr/bin/mlx5emu' "$src/debian/mlx5emu.install" ||
	die "the mlx5emu package does not ship the launcher the image runs"
echo "installed: $(tr '\n' ' ' <"$dir/docker")+ mlx5emu"

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

# a new project's build and test suite under `mlx5emu run`, as the CI
# job's last step: the example, against the staged libibverbs (the
# packages' check runs it against the distribution's)
cp "$recipe/example/"* "$dir/"
"$MLX5EMU" run -- make -s -C "$dir" check CFLAGS="-I$bin/../include" \
	LDFLAGS="-L$bin/../lib" | tee "$dir/check.out" ||
	die "make check of the example under mlx5emu run failed"
grep -q 'hello_verbs: mlx5_0 wrote 4096 bytes to itself' "$dir/check.out" ||
	die "the example did not write"
echo "make check of a new project under mlx5emu run: passed"
