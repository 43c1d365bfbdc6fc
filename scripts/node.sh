#!/usr/bin/env bash
# Runs the project's Node.js (>= 22.19, see node-env.sh) with the given arguments: the npm
# scripts go through it, so `npm run …` works from a shell whose own Node is older.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/node-env.sh"
exec node "$@"
