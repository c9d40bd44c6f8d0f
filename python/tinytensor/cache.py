"""The persistent compile cache: object code of compiled specialisations on
disk, so that a new process gets them without compiling.

An entry is keyed by the traced `tt` module (its text, without locations),
the entry point's name, the compiler (a fingerprint of TinyTensor's
extension, which holds every pass and pipeline, and of the LLVM/MLIR
libraries), the pipeline options (including TT_PIPELINE_OPTIONS), the LLVM
optimisation level and the host CPU (name and features). It holds the
object files, with a header that carries the payload's length and SHA-256:
an entry that is truncated or corrupt is detected, removed and compiled
again, never loaded.

    TT_CACHE=0          disables the cache
    TT_CACHE_DIR=path   its directory (default $XDG_CACHE_HOME/tinytensor,
                        i.e. ~/.cache/tinytensor)

Entries are written atomically (a temporary file renamed into place), so
processes may share a directory.
"""

from __future__ import annotations

import functools
import hashlib
import os
import struct
import tempfile
from typing import List, Optional, Sequence

_MAGIC = b"TTOBJ001"
_HEADER = struct.Struct("<8s32sQ")  # magic, sha256 of the payload, length


def enabled() -> bool:
    """Whether the cache is on (TT_CACHE, read at each compilation)."""
    return os.environ.get("TT_CACHE", "1").strip().lower() not in (
        "0", "false", "no", "off")


def directory() -> str:
    path = os.environ.get("TT_CACHE_DIR")
    if path:
        return path
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tinytensor")


@functools.lru_cache(maxsize=None)
def compiler_fingerprint() -> str:
    """Changes whenever the compiler may: the bytes of our extension
    (passes, pipelines, code generation) and the identity of libMLIR and
    libLLVM (path, size, modification time)."""
    from ._mlir import tt
    from mlir._mlir_libs import _ttDialects

    digest = hashlib.sha256()
    with open(_ttDialects.__file__, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    for lib in ("libMLIR.so", "libLLVM.so"):
        path = _loaded_library(lib)
        if path:
            st = os.stat(path)
            digest.update(f"{path}:{st.st_size}:{st.st_mtime_ns}".encode())
    digest.update(tt.host_cpu().encode())
    return digest.hexdigest()


def _loaded_library(prefix: str) -> Optional[str]:
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if "/" in line else ""
                if os.path.basename(path).startswith(prefix):
                    return path
    except OSError:
        pass
    return None


def key(*parts: str) -> str:
    """The entry name for a compilation described by `parts`."""
    digest = hashlib.sha256(compiler_fingerprint().encode())
    for part in parts:
        data = part.encode()
        digest.update(struct.pack("<Q", len(data)))
        digest.update(data)
    return digest.hexdigest()


def _path(name: str) -> str:
    return os.path.join(directory(), name[:2], name + ".o")


def load(name: str) -> Optional[List[bytes]]:
    """The objects stored under `name`, or None when there is none or it is
    damaged (a damaged entry is removed)."""
    path = _path(name)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if len(data) >= _HEADER.size:
        magic, checksum, length = _HEADER.unpack_from(data)
        payload = data[_HEADER.size:]
        if magic == _MAGIC and length == len(payload) and \
                hashlib.sha256(payload).digest() == checksum:
            objects = _unpack(payload)
            if objects is not None:
                return objects
    try:
        os.remove(path)
    except OSError:
        pass
    return None


def _pack(objects: Sequence[bytes]) -> bytes:
    parts = [struct.pack("<Q", len(objects))]
    parts += [struct.pack("<Q", len(o)) for o in objects]
    return b"".join(parts + list(objects))


def _unpack(payload: bytes) -> Optional[List[bytes]]:
    try:
        (count,) = struct.unpack_from("<Q", payload)
        sizes = struct.unpack_from(f"<{count}Q", payload, 8)
    except struct.error:
        return None
    offset = 8 * (count + 1)
    if offset + sum(sizes) != len(payload):
        return None
    objects = []
    for size in sizes:
        objects.append(payload[offset:offset + size])
        offset += size
    return objects


def store(name: str, objects: Sequence[bytes]) -> bool:
    """Stores `objects` under `name`; False (and nothing written) when the
    directory cannot be written."""
    payload = _pack(objects)
    path = _path(name)
    header = _HEADER.pack(_MAGIC, hashlib.sha256(payload).digest(),
                          len(payload))
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path),
                                   prefix=".tmp-", suffix=".o")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(header)
                f.write(payload)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return False
    return True
