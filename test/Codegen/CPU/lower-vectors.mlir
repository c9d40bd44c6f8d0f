// RUN: tiny-opt %s --split-input-file --tt-cpu-lower-vectors | FileCheck %s

// A register-tile contraction becomes outer products: for each k, a
// broadcast element of A times a row of B, accumulated with vector.fma.
// CHECK-LABEL: func.func @contract
// CHECK-NOT:     vector.contract
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:     vector.fma
// CHECK:         return
func.func @contract(%a: vector<8x1xf32>, %b: vector<1x32xf32>, %c: vector<8x32xf32>) -> vector<8x32xf32> {
  %0 = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
  return %0 : vector<8x32xf32>
}

// -----

// A row reduction becomes a 1-D vector.reduction that LLVM may reassociate
// (a tree of vector adds instead of a serial chain).
// CHECK-LABEL: func.func @row_sum
// CHECK:         vector.reduction <add>, {{.*}} fastmath<reassoc,contract> : vector<768xf32> into f32
func.func @row_sum(%x: vector<1x768xf32>, %acc: vector<1xf32>) -> vector<1xf32> {
  %0 = vector.multi_reduction <add>, %x, %acc [1] : vector<1x768xf32> to vector<1xf32>
  return %0 : vector<1xf32>
}

// -----

// Elementwise ops on n-D vectors work row by row, on rank-1 vectors.
// CHECK-LABEL: func.func @rows
// CHECK-COUNT-2: math.absi {{.*}} : vector<3xi32>
// CHECK-NOT:     math.absi
func.func @rows(%x: vector<2x3xi32>) -> vector<2x3xi32> {
  %0 = math.absi %x : vector<2x3xi32>
  return %0 : vector<2x3xi32>
}

// -----

// The mask of a partial tile is a comparison of the lanes' positions with
// its run-time size; the masked read becomes a masked load.
// CHECK-LABEL: func.func @create_mask
// CHECK:         %[[LANES:.+]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xi32>
// CHECK:         %[[N:.+]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         %[[SPLAT:.+]] = vector.broadcast %[[N]] : i32 to vector<16xi32>
// CHECK:         %[[MASK:.+]] = arith.cmpi sgt, %[[SPLAT]], %[[LANES]] : vector<16xi32>
// CHECK:         vector.maskedload %{{.*}}[%{{.*}}], %[[MASK]]
// CHECK-NOT:     vector.create_mask
func.func @create_mask(%n: index, %m: memref<?xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %k = vector.create_mask %n : vector<16xi1>
  %v = vector.transfer_read %m[%c0], %p, %k {in_bounds = [true]} : memref<?xf32>, vector<16xf32>
  return %v : vector<16xf32>
}
