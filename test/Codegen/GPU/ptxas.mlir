// REQUIRES: ptxas, libdevice
// RUN: tiny-opt %s --split-input-file --tt-lower-to-nvvm=format=bin | FileCheck %s

// Every op family becomes a cubin that ptxas accepts (an ELF image in the
// gpu.binary); the kernels of test/Integration and test/Conversion are
// compiled the same way by test/Codegen/GPU/all-ops.test.

// CHECK-LABEL: llvm.func @unary
// CHECK: gpu.binary @unary_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{{.*}}}, bin = "\7FELF
func.func @unary(%x: tensor<33x65xf32>) -> tensor<33x65xf32> {
  %a = tt.tanh %x : tensor<33x65xf32>
  %b = tt.erf %a : tensor<33x65xf32>
  %c = tt.log1p %b : tensor<33x65xf32>
  %d = tt.sin %c : tensor<33x65xf32>
  %e = tt.floor %d : tensor<33x65xf32>
  return %e : tensor<33x65xf32>
}

// -----

// CHECK-LABEL: llvm.func @f64_reductions
// CHECK: bin = "\7FELF
func.func @f64_reductions(%x: tensor<7x300xf64>) -> tensor<7x1xf64> {
  %m = tt.var %x axes = [1] keepdims : tensor<7x300xf64> -> tensor<7x1xf64>
  %e = tt.exp %m : tensor<7x1xf64>
  return %e : tensor<7x1xf64>
}

// -----

// CHECK-LABEL: llvm.func @batched_matmul
// CHECK: bin = "\7FELF
func.func @batched_matmul(%a: tensor<3x70x33xf32>, %b: tensor<3x33x65xf32>) -> tensor<3x70x65xf32> {
  %c = tt.matmul %a, %b : (tensor<3x70x33xf32>, tensor<3x33x65xf32>) -> tensor<3x70x65xf32>
  return %c : tensor<3x70x65xf32>
}

// -----

// CHECK-LABEL: llvm.func @gather_and_argmax
// CHECK: bin = "\7FELF
func.func @gather_and_argmax(%t: tensor<50x16xf32>, %i: tensor<9xi32>) -> tensor<9xi32> {
  %g = tt.gather %t[%i] : (tensor<50x16xf32>, tensor<9xi32>) -> tensor<9x16xf32>
  %a = tt.argmax %g axis = 1 : tensor<9x16xf32> -> tensor<9xi32>
  return %a : tensor<9xi32>
}
