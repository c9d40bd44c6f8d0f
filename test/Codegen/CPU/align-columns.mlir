// RUN: tiny-opt %s --split-input-file --tt-cpu-align-columns=vector-bits=512 | FileCheck %s
// RUN: tiny-opt %s --split-input-file '--tt-cpu-align-columns=vector-bits=512 max-rows=8' | FileCheck %s --check-prefix=ROWS8
// RUN: tiny-opt %s --split-input-file --tt-cpu-align-columns=vector-bits=512 --tt-cpu-tile-and-fuse=vector-bits=512 --canonicalize | FileCheck %s --check-prefix=TILED
// RUN: tiny-opt %s --split-input-file --tt-lower-to-llvm="vector-bits=512 optimize=false align-columns=true" | FileCheck %s --check-prefix=LLVM
// RUN: tiny-opt %s --split-input-file --tt-lower-to-llvm="vector-bits=512 optimize=false align-columns=false" | FileCheck %s --check-prefix=NOALIGN
// align-columns=auto (the default) splits only on the host CPU, and only
// where that is an AMD CPU: a target given by its vector width is never split.
// RUN: tiny-opt %s --split-input-file --tt-lower-to-llvm="vector-bits=512 optimize=false" | FileCheck %s --check-prefix=NOALIGN

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>

// 16 rows of f64 times f32 weights (a float64 model over 16 tokens): the
// register strip is 16 f64 columns, a line of B is 16 f32, so w = 16. The
// first and last 16 columns are computed as they are, then the 48 columns
// from the first line start of B on (q, from B's address at run time).
// CHECK-LABEL: func.func @mixed
// CHECK-SAME:    (%[[A:.*]]: tensor<16x96xf64>, %[[B:.*]]: tensor<96x64xf32>)
// CHECK:         %[[BUF:.*]] = bufferization.to_buffer %[[B]] read_only : tensor<96x64xf32> to memref<96x64xf32, strided<[?, ?], offset: ?>>
// CHECK:         %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK:         %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[BUF]]
// CHECK:         %[[BYTES:.*]] = arith.muli %[[OFF]], %c4
// CHECK:         %[[ADDR:.*]] = arith.addi %[[PTR]], %[[BYTES]]
// CHECK:         %[[PAST:.*]] = arith.remui %[[ADDR]], %c64
// CHECK:         %[[GAP:.*]] = arith.subi %c64{{.*}}, %[[PAST]]
// CHECK:         %[[TONEXT:.*]] = arith.remui %[[GAP]], %c64
// CHECK:         %[[Q:.*]] = arith.divui %[[TONEXT]], %c4
// CHECK:         %[[C:.*]] = tensor.empty() : tensor<16x64xf64>
// CHECK:         %[[B0:.*]] = tensor.extract_slice %[[B]][0, 0] [96, 16] [1, 1]
// CHECK:         %[[C0:.*]] = tensor.extract_slice %[[C]][0, 0] [16, 16] [1, 1]
// CHECK:         %[[F0:.*]] = linalg.fill {{.*}} outs(%[[C0]] : tensor<16x16xf64>)
// CHECK:         %[[P0:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B0]] : {{.*}}) outs(%[[F0]] : tensor<16x16xf64>) attrs = {tt.rhs_in_place}
// CHECK:         %[[I0:.*]] = tensor.insert_slice %[[P0]] into %[[C]][0, 0] [16, 16] [1, 1]
// CHECK:         %[[B1:.*]] = tensor.extract_slice %[[B]][0, 48] [96, 16] [1, 1]
// CHECK:         linalg.generic {{.*}} attrs = {tt.rhs_in_place}
// CHECK:         %[[I1:.*]] = tensor.insert_slice %{{.*}} into %[[I0]][0, 48] [16, 16] [1, 1]
// CHECK:         %[[B2:.*]] = tensor.extract_slice %[[B]][0, %[[Q]]] [96, 48] [1, 1] : tensor<96x64xf32> to tensor<96x48xf32>
// CHECK:         %[[C2:.*]] = tensor.extract_slice %[[I1]][0, %[[Q]]] [16, 48] [1, 1]
// CHECK:         %[[F2:.*]] = linalg.fill {{.*}} outs(%[[C2]] : tensor<16x48xf64>)
// CHECK:         %[[P2:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B2]] : {{.*}}) outs(%[[F2]] : tensor<16x48xf64>) attrs = {tt.rhs_in_place}
// CHECK:         %[[R:.*]] = tensor.insert_slice %[[P2]] into %[[I1]][0, %[[Q]]] [16, 48] [1, 1]
// CHECK:         return %[[R]]
// CHECK-NOT:     linalg.generic
// ROWS8-LABEL:   func.func @mixed
// ROWS8-NOT:       bufferization.to_buffer
// ROWS8:           return

