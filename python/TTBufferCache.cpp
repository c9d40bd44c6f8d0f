//===- TTBufferCache.cpp - Buffers of compiled code, reused across calls --===//

#include "TTBufferCache.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
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

size_t limitFromEnvironment() {
  const char *value = std::getenv("TT_BUFFER_CACHE_MB");
  if (!value || !*value)
    return size_t(256) << 20;
  char *end = nullptr;
  unsigned long long mb = std::strtoull(value, &end, 10);
  if (*end != '\0') {
    std::fprintf(stderr,
                 "tinytensor: TT_BUFFER_CACHE_MB=%s is not a number of "
                 "megabytes; using 256\n",
                 value);
    return size_t(256) << 20;
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
      if (it != free.end() && !it->second.empty()) {
        void *block = it->second.back();
        it->second.pop_back();
        cached -= cls;
        ++hits;
        return static_cast<char *>(block) + kHeaderBytes;
      }
      ++misses;
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
      if (cached + cls <= limit) {
        free[cls].push_back(block);
        cached += cls;
        return;
      }
    }
    std::free(block);
  }

  tt::python::BufferCacheStats stats() {
    std::lock_guard<std::mutex> lock(mutex);
    return {cached, limit, hits, misses};
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
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void *>> free;
  size_t cached = 0;
  size_t limit = limitFromEnvironment();
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
