#!/usr/bin/env bash
# Builds the container image (Containerfile) with podman and checks it end to end on this
# machine: the `migrate` role on a scratch database of the local PostgreSQL server, then an
# `api` container (WORKER_IN_PROCESS=false) and a `worker` container on one shared volume, the
# image's HEALTHCHECK, the owner key printed at first start, `npm run demo` rendering a short
# composition over HTTP from an uploaded colour clip (the render runs in the worker
# container), the downloaded output checked with ffprobe (duration, size, frame size), and a
# graceful stop (SIGTERM, exit 0) of both containers. Prints how long each step took.
#
# No registry serves base images here, so scripts/container-base.sh makes
# docker.io/library/debian:bookworm-slim with debootstrap once per machine; podman's layer
# cache keeps the npm and apt layers between runs (they change only with package-lock.json
# and the Containerfile).
#
# Exit status: 1 when the image fails to build or to do its job. A machine that cannot run
# containers at all (no root to install podman, podman unusable, Debian's mirror unreachable
# for the base) is reported and skipped with status 0, unless CONTAINER_TEST=required;
# CONTAINER_TEST=skip skips it.
#   CONTAINER_TEST_DATABASE_URL  PostgreSQL server to make the scratch database on
#                                (default TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
started=$SECONDS
say() { echo "container-test: $*"; }

if [ "${CONTAINER_TEST:-}" = skip ]; then
  say "skipped (CONTAINER_TEST=skip)"
  exit 0
fi
# An unusable machine (as opposed to a broken image): skipped unless the test is required.
unusable() {
  if [ "${CONTAINER_TEST:-}" = required ]; then
    say "FAILED: $*"
    exit 1
  fi
  say "SKIPPED: $* (set CONTAINER_TEST=required to fail instead)"
  exit 0
}

# ---- tools: podman with runc (crun fails on cgroup v1 hosts), debootstrap, ffprobe, psql
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v newuidmap >/dev/null 2>&1 || missing+=(uidmap)
command -v ffprobe >/dev/null 2>&1 || missing+=(ffmpeg)
command -v psql >/dev/null 2>&1 || missing+=(postgresql-client)
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing Debian's ${missing[*]}"
  if [ -n "$SUDO" ] && ! sudo -n true 2>/dev/null; then unusable "needs root to install ${missing[*]}"; fi
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
      --no-install-recommends "${missing[@]}"; } >/dev/null 2>&1 || unusable "apt-get install ${missing[*]} failed"
fi
[ "$(id -u)" -eq 0 ] || unusable "podman here runs as root (debootstrap, host network); run as root"
source scripts/node-env.sh

# Container limits may not exceed this shell's own, nor the process limit the kernel's
# pid_max (runc fails to set larger ones).
limit() { local v; v=$(ulimit "$1"); [ "$v" = unlimited ] || [ "$v" -gt "$2" ] && v=$2; echo "$v"; }
NOFILE=$(limit -n 65536)
NPROC=$(limit -u "$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 4096)")
PODMAN=(podman --runtime runc)
RUN_OPTS=(--network host --ulimit "nofile=$NOFILE:$NOFILE" --ulimit "nproc=$NPROC:$NPROC")
"${PODMAN[@]}" info >/dev/null 2>&1 || unusable "podman does not work on this machine"

# Logs and the rendered file of the last run stay in tmp/container-test/ for a look afterwards.
work="$ROOT/tmp/container-test"
rm -rf "$work"
mkdir -p "$work"
log="$work/podman.log"

# ---- base image (once per machine)
say "base image"
step=$SECONDS
exec 9>/var/tmp/cutroom-container-base.lock
flock 9
bash scripts/container-base.sh 2>>"$log" || { tail -20 "$log"; unusable "could not make the Debian base image"; }
flock -u 9
"${PODMAN[@]}" run --rm "${RUN_OPTS[@]}" docker.io/library/debian:bookworm-slim true >>"$log" 2>&1 ||
  { tail -20 "$log"; unusable "podman cannot start a container here"; }
base_sec=$((SECONDS - step))

# ---- image
say "building the image (log: tmp/container-test/build.log)"
step=$SECONDS
opts=(--format docker --pull=never --layers --jobs 2 "${RUN_OPTS[@]}" -f Containerfile)
# A TLS-inspecting proxy's CA (this machine's bundle) for the steps that download from npm.
[ -s /etc/ssl/certs/ca-certificates.crt ] &&
  opts+=(--secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt)
