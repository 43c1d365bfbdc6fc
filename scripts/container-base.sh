#!/usr/bin/env bash
# Makes the Containerfile's base image (docker.io/library/debian:bookworm-slim) from Debian's
# own packages when no registry serving it is reachable: `debootstrap --variant=minbase
# bookworm`, trimmed like Debian's slim image (no docs, man pages or locales; apt lists and
# caches cleaned), then `podman import`. An image already tagged so whose label
# org.cutroom.base-key matches this script and its settings is reused, so it is made once
# per machine. Needs root, podman and debootstrap.
#   DEBIAN_MIRROR (default http://deb.debian.org/debian), BASE_IMAGE (the tag to make)
set -euo pipefail
BASE_IMAGE="${BASE_IMAGE:-docker.io/library/debian:bookworm-slim}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
PODMAN=(podman --runtime runc)
key=$( { cat "${BASH_SOURCE[0]}"; echo "$BASE_IMAGE $DEBIAN_MIRROR"; } | sha256sum | cut -c1-16)

have=$("${PODMAN[@]}" image inspect --format '{{index .Labels "org.cutroom.base-key"}}' "$BASE_IMAGE" 2>/dev/null || true)
if [ "$have" = "$key" ]; then
  echo "container-base: reusing $BASE_IMAGE (key $key)" >&2
  exit 0
fi

echo "container-base: making $BASE_IMAGE with debootstrap (key $key)" >&2
root=$(mktemp -d /var/tmp/cutroom-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root" "$DEBIAN_MIRROR" > "$root.log" 2>&1 || {
  tail -20 "$root.log" >&2; rm -f "$root.log"; exit 1
}
rm -f "$root.log"

# The sources of Debian's own image: the release, its updates and security updates.
rm -f "$root/etc/apt/sources.list"
cat > "$root/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: ${DEBIAN_MIRROR}
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
# What Debian's slim image leaves out of every package installed later.
cat > "$root/etc/dpkg/dpkg.cfg.d/slim" <<'SLIM'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
SLIM
cat > "$root/etc/apt/apt.conf.d/docker-clean" <<'CLEAN'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
CLEAN
echo 'APT::Install-Recommends "false";' > "$root/etc/apt/apt.conf.d/docker-no-recommends"
find "$root/usr/share/doc" -mindepth 2 ! -name copyright -delete 2>/dev/null || true
rm -rf "$root"/usr/share/{man,info,locale}/* "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin \
  "$root"/var/cache/apt/archives/*.deb "$root"/var/log/* "$root"/tmp/*

tar --numeric-owner -C "$root" -c . |
  "${PODMAN[@]}" import --change 'CMD ["bash"]' --change "LABEL org.cutroom.base-key=$key" - "$BASE_IMAGE" >/dev/null
echo "container-base: made $BASE_IMAGE" >&2
