//===- TTBufferCache.cpp - Buffers of compiled code, reused across calls --===//

#include "TTBufferCache.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace {

/// Buffers smaller than this come from malloc and go back to it (glibc
/// serves them from the calling thread's heap without page faults). From
/// glibc's mmap threshold (128 KiB) up, malloc maps fresh pages or trims
/// and regrows its heap, a page fault per 4 KiB at every call: a sort of
/// 64 x 1000 floats (55 stages of 256 KiB buffers) took 9.7 ms with a
/// threshold of 1 MiB, 69% of it in the kernel, and 1.05 ms with this one;
/// matmuls, whose packed panels of B (512 KiB) are now cached too, were
/// not slower.
constexpr size_t kMinCachedBytes = 128 * 1024;
/// A header before every buffer records its size class (0: not cached),
/// 16 bytes so that the buffer keeps malloc's alignment.
constexpr size_t kHeaderBytes = 16;

/// Size classes: four per power of two, so a reused buffer is at most 25%
/// larger than the request.
size_t sizeClass(size_t size) {
  if (size < kMinCachedBytes)
    return 0;
  size_t top = size_t(1) << (63 - __builtin_clzll(size));
  size_t quarter = top / 4;
  return (size + quarter - 1) / quarter * quarter;
}

/// The least the cache keeps without TT_BUFFER_CACHE_MB.
constexpr size_t kDefaultFloorBytes = size_t(256) << 20;

/// The most the cache keeps without TT_BUFFER_CACHE_MB: a quarter of the
/// machine's memory.
size_t defaultCeiling() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return kDefaultFloorBytes;
  return std::max(kDefaultFloorBytes, size_t(pages) * size_t(pageSize) / 4);
}

/// TT_BUFFER_CACHE_MB as bytes, or nothing when it is unset (the limit
/// follows the buffers' high-water mark).
std::optional<size_t> limitFromEnvironment() {
  const char *value = std::getenv("TT_BUFFER_CACHE_MB");
  if (!value || !*value)
    return std::nullopt;
  char *end = nullptr;
  unsigned long long mb = std::strtoull(value, &end, 10);
  if (*end != '\0') {
    std::fprintf(stderr,
                 "tinytensor: TT_BUFFER_CACHE_MB=%s is not a number of "
                 "megabytes; using the automatic limit\n",
                 value);
    return std::nullopt;
  }
  return size_t(mb) << 20;
}

class BufferCache {
public:
  void *allocate(size_t size) {
    size_t cls = sizeClass(size);
    if (cls) {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = free.find(cls);
      lastUse[cls] = ++clock;
      if (it != free.end() && !it->second.empty()) {
        void *block = it->second.back();
        it->second.pop_back();
        cached -= cls;
        ++hits;
        noteLive(cls);
        return static_cast<char *>(block) + kHeaderBytes;
      }
      ++misses;
      noteLive(cls);
    }
    void *block = std::malloc(kHeaderBytes + (cls ? cls : size));
    if (!block) {
      std::fprintf(stderr, "tinytensor: out of memory allocating %zu bytes\n",
                   size);
      std::abort();
    }
    *static_cast<size_t *>(block) = cls;
    return static_cast<char *>(block) + kHeaderBytes;
  }

  void release(void *ptr) {
    if (!ptr)
      return;
    void *block = static_cast<char *>(ptr) - kHeaderBytes;
    size_t cls = *static_cast<size_t *>(block);
    if (cls) {
      std::lock_guard<std::mutex> lock(mutex);
      live -= cls;
      lastUse[cls] = ++clock;
      while (cached + cls > limit() && evictLeastRecent(cls)) {
      }
      if (cached + cls <= limit()) {
        free[cls].push_back(block);
        cached += cls;
        return;
      }
    }
    std::free(block);
  }

  tt::python::BufferCacheStats stats() {
    std::lock_guard<std::mutex> lock(mutex);
    return {cached, limit(), peak, hits, misses, !fixedLimit.has_value()};
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &entry : free)
      for (void *block : entry.second)
        std::free(block);
    free.clear();
    cached = 0;
  }

private:
  /// With the mutex held: `cls` more bytes are in use.
  void noteLive(size_t cls) {
    live += cls;
    peak = std::max(peak, live);
  }

  /// With the mutex held: frees one kept buffer of the size class, other
  /// than `keep`, that was requested or released least recently. Returns
  /// false when there is none. Without this, buffers of a function that is
  /// no longer called (a model compiled earlier in the process) would fill
  /// the cache for good, and every large buffer of the next one would be
  /// freed at each call and fault in fresh pages at the next: four 3 x 3
  /// convolutions over 256 channels at 14 x 14, batch 8, run after two
  /// other models in one process took 60 ms a call instead of 40 (2-core
  /// AMD EPYC Zen 4).
  bool evictLeastRecent(size_t keep) {
    auto oldest = free.end();
    for (auto it = free.begin(); it != free.end(); ++it)
      if (it->first != keep && !it->second.empty() &&
          (oldest == free.end() || lastUse[it->first] < lastUse[oldest->first]))
        oldest = it;
    if (oldest == free.end())
      return false;
    std::free(oldest->second.back());
    oldest->second.pop_back();
    cached -= oldest->first;
    return true;
  }

  /// TT_BUFFER_CACHE_MB, or by default the most bytes of cached size
  /// classes that were ever in use at once (at least 256 MiB, at most a
  /// quarter of the machine's memory): what a function's next call needs
  /// again, so that a model whose intermediates outgrow a fixed limit
  /// (ResNet-18 at batch 8: 217 -> 150 ms per call with room for all of
  /// them, on a 2-core Xeon) does not fault in fresh pages every call.
  size_t limit() const {
    if (fixedLimit)
      return *fixedLimit;
    return std::clamp(peak, kDefaultFloorBytes, ceiling);
  }

  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void *>> free;
  /// When each size class was last requested or released (`clock`).
  std::unordered_map<size_t, uint64_t> lastUse;
  uint64_t clock = 0;
  size_t cached = 0, live = 0, peak = 0;
  std::optional<size_t> fixedLimit = limitFromEnvironment();
  size_t ceiling = defaultCeiling();
  uint64_t hits = 0, misses = 0;
};

BufferCache &cache() {
  // Never destroyed: compiled code may still release buffers while the
  // process exits.
  static BufferCache *instance = new BufferCache();
  return *instance;
}

} // namespace

extern "C" void *ttBufferAlloc(uint64_t size) {
  return cache().allocate(static_cast<size_t>(size));
}

extern "C" void ttBufferFree(void *ptr) { cache().release(ptr); }

tt::python::BufferCacheStats tt::python::bufferCacheStats() {
  return cache().stats();
}

void tt::python::releaseCachedBuffers() { cache().clear(); }
