// RUN: tiny-opt %s --tt-optimize --tt-gpu-tile-and-distribute --canonicalize --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --tt-gpu-map-to-launch --canonicalize --cse | FileCheck %s

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
