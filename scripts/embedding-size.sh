#!/usr/bin/env bash
# The installed size of a minimal embedding versus the full server (docs/embedding.md): packs every
# package, installs each set from the tarballs with npm in a temp folder outside the workspace, and
# prints `du` of node_modules and whether any heavy package came along. Run after `pnpm build`.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d "${TMPDIR:-/tmp}/signet-size-XXXXXX")"
trap 'if [ "${SIGNET_EXAMPLES_KEEP:-}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi' EXIT
mkdir -p "$work/tarballs"
for dir in packages/*/; do
  p="$(basename "$dir")"
  [ "$p" = testkit ] && continue
  (cd "$dir" && npx -y pnpm@10.34.8 pack --pack-destination "$work/tarballs" >/dev/null)
  mv "$work/tarballs/signet-$p-"[0-9]*.tgz "$work/tarballs/signet-$p.tgz"
done
# Every @signet/* package, direct or transitive, comes from its tarball.
overrides="$(cd "$work/tarballs" && for t in signet-*.tgz; do n="${t#signet-}"; printf '"@signet/%s": "file:../tarballs/%s",' "${n%.tgz}" "$t"; done)"
install() { # name, then the packages it depends on
  local name="$1"; shift
  local deps=""
  for p in "$@"; do deps+="\"@signet/$p\": \"file:../tarballs/signet-$p.tgz\","; done
  mkdir -p "$work/$name"
  cat >"$work/$name/package.json" <<JSON
{ "name": "size-$name", "private": true, "type": "module",
  "dependencies": { ${deps%,} },
  "overrides": { $(echo "$overrides" | sed 's/,$//' | sed -E "s#\"@signet/($(IFS='|'; echo "$*"))\": \"[^\"]*\"#\"@signet/\\1\": \"\$@signet/\\1\"#g") } }
JSON
  (cd "$work/$name" && nice -n 10 npm install --no-audit --no-fund --loglevel=error >/dev/null)
  local heavy
  heavy="$(cd "$work/$name/node_modules" && ls -d @tensorflow tesseract.js* @tesseract.js-data @vladmandic pg pdf-lib @cantoo playwright* esbuild tsx typescript 2>/dev/null | tr '\n' ' ' || true)"
  echo "$name ($*): $(du -sm "$work/$name/node_modules" | cut -f1) MB in node_modules, $(ls "$work/$name/node_modules" | wc -l) top-level entries; heavy packages: ${heavy:-none}"
}
install minimal core adapters-http adapters-sqlite adapters-crypto
install server server
