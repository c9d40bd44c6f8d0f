// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of the shape ops: transpose, reshape (incl. rank 0),
// strided slice, concat, gather (negative indices wrap as in NumPy) and
// broadcast_to. Expected values: the NumPy equivalents. (Returning a reshape
// of a function argument directly is covered in lowering_regressions.mlir.)

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

// np.transpose(x[2,3])
// CHECK: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
// CHECK-NEXT: [0.5, 3.5]
// CHECK-NEXT: [1.5, 4.5]
// CHECK-NEXT: [2.5, 5.5]
func.func @transpose_2d(%arg0: tensor<2x3xf32>) -> (tensor<3x2xf32>) {
  %0 = tt.transpose %arg0 [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// np.transpose(x[2,3,4], (2, 0, 1))
// CHECK-NEXT: rank = 3 offset = 0 sizes = [4, 2, 3] strides = [6, 3, 1] data =
// CHECK-NEXT: [0, 4, 8]
// CHECK-NEXT: [12, 16, 20]
// CHECK-NEXT: [1, 5, 9]
// CHECK-NEXT: [13, 17, 21]
// CHECK-NEXT: [2, 6, 10]
// CHECK-NEXT: [14, 18, 22]
// CHECK-NEXT: [3, 7, 11]
// CHECK-NEXT: [15, 19, 23]
func.func @transpose_3d(%arg0: tensor<2x3x4xi32>) -> (tensor<4x2x3xi32>) {
  %0 = tt.transpose %arg0 [2, 0, 1] : tensor<2x3x4xi32> -> tensor<4x2x3xi32>
  return %0 : tensor<4x2x3xi32>
}

// np.transpose(x) + y[2]: a transposed operand feeding an elementwise op
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
// CHECK-NEXT: [100.5, 203.5]
// CHECK-NEXT: [101.5, 204.5]
// CHECK-NEXT: [102.5, 205.5]
func.func @transpose_then_add(%arg0: tensor<2x3xf32>, %arg1: tensor<2xf32>) -> (tensor<3x2xf32>) {
  %t = tt.transpose %arg0 [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = tt.add %t, %arg1 : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// (-x[2,3]).reshape(3, 2), .reshape(6), .reshape(1, 6, 1)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
// CHECK-NEXT: [-0.5, -1.5]
// CHECK-NEXT: [-2.5, -3.5]
// CHECK-NEXT: [-4.5, -5.5]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [-0.5, -1.5, -2.5, -3.5, -4.5, -5.5]
// CHECK-NEXT: rank = 3 offset = 0 sizes = [1, 6, 1] strides = [6, 1, 1] data =
// CHECK-NEXT: [-0.5]
// CHECK-NEXT: [-1.5]
// CHECK-NEXT: [-2.5]
// CHECK-NEXT: [-3.5]
// CHECK-NEXT: [-4.5]
// CHECK-NEXT: [-5.5]
func.func @reshape(%arg0: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<1x6x1xf32>) {
  %n = tt.neg %arg0 : tensor<2x3xf32>
  %0 = tt.reshape %n [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tt.reshape %n [6] : tensor<2x3xf32> -> tensor<6xf32>
  %2 = tt.reshape %n [1, 6, 1] : tensor<2x3xf32> -> tensor<1x6x1xf32>
  return %0, %1, %2 : tensor<3x2xf32>, tensor<6xf32>, tensor<1x6x1xf32>
}

// y = (x[1,1] * 2).reshape(()); y.reshape(1, 1, 1) + y
// CHECK-NEXT: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [9]
// CHECK-NEXT: rank = 3 offset = 0 sizes = [1, 1, 1] strides = [1, 1, 1] data =
// CHECK-NEXT: [18]
func.func @reshape_rank0(%arg0: tensor<1x1xf32>) -> (tensor<f32>, tensor<1x1x1xf32>) {
  %d = tt.add %arg0, %arg0 : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  %0 = tt.reshape %d [] : tensor<1x1xf32> -> tensor<f32>
  %1 = tt.reshape %0 [1, 1, 1] : tensor<f32> -> tensor<1x1x1xf32>
  %2 = tt.add %1, %0 : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1x1xf32>
  return %0, %2 : tensor<f32>, tensor<1x1x1xf32>
}

// x[4,6][1:3, 0:6:3] and x[0:4:2, 1:6:2]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [6, 9]
// CHECK-NEXT: [12, 15]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [1, 3, 5]
// CHECK-NEXT: [13, 15, 17]
func.func @slice_strided(%arg0: tensor<4x6xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>) {
  %0 = tt.slice %arg0 starts = [1, 0] sizes = [2, 2] strides = [1, 3] : tensor<4x6xf32> -> tensor<2x2xf32>
  %1 = tt.slice %arg0 starts = [0, 1] sizes = [2, 3] strides = [2, 2] : tensor<4x6xf32> -> tensor<2x3xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<2x3xf32>
}

// x[10][2:9:3] in int32
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [20, 50, 80]
func.func @slice_1d(%arg0: tensor<10xi32>) -> (tensor<3xi32>) {
  %0 = tt.slice %arg0 starts = [2] sizes = [3] strides = [3] : tensor<10xi32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// np.concatenate([a[2,3], b[2,1], c[2,2]], axis=1)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 6] strides = [6, 1] data =
// CHECK-NEXT: [1, 2, 3, -1, 7.5, 8.5]
// CHECK-NEXT: [4, 5, 6, -2, 9.5, 10.5]
func.func @concat_axis1(%arg0: tensor<2x3xf32>, %arg1: tensor<2x1xf32>, %arg2: tensor<2x2xf32>) -> (tensor<2x6xf32>) {
  %0 = tt.concat %arg0, %arg1, %arg2 axis = 1 : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// np.concatenate([a[1,2], b[3,2], a[1,2]], axis=0) in int32
// CHECK-NEXT: rank = 2 offset = 0 sizes = [5, 2] strides = [2, 1] data =
// CHECK-NEXT: [1, 2]
// CHECK-NEXT: [3, 4]
// CHECK-NEXT: [5, 6]
// CHECK-NEXT: [7, 8]
// CHECK-NEXT: [1, 2]
func.func @concat_axis0(%arg0: tensor<1x2xi32>, %arg1: tensor<3x2xi32>) -> (tensor<5x2xi32>) {
  %0 = tt.concat %arg0, %arg1, %arg0 axis = 0 : (tensor<1x2xi32>, tensor<3x2xi32>, tensor<1x2xi32>) -> tensor<5x2xi32>
  return %0 : tensor<5x2xi32>
}

// table[5,3][ids[2,2]] with negative indices (-1 is the last row, -5 the first)
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 2, 3] strides = [6, 3, 1] data =
// CHECK-NEXT: [19.5, 21, 22.5]
// CHECK-NEXT: [1.5, 3, 4.5]
// CHECK-NEXT: [19.5, 21, 22.5]
// CHECK-NEXT: [1.5, 3, 4.5]
func.func @gather_negative_indices(%arg0: tensor<5x3xf32>, %arg1: tensor<2x2xi32>) -> (tensor<2x2x3xf32>) {
  %0 = tt.gather %arg0[%arg1] : (tensor<5x3xf32>, tensor<2x2xi32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// table[5][ids] with out-of-range indices, which tt clamps after wrapping
// (NumPy would raise): 7 -> 4, -9 -> -9 + 5 = -4 -> 0
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [30, 50, 10, 20]
func.func @gather_clamped(%arg0: tensor<5xi32>, %arg1: tensor<4xi32>) -> (tensor<4xi32>) {
  %0 = tt.gather %arg0[%arg1] : (tensor<5xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// table[4,2][-2]: a rank-0 index selects one row
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [1.5, 2.5]
func.func @gather_scalar_index(%arg0: tensor<4x2xf32>, %arg1: tensor<i32>) -> (tensor<2xf32>) {
  %0 = tt.gather %arg0[%arg1] : (tensor<4x2xf32>, tensor<i32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// np.broadcast_to(x[3,1], (2, 3, 4))
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 3, 4] strides = [12, 4, 1] data =
// CHECK-NEXT: [1, 1, 1, 1]
// CHECK-NEXT: [2, 2, 2, 2]
// CHECK-NEXT: [3, 3, 3, 3]
// CHECK-NEXT: [1, 1, 1, 1]
// CHECK-NEXT: [2, 2, 2, 2]
// CHECK-NEXT: [3, 3, 3, 3]
func.func @broadcast_to(%arg0: tensor<3x1xf32>) -> (tensor<2x3x4xf32>) {
  %0 = tt.broadcast_to %arg0 [2, 3, 4] : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// np.broadcast_to(s[], (2, 2)) and np.broadcast_to(v[3], (2, 3)) in int32
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: [-7, -7]
// CHECK-NEXT: [-7, -7]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [1, 2, 3]
// CHECK-NEXT: [1, 2, 3]
func.func @broadcast_to_rank0_i32(%arg0: tensor<i32>, %arg1: tensor<3xi32>) -> (tensor<2x2xi32>, tensor<2x3xi32>) {
  %0 = tt.broadcast_to %arg0 [2, 2] : tensor<i32> -> tensor<2x2xi32>
  %1 = tt.broadcast_to %arg1 [2, 3] : tensor<3xi32> -> tensor<2x3xi32>
  return %0, %1 : tensor<2x2xi32>, tensor<2x3xi32>
}

func.func @main() {
  %transpose_2d_in0 = tt.constant dense<[[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]]> : tensor<2x3xf32>
  %transpose_2d_out = call @transpose_2d(%transpose_2d_in0) : (tensor<2x3xf32>) -> (tensor<3x2xf32>)
  %transpose_2d_u0 = tensor.cast %transpose_2d_out : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%transpose_2d_u0) : (tensor<*xf32>) -> ()
  %transpose_3d_in0 = tt.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %transpose_3d_out = call @transpose_3d(%transpose_3d_in0) : (tensor<2x3x4xi32>) -> (tensor<4x2x3xi32>)
  %transpose_3d_u0 = tensor.cast %transpose_3d_out : tensor<4x2x3xi32> to tensor<*xi32>
  call @printMemrefI32(%transpose_3d_u0) : (tensor<*xi32>) -> ()
  %transpose_then_add_in0 = tt.constant dense<[[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]]> : tensor<2x3xf32>
  %transpose_then_add_in1 = tt.constant dense<[100.0, 200.0]> : tensor<2xf32>
  %transpose_then_add_out = call @transpose_then_add(%transpose_then_add_in0, %transpose_then_add_in1) : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<3x2xf32>)
  %transpose_then_add_u0 = tensor.cast %transpose_then_add_out : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%transpose_then_add_u0) : (tensor<*xf32>) -> ()
  %reshape_in0 = tt.constant dense<[[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]]> : tensor<2x3xf32>
  %reshape_out:3 = call @reshape(%reshape_in0) : (tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<1x6x1xf32>)
  %reshape_u0 = tensor.cast %reshape_out#0 : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%reshape_u0) : (tensor<*xf32>) -> ()
  %reshape_u1 = tensor.cast %reshape_out#1 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%reshape_u1) : (tensor<*xf32>) -> ()
  %reshape_u2 = tensor.cast %reshape_out#2 : tensor<1x6x1xf32> to tensor<*xf32>
  call @printMemrefF32(%reshape_u2) : (tensor<*xf32>) -> ()
  %reshape_rank0_in0 = tt.constant dense<[[4.5]]> : tensor<1x1xf32>
  %reshape_rank0_out:2 = call @reshape_rank0(%reshape_rank0_in0) : (tensor<1x1xf32>) -> (tensor<f32>, tensor<1x1x1xf32>)
  %reshape_rank0_u0 = tensor.cast %reshape_rank0_out#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%reshape_rank0_u0) : (tensor<*xf32>) -> ()
  %reshape_rank0_u1 = tensor.cast %reshape_rank0_out#1 : tensor<1x1x1xf32> to tensor<*xf32>
  call @printMemrefF32(%reshape_rank0_u1) : (tensor<*xf32>) -> ()
  %slice_strided_in0 = tt.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<4x6xf32>
  %slice_strided_out:2 = call @slice_strided(%slice_strided_in0) : (tensor<4x6xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>)
  %slice_strided_u0 = tensor.cast %slice_strided_out#0 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%slice_strided_u0) : (tensor<*xf32>) -> ()
  %slice_strided_u1 = tensor.cast %slice_strided_out#1 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%slice_strided_u1) : (tensor<*xf32>) -> ()
  %slice_1d_in0 = tt.constant dense<[0, 10, 20, 30, 40, 50, 60, 70, 80, 90]> : tensor<10xi32>
  %slice_1d_out = call @slice_1d(%slice_1d_in0) : (tensor<10xi32>) -> (tensor<3xi32>)
  %slice_1d_u0 = tensor.cast %slice_1d_out : tensor<3xi32> to tensor<*xi32>
  call @printMemrefI32(%slice_1d_u0) : (tensor<*xi32>) -> ()
  %concat_axis1_in0 = tt.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %concat_axis1_in1 = tt.constant dense<[[-1.0], [-2.0]]> : tensor<2x1xf32>
  %concat_axis1_in2 = tt.constant dense<[[7.5, 8.5], [9.5, 10.5]]> : tensor<2x2xf32>
  %concat_axis1_out = call @concat_axis1(%concat_axis1_in0, %concat_axis1_in1, %concat_axis1_in2) : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> (tensor<2x6xf32>)
  %concat_axis1_u0 = tensor.cast %concat_axis1_out : tensor<2x6xf32> to tensor<*xf32>
  call @printMemrefF32(%concat_axis1_u0) : (tensor<*xf32>) -> ()
  %concat_axis0_in0 = tt.constant dense<[[1, 2]]> : tensor<1x2xi32>
  %concat_axis0_in1 = tt.constant dense<[[3, 4], [5, 6], [7, 8]]> : tensor<3x2xi32>
  %concat_axis0_out = call @concat_axis0(%concat_axis0_in0, %concat_axis0_in1) : (tensor<1x2xi32>, tensor<3x2xi32>) -> (tensor<5x2xi32>)
  %concat_axis0_u0 = tensor.cast %concat_axis0_out : tensor<5x2xi32> to tensor<*xi32>
  call @printMemrefI32(%concat_axis0_u0) : (tensor<*xi32>) -> ()
  %gather_negative_indices_in0 = tt.constant dense<[[1.5, 3.0, 4.5], [6.0, 7.5, 9.0], [10.5, 12.0, 13.5], [15.0, 16.5, 18.0], [19.5, 21.0, 22.5]]> : tensor<5x3xf32>
  %gather_negative_indices_in1 = tt.constant dense<[[4, 0], [-1, -5]]> : tensor<2x2xi32>
  %gather_negative_indices_out = call @gather_negative_indices(%gather_negative_indices_in0, %gather_negative_indices_in1) : (tensor<5x3xf32>, tensor<2x2xi32>) -> (tensor<2x2x3xf32>)
  %gather_negative_indices_u0 = tensor.cast %gather_negative_indices_out : tensor<2x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%gather_negative_indices_u0) : (tensor<*xf32>) -> ()
  %gather_clamped_in0 = tt.constant dense<[10, 20, 30, 40, 50]> : tensor<5xi32>
  %gather_clamped_in1 = tt.constant dense<[2, 7, -9, 1]> : tensor<4xi32>
  %gather_clamped_out = call @gather_clamped(%gather_clamped_in0, %gather_clamped_in1) : (tensor<5xi32>, tensor<4xi32>) -> (tensor<4xi32>)
  %gather_clamped_u0 = tensor.cast %gather_clamped_out : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%gather_clamped_u0) : (tensor<*xi32>) -> ()
  %gather_scalar_index_in0 = tt.constant dense<[[-2.5, -1.5], [-0.5, 0.5], [1.5, 2.5], [3.5, 4.5]]> : tensor<4x2xf32>
  %gather_scalar_index_in1 = tt.constant dense<-2> : tensor<i32>
  %gather_scalar_index_out = call @gather_scalar_index(%gather_scalar_index_in0, %gather_scalar_index_in1) : (tensor<4x2xf32>, tensor<i32>) -> (tensor<2xf32>)
  %gather_scalar_index_u0 = tensor.cast %gather_scalar_index_out : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%gather_scalar_index_u0) : (tensor<*xf32>) -> ()
  %broadcast_to_in0 = tt.constant dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32>
  %broadcast_to_out = call @broadcast_to(%broadcast_to_in0) : (tensor<3x1xf32>) -> (tensor<2x3x4xf32>)
  %broadcast_to_u0 = tensor.cast %broadcast_to_out : tensor<2x3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%broadcast_to_u0) : (tensor<*xf32>) -> ()
  %broadcast_to_rank0_i32_in0 = tt.constant dense<-7> : tensor<i32>
  %broadcast_to_rank0_i32_in1 = tt.constant dense<[1, 2, 3]> : tensor<3xi32>
  %broadcast_to_rank0_i32_out:2 = call @broadcast_to_rank0_i32(%broadcast_to_rank0_i32_in0, %broadcast_to_rank0_i32_in1) : (tensor<i32>, tensor<3xi32>) -> (tensor<2x2xi32>, tensor<2x3xi32>)
  %broadcast_to_rank0_i32_u0 = tensor.cast %broadcast_to_rank0_i32_out#0 : tensor<2x2xi32> to tensor<*xi32>
  call @printMemrefI32(%broadcast_to_rank0_i32_u0) : (tensor<*xi32>) -> ()
  %broadcast_to_rank0_i32_u1 = tensor.cast %broadcast_to_rank0_i32_out#1 : tensor<2x3xi32> to tensor<*xi32>
  call @printMemrefI32(%broadcast_to_rank0_i32_u1) : (tensor<*xi32>) -> ()
  return
}
