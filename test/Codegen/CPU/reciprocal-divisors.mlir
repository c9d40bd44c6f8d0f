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

// -----

// layer_norm's last step, as tt-optimize fuses it: the body computes the
// divisor sqrt(var * (1/n) + eps) from the row's sum of squares (float64,
// truncated) and constants from outside the op. The reciprocal op computes
// it the same way, once per row; the row op keeps the mean's own use of
// its input and no longer reads the sums of squares.
// CHECK-LABEL: func.func @computed
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<4xf64>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f64, %{{.*}}: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[V]], %[[N:.*]] : f64
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[M]] : f64 to f32
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[T]], %[[EPS:.*]] : f32
// CHECK-NEXT:      %[[S:.*]] = math.sqrt %[[A]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1, %[[R]] : tensor<4x100xf32>, tensor<4xf64>, tensor<4xf32>)
// CHECK-NOT:       math.sqrt
// CHECK-NOT:       arith.divf
// CHECK:           arith.subf
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      linalg.yield
// The lowered code: the loop over the rows (outlined) multiplies and
// divides nothing; the four reciprocals are one vector division before it.
// Without the option the loop divides vectors of the rows' elements.
// LLVM-LABEL: llvm.func @computed_loop
// LLVM-NOT:     llvm.fdiv
// LLVM:         llvm.fmul {{.*}} : vector<32xf32>
// LLVM-NOT:     llvm.fdiv
// LLVM-LABEL: llvm.func @computed(
// LLVM:         llvm.fdiv {{.*}} : vector<4xf32>
// OFF-LABEL: llvm.func @computed_loop
// OFF:         llvm.fdiv {{.*}} : vector<32xf32>
#m = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @computed(%x: tensor<4x100xf32>, %sum: tensor<4xf64>, %sq: tensor<4xf64>) -> tensor<4x100xf32> {
  %n = arith.constant 0.01 : f64
  %eps = arith.constant 1.0e-05 : f32
  %e = tensor.empty() : tensor<4x100xf32>
  %0 = linalg.generic {indexing_maps = [#m, #r, #r, #m], iterator_types = ["parallel", "parallel"]} ins(%x, %sum, %sq : tensor<4x100xf32>, tensor<4xf64>, tensor<4xf64>) outs(%e : tensor<4x100xf32>) {
  ^bb0(%a: f32, %s: f64, %v: f64, %o: f32):
    %vm = arith.mulf %v, %n : f64
    %vt = arith.truncf %vm : f64 to f32
    %mm = arith.mulf %s, %n : f64
    %mt = arith.truncf %mm : f64 to f32
    %ve = arith.addf %vt, %eps : f32
    %sd = math.sqrt %ve : f32
    %c = arith.subf %a, %mt : f32
    %d = arith.divf %c, %sd : f32
    linalg.yield %d : f32
  } -> tensor<4x100xf32>
  return %0 : tensor<4x100xf32>
}

// -----

// A divisor computed from two row values (the same indexing map): the
// reciprocal op reads both, and the row op neither. An op of the chain that
// the rest of the body also uses stays in the body.
// CHECK-LABEL: func.func @two_leaves
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%arg1, %arg2 : tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:           arith.addf
// CHECK-NEXT:      arith.divf
// CHECK:         linalg.generic {{.*}} ins(%arg0, %[[R]] : tensor<4x100xf32>, tensor<4xf32>)
// CHECK-NOT:       arith.divf
// CHECK-LABEL: func.func @shared_step
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1, %[[R]] : tensor<4x100xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:           %[[A:.*]] = math.absf
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      arith.addf %[[P]], %[[A]] : f32
#m = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @two_leaves(%x: tensor<4x100xf32>, %s: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<4x100xf32> {
  %e = tensor.empty() : tensor<4x100xf32>
  %0 = linalg.generic {indexing_maps = [#m, #r, #r, #m], iterator_types = ["parallel", "parallel"]} ins(%x, %s, %t : tensor<4x100xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %sum = arith.addf %b, %c : f32
    %d = arith.divf %a, %sum : f32
    linalg.yield %d : f32
  } -> tensor<4x100xf32>
  return %0 : tensor<4x100xf32>
}
func.func @shared_step(%x: tensor<4x100xf32>, %s: tensor<4xf32>) -> tensor<4x100xf32> {
  %e = tensor.empty() : tensor<4x100xf32>
  %0 = linalg.generic {indexing_maps = [#m, #r, #m], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x100xf32>, tensor<4xf32>) outs(%e : tensor<4x100xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %abs = math.absf %b : f32
    %d = arith.divf %a, %abs : f32
    %p = arith.addf %d, %abs : f32
    linalg.yield %p : f32
  } -> tensor<4x100xf32>
  return %0 : tensor<4x100xf32>
}

// -----

// Left alone: a divisor computed from a value that varies along the row,
// from row values with different indexing maps (a [4] and a transposed
// [4, 1] read), from the loop index, and a constant divisor.
// CHECK-LABEL: func.func @varies
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     arith.mulf
// CHECK-LABEL: func.func @mixed_maps
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     arith.mulf
// CHECK-LABEL: func.func @index
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     arith.mulf
// CHECK-LABEL: func.func @constant
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     arith.mulf
#m = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
#r2 = affine_map<(d0, d1) -> (d0, 0)>
func.func @varies(%x: tensor<4x100xf32>, %s: tensor<4xf32>) -> tensor<4x100xf32> {
  %e = tensor.empty() : tensor<4x100xf32>
  %0 = linalg.generic {indexing_maps = [#m, #r, #m], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x100xf32>, tensor<4xf32>) outs(%e : tensor<4x100xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %sum = arith.addf %a, %b : f32
    %d = arith.divf %a, %sum : f32
    linalg.yield %d : f32
  } -> tensor<4x100xf32>
  return %0 : tensor<4x100xf32>
}
func.func @mixed_maps(%x: tensor<4x100xf32>, %s: tensor<4xf32>, %t: tensor<4x1xf32>) -> tensor<4x100xf32> {
  %e = tensor.empty() : tensor<4x100xf32>
  %0 = linalg.generic {indexing_maps = [#m, #r, #r2, #m], iterator_types = ["parallel", "parallel"]} ins(%x, %s, %t : tensor<4x100xf32>, tensor<4xf32>, tensor<4x1xf32>) outs(%e : tensor<4x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %sum = arith.addf %b, %c : f32
    %d = arith.divf %a, %sum : f32
    linalg.yield %d : f32
  } -> tensor<4x100xf32>
  return %0 : tensor<4x100xf32>
}
func.func @index(%x: tensor<4x100xf32>, %s: tensor<4xf32>) -> tensor<4x100xf32> {
  %e = tensor.empty() : tensor<4x100xf32>
  %0 = linalg.generic {indexing_maps = [#m, #r, #m], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x100xf32>, tensor<4xf32>) outs(%e : tensor<4x100xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %sum = arith.addf %b, %f : f32
    %d = arith.divf %a, %sum : f32
    linalg.yield %d : f32
  } -> tensor<4x100xf32>
  return %0 : tensor<4x100xf32>
}
func.func @constant(%x: tensor<4x100xf32>) -> tensor<4x100xf32> {
  %c = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<4x100xf32>
  %0 = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x100xf32>) outs(%e : tensor<4x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %a, %c : f32
    linalg.yield %d : f32
  } -> tensor<4x100xf32>
  return %0 : tensor<4x100xf32>
}
