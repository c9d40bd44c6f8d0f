// The machine's FMA peak (float32, AVX-512), the reference of the matmul
// targets in docs/performance.md: 12 independent chains of 512-bit FMAs per
// thread, as many threads as OpenMP gives (OMP_NUM_THREADS).
//
//   clang-22 -O2 -mavx512f -fopenmp=libomp -L/usr/lib/llvm-22/lib \
//     -Wl,-rpath,/usr/lib/llvm-22/lib bench/fma_peak.c -o /tmp/fma_peak
//   OMP_NUM_THREADS=1 /tmp/fma_peak; /tmp/fma_peak
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
int main(void) {
  const long iters = 200000000;
  double t0 = omp_get_wtime();
  float sink = 0;
#pragma omp parallel reduction(+ : sink)
  {
    __m512 a[12];
    __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
    for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_ps((float)i);
    for (long n = 0; n < iters; ++n)
      for (int i = 0; i < 12; ++i) a[i] = _mm512_fmadd_ps(a[i], x, y);
    __m512 s = a[0];
    for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, a[i]);
    sink += _mm512_reduce_add_ps(s);
  }
  double t = omp_get_wtime() - t0;
  int threads = omp_get_max_threads();
  printf("threads %d: %.1f GFLOP/s (sink %g)\n", threads, threads * iters * 12.0 * 32 / t / 1e9, sink);
  return 0;
}
