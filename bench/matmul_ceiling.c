// What the blocking of TinyTensor's packed float32 matmul allows on this
// machine, measured in one process against its FMA peak: the register tile
// of the generated kernel (6 rows of C by 4 AVX-512 vectors, 24
// accumulators; per reduction step 4 loads of B and 6 broadcasts of A)
// written by hand with intrinsics, and the whole matmul in the same blocks
// as `--tt-cpu-tile-and-fuse` chooses (docs/performance.md, "Where the last
// 15% go"):
//
//   peak       12 independent FMA chains per thread (bench/fma_peak.c), no
//              loads: the reference of the 85% target
//   + loads    the same chains with multiplicands and addends loaded from
//              L1 in every iteration (2 vectors per 12 FMAs; 2 vectors and
//              3 broadcasts, the 6 x 4 tile's mix): what loads alone cost
//   tile L1    the register tile over a strip of B that stays in L1
//              (kc = 128) and the same rows of A: the loads a register
//              tile needs, and nothing else the matmul does
//   tile L2    the same over strips of kc rows that do not fit L1 (the
//              real kc), so that B streams from L2 as in the matmul
//   blocked    C = A B in TinyTensor's blocks: the threads share column
//              blocks of nc columns by all rows; per block and reduction
//              block of kc, B's [kc x nc] panel is packed into strips of
//              the tile's width, then row blocks of mc rows, strips, row
//              tiles; A is read in place (its rows K floats apart)
//   prepacked  the same with B packed whole before the clock starts (what
//              jit(freeze=True) does with constant weights)
//   packed A   prepacked, and A packed before the clock starts into panels
//              of the tile's rows ([k][rows] per tile): the layout a
//              BLIS-style kernel reads
//
// Each line prints GFLOP/s (the best of the runs in `seconds`, the tiles'
// rate over half that) and the share of the peak (the best of three runs). The
// blocked products are checked against a float64 reference at sampled
// elements. `--peak` prints the peak alone.
//
//   clang-22 -O3 -march=native -fopenmp=libomp -L/usr/lib/llvm-22/lib \
//     -Wl,-rpath,/usr/lib/llvm-22/lib bench/matmul_ceiling.c -o /tmp/ceiling
//   /tmp/ceiling                       # 1024^3: mc 256, nc 128, kc 1024
//   /tmp/ceiling 2048 2048 2048 256 128 2048
//
// Arguments: M N K mc nc kc [seconds] (N and nc multiples of 64, K a
// multiple of kc; seconds per matmul measurement, default 2, half that per
// tile). Needs AVX-512F; OMP_NUM_THREADS sets the threads (default: all
// cores).
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The register tile: MR rows by NV vectors (-DTILE_ROWS=8 -DTILE_VECTORS=3
// measures another shape; TinyTensor's is 6 x 4).
#ifndef TILE_ROWS
#define TILE_ROWS 6
#endif
#ifndef TILE_VECTORS
#define TILE_VECTORS 4
#endif
enum { MR = TILE_ROWS, NV = TILE_VECTORS, NR = 16 * NV };

/// C[mr x NR] (+)= A[mr x kc] B[kc x NR]: A's row i at a + i * rowStride,
/// its element k at + k * kStride; B a packed strip (NR floats per k).
static inline __attribute__((always_inline)) void
tile(int mr, int kc, const float *a, long rowStride, long kStride,
     const float *b, float *c, long ldc, int accumulate) {
  __m512 acc[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j)
      acc[i][j] = accumulate && i < mr ? _mm512_loadu_ps(c + i * ldc + 16 * j)
                                       : _mm512_setzero_ps();
  for (int k = 0; k < kc; ++k) {
    __m512 bv[NV];
    for (int j = 0; j < NV; ++j)
      bv[j] = _mm512_load_ps(b + (long)NR * k + 16 * j);
    for (int i = 0; i < MR; ++i) {
      if (i >= mr)
        break;
      __m512 av = _mm512_set1_ps(a[i * rowStride + k * kStride]);
      for (int j = 0; j < NV; ++j)
        acc[i][j] = _mm512_fmadd_ps(av, bv[j], acc[i][j]);
    }
  }
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < NV; ++j)
      _mm512_storeu_ps(c + i * ldc + 16 * j, acc[i][j]);
}

__attribute__((noinline)) static void
fullTile(int kc, const float *a, long rowStride, long kStride, const float *b,
         float *c, long ldc, int accumulate) {
  tile(MR, kc, a, rowStride, kStride, b, c, ldc, accumulate);
}

__attribute__((noinline)) static void
partialTile(int mr, int kc, const float *a, long rowStride, long kStride,
            const float *b, float *c, long ldc, int accumulate) {
  tile(mr, kc, a, rowStride, kStride, b, c, ldc, accumulate);
}

