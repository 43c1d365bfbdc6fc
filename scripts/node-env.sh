#!/usr/bin/env bash
# Sourced (by setup.sh, node.sh and bin/cutroom): puts a Node.js >= 22.19 first on PATH — the
# one in .tools/, else the system's when new enough, else Node 24 installed from npm's `node`
# package into .tools/ (the system Node 20 of a fresh Debian machine cannot run TypeScript).
CUTROOM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CUTROOM_NODE_PIN="24"

# major*1000 + minor, e.g. 24021 for v24.21.0 (0 when the binary does not run).
cutroom_node_version() { "$1" -e 'const [a, b] = process.versions.node.split(".").map(Number); console.log(a * 1000 + b)' 2>/dev/null || echo 0; }
cutroom_node_ok() { local v; v=$(cutroom_node_version "$1"); [ "$v" -ge 22019 ]; }

if [ -x "$CUTROOM_ROOT/.tools/node_modules/.bin/node" ] && cutroom_node_ok "$CUTROOM_ROOT/.tools/node_modules/.bin/node"; then
  export PATH="$CUTROOM_ROOT/.tools/node_modules/.bin:$PATH"
elif command -v node >/dev/null 2>&1 && cutroom_node_ok "$(command -v node)"; then
  :
else
  echo "setup: system Node is older than 22.19; installing Node $CUTROOM_NODE_PIN from npm's 'node' package into .tools/" >&2
  mkdir -p "$CUTROOM_ROOT/.tools"
  [ -f "$CUTROOM_ROOT/.tools/package.json" ] || echo '{"private":true}' > "$CUTROOM_ROOT/.tools/package.json"
  npm install --prefix "$CUTROOM_ROOT/.tools" --no-audit --no-fund --loglevel=error "node@$CUTROOM_NODE_PIN" >&2
  export PATH="$CUTROOM_ROOT/.tools/node_modules/.bin:$PATH"
fi
