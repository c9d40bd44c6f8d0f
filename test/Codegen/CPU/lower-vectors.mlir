// RUN: tiny-opt %s --split-input-file --tt-cpu-lower-vectors | FileCheck %s
// RUN: tiny-opt %s --split-input-file '--tt-cpu-lower-vectors=f32-partial-sums=1' | FileCheck %s --check-prefix=WIDE

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

// A row maximum or minimum ignores the sign of zero (nsz), as NumPy's does:
// x86 then needs no sign fix-up of vmaxps/vminps, only the NaN one.
// CHECK-LABEL: func.func @row_max_min
// CHECK:         vector.reduction <maximumf>, {{.*}} fastmath<reassoc,nsz,contract> : vector<768xf32> into f32
// CHECK:         vector.reduction <minimumf>, {{.*}} fastmath<reassoc,nsz,contract> : vector<768xf32> into f32
func.func @row_max_min(%x: vector<1x768xf32>, %acc: vector<1xf32>) -> (vector<1xf32>, vector<1xf32>) {
  %0 = vector.multi_reduction <maximumf>, %x, %acc [1] : vector<1x768xf32> to vector<1xf32>
  %1 = vector.multi_reduction <minimumf>, %x, %acc [1] : vector<1x768xf32> to vector<1xf32>
  return %0, %1 : vector<1xf32>, vector<1xf32>
}

// -----

// A float32 row summed in float64: 8 slices of 96 lanes are added in
// float32 first (f32-partial-sums=8), and only their sum is widened.
// f32-partial-sums=1 widens all 768 elements.
// CHECK-LABEL: func.func @row_sum_f64
// CHECK-NOT:     vector<768xf64>
// CHECK:         vector.extract_strided_slice {{.*}} {offsets = [0], sizes = [96], strides = [1]} : vector<768xf32> to vector<96xf32>
// CHECK-COUNT-7: vector.extract_strided_slice {{.*}} : vector<768xf32> to vector<96xf32>
// CHECK-NEXT:    arith.addf {{.*}} : vector<96xf32>
// CHECK-NOT:     vector<768xf64>
// CHECK:         arith.extf {{.*}} : vector<96xf32> to vector<96xf64>
// CHECK:         vector.reduction <add>, {{.*}} : vector<96xf64> into f64
// WIDE-LABEL:    func.func @row_sum_f64
// WIDE-NOT:      vector.extract_strided_slice
// WIDE:          arith.extf {{.*}} : vector<768xf32> to vector<768xf64>
// WIDE:          vector.reduction <add>, {{.*}} : vector<768xf64> into f64
func.func @row_sum_f64(%x: vector<1x768xf32>, %acc: vector<1xf64>) -> vector<1xf64> {
  %w = arith.extf %x : vector<1x768xf32> to vector<1x768xf64>
  %0 = vector.multi_reduction <add>, %w, %acc [1] : vector<1x768xf64> to vector<1xf64>
  return %0 : vector<1xf64>
}

// -----