static void *alloc(size_t bytes) {
  void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) {
    fprintf(stderr, "matmul_ceiling: out of memory\n");
    exit(1);
  }
  return p;
}

static double peakRunGflops(void);

/// The best of three runs.
static double peakGflops(void) {
  double best = 0;
  for (int run = 0; run < 3; ++run) {
    double g = peakRunGflops();
    best = g > best ? g : best;
  }
  return best;
}

static double peakRunGflops(void) {
  const long iters = 30000000;
  float sink = 0;
  double t0 = omp_get_wtime();
#pragma omp parallel reduction(+ : sink)
  {
    __m512 acc[12];
    __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm512_set1_ps((float)i);
    for (long n = 0; n < iters; ++n)
      for (int i = 0; i < 12; ++i)
        acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    __m512 s = acc[0];
    for (int i = 1; i < 12; ++i)
      s = _mm512_add_ps(s, acc[i]);
    sink += _mm512_reduce_add_ps(s);
  }
  double t = omp_get_wtime() - t0;
  if (sink == 12345.f)
    puts("");
  return omp_get_max_threads() * iters * 12.0 * 32 / t / 1e9;
}

/// 12 FMA chains as in peakRunGflops, whose multiplicands (VECTORS vector
/// loads) and addends (BROADCASTS broadcasts of single floats, or none)
/// come from L1 in every iteration of 12 FMAs (the 6 x 4 tile loads 4
/// vectors and broadcasts 6 floats per 24 FMAs: 2 and 3 per 12). Nothing
/// but the FMAs depends on the loads, so this measures what the loads alone
/// cost the FMAs. A macro, so that each mix is compiled with its counts.
#define LOAD_MIX(NAME, VECTORS, BROADCASTS)                                    \
  static double NAME(void) {                                                   \
    const long iters = 30000000;                                               \
    float sink = 0;                                                            \
    double t0 = omp_get_wtime();                                               \
    _Pragma("omp parallel reduction(+ : sink)") {                              \
      /* acc * c + c stays near c / (1 - c) */                                 \
      float buffer[64] __attribute__((aligned(64)));                           \
      for (int i = 0; i < 64; ++i)                                             \
        buffer[i] = 0.9999999f;                                                \
      const float *p = buffer;                                                 \
      __m512 acc[12], y = _mm512_set1_ps(0.9999999f);                          \
      for (int i = 0; i < 12; ++i)                                             \
        acc[i] = _mm512_set1_ps((float)i);                                     \
      for (long n = 0; n < iters; ++n) {                                       \
        /* p is opaque to the compiler: the loads stay in the loop */          \
        __asm__ volatile("" : "+r"(p));                                        \
        __m512 v[VECTORS], b[BROADCASTS + 1];                                  \
        for (int j = 0; j < VECTORS; ++j)                                      \
          v[j] = _mm512_load_ps(p + 16 * j);                                   \
        for (int j = 0; j < BROADCASTS; ++j)                                   \
          b[j] = _mm512_set1_ps(p[j]);                                         \
        b[BROADCASTS] = y;                                                     \
        for (int i = 0; i < 12; ++i)                                           \
          acc[i] = _mm512_fmadd_ps(                                            \
              acc[i], v[i % VECTORS],                                          \
              b[BROADCASTS ? i % (BROADCASTS ? BROADCASTS : 1) : 0]);          \
      }                                                                        \
      __m512 s = acc[0];                                                       \
      for (int i = 1; i < 12; ++i)                                             \
        s = _mm512_add_ps(s, acc[i]);                                          \
      sink += _mm512_reduce_add_ps(s);                                         \
    }                                                                          \
    double t = omp_get_wtime() - t0;                                           \
    if (sink == 12345.f)                                                       \
      puts("");                                                                \
    return omp_get_max_threads() * iters * 12.0 * 32 / t / 1e9;                \
  }

LOAD_MIX(vectorLoadsGflops, 2, 0)
LOAD_MIX(tileLoadsGflops, 2, 3)

/// The register tile alone: every thread runs it over `strips` strips of
/// [kc x 64] (`strips * kc * 256` bytes of B) and one 6-row tile of A.
static double tileGflops(int kc, int strips, double seconds) {
  double flops = 0, t0 = omp_get_wtime(), t = 0;
#pragma omp parallel reduction(+ : flops)
  {
    float *a = alloc(4L * MR * kc), *b = alloc(4L * kc * NR * strips),
          *c = alloc(4L * MR * NR);
    for (long i = 0; i < (long)MR * kc; ++i)
      a[i] = 1e-3f * (i % 7);
    for (long i = 0; i < (long)kc * NR * strips; ++i)
      b[i] = 1e-3f * (i % 5);
    memset(c, 0, 4L * MR * NR);
    long reps = 0;
    while (omp_get_wtime() - t0 < seconds) {
      for (int r = 0; r < 16; ++r, ++reps)
        for (int s = 0; s < strips; ++s)
          fullTile(kc, a, 1, MR, b + (long)s * kc * NR, c, NR, 1);
    }
    flops += 2.0 * MR * NR * kc * strips * reps;
    free(a), free(b), free(c);
  }
  t = omp_get_wtime() - t0;
  return flops / t / 1e9;
}

