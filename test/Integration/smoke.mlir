// RUN: tiny-opt %s | %tt-run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @compute(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = tt.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

func.func @main() {
  %a = tt.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = tt.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = call @compute(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %u = tensor.cast %0 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [11, 22, 33]
// CHECK: [14, 25, 36]