// A row whose length is no multiple of 16 lanes per slice takes fewer
// slices (48 = 16 x 3: three), or none.
// CHECK-LABEL: func.func @row_sum_f64_short
// CHECK:         vector.extract_strided_slice {{.*}} {offsets = [32], sizes = [16], strides = [1]} : vector<48xf32> to vector<16xf32>
// CHECK-NEXT:    arith.addf {{.*}} : vector<16xf32>
// CHECK:         arith.extf {{.*}} : vector<16xf32> to vector<16xf64>
// CHECK-LABEL: func.func @row_sum_f64_odd
// CHECK-NOT:     vector.extract_strided_slice
// CHECK:         arith.extf {{.*}} : vector<17xf32> to vector<17xf64>
func.func @row_sum_f64_short(%x: vector<1x48xf32>, %acc: vector<1xf64>) -> vector<1xf64> {
  %w = arith.extf %x : vector<1x48xf32> to vector<1x48xf64>
  %0 = vector.multi_reduction <add>, %w, %acc [1] : vector<1x48xf64> to vector<1xf64>
  return %0 : vector<1xf64>
}
func.func @row_sum_f64_odd(%x: vector<1x17xf32>, %acc: vector<1xf64>) -> vector<1xf64> {
  %w = arith.extf %x : vector<1x17xf32> to vector<1x17xf64>
  %0 = vector.multi_reduction <add>, %w, %acc [1] : vector<1x17xf64> to vector<1xf64>
  return %0 : vector<1xf64>
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

// -----

// A single element of a view whose innermost stride is not 1 (x[:, :, ::2]
// of a [3, 33, 3] array) is a memref.load, not a transfer LLVM cannot take.
// CHECK-LABEL: func.func @element_of_strided_view
// CHECK-NOT:     vector.transfer_read
// CHECK:         memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<3x33x1xf64, strided<[99, 3, 3]>>
func.func @element_of_strided_view(%m: memref<3x33x1xf64, strided<[99, 3, 3]>>, %i: index, %j: index) -> f64 {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f64
  %v = vector.transfer_read %m[%i, %j, %c0], %pad : memref<3x33x1xf64, strided<[99, 3, 3]>>, vector<f64>
  %e = vector.extract %v[] : f64 from vector<f64>
  return %e : f64
}

// -----

// A masked reduction (the partial tile of a reduction whose length is only
// known at run time) reduces all lanes, the masked-off ones replaced by the
// neutral element: -inf for a maximum, +inf for a minimum, -0.0 for a sum.
// (MLIR's own lowering started a masked maximum at -1e-45, so the maximum
// of negative numbers came out as -1e-45.)
// CHECK-LABEL: func.func @masked_reductions
// CHECK-DAG:     %[[NEGINF:.*]] = arith.constant dense<0xFF800000> : vector<16xf32>
// CHECK-DAG:     %[[INF:.*]] = arith.constant dense<0x7F800000> : vector<16xf32>
// CHECK-DAG:     %[[NEGZERO:.*]] = arith.constant dense<-0.000000e+00> : vector<16xf32>
// CHECK:         %[[A:.*]] = arith.select %[[M:.*]], %{{.*}}, %[[NEGINF]]
// CHECK:         vector.reduction <maximumf>, %[[A]]
// CHECK:         %[[B:.*]] = arith.select %[[M]], %{{.*}}, %[[INF]]
// CHECK:         vector.reduction <minimumf>, %[[B]]
// CHECK:         %[[C:.*]] = arith.select %[[M]], %{{.*}}, %[[NEGZERO]]
// CHECK:         vector.reduction <add>, %[[C]]
// CHECK-NOT:     vector.mask
func.func @masked_reductions(%v: vector<16xf32>, %n: index, %acc: f32) -> (f32, f32, f32) {
  %m = vector.create_mask %n : vector<16xi1>
  %0 = vector.mask %m { vector.reduction <maximumf>, %v, %acc : vector<16xf32> into f32 } : vector<16xi1> -> f32
  %1 = vector.mask %m { vector.reduction <minimumf>, %v, %acc : vector<16xf32> into f32 } : vector<16xi1> -> f32
  %2 = vector.mask %m { vector.reduction <add>, %v, %acc : vector<16xf32> into f32 } : vector<16xi1> -> f32
  return %0, %1, %2 : f32, f32, f32
}

// -----

// A copy between strided buffers (a head's columns) becomes linalg.copy,
// a loop nest LLVM vectorises; a copy of a whole contiguous buffer stays a
// memref.copy, which becomes one memcpy.
// CHECK-LABEL: func.func @copies
// CHECK: linalg.copy ins(%{{.*}} : memref<4x8xf32, strided<[16, 1]>>) outs(%arg1 : memref<4x8xf32>)
// CHECK: memref.copy %arg2, %arg1 : memref<4x8xf32> to memref<4x8xf32>
func.func @copies(%a: memref<4x16xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32>) {
  %s = memref.subview %a[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
  memref.copy %s, %b : memref<4x8xf32, strided<[16, 1]>> to memref<4x8xf32>
  memref.copy %c, %b : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// A contraction over unit reduction dimensions whose operands index the
// channels as the accumulator does (a depthwise convolution's window step,
// channels last) is one elementwise FMA on the accumulator's shape, not an
// unrolled multiply-add per lane.
// CHECK-LABEL: func.func @unit_reduction
// CHECK-NOT: vector.contract
// CHECK-DAG: %[[X:.*]] = vector.extract %{{.*}}[0, 0, 0, 0] : vector<64xf32> from vector<1x1x1x1x64xf32>
// CHECK-DAG: %[[W:.*]] = vector.extract %{{.*}}[0, 0, 0, 0] : vector<64xf32> from vector<1x1x1x1x64xf32>
// CHECK-DAG: %[[ACC:.*]] = vector.extract %{{.*}}[0, 0] : vector<64xf32> from vector<1x1x64xf32>
// CHECK: vector.fma %[[X]], %[[W]], %[[ACC]] : vector<64xf32>
// CHECK-NOT: vector.fma
// WIDE-LABEL: func.func @unit_reduction
#dw_in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4, d2)>
#dw_out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
func.func @unit_reduction(%x: vector<1x1x1x1x64xf32>, %w: vector<1x1x1x1x64xf32>, %acc: vector<1x1x64xf32>) -> vector<1x1x64xf32> {
  %0 = vector.contract {indexing_maps = [#dw_in, #dw_in, #dw_out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"], kind = #vector.kind<add>} %x, %w, %acc : vector<1x1x1x1x64xf32>, vector<1x1x1x1x64xf32> into vector<1x1x64xf32>
  return %0 : vector<1x1x64xf32>
}

// -----

// The same with the output position's unit dimensions folded out of the
// input's vector by the vectoriser (it broadcasts along them).
// CHECK-LABEL: func.func @unit_reduction_folded_dims
// CHECK-NOT: vector.contract
// CHECK: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<48xf32>
// CHECK-NOT: vector.reduction
// WIDE-LABEL: func.func @unit_reduction_folded_dims
func.func @unit_reduction_folded_dims(%x: vector<1x1x1x48xf32>, %w: vector<1x1x1x1x1x48xf32>, %acc: vector<1x1x1x48xf32>) -> vector<1x1x1x48xf32> {
  %0 = vector.contract {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d4, d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4, d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"], kind = #vector.kind<add>} %x, %w, %acc : vector<1x1x1x48xf32>, vector<1x1x1x1x1x48xf32> into vector<1x1x1x48xf32>
  return %0 : vector<1x1x1x48xf32>
}
