// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of tt.cmp and tt.select. Boolean results are cast to
// i32 (or f32) inside the tested function for printing. Expected values were
// computed with NumPy: float comparisons with NaN are false except `ne`.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

// eq, ne, lt, le, gt, ge of a[2,3] (with a NaN) and b[3], as int32
// CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [0, 1, 0]
// CHECK-NEXT: [0, 1, 0]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [1, 0, 1]
// CHECK-NEXT: [1, 0, 1]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [1, 0, 0]
// CHECK-NEXT: [1, 0, 1]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [1, 1, 0]
// CHECK-NEXT: [1, 1, 1]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [0, 0, 0]
// CHECK-NEXT: [0, 0, 0]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [0, 1, 0]
// CHECK-NEXT: [0, 1, 0]
func.func @cmp_f32(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>) {
  %c0 = tt.cmp eq, %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = tt.cast %c0 to i32 : tensor<2x3xi1> -> tensor<2x3xi32>
  %c1 = tt.cmp ne, %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = tt.cast %c1 to i32 : tensor<2x3xi1> -> tensor<2x3xi32>
  %c2 = tt.cmp lt, %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %2 = tt.cast %c2 to i32 : tensor<2x3xi1> -> tensor<2x3xi32>
  %c3 = tt.cmp le, %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %3 = tt.cast %c3 to i32 : tensor<2x3xi1> -> tensor<2x3xi32>
  %c4 = tt.cmp gt, %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %4 = tt.cast %c4 to i32 : tensor<2x3xi1> -> tensor<2x3xi32>
  %c5 = tt.cmp ge, %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %5 = tt.cast %c5 to i32 : tensor<2x3xi1> -> tensor<2x3xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>
}

// signed int32 comparisons of a[3,1] and b[5], as float32 (1 / 0)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 5] strides = [5, 1] data =
// CHECK-NEXT: [0, 1, 0, 0, 0]
// CHECK-NEXT: [0, 0, 1, 0, 0]
// CHECK-NEXT: [0, 0, 0, 1, 0]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 5] strides = [5, 1] data =
// CHECK-NEXT: [1, 0, 1, 1, 1]
// CHECK-NEXT: [1, 1, 0, 1, 1]
// CHECK-NEXT: [1, 1, 1, 0, 1]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 5] strides = [5, 1] data =
// CHECK-NEXT: [0, 0, 1, 1, 1]
// CHECK-NEXT: [0, 0, 0, 1, 1]
// CHECK-NEXT: [0, 0, 0, 0, 1]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 5] strides = [5, 1] data =
// CHECK-NEXT: [0, 1, 1, 1, 1]
// CHECK-NEXT: [0, 0, 1, 1, 1]
// CHECK-NEXT: [0, 0, 0, 1, 1]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 5] strides = [5, 1] data =
// CHECK-NEXT: [1, 0, 0, 0, 0]
// CHECK-NEXT: [1, 1, 0, 0, 0]
// CHECK-NEXT: [1, 1, 1, 0, 0]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 5] strides = [5, 1] data =
// CHECK-NEXT: [1, 1, 0, 0, 0]
// CHECK-NEXT: [1, 1, 1, 0, 0]
// CHECK-NEXT: [1, 1, 1, 1, 0]
func.func @cmp_i32(%arg0: tensor<3x1xi32>, %arg1: tensor<5xi32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %c0 = tt.cmp eq, %arg0, %arg1 : (tensor<3x1xi32>, tensor<5xi32>) -> tensor<3x5xi1>
  %0 = tt.cast %c0 to f32 : tensor<3x5xi1> -> tensor<3x5xf32>
  %c1 = tt.cmp ne, %arg0, %arg1 : (tensor<3x1xi32>, tensor<5xi32>) -> tensor<3x5xi1>
  %1 = tt.cast %c1 to f32 : tensor<3x5xi1> -> tensor<3x5xf32>
  %c2 = tt.cmp lt, %arg0, %arg1 : (tensor<3x1xi32>, tensor<5xi32>) -> tensor<3x5xi1>
  %2 = tt.cast %c2 to f32 : tensor<3x5xi1> -> tensor<3x5xf32>
  %c3 = tt.cmp le, %arg0, %arg1 : (tensor<3x1xi32>, tensor<5xi32>) -> tensor<3x5xi1>
  %3 = tt.cast %c3 to f32 : tensor<3x5xi1> -> tensor<3x5xf32>
  %c4 = tt.cmp gt, %arg0, %arg1 : (tensor<3x1xi32>, tensor<5xi32>) -> tensor<3x5xi1>
  %4 = tt.cast %c4 to f32 : tensor<3x5xi1> -> tensor<3x5xf32>
  %c5 = tt.cmp ge, %arg0, %arg1 : (tensor<3x1xi32>, tensor<5xi32>) -> tensor<3x5xi1>
  %5 = tt.cast %c5 to f32 : tensor<3x5xi1> -> tensor<3x5xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}

