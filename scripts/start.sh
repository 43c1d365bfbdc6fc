#!/usr/bin/env bash
# Quick start: installs what is missing (Node 24, ffmpeg, npm packages), then runs the API
# with an in-process worker on embedded PostgreSQL (PGlite, ./data) and local-disk storage.
# Environment variables (see README) pass through, e.g. PORT=8080 bash scripts/start.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
exec node src/main/api.ts
