// RUN: tiny-opt %s --tt-approximate-math | FileCheck %s

// --tt-approximate-math replaces f32 math.tanh / exp / log / erf (and expm1,
// log1p, log2, which they are built from) by MLIR's polynomial
// approximations: arith ops plus math.fma / absf / floor, which lower to LLVM
// intrinsics rather than libm calls. Other types and other functions are
// left alone. Between each CHECK-LABEL and its return, no approximated
// function (and no call) may remain.

// tanh: clamped to +-7.99881172, a rational polynomial (divf) in x^2.
// CHECK-LABEL: func.func @tanh_f32
// CHECK-SAME:    (%[[X:.*]]: f32) -> f32
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         arith.constant 7.99881172 : f32
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         math.fma
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         arith.divf
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         return %{{.*}} : f32
func.func @tanh_f32(%x: f32) -> f32 {
  %0 = math.tanh %x : f32
  return %0 : f32
}

// exp: range reduction with floor, 2^n built with integer shifts and bitcast.
// CHECK-LABEL: func.func @exp_f32
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         math.floor
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         math.fma
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         arith.shli
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         arith.bitcast %{{.*}} : i32 to f32
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         return %{{.*}} : f32
func.func @exp_f32(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  return %0 : f32
}

// log: exponent and mantissa split through the bit pattern, then a
// polynomial.
// CHECK-LABEL: func.func @log_f32
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         arith.bitcast %{{.*}} : f32 to i32
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         math.fma
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         return %{{.*}} : f32
func.func @log_f32(%x: f32) -> f32 {
  %0 = math.log %x : f32
  return %0 : f32
}

// erf: polynomials selected by interval.
// CHECK-LABEL: func.func @erf_f32
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         math.fma
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         arith.select
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         return %{{.*}} : f32
func.func @erf_f32(%x: f32) -> f32 {
  %0 = math.erf %x : f32
  return %0 : f32
}

// The helper functions are approximated too.
// CHECK-LABEL: func.func @helpers_f32
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         math.fma
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         return %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32
func.func @helpers_f32(%x: f32) -> (f32, f32, f32) {
  %0 = math.expm1 %x : f32
  %1 = math.log1p %x : f32
  %2 = math.log2 %x : f32
  return %0, %1, %2 : f32, f32, f32
}

// Vectors of f32 are approximated elementwise in vector form.
// CHECK-LABEL: func.func @exp_vector
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         return %{{.*}} : vector<8xf32>
func.func @exp_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// Inside a linalg.generic body, as --tt-to-linalg produces.
// CHECK-LABEL: func.func @tanh_in_generic
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         arith.divf
// CHECK-NOT:     {{math\.(tanh|exp|log|erf)|call}}
// CHECK:         linalg.yield %{{.*}} : f32
func.func @tanh_in_generic(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.tanh %x : f32
    linalg.yield %e : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// f64 keeps calling libm.
// CHECK-LABEL: func.func @f64_unchanged
// CHECK-SAME:    (%[[X:.*]]: f64)
// CHECK-NEXT:    %[[T:.*]] = math.tanh %[[X]] : f64
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[X]] : f64
// CHECK-NEXT:    %[[L:.*]] = math.log %[[X]] : f64
// CHECK-NEXT:    %[[R:.*]] = math.erf %[[X]] : f64
// CHECK-NEXT:    return %[[T]], %[[E]], %[[L]], %[[R]]
func.func @f64_unchanged(%x: f64) -> (f64, f64, f64, f64) {
  %0 = math.tanh %x : f64
  %1 = math.exp %x : f64
  %2 = math.log %x : f64
  %3 = math.erf %x : f64
  return %0, %1, %2, %3 : f64, f64, f64, f64
}

// Functions outside the list stay, even in f32 (sqrt lowers to an LLVM
// intrinsic anyway; sin has an upstream approximation that is not used).
// CHECK-LABEL: func.func @others_unchanged
// CHECK-SAME:    (%[[X:.*]]: f32)
// CHECK-NEXT:    %[[S:.*]] = math.sqrt %[[X]] : f32
// CHECK-NEXT:    %[[N:.*]] = math.sin %[[X]] : f32
// CHECK-NEXT:    return %[[S]], %[[N]] : f32, f32
func.func @others_unchanged(%x: f32) -> (f32, f32) {
  %0 = math.sqrt %x : f32
  %1 = math.sin %x : f32
  return %0, %1 : f32, f32
}
