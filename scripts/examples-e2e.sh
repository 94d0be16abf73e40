#!/usr/bin/env bash
# Embedding proven from outside the workspace (docs/embedding.md): build, pack the packages a
# minimal embedding needs, install each example from those tarballs with the ordinary npm client
# in a temp folder outside the workspace, start it, and run the end-to-end check against it.
#
# Usage: scripts/examples-e2e.sh [example ...]     (default: every folder of examples/)
# SIGNET_EXAMPLES_KEEP=1 keeps the temp folder; SIGNET_EXAMPLES_NO_BUILD=1 skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
pnpm=(npx -y pnpm@10.34.8)

# What a minimal embedding installs: the HTTP adapter, SQLite storage, Web Crypto, and what they depend on;
# and @signet/client, with which each host checks the webhooks it receives.
PACKAGES=(core adapters-sql adapters-sqlite adapters-crypto adapters-http client)
if [ "$#" -gt 0 ]; then EXAMPLES=("$@"); else mapfile -t EXAMPLES < <(find examples -mindepth 1 -maxdepth 1 -type d -printf "%f\n" | sort); fi

work="$(mktemp -d "${TMPDIR:-/tmp}/signet-examples-XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ "${SIGNET_EXAMPLES_KEEP:-}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

if [ "${SIGNET_EXAMPLES_NO_BUILD:-}" != 1 ]; then
  echo "== build"
  "${pnpm[@]}" run build
fi

echo "== pack into $work/tarballs"
mkdir -p "$work/tarballs"
for p in "${PACKAGES[@]}"; do
  (cd "packages/$p" && "${pnpm[@]}" pack --pack-destination "$work/tarballs" >/dev/null)
  # Stable names (signet-core.tgz), so the examples' file: paths do not change with the version.
  mv "$work/tarballs/signet-$p-"[0-9]*.tgz "$work/tarballs/signet-$p.tgz"
done
ls -l "$work/tarballs"

# better-sqlite3 has no prebuilt binary this machine can download (only the npm registry is reachable), so
# npm would compile it from source in every example (one to several minutes each). The workspace compiled
# the same version already: offer that build to prebuild-install as a local prebuild (its documented
# `local_prebuilds` setting). A host that resolves another version compiles it, as before.
sqlite_dir="$(cd packages/adapters-sqlite && node -p 'require("node:path").dirname(require.resolve("better-sqlite3/package.json"))')"
sqlite_version="$(node -p "require('$sqlite_dir/package.json').version")"
if [ -f "$sqlite_dir/build/Release/better_sqlite3.node" ]; then
  mkdir -p "$work/prebuilds"
  tar -czf "$work/prebuilds/better-sqlite3-v$sqlite_version-node-v$(node -p process.versions.modules)-$(node -p 'process.platform + "-" + process.arch').tar.gz" \
    -C "$sqlite_dir" build/Release/better_sqlite3.node
  export npm_config_better_sqlite3_local_prebuilds="$work/prebuilds"
fi

free_port() { node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

failed=()
for example in "${EXAMPLES[@]}"; do
  echo "== $example"
  # A copy outside the workspace: nothing can resolve from the workspace's node_modules.
  dir="$work/$example"
  mkdir -p "$dir"
  (cd "examples/$example" && tar --exclude=node_modules --exclude='*.db*' -cf - .) | (cd "$dir" && tar -xf -)
  (cd "$dir" && nice -n 10 npm install --no-audit --no-fund --loglevel=error)
  # Only the packed tarballs: a workspace link or a source (.ts) entry point would fail here.
  if find "$dir/node_modules/@signet" -maxdepth 1 -type l | grep -q .; then echo "linked @signet packages in $dir"; failed+=("$example"); continue; fi
  # The host's code type-checks (strict, checkJs) against the .d.ts files the tarballs ship; the
  # workspace lends TypeScript and @types/node only, so the example installs neither (implicit any
  # allowed: Express ships no types of its own, and the host's framework is not what is checked).
  cat >"$dir/tsconfig.check.json" <<JSON
{ "compilerOptions": { "allowJs": true, "checkJs": true, "noEmit": true, "strict": true, "noImplicitAny": false, "skipLibCheck": true,
    "module": "NodeNext", "moduleResolution": "NodeNext", "target": "ES2022",
    "typeRoots": ["$root/node_modules/@types"], "types": ["node"] },
  "files": ["server.js"] }
JSON
  if ! (cd "$dir" && node "$root/node_modules/typescript/bin/tsc" -p tsconfig.check.json); then
    echo "$example does not type-check against the published types"; failed+=("$example"); continue
  fi
  port="$(free_port)"
  token="$(node -e 'console.log(require("node:crypto").randomBytes(32).toString("base64url"))')"
  webhook_secret="whsec_$(node -e 'console.log(require("node:crypto").randomBytes(32).toString("base64"))')"
  (cd "$dir" && exec env PORT="$port" PUBLIC_ORIGIN="http://localhost:$port" SIGNET_DATABASE="$dir/signet.db" \
    SIGNET_MASTER_KEY="$(node -e 'console.log(require("node:crypto").randomBytes(32).toString("hex"))')" \
    SIGNET_ADMIN_TOKEN="$token" SIGNET_WEBHOOK_SECRET="$webhook_secret" SIGNET_WEBHOOKS_ALLOW_LOOPBACK=1 node server.js >"$dir/stdout.log" 2>&1) &
  server_pid=$!
  started=$(date +%s%N)
  if (cd "$root" && node --conditions=@signet/source --import tsx scripts/examples-e2e-check.ts "http://localhost:$port" "$dir/stdout.log" "$token" "$webhook_secret"); then
    echo "   ($example: $(( ($(date +%s%N) - started) / 1000000 )) ms from start to a verified signature)"
  else
    echo "--- $example stdout/stderr:"; tail -n 40 "$dir/stdout.log" || true
    failed+=("$example")
  fi
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
done

if [ "${#failed[@]}" -gt 0 ]; then echo "FAILED: ${failed[*]}"; exit 1; fi
echo "all examples passed: ${EXAMPLES[*]}"
