#!/usr/bin/env bash
# Runs the whole test suite, installing what is missing first (Node 24, ffmpeg, npm packages).
# Pass 1: everything on embedded PGlite. Pass 2 (when TEST_DATABASE_URL is set): the
# integration tests (test/) again on that PostgreSQL server, each file in a fresh database.
# Extra arguments go to Vitest (e.g. a file filter).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
mkdir -p tmp
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
