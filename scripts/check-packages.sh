#!/usr/bin/env bash
# Packages are products: build every package, pack it as `pnpm publish` would (workspace:* becomes
# the version), and check each tarball with publint and Are the Types Wrong (ESM only, Node 16+ and
# bundlers). Called from .ci/run before the tests; `pnpm check:packages` runs it by hand.
# Usage: scripts/check-packages.sh [destination]   (the tarballs stay in destination when given)
set -euo pipefail
cd "$(dirname "$0")/.."

pnpm=(npx -y pnpm@10.34.8)
dest="${1:-}"
if [ -z "$dest" ]; then
  dest="$(mktemp -d)"
  trap 'rm -rf "$dest"' EXIT
fi
mkdir -p "$dest"

"${pnpm[@]}" -s build

failed=0
for dir in packages/*/; do
  name="$(node -p "require('./${dir}package.json').name")"
  tarball="$(cd "$dir" && "${pnpm[@]}" pack --pack-destination "$dest" 2>/dev/null | tail -n1)"
  echo "== $name ($(basename "$tarball"), $(du -k "$tarball" | cut -f1) KB)"
  # A workspace: range left in a tarball cannot be installed outside the workspace.
  if tar -xzOf "$tarball" package/package.json | grep -q '"workspace:'; then
    echo "  workspace: dependency left in the packed package.json"
    failed=1
  fi
  npx publint --strict "$tarball" || failed=1
  npx attw "$tarball" --profile esm-only --no-summary --no-emoji --no-color --format table-flipped || failed=1
done
if [ "$failed" -ne 0 ]; then
  echo "check-packages: some package failed (see above)" >&2
  exit 1
fi
echo "check-packages: every package packs, and passes publint and attw"
