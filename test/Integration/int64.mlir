// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of i64 tensors (NumPy's default integer and
// PyTorch's torch.int64). Expected values: NumPy on int64 arrays.

func.func private @printMemrefI32(tensor<*xi32>)
func.func private @printMemrefI64(tensor<*xi64>)
func.func private @printMemrefF64(tensor<*xf64>)

// x.astype(np.int64) * 100000: no wrap at 2^31
// CHECK: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [10000000000, -214748364800000, 0, 700000]
func.func @widen_then_mul(%arg0: tensor<4xi32>) -> (tensor<4xi64>) {
  %w = tt.cast %arg0 to i64 : tensor<4xi32> -> tensor<4xi64>
  %c = tt.constant dense<100000> : tensor<i64>
  %0 = tt.mul %w, %c : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// x.astype(np.int32) of int64: the low 32 bits (wraps), as NumPy
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [1410065408, -1, -2147483648]
func.func @narrow(%arg0: tensor<3xi64>) -> (tensor<3xi32>) {
  %0 = tt.cast %arg0 to i32 : tensor<3xi64> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// x.astype(np.float64) and back: 2^53 + 1 rounds to 2^53
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [9.0072e+15, -3e+09]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [9007199254740992, -3000000000]
func.func @through_f64(%arg0: tensor<2xi64>) -> (tensor<2xf64>, tensor<2xi64>) {
  %f = tt.cast %arg0 to f64 : tensor<2xi64> -> tensor<2xf64>
  %i = tt.cast %f to i64 : tensor<2xf64> -> tensor<2xi64>
  return %f, %i : tensor<2xf64>, tensor<2xi64>
}

// x.sum(axis=1), x.max(axis=0), x // 7 (C division: truncates), argmax
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [6000000000, -2]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [3000000000, 2000000000, 1000000000]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: [428571428, 285714285, 142857142]
// CHECK-NEXT: [0, 0, 0]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [0, 1]
func.func @reduce(%arg0: tensor<2x3xi64>) -> (tensor<2xi64>, tensor<3xi64>, tensor<2x3xi64>, tensor<2xi32>) {
  %s = tt.sum %arg0 axes = [1] : tensor<2x3xi64> -> tensor<2xi64>
  %m = tt.reduce_max %arg0 axes = [0] : tensor<2x3xi64> -> tensor<3xi64>
  %seven = tt.constant dense<7> : tensor<i64>
  %d = tt.div %arg0, %seven : (tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi64>
  %a = tt.argmax %arg0 axis = 1 : tensor<2x3xi64> -> tensor<2xi32>
  return %s, %m, %d, %a : tensor<2xi64>, tensor<3xi64>, tensor<2x3xi64>, tensor<2xi32>
}

// table[ids] with int64 ids (negative ones count from the end)
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [40000000000, 10000000000, 30000000000]
func.func @gather(%arg0: tensor<4xi64>, %arg1: tensor<3xi64>) -> (tensor<3xi64>) {
  %0 = tt.gather %arg0[%arg1] : (tensor<4xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

func.func @main() {
  %a = tt.constant dense<[100000, -2147483648, 0, 7]> : tensor<4xi32>
  %ra = call @widen_then_mul(%a) : (tensor<4xi32>) -> tensor<4xi64>
  %ua = tensor.cast %ra : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%ua) : (tensor<*xi64>) -> ()
  %b = tt.constant dense<[10000000000, -1, 2147483648]> : tensor<3xi64>
  %rb = call @narrow(%b) : (tensor<3xi64>) -> tensor<3xi32>
  %ub = tensor.cast %rb : tensor<3xi32> to tensor<*xi32>
  call @printMemrefI32(%ub) : (tensor<*xi32>) -> ()
  %c = tt.constant dense<[9007199254740993, -3000000000]> : tensor<2xi64>
  %rc:2 = call @through_f64(%c) : (tensor<2xi64>) -> (tensor<2xf64>, tensor<2xi64>)
  %uc0 = tensor.cast %rc#0 : tensor<2xf64> to tensor<*xf64>
  call @printMemrefF64(%uc0) : (tensor<*xf64>) -> ()
  %uc1 = tensor.cast %rc#1 : tensor<2xi64> to tensor<*xi64>
  call @printMemrefI64(%uc1) : (tensor<*xi64>) -> ()
  %d = tt.constant dense<[[3000000000, 2000000000, 1000000000], [-1, 1, -2]]> : tensor<2x3xi64>
  %rd:4 = call @reduce(%d) : (tensor<2x3xi64>) -> (tensor<2xi64>, tensor<3xi64>, tensor<2x3xi64>, tensor<2xi32>)
  %ud0 = tensor.cast %rd#0 : tensor<2xi64> to tensor<*xi64>
  call @printMemrefI64(%ud0) : (tensor<*xi64>) -> ()
  %ud1 = tensor.cast %rd#1 : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%ud1) : (tensor<*xi64>) -> ()
  %ud2 = tensor.cast %rd#2 : tensor<2x3xi64> to tensor<*xi64>
  call @printMemrefI64(%ud2) : (tensor<*xi64>) -> ()
  %ud3 = tensor.cast %rd#3 : tensor<2xi32> to tensor<*xi32>
  call @printMemrefI32(%ud3) : (tensor<*xi32>) -> ()
  %t = tt.constant dense<[10000000000, 20000000000, 30000000000, 40000000000]> : tensor<4xi64>
  %ids = tt.constant dense<[-1, 0, 2]> : tensor<3xi64>
  %re = call @gather(%t, %ids) : (tensor<4xi64>, tensor<3xi64>) -> tensor<3xi64>
  %ue = tensor.cast %re : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%ue) : (tensor<*xi64>) -> ()
  return
}
