//===- CudaRuntime.cpp - mgpu* on the CUDA driver, loaded at run time -----===//
//
// The CUDA driver API is reached through dlopen/dlsym, so this library needs
// neither the CUDA headers to build nor a driver to load. The driver's types
// are declared here as what they are at the ABI: CUresult an int, handles
// opaque pointers, CUdeviceptr a 64-bit integer.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor-c/CudaRuntime.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using Handle = void *;

constexpr CUresult kSuccess = 0;

/// Spells a function pointer type in a declaration.
template <typename T> using Id = T;

/// The driver entry points we use, with the symbol each is loaded from.
struct Driver {
#define TT_CUDA_FUNCTIONS(X)                                                   \
  X(cuInit, "cuInit", CUresult (*)(unsigned))                                  \
  X(cuDeviceGet, "cuDeviceGet", CUresult (*)(CUdevice *, int))                 \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult (*)(char *, int, CUdevice))   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",                      \
    CUresult (*)(Handle *, CUdevice))                                          \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult (*)(Handle))                  \
  X(cuGetErrorName, "cuGetErrorName", CUresult (*)(CUresult, const char **))   \
  X(cuGetErrorString, "cuGetErrorString",                                      \
    CUresult (*)(CUresult, const char **))                                     \
  X(cuModuleLoadData, "cuModuleLoadData",                                      \
    CUresult (*)(Handle *, const void *))                                      \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                  \
    CUresult (*)(Handle *, const void *, unsigned, int *, void **))            \
  X(cuModuleUnload, "cuModuleUnload", CUresult (*)(Handle))                    \
  X(cuModuleGetFunction, "cuModuleGetFunction",                                \
    CUresult (*)(Handle *, Handle, const char *))                              \
  X(cuLaunchKernel, "cuLaunchKernel",                                          \
    CUresult (*)(Handle, unsigned, unsigned, unsigned, unsigned, unsigned,     \
                 unsigned, unsigned, Handle, void **, void **))                \
  X(cuStreamCreate, "cuStreamCreate", CUresult (*)(Handle *, unsigned))        \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult (*)(Handle))               \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult (*)(Handle))          \
  X(cuStreamWaitEvent, "cuStreamWaitEvent",                                    \
    CUresult (*)(Handle, Handle, unsigned))                                    \
  X(cuEventCreate, "cuEventCreate", CUresult (*)(Handle *, unsigned))          \
  X(cuEventDestroy, "cuEventDestroy_v2", CUresult (*)(Handle))                 \
  X(cuEventRecord, "cuEventRecord", CUresult (*)(Handle, Handle))              \
  X(cuEventSynchronize, "cuEventSynchronize", CUresult (*)(Handle))            \
  X(cuEventElapsedTime, "cuEventElapsedTime",                                  \
    CUresult (*)(float *, Handle, Handle))                                     \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult (*)(CUdeviceptr *, size_t))          \
  X(cuMemAllocManaged, "cuMemAllocManaged",                                    \
    CUresult (*)(CUdeviceptr *, size_t, unsigned))                             \
  X(cuMemFree, "cuMemFree_v2", CUresult (*)(CUdeviceptr))                      \
  X(cuMemcpyAsync, "cuMemcpyAsync",                                            \
    CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, Handle))                    \
  X(cuMemcpy, "cuMemcpy", CUresult (*)(CUdeviceptr, CUdeviceptr, size_t))      \
  X(cuMemsetD32Async, "cuMemsetD32Async",                                      \
    CUresult (*)(CUdeviceptr, unsigned, size_t, Handle))                       \
  X(cuMemsetD16Async, "cuMemsetD16Async",                                      \
    CUresult (*)(CUdeviceptr, unsigned short, size_t, Handle))                 \
  X(cuMemHostRegister, "cuMemHostRegister_v2",                                 \
    CUresult (*)(void *, size_t, unsigned))                                    \
  X(cuMemHostUnregister, "cuMemHostUnregister", CUresult (*)(void *))          \
  X(cuCtxSynchronize, "cuCtxSynchronize", CUresult (*)())
