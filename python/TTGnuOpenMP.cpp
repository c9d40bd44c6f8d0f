//===- TTGnuOpenMP.cpp - Compiled code's parallel loops on GNU OpenMP ----===//

#include "TTGnuOpenMP.h"

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace {

using Microtask = void (*)(int32_t *, int32_t *, ...);

struct GnuOpenMP {
  void (*parallel)(void (*)(void *), void *, unsigned, unsigned) = nullptr;
  void (*barrier)() = nullptr;
  int (*threadNum)() = nullptr;
  int (*numThreads)() = nullptr;
};

GnuOpenMP gomp;
std::atomic<int> defaultThreads{0};
thread_local int callerThreads = 0;

/// The most arguments a parallel region's outlined function takes here
/// (LLVM passes the captured values as one struct: 1).
constexpr int kMaxArgs = 8;

struct Fork {
  Microtask fn;
  int argc;
  void *args[kMaxArgs];
};

void trampoline(void *data) {
  auto *fork = static_cast<Fork *>(data);
  int32_t gtid = gomp.threadNum(), btid = gtid;
  void **a = fork->args;
  switch (fork->argc) {
  case 0:
    fork->fn(&gtid, &btid);
    break;
  case 1:
    fork->fn(&gtid, &btid, a[0]);
    break;
  case 2:
    fork->fn(&gtid, &btid, a[0], a[1]);
    break;
  case 3:
    fork->fn(&gtid, &btid, a[0], a[1], a[2]);
    break;
  case 4:
    fork->fn(&gtid, &btid, a[0], a[1], a[2], a[3]);
    break;
  case 5:
    fork->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4]);
    break;
  case 6:
    fork->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5]);
    break;
  case 7:
    fork->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    break;
  default:
    fork->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    break;
  }
}

extern "C" void ttKmpcForkCall(void *, int32_t argc, Microtask fn, ...) {
  if (argc > kMaxArgs) {
    std::fprintf(stderr,
                 "tinytensor: a parallel region with %d arguments (at most "
                 "%d on GNU OpenMP; TT_OPENMP=llvm avoids the limit)\n",
                 argc, kMaxArgs);
    std::abort();
  }
  Fork fork{fn, argc, {}};
  va_list ap;
  va_start(ap, fn);
  for (int i = 0; i < argc; ++i)
    fork.args[i] = va_arg(ap, void *);
  va_end(ap);
  int threads = callerThreads ? callerThreads : defaultThreads.load();
  gomp.parallel(trampoline, &fork, unsigned(std::max(threads, 0)), 0);
}

extern "C" int32_t ttKmpcGlobalThreadNum(void *) { return gomp.threadNum(); }

extern "C" void ttKmpcBarrier(void *, int32_t) { gomp.barrier(); }

/// kmp_sch_static: the iterations in one contiguous block per thread.
constexpr int32_t kStaticSchedule = 34;

extern "C" void ttKmpcForStaticInit8u(void *, int32_t, int32_t schedule,
                                      int32_t *lastIteration, uint64_t *lower,
                                      uint64_t *upper, int64_t *stride,
                                      int64_t increment, int64_t) {
  uint64_t first = *lower, last = *upper;
  int threads = gomp.numThreads(), thread = gomp.threadNum();
  if (schedule != kStaticSchedule || increment != 1 || threads <= 1 ||
      last < first) {
    // Anything else runs on the first thread (correct for any schedule):
    // the others get an empty range.
    if (thread != 0)
      *upper = first - 1;
    *lastIteration = thread == 0;
    *stride = int64_t(last - first + 1);
    return;
  }
  uint64_t trips = last - first + 1;
  uint64_t each = trips / uint64_t(threads), extra = trips % uint64_t(threads);
  uint64_t t = uint64_t(thread);
  uint64_t start = first + t * each + std::min(t, extra);
  uint64_t count = each + (t < extra ? 1 : 0);
  *lower = start;
  *upper = start + count - 1; // start - 1 when empty
  *lastIteration = count > 0 && start + count - 1 == last;
  *stride = int64_t(trips);
}

extern "C" void ttKmpcForStaticFini(void *, int32_t) {}

} // namespace

std::string tt::python::bindGnuOpenMP(const std::string &path) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (gomp.parallel)
    return "";
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return std::string("cannot load ") + path + ": " + dlerror();
  GnuOpenMP bound;
  bound.parallel = reinterpret_cast<decltype(bound.parallel)>(
      dlsym(handle, "GOMP_parallel"));
  bound.barrier =
      reinterpret_cast<decltype(bound.barrier)>(dlsym(handle, "GOMP_barrier"));
  bound.threadNum = reinterpret_cast<decltype(bound.threadNum)>(
      dlsym(handle, "omp_get_thread_num"));
  bound.numThreads = reinterpret_cast<decltype(bound.numThreads)>(
      dlsym(handle, "omp_get_num_threads"));
  if (!bound.parallel || !bound.barrier || !bound.threadNum ||
      !bound.numThreads)
    return path + " is not GNU OpenMP (no GOMP_parallel)";
  gomp = bound;
  return "";
}

std::vector<std::pair<const char *, void *>> tt::python::gnuOpenMPSymbols() {
  return {
      {"__kmpc_fork_call", reinterpret_cast<void *>(&ttKmpcForkCall)},
      {"__kmpc_global_thread_num",
       reinterpret_cast<void *>(&ttKmpcGlobalThreadNum)},
      {"__kmpc_barrier", reinterpret_cast<void *>(&ttKmpcBarrier)},
      {"__kmpc_for_static_init_8u",
       reinterpret_cast<void *>(&ttKmpcForStaticInit8u)},
      {"__kmpc_for_static_fini",
       reinterpret_cast<void *>(&ttKmpcForStaticFini)},
  };
}

void tt::python::setGnuOpenMPThreads(int threads) { callerThreads = threads; }

void tt::python::setGnuOpenMPDefaultThreads(int threads) {
  defaultThreads = threads;
}
