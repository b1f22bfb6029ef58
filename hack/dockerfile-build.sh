#!/usr/bin/env bash
# dockerfile-build.sh builds the repository's Dockerfile as it is, with buildah and no Docker
# daemon, on base images it makes itself, then runs the image and checks it
# (docs/deploy.md "Images").
#
# The Dockerfile's two bases come from registries (golang:GO_VERSION-trixie,
# gcr.io/distroless/base-debian13:nonroot); this script makes their equals from Debian 13's
# packages on deb.debian.org and the Go toolchain that `go env GOROOT` names (fetched through
# the module proxy when the local go is another version), and passes them as the Dockerfile's
# GOLANG_IMAGE and DISTROLESS_IMAGE. Run as root on Debian; it installs buildah and mmdebstrap
# with apt-get when they are missing.
#
# Usage: hack/dockerfile-build.sh [--fresh]
#   --fresh   make the base images again (new Debian packages), not only the gpucost image.
# Environment:
#   GPUCOST_DOCKERFILE_CACHE  where the base images, buildah's storage and its RUN cache mounts
#                             live (default /var/cache/gpucost-dockerfile; about 2.5 GB)
#   DEBIAN_MIRROR             default http://deb.debian.org/debian
#   VERSION                   the image's version (default: git describe, else dev)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$HOME/go/bin:$PATH

cache=${GPUCOST_DOCKERFILE_CACHE:-/var/cache/gpucost-dockerfile}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
fresh=false
case "${1:-}" in
--fresh) fresh=true ;;
"") ;;
*) echo "usage: hack/dockerfile-build.sh [--fresh]" >&2; exit 2 ;;
esac

