#!/usr/bin/env bash
# Builds MLIR's upstream Python bindings (the `mlir` package: mlir.ir,
# mlir.passmanager, mlir.execution_engine, mlir.dialects.*) against Debian's
# installed LLVM/MLIR, which does not ship them, and caches the result outside
# the clone. A fast no-op when the cache entry exists.
#
# Usage: scripts/build-mlir-python.sh [PYTHON]
#   PYTHON  interpreter the bindings are for (default: $TT_PYTHON, else
#           <repo>/.venv/bin/python, else python3).
# Env: TT_BUILD_CACHE_DIR (/var/cache/tinytensor)  TT_LLVM_MAJOR (22)
#      TT_BUILD_JOBS (nproc)  TT_FORCE=1 rebuild  TT_KEEP_BUILD=1 keep work dir
# Stdout: one line, the directory to put on PYTHONPATH. Progress goes to stderr.
#
# Cache: $TT_BUILD_CACHE_DIR/downloads/llvm-toolchain-NN_<ver>.orig.tar.xz
#        $TT_BUILD_CACHE_DIR/mlir-python-<ver>-cpXY/{python_packages/mlir_core/mlir,
#            mlir-python-bindings.cmake, src/mlir, BUILD-INFO}
# Needs root (apt) only when the source tarball is not cached yet.
set -euo pipefail

