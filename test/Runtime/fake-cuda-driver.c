/*===- fake-cuda-driver.c - A CUDA driver for tests, on host memory -------===*\
|*                                                                            *|
|* Stands in for libcuda.so.1 where there is no GPU: memory is host memory,   *|
|* copies are memcpy, a module is its image (PTX text or ELF), and a launch   *|
|* prints the kernel's name and grid (checked by FileCheck) without running   *|
|* it. It lets the runtime's calls and the lowered host code's use of them be *|
|* tested on any machine. FAKE_CUDA_FAIL=<call> makes that call fail.         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static int fails(const char *call) {
  const char *which = getenv("FAKE_CUDA_FAIL");
  return which && strcmp(which, call) == 0;
}

#define CHECK_FAIL(call)                                                       \
  if (fails(call))                                                             \
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */

struct Module {
  const char *image;
};
struct Function {
  char name[128];
};

CUresult cuInit(unsigned flags) {
  CHECK_FAIL("cuInit");
  return 0;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return 0;
}
CUresult cuDeviceGetName(char *name, int len, int device) {
  snprintf(name, len, "Fake GPU %d", device);
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int device) {
  static int context;
  *ctx = &context;
  return 0;
}
CUresult cuCtxSetCurrent(void *ctx) { return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = error == 2 ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == 2 ? "out of memory" : "unknown error";
  return 0;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  CHECK_FAIL("cuModuleLoadData");
  struct Module *m = malloc(sizeof(struct Module));
  m->image = image;
  *module = m;
  printf("fake-cuda: module loaded (%s)\n",
         memcmp(image, "\177ELF", 4) == 0 ? "cubin" : "ptx");
  return 0;
}
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n,
                            int *options, void **values) {
  return cuModuleLoadData(module, image);
}
CUresult cuModuleUnload(void *module) {
  free(module);
  return 0;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  struct Function *f = malloc(sizeof(struct Function));
  snprintf(f->name, sizeof(f->name), "%s", name);
  *function = f;
  return 0;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *stream, void **params, void **extra) {
  CHECK_FAIL("cuLaunchKernel");
  printf("fake-cuda: launch %s grid %ux%ux%u block %ux%ux%u\n",
         ((struct Function *)function)->name, gx, gy, gz, bx, by, bz);
  return 0;
}
CUresult cuStreamCreate(void **stream, unsigned flags) {
  static int s;
  *stream = &s;
  return 0;
}
CUresult cuStreamDestroy_v2(void *stream) { return 0; }
CUresult cuStreamSynchronize(void *stream) { return 0; }
CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  return 0;
}
CUresult cuEventCreate(void **event, unsigned flags) {
  *event = malloc(1);
  return 0;
}
CUresult cuEventDestroy_v2(void *event) {
  free(event);
  return 0;
}
CUresult cuEventRecord(void *event, void *stream) { return 0; }
CUresult cuEventSynchronize(void *event) { return 0; }
CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
  *ms = 1.5f;
  return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  CHECK_FAIL("cuMemAlloc");
  *ptr = (CUdeviceptr)malloc(bytes);
  return 0;
}
CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes, unsigned flags) {
  return cuMemAlloc_v2(ptr, bytes);
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  free((void *)ptr);
  return 0;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       void *stream) {
  memcpy((void *)dst, (const void *)src, bytes);
  return 0;
}
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return cuMemcpyAsync(dst, src, bytes, NULL);
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count,
                          void *stream) {
  for (size_t i = 0; i < count; ++i)
    ((unsigned *)dst)[i] = value;
  return 0;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
                          void *stream) {
  for (size_t i = 0; i < count; ++i)
    ((unsigned short *)dst)[i] = value;
  return 0;
}
CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned flags) {
  return 0;
}
CUresult cuMemHostUnregister(void *p) { return 0; }
