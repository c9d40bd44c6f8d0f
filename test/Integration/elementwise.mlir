// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of the broadcasting elementwise binary ops. Each
// case is a separate function called from @main with tt.constant inputs (so
// that nothing folds at compile time); the expected values were computed with
// NumPy on the same float32/float64/int32 inputs.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)
func.func private @printMemrefI32(tensor<*xi32>)

// np.add(a[2,3], b[3])
// CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [11.5, -22.75, 3.125]
// CHECK-NEXT: [14, -20, -6.625]
func.func @add_missing_leading_dim(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> (tensor<2x3xf32>) {
  %0 = tt.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// np.subtract(a[2,1], b[1,3]): both operands stretch
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [-8.5, 1.25, 4.5]
// CHECK-NEXT: [-14, -4.25, -1]
func.func @sub_size_one_dims(%arg0: tensor<2x1xf32>, %arg1: tensor<1x3xf32>) -> (tensor<2x3xf32>) {
  %0 = tt.sub %arg0, %arg1 : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// np.multiply(a[2,3], s[]): rank-0 operand on either side
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [-2.5, 5, -8.75]
// CHECK-NEXT: [-0, -20, 1.25]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [-2.5, 5, -8.75]
// CHECK-NEXT: [-0, -20, 1.25]
func.func @mul_rank0(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = tt.mul %arg0, %arg1 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = tt.mul %arg1, %arg0 : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// np.divide(a[2,1,1], b[4,3]) -> [2,4,3]; x/0 = inf, x/-0 = -inf
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 4, 3] strides = [12, 3, 1] data =
// CHECK-NEXT: [1, 0.5, 0.25]
// CHECK-NEXT: [0.125, 2, -4]
// CHECK-NEXT: [0.333333, 0.2, 0.142857]
// CHECK-NEXT: [0.153846, inf, -inf]
// CHECK-NEXT: [2, 1, 0.5]
// CHECK-NEXT: [0.25, 4, -8]
// CHECK-NEXT: [0.666667, 0.4, 0.285714]
// CHECK-NEXT: [0.307692, inf, -inf]
func.func @div_rank3_broadcast(%arg0: tensor<2x1x1xf32>, %arg1: tensor<4x3xf32>) -> (tensor<2x4x3xf32>) {
  %0 = tt.div %arg0, %arg1 : (tensor<2x1x1xf32>, tensor<4x3xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// np.power(a, e) (negative base: integer exponent is fine, fractional gives nan)
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [1.41421, 27, -8, 16, {{-?nan}}, 0.1]
func.func @pow_f32(%arg0: tensor<6xf32>, %arg1: tensor<6xf32>) -> (tensor<6xf32>) {
  %0 = tt.pow %arg0, %arg1 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// np.power(a, 2), np.power(a, 3), np.power(a, 0.5): splat exponents defined
// inside the function (2 and 3 canonicalise to multiplications)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [1.4641, 4]
// CHECK-NEXT: [9, 0.0625]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [1.77156, -8]
// CHECK-NEXT: [27, 0.015625]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [1.1, {{-?nan}}]
// CHECK-NEXT: [1.73205, 0.5]
func.func @pow_constant_exponents(%arg0: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %two = tt.constant dense<2.0> : tensor<f32>
  %three = tt.constant dense<3.0> : tensor<f32>
  %half = tt.constant dense<0.5> : tensor<f32>
  %0 = tt.pow %arg0, %two : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %1 = tt.pow %arg0, %three : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %2 = tt.pow %arg0, %half : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// np.maximum / np.minimum (NaN in either operand gives NaN)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 4] strides = [4, 1] data =
// CHECK-NEXT: [1, -5, {{-?nan}}, {{-?nan}}]
// CHECK-NEXT: [0.5, -0.5, 7, {{-?nan}}]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 4] strides = [4, 1] data =
// CHECK-NEXT: [0.5, -6, {{-?nan}}, {{-?nan}}]
// CHECK-NEXT: [0, -6, 1, {{-?nan}}]
func.func @max_min_f32(%arg0: tensor<2x4xf32>, %arg1: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = tt.max %arg0, %arg1 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = tt.min %arg0, %arg1 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// int32 add/sub/mul/div/max/min of a[3,1] and b[4]; division truncates
// toward zero (C semantics, np.trunc(a / b)), e.g. -7 / 2 = -3
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: [9, 5, 10, 6]
// CHECK-NEXT: [-5, -9, -4, -8]
// CHECK-NEXT: [102, 98, 103, 99]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: [5, 9, 4, 8]
// CHECK-NEXT: [-9, -5, -10, -6]
// CHECK-NEXT: [98, 102, 97, 101]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: [14, -14, 21, -7]
// CHECK-NEXT: [-14, 14, -21, 7]
// CHECK-NEXT: [200, -200, 300, -100]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: [3, -3, 2, -7]
// CHECK-NEXT: [-3, 3, -2, 7]
// CHECK-NEXT: [50, -50, 33, -100]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: [7, 7, 7, 7]
// CHECK-NEXT: [2, -2, 3, -1]
// CHECK-NEXT: [100, 100, 100, 100]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: [2, -2, 3, -1]
// CHECK-NEXT: [-7, -7, -7, -7]
// CHECK-NEXT: [2, -2, 3, -1]
func.func @i32_arith(%arg0: tensor<3x1xi32>, %arg1: tensor<4xi32>) -> (tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>) {
  %0 = tt.add %arg0, %arg1 : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %1 = tt.sub %arg0, %arg1 : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %2 = tt.mul %arg0, %arg1 : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %3 = tt.div %arg0, %arg1 : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %4 = tt.max %arg0, %arg1 : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %5 = tt.min %arg0, %arg1 : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>
}

// int32 with a rank-0 operand; INT32_MAX + 4 wraps around
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [9, -5, -2147483645]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [1, -2, 536870911]
func.func @i32_rank0_wraparound(%arg0: tensor<3xi32>, %arg1: tensor<i32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %0 = tt.add %arg0, %arg1 : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  %1 = tt.div %arg0, %arg1 : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  return %0, %1 : tensor<3xi32>, tensor<3xi32>
}

// float64: a / b, a - b, np.maximum(a, b)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [0.333333, 0.666667]
// CHECK-NEXT: [0.428571, 0.571429]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [-2, -1]
// CHECK-NEXT: [-4, -3]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [3, 3]
// CHECK-NEXT: [7, 7]
func.func @f64_arith(%arg0: tensor<2x2xf64>, %arg1: tensor<2x1xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>) {
  %0 = tt.div %arg0, %arg1 : (tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x2xf64>
  %1 = tt.sub %arg0, %arg1 : (tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x2xf64>
  %2 = tt.max %arg0, %arg1 : (tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x2xf64>
  return %0, %1, %2 : tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>
}

// two rank-0 operands
// CHECK-NEXT: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [-2.25]
// CHECK-NEXT: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [0.457947]
func.func @rank0_rank0(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = tt.add %arg0, %arg1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = tt.pow %arg0, %arg1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}

// (a + b) * a - b on [1,3] and [2,1]: fused by --tt-optimize
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [1, 4.5, 10]
// CHECK-NEXT: [1, 5.5, 12]
func.func @chain_fused(%arg0: tensor<1x3xf32>, %arg1: tensor<2x1xf32>) -> (tensor<2x3xf32>) {
  %0 = tt.add %arg0, %arg1 : (tensor<1x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %1 = tt.mul %0, %arg0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %2 = tt.sub %1, %arg1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

func.func @main() {
  %add_missing_leading_dim_in0 = tt.constant dense<[[1.5, -2.25, 3.0], [4.0, 0.5, -6.75]]> : tensor<2x3xf32>
  %add_missing_leading_dim_in1 = tt.constant dense<[10.0, -20.5, 0.125]> : tensor<3xf32>
  %add_missing_leading_dim_out = call @add_missing_leading_dim(%add_missing_leading_dim_in0, %add_missing_leading_dim_in1) : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>)
  %add_missing_leading_dim_u0 = tensor.cast %add_missing_leading_dim_out : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%add_missing_leading_dim_u0) : (tensor<*xf32>) -> ()
  %sub_size_one_dims_in0 = tt.constant dense<[[1.5], [-4.0]]> : tensor<2x1xf32>
  %sub_size_one_dims_in1 = tt.constant dense<[[10.0, 0.25, -3.0]]> : tensor<1x3xf32>
  %sub_size_one_dims_out = call @sub_size_one_dims(%sub_size_one_dims_in0, %sub_size_one_dims_in1) : (tensor<2x1xf32>, tensor<1x3xf32>) -> (tensor<2x3xf32>)
  %sub_size_one_dims_u0 = tensor.cast %sub_size_one_dims_out : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%sub_size_one_dims_u0) : (tensor<*xf32>) -> ()
  %mul_rank0_in0 = tt.constant dense<[[1.0, -2.0, 3.5], [0.0, 8.0, -0.5]]> : tensor<2x3xf32>
  %mul_rank0_in1 = tt.constant dense<-2.5> : tensor<f32>
  %mul_rank0_out:2 = call @mul_rank0(%mul_rank0_in0, %mul_rank0_in1) : (tensor<2x3xf32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %mul_rank0_u0 = tensor.cast %mul_rank0_out#0 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%mul_rank0_u0) : (tensor<*xf32>) -> ()
  %mul_rank0_u1 = tensor.cast %mul_rank0_out#1 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%mul_rank0_u1) : (tensor<*xf32>) -> ()
  %div_rank3_broadcast_in0 = tt.constant dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>
  %div_rank3_broadcast_in1 = tt.constant dense<[[1.0, 2.0, 4.0], [8.0, 0.5, -0.25], [3.0, 5.0, 7.0], [6.5, 0.0, -0.0]]> : tensor<4x3xf32>
  %div_rank3_broadcast_out = call @div_rank3_broadcast(%div_rank3_broadcast_in0, %div_rank3_broadcast_in1) : (tensor<2x1x1xf32>, tensor<4x3xf32>) -> (tensor<2x4x3xf32>)
  %div_rank3_broadcast_u0 = tensor.cast %div_rank3_broadcast_out : tensor<2x4x3xf32> to tensor<*xf32>
  call @printMemrefF32(%div_rank3_broadcast_u0) : (tensor<*xf32>) -> ()
  %pow_f32_in0 = tt.constant dense<[2.0, 9.0, -2.0, 0.25, -8.0, 10.0]> : tensor<6xf32>
  %pow_f32_in1 = tt.constant dense<[0.5, 1.5, 3.0, -2.0, 0.5, -1.0]> : tensor<6xf32>
  %pow_f32_out = call @pow_f32(%pow_f32_in0, %pow_f32_in1) : (tensor<6xf32>, tensor<6xf32>) -> (tensor<6xf32>)
  %pow_f32_u0 = tensor.cast %pow_f32_out : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%pow_f32_u0) : (tensor<*xf32>) -> ()
  %pow_constant_exponents_in0 = tt.constant dense<[[1.21000004, -2.0], [3.0, 0.25]]> : tensor<2x2xf32>
  %pow_constant_exponents_out:3 = call @pow_constant_exponents(%pow_constant_exponents_in0) : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  %pow_constant_exponents_u0 = tensor.cast %pow_constant_exponents_out#0 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pow_constant_exponents_u0) : (tensor<*xf32>) -> ()
  %pow_constant_exponents_u1 = tensor.cast %pow_constant_exponents_out#1 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pow_constant_exponents_u1) : (tensor<*xf32>) -> ()
  %pow_constant_exponents_u2 = tensor.cast %pow_constant_exponents_out#2 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pow_constant_exponents_u2) : (tensor<*xf32>) -> ()
  %max_min_f32_in0 = tt.constant dense<[[1.0, -5.0, 0x7FC00000, 2.5], [0.0, -0.5, 7.0, 0xFF800000]]> : tensor<2x4xf32>
  %max_min_f32_in1 = tt.constant dense<[0.5, -6.0, 1.0, 0x7FC00000]> : tensor<4xf32>
  %max_min_f32_out:2 = call @max_min_f32(%max_min_f32_in0, %max_min_f32_in1) : (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  %max_min_f32_u0 = tensor.cast %max_min_f32_out#0 : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%max_min_f32_u0) : (tensor<*xf32>) -> ()
  %max_min_f32_u1 = tensor.cast %max_min_f32_out#1 : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%max_min_f32_u1) : (tensor<*xf32>) -> ()
  %i32_arith_in0 = tt.constant dense<[[7], [-7], [100]]> : tensor<3x1xi32>
  %i32_arith_in1 = tt.constant dense<[2, -2, 3, -1]> : tensor<4xi32>
  %i32_arith_out:6 = call @i32_arith(%i32_arith_in0, %i32_arith_in1) : (tensor<3x1xi32>, tensor<4xi32>) -> (tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>)
  %i32_arith_u0 = tensor.cast %i32_arith_out#0 : tensor<3x4xi32> to tensor<*xi32>
  call @printMemrefI32(%i32_arith_u0) : (tensor<*xi32>) -> ()
  %i32_arith_u1 = tensor.cast %i32_arith_out#1 : tensor<3x4xi32> to tensor<*xi32>
  call @printMemrefI32(%i32_arith_u1) : (tensor<*xi32>) -> ()
  %i32_arith_u2 = tensor.cast %i32_arith_out#2 : tensor<3x4xi32> to tensor<*xi32>
  call @printMemrefI32(%i32_arith_u2) : (tensor<*xi32>) -> ()
  %i32_arith_u3 = tensor.cast %i32_arith_out#3 : tensor<3x4xi32> to tensor<*xi32>
  call @printMemrefI32(%i32_arith_u3) : (tensor<*xi32>) -> ()
  %i32_arith_u4 = tensor.cast %i32_arith_out#4 : tensor<3x4xi32> to tensor<*xi32>
  call @printMemrefI32(%i32_arith_u4) : (tensor<*xi32>) -> ()
  %i32_arith_u5 = tensor.cast %i32_arith_out#5 : tensor<3x4xi32> to tensor<*xi32>
  call @printMemrefI32(%i32_arith_u5) : (tensor<*xi32>) -> ()
  %i32_rank0_wraparound_in0 = tt.constant dense<[5, -9, 2147483647]> : tensor<3xi32>
  %i32_rank0_wraparound_in1 = tt.constant dense<4> : tensor<i32>
  %i32_rank0_wraparound_out:2 = call @i32_rank0_wraparound(%i32_rank0_wraparound_in0, %i32_rank0_wraparound_in1) : (tensor<3xi32>, tensor<i32>) -> (tensor<3xi32>, tensor<3xi32>)
  %i32_rank0_wraparound_u0 = tensor.cast %i32_rank0_wraparound_out#0 : tensor<3xi32> to tensor<*xi32>
  call @printMemrefI32(%i32_rank0_wraparound_u0) : (tensor<*xi32>) -> ()
  %i32_rank0_wraparound_u1 = tensor.cast %i32_rank0_wraparound_out#1 : tensor<3xi32> to tensor<*xi32>
  call @printMemrefI32(%i32_rank0_wraparound_u1) : (tensor<*xi32>) -> ()
  %f64_arith_in0 = tt.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %f64_arith_in1 = tt.constant dense<[[3.0], [7.0]]> : tensor<2x1xf64>
  %f64_arith_out:3 = call @f64_arith(%f64_arith_in0, %f64_arith_in1) : (tensor<2x2xf64>, tensor<2x1xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>)
  %f64_arith_u0 = tensor.cast %f64_arith_out#0 : tensor<2x2xf64> to tensor<*xf64>
  call @printMemrefF64(%f64_arith_u0) : (tensor<*xf64>) -> ()
  %f64_arith_u1 = tensor.cast %f64_arith_out#1 : tensor<2x2xf64> to tensor<*xf64>
  call @printMemrefF64(%f64_arith_u1) : (tensor<*xf64>) -> ()
  %f64_arith_u2 = tensor.cast %f64_arith_out#2 : tensor<2x2xf64> to tensor<*xf64>
  call @printMemrefF64(%f64_arith_u2) : (tensor<*xf64>) -> ()
  %rank0_rank0_in0 = tt.constant dense<1.25> : tensor<f32>
  %rank0_rank0_in1 = tt.constant dense<-3.5> : tensor<f32>
  %rank0_rank0_out:2 = call @rank0_rank0(%rank0_rank0_in0, %rank0_rank0_in1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  %rank0_rank0_u0 = tensor.cast %rank0_rank0_out#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%rank0_rank0_u0) : (tensor<*xf32>) -> ()
  %rank0_rank0_u1 = tensor.cast %rank0_rank0_out#1 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%rank0_rank0_u1) : (tensor<*xf32>) -> ()
  %chain_fused_in0 = tt.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %chain_fused_in1 = tt.constant dense<[[0.5], [1.5]]> : tensor<2x1xf32>
  %chain_fused_out = call @chain_fused(%chain_fused_in0, %chain_fused_in1) : (tensor<1x3xf32>, tensor<2x1xf32>) -> (tensor<2x3xf32>)
  %chain_fused_u0 = tensor.cast %chain_fused_out : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%chain_fused_u0) : (tensor<*xf32>) -> ()
  return
}
