// RUN: tiny-opt %s --tt-cpu-vectorize | FileCheck %s
// RUN: tiny-opt %s --tt-lower-to-llvm=optimize=false | FileCheck %s --check-prefix=LLVM

// A rank-0 op (here what `x[0::-1]` of a 3-vector makes: one element read
// with tensor.extract) stays a scalar linalg.generic: vectorising it would
// make a vector.gather with scalar indices, which does not verify.
// CHECK-LABEL: func.func @reverse_one
// CHECK:         linalg.generic
// CHECK:           tensor.extract
// CHECK-NOT:     vector.gather
// LLVM-LABEL:  llvm.func @reverse_one
#map = affine_map<() -> ()>
func.func @reverse_one(%arg0: tensor<3xf32>) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %slice = tensor.extract_slice %arg0[0] [1] [1] : tensor<3xf32> to tensor<f32>
  %row = tensor.expand_shape %slice [] output_shape [1] : tensor<f32> into tensor<1xf32>
  %0 = tensor.empty() : tensor<f32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = []} outs(%0 : tensor<f32>) {
  ^bb0(%out: f32):
    %e = tensor.extract %row[%c0] : tensor<1xf32>
    linalg.yield %e : f32
  } -> tensor<f32>
  %2 = tensor.expand_shape %1 [] output_shape [1] : tensor<f32> into tensor<1xf32>
  return %2 : tensor<1xf32>
}
