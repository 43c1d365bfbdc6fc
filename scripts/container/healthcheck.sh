#!/bin/sh
# The image's HEALTHCHECK. An `api` container is healthy when GET /api/v1/health answers 200
# (the process serves and its database answers); a `worker` when GET /healthz on its
# WORKER_PORT (default 9464) answers 200 (it reaches the database and its queue), or, with
# WORKER_PORT=0 (no server), while its process runs. Other roles are healthy while they run.
# The role is the word after the entry point on PID 1's command line (tini, or an init in front of it).
set -eu
role=$(tr '\0' '\n' </proc/1/cmdline | sed -n '\#/scripts/container/entrypoint\.sh$#{n;p;q}')
case "${role:-api}" in
  api) url="http://127.0.0.1:${PORT:-3000}/api/v1/health" ;;
  worker)
    [ "${WORKER_PORT:-9464}" != 0 ] || exit 0
    url="http://127.0.0.1:${WORKER_PORT:-9464}/healthz" ;;
  *) exit 0 ;;
esac
exec node -e '
  const url = process.argv[1];
  fetch(url, { signal: AbortSignal.timeout(4000) })
    .then((res) => { if (!res.ok) { console.error(`${url}: ${res.status}`); process.exit(1); } })
    .catch((err) => { console.error(`${url}: ${err.message}`); process.exit(1); });
' "$url"
