// RUN: tiny-opt %s --tt-lower-to-llvm=vector-bits=512 | FileCheck %s
// RUN: tiny-opt %s '--tt-lower-to-llvm=vector-bits=512 masked=false' | FileCheck %s --check-prefix=NOMASK

// 4097 columns in blocks of 256: the last strip of the last block has a
// run-time width (at most 31 here). By default it is vectorised with masks
// (masked loads and stores of whole registers); with masked=false it stays
// a scalar loop and no masked memory access is left.
// CHECK-LABEL: llvm.func @partial_tile
// CHECK:         llvm.intr.masked.load
// CHECK:         llvm.intr.masked.store
// NOMASK-LABEL: llvm.func @partial_tile
// NOMASK-NOT:     llvm.intr.masked
func.func @partial_tile(%x: tensor<16x64xf32>, %w: tensor<64x4097xf32>) -> tensor<16x4097xf32> {
  %0 = tt.matmul %x, %w : (tensor<16x64xf32>, tensor<64x4097xf32>) -> tensor<16x4097xf32>
  return %0 : tensor<16x4097xf32>
}
