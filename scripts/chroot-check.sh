#!/usr/bin/env bash
# Runs README's two commands on a minimal Debian in a chroot (as root):
#
#   scripts/chroot-check.sh bookworm|trixie [DIR]
#
# debootstrap --variant=minbase builds DIR (default /srv/tinytensor-<release>)
# if it does not exist. The chroot gets this machine's package sources (the
# same mirror, for the chroot's release) and pip configuration (its
# find-links and local indexes are bind-mounted), then a clone of HEAD in
# /root/tinytensor, and runs `bash scripts/setup.sh && bash scripts/test.sh`
# there. The log is DIR.log; the exit status is the tests'.
set -euo pipefail
release=${1:?usage: scripts/chroot-check.sh bookworm|trixie [DIR]}
dir=${2:-/srv/tinytensor-$release}
root=$(cd "$(dirname "$0")/.." && pwd)
log=$dir.log
[[ $(id -u) == 0 ]] || { echo "chroot-check: needs root" >&2; exit 2; }
command -v debootstrap >/dev/null || \
  DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap >/dev/null

mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}
if [[ ! -x $dir/bin/bash ]]; then
  echo "chroot-check: debootstrap $release into $dir"
  debootstrap --variant=minbase "$release" "$dir" "$mirror" >"$log.debootstrap" 2>&1
fi

# Package sources: this machine's, for the chroot's release.
host_release=$(. /etc/os-release; echo "$VERSION_CODENAME")
if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
  sed "s/\b$host_release\b/$release/g" /etc/apt/sources.list.d/debian.sources \
    >"$dir/etc/apt/sources.list.d/debian.sources"
  : >"$dir/etc/apt/sources.list"
fi
# This machine's local certificate authorities (its HTTPS proxy's), so that
# pip in the chroot reaches PyPI as it does here.
if compgen -G "/usr/local/share/ca-certificates/*" >/dev/null; then
  mkdir -p "$dir/usr/local/share/ca-certificates"
  cp -a /usr/local/share/ca-certificates/. "$dir/usr/local/share/ca-certificates/"
  mkdir -p "$dir/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/ca-certificates.crt"
fi
# pip: this machine's configuration, and the directories it points to.
for f in /etc/pip.conf /etc/xdg/pip; do
  [[ -e $f ]] && { mkdir -p "$dir$(dirname "$f")"; cp -a "$f" "$dir$(dirname "$f")/"; }
done
mounts=()
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" || true; done
}
trap cleanup EXIT
bind() {
  mkdir -p "$dir$1"
  mount --bind "$1" "$dir$1"
  mounts+=("$dir$1")
}
mount -t proc proc "$dir/proc"; mounts+=("$dir/proc")
bind /dev
bind /sys
for d in /opt/wheels /opt/pypi /opt/pypi-more; do [[ -d $d ]] && bind "$d"; done
cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true

rm -rf "$dir/root/tinytensor"
git -C "$root" archive --format=tar --prefix=tinytensor/ HEAD | tar -x -C "$dir/root"
echo "chroot-check: running setup.sh and test.sh in $dir (log: $log)"
set +e
chroot "$dir" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  ${PIP_FIND_LINKS:+PIP_FIND_LINKS=$PIP_FIND_LINKS} \
  bash -c 'cd /root/tinytensor && cat /etc/debian_version && time bash scripts/setup.sh && time bash scripts/test.sh' \
  >"$log" 2>&1
status=$?
set -e
tail -n 5 "$log"
echo "chroot-check: $release exit status $status"
exit $status
