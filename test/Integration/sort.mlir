// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of tt.sort: stable in both directions, NaN above
// every number (last ascending, as np.sort; first descending, as
// torch.sort), -0.0 == +0.0. Expected values: np.sort / np.argsort with
// kind="stable" (ascending) and torch.sort(stable=True, descending=True).

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

// CHECK: rank = 1 offset = 0 sizes = [7] strides = [1] data =
// CHECK-NEXT: [-inf, -1, -0, 0, 2, 2, nan]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [7] strides = [1] data =
// CHECK-NEXT: [6, 4, 2, 5, 0, 3, 1]
func.func @ascending(%x: tensor<7xf32>) -> (tensor<7xf32>, tensor<7xi32>) {
  %v, %i = tt.sort %x axis = 0 : tensor<7xf32> -> tensor<7xf32>, tensor<7xi32>
  return %v, %i : tensor<7xf32>, tensor<7xi32>
}

// CHECK-NEXT: rank = 1 offset = 0 sizes = [7] strides = [1] data =
// CHECK-NEXT: [nan, 2, 2, -0, 0, -1, -inf]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [7] strides = [1] data =
// CHECK-NEXT: [1, 0, 3, 2, 5, 4, 6]
func.func @descending(%x: tensor<7xf32>) -> (tensor<7xf32>, tensor<7xi32>) {
  %v, %i = tt.sort %x axis = 0 descending : tensor<7xf32> -> tensor<7xf32>, tensor<7xi32>
  return %v, %i : tensor<7xf32>, tensor<7xi32>
}

// Along the first axis of a matrix, integers.
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
// CHECK-NEXT: [-7, 1]
// CHECK-NEXT: [3, 1]
// CHECK-NEXT: [5, 9]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
// CHECK-NEXT: [2, 0]
// CHECK-NEXT: [0, 2]
// CHECK-NEXT: [1, 1]
func.func @columns(%x: tensor<3x2xi32>) -> (tensor<3x2xi32>, tensor<3x2xi32>) {
  %v, %i = tt.sort %x axis = 0 : tensor<3x2xi32> -> tensor<3x2xi32>, tensor<3x2xi32>
  return %v, %i : tensor<3x2xi32>, tensor<3x2xi32>
}

func.func @main() {
  %x = tt.constant dense<[2.0, 0x7FC00000, -0.0, 2.0, -1.0, 0.0, 0xFF800000]> : tensor<7xf32>
  %a:2 = call @ascending(%x) : (tensor<7xf32>) -> (tensor<7xf32>, tensor<7xi32>)
  %a0 = tensor.cast %a#0 : tensor<7xf32> to tensor<*xf32>
  call @printMemrefF32(%a0) : (tensor<*xf32>) -> ()
  %a1 = tensor.cast %a#1 : tensor<7xi32> to tensor<*xi32>
  call @printMemrefI32(%a1) : (tensor<*xi32>) -> ()
  %d:2 = call @descending(%x) : (tensor<7xf32>) -> (tensor<7xf32>, tensor<7xi32>)
  %d0 = tensor.cast %d#0 : tensor<7xf32> to tensor<*xf32>
  call @printMemrefF32(%d0) : (tensor<*xf32>) -> ()
  %d1 = tensor.cast %d#1 : tensor<7xi32> to tensor<*xi32>
  call @printMemrefI32(%d1) : (tensor<*xi32>) -> ()
  %m = tt.constant dense<[[3, 1], [5, 9], [-7, 1]]> : tensor<3x2xi32>
  %c:2 = call @columns(%m) : (tensor<3x2xi32>) -> (tensor<3x2xi32>, tensor<3x2xi32>)
  %c0 = tensor.cast %c#0 : tensor<3x2xi32> to tensor<*xi32>
  call @printMemrefI32(%c0) : (tensor<*xi32>) -> ()
  %c1 = tensor.cast %c#1 : tensor<3x2xi32> to tensor<*xi32>
  call @printMemrefI32(%c1) : (tensor<*xi32>) -> ()
  return
}
