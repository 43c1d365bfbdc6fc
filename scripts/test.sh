#!/usr/bin/env bash
# Runs the whole test suite, installing what is missing first (Node 24, ffmpeg, npm packages).
# Pass 1: everything on embedded PGlite. Pass 2 (when TEST_DATABASE_URL is set): the
# integration tests (test/) again on that PostgreSQL server, each file in a fresh database.
# The browser tests (test/e2e, Chromium from Debian, installed when missing) run in pass 1.
# Extra arguments go to Vitest (e.g. a file filter).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
mkdir -p tmp
# The console's browser tests drive Debian's Chromium (never a downloaded browser).
if [ ! -x /usr/bin/chromium ]; then
  echo "setup: installing Debian's chromium for the browser tests" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
fi
# The MLT export is checked by rendering it with Debian's melt (the engine of Kdenlive and Shotcut).
if ! command -v melt >/dev/null 2>&1; then
  echo "setup: installing Debian's melt for the MLT export test" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends melt >&2
fi
summary() { node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`${process.argv[2]}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' "$1" "$2"; }

status=0
echo "== tests on PGlite (embedded)"
env -u TEST_DATABASE_URL npx vitest run --reporter=default --reporter=json --outputFile=tmp/vitest-pglite.json "$@" || status=$?
summary tmp/vitest-pglite.json pglite || true

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "== integration tests on PostgreSQL ($TEST_DATABASE_URL)"
  npx vitest run --project integration --reporter=default --reporter=json --outputFile=tmp/vitest-postgres.json "$@" || status=$?
  summary tmp/vitest-postgres.json postgres || true
fi
exit $status
