#!/bin/sh
# The image's HEALTHCHECK. An `api` container is healthy when GET /api/v1/health answers 200
# (the process serves and its database answers); a `worker` (no HTTP port) or other role is
# healthy while its process runs (the container stops when it exits). The role is the word
# after the entry point on PID 1's command line (tini, or an init in front of it).
set -eu
role=$(tr '\0' '\n' </proc/1/cmdline | sed -n '\#/scripts/container/entrypoint\.sh$#{n;p;q}')
[ "${role:-api}" = api ] || exit 0
exec node -e '
  const url = `http://127.0.0.1:${process.env.PORT || 3000}/api/v1/health`;
  fetch(url, { signal: AbortSignal.timeout(4000) })
    .then((res) => { if (!res.ok) { console.error(`${url}: ${res.status}`); process.exit(1); } })
    .catch((err) => { console.error(`${url}: ${err.message}`); process.exit(1); });
'
