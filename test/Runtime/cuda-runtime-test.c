//===- cuda-runtime-test.c - The CUDA runtime without and with a driver ---===//
//
// Run by cuda-runtime.test: with TT_LIBCUDA naming a missing library, every
// call fails softly and the first error names the library; with the fake
// driver, memory round-trips and errors of a driver call are reported.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor-c/CudaRuntime.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  if (ttCudaInit() != 0) {
    printf("init failed: %s\n", ttCudaLastError());
    // Later calls do nothing and keep the first error.
    void *p = ttCudaAlloc(16);
    mgpuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL, 0);
    printf("alloc after failure: %s\n", p ? "a pointer" : "null");
    printf("still: %s\n", ttCudaLastError());
    return 0;
  }
  printf("device: %s\n", ttCudaDeviceName());
  float host[4] = {1, 2, 3, 4}, back[4] = {0, 0, 0, 0};
  void *device = ttCudaAlloc(sizeof(host));
  ttCudaCopyToDevice(device, host, sizeof(host));
  mgpuMemset32(device, 0x40a00000u, 1, NULL); // 5.0f
  ttCudaCopyToHost(back, device, sizeof(back));
  ttCudaSynchronize();
  printf("round trip: %g %g %g %g\n", back[0], back[1], back[2], back[3]);
  ttCudaFree(device);
  printf("error: %s\n", ttCudaLastError() ? ttCudaLastError() : "none");
  void *big = ttCudaAlloc(1 << 20);
  printf("alloc: %s\n", big ? "a pointer" : "null");
  ttCudaFree(big);
  printf("error: %s\n", ttCudaLastError() ? ttCudaLastError() : "none");
  ttCudaClearError();
  printf("cleared: %s\n", ttCudaLastError() ? ttCudaLastError() : "none");
  return 0;
}
