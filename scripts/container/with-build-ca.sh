#!/bin/sh
# Image build helper: runs a command that downloads (curl, npm), trusting the CA bundle passed
# as the build secret `ca-certificates` when there is one — for builds behind a TLS-inspecting
# proxy: `podman build --secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt …`.
# Without the secret the command runs with the image's own CA certificates. The bundle is
# only mounted for that step; it is not stored in the image.
set -eu
ca=/run/secrets/ca-certificates
if [ -s "$ca" ]; then
  export CURL_CA_BUNDLE="$ca" NPM_CONFIG_CAFILE="$ca" NODE_EXTRA_CA_CERTS="$ca"
fi
exec "$@"
