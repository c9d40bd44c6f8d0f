// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Lowering regressions found while writing the integration tests (expected
// values from NumPy):
//  * integer tt.pow lowers to math.ipowi, which needs --convert-math-to-funcs
//    before the LLVM conversion;
//  * a public function returning a function argument or a view of one (a
//    reshape, a rank-0 collapse) gets a bufferization.clone from the buffer
//    deallocation pipeline, which needs --convert-bufferization-to-memref.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

// np.power(a[2,3], e[3]) in int32 (exponents >= 0)
// CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [1024, 27, 1]
// CHECK-NEXT: [9765625, 1, 1]
func.func @pow_i32(%arg0: tensor<2x3xi32>, %arg1: tensor<3xi32>) -> (tensor<2x3xi32>) {
  %0 = tt.pow %arg0, %arg1 : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// x.reshape(6), x.reshape(3, 2) and x itself, returned directly
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [1.5, -2, 3.25, 4, 0.5, -6]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
// CHECK-NEXT: [1.5, -2]
// CHECK-NEXT: [3.25, 4]
// CHECK-NEXT: [0.5, -6]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [1.5, -2, 3.25]
// CHECK-NEXT: [4, 0.5, -6]
func.func @return_reshaped_argument(%arg0: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>, tensor<2x3xf32>) {
  %0 = tt.reshape %arg0 [6] : tensor<2x3xf32> -> tensor<6xf32>
  %1 = tt.reshape %arg0 [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0, %1, %arg0 : tensor<6xf32>, tensor<3x2xf32>, tensor<2x3xf32>
}

// x[1,1,1].reshape(())
// CHECK-NEXT: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [7.25]
func.func @return_rank0_view(%arg0: tensor<1x1x1xf32>) -> (tensor<f32>) {
  %0 = tt.reshape %arg0 [] : tensor<1x1x1xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @main() {
  %pow_i32_in0 = tt.constant dense<[[2, 3, -2], [5, 1, 0]]> : tensor<2x3xi32>
  %pow_i32_in1 = tt.constant dense<[10, 3, 0]> : tensor<3xi32>
  %pow_i32_out = call @pow_i32(%pow_i32_in0, %pow_i32_in1) : (tensor<2x3xi32>, tensor<3xi32>) -> (tensor<2x3xi32>)
  %pow_i32_u0 = tensor.cast %pow_i32_out : tensor<2x3xi32> to tensor<*xi32>
  call @printMemrefI32(%pow_i32_u0) : (tensor<*xi32>) -> ()
  %return_reshaped_argument_in0 = tt.constant dense<[[1.5, -2.0, 3.25], [4.0, 0.5, -6.0]]> : tensor<2x3xf32>
  %return_reshaped_argument_out:3 = call @return_reshaped_argument(%return_reshaped_argument_in0) : (tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>, tensor<2x3xf32>)
  %return_reshaped_argument_u0 = tensor.cast %return_reshaped_argument_out#0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%return_reshaped_argument_u0) : (tensor<*xf32>) -> ()
  %return_reshaped_argument_u1 = tensor.cast %return_reshaped_argument_out#1 : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%return_reshaped_argument_u1) : (tensor<*xf32>) -> ()
  %return_reshaped_argument_u2 = tensor.cast %return_reshaped_argument_out#2 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%return_reshaped_argument_u2) : (tensor<*xf32>) -> ()
  %return_rank0_view_in0 = tt.constant dense<[[[7.25]]]> : tensor<1x1x1xf32>
  %return_rank0_view_out = call @return_rank0_view(%return_rank0_view_in0) : (tensor<1x1x1xf32>) -> (tensor<f32>)
  %return_rank0_view_u0 = tensor.cast %return_rank0_view_out : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%return_rank0_view_u0) : (tensor<*xf32>) -> ()
  return
}
