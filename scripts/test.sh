#!/usr/bin/env bash
# Runs the whole test suite, installing what is missing first (Node 24, ffmpeg, npm packages).
# Pass 1: everything on embedded PGlite. Pass 2 (when TEST_DATABASE_URL is set): the test files
# that open a test database (test/database-files.ts selects them by their imports) again on that
# PostgreSQL server, each file in a fresh database.
# The browser tests (test/e2e, Chromium from Debian, installed when missing) run in pass 1.
# Extra arguments go to Vitest (e.g. a file filter).
set -euo pipefail
# Debian packages only the tests need, installed by setup.sh in its one apt-get run: Chromium for
# the console's browser tests (Debian's, never a downloaded browser) and melt (the engine of
# Kdenlive and Shotcut) for the MLT export test.
CUTROOM_APT_PACKAGES=()
[ -x /usr/bin/chromium ] || CUTROOM_APT_PACKAGES+=(chromium fonts-dejavu-core)
command -v melt >/dev/null 2>&1 || CUTROOM_APT_PACKAGES+=(melt)
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
  echo "== database tests on PostgreSQL ($TEST_DATABASE_URL)"
  TEST_DATABASE_FILES_ONLY=1 npx vitest run --reporter=default --reporter=json --outputFile=tmp/vitest-postgres.json "$@" || status=$?
  summary tmp/vitest-postgres.json postgres || true
fi
exit $status
