#!/usr/bin/env bash
# Sourced by scripts/start.sh and scripts/test.sh: makes a fresh Debian machine ready.
# - Node.js >= 22.19 (installs Node 24 from npm's `node` package into .tools/ when the
#   system one is older), put first on PATH;
# - ffmpeg/ffprobe from Debian's packages when missing (needs root or sudo);
# - the offline speech recogniser (Debian's pocketsphinx with its US English model, and the
#   LibriVox test utterances the tests and the accuracy bench use) when missing;
#   (the Debian packages missing, with those a sourcing script lists in CUTROOM_APT_PACKAGES,
#   in one apt-get run);
# - npm dependencies from package-lock.json when node_modules is missing or stale.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/node-env.sh"

# Debian packages: everything missing is installed in one apt-get run (a sourcing script may
# add its own to CUTROOM_APT_PACKAGES first, as scripts/test.sh does).
apt_packages=(${CUTROOM_APT_PACKAGES[@]+"${CUTROOM_APT_PACKAGES[@]}"})
if ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; then
  apt_packages+=(ffmpeg procps)
fi
if ! command -v pocketsphinx_continuous >/dev/null 2>&1 \
  || [ ! -f /usr/share/pocketsphinx/model/en-us/en-us.lm.bin ] \
  || [ ! -d /usr/share/pocketsphinx/test/data/librivox ]; then
  apt_packages+=(pocketsphinx pocketsphinx-en-us pocketsphinx-testdata)
fi
if [ "${#apt_packages[@]}" -gt 0 ]; then
  echo "setup: installing Debian's ${apt_packages[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >&2
fi

cd "$ROOT"
stamp="node_modules/.cutroom-lock-hash"
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing npm dependencies (npm ci)" >&2
  npm ci --prefer-offline --no-audit --no-fund --loglevel=error >&2
  echo "$want" > "$stamp"
fi

# The web console (console/, built into dist/console and served under /console): rebuilt when
# its sources, the API's route schemas (the client is generated from the OpenAPI document) or
# the dependencies changed. A failed build leaves the API usable; /console then says so.
console_stamp="dist/console/.build-hash"
console_want=$(find console src package-lock.json -type f \( -name '*.ts' -o -name '*.tsx' -o -name '*.css' -o -name '*.html' -o -name '*.json' \) \
  ! -name schema.d.ts ! -name '*.test.ts' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ ! -f "$console_stamp" ] || [ "$(cat "$console_stamp")" != "$console_want" ]; then
  echo "setup: building the web console (npm run build:console)" >&2
  if npm run --silent build:console >&2; then
    echo "$console_want" > "$console_stamp"
  else
    echo "setup: the console build failed; the API still runs, /console explains how to build it" >&2
  fi
fi