build=("${PODMAN[@]}" build "${opts[@]}" --iidfile "$work/image-id" -t localhost/cutroom:ci .)
if ! "${build[@]}" >"$work/build.log" 2>&1; then
  # One retry: a download that failed in passing; a broken Containerfile fails again, fast
  # (the layers before the failing step are cached).
  say "build failed; retrying once ($(grep -m1 -E 'Error|error' "$work/build.log" || true))"
  if ! "${build[@]}" >"$work/build.log" 2>&1; then
    tail -40 "$work/build.log"
    say "FAILED: the image does not build"
    exit 1
  fi
fi
image=$(cat "$work/image-id")
cached=$(grep -c -- '--> Using cache' "$work/build.log" || true)
build_sec=$((SECONDS - step))
step=$SECONDS
# Keep the build cache, drop what earlier builds left: the intermediate stages are named (an
# unnamed image no other image builds on is pruned), then unnamed leftovers are removed.
for stage in deps console; do
  "${PODMAN[@]}" build "${opts[@]}" --target "$stage" -t "localhost/cutroom-ci-cache:$stage" . >>"$log" 2>&1 || true
done
"${PODMAN[@]}" image prune -f >>"$log" 2>&1 || true
cache_sec=$((SECONDS - step))

# ---- run: migrate, api + worker on one volume, render over HTTP
say "running migrate, api and worker containers; rendering over HTTP"
step=$SECONDS
id="$$-$RANDOM"
admin_url="${CONTAINER_TEST_DATABASE_URL:-${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}}"
db="cutroom_container_${id//-/_}"
db_url="${admin_url%/*}/$db"
volume="cutroom-ci-$id"
api="cutroom-ci-api-$id"
worker="cutroom-ci-worker-$id"
cleanup() {
  "${PODMAN[@]}" rm -f -t 0 "$api" "$worker" >/dev/null 2>&1 || true
  "${PODMAN[@]}" volume rm -f "$volume" >/dev/null 2>&1 || true
  psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
fail() {
  say "FAILED: $*"
  for c in "$api" "$worker"; do
    echo "---- last lines of $c"
    "${PODMAN[@]}" logs --tail 40 "$c" 2>&1 | grep -v 'systemd' || true
  done
  exit 1
}

pg_isready -d "$admin_url" -q || unusable "no PostgreSQL server at $admin_url"
psql -q "$admin_url" -c "CREATE DATABASE $db" >/dev/null
"${PODMAN[@]}" volume create "$volume" >/dev/null
free_port() { node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
port=$(free_port)
worker_port=$(free_port)
env_opts=(-e "DATABASE_URL=$db_url" -e "PORT=$port" -e "PUBLIC_URL=http://127.0.0.1:$port"
  -e "WORKER_PORT=$worker_port" -e WORKER_IN_PROCESS=false -e LOG_LEVEL=info)

migrated=$("${PODMAN[@]}" run --rm "${RUN_OPTS[@]}" -v "$volume:/data" "${env_opts[@]}" "$image" migrate 2>>"$log") ||
  fail "the migrate role failed: $migrated"
[ "$migrated" = "migrations applied (postgres)" ] || fail "migrate printed: $migrated"

"${PODMAN[@]}" run -d --name "$api" "${RUN_OPTS[@]}" -v "$volume:/data" "${env_opts[@]}" "$image" api >>"$log" 2>&1 ||
  fail "the api container did not start"
"${PODMAN[@]}" run -d --name "$worker" "${RUN_OPTS[@]}" -v "$volume:/data" "${env_opts[@]}" "$image" worker >>"$log" 2>&1 ||
  fail "the worker container did not start"

running() { [ "$("${PODMAN[@]}" inspect --format '{{.State.Running}}' "$1" 2>/dev/null)" = true ]; }
deadline=$((SECONDS + 180))
until "${PODMAN[@]}" healthcheck run "$api" >/dev/null 2>&1; do
  running "$api" || fail "the api container exited"
  running "$worker" || fail "the worker container exited"
  [ "$SECONDS" -lt "$deadline" ] || fail "the api container was not healthy within 180 s"
  sleep 1
done
# The worker is healthy once its /healthz (WORKER_PORT) says it reaches the database and its queue.
until "${PODMAN[@]}" healthcheck run "$worker" >/dev/null 2>&1; do
  running "$worker" || fail "the worker container exited"
  [ "$SECONDS" -lt "$deadline" ] || fail "the worker container was not healthy within 180 s"
  sleep 1
done
key=$("${PODMAN[@]}" logs "$api" 2>/dev/null | grep -o -m1 'crk_[A-Za-z0-9_-]*' || true)
[ -n "$key" ] || fail "the api's first start printed no owner key"

# A 4 s colour clip with a tone, uploaded and rendered by the demo (title, captions, ducked music).
ffmpeg -hide_banner -loglevel error -f lavfi -i "color=c=0x1d3557:s=640x360:r=30:d=4" \
  -f lavfi -i "sine=f=330:d=4" -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -shortest \
  "$work/colour.mp4"
CUTROOM_URL="http://127.0.0.1:$port" CUTROOM_KEY="$key" DEMO_QUALITY=draft DEMO_OUTPUT="$work/out.mp4" \
  timeout 600 node scripts/demo.ts "$work/colour.mp4" >"$work/demo.log" 2>&1 ||
  { cat "$work/demo.log"; fail "the demo render over HTTP failed"; }
composition=$(grep -o -m1 'cmp_[A-Za-z0-9]*' "$work/demo.log")
render=$(grep -o -m1 'rnd_[A-Za-z0-9]*' "$work/demo.log")

# The output: the composition's length (its last clip's end), the canvas size, not empty.
expected=$(curl -fsS -H "Authorization: Bearer $key" "http://127.0.0.1:$port/api/compositions/$composition" |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    const c = JSON.parse(s);
    const end = Math.max(...c.tracks.flatMap((t) => t.clips.map((k) => k.start + k.duration)));
    console.log(`${c.canvas.duration ?? end} ${c.canvas.width}x${c.canvas.height}`);
  });')
read -r want_duration want_size <<<"$expected"
duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$work/out.mp4")
frame=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 "$work/out.mp4")
bytes=$(stat -c %s "$work/out.mp4")
node -e 'const [got, want] = process.argv.slice(1).map(Number); process.exit(Math.abs(got - want) <= 0.1 ? 0 : 1)' \
  "$duration" "$want_duration" || fail "output lasts $duration s, the composition $want_duration s"