start=$SECONDS
say() { printf 'dockerfile-build [%3ds] %s\n' $((SECONDS - start)) "$*"; }
die() { printf 'dockerfile-build: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root: mmdebstrap and buildah make root filesystems owned by root and uid 65532"
missing=()
command -v buildah >/dev/null || missing+=(buildah)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || die "install ${missing[*]} (Debian 12 or later has both)"
  say "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
fi

# The Go version and Debian suite the Dockerfile names.
go_version=$(sed -n 's/^ARG GO_VERSION=//p' Dockerfile)
[ -n "$go_version" ] || die "Dockerfile has no ARG GO_VERSION=…: this script reads the Go version from it"
suite=trixie
golang_image=localhost/gpucost-local/golang:${go_version}-${suite}
distroless_image=localhost/gpucost-local/distroless-base-debian13:nonroot
image=localhost/gpucost:dockerfile

# buildah keeps its images, layers and RUN --mount=type=cache contents under the cache, apart
# from any other containers on the machine. overlay where the kernel has it, else vfs (slower,
# a full copy per layer).
mkdir -p "$cache"
storage_driver=overlay
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || true
grep -qw overlay /proc/filesystems || storage_driver=vfs
# RUN --mount=type=cache directories live under buildah's TMPDIR: keep them under the cache
# too, so that a warm build finds the module and build caches.
mkdir -p "$cache/tmp"
bah() {
  TMPDIR=$cache/tmp buildah --root "$cache/storage" --runroot "$cache/run" --storage-driver "$storage_driver" "$@"
}

has_image() { bah inspect --type image "$1" >/dev/null 2>&1; }
# Working containers an interrupted run left behind.
bah rm --all >/dev/null 2>&1 || true

# make_golang makes the builder base: a Debian trixie minbase root with what golang:trixie
# (buildpack-deps:trixie-scm plus gcc) has that builds gpucost, and the Go toolchain in
# /usr/local/go, configured as golang's image is. It also keeps, in $cache/debs, the packages
# of the runtime base from the same archive state, so both bases have the same glibc.
make_golang() {
  local goroot
  goroot=$(GOTOOLCHAIN=go$go_version go env GOROOT) ||
    die "cannot get Go $go_version: GOTOOLCHAIN=go$go_version go env GOROOT failed (needs the module proxy)"
  [ "$("$goroot/bin/go" env GOVERSION)" = "go$go_version" ] || die "$goroot/bin/go is not go$go_version"
  say "making $golang_image: mmdebstrap $suite from $mirror, Go from $goroot"
  local ctr mnt
  ctr=$(bah from scratch)
  mnt=$(bah mount "$ctr")
  rm -rf "$cache/debs" && mkdir -p "$cache/debs"
  mmdebstrap --quiet --mode=root --variant=minbase \
    --include=ca-certificates,curl,git,netbase,openssh-client,procps,gcc,g++,libc6-dev,make,pkg-config \
    --customize-hook='mkdir -m 0777 -p "$1/tmp/debs" && chroot "$1" sh -c "cd /tmp/debs && apt-get download -qq base-files netbase tzdata libc6 libgcc-s1 gcc-14-base libssl3t64 libzstd1 zlib1g"' \
    --customize-hook="sync-out /tmp/debs $cache/debs" \
    --customize-hook='rm -rf "$1/tmp/debs"' \
    "$suite" "$mnt" \
    "deb $mirror $suite main" "deb $mirror $suite-updates main" \
    "deb ${mirror%/debian}/debian-security $suite-security main" ||
    die "mmdebstrap $suite failed: is $mirror reachable, and does /usr/share/keyrings hold Debian 13's keys (debian-archive-keyring)?"
  # The runtime base gets Debian's CA bundle as it stands; the builder also trusts the CAs this
  # host added in /usr/local/share/ca-certificates (a TLS-inspecting proxy in front of the
  # module proxy, say), as a golang image on this host would need to download modules.
  cp "$mnt/etc/ssl/certs/ca-certificates.crt" "$cache/debs/ca-certificates.crt"
  if [ -n "$(ls /usr/local/share/ca-certificates/*.crt 2>/dev/null)" ]; then
    say "the builder also trusts this host's $(ls /usr/local/share/ca-certificates/*.crt | xargs -n1 basename | paste -sd' ')"
    cp /usr/local/share/ca-certificates/*.crt "$mnt/usr/local/share/ca-certificates/"
    chroot "$mnt" update-ca-certificates >/dev/null 2>&1 || die "update-ca-certificates failed in the builder root"
  fi
  cp -a "$goroot" "$mnt/usr/local/go"
  mkdir -p "$mnt/go/src" "$mnt/go/bin" && chmod -R 1777 "$mnt/go"
  bah umount "$ctr" >/dev/null
  bah config --env GOLANG_VERSION="$go_version" --env GOTOOLCHAIN=local --env GOPATH=/go \
    --env PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --workingdir /go --cmd bash "$ctr"
  bah commit --quiet --rm "$ctr" "$golang_image" >/dev/null
}

# make_distroless makes the runtime base as distroless makes base-debian13:nonroot: the files
# of base-files, netbase, tzdata, libc6 (with libgcc-s1) and libssl3t64 (with libzstd1, zlib1g)
# unpacked, not installed; the CA bundle; passwd and group with root, nobody and nonroot
# (65532); /tmp 1777; user 65532 in /home/nonroot. No shell, no package manager.
make_distroless() {
  [ -n "$(ls "$cache"/debs/*.deb 2>/dev/null)" ] && [ -f "$cache/debs/ca-certificates.crt" ] ||
    die "$cache/debs lacks the runtime base's packages: run with --fresh"
  say "making $distroless_image from $(ls "$cache"/debs/*.deb | wc -l) packages"
  local ctr mnt deb
  ctr=$(bah from scratch)
  mnt=$(bah mount "$ctr")
  for d in bin lib lib64 sbin; do ln -s "usr/$d" "$mnt/$d"; done
  mkdir -p "$mnt/usr/bin" "$mnt/usr/lib" "$mnt/usr/lib64" "$mnt/usr/sbin"
  for deb in "$cache"/debs/*.deb; do
    dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$mnt"
  done
  install -D -m 0644 "$cache/debs/ca-certificates.crt" "$mnt/etc/ssl/certs/ca-certificates.crt"
  printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
    'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >"$mnt/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'tty:x:5:' 'staff:x:50:' 'nonroot:x:65532:' >"$mnt/etc/group"
  printf '%s\n' 'passwd: files' 'group: files' 'shadow: files' 'hosts: files dns' 'networks: files' \
    'protocols: files' 'services: files' 'ethers: files' 'rpc: files' >"$mnt/etc/nsswitch.conf"
  install -d -m 1777 "$mnt/tmp"
  install -d -m 0700 "$mnt/root"
  install -d -m 0700 -o 65532 -g 65532 "$mnt/home/nonroot"
  bah umount "$ctr" >/dev/null
  bah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    --user 65532 --workingdir /home/nonroot "$ctr"
  bah commit --quiet --rm "$ctr" "$distroless_image" >/dev/null
}

if $fresh; then
  bah rmi -f "$image" "$golang_image" "$distroless_image" >/dev/null 2>&1 || true
fi
if has_image "$golang_image" && has_image "$distroless_image"; then
  say "base images cached in $cache ($golang_image, $distroless_image); --fresh makes them again"
else
  bah rmi -f "$golang_image" "$distroless_image" >/dev/null 2>&1 || true
  make_golang
  make_distroless
fi

version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
commit=$(git rev-parse HEAD 2>/dev/null || true)
say "buildah build -f Dockerfile ($storage_driver storage, version $version)"
bah build --isolation chroot --layers --pull=never \
  --build-arg GOLANG_IMAGE="$golang_image" --build-arg DISTROLESS_IMAGE="$distroless_image" \
  --build-arg VERSION="$version" --build-arg COMMIT="$commit" \
  -f Dockerfile -t "$image" .
say "built $image"
# Earlier builds' layers go; this build's stay, as the next build's layer cache.
bah rmi --prune >/dev/null 2>&1 || true

# The image's configuration: what docker run would use.
field() { bah inspect --type image --format "$1" "$image"; }
user=$(field '{{.OCIv1.Config.User}}')
entrypoint=$(field '{{.OCIv1.Config.Entrypoint}}')
env=" $(field '{{range .OCIv1.Config.Env}}{{.}} {{end}}')"
fail=0
check() { # check WHAT GOT WANT
  if [ "$2" = "$3" ]; then say "ok   $1: $2"; else say "FAIL $1: $2, want $3"; fail=1; fi
}
check "user" "$user" "65532:65532"
check "entrypoint" "$entrypoint" '[/usr/local/bin/gpucost]'
check "cmd" "$(field '{{.OCIv1.Config.Cmd}}')" '[--help]'
for e in NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=utility; do
  case "$env" in *" $e "*) check "env" "$e" "$e" ;; *) check "env $e" "absent" "$e" ;; esac
done
check "label version" "$(field '{{index .OCIv1.Config.Labels "org.opencontainers.image.version"}}')" "$version"

# Run the entrypoint as the image's user, as docker run would: buildah run takes the user and
# the environment from the image; the entrypoint is given, since buildah run does not add it.
ctr=$(bah from --pull=never "$image")
trap 'bah rm "$ctr" >/dev/null 2>&1 || true' EXIT
run() { bah run --isolation chroot "$ctr" -- /usr/local/bin/gpucost "$@"; }
run version | sed 's/^/    /'
[ "${PIPESTATUS[0]}" = 0 ] || die "gpucost version failed in the image"
out=$(run version -o json) || die "gpucost version -o json failed in the image"
check "gpucost version: NVML support (cgo)" "$(printf '%s\n' "$out" | sed -n 's/^ *"nvml": \([a-z]*\).*/\1/p')" true
# A store in the default place (XDG_DATA_HOME=/tmp) and one in /var/lib/gpucost are owned by
# the image's user, and / is not writable by it.
run token list >/dev/null || die "gpucost token list failed in the image"
run token list --db /var/lib/gpucost/gpucost.db >/dev/null ||
  die "gpucost token list --db /var/lib/gpucost/gpucost.db failed in the image"
mnt=$(bah mount "$ctr")
for db in /tmp/gpucost/gpucost.db /var/lib/gpucost/gpucost.db; do
  check "owner of $db" "$(stat -c %u:%g "$mnt$db")" "65532:65532"
done
check "dynamic linker of gpucost (cgo)" \
  "$(readelf -l "$mnt/usr/local/bin/gpucost" | sed -n 's/.*interpreter: \(.*\)]/\1/p')" /lib64/ld-linux-x86-64.so.2
if run token list --db /denied.db >/dev/null 2>&1; then
  check "gpucost --db /denied.db as 65532" "succeeded" "refused"
else
  check "gpucost --db /denied.db as 65532" "refused" "refused"
fi
bah umount "$ctr" >/dev/null

# serve runs in the image over the store in /var/lib/gpucost: GET /readyz answers 200, and it
# stops on SIGTERM (docker stop) saying so.
port=$((20000 + RANDOM % 20000))
bah run --isolation chroot "$ctr" -- /usr/local/bin/gpucost serve --db /var/lib/gpucost/gpucost.db \
  --listen "127.0.0.1:$port" >"$cache/serve.log" 2>&1 &
serve=$!
ready="no answer in 30 s (log: $cache/serve.log)"
for _ in $(seq 60); do
  if curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz" 2>/dev/null; then ready=200; break; fi
  kill -0 "$serve" 2>/dev/null || { ready="exited (log: $cache/serve.log)"; break; }
  sleep 0.5
done
check "gpucost serve in the image: GET /readyz" "$ready" 200
# buildah run does not pass SIGTERM on: send it to gpucost, the deepest of its processes.
leaf=$serve
while child=$(ps -o pid= --ppid "$leaf" | head -1 | tr -d ' '); [ -n "$child" ]; do leaf=$child; done
kill "$leaf" 2>/dev/null || true
for _ in $(seq 40); do kill -0 "$serve" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$serve" 2>/dev/null; then
  kill -9 "$leaf" "$serve" 2>/dev/null || true
fi
wait "$serve" 2>/dev/null || true
if grep -q 'msg="server stopped"' "$cache/serve.log"; then
  check "gpucost serve on SIGTERM" "stopped" "stopped"
else
  check "gpucost serve on SIGTERM" "no \"server stopped\" in $cache/serve.log" "stopped"
fi

# The size docker images would show, and the size pushed to a registry (gzip layers).
size=$(bah images --format '{{.Size}}' "$image" | head -1)
rm -rf "$cache/oci" && bah push --quiet "$image" "oci:$cache/oci:gpucost" >/dev/null
pushed=$(du -sb "$cache/oci/blobs" | cut -f1)
rm -rf "$cache/oci"
say "image $image: $size, $((pushed / 1000000)) MB compressed"
[ "$fail" = 0 ] || die "the image failed the checks above"
say "done"
