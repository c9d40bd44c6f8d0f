// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of tt.matmul with np.matmul semantics: 1-D x 1-D,
// 2-D x 1-D, 1-D x 2-D, 2-D x 2-D, equal-batch 3-D, broadcast batch dims and
// vectors against stacks. Expected values: np.matmul (in float64, rounded).

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)
func.func private @printMemrefI32(tensor<*xi32>)

// np.matmul(a[5], b[5]): a rank-0 result
// CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [-5.6875]
func.func @dot_1d_1d(%arg0: tensor<5xf32>, %arg1: tensor<5xf32>) -> (tensor<f32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<5xf32>, tensor<5xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// np.matmul(A[3,4], v[4])
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [11.0625, -15.0625, 11.875]
func.func @matvec_2d_1d(%arg0: tensor<3x4xf32>, %arg1: tensor<4xf32>) -> (tensor<3xf32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// np.matmul(v[3], B[3,4])
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [-2.25, 2.0625, -0.25, -0.8125]
func.func @vecmat_1d_2d(%arg0: tensor<3xf32>, %arg1: tensor<3x4xf32>) -> (tensor<4xf32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// np.matmul(A[2,3], B[3,4])
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 4] strides = [4, 1] data =
// CHECK-NEXT: [-1.1875, 4.5625, 5, 15]
// CHECK-NEXT: [-22.625, -6.4375, -14.75, -4.875]
func.func @matmul_2d(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> (tensor<2x4xf32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// np.matmul(A[3,2], B[2,2]) in float64
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
// CHECK-NEXT: [-0.3, 0.173333]
// CHECK-NEXT: [-0.5, 0.38]
// CHECK-NEXT: [-5.5, 0.9]
func.func @matmul_f64(%arg0: tensor<3x2xf64>, %arg1: tensor<2x2xf64>) -> (tensor<3x2xf64>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<3x2xf64>, tensor<2x2xf64>) -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
}

// np.matmul(A[2,3], B[3,2]) in int32
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [24, -36]
// CHECK-NEXT: [84, 34]
func.func @matmul_i32(%arg0: tensor<2x3xi32>, %arg1: tensor<3x2xi32>) -> (tensor<2x2xi32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// np.matmul(A[2,2,3], B[2,3,2]): equal batch sizes
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 2, 2] strides = [4, 2, 1] data =
// CHECK-NEXT: [-10.875, 11.0625]
// CHECK-NEXT: [2.75, -13.25]
// CHECK-NEXT: [14.875, -5.125]
// CHECK-NEXT: [-15.875, -7.9375]
func.func @batch_matmul_equal(%arg0: tensor<2x2x3xf32>, %arg1: tensor<2x3x2xf32>) -> (tensor<2x2x2xf32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<2x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// np.matmul(A[2,1,2,3], B[3,3,2]) -> [2,3,2,2]: broadcast batch dims
// CHECK-NEXT: rank = 4 offset = 0 sizes = [2, 3, 2, 2] strides = [12, 4, 2, 1] data =
// CHECK-NEXT: [-2.875, -3.75]
// CHECK-NEXT: [-10, -7.5]
// CHECK-NEXT: [-1.125, 0.6875]
// CHECK-NEXT: [5.5, -0.75]
// CHECK-NEXT: [1.5, -1]
// CHECK-NEXT: [4.875, -1.25]
// CHECK-NEXT: [-2.875, -4.5]
// CHECK-NEXT: [5.125, 4.75]
// CHECK-NEXT: [-1.375, 0.8125]
// CHECK-NEXT: [0.625, -0.6875]
// CHECK-NEXT: [0.9375, 0.375]
// CHECK-NEXT: [-3.6875, 4.125]
func.func @batch_matmul_broadcast(%arg0: tensor<2x1x2x3xf32>, %arg1: tensor<3x3x2xf32>) -> (tensor<2x3x2x2xf32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<2x1x2x3xf32>, tensor<3x3x2xf32>) -> tensor<2x3x2x2xf32>
  return %0 : tensor<2x3x2x2xf32>
}

// np.matmul(A[1,2,3], B[2,3,2]): a size-1 batch dim stretches
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 2, 2] strides = [4, 2, 1] data =
// CHECK-NEXT: [3.5625, 6.9375]
// CHECK-NEXT: [3.3125, -2.3125]
// CHECK-NEXT: [-7.3125, 2.625]
// CHECK-NEXT: [1.125, 8.875]
func.func @batch_matmul_size_one_batch(%arg0: tensor<1x2x3xf32>, %arg1: tensor<2x3x2xf32>) -> (tensor<2x2x2xf32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<1x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// np.matmul(A[2,3], B[2,3,2]): a matrix against a stack
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 2, 2] strides = [4, 2, 1] data =
// CHECK-NEXT: [16.5, -1.8125]
// CHECK-NEXT: [14.125, -9]
// CHECK-NEXT: [-14.6875, -5.0625]
// CHECK-NEXT: [-10.6875, -14.25]
func.func @matmul_2d_3d(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3x2xf32>) -> (tensor<2x2x2xf32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// np.matmul(v[3], B[2,3,4]) -> [2,4]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 4] strides = [4, 1] data =
// CHECK-NEXT: [5.625, 7, 4.625, 5.875]
// CHECK-NEXT: [-4.75, -6.5, 21, 13.375]
func.func @matmul_1d_3d(%arg0: tensor<3xf32>, %arg1: tensor<2x3x4xf32>) -> (tensor<2x4xf32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<3xf32>, tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// np.matmul(A[2,2,3], v[3]) -> [2,2]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [-3.8125, -2.5625]
// CHECK-NEXT: [-13.1875, 24.75]
func.func @matmul_3d_1d(%arg0: tensor<2x2x3xf32>, %arg1: tensor<3xf32>) -> (tensor<2x2xf32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<2x2x3xf32>, tensor<3xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// np.matmul(A[2,2,2], B[2,2]) in int32
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 2, 2] strides = [4, 2, 1] data =
// CHECK-NEXT: [-1, -16]
// CHECK-NEXT: [-3, 15]
// CHECK-NEXT: [-1, 2]
// CHECK-NEXT: [-6, -24]
func.func @matmul_i32_batched(%arg0: tensor<2x2x2xi32>, %arg1: tensor<2x2xi32>) -> (tensor<2x2x2xi32>) {
  %0 = tt.matmul %arg0, %arg1 : (tensor<2x2x2xi32>, tensor<2x2xi32>) -> tensor<2x2x2xi32>
  return %0 : tensor<2x2x2xi32>
}

func.func @main() {
  %dot_1d_1d_in0 = tt.constant dense<[3.75, 1.0, 1.5, 3.25, 0.75]> : tensor<5xf32>
  %dot_1d_1d_in1 = tt.constant dense<[2.25, 2.75, -2.25, -3.75, -1.75]> : tensor<5xf32>
  %dot_1d_1d_out = call @dot_1d_1d(%dot_1d_1d_in0, %dot_1d_1d_in1) : (tensor<5xf32>, tensor<5xf32>) -> (tensor<f32>)
  %dot_1d_1d_u0 = tensor.cast %dot_1d_1d_out : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%dot_1d_1d_u0) : (tensor<*xf32>) -> ()
  %matvec_2d_1d_in0 = tt.constant dense<[[-1.75, 3.0, 3.5, -4.0], [0.0, 2.75, -3.0, 2.5], [-3.25, -0.25, 2.5, -1.5]]> : tensor<3x4xf32>
  %matvec_2d_1d_in1 = tt.constant dense<[-1.25, -1.75, 1.75, -2.0]> : tensor<4xf32>
  %matvec_2d_1d_out = call @matvec_2d_1d(%matvec_2d_1d_in0, %matvec_2d_1d_in1) : (tensor<3x4xf32>, tensor<4xf32>) -> (tensor<3xf32>)
  %matvec_2d_1d_u0 = tensor.cast %matvec_2d_1d_out : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%matvec_2d_1d_u0) : (tensor<*xf32>) -> ()
  %vecmat_1d_2d_in0 = tt.constant dense<[4.0, -0.5, -0.25]> : tensor<3xf32>
  %vecmat_1d_2d_in1 = tt.constant dense<[[0.0, 0.75, 0.5, 0.0], [4.0, 2.5, 2.5, 1.75], [1.0, -1.25, 4.0, -0.25]]> : tensor<3x4xf32>
  %vecmat_1d_2d_out = call @vecmat_1d_2d(%vecmat_1d_2d_in0, %vecmat_1d_2d_in1) : (tensor<3xf32>, tensor<3x4xf32>) -> (tensor<4xf32>)
  %vecmat_1d_2d_u0 = tensor.cast %vecmat_1d_2d_out : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%vecmat_1d_2d_u0) : (tensor<*xf32>) -> ()
  %matmul_2d_in0 = tt.constant dense<[[-2.25, 2.75, -2.75], [3.0, 1.0, -3.25]]> : tensor<2x3xf32>
  %matmul_2d_in1 = tt.constant dense<[[-3.75, -0.5, -3.75, -3.0], [0.0, 4.0, -0.25, 2.5], [3.5, 2.75, 1.0, -0.5]]> : tensor<3x4xf32>
  %matmul_2d_out = call @matmul_2d(%matmul_2d_in0, %matmul_2d_in1) : (tensor<2x3xf32>, tensor<3x4xf32>) -> (tensor<2x4xf32>)
  %matmul_2d_u0 = tensor.cast %matmul_2d_out : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%matmul_2d_u0) : (tensor<*xf32>) -> ()
  %matmul_f64_in0 = tt.constant dense<[[0.10000000000000001, 0.20000000000000001], [0.29999999999999999, 0.40000000000000002], [-1.5, 2.0]]> : tensor<3x2xf64>
  %matmul_f64_in1 = tt.constant dense<[[1.0, 0.33333333333333331], [-2.0, 0.69999999999999996]]> : tensor<2x2xf64>
  %matmul_f64_out = call @matmul_f64(%matmul_f64_in0, %matmul_f64_in1) : (tensor<3x2xf64>, tensor<2x2xf64>) -> (tensor<3x2xf64>)
  %matmul_f64_u0 = tensor.cast %matmul_f64_out : tensor<3x2xf64> to tensor<*xf64>
  call @printMemrefF64(%matmul_f64_u0) : (tensor<*xf64>) -> ()
  %matmul_i32_in0 = tt.constant dense<[[0, -4, 0], [-2, -5, 9]]> : tensor<2x3xi32>
  %matmul_i32_in1 = tt.constant dense<[[-9, -8], [-6, 9], [4, 7]]> : tensor<3x2xi32>
  %matmul_i32_out = call @matmul_i32(%matmul_i32_in0, %matmul_i32_in1) : (tensor<2x3xi32>, tensor<3x2xi32>) -> (tensor<2x2xi32>)
  %matmul_i32_u0 = tensor.cast %matmul_i32_out : tensor<2x2xi32> to tensor<*xi32>
  call @printMemrefI32(%matmul_i32_u0) : (tensor<*xi32>) -> ()
  %batch_matmul_equal_in0 = tt.constant dense<[[[-2.5, 1.75, -1.0], [0.0, -4.0, 1.0]], [[2.75, 1.25, -2.75], [0.25, -2.0, 3.75]]]> : tensor<2x2x3xf32>
  %batch_matmul_equal_in1 = tt.constant dense<[[[3.25, -2.5], [0.0, 3.75], [2.75, 1.75]], [[1.25, -3.75], [2.0, -0.25], [-3.25, -2.0]]]> : tensor<2x3x2xf32>
  %batch_matmul_equal_out = call @batch_matmul_equal(%batch_matmul_equal_in0, %batch_matmul_equal_in1) : (tensor<2x2x3xf32>, tensor<2x3x2xf32>) -> (tensor<2x2x2xf32>)
  %batch_matmul_equal_u0 = tensor.cast %batch_matmul_equal_out : tensor<2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%batch_matmul_equal_u0) : (tensor<*xf32>) -> ()
  %batch_matmul_broadcast_in0 = tt.constant dense<[[[[0.25, 1.75, 0.0], [1.0, 3.0, 1.5]]], [[[-1.25, 1.25, 0.75], [-3.25, -3.75, 1.25]]]]> : tensor<2x1x2x3xf32>
  %batch_matmul_broadcast_in1 = tt.constant dense<[[[-1.0, 0.75], [-1.5, -2.25], [-3.0, -1.0]], [[2.5, -0.75], [-1.0, 0.5], [4.0, -1.0]], [[0.75, -0.5], [0.75, -0.5], [1.25, 0.5]]]> : tensor<3x3x2xf32>
  %batch_matmul_broadcast_out = call @batch_matmul_broadcast(%batch_matmul_broadcast_in0, %batch_matmul_broadcast_in1) : (tensor<2x1x2x3xf32>, tensor<3x3x2xf32>) -> (tensor<2x3x2x2xf32>)
  %batch_matmul_broadcast_u0 = tensor.cast %batch_matmul_broadcast_out : tensor<2x3x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%batch_matmul_broadcast_u0) : (tensor<*xf32>) -> ()
  %batch_matmul_size_one_batch_in0 = tt.constant dense<[[[1.5, 3.75, -3.0], [0.5, -0.5, -1.25]]]> : tensor<1x2x3xf32>
  %batch_matmul_size_one_batch_in1 = tt.constant dense<[[[-2.25, -3.75], [-0.75, 2.75], [-3.25, -0.75]], [[3.75, 3.75], [-2.25, -4.0], [1.5, -4.0]]]> : tensor<2x3x2xf32>
  %batch_matmul_size_one_batch_out = call @batch_matmul_size_one_batch(%batch_matmul_size_one_batch_in0, %batch_matmul_size_one_batch_in1) : (tensor<1x2x3xf32>, tensor<2x3x2xf32>) -> (tensor<2x2x2xf32>)
  %batch_matmul_size_one_batch_u0 = tensor.cast %batch_matmul_size_one_batch_out : tensor<2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%batch_matmul_size_one_batch_u0) : (tensor<*xf32>) -> ()
  %matmul_2d_3d_in0 = tt.constant dense<[[-1.75, 0.0, 3.0], [-3.25, 1.25, 0.25]]> : tensor<2x3xf32>
  %matmul_2d_3d_in1 = tt.constant dense<[[[-3.0, 2.75], [2.75, -0.25], [3.75, 1.0]], [[3.25, 3.75], [0.5, -1.75], [-3.0, 0.5]]]> : tensor<2x3x2xf32>
  %matmul_2d_3d_out = call @matmul_2d_3d(%matmul_2d_3d_in0, %matmul_2d_3d_in1) : (tensor<2x3xf32>, tensor<2x3x2xf32>) -> (tensor<2x2x2xf32>)
  %matmul_2d_3d_u0 = tensor.cast %matmul_2d_3d_out : tensor<2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%matmul_2d_3d_u0) : (tensor<*xf32>) -> ()
  %matmul_1d_3d_in0 = tt.constant dense<[-2.5, 2.0, 3.5]> : tensor<3xf32>
  %matmul_1d_3d_in1 = tt.constant dense<[[[-2.0, 0.5, -3.75, -2.75], [-1.0, 3.25, 3.75, 1.25], [0.75, 0.5, -3.5, -1.0]], [[4.0, -0.75, -2.25, -2.25], [1.75, -3.75, 3.75, 3.0], [0.5, -0.25, 2.25, 0.5]]]> : tensor<2x3x4xf32>
  %matmul_1d_3d_out = call @matmul_1d_3d(%matmul_1d_3d_in0, %matmul_1d_3d_in1) : (tensor<3xf32>, tensor<2x3x4xf32>) -> (tensor<2x4xf32>)
  %matmul_1d_3d_u0 = tensor.cast %matmul_1d_3d_out : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%matmul_1d_3d_u0) : (tensor<*xf32>) -> ()
  %matmul_3d_1d_in0 = tt.constant dense<[[[-0.25, -1.5, -0.5], [2.0, -3.75, -4.0]], [[1.75, -1.0, 2.5], [-3.75, 3.25, -3.0]]]> : tensor<2x2x3xf32>
  %matmul_3d_1d_in1 = tt.constant dense<[-0.75, 3.75, -3.25]> : tensor<3xf32>
  %matmul_3d_1d_out = call @matmul_3d_1d(%matmul_3d_1d_in0, %matmul_3d_1d_in1) : (tensor<2x2x3xf32>, tensor<3xf32>) -> (tensor<2x2xf32>)
  %matmul_3d_1d_u0 = tensor.cast %matmul_3d_1d_out : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%matmul_3d_1d_u0) : (tensor<*xf32>) -> ()
  %matmul_i32_batched_in0 = tt.constant dense<[[[2, 3], [-1, -5]], [[0, -1], [4, 2]]]> : tensor<2x2x2xi32>
  %matmul_i32_batched_in1 = tt.constant dense<[[-2, -5], [1, -2]]> : tensor<2x2xi32>
  %matmul_i32_batched_out = call @matmul_i32_batched(%matmul_i32_batched_in0, %matmul_i32_batched_in1) : (tensor<2x2x2xi32>, tensor<2x2xi32>) -> (tensor<2x2x2xi32>)
  %matmul_i32_batched_u0 = tensor.cast %matmul_i32_batched_out : tensor<2x2x2xi32> to tensor<*xi32>
  call @printMemrefI32(%matmul_i32_batched_u0) : (tensor<*xi32>) -> ()
  return
}
