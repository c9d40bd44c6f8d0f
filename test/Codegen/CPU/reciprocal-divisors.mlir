// RUN: tiny-opt %s --split-input-file --tt-cpu-reciprocal-divisors | FileCheck %s
// RUN: tiny-opt %s --split-input-file --tt-lower-to-llvm="vector-bits=512 optimize=false" | FileCheck %s --check-prefix=LLVM
// RUN: tiny-opt %s --split-input-file --tt-lower-to-llvm="vector-bits=512 optimize=false reciprocal-divisors=false" | FileCheck %s --check-prefix=OFF

// Softmax's last step: each row divided by its sum (float64, truncated).
// The reciprocals are computed once per row by an op of their own (with
// the truncation), and the row is multiplied by them; the sums are no
// longer read by the row op.
// CHECK-LABEL: func.func @rows
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%arg1 : tensor<4xf64>) outs(%[[E]] : tensor<4xf32>)
// CHECK:           %[[T:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT:      arith.divf %[[ONE]], %[[T]] : f32
// CHECK:         linalg.generic {{.*}} ins(%arg0, %[[R]] : tensor<4x100xf32>, tensor<4xf32>)
// CHECK:         ^bb0(%[[A:.*]]: f32, %[[RA:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[A]], %[[RA]] : f32
// CHECK-NEXT:      linalg.yield %[[P]] : f32
// The lowered code divides 4 sums (one vector), not the 400 elements.
// LLVM-LABEL: llvm.func @rows
// LLVM-NOT:     llvm.fdiv {{.*}} : vector<{{[0-9]+}}xf32>
// LLVM:         llvm.fmul {{.*}} : vector<64xf32>
// LLVM-NOT:     llvm.fdiv {{.*}} : vector<{{[0-9]+}}xf32>
// LLVM:         llvm.fdiv {{.*}} : vector<4xf32>
// OFF-LABEL: llvm.func @rows
// OFF:         llvm.fdiv {{.*}} : vector<32xf32>
#m = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @rows(%x: tensor<4x100xf32>, %s: tensor<4xf64>) -> tensor<4x100xf32> {
  %e = tensor.empty() : tensor<4x100xf32>
  %0 = linalg.generic {indexing_maps = [#m, #r, #m], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x100xf32>, tensor<4xf64>) outs(%e : tensor<4x100xf32>) {
  ^bb0(%a: f32, %b: f64, %o: f32):
    %t = arith.truncf %b : f64 to f32
    %d = arith.divf %a, %t : f32
    linalg.yield %d : f32
  } -> tensor<4x100xf32>
  return %0 : tensor<4x100xf32>
}

// -----

// A divisor read elsewhere in the body stays an input; dynamic sizes give
// the reciprocals' tensor.empty its sizes from the divisor.
// CHECK-LABEL: func.func @used_twice
// CHECK:         %[[D:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?xf32>
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<?xf32>) outs(%[[E]] : tensor<?xf32>)
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1, %[[R]] : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>)
// CHECK:           arith.mulf
// CHECK-NOT:       arith.divf
// CHECK:           arith.addf
#m = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @used_twice(%x: tensor<?x?xf32>, %s: tensor<?xf32>, %e: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.generic {indexing_maps = [#m, #r, #m], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.divf %a, %b : f32
    %p = arith.addf %d, %b : f32
    linalg.yield %p : f32
  } -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Left alone: a divisor that varies along the innermost loop (a column
// vector, an elementwise divisor), a reduction, and an innermost loop of
// one iteration.
// CHECK-LABEL: func.func @columns
// CHECK-COUNT-2: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     arith.mulf
#m = affine_map<(d0, d1) -> (d0, d1)>
#c = affine_map<(d0, d1) -> (d1)>
func.func @columns(%x: tensor<4x100xf32>, %s: tensor<100xf32>, %y: tensor<4x100xf32>) -> tensor<4x100xf32> {
  %e = tensor.empty() : tensor<4x100xf32>
  %0 = linalg.generic {indexing_maps = [#m, #c, #m, #m], iterator_types = ["parallel", "parallel"]} ins(%x, %s, %y : tensor<4x100xf32>, tensor<100xf32>, tensor<4x100xf32>) outs(%e : tensor<4x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %d = arith.divf %a, %b : f32
    %f = arith.divf %d, %c : f32
    linalg.yield %f : f32
  } -> tensor<4x100xf32>
  return %0 : tensor<4x100xf32>
}
// CHECK-LABEL: func.func @reduction
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     arith.mulf
#r = affine_map<(d0, d1) -> (d0)>
func.func @reduction(%x: tensor<4x100xf32>, %s: tensor<4xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [#m, #r, #r], iterator_types = ["parallel", "reduction"]} ins(%x, %s : tensor<4x100xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.divf %a, %b : f32
    %p = arith.addf %d, %o : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @single_column
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     arith.mulf
func.func @single_column(%x: tensor<4x1xf32>, %s: tensor<4xf32>) -> tensor<4x1xf32> {
  %e = tensor.empty() : tensor<4x1xf32>
  %0 = linalg.generic {indexing_maps = [#m, #r, #m], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x1xf32>, tensor<4xf32>) outs(%e : tensor<4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.divf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
