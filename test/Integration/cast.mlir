// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of tt.cast, following NumPy's astype: float -> int
// truncates toward zero, anything -> bool compares with zero (NaN is true),
// bool -> number gives 0 / 1. Expected values: NumPy astype.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)
func.func private @printMemrefI32(tensor<*xi32>)

// x.astype(np.int32): truncation toward zero, also for negatives
// CHECK: rank = 2 offset = 0 sizes = [2, 4] strides = [4, 1] data =
// CHECK-NEXT: [-2, 0, 0, 0]
// CHECK-NEXT: [1, 7, -100, 123456]
func.func @f32_to_i32(%arg0: tensor<2x4xf32>) -> (tensor<2x4xi32>) {
  %0 = tt.cast %arg0 to i32 : tensor<2x4xf32> -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// x.astype(np.float32): 2^24 + 1 rounds to 2^24
// CHECK-NEXT: rank = 1 offset = 0 sizes = [5] strides = [1] data =
// CHECK-NEXT: [-1.5, 0, 3.5, 8.38861e+06, -1.07374e+09]
func.func @i32_to_f32(%arg0: tensor<5xi32>) -> (tensor<5xf32>) {
  %c = tt.cast %arg0 to f32 : tensor<5xi32> -> tensor<5xf32>
  %half = tt.constant dense<0.5> : tensor<f32>
  %0 = tt.mul %c, %half : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// x.astype(np.float64) - d: the float32 rounding error becomes visible in float64
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [1.49012e-09, 9.93411e-09, 0]
func.func @f32_to_f64(%arg0: tensor<3xf32>, %arg1: tensor<3xf64>) -> (tensor<3xf64>) {
  %c = tt.cast %arg0 to f64 : tensor<3xf32> -> tensor<3xf64>
  %0 = tt.sub %c, %arg1 : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// d.astype(np.float32) (underflow to 0, overflow to inf), and back to float64
// minus d to show the rounding
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [0.333333, 0, inf, -1.5]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [9.93411e-09, -1e-50, inf, 0]
func.func @f64_to_f32(%arg0: tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf64>) {
  %0 = tt.cast %arg0 to f32 : tensor<4xf64> -> tensor<4xf32>
  %b = tt.cast %0 to f64 : tensor<4xf32> -> tensor<4xf64>
  %1 = tt.sub %b, %arg0 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0, %1 : tensor<4xf32>, tensor<4xf64>
}

// x.astype(bool).astype(np.float32): only +-0 is false; NaN is true
// CHECK-NEXT: rank = 1 offset = 0 sizes = [7] strides = [1] data =
// CHECK-NEXT: [0, 0, 1, 1, 1, 1, 1]
func.func @f32_to_i1_to_f32(%arg0: tensor<7xf32>) -> (tensor<7xf32>) {
  %b = tt.cast %arg0 to i1 : tensor<7xf32> -> tensor<7xi1>
  %0 = tt.cast %b to f32 : tensor<7xi1> -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// x.astype(bool).astype(np.int32): true is 1, not -1
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [0, 1]
// CHECK-NEXT: [1, 0]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [0, 1]
// CHECK-NEXT: [1, 0]
func.func @i32_to_i1_to_i32(%arg0: tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<2x2xf64>) {
  %b = tt.cast %arg0 to i1 : tensor<2x2xi32> -> tensor<2x2xi1>
  %0 = tt.cast %b to i32 : tensor<2x2xi1> -> tensor<2x2xi32>
  %1 = tt.cast %b to f64 : tensor<2x2xi1> -> tensor<2x2xf64>
  return %0, %1 : tensor<2x2xi32>, tensor<2x2xf64>
}

// x.astype(np.int32) from float64
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [-1, 2, 1000000000]
func.func @f64_to_i32(%arg0: tensor<3xf64>) -> (tensor<3xi32>) {
  %0 = tt.cast %arg0 to i32 : tensor<3xf64> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// np.mean(x.astype(np.float64)): int -> float64 then a reduction
// CHECK-NEXT: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [-0.5]
func.func @i32_to_f64_mean(%arg0: tensor<2xi32>) -> (tensor<f64>) {
  %c = tt.cast %arg0 to f64 : tensor<2xi32> -> tensor<2xf64>
  %0 = tt.mean %c axes = [0] : tensor<2xf64> -> tensor<f64>
  return %0 : tensor<f64>
}

func.func @main() {
  %f32_to_i32_in0 = tt.constant dense<[[-2.70000005, -0.5, -0.0, 0.99000001], [1.5, 7.99900007, -100.25, 123456.703]]> : tensor<2x4xf32>
  %f32_to_i32_out = call @f32_to_i32(%f32_to_i32_in0) : (tensor<2x4xf32>) -> (tensor<2x4xi32>)
  %f32_to_i32_u0 = tensor.cast %f32_to_i32_out : tensor<2x4xi32> to tensor<*xi32>
  call @printMemrefI32(%f32_to_i32_u0) : (tensor<*xi32>) -> ()
  %i32_to_f32_in0 = tt.constant dense<[-3, 0, 7, 16777217, -2147483648]> : tensor<5xi32>
  %i32_to_f32_out = call @i32_to_f32(%i32_to_f32_in0) : (tensor<5xi32>) -> (tensor<5xf32>)
  %i32_to_f32_u0 = tensor.cast %i32_to_f32_out : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%i32_to_f32_u0) : (tensor<*xf32>) -> ()
  %f32_to_f64_in0 = tt.constant dense<[0.100000001, 0.333333343, -2.5]> : tensor<3xf32>
  %f32_to_f64_in1 = tt.constant dense<[0.10000000000000001, 0.33333333333333331, -2.5]> : tensor<3xf64>
  %f32_to_f64_out = call @f32_to_f64(%f32_to_f64_in0, %f32_to_f64_in1) : (tensor<3xf32>, tensor<3xf64>) -> (tensor<3xf64>)
  %f32_to_f64_u0 = tensor.cast %f32_to_f64_out : tensor<3xf64> to tensor<*xf64>
  call @printMemrefF64(%f32_to_f64_u0) : (tensor<*xf64>) -> ()
  %f64_to_f32_in0 = tt.constant dense<[0.33333333333333331, 1.0e-50, 3.3999999999999999e+39, -1.5]> : tensor<4xf64>
  %f64_to_f32_out:2 = call @f64_to_f32(%f64_to_f32_in0) : (tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf64>)
  %f64_to_f32_u0 = tensor.cast %f64_to_f32_out#0 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%f64_to_f32_u0) : (tensor<*xf32>) -> ()
  %f64_to_f32_u1 = tensor.cast %f64_to_f32_out#1 : tensor<4xf64> to tensor<*xf64>
  call @printMemrefF64(%f64_to_f32_u1) : (tensor<*xf64>) -> ()
  %f32_to_i1_to_f32_in0 = tt.constant dense<[0.0, -0.0, 0.5, -3.0, 0x7FC00000, 0x7F800000, 1.0e-30]> : tensor<7xf32>
  %f32_to_i1_to_f32_out = call @f32_to_i1_to_f32(%f32_to_i1_to_f32_in0) : (tensor<7xf32>) -> (tensor<7xf32>)
  %f32_to_i1_to_f32_u0 = tensor.cast %f32_to_i1_to_f32_out : tensor<7xf32> to tensor<*xf32>
  call @printMemrefF32(%f32_to_i1_to_f32_u0) : (tensor<*xf32>) -> ()
  %i32_to_i1_to_i32_in0 = tt.constant dense<[[0, -1], [2, 0]]> : tensor<2x2xi32>
  %i32_to_i1_to_i32_out:2 = call @i32_to_i1_to_i32(%i32_to_i1_to_i32_in0) : (tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<2x2xf64>)
  %i32_to_i1_to_i32_u0 = tensor.cast %i32_to_i1_to_i32_out#0 : tensor<2x2xi32> to tensor<*xi32>
  call @printMemrefI32(%i32_to_i1_to_i32_u0) : (tensor<*xi32>) -> ()
  %i32_to_i1_to_i32_u1 = tensor.cast %i32_to_i1_to_i32_out#1 : tensor<2x2xf64> to tensor<*xf64>
  call @printMemrefF64(%i32_to_i1_to_i32_u1) : (tensor<*xf64>) -> ()
  %f64_to_i32_in0 = tt.constant dense<[-1.75, 2.5, 1000000000.0]> : tensor<3xf64>
  %f64_to_i32_out = call @f64_to_i32(%f64_to_i32_in0) : (tensor<3xf64>) -> (tensor<3xi32>)
  %f64_to_i32_u0 = tensor.cast %f64_to_i32_out : tensor<3xi32> to tensor<*xi32>
  call @printMemrefI32(%f64_to_i32_u0) : (tensor<*xi32>) -> ()
  %i32_to_f64_mean_in0 = tt.constant dense<[5, -6]> : tensor<2xi32>
  %i32_to_f64_mean_out = call @i32_to_f64_mean(%i32_to_f64_mean_in0) : (tensor<2xi32>) -> (tensor<f64>)
  %i32_to_f64_mean_u0 = tensor.cast %i32_to_f64_mean_out : tensor<f64> to tensor<*xf64>
  call @printMemrefF64(%i32_to_f64_mean_u0) : (tensor<*xf64>) -> ()
  return
}
