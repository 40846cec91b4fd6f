#!/usr/bin/env bash
# Usage: scripts/bench/checkout-product.sh REV [DIR]
# A checkout of the product at REV (a git worktree, default /tmp/wms-product-REV) that uses this checkout's
# node_modules except its own @wms/* links, for `BENCH_PRODUCT_DIR=DIR npm run bench` (before/after figures).
set -euo pipefail
rev=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${2:-/tmp/wms-product-$rev}
[ -d "$dir" ] || git -C "$root" worktree add --detach "$dir" "$rev" >/dev/null
mkdir -p "$dir/node_modules/@wms"
for entry in "$root"/node_modules/* "$root"/node_modules/.bin; do
  name=$(basename "$entry")
  [ "$name" = "@wms" ] || [ -e "$dir/node_modules/$name" ] || ln -s "$entry" "$dir/node_modules/$name"
done
for package in inventory tracking; do ln -sfn "../../apps/$package" "$dir/node_modules/@wms/$package"; done
ln -sfn ../../packages/platform "$dir/node_modules/@wms/platform"
echo "$dir"
