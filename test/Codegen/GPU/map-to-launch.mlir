// RUN: tiny-opt %s --split-input-file --tt-optimize --tt-gpu-tile-and-distribute --canonicalize --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --tt-gpu-map-to-launch --canonicalize --cse | FileCheck %s
// RUN: tiny-opt %s --split-input-file --tt-optimize --tt-gpu-tile-and-distribute --canonicalize --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --tt-gpu-map-to-launch=shared-memory-matmul=false --canonicalize --cse | FileCheck %s --check-prefix=NOSTAGE

// Row sums: a launch of one block per row and 256 threads; the partial
// results are a workgroup attribution, each thread's slice of the row is
// reduced into its own, then after a barrier a gpu.all_reduce adds them and
// thread 0 adds the block's sum to the output. No scf.forall, memref.alloc
// in a kernel or memref.copy is left.
// CHECK-LABEL: func.func @row_sums
// CHECK:         gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[WG:.*]] : memref<1x256xf64, #gpu.address_space<workgroup>>)
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       scf.forall
// CHECK:           %[[TID:.*]] = gpu.thread_id x
// CHECK:           memref.subview %[[WG]][0, %[[TID]]] [1, 1]
// CHECK:           linalg.fill
// CHECK:           gpu.barrier
// CHECK:           memref.subview %{{.*}}[0, %[[TID]]] [1, %{{.*}}] [1, 256] : memref<1x1000xf32, strided<[1000, 1], offset: ?>> to memref<1x?xf32, strided<[1000, 256], offset: ?>>
// CHECK:           linalg.reduce
// CHECK:           gpu.barrier
// CHECK:           memref.load %[[WG]]
// CHECK:           %[[SUM:.*]] = gpu.all_reduce add %{{.*}} uniform
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK:           scf.if %[[FIRST]]
// CHECK:             arith.addf %[[SUM]]
// CHECK:             memref.store
// CHECK:           gpu.barrier
// CHECK:           gpu.terminator
// CHECK-NOT:     memref.copy
// CHECK:         gpu.launch
// CHECK-SAME:      threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64,
// CHECK:           arith.truncf
func.func @row_sums(%x: tensor<64x1000xf32>) -> tensor<64xf32> {
  %s = tt.sum %x axes = [1] : tensor<64x1000xf32> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// A matmul block: the 16 x 16 threads' register tiles read A and B through
// workgroup memory, K in steps of 16: each step, after a barrier, every
// thread copies 4 elements of A (stored transposed, rows padded to 68) and
// 4 of B, and after another barrier reduces the step into its tile.
// CHECK-LABEL: func.func @matmul
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c16{{.*}}, %{{.*}} = %c16{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[AT:.*]] : memref<16x68xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK:           memref.alloca() {{.*}} : memref<4x4xf32>
// CHECK:           linalg.fill
// CHECK:           scf.for %[[K0:.*]] = %c0 to %c256 step %c16
// CHECK:             gpu.barrier
// CHECK:             scf.for
// CHECK:               memref.load
// CHECK:               memref.store %{{.*}}, %[[AT]]
// CHECK:             scf.for
// CHECK:               memref.load
// CHECK:               memref.store %{{.*}}, %[[BS]]
// CHECK:             gpu.barrier
// CHECK:             linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<16x4xf32, strided<[68, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<16x4xf32, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
// CHECK:           linalg.copy
// NOSTAGE-LABEL: func.func @matmul
// NOSTAGE-NOT:     workgroup(
// NOSTAGE-NOT:     gpu.barrier
// NOSTAGE:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<4x256xf32
func.func @matmul(%a: tensor<128x256xf32>, %b: tensor<256x192xf32>) -> tensor<128x192xf32> {
  %c = tt.matmul %a, %b : (tensor<128x256xf32>, tensor<256x192xf32>) -> tensor<128x192xf32>
  return %c : tensor<128x192xf32>
}

// -----

// Thread loops of 36 x 7 and of 36 threads would need a 36 x 36 block: they
// get linear ids over 252 threads, and the zero that stands for the unit y
// and z ids is defined before every use.
// CHECK-LABEL: func.func @linear_ids
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c252, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK:           gpu.thread_id x
// CHECK-NOT:       gpu.thread_id y
// CHECK:           gpu.terminator
func.func @linear_ids(%x: tensor<64x7xf32>) -> tensor<64x7xf32> {
  %m = tt.mean %x axes = [1] keepdims : tensor<64x7xf32> -> tensor<64x1xf32>
  %d = tt.sub %x, %m : (tensor<64x7xf32>, tensor<64x1xf32>) -> tensor<64x7xf32>
  %v = tt.var %x axes = [1] keepdims : tensor<64x7xf32> -> tensor<64x1xf32>
  %s = tt.sqrt %v : tensor<64x1xf32>
  %r = tt.div %d, %s : (tensor<64x7xf32>, tensor<64x1xf32>) -> tensor<64x7xf32>
  return %r : tensor<64x7xf32>
}
