// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of the reductions sum, reduce_max, mean and var
// (ddof 0 and 1), with and without keepdims, over one, several and all axes.
// Expected values: NumPy (np.sum / np.max / np.mean / np.var) computed in
// float64 on the float32 inputs and rounded to float32.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)
func.func private @printMemrefI32(tensor<*xi32>)

// np.sum(x[3,4], axis=1)
// CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [4.25, 12.75, 0.125]
func.func @sum_axis1(%arg0: tensor<3x4xf32>) -> (tensor<3xf32>) {
  %0 = tt.sum %arg0 axes = [1] : tensor<3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// np.sum(x[3,4], axis=0, keepdims=True)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [1, 4] strides = [4, 1] data =
// CHECK-NEXT: [4.625, -0.5, 8.25, 4.75]
func.func @sum_axis0_keepdims(%arg0: tensor<3x4xf32>) -> (tensor<1x4xf32>) {
  %0 = tt.sum %arg0 axes = [0] keepdims : tensor<3x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// np.sum(x[2,3,4], axis=(0, 2))
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [6, 22, 9.5]
func.func @sum_3d_axes_0_2(%arg0: tensor<2x3x4xf32>) -> (tensor<3xf32>) {
  %0 = tt.sum %arg0 axes = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// np.sum(x[2,3,4], axis=1, keepdims=True): a middle axis
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 1, 4] strides = [4, 4, 1] data =
// CHECK-NEXT: [-3, -1.5, 0, 1.5]
// CHECK-NEXT: [15, 16.5, 18, -9]
func.func @sum_3d_axis1_keepdims(%arg0: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>) {
  %0 = tt.sum %arg0 axes = [1] keepdims : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// np.sum(x[2,3,4]) over all axes: a rank-0 result
// CHECK-NEXT: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [37.5]
func.func @sum_all(%arg0: tensor<2x3x4xf32>) -> (tensor<f32>) {
  %0 = tt.sum %arg0 axes = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// np.sum(x[3,4], keepdims=True)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [1, 1] strides = [1, 1] data =
// CHECK-NEXT: [17.125]
func.func @sum_all_keepdims(%arg0: tensor<3x4xf32>) -> (tensor<1x1xf32>) {
  %0 = tt.sum %arg0 axes = [1, 0] keepdims : tensor<3x4xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// np.sum(int32 x[2,3], axis=0)
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [2, -2, 3]
func.func @sum_i32(%arg0: tensor<2x3xi32>) -> (tensor<3xi32>) {
  %0 = tt.sum %arg0 axes = [0] : tensor<2x3xi32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// np.sum(float64 x[3,4], axis=1, keepdims=True)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 1] strides = [1, 1] data =
// CHECK-NEXT: [1.41667]
// CHECK-NEXT: [4.25]
// CHECK-NEXT: [0.0416667]
func.func @sum_f64(%arg0: tensor<3x4xf64>) -> (tensor<3x1xf64>) {
  %0 = tt.sum %arg0 axes = [1] keepdims : tensor<3x4xf64> -> tensor<3x1xf64>
  return %0 : tensor<3x1xf64>
}

// np.max(x[3,4], axis=1)
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [4.25, 8, 5]
func.func @max_axis1(%arg0: tensor<3x4xf32>) -> (tensor<3xf32>) {
  %0 = tt.reduce_max %arg0 axes = [1] : tensor<3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// np.max(x[2,3], axis=0, keepdims=True) with all-negative values (init is -inf)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [1, 3] strides = [3, 1] data =
// CHECK-NEXT: [-2, -1.25, -0.75]
func.func @max_all_negative_keepdims(%arg0: tensor<2x3xf32>) -> (tensor<1x3xf32>) {
  %0 = tt.reduce_max %arg0 axes = [0] keepdims : tensor<2x3xf32> -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// np.max(x[2,3,4], axis=(2, 0)): unsorted axes
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [4.5, 6.5, 8]
func.func @max_3d_axes_2_0(%arg0: tensor<2x3x4xf32>) -> (tensor<3xf32>) {
  %0 = tt.reduce_max %arg0 axes = [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// np.max(x[2,3]) over all axes
// CHECK-NEXT: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [-0.75]
func.func @max_all(%arg0: tensor<2x3xf32>) -> (tensor<f32>) {
  %0 = tt.reduce_max %arg0 axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// np.max(int32 x[2,2], axis=1, keepdims=True), all negative (init INT32_MIN)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 1] strides = [1, 1] data =
// CHECK-NEXT: [-7]
// CHECK-NEXT: [-12]
func.func @max_i32_negative(%arg0: tensor<2x2xi32>) -> (tensor<2x1xi32>) {
  %0 = tt.reduce_max %arg0 axes = [1] keepdims : tensor<2x2xi32> -> tensor<2x1xi32>
  return %0 : tensor<2x1xi32>
}

// np.max(x[2,3], axis=1): NaN propagates
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [{{-?nan}}, 5]
func.func @max_nan(%arg0: tensor<2x3xf32>) -> (tensor<2xf32>) {
  %0 = tt.reduce_max %arg0 axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// np.mean(x[3,4], axis=1)
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [1.0625, 3.1875, 0.03125]
func.func @mean_axis1(%arg0: tensor<3x4xf32>) -> (tensor<3xf32>) {
  %0 = tt.mean %arg0 axes = [1] : tensor<3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// np.mean(x[3,4], axis=0, keepdims=True): N = 3
// CHECK-NEXT: rank = 2 offset = 0 sizes = [1, 4] strides = [4, 1] data =
// CHECK-NEXT: [1.54167, -0.166667, 2.75, 1.58333]
func.func @mean_axis0_keepdims(%arg0: tensor<3x4xf32>) -> (tensor<1x4xf32>) {
  %0 = tt.mean %arg0 axes = [0] keepdims : tensor<3x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// np.mean(x[2,3,4], axis=(0, 1))
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [2, 2.5, 3, -1.25]
func.func @mean_3d_axes_0_1(%arg0: tensor<2x3x4xf32>) -> (tensor<4xf32>) {
  %0 = tt.mean %arg0 axes = [0, 1] : tensor<2x3x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// np.mean(x[2,3,4]) over all axes
// CHECK-NEXT: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [1.5625]
func.func @mean_all(%arg0: tensor<2x3x4xf32>) -> (tensor<f32>) {
  %0 = tt.mean %arg0 axes = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// np.mean(float64 x[3,4], axis=1, keepdims=True)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 1] strides = [1, 1] data =
// CHECK-NEXT: [1.0625]
// CHECK-NEXT: [3.1875]
// CHECK-NEXT: [0.03125]
func.func @mean_f64_keepdims(%arg0: tensor<3x4xf64>) -> (tensor<3x1xf64>) {
  %0 = tt.mean %arg0 axes = [1] keepdims : tensor<3x4xf64> -> tensor<3x1xf64>
  return %0 : tensor<3x1xf64>
}

// np.var(x[3,4], axis=1) (ddof = 0)
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [5.01172, 10.2305, 17.3779]
func.func @var_axis1(%arg0: tensor<3x4xf32>) -> (tensor<3xf32>) {
  %0 = tt.var %arg0 axes = [1] : tensor<3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// np.var(x[3,4], axis=1, ddof=1)
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [6.68229, 13.6406, 23.1706]
func.func @var_axis1_ddof1(%arg0: tensor<3x4xf32>) -> (tensor<3xf32>) {
  %0 = tt.var %arg0 axes = [1] {ddof = 1 : i64} : tensor<3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// np.var(x[3,4], axis=0, keepdims=True)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [1, 4] strides = [4, 1] data =
// CHECK-NEXT: [1.37847, 36.7222, 7.125, 0.847222]
func.func @var_axis0_keepdims(%arg0: tensor<3x4xf32>) -> (tensor<1x4xf32>) {
  %0 = tt.var %arg0 axes = [0] keepdims : tensor<3x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// np.var(x[2,3,4], axis=(0, 2), ddof=1, keepdims=True)
// CHECK-NEXT: rank = 3 offset = 0 sizes = [1, 3, 1] strides = [3, 1, 1] data =
// CHECK-NEXT: [10.6429]
// CHECK-NEXT: [10.6429]
// CHECK-NEXT: [81.6384]
func.func @var_3d_axes_0_2_ddof1_keepdims(%arg0: tensor<2x3x4xf32>) -> (tensor<1x3x1xf32>) {
  %0 = tt.var %arg0 axes = [0, 2] keepdims {ddof = 1 : i64} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// np.var(x[2,3,4]) over all axes
// CHECK-NEXT: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [30.7565]
func.func @var_all(%arg0: tensor<2x3x4xf32>) -> (tensor<f32>) {
  %0 = tt.var %arg0 axes = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// np.var(x[3,4], ddof=1) over all axes
// CHECK-NEXT: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [13.7456]
func.func @var_all_ddof1(%arg0: tensor<3x4xf32>) -> (tensor<f32>) {
  %0 = tt.var %arg0 axes = [0, 1] {ddof = 1 : i64} : tensor<3x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// np.var(float64 x[3,4], axis=1, ddof=1)
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [0.742477, 1.51562, 2.57451]
func.func @var_f64_ddof1(%arg0: tensor<3x4xf64>) -> (tensor<3xf64>) {
  %0 = tt.var %arg0 axes = [1] {ddof = 1 : i64} : tensor<3x4xf64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

func.func @main() {
  %sum_axis1_in0 = tt.constant dense<[[1.5, -2.0, 4.25, 0.5], [3.0, 8.0, -1.0, 2.75], [0.125, -6.5, 5.0, 1.5]]> : tensor<3x4xf32>
  %sum_axis1_out = call @sum_axis1(%sum_axis1_in0) : (tensor<3x4xf32>) -> (tensor<3xf32>)
  %sum_axis1_u0 = tensor.cast %sum_axis1_out : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%sum_axis1_u0) : (tensor<*xf32>) -> ()
  %sum_axis0_keepdims_in0 = tt.constant dense<[[1.5, -2.0, 4.25, 0.5], [3.0, 8.0, -1.0, 2.75], [0.125, -6.5, 5.0, 1.5]]> : tensor<3x4xf32>
  %sum_axis0_keepdims_out = call @sum_axis0_keepdims(%sum_axis0_keepdims_in0) : (tensor<3x4xf32>) -> (tensor<1x4xf32>)
  %sum_axis0_keepdims_u0 = tensor.cast %sum_axis0_keepdims_out : tensor<1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%sum_axis0_keepdims_u0) : (tensor<*xf32>) -> ()
  %sum_3d_axes_0_2_in0 = tt.constant dense<[[[-3.0, -2.5, -2.0, -1.5], [-1.0, -0.5, 0.0, 0.5], [1.0, 1.5, 2.0, 2.5]], [[3.0, 3.5, 4.0, 4.5], [5.0, 5.5, 6.0, 6.5], [7.0, 7.5, 8.0, -20.0]]]> : tensor<2x3x4xf32>
  %sum_3d_axes_0_2_out = call @sum_3d_axes_0_2(%sum_3d_axes_0_2_in0) : (tensor<2x3x4xf32>) -> (tensor<3xf32>)
  %sum_3d_axes_0_2_u0 = tensor.cast %sum_3d_axes_0_2_out : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%sum_3d_axes_0_2_u0) : (tensor<*xf32>) -> ()
  %sum_3d_axis1_keepdims_in0 = tt.constant dense<[[[-3.0, -2.5, -2.0, -1.5], [-1.0, -0.5, 0.0, 0.5], [1.0, 1.5, 2.0, 2.5]], [[3.0, 3.5, 4.0, 4.5], [5.0, 5.5, 6.0, 6.5], [7.0, 7.5, 8.0, -20.0]]]> : tensor<2x3x4xf32>
  %sum_3d_axis1_keepdims_out = call @sum_3d_axis1_keepdims(%sum_3d_axis1_keepdims_in0) : (tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>)
  %sum_3d_axis1_keepdims_u0 = tensor.cast %sum_3d_axis1_keepdims_out : tensor<2x1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%sum_3d_axis1_keepdims_u0) : (tensor<*xf32>) -> ()
  %sum_all_in0 = tt.constant dense<[[[-3.0, -2.5, -2.0, -1.5], [-1.0, -0.5, 0.0, 0.5], [1.0, 1.5, 2.0, 2.5]], [[3.0, 3.5, 4.0, 4.5], [5.0, 5.5, 6.0, 6.5], [7.0, 7.5, 8.0, -20.0]]]> : tensor<2x3x4xf32>
  %sum_all_out = call @sum_all(%sum_all_in0) : (tensor<2x3x4xf32>) -> (tensor<f32>)
  %sum_all_u0 = tensor.cast %sum_all_out : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%sum_all_u0) : (tensor<*xf32>) -> ()
  %sum_all_keepdims_in0 = tt.constant dense<[[1.5, -2.0, 4.25, 0.5], [3.0, 8.0, -1.0, 2.75], [0.125, -6.5, 5.0, 1.5]]> : tensor<3x4xf32>
  %sum_all_keepdims_out = call @sum_all_keepdims(%sum_all_keepdims_in0) : (tensor<3x4xf32>) -> (tensor<1x1xf32>)
  %sum_all_keepdims_u0 = tensor.cast %sum_all_keepdims_out : tensor<1x1xf32> to tensor<*xf32>
  call @printMemrefF32(%sum_all_keepdims_u0) : (tensor<*xf32>) -> ()
  %sum_i32_in0 = tt.constant dense<[[3, -7, 12], [-1, 5, -9]]> : tensor<2x3xi32>
  %sum_i32_out = call @sum_i32(%sum_i32_in0) : (tensor<2x3xi32>) -> (tensor<3xi32>)
  %sum_i32_u0 = tensor.cast %sum_i32_out : tensor<3xi32> to tensor<*xi32>
  call @printMemrefI32(%sum_i32_u0) : (tensor<*xi32>) -> ()
  %sum_f64_in0 = tt.constant dense<[[0.5, -0.66666666666666663, 1.4166666666666667, 0.16666666666666666], [1.0, 2.6666666666666665, -0.33333333333333331, 0.91666666666666663], [0.041666666666666664, -2.1666666666666665, 1.6666666666666667, 0.5]]> : tensor<3x4xf64>
  %sum_f64_out = call @sum_f64(%sum_f64_in0) : (tensor<3x4xf64>) -> (tensor<3x1xf64>)
  %sum_f64_u0 = tensor.cast %sum_f64_out : tensor<3x1xf64> to tensor<*xf64>
  call @printMemrefF64(%sum_f64_u0) : (tensor<*xf64>) -> ()
  %max_axis1_in0 = tt.constant dense<[[1.5, -2.0, 4.25, 0.5], [3.0, 8.0, -1.0, 2.75], [0.125, -6.5, 5.0, 1.5]]> : tensor<3x4xf32>
  %max_axis1_out = call @max_axis1(%max_axis1_in0) : (tensor<3x4xf32>) -> (tensor<3xf32>)
  %max_axis1_u0 = tensor.cast %max_axis1_out : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%max_axis1_u0) : (tensor<*xf32>) -> ()
  %max_all_negative_keepdims_in0 = tt.constant dense<[[-3.5, -1.25, -8.0], [-2.0, -9.5, -0.75]]> : tensor<2x3xf32>
  %max_all_negative_keepdims_out = call @max_all_negative_keepdims(%max_all_negative_keepdims_in0) : (tensor<2x3xf32>) -> (tensor<1x3xf32>)
  %max_all_negative_keepdims_u0 = tensor.cast %max_all_negative_keepdims_out : tensor<1x3xf32> to tensor<*xf32>
  call @printMemrefF32(%max_all_negative_keepdims_u0) : (tensor<*xf32>) -> ()
  %max_3d_axes_2_0_in0 = tt.constant dense<[[[-3.0, -2.5, -2.0, -1.5], [-1.0, -0.5, 0.0, 0.5], [1.0, 1.5, 2.0, 2.5]], [[3.0, 3.5, 4.0, 4.5], [5.0, 5.5, 6.0, 6.5], [7.0, 7.5, 8.0, -20.0]]]> : tensor<2x3x4xf32>
  %max_3d_axes_2_0_out = call @max_3d_axes_2_0(%max_3d_axes_2_0_in0) : (tensor<2x3x4xf32>) -> (tensor<3xf32>)
  %max_3d_axes_2_0_u0 = tensor.cast %max_3d_axes_2_0_out : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%max_3d_axes_2_0_u0) : (tensor<*xf32>) -> ()
  %max_all_in0 = tt.constant dense<[[-3.5, -1.25, -8.0], [-2.0, -9.5, -0.75]]> : tensor<2x3xf32>
  %max_all_out = call @max_all(%max_all_in0) : (tensor<2x3xf32>) -> (tensor<f32>)
  %max_all_u0 = tensor.cast %max_all_out : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%max_all_u0) : (tensor<*xf32>) -> ()
  %max_i32_negative_in0 = tt.constant dense<[[-30, -7], [-12, -100]]> : tensor<2x2xi32>
  %max_i32_negative_out = call @max_i32_negative(%max_i32_negative_in0) : (tensor<2x2xi32>) -> (tensor<2x1xi32>)
  %max_i32_negative_u0 = tensor.cast %max_i32_negative_out : tensor<2x1xi32> to tensor<*xi32>
  call @printMemrefI32(%max_i32_negative_u0) : (tensor<*xi32>) -> ()
  %max_nan_in0 = tt.constant dense<[[1.0, 0x7FC00000, 3.0], [4.0, 5.0, -6.0]]> : tensor<2x3xf32>
  %max_nan_out = call @max_nan(%max_nan_in0) : (tensor<2x3xf32>) -> (tensor<2xf32>)
  %max_nan_u0 = tensor.cast %max_nan_out : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%max_nan_u0) : (tensor<*xf32>) -> ()
  %mean_axis1_in0 = tt.constant dense<[[1.5, -2.0, 4.25, 0.5], [3.0, 8.0, -1.0, 2.75], [0.125, -6.5, 5.0, 1.5]]> : tensor<3x4xf32>
  %mean_axis1_out = call @mean_axis1(%mean_axis1_in0) : (tensor<3x4xf32>) -> (tensor<3xf32>)
  %mean_axis1_u0 = tensor.cast %mean_axis1_out : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%mean_axis1_u0) : (tensor<*xf32>) -> ()
  %mean_axis0_keepdims_in0 = tt.constant dense<[[1.5, -2.0, 4.25, 0.5], [3.0, 8.0, -1.0, 2.75], [0.125, -6.5, 5.0, 1.5]]> : tensor<3x4xf32>
  %mean_axis0_keepdims_out = call @mean_axis0_keepdims(%mean_axis0_keepdims_in0) : (tensor<3x4xf32>) -> (tensor<1x4xf32>)
  %mean_axis0_keepdims_u0 = tensor.cast %mean_axis0_keepdims_out : tensor<1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%mean_axis0_keepdims_u0) : (tensor<*xf32>) -> ()
  %mean_3d_axes_0_1_in0 = tt.constant dense<[[[-3.0, -2.5, -2.0, -1.5], [-1.0, -0.5, 0.0, 0.5], [1.0, 1.5, 2.0, 2.5]], [[3.0, 3.5, 4.0, 4.5], [5.0, 5.5, 6.0, 6.5], [7.0, 7.5, 8.0, -20.0]]]> : tensor<2x3x4xf32>
  %mean_3d_axes_0_1_out = call @mean_3d_axes_0_1(%mean_3d_axes_0_1_in0) : (tensor<2x3x4xf32>) -> (tensor<4xf32>)
  %mean_3d_axes_0_1_u0 = tensor.cast %mean_3d_axes_0_1_out : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%mean_3d_axes_0_1_u0) : (tensor<*xf32>) -> ()
  %mean_all_in0 = tt.constant dense<[[[-3.0, -2.5, -2.0, -1.5], [-1.0, -0.5, 0.0, 0.5], [1.0, 1.5, 2.0, 2.5]], [[3.0, 3.5, 4.0, 4.5], [5.0, 5.5, 6.0, 6.5], [7.0, 7.5, 8.0, -20.0]]]> : tensor<2x3x4xf32>
  %mean_all_out = call @mean_all(%mean_all_in0) : (tensor<2x3x4xf32>) -> (tensor<f32>)
  %mean_all_u0 = tensor.cast %mean_all_out : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%mean_all_u0) : (tensor<*xf32>) -> ()
  %mean_f64_keepdims_in0 = tt.constant dense<[[1.5, -2.0, 4.25, 0.5], [3.0, 8.0, -1.0, 2.75], [0.125, -6.5, 5.0, 1.5]]> : tensor<3x4xf64>
  %mean_f64_keepdims_out = call @mean_f64_keepdims(%mean_f64_keepdims_in0) : (tensor<3x4xf64>) -> (tensor<3x1xf64>)
  %mean_f64_keepdims_u0 = tensor.cast %mean_f64_keepdims_out : tensor<3x1xf64> to tensor<*xf64>
  call @printMemrefF64(%mean_f64_keepdims_u0) : (tensor<*xf64>) -> ()
  %var_axis1_in0 = tt.constant dense<[[1.5, -2.0, 4.25, 0.5], [3.0, 8.0, -1.0, 2.75], [0.125, -6.5, 5.0, 1.5]]> : tensor<3x4xf32>
  %var_axis1_out = call @var_axis1(%var_axis1_in0) : (tensor<3x4xf32>) -> (tensor<3xf32>)
  %var_axis1_u0 = tensor.cast %var_axis1_out : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%var_axis1_u0) : (tensor<*xf32>) -> ()
  %var_axis1_ddof1_in0 = tt.constant dense<[[1.5, -2.0, 4.25, 0.5], [3.0, 8.0, -1.0, 2.75], [0.125, -6.5, 5.0, 1.5]]> : tensor<3x4xf32>
  %var_axis1_ddof1_out = call @var_axis1_ddof1(%var_axis1_ddof1_in0) : (tensor<3x4xf32>) -> (tensor<3xf32>)
  %var_axis1_ddof1_u0 = tensor.cast %var_axis1_ddof1_out : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%var_axis1_ddof1_u0) : (tensor<*xf32>) -> ()
  %var_axis0_keepdims_in0 = tt.constant dense<[[1.5, -2.0, 4.25, 0.5], [3.0, 8.0, -1.0, 2.75], [0.125, -6.5, 5.0, 1.5]]> : tensor<3x4xf32>
  %var_axis0_keepdims_out = call @var_axis0_keepdims(%var_axis0_keepdims_in0) : (tensor<3x4xf32>) -> (tensor<1x4xf32>)
  %var_axis0_keepdims_u0 = tensor.cast %var_axis0_keepdims_out : tensor<1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%var_axis0_keepdims_u0) : (tensor<*xf32>) -> ()
  %var_3d_axes_0_2_ddof1_keepdims_in0 = tt.constant dense<[[[-3.0, -2.5, -2.0, -1.5], [-1.0, -0.5, 0.0, 0.5], [1.0, 1.5, 2.0, 2.5]], [[3.0, 3.5, 4.0, 4.5], [5.0, 5.5, 6.0, 6.5], [7.0, 7.5, 8.0, -20.0]]]> : tensor<2x3x4xf32>
  %var_3d_axes_0_2_ddof1_keepdims_out = call @var_3d_axes_0_2_ddof1_keepdims(%var_3d_axes_0_2_ddof1_keepdims_in0) : (tensor<2x3x4xf32>) -> (tensor<1x3x1xf32>)
  %var_3d_axes_0_2_ddof1_keepdims_u0 = tensor.cast %var_3d_axes_0_2_ddof1_keepdims_out : tensor<1x3x1xf32> to tensor<*xf32>
  call @printMemrefF32(%var_3d_axes_0_2_ddof1_keepdims_u0) : (tensor<*xf32>) -> ()
  %var_all_in0 = tt.constant dense<[[[-3.0, -2.5, -2.0, -1.5], [-1.0, -0.5, 0.0, 0.5], [1.0, 1.5, 2.0, 2.5]], [[3.0, 3.5, 4.0, 4.5], [5.0, 5.5, 6.0, 6.5], [7.0, 7.5, 8.0, -20.0]]]> : tensor<2x3x4xf32>
  %var_all_out = call @var_all(%var_all_in0) : (tensor<2x3x4xf32>) -> (tensor<f32>)
  %var_all_u0 = tensor.cast %var_all_out : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%var_all_u0) : (tensor<*xf32>) -> ()
  %var_all_ddof1_in0 = tt.constant dense<[[1.5, -2.0, 4.25, 0.5], [3.0, 8.0, -1.0, 2.75], [0.125, -6.5, 5.0, 1.5]]> : tensor<3x4xf32>
  %var_all_ddof1_out = call @var_all_ddof1(%var_all_ddof1_in0) : (tensor<3x4xf32>) -> (tensor<f32>)
  %var_all_ddof1_u0 = tensor.cast %var_all_ddof1_out : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%var_all_ddof1_u0) : (tensor<*xf32>) -> ()
  %var_f64_ddof1_in0 = tt.constant dense<[[0.5, -0.66666666666666663, 1.4166666666666667, 0.16666666666666666], [1.0, 2.6666666666666665, -0.33333333333333331, 0.91666666666666663], [0.041666666666666664, -2.1666666666666665, 1.6666666666666667, 0.5]]> : tensor<3x4xf64>
  %var_f64_ddof1_out = call @var_f64_ddof1(%var_f64_ddof1_in0) : (tensor<3x4xf64>) -> (tensor<3xf64>)
  %var_f64_ddof1_u0 = tensor.cast %var_f64_ddof1_out : tensor<3xf64> to tensor<*xf64>
  call @printMemrefF64(%var_f64_ddof1_u0) : (tensor<*xf64>) -> ()
  return
}
