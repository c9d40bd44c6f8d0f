// RUN: tiny-opt %s --split-input-file --tt-lower-to-llvm=vector-bits=512 | FileCheck %s
// RUN: tiny-opt %s --split-input-file '--tt-lower-to-llvm=vector-bits=512 fuse-rows=false f32-partial-sums=1' | FileCheck %s --check-prefix=OFF
// RUN: tiny-opt %s --split-input-file '--tt-lower-to-llvm=vector-bits=512 hoist-buffers=false' | FileCheck %s --check-prefix=NOHOIST

// Layer norm through the whole CPU pipeline. By default each block of rows
// is walked a row at a time (fuse-rows): the mean and the variance of a row
// are scalars in registers, with no buffer allocated inside the parallel
// loop; the float32 sums add 8 slices of 96 lanes in float32 before
// widening them to float64 (f32-partial-sums=8); 1 / sqrt(var + eps) is
// computed once per row, before the loop over the row's columns.
// CHECK-LABEL: llvm.func @layer_norm
// CHECK:         omp.wsloop
// CHECK-NOT:     llvm.call @malloc
// CHECK:         llvm.fpext {{.*}} : vector<96xf32> to vector<96xf64>
// CHECK:         llvm.intr.vector.reduce.fadd{{.*}}vector<96xf64>
// CHECK-NOT:     llvm.call @malloc
// CHECK:         llvm.fpext {{.*}} : vector<96xf32> to vector<96xf64>
// CHECK-NOT:     llvm.call @malloc
// CHECK:         llvm.intr.sqrt({{.*}}) : (vector<1xf32>) -> vector<1xf32>
// CHECK-NOT:     llvm.intr.sqrt
// CHECK:         omp.yield
//
// fuse-rows=false f32-partial-sums=1: the block's means and variances go
// to buffers allocated per block, every element is widened.
// OFF-LABEL:   llvm.func @layer_norm
// OFF:         omp.wsloop
// OFF:         llvm.call @malloc
// OFF:         llvm.fpext {{.*}} : vector<768xf32> to vector<768xf64>
func.func @layer_norm(%x: tensor<1024x768xf32>) -> tensor<1024x768xf32> {
  %m = tt.mean %x axes = [1] keepdims : tensor<1024x768xf32> -> tensor<1024x1xf32>
  %d = tt.sub %x, %m : (tensor<1024x768xf32>, tensor<1024x1xf32>) -> tensor<1024x768xf32>
  %v = tt.var %x axes = [1] keepdims : tensor<1024x768xf32> -> tensor<1024x1xf32>
  %r = tt.rsqrt %v : tensor<1024x1xf32>
  %y = tt.mul %d, %r : (tensor<1024x768xf32>, tensor<1024x1xf32>) -> tensor<1024x768xf32>
  return %y : tensor<1024x768xf32>
}

// -----

// What the normalisation computes from a row's statistics alone (here
// 1 / sqrt(var + eps), written as a division) leaves the column loop: one
// square root and one division per row, none per vector of columns.
// CHECK-LABEL: llvm.func @scale_rows
// CHECK:         llvm.intr.sqrt({{.*}}) : (vector<1xf32>) -> vector<1xf32>
// CHECK-NEXT:    llvm.fdiv {{.*}} : vector<1xf32>
// CHECK-NOT:     llvm.intr.sqrt
// CHECK-NOT:     llvm.fdiv
// CHECK:         omp.yield
func.func @scale_rows(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %one = arith.constant dense<1.0> : tensor<f32>
  %v = tt.var %x axes = [1] keepdims : tensor<256x512xf32> -> tensor<256x1xf32>
  %s = tt.sqrt %v : tensor<256x1xf32>
  %r = tt.div %one, %s : (tensor<f32>, tensor<256x1xf32>) -> tensor<256x1xf32>
  %y = tt.mul %x, %r : (tensor<256x512xf32>, tensor<256x1xf32>) -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}

// -----

// Softmax, row by row: the row of exponentials is a buffer allocated once
// per block of rows, before the row loop (hoist-buffers), and freed after
// it; the row maximum ignores the sign of zero (nsz). With
// hoist-buffers=false each row allocates and frees its own.
// CHECK-LABEL: llvm.func @softmax_loop
// CHECK:         omp.wsloop
// CHECK:         llvm.call @malloc
// CHECK:         llvm.intr.vector.reduce.fmaximum({{.*}}) {fastmathFlags = #llvm.fastmath<nsz, contract, reassoc>}
// CHECK-NOT:     llvm.call @malloc
// CHECK:         llvm.fdiv
// CHECK-NOT:     llvm.call @free
// CHECK:         llvm.br ^bb1
// CHECK:         llvm.call @free
// CHECK-NEXT:    omp.yield
// NOHOIST-LABEL: llvm.func @softmax_loop
// NOHOIST:       omp.wsloop
// NOHOIST-NOT:   llvm.call @malloc
// NOHOIST:       llvm.intr.vector.reduce.fmaximum
// NOHOIST:       llvm.call @malloc
// NOHOIST:       llvm.fdiv
// NOHOIST:       llvm.call @free
// NOHOIST-NEXT:  llvm.add
// NOHOIST-NEXT:  llvm.br ^bb1
func.func @softmax(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %m = tt.reduce_max %x axes = [1] keepdims : tensor<256x1024xf32> -> tensor<256x1xf32>
  %d = tt.sub %x, %m : (tensor<256x1024xf32>, tensor<256x1xf32>) -> tensor<256x1024xf32>
  %e = tt.exp %d : tensor<256x1024xf32>
  %s = tt.sum %e axes = [1] keepdims : tensor<256x1024xf32> -> tensor<256x1xf32>
  %y = tt.div %e, %s : (tensor<256x1024xf32>, tensor<256x1xf32>) -> tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}
