// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of the elementwise unary ops. Expected values were
// computed with NumPy (float64 reference rounded to the element type; erf with
// math.erf) and the inputs are chosen so that every printed value is at least
// 3 ulp away from a 6-significant-digit rounding boundary, so that libm or
// polynomial approximations of exp/log/tanh/erf print the same digits.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)
func.func private @printMemrefI32(tensor<*xi32>)

// np.exp(x), np.tanh(x), erf(x) for float32 x
// CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [0.082085, 0.496585, 1.34986]
// CHECK-NEXT: [2.71828, 4.48169, 20.0855]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [-0.986614, -0.604368, 0.291313]
// CHECK-NEXT: [0.761594, 0.905148, 0.995055]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [-0.999593, -0.677801, 0.328627]
// CHECK-NEXT: [0.842701, 0.966105, 0.999978]
func.func @exp_tanh_erf_f32(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = tt.exp %arg0 : tensor<2x3xf32>
  %1 = tt.tanh %arg0 : tensor<2x3xf32>
  %2 = tt.erf %arg0 : tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// np.exp / np.tanh / erf near zero and in the saturated tails
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [9.35762e-14, 0.980199, 1, 1.05127, 2980.96, 4.85165e+08]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [-1, -0.0199973, 0, 0.0499584, 1, 1]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [-1, -0.0225646, 0, 0.056372, 1, 1]
func.func @exp_tanh_erf_f32_tails(%arg0: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = tt.exp %arg0 : tensor<6xf32>
  %1 = tt.tanh %arg0 : tensor<6xf32>
  %2 = tt.erf %arg0 : tensor<6xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}

// np.log(x), np.sqrt(x), 1 / np.sqrt(x) for positive float32 x
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [-4.60517, -0.693147, 0, 1.09861, 2.48491, 9.21034]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [0.1, 0.707107, 1, 1.73205, 3.4641, 100]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [10, 1.41421, 1, 0.57735, 0.288675, 0.01]
func.func @log_sqrt_rsqrt_f32(%arg0: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = tt.log %arg0 : tensor<6xf32>
  %1 = tt.sqrt %arg0 : tensor<6xf32>
  %2 = tt.rsqrt %arg0 : tensor<6xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}

// special values: log(0) = -inf, log(-1) = nan, sqrt(-1) = nan,
// rsqrt(0) = inf, rsqrt(inf) = 0, log(inf) = inf
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [-inf, {{-?nan}}, inf]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [0, {{-?nan}}, inf]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [inf, {{-?nan}}, 0]
func.func @log_sqrt_rsqrt_special(%arg0: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = tt.log %arg0 : tensor<3xf32>
  %1 = tt.sqrt %arg0 : tensor<3xf32>
  %2 = tt.rsqrt %arg0 : tensor<3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// np.abs(x), np.negative(x) (-0.0 and infinities)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [2.5, 0, 3.25]
// CHECK-NEXT: [0, inf, 7]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [2.5, -0, -3.25]
// CHECK-NEXT: [0, inf, -7]
func.func @abs_neg_f32(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = tt.abs %arg0 : tensor<2x3xf32>
  %1 = tt.neg %arg0 : tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// np.abs(x), np.negative(x) for int32
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [7, 0, 12, 2147483647]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [7, 0, -12, 2147483647]
func.func @abs_neg_i32(%arg0: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = tt.abs %arg0 : tensor<4xi32>
  %1 = tt.neg %arg0 : tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// float64: exp, log(|x|), tanh, sqrt(|x|), rsqrt(|x|), erf, neg
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [0.22313, 1.28403, 20.0855]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [0.405465, -1.38629, 1.09861]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [-0.905148, 0.244919, 0.995055]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [1.22474, 0.5, 1.73205]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [0.816497, 2, 0.57735]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [-0.966105, 0.276326, 0.999978]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [1.5, -0.25, -3]
func.func @unary_f64(%arg0: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %a = tt.abs %arg0 : tensor<3xf64>
  %0 = tt.exp %arg0 : tensor<3xf64>
  %1 = tt.log %a : tensor<3xf64>
  %2 = tt.tanh %arg0 : tensor<3xf64>
  %3 = tt.sqrt %a : tensor<3xf64>
  %4 = tt.rsqrt %a : tensor<3xf64>
  %5 = tt.erf %arg0 : tensor<3xf64>
  %6 = tt.neg %arg0 : tensor<3xf64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}

// rank 0: tanh(exp(0.5))
// CHECK-NEXT: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [0.928682]
func.func @unary_rank0(%arg0: tensor<f32>) -> (tensor<f32>) {
  %0 = tt.exp %arg0 : tensor<f32>
  %1 = tt.tanh %0 : tensor<f32>
  return %1 : tensor<f32>
}

func.func @main() {
  %exp_tanh_erf_f32_in0 = tt.constant dense<[[-2.5, -0.699999988, 0.300000012], [1.0, 1.5, 3.0]]> : tensor<2x3xf32>
  %exp_tanh_erf_f32_out:3 = call @exp_tanh_erf_f32(%exp_tanh_erf_f32_in0) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  %exp_tanh_erf_f32_u0 = tensor.cast %exp_tanh_erf_f32_out#0 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%exp_tanh_erf_f32_u0) : (tensor<*xf32>) -> ()
  %exp_tanh_erf_f32_u1 = tensor.cast %exp_tanh_erf_f32_out#1 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%exp_tanh_erf_f32_u1) : (tensor<*xf32>) -> ()
  %exp_tanh_erf_f32_u2 = tensor.cast %exp_tanh_erf_f32_out#2 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%exp_tanh_erf_f32_u2) : (tensor<*xf32>) -> ()
  %exp_tanh_erf_f32_tails_in0 = tt.constant dense<[-30.0, -0.0199999996, 0.0, 0.0500000007, 8.0, 20.0]> : tensor<6xf32>
  %exp_tanh_erf_f32_tails_out:3 = call @exp_tanh_erf_f32_tails(%exp_tanh_erf_f32_tails_in0) : (tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>)
  %exp_tanh_erf_f32_tails_u0 = tensor.cast %exp_tanh_erf_f32_tails_out#0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%exp_tanh_erf_f32_tails_u0) : (tensor<*xf32>) -> ()
  %exp_tanh_erf_f32_tails_u1 = tensor.cast %exp_tanh_erf_f32_tails_out#1 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%exp_tanh_erf_f32_tails_u1) : (tensor<*xf32>) -> ()
  %exp_tanh_erf_f32_tails_u2 = tensor.cast %exp_tanh_erf_f32_tails_out#2 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%exp_tanh_erf_f32_tails_u2) : (tensor<*xf32>) -> ()
  %log_sqrt_rsqrt_f32_in0 = tt.constant dense<[0.00999999978, 0.5, 1.0, 3.0, 12.0, 10000.0]> : tensor<6xf32>
  %log_sqrt_rsqrt_f32_out:3 = call @log_sqrt_rsqrt_f32(%log_sqrt_rsqrt_f32_in0) : (tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>)
  %log_sqrt_rsqrt_f32_u0 = tensor.cast %log_sqrt_rsqrt_f32_out#0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%log_sqrt_rsqrt_f32_u0) : (tensor<*xf32>) -> ()
  %log_sqrt_rsqrt_f32_u1 = tensor.cast %log_sqrt_rsqrt_f32_out#1 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%log_sqrt_rsqrt_f32_u1) : (tensor<*xf32>) -> ()
  %log_sqrt_rsqrt_f32_u2 = tensor.cast %log_sqrt_rsqrt_f32_out#2 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%log_sqrt_rsqrt_f32_u2) : (tensor<*xf32>) -> ()
  %log_sqrt_rsqrt_special_in0 = tt.constant dense<[0.0, -1.0, 0x7F800000]> : tensor<3xf32>
  %log_sqrt_rsqrt_special_out:3 = call @log_sqrt_rsqrt_special(%log_sqrt_rsqrt_special_in0) : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %log_sqrt_rsqrt_special_u0 = tensor.cast %log_sqrt_rsqrt_special_out#0 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%log_sqrt_rsqrt_special_u0) : (tensor<*xf32>) -> ()
  %log_sqrt_rsqrt_special_u1 = tensor.cast %log_sqrt_rsqrt_special_out#1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%log_sqrt_rsqrt_special_u1) : (tensor<*xf32>) -> ()
  %log_sqrt_rsqrt_special_u2 = tensor.cast %log_sqrt_rsqrt_special_out#2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%log_sqrt_rsqrt_special_u2) : (tensor<*xf32>) -> ()
  %abs_neg_f32_in0 = tt.constant dense<[[-2.5, 0.0, 3.25], [-0.0, 0xFF800000, 7.0]]> : tensor<2x3xf32>
  %abs_neg_f32_out:2 = call @abs_neg_f32(%abs_neg_f32_in0) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %abs_neg_f32_u0 = tensor.cast %abs_neg_f32_out#0 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%abs_neg_f32_u0) : (tensor<*xf32>) -> ()
  %abs_neg_f32_u1 = tensor.cast %abs_neg_f32_out#1 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%abs_neg_f32_u1) : (tensor<*xf32>) -> ()
  %abs_neg_i32_in0 = tt.constant dense<[-7, 0, 12, -2147483647]> : tensor<4xi32>
  %abs_neg_i32_out:2 = call @abs_neg_i32(%abs_neg_i32_in0) : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
  %abs_neg_i32_u0 = tensor.cast %abs_neg_i32_out#0 : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%abs_neg_i32_u0) : (tensor<*xi32>) -> ()
  %abs_neg_i32_u1 = tensor.cast %abs_neg_i32_out#1 : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%abs_neg_i32_u1) : (tensor<*xi32>) -> ()
  %unary_f64_in0 = tt.constant dense<[-1.5, 0.25, 3.0]> : tensor<3xf64>
  %unary_f64_out:7 = call @unary_f64(%unary_f64_in0) : (tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  %unary_f64_u0 = tensor.cast %unary_f64_out#0 : tensor<3xf64> to tensor<*xf64>
  call @printMemrefF64(%unary_f64_u0) : (tensor<*xf64>) -> ()
  %unary_f64_u1 = tensor.cast %unary_f64_out#1 : tensor<3xf64> to tensor<*xf64>
  call @printMemrefF64(%unary_f64_u1) : (tensor<*xf64>) -> ()
  %unary_f64_u2 = tensor.cast %unary_f64_out#2 : tensor<3xf64> to tensor<*xf64>
  call @printMemrefF64(%unary_f64_u2) : (tensor<*xf64>) -> ()
  %unary_f64_u3 = tensor.cast %unary_f64_out#3 : tensor<3xf64> to tensor<*xf64>
  call @printMemrefF64(%unary_f64_u3) : (tensor<*xf64>) -> ()
  %unary_f64_u4 = tensor.cast %unary_f64_out#4 : tensor<3xf64> to tensor<*xf64>
  call @printMemrefF64(%unary_f64_u4) : (tensor<*xf64>) -> ()
  %unary_f64_u5 = tensor.cast %unary_f64_out#5 : tensor<3xf64> to tensor<*xf64>
  call @printMemrefF64(%unary_f64_u5) : (tensor<*xf64>) -> ()
  %unary_f64_u6 = tensor.cast %unary_f64_out#6 : tensor<3xf64> to tensor<*xf64>
  call @printMemrefF64(%unary_f64_u6) : (tensor<*xf64>) -> ()
  %unary_rank0_in0 = tt.constant dense<0.5> : tensor<f32>
  %unary_rank0_out = call @unary_rank0(%unary_rank0_in0) : (tensor<f32>) -> (tensor<f32>)
  %unary_rank0_u0 = tensor.cast %unary_rank0_out : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%unary_rank0_u0) : (tensor<*xf32>) -> ()
  return
}
