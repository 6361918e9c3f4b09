#!/usr/bin/env bash
# build-base.sh — the container image's base made from Debian packages and the local JDK, without a registry or a
# Docker daemon: a Debian minbase (mmdebstrap, from a Debian mirror, its packages checked against the archive's
# signed Release file) plus a Java runtime linked by jlink from the JDK 25 at hand, in /opt/java/openjdk, with
# JAVA_HOME and PATH set as the eclipse-temurin images set them. Written as a docker-save tar (manifest.json, the
# image configuration and one uncompressed tar per layer): Jib takes it as tar://FILE, and `docker load` or
# `podman load` takes it too.
#
# The result is cached under $SIPLINE_IMAGE_CACHE (default ~/.cache/sipline/image-base), keyed by this script, the
# suite, the mirror, the JDK's release file and the modules: a second build with the same inputs copies the cached
# tar (seconds); --rebuild makes it anew (e.g. for Debian's security updates).
#
# Needs: mmdebstrap (apt-get install mmdebstrap; as root it runs in its root mode, otherwise in its unshare mode,
# which needs the uidmap package and a subordinate id range), a JDK 25 with jlink, sha256sum, tar.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: build-base.sh [options] OUTPUT.tar
  --suite NAME      Debian suite (default bookworm)
  --mirror URL      Debian mirror (default http://deb.debian.org/debian)
  --jdk DIR         the JDK whose jlink makes the runtime (default $JAVA_HOME)
  --tag NAME:TAG    the tag written into the tar (default sipline-base:25-SUITE)
  --rebuild         ignore the cache
USAGE
}

SUITE=bookworm
MIRROR=http://deb.debian.org/debian
JDK=${JAVA_HOME:-}
TAG=""
REBUILD=false
OUT=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --suite) SUITE=$2; shift 2 ;;
    --mirror) MIRROR=$2; shift 2 ;;
    --jdk) JDK=$2; shift 2 ;;
    --tag) TAG=$2; shift 2 ;;
    --rebuild) REBUILD=true; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "build-base.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) OUT=$1; shift ;;
  esac
done
[[ -n "$OUT" ]] || { usage >&2; exit 2; }
[[ -n "$TAG" ]] || TAG="sipline-base:25-$SUITE"
die() { echo "build-base.sh: $*" >&2; exit 1; }
[[ -n "$JDK" && -x "$JDK/bin/jlink" ]] || die "no jlink in '${JDK}' (set JAVA_HOME or --jdk to a JDK 25)"
JAVA_VERSION=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JDK/release")
[[ "${JAVA_VERSION:-0}" -ge 25 ]] || die "$JDK is Java ${JAVA_VERSION:-?}, not 25 or newer"
command -v mmdebstrap >/dev/null || die "mmdebstrap is not installed (apt-get install mmdebstrap)"

# The runtime: Java SE and the JDK modules a server uses in production (JFR, JMX, jcmd, the debugger's agent,
# SCTP, the crypto providers, every charset and locale), not the compiler and tools of a JDK.
MODULES=java.se,jdk.unsupported,jdk.httpserver,jdk.jfr,jdk.management,jdk.management.agent,jdk.management.jfr
MODULES+=,jdk.incubator.vector,jdk.crypto.cryptoki,jdk.crypto.ec,jdk.charsets,jdk.localedata,jdk.zipfs
MODULES+=,jdk.naming.dns,jdk.net,jdk.sctp,jdk.jcmd,jdk.attach,jdk.jdwp.agent,jdk.security.auth,jdk.security.jgss
JAVA_DIR=opt/java/openjdk
# one fixed time for every file and the image: the same inputs make the same layers
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1735689600}
CREATED=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
case $(uname -m) in
  x86_64) ARCH=amd64 ;;
  aarch64) ARCH=arm64 ;;
  *) die "no image architecture for $(uname -m)" ;;
esac

KEY=$( { cat "$0"; echo "$SUITE $MIRROR $TAG $MODULES $SOURCE_DATE_EPOCH $ARCH"; cat "$JDK/release"; } \
  | sha256sum | cut -c1-16)
CACHE=${SIPLINE_IMAGE_CACHE:-$HOME/.cache/sipline/image-base}
CACHED="$CACHE/sipline-base-$SUITE-$KEY.tar"
mkdir -p "$(dirname "$OUT")" "$CACHE"
if ! $REBUILD && [[ -f "$CACHED" ]]; then
  ln -f "$CACHED" "$OUT" 2>/dev/null || cp "$CACHED" "$OUT"
  echo "build-base.sh: $OUT ($TAG) from the cache $CACHED"
  exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/sipline-base.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
started=$SECONDS

# Layer 1: Debian minbase, slimmed as the debian:*-slim images are (no manuals, no documentation but the
# copyright files, no translations); no device nodes (the container runtime makes /dev).
mmdebstrap --quiet --variant=minbase --format=tar --skip=output/dev \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  "$SUITE" "$WORK/debian.tar" "$MIRROR" >"$WORK/mmdebstrap.log" 2>&1 \
  || { tail -n 30 "$WORK/mmdebstrap.log" >&2; die "mmdebstrap failed"; }

# Layer 2: the Java runtime, with its default CDS archive (faster start)
mkdir -p "$WORK/java/opt/java"
"$JDK/bin/jlink" --add-modules "$MODULES" --strip-debug --no-man-pages --no-header-files --generate-cds-archive \
  --output "$WORK/java/$JAVA_DIR" >"$WORK/jlink.log" 2>&1 || { cat "$WORK/jlink.log" >&2; die "jlink failed"; }
"$WORK/java/$JAVA_DIR/bin/java" -version >/dev/null 2>&1 || die "the linked runtime does not start"
tar -C "$WORK/java" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
  -cf "$WORK/java.tar" opt

# The image configuration (the OCI image spec's config, as docker save writes it) and manifest.json
diff_id() { echo "sha256:$(sha256sum "$1" | cut -d' ' -f1)"; }
PATH_ENV="/$JAVA_DIR/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
JDK_VERSION=$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$JDK/release")
cat >"$WORK/config.json" <<JSON
{"architecture":"$ARCH","os":"linux","created":"$CREATED",
 "config":{"Env":["PATH=$PATH_ENV","JAVA_HOME=/$JAVA_DIR","LANG=C.UTF-8"],"Cmd":["bash"]},
 "rootfs":{"type":"layers","diff_ids":["$(diff_id "$WORK/debian.tar")","$(diff_id "$WORK/java.tar")"]},
 "history":[{"created":"$CREATED","created_by":"mmdebstrap --variant=minbase $SUITE $MIRROR"},
  {"created":"$CREATED","created_by":"jlink --add-modules $MODULES (Java ${JDK_VERSION:-$JAVA_VERSION})"}]}
JSON
cat >"$WORK/manifest.json" <<JSON
[{"Config":"config.json","RepoTags":["$TAG"],"Layers":["debian.tar","java.tar"]}]
JSON
tar -C "$WORK" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
  -cf "$WORK/image.tar" manifest.json config.json debian.tar java.tar
mv "$WORK/image.tar" "$CACHED.tmp.$$" && mv "$CACHED.tmp.$$" "$CACHED"
ln -f "$CACHED" "$OUT" 2>/dev/null || cp "$CACHED" "$OUT"
echo "build-base.sh: $OUT ($TAG, $(du -m "$OUT" | cut -f1) MB) in $((SECONDS - started)) s, cached as $CACHED"