typedef struct {
  int m, n, k, mc, nc, kc;
  const float *a, *b;
  const float *packedB; // [n/64][k][64], or null: pack per block
  const float *packedA; // 6-row panels [k][6] (see aPanel), or null
  float *c;
} Problem;

/// B[k0 .. k0+kc, j0 .. j0+nc] into strips [nc/64][kc][64].
static void packPanel(const Problem *p, int k0, int j0, float *panel) {
  for (int s = 0; s < p->nc; s += NR)
    for (int k = 0; k < p->kc; ++k)
      memcpy(panel + (long)s * p->kc + (long)NR * k,
             p->b + (long)(k0 + k) * p->n + j0 + s, 4 * NR);
}

/// The offset of the packed panel of A's 6-row tile that starts at row `i`:
/// panels [k][6] for the tiles of each row block, which start at multiples
/// of mc (the last tile of a block can be partial).
static long aPanel(const Problem *p, int i) {
  long tilesPerBlock = (p->mc + MR - 1) / MR;
  return ((i / p->mc) * tilesPerBlock + (i % p->mc) / MR) * p->k * MR;
}

static void blockedMatmul(const Problem *p) {
  int blocks = p->n / p->nc;
#pragma omp parallel
  {
    float *panel = p->packedB ? NULL : alloc(4L * p->kc * p->nc);
#pragma omp for schedule(static)
    for (int jb = 0; jb < blocks; ++jb) {
      int j0 = jb * p->nc;
      for (int k0 = 0; k0 < p->k; k0 += p->kc) {
        if (panel)
          packPanel(p, k0, j0, panel);
        for (int i0 = 0; i0 < p->m; i0 += p->mc) {
          int mc = i0 + p->mc <= p->m ? p->mc : p->m - i0;
          for (int s = 0; s < p->nc; s += NR) {
            const float *strip =
                panel ? panel + (long)s * p->kc
                      : p->packedB + (long)(j0 + s) * p->k + (long)k0 * NR;
            for (int i = i0; i < i0 + mc; i += MR) {
              int mr = i + MR <= i0 + mc ? MR : i0 + mc - i;
              const float *a;
              long rowStride, kStride;
              if (p->packedA) {
                a = p->packedA + aPanel(p, i) + (long)k0 * MR;
                rowStride = 1, kStride = MR;
              } else {
                a = p->a + (long)i * p->k + k0;
                rowStride = p->k, kStride = 1;
              }
              float *c = p->c + (long)i * p->n + j0 + s;
              if (mr == MR)
                fullTile(p->kc, a, rowStride, kStride, strip, c, p->n, k0 > 0);
              else
                partialTile(mr, p->kc, a, rowStride, kStride, strip, c, p->n,
                            k0 > 0);
            }
          }
        }
      }
    }
    free(panel);
  }
}

static double maxError(const Problem *p) {
  double worst = 0;
  for (int t = 0; t < 64; ++t) {
    int i = (int)((t * 7919L) % p->m), j = (int)((t * 104729L) % p->n);
    double ref = 0, scale = 0;
    for (int k = 0; k < p->k; ++k) {
      double x = (double)p->a[(long)i * p->k + k] * p->b[(long)k * p->n + j];
      ref += x, scale += fabs(x);
    }
    double err = fabs(p->c[(long)i * p->n + j] - ref) / (scale + 1e-30);
    worst = err > worst ? err : worst;
  }
  return worst;
}

static double matmulGflops(const Problem *p, double seconds) {
  blockedMatmul(p); // warm-up
  double best = 1e30, t0 = omp_get_wtime();
  int runs = 0;
  while (runs < 3 || omp_get_wtime() - t0 < seconds) {
    double t = omp_get_wtime();
    blockedMatmul(p);
    t = omp_get_wtime() - t;
    best = t < best ? t : best;
    ++runs;
  }
  return 2.0 * p->m * p->n * p->k / best / 1e9;
}

