// RUN: tiny-opt %s --tt-to-linalg --split-input-file --mlir-print-local-scope | FileCheck %s

// Lowering of the elementwise tt ops to linalg.generic: broadcasting through
// the indexing maps and the arith/math scalar bodies.

//===----------------------------------------------------------------------===//
// Broadcasting indexing maps
//===----------------------------------------------------------------------===//

// Same shapes: identity maps for everything.
// CHECK-LABEL: func.func @add_same_shape
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-SAME:      outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         return %[[R]] : tensor<2x3xf32>
func.func @add_same_shape(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tt.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A missing leading dimension is dropped from the operand's map.
// CHECK-LABEL: func.func @add_missing_leading_dim
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32>)
// CHECK:           arith.addf
func.func @add_missing_leading_dim(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = tt.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Size-1 dimensions that stretch read index 0; both operands broadcast.
// CHECK-LABEL: func.func @mul_size_one_dims
// CHECK:         tensor.empty() : tensor<2x3xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           arith.mulf
func.func @mul_size_one_dims(%a: tensor<2x1xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = tt.mul %a, %b : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Missing leading dims and a stretched size-1 dim together; a size-1 dim that
// matches a size-1 result dim keeps its dimension expression.
// CHECK-LABEL: func.func @sub_rank3
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
// CHECK:           arith.subf
func.func @sub_rank3(%a: tensor<4x1x5xf32>, %b: tensor<1x1xf32>) -> tensor<4x1x5xf32> {
  %0 = tt.sub %a, %b : (tensor<4x1x5xf32>, tensor<1x1xf32>) -> tensor<4x1x5xf32>
  return %0 : tensor<4x1x5xf32>
}

// -----

// A rank-0 operand has an empty result list in its map.
// CHECK-LABEL: func.func @div_rank0
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<f32>)
// CHECK:           arith.divf
func.func @div_rank0(%a: tensor<4xf32>, %b: tensor<f32>) -> tensor<4xf32> {
  %0 = tt.div %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Rank-0 with rank-0: a zero-dimensional generic.
// CHECK-LABEL: func.func @add_scalars
// CHECK:         tensor.empty() : tensor<f32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>]
// CHECK-SAME:      iterator_types = []
// CHECK:           arith.addf
func.func @add_scalars(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = tt.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// Binary bodies, f32 and i32
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_f32
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.subf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.divf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = math.powf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.maximumf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.minimumf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @binary_f32(%a: tensor<4xf32>, %b: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tt.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tt.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tt.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = tt.div %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = tt.pow %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = tt.max %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %6 = tt.min %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @binary_i32
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = arith.addi %[[X]], %[[Y]] : i32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = arith.subi %[[X]], %[[Y]] : i32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = arith.muli %[[X]], %[[Y]] : i32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = arith.divsi %[[X]], %[[Y]] : i32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = math.ipowi %[[X]], %[[Y]] : i32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = arith.maxsi %[[X]], %[[Y]] : i32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = arith.minsi %[[X]], %[[Y]] : i32
// CHECK-NEXT:      linalg.yield %[[V]]
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @binary_i32(%a: tensor<4xi32>, %b: tensor<i32>)
    -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
        tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = tt.add %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %1 = tt.sub %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %2 = tt.mul %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %3 = tt.div %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %4 = tt.pow %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %5 = tt.max %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %6 = tt.min %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
        tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// f64 uses the same float ops.
// CHECK-LABEL: func.func @binary_f64
// CHECK:         ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      arith.maximumf %[[X]], %[[Y]] : f64
// CHECK:         -> tensor<2x2xf64>
func.func @binary_f64(%a: tensor<2x2xf64>, %b: tensor<2x1xf64>) -> tensor<2x2xf64> {
  %0 = tt.max %a, %b : (tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}

// -----

//===----------------------------------------------------------------------===//
// Comparisons and select
//===----------------------------------------------------------------------===//

// Float comparisons are ordered except ne, which is unordered (NaN != x).
// CHECK-LABEL: func.func @cmp_f32
// CHECK:         tensor.empty() : tensor<4xi1>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>]
// CHECK-SAME:      outs(%{{.*}} : tensor<4xi1>)
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[V:.*]] = arith.cmpf oeq, %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:           arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK:           arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK:           arith.cmpf ole, %{{.*}}, %{{.*}} : f32
// CHECK:           arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK:           arith.cmpf oge, %{{.*}}, %{{.*}} : f32
// CHECK:         return
func.func @cmp_f32(%a: tensor<4xf32>, %b: tensor<f32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
        tensor<4xi1>) {
  %0 = tt.cmp eq, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %1 = tt.cmp ne, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %2 = tt.cmp lt, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %3 = tt.cmp le, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %4 = tt.cmp gt, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %5 = tt.cmp ge, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
      tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Integer comparisons are signed.
// CHECK-LABEL: func.func @cmp_i32
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:         ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i1):
// CHECK-NEXT:      %[[V:.*]] = arith.cmpi eq, %[[X]], %[[Y]] : i32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:           arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK:           arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK:           arith.cmpi sle, %{{.*}}, %{{.*}} : i32
// CHECK:           arith.cmpi sgt, %{{.*}}, %{{.*}} : i32
// CHECK:           arith.cmpi sge, %{{.*}}, %{{.*}} : i32
// CHECK:         return
func.func @cmp_i32(%a: tensor<2x1xi32>, %b: tensor<3xi32>)
    -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>,
        tensor<2x3xi1>, tensor<2x3xi1>) {
  %0 = tt.cmp eq, %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %1 = tt.cmp ne, %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %2 = tt.cmp lt, %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %3 = tt.cmp le, %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %4 = tt.cmp gt, %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %5 = tt.cmp ge, %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xi1>, tensor<2x3xi1>,
      tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}

// -----

// All three select operands broadcast.
// CHECK-LABEL: func.func @select
// CHECK-SAME:    (%[[C:.*]]: tensor<4x4xi1>, %[[T:.*]]: tensor<4xf32>, %[[F:.*]]: tensor<f32>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[C]], %[[T]], %[[F]] : tensor<4x4xi1>, tensor<4xf32>, tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: i1, %[[Y:.*]]: f32, %[[Z:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.select %[[X]], %[[Y]], %[[Z]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @select(%c: tensor<4x4xi1>, %t: tensor<4xf32>, %f: tensor<f32>) -> tensor<4x4xf32> {
  %0 = tt.select %c, %t, %f : (tensor<4x4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary_f32
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = math.absf %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = math.log %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = math.tanh %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = math.sqrt %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = math.rsqrt %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[E:.*]] = math.erf %[[X]] : f32
// CHECK-NEXT:      %[[V:.*]] = math.copysign %[[E]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @unary_f32(%x: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = tt.neg %x : tensor<2x3xf32>
  %1 = tt.abs %x : tensor<2x3xf32>
  %2 = tt.exp %x : tensor<2x3xf32>
  %3 = tt.log %x : tensor<2x3xf32>
  %4 = tt.tanh %x : tensor<2x3xf32>
  %5 = tt.sqrt %x : tensor<2x3xf32>
  %6 = tt.rsqrt %x : tensor<2x3xf32>
  %7 = tt.erf %x : tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Integer negation is 0 - x; integer abs is math.absi.
// CHECK-LABEL: func.func @unary_i32
// CHECK:         ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[V:.*]] = arith.subi %[[Z]], %[[X]] : i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32
// CHECK:         ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = math.absi %[[X]] : i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32
func.func @unary_i32(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = tt.neg %x : tensor<4xi32>
  %1 = tt.abs %x : tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @unary_f64
// CHECK:         ^bb0(%[[X:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[V:.*]] = math.tanh %[[X]] : f64
// CHECK-NEXT:      linalg.yield %[[V]] : f64
func.func @unary_f64(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = tt.tanh %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @cast_f32_to_f64
// CHECK:         tensor.empty() : tensor<2x3xf64>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xf64>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: f64):
// CHECK-NEXT:      %[[V:.*]] = arith.extf %[[X]] : f32 to f64
// CHECK-NEXT:      linalg.yield %[[V]] : f64
func.func @cast_f32_to_f64(%x: tensor<2x3xf32>) -> tensor<2x3xf64> {
  %0 = tt.cast %x to f64 : tensor<2x3xf32> -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

// CHECK-LABEL: func.func @cast_f64_to_f32
// CHECK:         ^bb0(%[[X:.*]]: f64, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.truncf %[[X]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @cast_f64_to_f32(%x: tensor<4xf64>) -> tensor<4xf32> {
  %0 = tt.cast %x to f32 : tensor<4xf64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @cast_f32_to_i32
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = arith.fptosi %[[X]] : f32 to i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32
func.func @cast_f32_to_i32(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = tt.cast %x to i32 : tensor<4xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @cast_i32_to_f32
// CHECK:         ^bb0(%[[X:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.sitofp %[[X]] : i32 to f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @cast_i32_to_f32(%x: tensor<4xi32>) -> tensor<4xf32> {
  %0 = tt.cast %x to f32 : tensor<4xi32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// i1 is unsigned: true becomes 1.0, not -1.0.
// CHECK-LABEL: func.func @cast_i1_to_f32
// CHECK:         ^bb0(%[[X:.*]]: i1, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.uitofp %[[X]] : i1 to f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @cast_i1_to_f32(%x: tensor<4xi1>) -> tensor<4xf32> {
  %0 = tt.cast %x to f32 : tensor<4xi1> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @cast_i1_to_i32
// CHECK:         ^bb0(%[[X:.*]]: i1, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = arith.extui %[[X]] : i1 to i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32
func.func @cast_i1_to_i32(%x: tensor<4xi1>) -> tensor<4xi32> {
  %0 = tt.cast %x to i32 : tensor<4xi1> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Casting to i1 compares with zero; for floats with une so that NaN is true.
// CHECK-LABEL: func.func @cast_f32_to_i1
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[V:.*]] = arith.cmpf une, %[[X]], %[[Z]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
func.func @cast_f32_to_i1(%x: tensor<4xf32>) -> tensor<4xi1> {
  %0 = tt.cast %x to i1 : tensor<4xf32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @cast_i32_to_i1
// CHECK:         ^bb0(%[[X:.*]]: i32, %{{.*}}: i1):
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[V:.*]] = arith.cmpi ne, %[[X]], %[[Z]] : i32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
func.func @cast_i32_to_i1(%x: tensor<4xi32>) -> tensor<4xi1> {
  %0 = tt.cast %x to i1 : tensor<4xi32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

//===----------------------------------------------------------------------===//
// broadcast_to
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast_to
// CHECK-SAME:    (%[[X:.*]]: tensor<3x1xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]] : tensor<3x1xf32>) outs(%[[INIT]] : tensor<2x3x4xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
func.func @broadcast_to(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = tt.broadcast_to %x [2, 3, 4] : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to_from_rank0
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%{{.*}} : tensor<i32>) outs(%{{.*}} : tensor<2x2xi32>)
func.func @broadcast_to_from_rank0(%x: tensor<i32>) -> tensor<2x2xi32> {
  %0 = tt.broadcast_to %x [2, 2] : tensor<i32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// tt.bitcast reinterprets each element: arith.bitcast in the body.
// CHECK-LABEL: func.func @bitcast
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : f32 to i32
func.func @bitcast(%a: tensor<4xf32>) -> tensor<4xi32> {
  %0 = tt.bitcast %a to i32 : tensor<4xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Bitwise ops and shifts: arith ops; a shift by the width or more gives 0
// (left) or shifts by width - 1 (right), as PyTorch's do.
// CHECK-LABEL: func.func @bitwise_and_shifts
// CHECK: arith.andi
// CHECK: arith.ori
// CHECK: arith.xori
// CHECK: arith.shli
// CHECK: arith.cmpi uge
// CHECK: arith.select
// CHECK: arith.cmpi uge
// CHECK: arith.select
// CHECK: arith.shrsi
func.func @bitwise_and_shifts(%a: tensor<4xi8>, %b: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>) {
  %0 = tt.bitwise_and %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %1 = tt.bitwise_or %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %2 = tt.bitwise_xor %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %3 = tt.shift_left %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %4 = tt.shift_right %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0, %1, %2, %3, %4 : tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>
}

// -----

// The trigonometric and hyperbolic functions: math ops.
// CHECK-LABEL: func.func @trigonometric
// CHECK: math.tan
// CHECK: math.asin
// CHECK: math.acos
// CHECK: math.sinh
// CHECK: math.cosh
// CHECK: math.asinh
// CHECK: math.acosh
// CHECK: math.atanh
// CHECK: math.log10
// CHECK: math.atan
// CHECK: math.atan2
func.func @trigonometric(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tt.tan %a : tensor<4xf32>
  %1 = tt.asin %a : tensor<4xf32>
  %2 = tt.acos %a : tensor<4xf32>
  %3 = tt.sinh %a : tensor<4xf32>
  %4 = tt.cosh %a : tensor<4xf32>
  %5 = tt.asinh %a : tensor<4xf32>
  %6 = tt.acosh %a : tensor<4xf32>
  %7 = tt.atanh %a : tensor<4xf32>
  %8 = tt.log10 %a : tensor<4xf32>
  %9 = tt.atan %a : tensor<4xf32>
  %10 = tt.atan2 %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
