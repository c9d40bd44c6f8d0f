//===- TTBufferCache.h - Buffers of compiled code, reused across calls ----===//
//
// Compiled code built with `tt-lower-to-llvm{generic-alloc=true}` (as the
// Python runtime builds it) allocates its intermediate buffers with
// `_mlir_memref_to_llvm_alloc` and releases them with
// `_mlir_memref_to_llvm_free`; `Library` resolves both to this cache. A
// released buffer of at least 128 KiB is kept, up to a total of
// TT_BUFFER_CACHE_MB (by default the high-water mark of the buffers in use,
// between 256 MiB and a quarter of memory; 0 turns the cache off), and
// handed out again for a request of the same size class: the next call of a
// function
// gets buffers whose pages are already mapped, instead of fresh ones from
// mmap whose page faults cost more than the arithmetic (a transformer
// layer spent a third of its time in the kernel's page-fault handler).
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_PYTHON_TTBUFFERCACHE_H
#define TINYTENSOR_PYTHON_TTBUFFERCACHE_H

#include <cstddef>
#include <cstdint>

extern "C" {
/// malloc-like (16-byte aligned); never returns null for a non-zero size
/// (aborts when memory is exhausted, as the code has no way to report it).
void *ttBufferAlloc(uint64_t size);
/// free-like; `ptr` must come from ttBufferAlloc (or be null).
void ttBufferFree(void *ptr);
}

namespace tt::python {

struct BufferCacheStats {
  /// Bytes of released buffers kept for reuse, their limit, and the most
  /// bytes of cacheable buffers in use at once.
  size_t cachedBytes, limitBytes, peakBytes;
  /// Allocations served from the cache, and those that were not.
  uint64_t hits, misses;
  /// True when the limit follows peakBytes (TT_BUFFER_CACHE_MB unset).
  bool automatic;
};

BufferCacheStats bufferCacheStats();
/// Returns every cached buffer to the system.
void releaseCachedBuffers();

} // namespace tt::python

#endif // TINYTENSOR_PYTHON_TTBUFFERCACHE_H