log() { echo "build-mlir-python: $*" >&2; }
die() { log "error: $*"; exit 1; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
py=${1:-${TT_PYTHON:-}}
if [[ -z $py ]]; then
  if [[ -x $repo/.venv/bin/python ]]; then py=$repo/.venv/bin/python; else py=python3; fi
fi
py=$(command -v "$py") || die "no Python interpreter '$py'"
major=${TT_LLVM_MAJOR:-22}
prefix=/usr/lib/llvm-$major
cache=${TT_BUILD_CACHE_DIR:-/var/cache/tinytensor}

# Installed MLIR version; dpkg's upstream part must match llvm-config.
debver=$(dpkg-query -W -f='${Version}' "libmlir-$major-dev" 2>/dev/null) \
  || die "libmlir-$major-dev is not installed"
version=$(llvm-config-"$major" --version) || die "llvm-config-$major not found"
up=${debver#*:}; up=${up%-*}                     # 1:22.1.8-1~deb12u1 -> 22.1.8
[[ $up == "$version" ]] || die "libmlir-$major-dev $debver vs llvm-config-$major $version"
pytag=$("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
dest=$cache/mlir-python-$version-$pytag
pypath=$dest/python_packages/mlir_core

if [[ -f $dest/BUILD-INFO && ${TT_FORCE:-0} != 1 ]]; then
  log "cached: $dest"; echo "$pypath"; exit 0
fi

[[ -f /etc/debian_version ]] || die "this script expects Debian (12 or 13)"
mkdir -p "$cache/downloads"
exec 9>"$cache/.lock"; flock 9                    # one build at a time
log "MLIR $version (libmlir-$major-dev $debver), Debian $(cat /etc/debian_version), $("$py" -V) [$py]"

# 1. Source tarball. Debian's orig tarball is the upstream llvm-project
#    release; the main archive's trixie/sid carry it (the security pool does
#    not). Only the orig tarball is needed: a revision's .dsc/.debian.tar may
#    404, which makes apt-get exit non-zero, so check for the file instead.
tarball=$cache/downloads/llvm-toolchain-${major}_$up.orig.tar.xz
if [[ ! -s $tarball ]]; then
  [[ $(id -u) == 0 ]] || die "fetching sources needs root (apt); or put $tarball in place"
  SECONDS=0
  list=/etc/apt/sources.list.d/tinytensor-llvm-src.sources
  dl=$cache/downloads/tmp.$$
  trap 'rm -rf "$list" "$dl"' EXIT
  printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' 'Suites: trixie sid' \
    'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >"$list"
  # Mirrors may be snapshots whose Release files are past their Valid-Until
  # date (sid's expires within days): only the source tarball is wanted.
  apt-get update -qq -o Dir::Etc::sourcelist="$list" -o Dir::Etc::sourceparts=- \
    -o APT::Get::List-Cleanup=0 -o Acquire::Check-Valid-Until=false \
    || die "apt-get update of $list failed"
  mkdir -p "$dl"
  for v in $(apt-cache showsrc "llvm-toolchain-$major" | awk '/^Version:/ {print $2}' | sort -u); do
    u=${v#*:}; [[ ${u%-*} == "$up" ]] || continue
    log "downloading llvm-toolchain-$major=$v orig tarball (~200 MB)"
    (cd "$dl" && apt-get source -qq --download-only "llvm-toolchain-$major=$v" >&2) || true
    [[ -s $dl/${tarball##*/} ]] && break
  done
  [[ -s $dl/${tarball##*/} ]] || die "no llvm-toolchain-$major source with upstream version $up in trixie/sid"
  mv "$dl/${tarball##*/}" "$tarball"
  rm -rf "$list" "$dl"; trap - EXIT
  log "download took ${SECONDS}s"
fi

# 2. Extract only what the bindings need (include/ for the enum .td files).
work=$cache/work-$version-$pytag
rm -rf "$work"; mkdir -p "$work/src"
SECONDS=0
tar -xJf "$tarball" -C "$work/src" --strip-components=1 --wildcards \
  '*/mlir/python/*' '*/mlir/lib/Bindings/Python/*' '*/mlir/include/*'
log "extraction took ${SECONDS}s"

# 3. Build interpreter: needs the pinned nanobind (build-time only).
nb=$(grep -m1 '^nanobind==' "$repo/python/requirements-bindings.txt")
bpy=$py
if ! "$py" -c "import sys, nanobind; sys.exit(nanobind.__version__ != '${nb#*==}')" 2>/dev/null; then
  log "no $nb in $py; using a private build venv"
  "$py" -m venv "$work/venv"; bpy=$work/venv/bin/python
  "$bpy" -m pip install -q "$nb" 'typing_extensions>=4.12.2; python_version < "3.11"' >&2
fi

# 4. Configure, build, install into a temporary entry, smoke-test, publish.
#    Prefer the matching clang + lld (the project's toolchain; ~1.5 min vs
#    ~2.7 min with g++ on 2 cores) unless CC/CXX are set.
cc=()
if [[ -z ${CXX:-} ]] && command -v "clang++-$major" >/dev/null; then
  cc=(-DCMAKE_C_COMPILER="clang-$major" -DCMAKE_CXX_COMPILER="clang++-$major")
  if command -v "ld.lld-$major" >/dev/null; then cc+=(-DLLVM_USE_LINKER=lld); fi
fi
SECONDS=0
cmake -G Ninja -S "$repo/python/mlir-bindings" -B "$work/build" -Wno-dev "${cc[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DMLIR_DIR="$prefix/lib/cmake/mlir" \
  -DMLIR_SOURCE_DIR="$work/src/mlir" \
  -DPython3_EXECUTABLE="$bpy" -DPython_EXECUTABLE="$bpy" >"$work/configure.log" \
  || die "configure failed, see $work/configure.log"
nice -n 19 cmake --build "$work/build" -j "${TT_BUILD_JOBS:-$(nproc)}" >&2 \
  || die "build failed in $work/build"
tmp=$dest.tmp.$$
rm -rf "$tmp"
cmake --install "$work/build" --component MLIRPythonModules --prefix "$tmp" >/dev/null
mkdir -p "$tmp/src/mlir"
cp -a "$work/src/mlir/python" "$work/src/mlir/lib" "$work/src/mlir/include" "$tmp/src/mlir/"
PYTHONPATH=$tmp/python_packages/mlir_core "$bpy" -c '
import mlir.ir, mlir.passmanager, mlir.execution_engine
from mlir.dialects import func, arith, tensor, memref, math
with mlir.ir.Context():
    mlir.ir.Module.parse("func.func @f() { return }")' || die "smoke test of $tmp failed"
cat >"$tmp/BUILD-INFO" <<EOF
mlir=$version libmlir-$major-dev=$debver debian=$(cat /etc/debian_version)
python=$("$py" -V 2>&1) $pytag nanobind=${nb#*==} cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:.*=//p' "$work/build/CMakeCache.txt")
built=$(date -u +%FT%TZ) build_seconds=$SECONDS
EOF
rm -rf "$dest"; mv "$tmp" "$dest"
[[ ${TT_KEEP_BUILD:-0} == 1 ]] || rm -rf "$work"
log "build took ${SECONDS}s; installed $dest"
log "use: PYTHONPATH=$pypath   (CMake: include($dest/mlir-python-bindings.cmake))"
echo "$pypath"
