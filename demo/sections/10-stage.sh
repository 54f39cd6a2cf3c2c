# demo: the staged rdma-core and the patch series it carries
echo "libibverbs (pkg-config, from the stage): $(pkg-config --modversion libibverbs)"
echo "libibverbs.so: $(readlink -f "$STAGE/lib/libibverbs.so")"
echo "providers:      $(ls "$STAGE/lib/libibverbs" | sed -n 's/^lib\(.*\)-rdmav.*\.so$/\1/p' | paste -sd' ')"
echo "applied series (build/src, upstream..HEAD):"
git -C "$BUILD/src" log --reverse --format='  %s' upstream..HEAD