int main(int argc, char **argv) {
  int dims[6] = {1024, 1024, 1024, 256, 128, 1024};
  if (argc == 2 && !strcmp(argv[1], "--peak")) {
    printf("%-44s %7.1f GFLOP/s\n", "peak (12 FMA chains per thread)",
           peakGflops());
    return 0;
  }
  if (argc != 1 && argc != 7 && argc != 8) {
    fprintf(stderr, "usage: %s [M N K mc nc kc [seconds]] | --peak\n",
            argv[0]);
    return 2;
  }
  for (int i = 1; i < argc && i < 7; ++i)
    dims[i - 1] = atoi(argv[i]);
  double seconds = argc == 8 ? atof(argv[7]) : 2.0;
  Problem p = {dims[0], dims[1], dims[2], dims[3], dims[4], dims[5],
               NULL,    NULL,    NULL,    NULL,    NULL};
  if (p.m <= 0 || p.n <= 0 || p.k <= 0 || p.mc <= 0 || p.nc <= 0 ||
      p.kc <= 0 || p.n % p.nc || p.nc % NR || p.k % p.kc || !(seconds >= 0)) {
    fprintf(stderr, "matmul_ceiling: need N %% nc == 0, nc %% %d == 0, "
                    "K %% kc == 0 and seconds >= 0\n", NR);
    return 2;
  }
  if (!__builtin_cpu_supports("avx512f")) {
    fprintf(stderr, "matmul_ceiling: this CPU has no AVX-512F\n");
    return 2;
  }
  float *a = alloc(4L * p.m * p.k), *b = alloc(4L * p.k * p.n),
        *c = alloc(4L * p.m * p.n);
  for (long i = 0; i < (long)p.m * p.k; ++i)
    a[i] = (float)((i * 37 % 101) - 50) / 50;
  for (long i = 0; i < (long)p.k * p.n; ++i)
    b[i] = (float)((i * 53 % 103) - 51) / 51;
  p.a = a, p.b = b, p.c = c;

  double peak = peakGflops();
  printf("threads %d, M %d N %d K %d, mc %d nc %d kc %d\n",
         omp_get_max_threads(), p.m, p.n, p.k, p.mc, p.nc, p.kc);
  printf("%-44s %7.1f GFLOP/s\n", "peak (12 FMA chains per thread)", peak);
#define ROW(name, expression)                                                  \
  do {                                                                         \
    double rate = (expression);                                                \
    printf("%-44s %7.1f GFLOP/s %5.1f%% of peak\n", name, rate,               \
           100 * rate / peak);                                                 \
  } while (0)
  ROW("FMA chains + 2 vector loads per 12 FMAs", vectorLoadsGflops());
  ROW("FMA chains + 2 loads, 3 broadcasts per 12", tileLoadsGflops());
  char name[96];
  snprintf(name, sizeof name, "tile %dx%d L1 (kc 128, one %d KiB strip)", MR,
           NV, 128 * NR * 4 / 1024);
  ROW(name, tileGflops(128, 1, seconds / 2));
  int strips = (1 << 20) / (p.kc * NR * 4) > 1 ? (1 << 20) / (p.kc * NR * 4)
                                               : 1;
  snprintf(name, sizeof name, "tile %dx%d L2 (kc %d, %d strips of %d KiB)",
           MR, NV, p.kc, strips, p.kc * NR * 4 / 1024);
  ROW(name, tileGflops(p.kc, strips, seconds / 2));

  double g = matmulGflops(&p, seconds), err = maxError(&p);
  ROW("blocked (B packed per block, A in place)", g);
  float *packedB = alloc(4L * p.k * p.n);
  for (int s = 0; s < p.n; s += NR)
    for (int k = 0; k < p.k; ++k)
      memcpy(packedB + (long)s * p.k + (long)NR * k, b + (long)k * p.n + s,
             4 * NR);
  p.packedB = packedB;
  memset(c, 0, 4L * p.m * p.n);
  g = matmulGflops(&p, seconds);
  err = fmax(err, maxError(&p));
  ROW("prepacked B, A in place", g);
  long panels = (p.m + p.mc - 1) / p.mc * ((p.mc + MR - 1) / MR);
  float *packedA = alloc(4L * panels * p.k * MR);
  memset(packedA, 0, 4L * panels * p.k * MR);
  for (int i = 0; i < p.m; ++i)
    for (int k = 0; k < p.k; ++k)
      packedA[aPanel(&p, i) + (long)k * MR + i % p.mc % MR] =
          a[(long)i * p.k + k];
  p.packedA = packedA;
  memset(c, 0, 4L * p.m * p.n);
  g = matmulGflops(&p, seconds);
  err = fmax(err, maxError(&p));
  ROW("prepacked B, packed A", g);
  printf("largest relative error against float64: %.2g%s\n", err,
         err < 1e-5 ? "" : "  WRONG");
  free(a), free(b), free(c), free(packedA), free(packedB);
  return err < 1e-5 ? 0 : 1;
}
