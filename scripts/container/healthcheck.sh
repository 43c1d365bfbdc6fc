#!/bin/sh
# The image's HEALTHCHECK. An API container is healthy when GET /api/v1/health answers 200
# (the process serves and its database answers); a worker or other role has no HTTP port
# and is healthy while its process runs (the container stops when it exits).
set -eu
role="$(cat /tmp/cutroom-role 2>/dev/null || echo api)"
[ "$role" = api ] || exit 0
exec node -e '
  const url = `http://127.0.0.1:${process.env.PORT || 3000}/api/v1/health`;
  fetch(url, { signal: AbortSignal.timeout(4000) })
    .then((res) => { if (!res.ok) { console.error(`${url}: ${res.status}`); process.exit(1); } })
    .catch((err) => { console.error(`${url}: ${err.message}`); process.exit(1); });
'
