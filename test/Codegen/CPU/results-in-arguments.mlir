// RUN: tiny-opt %s --split-input-file '--tt-lower-to-llvm=out-params=true' --mlir-print-ir-after=tt-outline-loops -o /dev/null 2>&1 | FileCheck %s

// Arguments with `tt.updated_by = j` receive result #j in their own
// buffer. An SGD-with-momentum step: both updates are computed in place
// (the loops read and write the arguments), nothing is allocated or
// copied, and the results' out-params (the last two arguments) are never
// written.
// CHECK-LABEL: func.func @momentum
// CHECK-SAME:    (%[[P:[^:]*]]: memref<1000xf32> {tt.updated_by = 0 : i64}, %[[G:[^:]*]]: memref<1000xf32>, %[[M:[^:]*]]: memref<1000xf32> {tt.updated_by = 1 : i64}, %[[OUT0:[^:]*]]: memref<1000xf32>, %[[OUT1:[^:]*]]: memref<1000xf32>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.copy
// CHECK:         vector.store %{{.*}}, %[[M]]
// CHECK-NOT:     memref.copy
// CHECK:         vector.store %{{.*}}, %[[P]]
// CHECK-NOT:     %[[OUT0]]
// CHECK-NOT:     %[[OUT1]]
// CHECK:         return
func.func @momentum(%p: tensor<1000xf32> {tt.updated_by = 0 : i64}, %g: tensor<1000xf32>, %m: tensor<1000xf32> {tt.updated_by = 1 : i64}) -> (tensor<1000xf32>, tensor<1000xf32>) {
  %c = tt.constant dense<0.9> : tensor<f32>
  %m1 = tt.mul %m, %c : (tensor<1000xf32>, tensor<f32>) -> tensor<1000xf32>
  %m2 = tt.add %m1, %g : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<1000xf32>
  %l = tt.constant dense<0.01> : tensor<f32>
  %d = tt.mul %m2, %l : (tensor<1000xf32>, tensor<f32>) -> tensor<1000xf32>
  %p1 = tt.sub %p, %d : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<1000xf32>
  return %p1, %m2 : tensor<1000xf32>, tensor<1000xf32>
}

// -----

// The old value is read after the update (a product that cannot be
// fused): bufferization computes the update into a buffer of its own,
// which is copied into the argument right before the return, after the
// product read the argument's old value.
// CHECK-LABEL: func.func @read_after
// CHECK-SAME:    (%[[P:[^:]*]]: memref<64x64xf32> {tt.updated_by = 0 : i64}
// CHECK:         memref.copy %[[P]], %[[NEW:[^ ]*]] :
// CHECK:         call @read_after_loop(%[[NEW]])
// CHECK:         call @read_after_loop_0({{.*}}%[[P]]
// CHECK:         memref.copy %[[NEW]], %[[P]]
// CHECK:         return
func.func @read_after(%p: tensor<64x64xf32> {tt.updated_by = 0 : i64}, %x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %n = tt.exp %p : tensor<64x64xf32>
  %y = tt.matmul %x, %p : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %n, %y : tensor<64x64xf32>, tensor<64x64xf32>
}