// Tiled, every part reads B where it is: no packed strips, threads take
// strips of 16 columns of the middle part, and each [8 x 16] register tile
// runs the whole K (the fill becomes its accumulators' zeros). The edges,
// one strip each, are split between the threads by row tiles.
// TILED-LABEL: func.func @mixed
// TILED-NOT:     tensor<{{[0-9]+}}x96x16xf{{32|64}}>
// TILED:         scf.forall (%{{.*}}) = (0) to (16) step (8)
// TILED:           scf.for %{{.*}} = %c0 to %c96 step %c4
// TILED:         scf.forall (%{{.*}}) = (0) to (16) step (8)
// TILED:           scf.for %{{.*}} = %c0 to %c96 step %c4
// TILED:         scf.forall (%{{.*}}) = (0) to (48) step (16)
// TILED:           scf.for %{{.*}} = %c0 to %c16 step %c8
// TILED:             linalg.fill {{.*}} -> tensor<8x16xf64>
// TILED:             scf.for %{{.*}} = %c0 to %c96 step %c4
// TILED-NOT:     tensor<{{[0-9]+}}x96x16xf{{32|64}}>
// TILED:         return

// Lowered: three loop nests (the parts) instead of one, and nothing of
// the address computation left but LLVM.
// LLVM-NOT:     bufferization.
// LLVM-NOT:     memref.
// LLVM:         llvm.func @mixed_loop(
// LLVM:         llvm.func @mixed_loop_0(
// LLVM:         llvm.func @mixed_loop_1(
// LLVM:         llvm.func @mixed(
// NOALIGN:        llvm.func @mixed_loop(
// NOALIGN-NOT:    llvm.func @mixed_loop_0(
// NOALIGN:        llvm.func @mixed(
func.func @mixed(%a: tensor<16x96xf64>, %b: tensor<96x64xf32>) -> tensor<16x64xf64> {
  %cst = arith.constant 0.000000e+00 : f64
  %0 = tensor.empty() : tensor<16x64xf64>
  %1 = linalg.fill ins(%cst : f64) outs(%0 : tensor<16x64xf64>) -> tensor<16x64xf64>
  %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x96xf64>, tensor<96x64xf32>) outs(%1 : tensor<16x64xf64>) {
  ^bb0(%in: f64, %in_0: f32, %out: f64):
    %3 = arith.extf %in_0 : f32 to f64
    %4 = arith.mulf %in, %3 : f64
    %5 = arith.addf %out, %4 : f64
    linalg.yield %5 : f64
  } -> tensor<16x64xf64>
  return %2 : tensor<16x64xf64>
}

// -----