[ "$frame" = "$want_size" ] || fail "output is $frame, the canvas $want_size"
[ "$bytes" -gt 10000 ] || fail "output is only $bytes bytes"
# The whole log first, then the search: `podman logs | grep -q` fails under pipefail whenever
# grep matches and exits before podman has written everything (podman then dies of SIGPIPE).
worker_log=$("${PODMAN[@]}" logs "$worker" 2>/dev/null || true)
grep -q "$render" <<<"$worker_log" || fail "the worker container's log does not name $render"
# The worker's Prometheus metrics count the render it ran: made in one piece by the render job,
# or (mp4, by default) as segments finished by the join job.
curl -fsS "http://127.0.0.1:$worker_port/metrics" >"$work/metrics.txt" || fail "the worker's /metrics did not answer"
grep -Eq '^cutroom_job_duration_seconds_count\{[^}]*kind="render(_join)?"[^}]*outcome="succeeded"[^}]*\} [1-9]' "$work/metrics.txt" ||
  fail "the worker's /metrics shows no succeeded render: $(grep cutroom_job_duration_seconds_count "$work/metrics.txt" | head -5)"

# Graceful stop: SIGTERM to the Node process (tini forwards it), exit status 0.
"${PODMAN[@]}" stop -t 30 "$worker" "$api" >>"$log" 2>&1
for c in "$api" "$worker"; do
  code=$("${PODMAN[@]}" inspect --format '{{.State.ExitCode}}' "$c")
  [ "$code" = 0 ] || fail "$c exited with $code on SIGTERM"
done
run_sec=$((SECONDS - step))

say "ok: render $render in the worker container, ${duration}s ${frame} ${bytes} bytes (composition ${want_duration}s)"
say "took $((SECONDS - started)) s: base image ${base_sec} s, build ${build_sec} s ($cached cached steps), cache upkeep ${cache_sec} s, run ${run_sec} s"