#define TT_DECLARE(name, symbol, ...) Id<__VA_ARGS__> name = nullptr;
  TT_CUDA_FUNCTIONS(TT_DECLARE)
#undef TT_DECLARE
  Handle context = nullptr;
  CUdevice device = 0;
  char name[256] = "";
};

std::mutex mutex;
std::string firstError;
bool failed = false;
Driver driver;
bool initialised = false;
int defaultDevice = 0;

void fail(const std::string &message) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!failed) {
    failed = true;
    firstError = message;
  }
}

bool hasFailed() {
  std::lock_guard<std::mutex> lock(mutex);
  return failed;
}

/// Records a failed driver call; true if `result` is success.
bool check(CUresult result, const char *call) {
  if (result == kSuccess)
    return true;
  const char *name = nullptr, *text = nullptr;
  if (driver.cuGetErrorName)
    driver.cuGetErrorName(result, &name);
  if (driver.cuGetErrorString)
    driver.cuGetErrorString(result, &text);
  fail(std::string("TinyTensor CUDA runtime: ") + call +
       " failed: " + (name ? name : "error " + std::to_string(result)) +
       (text ? std::string(" (") + text + ")" : std::string()));
  return false;
}

bool loadDriver() {
  const char *path = std::getenv("TT_LIBCUDA");
  if (!path || !*path)
    path = "libcuda.so.1";
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    fail(std::string("TinyTensor CUDA runtime: cannot load the CUDA driver "
                     "library ") +
         path + " (" + (why ? why : "unknown reason") +
         "): running on an NVIDIA GPU needs its driver installed ($TT_LIBCUDA "
         "names another library)");
    return false;
  }
#define TT_LOAD(name, symbol, ...)                                             \
  driver.name = reinterpret_cast<__VA_ARGS__>(dlsym(library, symbol));         \
  if (!driver.name) {                                                          \
    fail(std::string("TinyTensor CUDA runtime: the CUDA driver ") + path +     \
         " has no " symbol " (a driver too old for CUDA 12?)");                \
    return false;                                                              \
  }
  TT_CUDA_FUNCTIONS(TT_LOAD)
#undef TT_LOAD
  return true;
}

/// Initialises the driver once; then makes the context current on the
/// calling thread. False (with the error recorded) if anything fails.
bool ready() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!loadDriver())
      return;
    if (!check(driver.cuInit(0), "cuInit") ||
        !check(driver.cuDeviceGet(&driver.device, defaultDevice),
               "cuDeviceGet") ||
        !check(driver.cuDevicePrimaryCtxRetain(&driver.context, driver.device),
               "cuDevicePrimaryCtxRetain"))
      return;
    check(
        driver.cuDeviceGetName(driver.name, sizeof(driver.name), driver.device),
        "cuDeviceGetName");
    initialised = true;
  });
  if (!initialised || hasFailed())
    return false;
  return check(driver.cuCtxSetCurrent(driver.context), "cuCtxSetCurrent");
}

CUdeviceptr devicePtr(const void *p) {
  return reinterpret_cast<CUdeviceptr>(p);
}

} // namespace

