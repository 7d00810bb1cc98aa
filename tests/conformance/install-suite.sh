#!/usr/bin/env bash
# Builds librdkafka's own test runner (tests/test-runner) from Debian's source package of the
# librdkafka version that is installed (2.0.2 on Debian 12), for run.sh to point at skiff.
#
#   bash tests/conformance/install-suite.sh        (as root: it uses apt-get)
#
# Idempotent: a second run finds the built runner and only prints where it is.
#   RDKAFKA_SUITE_DIR   cache directory for the source and the build
#                       (default /var/cache/skiff-librdkafka)
# Steps: enables a deb-src entry for the Debian archive that librdkafka1 comes from (a separate
# file, /etc/apt/sources.list.d/skiff-librdkafka-src.list, when apt has none), apt-get update,
# `apt-get source librdkafka=VERSION` into the cache, installs the few build dependencies
# (not `apt-get build-dep`, which pulls in doxygen, graphviz and more), then
# ./configure (optional features off), `make libs`, `make -C tests build`, one job per core
# (RDKAFKA_SUITE_JOBS): 51 s from scratch on 2 nearly idle cores, the source download included.
# Nothing of the suite is put in the repository. The last line printed is the runner's path.
set -euo pipefail

suite_dir=${RDKAFKA_SUITE_DIR:-/var/cache/skiff-librdkafka}
src_list=/etc/apt/sources.list.d/skiff-librdkafka-src.list
export DEBIAN_FRONTEND=noninteractive

log() { echo "install-suite: $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  log "must run as root (apt-get)"
  exit 2
fi

apt_updated=0
apt_update() {
  log "apt-get update"
  apt-get update -qq
  apt_updated=1
}

# The version to test is the installed library's (the suite must match the library the project's
# clients use); with no librdkafka1 installed, the archive's candidate.
version=$(dpkg-query -W -f='${Version}' librdkafka1 2>/dev/null || true)
if [ -z "$version" ]; then
  apt_update
  version=$(apt-cache policy librdkafka1 | awk '/Candidate:/ {print $2}')
fi
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
  log "no librdkafka1 version found in apt"
  exit 1
fi
upstream=${version#*:}
upstream=${upstream%-*}
src="$suite_dir/librdkafka-$upstream"
runner="$src/tests/test-runner"
stamp="$src/.skiff-built-$version"

if [ -x "$runner" ] && [ -f "$stamp" ]; then
  log "librdkafka $version test runner already built"
  echo "$runner"
  exit 0
fi

# deb-src: present when apt can show the source package at this version.
have_source() {
  apt-cache showsrc librdkafka 2>/dev/null | grep -qx "Version: $version"
}
if ! have_source; then
  [ "$apt_updated" -eq 1 ] || apt_update
fi
if ! have_source; then
  # The archive librdkafka1 comes from, e.g. "http://deb.debian.org/debian bookworm/main".
  read -r uri suite_comp < <(apt-cache policy librdkafka1 |
    awk '/ Packages$/ && $2 ~ /^https?:/ {print $2, $3; exit}') || true
  if [ -z "${uri:-}" ] || [ -z "${suite_comp:-}" ]; then
    log "cannot tell which archive librdkafka1 comes from (apt-cache policy librdkafka1)"
    exit 1
  fi
  suite=${suite_comp%%/*}
  comp=${suite_comp#*/}
  opts=""
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -f "$keyring" ] && opts="[signed-by=$keyring] "
  log "adding $src_list: deb-src $opts$uri $suite $comp"
  echo "deb-src $opts$uri $suite $comp" >"$src_list"
  apt_update
  if ! have_source; then
    log "source package librdkafka $version still not available after adding $src_list"
    exit 1
  fi
fi

# dpkg-dev unpacks the source package; the rest is what the configure below uses. curl is off.
deps=(dpkg-dev build-essential pkg-config python3 zlib1g-dev libssl-dev
  libzstd-dev)
missing=()
for p in "${deps[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  [ "$apt_updated" -eq 1 ] || apt_update
  log "apt-get install ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$suite_dir"
if [ ! -f "$src/configure" ]; then
  log "apt-get source librdkafka=$version into $suite_dir"
  rm -rf "$src"
  # apt-get source as root warns that the download is not sandboxed; harmless here.
  (
    cd "$suite_dir"
    apt-get source -qq "librdkafka=$version" 2>&1 | grep -v 'unsandboxed as root' >&2 || true
  )
  [ -f "$src/configure" ] || { log "apt-get source did not unpack $src"; exit 1; }
fi

jobs=${RDKAFKA_SUITE_JOBS:-$(nproc)}
cd "$src"
log "configure"
# --install-deps off: mklove would otherwise download dependencies. Debian's patches are applied
# by dpkg-source already. curl (OIDC) and gssapi are not needed for PLAINTEXT tests. No -g:
# nothing reads the suite's debug information, and without it the build took 51 s instead of
# 69.5 s (tests/conformance/RESULTS.md); the code is the same -O2 build.
nice -n 15 ./configure --prefix="$src/_install" --disable-curl --disable-gssapi \
  --disable-lz4-ext --disable-regex-ext --disable-debug-symbols >"$suite_dir/configure.log" 2>&1 ||
  { tail -n 40 "$suite_dir/configure.log" >&2; exit 1; }
log "make libs (-j$jobs)"
nice -n 15 make -j"$jobs" libs >"$suite_dir/make-libs.log" 2>&1 ||
  { tail -n 40 "$suite_dir/make-libs.log" >&2; exit 1; }
log "make -C tests build (-j$jobs)"
nice -n 15 make -j"$jobs" -C tests build >"$suite_dir/make-tests.log" 2>&1 ||
  { tail -n 40 "$suite_dir/make-tests.log" >&2; exit 1; }
[ -x "$runner" ] || { log "no $runner after the build"; exit 1; }
touch "$stamp"
log "built librdkafka $version test runner"
echo "$runner"