// float64 a[4] against a rank-0 value: le and ne
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [1, 1, 0, 0]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [0, 1, 1, 1]
func.func @cmp_f64_rank0(%arg0: tensor<4xf64>, %arg1: tensor<f64>) -> (tensor<4xi32>, tensor<4xi32>) {
  %c0 = tt.cmp le, %arg0, %arg1 : (tensor<4xf64>, tensor<f64>) -> tensor<4xi1>
  %c1 = tt.cmp ne, %arg1, %arg0 : (tensor<f64>, tensor<4xf64>) -> tensor<4xi1>
  %0 = tt.cast %c0 to i32 : tensor<4xi1> -> tensor<4xi32>
  %1 = tt.cast %c1 to i32 : tensor<4xi1> -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// np.where(c[2,3], t[3], f[]): all three operands broadcast
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [1.5, -1, 3.5]
// CHECK-NEXT: [-1, -1, 3.5]
func.func @select_broadcast(%arg0: tensor<2x3xi1>, %arg1: tensor<3xf32>, %arg2: tensor<f32>) -> (tensor<2x3xf32>) {
  %0 = tt.select %arg0, %arg1, %arg2 : (tensor<2x3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// np.where(c[2,1], t[1,3], f[2,3]) for int32
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [10, 20, 30]
// CHECK-NEXT: [-4, -5, -6]
func.func @select_i32_size_one(%arg0: tensor<2x1xi1>, %arg1: tensor<1x3xi32>, %arg2: tensor<2x3xi32>) -> (tensor<2x3xi32>) {
  %0 = tt.select %arg0, %arg1, %arg2 : (tensor<2x1xi1>, tensor<1x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// np.where(x > 0, np.sqrt(x), -x): a comparison feeding a select (fused)
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [2, 0.707107, 1.73205]
// CHECK-NEXT: [{{-?nan}}, 0.25, 2.82843]
func.func @cmp_select_chain(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>) -> (tensor<2x3xf32>) {
  %c = tt.cmp gt, %arg0, %arg1 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  %s = tt.sqrt %arg0 : tensor<2x3xf32>
  %n = tt.neg %arg0 : tensor<2x3xf32>
  %0 = tt.select %c, %s, %n : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

func.func @main() {
  %cmp_f32_in0 = tt.constant dense<[[1.0, 2.0, 0x7FC00000], [-3.0, 2.0, 0.0]]> : tensor<2x3xf32>
  %cmp_f32_in1 = tt.constant dense<[2.0, 2.0, 1.0]> : tensor<3xf32>
  %cmp_f32_out:6 = call @cmp_f32(%cmp_f32_in0, %cmp_f32_in1) : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>)
  %cmp_f32_u0 = tensor.cast %cmp_f32_out#0 : tensor<2x3xi32> to tensor<*xi32>
  call @printMemrefI32(%cmp_f32_u0) : (tensor<*xi32>) -> ()
  %cmp_f32_u1 = tensor.cast %cmp_f32_out#1 : tensor<2x3xi32> to tensor<*xi32>
  call @printMemrefI32(%cmp_f32_u1) : (tensor<*xi32>) -> ()
  %cmp_f32_u2 = tensor.cast %cmp_f32_out#2 : tensor<2x3xi32> to tensor<*xi32>
  call @printMemrefI32(%cmp_f32_u2) : (tensor<*xi32>) -> ()
  %cmp_f32_u3 = tensor.cast %cmp_f32_out#3 : tensor<2x3xi32> to tensor<*xi32>
  call @printMemrefI32(%cmp_f32_u3) : (tensor<*xi32>) -> ()
  %cmp_f32_u4 = tensor.cast %cmp_f32_out#4 : tensor<2x3xi32> to tensor<*xi32>
  call @printMemrefI32(%cmp_f32_u4) : (tensor<*xi32>) -> ()
  %cmp_f32_u5 = tensor.cast %cmp_f32_out#5 : tensor<2x3xi32> to tensor<*xi32>
  call @printMemrefI32(%cmp_f32_u5) : (tensor<*xi32>) -> ()
  %cmp_i32_in0 = tt.constant dense<[[-5], [0], [7]]> : tensor<3x1xi32>
  %cmp_i32_in1 = tt.constant dense<[-6, -5, 0, 7, 2147483647]> : tensor<5xi32>
  %cmp_i32_out:6 = call @cmp_i32(%cmp_i32_in0, %cmp_i32_in1) : (tensor<3x1xi32>, tensor<5xi32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>)
  %cmp_i32_u0 = tensor.cast %cmp_i32_out#0 : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%cmp_i32_u0) : (tensor<*xf32>) -> ()
  %cmp_i32_u1 = tensor.cast %cmp_i32_out#1 : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%cmp_i32_u1) : (tensor<*xf32>) -> ()
  %cmp_i32_u2 = tensor.cast %cmp_i32_out#2 : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%cmp_i32_u2) : (tensor<*xf32>) -> ()
  %cmp_i32_u3 = tensor.cast %cmp_i32_out#3 : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%cmp_i32_u3) : (tensor<*xf32>) -> ()
  %cmp_i32_u4 = tensor.cast %cmp_i32_out#4 : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%cmp_i32_u4) : (tensor<*xf32>) -> ()
  %cmp_i32_u5 = tensor.cast %cmp_i32_out#5 : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%cmp_i32_u5) : (tensor<*xf32>) -> ()
  %cmp_f64_rank0_in0 = tt.constant dense<[0.5, -1.0, 3.0, 0x7FF8000000000000]> : tensor<4xf64>
  %cmp_f64_rank0_in1 = tt.constant dense<0.5> : tensor<f64>
  %cmp_f64_rank0_out:2 = call @cmp_f64_rank0(%cmp_f64_rank0_in0, %cmp_f64_rank0_in1) : (tensor<4xf64>, tensor<f64>) -> (tensor<4xi32>, tensor<4xi32>)
  %cmp_f64_rank0_u0 = tensor.cast %cmp_f64_rank0_out#0 : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%cmp_f64_rank0_u0) : (tensor<*xi32>) -> ()
  %cmp_f64_rank0_u1 = tensor.cast %cmp_f64_rank0_out#1 : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%cmp_f64_rank0_u1) : (tensor<*xi32>) -> ()
  %select_broadcast_in0 = tt.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
  %select_broadcast_in1 = tt.constant dense<[1.5, 2.5, 3.5]> : tensor<3xf32>
  %select_broadcast_in2 = tt.constant dense<-1.0> : tensor<f32>
  %select_broadcast_out = call @select_broadcast(%select_broadcast_in0, %select_broadcast_in1, %select_broadcast_in2) : (tensor<2x3xi1>, tensor<3xf32>, tensor<f32>) -> (tensor<2x3xf32>)
  %select_broadcast_u0 = tensor.cast %select_broadcast_out : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%select_broadcast_u0) : (tensor<*xf32>) -> ()
  %select_i32_size_one_in0 = tt.constant dense<[[true], [false]]> : tensor<2x1xi1>
  %select_i32_size_one_in1 = tt.constant dense<[[10, 20, 30]]> : tensor<1x3xi32>
  %select_i32_size_one_in2 = tt.constant dense<[[-1, -2, -3], [-4, -5, -6]]> : tensor<2x3xi32>
  %select_i32_size_one_out = call @select_i32_size_one(%select_i32_size_one_in0, %select_i32_size_one_in1, %select_i32_size_one_in2) : (tensor<2x1xi1>, tensor<1x3xi32>, tensor<2x3xi32>) -> (tensor<2x3xi32>)
  %select_i32_size_one_u0 = tensor.cast %select_i32_size_one_out : tensor<2x3xi32> to tensor<*xi32>
  call @printMemrefI32(%select_i32_size_one_u0) : (tensor<*xi32>) -> ()
  %cmp_select_chain_in0 = tt.constant dense<[[-2.0, 0.5, 3.0], [0x7FC00000, -0.25, 8.0]]> : tensor<2x3xf32>
  %cmp_select_chain_in1 = tt.constant dense<0.0> : tensor<f32>
  %cmp_select_chain_out = call @cmp_select_chain(%cmp_select_chain_in0, %cmp_select_chain_in1) : (tensor<2x3xf32>, tensor<f32>) -> (tensor<2x3xf32>)
  %cmp_select_chain_u0 = tensor.cast %cmp_select_chain_out : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%cmp_select_chain_u0) : (tensor<*xf32>) -> ()
  return
}
