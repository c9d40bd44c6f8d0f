// RUN: tiny-opt %s --tt-lower-to-llvm=vector-bits=512 | FileCheck %s --check-prefix=DEFAULT \
// RUN:   --implicit-check-not=tt. --implicit-check-not=linalg. --implicit-check-not=vector. \
// RUN:   --implicit-check-not=scf. --implicit-check-not=memref. --implicit-check-not=math.
// RUN: tiny-opt %s '--tt-lower-to-llvm=vector-bits=512 threads=1' | FileCheck %s --check-prefix=SEQ
// RUN: tiny-opt %s '--tt-lower-to-llvm=vector-bits=512 threads=4' | FileCheck %s --check-prefix=FOUR
// RUN: tiny-opt %s '--tt-lower-to-llvm=vector-bits=512 vectorize=false' | FileCheck %s --check-prefix=SCALAR
// RUN: tiny-opt %s '--tt-lower-to-llvm=tile=false vectorize=false' | FileCheck %s --check-prefix=PLAIN
// RUN: tiny-opt %s '--tt-lower-to-llvm=vector-bits=256' | FileCheck %s --check-prefix=AVX2
// RUN: tiny-opt %s '--tt-lower-to-llvm=vector-bits=512 generic-alloc=true' | FileCheck %s --check-prefix=GENERIC

// Each stage of tt-lower-to-llvm and its off switch, on a matmul with a
// bias + tanh epilogue.
//
// Default: the blocks run in an OpenMP parallel region (thread count left
// to the runtime), the register tile is FMAs (fmuladd) on rows of 64 f32
// (four 512-bit registers),
// tanh is a polynomial on vectors.
// DEFAULT:     omp.parallel
// DEFAULT-NOT: num_threads
// DEFAULT:     omp.wsloop
// DEFAULT:     llvm.intr.fmuladd{{.*}} : (vector<64xf32>, vector<64xf32>, vector<64xf32>) -> vector<64xf32>
//
// threads=1: no OpenMP.
// SEQ-NOT:     omp.
// SEQ:         llvm.intr.fmuladd{{.*}}vector<64xf32>
// SEQ-NOT:     omp.
//
// threads=4 fixes the team size.
// FOUR:        omp.parallel num_threads
//
// vectorize=false: tiles, threads, but scalar code for LLVM to vectorise.
// SCALAR:      omp.parallel
// SCALAR-NOT:  vector<
//
// tile=false vectorize=false: the plain loop nests of earlier versions.
// PLAIN-NOT:   omp.
// PLAIN-NOT:   vector<
//
// generic-alloc=true: buffers come from _mlir_memref_to_llvm_alloc and go
// back to _mlir_memref_to_llvm_free (the Python runtime's buffer cache),
// not malloc and free.
// GENERIC-NOT: llvm.call @malloc
// GENERIC:     llvm.call @_mlir_memref_to_llvm_alloc
// GENERIC-NOT: llvm.call @free
// GENERIC:     llvm.call @_mlir_memref_to_llvm_free
// GENERIC-NOT: llvm.call @free
//
// A 256-bit machine (AVX2): register tiles of 4 x 16 f32.
// AVX2:        llvm.intr.fmuladd{{.*}} : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
func.func @linear_tanh(%x: tensor<256x128xf32>, %w: tensor<128x512xf32>, %b: tensor<512xf32>) -> tensor<256x512xf32> {
  %0 = tt.matmul %x, %w : (tensor<256x128xf32>, tensor<128x512xf32>) -> tensor<256x512xf32>
  %1 = tt.add %0, %b : (tensor<256x512xf32>, tensor<512xf32>) -> tensor<256x512xf32>
  %2 = tt.tanh %1 : tensor<256x512xf32>
  return %2 : tensor<256x512xf32>
}