extern "C" {

int ttCudaInit(void) { return ready() ? 0 : 1; }

const char *ttCudaLastError(void) {
  std::lock_guard<std::mutex> lock(mutex);
  return failed ? firstError.c_str() : nullptr;
}

void ttCudaClearError(void) {
  std::lock_guard<std::mutex> lock(mutex);
  failed = false;
  firstError.clear();
}

const char *ttCudaDeviceName(void) { return driver.name; }

void *ttCudaAlloc(size_t bytes) { return mgpuMemAlloc(bytes, nullptr, false); }

void ttCudaFree(void *device) { mgpuMemFree(device, nullptr); }

int ttCudaCopyToDevice(void *device, const void *host, size_t bytes) {
  if (!ready())
    return 1;
  return check(driver.cuMemcpy(devicePtr(device), devicePtr(host), bytes),
               "cuMemcpy (to the device)")
             ? 0
             : 1;
}

int ttCudaCopyToHost(void *host, const void *device, size_t bytes) {
  if (!ready())
    return 1;
  return check(driver.cuMemcpy(devicePtr(host), devicePtr(device), bytes),
               "cuMemcpy (to the host)")
             ? 0
             : 1;
}

int ttCudaSynchronize(void) {
  if (!ready())
    return 1;
  return check(driver.cuCtxSynchronize(), "cuCtxSynchronize") ? 0 : 1;
}

float ttCudaElapsedMs(void *start, void *end) {
  float ms = 0;
  if (ready())
    check(driver.cuEventElapsedTime(&ms, start, end), "cuEventElapsedTime");
  return ms;
}

void *mgpuModuleLoad(void *data, size_t /*size*/) {
  Handle module = nullptr;
  if (ready())
    check(driver.cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  Handle module = nullptr;
  if (!ready())
    return nullptr;
  // CU_JIT_OPTIMIZATION_LEVEL = 7; the option value is passed in the
  // pointer itself.
  int options[] = {7};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  check(driver.cuModuleLoadDataEx(&module, data, 1, options, values),
        "cuModuleLoadDataEx (JIT-compiling PTX)");
  return module;
}

void mgpuModuleUnload(void *module) {
  if (module && initialised)
    check(driver.cuModuleUnload(module), "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  Handle function = nullptr;
  if (module && ready())
    check(driver.cuModuleGetFunction(&function, module, name),
          (std::string("cuModuleGetFunction(") + name + ")").c_str());
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  if (!function || !ready())
    return;
  check(driver.cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                              blockZ, sharedMemBytes, stream, params, extra),
        "cuLaunchKernel");
}

void *mgpuStreamCreate(void) {
  Handle stream = nullptr;
  if (ready())
    check(driver.cuStreamCreate(&stream, /*CU_STREAM_NON_BLOCKING=*/1),
          "cuStreamCreate");
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  if (stream && ready())
    check(driver.cuStreamDestroy(stream), "cuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
  if (ready())
    check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  if (event && ready())
    check(driver.cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

void *mgpuEventCreate(void) {
  Handle event = nullptr;
  if (ready())
    check(driver.cuEventCreate(&event, /*CU_EVENT_DEFAULT=*/0),
          "cuEventCreate");
  return event;
}

void mgpuEventDestroy(void *event) {
  if (event && ready())
    check(driver.cuEventDestroy(event), "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  if (event && ready())
    check(driver.cuEventSynchronize(event), "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  if (event && ready())
    check(driver.cuEventRecord(event, stream), "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t bytes, void * /*stream*/, bool isHostShared) {
  CUdeviceptr ptr = 0;
  if (!ready())
    return nullptr;
  if (bytes == 0)
    bytes = 1; // a zero-size tensor still gets a distinct address
  if (isHostShared)
    check(driver.cuMemAllocManaged(&ptr, bytes, /*CU_MEM_ATTACH_GLOBAL=*/1),
          "cuMemAllocManaged");
  else
    check(driver.cuMemAlloc(&ptr, bytes),
          ("cuMemAlloc(" + std::to_string(bytes) + " bytes)").c_str());
  return reinterpret_cast<void *>(ptr);
}

void mgpuMemFree(void *device, void * /*stream*/) {
  if (!device || !ready())
    return;
  // The memory may still be in use by queued work on any stream.
  if (check(driver.cuCtxSynchronize(), "cuCtxSynchronize"))
    check(driver.cuMemFree(devicePtr(device)), "cuMemFree");
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  if (ready())
    check(driver.cuMemcpyAsync(devicePtr(dst), devicePtr(src), bytes, stream),
          "cuMemcpyAsync");
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  if (ready())
    check(driver.cuMemsetD32Async(devicePtr(dst), value, count, stream),
          "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  if (ready())
    check(driver.cuMemsetD16Async(devicePtr(dst), value, count, stream),
          "cuMemsetD16Async");
}

void mgpuMemHostRegister(void *ptr, uint64_t bytes) {
  if (ready())
    check(driver.cuMemHostRegister(ptr, bytes, /*PORTABLE=*/1),
          "cuMemHostRegister");
}

void mgpuMemHostUnregister(void *ptr) {
  if (ready())
    check(driver.cuMemHostUnregister(ptr), "cuMemHostUnregister");
}

void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

} // extern "C"