// Left alone: B of C's own type (the products wait on memory either way),
// more than 64 rows, a B that is not an argument, n not a multiple of the
// strip or under four strips, B transposed.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:     bufferization.to_buffer
// CHECK-NOT:     tt.rhs_in_place
// CHECK:         return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#mapT = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @untouched(%a: tensor<16x96xf32>, %b: tensor<96x64xf32>,
                     %a65: tensor<65x96xf64>, %a16: tensor<16x96xf64>,
                     %b72: tensor<96x72xf32>, %b48: tensor<96x48xf32>,
                     %bt: tensor<64x96xf32>)
    -> (tensor<16x64xf32>, tensor<65x64xf64>, tensor<16x64xf64>,
        tensor<16x72xf64>, tensor<16x48xf64>, tensor<16x64xf64>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst64 = arith.constant 0.000000e+00 : f64
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %same = linalg.matmul ins(%a, %b : tensor<16x96xf32>, tensor<96x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e65 = tensor.empty() : tensor<65x64xf64>
  %f65 = linalg.fill ins(%cst64 : f64) outs(%e65 : tensor<65x64xf64>) -> tensor<65x64xf64>
  %rows = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a65, %b : tensor<65x96xf64>, tensor<96x64xf32>) outs(%f65 : tensor<65x64xf64>) {
  ^bb0(%in: f64, %in_0: f32, %out: f64):
    %3 = arith.extf %in_0 : f32 to f64
    %4 = arith.mulf %in, %3 : f64
    %5 = arith.addf %out, %4 : f64
    linalg.yield %5 : f64
  } -> tensor<65x64xf64>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<96x64xf32>) outs(%b : tensor<96x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<96x64xf32>
  %e16 = tensor.empty() : tensor<16x64xf64>
  %f16 = linalg.fill ins(%cst64 : f64) outs(%e16 : tensor<16x64xf64>) -> tensor<16x64xf64>
  %computed = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a16, %neg : tensor<16x96xf64>, tensor<96x64xf32>) outs(%f16 : tensor<16x64xf64>) {
  ^bb0(%in: f64, %in_0: f32, %out: f64):
    %3 = arith.extf %in_0 : f32 to f64
    %4 = arith.mulf %in, %3 : f64
    %5 = arith.addf %out, %4 : f64
    linalg.yield %5 : f64
  } -> tensor<16x64xf64>
  %e72 = tensor.empty() : tensor<16x72xf64>
  %f72 = linalg.fill ins(%cst64 : f64) outs(%e72 : tensor<16x72xf64>) -> tensor<16x72xf64>
  %odd = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a16, %b72 : tensor<16x96xf64>, tensor<96x72xf32>) outs(%f72 : tensor<16x72xf64>) {
  ^bb0(%in: f64, %in_0: f32, %out: f64):
    %3 = arith.extf %in_0 : f32 to f64
    %4 = arith.mulf %in, %3 : f64
    %5 = arith.addf %out, %4 : f64
    linalg.yield %5 : f64
  } -> tensor<16x72xf64>
  %e48 = tensor.empty() : tensor<16x48xf64>
  %f48 = linalg.fill ins(%cst64 : f64) outs(%e48 : tensor<16x48xf64>) -> tensor<16x48xf64>
  %narrow = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a16, %b48 : tensor<16x96xf64>, tensor<96x48xf32>) outs(%f48 : tensor<16x48xf64>) {
  ^bb0(%in: f64, %in_0: f32, %out: f64):
    %3 = arith.extf %in_0 : f32 to f64
    %4 = arith.mulf %in, %3 : f64
    %5 = arith.addf %out, %4 : f64
    linalg.yield %5 : f64
  } -> tensor<16x48xf64>
  %transposed = linalg.generic {indexing_maps = [#map, #mapT, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a16, %bt : tensor<16x96xf64>, tensor<64x96xf32>) outs(%f16 : tensor<16x64xf64>) {
  ^bb0(%in: f64, %in_0: f32, %out: f64):
    %3 = arith.extf %in_0 : f32 to f64
    %4 = arith.mulf %in, %3 : f64
    %5 = arith.addf %out, %4 : f64
    linalg.yield %5 : f64
  } -> tensor<16x64xf64>
  return %same, %rows, %computed, %odd, %narrow, %transposed : tensor<16x64xf32>, tensor<65x64xf64>, tensor<16x64xf64>, tensor<16x72xf64>, tensor<16x48xf64>, tensor<16x64xf64>
}
