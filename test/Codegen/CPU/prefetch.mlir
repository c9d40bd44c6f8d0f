// RUN: tiny-opt %s --tt-lower-to-llvm=vector-bits=512 | FileCheck %s
// RUN: tiny-opt %s '--tt-lower-to-llvm=vector-bits=512 prefetch=false' | FileCheck %s --check-prefix=NOPREFETCH

// The pipeline's `prefetch` option: a logits layer over 16 tokens (f64 x
// f32.T, dot products that read the weights where they are). Each 4 x 4
// register tile's K loop prefetches one row of the weights that the next
// column tile reads (one of its four rows per row tile), then loads and
// widens its own four rows, 8 elements each.
// CHECK-LABEL: llvm.func @logits
// CHECK:         "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> : (!llvm.ptr) -> ()
// CHECK-NOT:     llvm.intr.prefetch
// CHECK-COUNT-4: llvm.fpext {{.*}} : vector<8xf32> to vector<8xf64>
// CHECK-NOT:     llvm.intr.prefetch
// NOPREFETCH-LABEL: llvm.func @logits
// NOPREFETCH-NOT:   llvm.intr.prefetch
// NOPREFETCH:       llvm.fpext {{.*}} : vector<8xf32> to vector<8xf64>
// NOPREFETCH-NOT:   llvm.intr.prefetch
func.func @logits(%x: tensor<16x768xf64>, %w: tensor<1000x768xf32>) -> tensor<16x1000xf64> {
  %wt = tt.transpose %w [1, 0] : tensor<1000x768xf32> -> tensor<768x1000xf32>
  %wc = tt.cast %wt to f64 : tensor<768x1000xf32> -> tensor<768x1000xf64>
  %0 = tt.matmul %x, %wc : (tensor<16x768xf64>, tensor<768x1000xf64>) -> tensor<16x1000xf64>
  return %0 : tensor<16x1000xf64>
}
