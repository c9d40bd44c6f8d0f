// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of tt.sin, cos, floor, ceil, round (halves to
// even), log1p/expm1 (accurate near zero), exp2, log2, reduce_min, prod,
// argmax/argmin (first of equal values) and cumsum. Expected values:
// NumPy's np.sin, ..., np.min, np.prod, np.argmax, np.argmin, np.cumsum.

// CHECK: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [-0.598472,  -0.479426,  0.479426,  0.997495,  0.598472,  -0.529836]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [-0.801144,  0.877583,  0.877583,  0.0707372,  -0.801144,  -0.8481]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [-3,  -1,  0,  1,  2,  3]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [-2,  -0,  1,  2,  3,  4]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [-2,  -0,  0,  2,  2,  4]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [1e-10,  0.405465,  1.38629,  0]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [1e-10,  0.648721,  19.0855,  0]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [1,  1.41421,  8,  1]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [-33.2193,  -1,  1.58496,  -inf]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [-1,  -4]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [10,  -18,  -28]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [0,  1]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [1,  0,  1]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[\[}}3,   2,   5],
// CHECK-NEXT: [0.5,   7.5,   3.5]]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[\[}}2,   -3,   4],
// CHECK-NEXT: [7,   3,   -3]]

// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: {{\[\[}}0,   1],
// CHECK-NEXT: [2,   3]]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[\[}}0,   2,   4],
// CHECK-NEXT: [1,   3,   5]]
func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)
func.func private @printMemrefI32(tensor<*xi32>)

func.func @unary_f64(%x: tensor<6xf64>) -> (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>) {
  %0 = tt.sin %x : tensor<6xf64>
  %1 = tt.cos %x : tensor<6xf64>
  %2 = tt.floor %x : tensor<6xf64>
  %3 = tt.ceil %x : tensor<6xf64>
  %4 = tt.round %x : tensor<6xf64>
  return %0, %1, %2, %3, %4 : tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>
}

func.func @small_f64(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = tt.log1p %x : tensor<4xf64>
  %1 = tt.expm1 %x : tensor<4xf64>
  %2 = tt.exp2 %x : tensor<4xf64>
  %3 = tt.log2 %x : tensor<4xf64>
  return %0, %1, %2, %3 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

func.func @reductions(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>) -> (tensor<2xf32>, tensor<3xi32>, tensor<2xi32>, tensor<3xi32>, tensor<2x3xf32>, tensor<2x3xi32>) {
  %0 = tt.reduce_min %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %1 = tt.prod %i axes = [0] : tensor<2x3xi32> -> tensor<3xi32>
  %2 = tt.argmax %x axis = 1 : tensor<2x3xf32> -> tensor<2xi32>
  %3 = tt.argmin %x axis = 0 : tensor<2x3xf32> -> tensor<3xi32>
  %4 = tt.cumsum %x axis = 1 : tensor<2x3xf32> -> tensor<2x3xf32>
  %5 = tt.cumsum %i axis = 0 : tensor<2x3xi32> -> tensor<2x3xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<3xi32>, tensor<2xi32>, tensor<3xi32>, tensor<2x3xf32>, tensor<2x3xi32>
}

// windows of 2 every 2 (the last element left out), and of 3 elements 2
// apart every 1.
func.func @windows(%x: tensor<6xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>) {
  %0 = tt.windows %x axis = 0 kernel = [2] strides = [2] dilations = [1] : tensor<6xf32> -> tensor<3x2xf32>
  %1 = tt.slice %0 starts = [0, 0] sizes = [2, 2] strides = [1, 1] : tensor<3x2xf32> -> tensor<2x2xf32>
  %2 = tt.windows %x axis = 0 kernel = [3] strides = [1] dilations = [2] : tensor<6xf32> -> tensor<2x3xf32>
  return %1, %2 : tensor<2x2xf32>, tensor<2x3xf32>
}

func.func @main() {
  %a = arith.constant dense<[-2.5, -0.5, 0.5, 1.5, 2.5, 3.7]> : tensor<6xf64>
  %u:5 = call @unary_f64(%a) : (tensor<6xf64>) -> (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>)
  %u0 = tensor.cast %u#0 : tensor<6xf64> to tensor<*xf64>
  call @printMemrefF64(%u0) : (tensor<*xf64>) -> ()
  %u1 = tensor.cast %u#1 : tensor<6xf64> to tensor<*xf64>
  call @printMemrefF64(%u1) : (tensor<*xf64>) -> ()
  %u2 = tensor.cast %u#2 : tensor<6xf64> to tensor<*xf64>
  call @printMemrefF64(%u2) : (tensor<*xf64>) -> ()
  %u3 = tensor.cast %u#3 : tensor<6xf64> to tensor<*xf64>
  call @printMemrefF64(%u3) : (tensor<*xf64>) -> ()
  %u4 = tensor.cast %u#4 : tensor<6xf64> to tensor<*xf64>
  call @printMemrefF64(%u4) : (tensor<*xf64>) -> ()
  %b = arith.constant dense<[1.0e-10, 0.5, 3.0, 0.0]> : tensor<4xf64>
  %s:4 = call @small_f64(%b) : (tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>)
  %s0 = tensor.cast %s#0 : tensor<4xf64> to tensor<*xf64>
  call @printMemrefF64(%s0) : (tensor<*xf64>) -> ()
  %s1 = tensor.cast %s#1 : tensor<4xf64> to tensor<*xf64>
  call @printMemrefF64(%s1) : (tensor<*xf64>) -> ()
  %s2 = tensor.cast %s#2 : tensor<4xf64> to tensor<*xf64>
  call @printMemrefF64(%s2) : (tensor<*xf64>) -> ()
  %s3 = tensor.cast %s#3 : tensor<4xf64> to tensor<*xf64>
  call @printMemrefF64(%s3) : (tensor<*xf64>) -> ()
  %x = arith.constant dense<[[3.0, -1.0, 3.0], [0.5, 7.0, -4.0]]> : tensor<2x3xf32>
  %i = arith.constant dense<[[2, -3, 4], [5, 6, -7]]> : tensor<2x3xi32>
  %r:6 = call @reductions(%x, %i) : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2xf32>, tensor<3xi32>, tensor<2xi32>, tensor<3xi32>, tensor<2x3xf32>, tensor<2x3xi32>)
  %r0 = tensor.cast %r#0 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%r0) : (tensor<*xf32>) -> ()
  %r1 = tensor.cast %r#1 : tensor<3xi32> to tensor<*xi32>
  call @printMemrefI32(%r1) : (tensor<*xi32>) -> ()
  %r2 = tensor.cast %r#2 : tensor<2xi32> to tensor<*xi32>
  call @printMemrefI32(%r2) : (tensor<*xi32>) -> ()
  %r3 = tensor.cast %r#3 : tensor<3xi32> to tensor<*xi32>
  call @printMemrefI32(%r3) : (tensor<*xi32>) -> ()
  %r4 = tensor.cast %r#4 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%r4) : (tensor<*xf32>) -> ()
  %r5 = tensor.cast %r#5 : tensor<2x3xi32> to tensor<*xi32>
  call @printMemrefI32(%r5) : (tensor<*xi32>) -> ()
  %w = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<6xf32>
  %wr:2 = call @windows(%w) : (tensor<6xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>)
  %w0 = tensor.cast %wr#0 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%w0) : (tensor<*xf32>) -> ()
  %w1 = tensor.cast %wr#1 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%w1) : (tensor<*xf32>) -> ()
  return
}
