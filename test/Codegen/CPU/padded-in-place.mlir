// RUN: tiny-opt %s --tt-lower-to-llvm --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s
// RUN: tiny-opt %s '--tt-lower-to-llvm=eliminate-empty-tensors=false' --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=COPY

// tt-lower-to-llvm's eliminate-empty-tensors: a value concatenated with a
// constant (max pooling's -inf padding, as the PyTorch front end writes
// it) is computed straight into its part of the concatenation's buffer;
// without it, into a buffer of its own that is then copied in.
// CHECK-LABEL: func.func @concatenated
// CHECK:         %[[OUT:.*]] = memref.alloc() {{.*}} : memref<2x9x8x4xf32>
// CHECK:         %[[IN:.*]] = memref.subview %[[OUT]][0, 1, 0, 0] [2, 8, 8, 4]
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[IN]])
// CHECK:           math.exp
// COPY-LABEL: func.func @concatenated
// COPY:          memref.alloc() {{.*}} : memref<2x8x8x4xf32>
// COPY:          math.exp
// COPY:          memref.copy
func.func @concatenated(%x: tensor<2x8x8x4xf32>) -> tensor<2x9x8x4xf32> {
  %0 = tt.exp %x : tensor<2x8x8x4xf32>
  %c = tt.constant dense<0xFF800000> : tensor<2x1x8x4xf32>
  %1 = tt.concat %c, %0 axis = 1 : (tensor<2x1x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x9x8x4xf32>
  return %1 : tensor<2x9x8x4xf32>
}
