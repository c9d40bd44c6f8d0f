/*===- CudaRuntime.h - TinyTensor's CUDA runtime -------------------*- C -*-===*\
|*                                                                            *|
|* libTinyTensorCudaRuntime.so implements the mgpu* functions that host code  *|
|* lowered by tt-lower-to-nvvm calls (module loading, launches, streams,      *|
|* events, device memory), on top of the CUDA driver, which it loads with     *|
|* dlopen when first needed: the library links and loads on machines with no *|
|* GPU. $TT_LIBCUDA names the driver library (default libcuda.so.1).          *|
|*                                                                            *|
|* Errors are sticky: the first failing driver call (or a missing driver) is  *|
|* recorded, later calls do nothing, and ttCudaLastError() says what failed.  *|
|* Check it after every call of compiled code.                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TINYTENSOR_C_CUDARUNTIME_H
#define TINYTENSOR_C_CUDARUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Loads the driver and makes the primary context of device 0 current.
/// Returns 0 on success; otherwise see ttCudaLastError().
int ttCudaInit(void);

/// The first error since the last ttCudaClearError(), or NULL.
const char *ttCudaLastError(void);
void ttCudaClearError(void);

/// The name of the current device ("NVIDIA H200"), or "" before ttCudaInit.
const char *ttCudaDeviceName(void);

/// Device memory. Copies and frees wait for the work queued before them.
void *ttCudaAlloc(size_t bytes);
void ttCudaFree(void *device);
int ttCudaCopyToDevice(void *device, const void *host, size_t bytes);
int ttCudaCopyToHost(void *host, const void *device, size_t bytes);
int ttCudaSynchronize(void);

/// Milliseconds between two events recorded with mgpuEventRecord.
float ttCudaElapsedMs(void *start, void *end);

/* The interface of MLIR's GPU-to-LLVM lowering (as in MLIR's own
   CudaRuntimeWrappers, whose library Debian does not ship). */
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                      void **params, void **extra, size_t paramsCount);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared);
void mgpuMemFree(void *device, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  void *stream);
void mgpuMemHostRegister(void *ptr, uint64_t bytes);
void mgpuMemHostUnregister(void *ptr);
void mgpuSetDefaultDevice(int32_t device);

#ifdef __cplusplus
}
#endif

#endif /* TINYTENSOR_C_CUDARUNTIME_H */
