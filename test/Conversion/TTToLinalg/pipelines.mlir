// RUN: tiny-opt %s --split-input-file --tt-optimize --mlir-print-local-scope | FileCheck %s --check-prefix=FUSE
// RUN: tiny-opt %s --split-input-file '--tt-optimize=fusion=false' --mlir-print-local-scope | FileCheck %s --check-prefix=NOFUSE
// RUN: tiny-opt %s --split-input-file '--tt-lower-to-llvm=tile=false vectorize=false' | FileCheck %s --check-prefix=LLVM \
// RUN:   --implicit-check-not=tt. --implicit-check-not=linalg. \
// RUN:   --implicit-check-not=tensor. --implicit-check-not=memref. \
// RUN:   --implicit-check-not=bufferization. --implicit-check-not=func.func \
// RUN:   --implicit-check-not=arith. --implicit-check-not=math. \
// RUN:   --implicit-check-not=scf. --implicit-check-not=cf. \
// RUN:   --implicit-check-not=affine. --implicit-check-not=unrealized_conversion_cast
// RUN: tiny-opt %s --split-input-file '--tt-lower-to-llvm=outline=false tile=false vectorize=false' | FileCheck %s --check-prefix=NOOUTLINE \
// RUN:   --implicit-check-not=_loop

// The named pipelines: --tt-optimize (canonicalise, CSE, convert, fuse) and
// --tt-lower-to-llvm (everything down to the LLVM dialect with C wrappers),
// here on the scalar path (tile=false vectorize=false; the vector path is in
// test/Codegen/CPU/pipeline.mlir).
// By default --tt-lower-to-llvm outlines each loop nest into a noinline
// function <parent>_loop[_N] (--tt-outline-loops); with outline=false the
// loops stay in their function and no _loop function exists (NOOUTLINE).

// A chain of three elementwise ops (one broadcasting) fuses into a single
// linalg.generic whose body computes all three; without fusion there are
// three generics.

// FUSE-LABEL: func.func @chain
// FUSE-SAME:    (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// FUSE:         %[[R:.*]] = linalg.generic
// FUSE-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// FUSE-SAME:      ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>)
// FUSE-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// FUSE-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// FUSE-NEXT:      %[[E:.*]] = math.exp %[[S]] : f32
// FUSE-NEXT:      %[[M:.*]] = arith.mulf %[[E]], %[[X]] : f32
// FUSE-NEXT:      linalg.yield %[[M]] : f32
// FUSE-NOT:     linalg.generic
// FUSE:         return %[[R]] : tensor<4x8xf32>

// NOFUSE-LABEL: func.func @chain
// NOFUSE-COUNT-3: linalg.generic
// NOFUSE-NOT:     linalg.generic
// NOFUSE:         return

// The fused loop nest is outlined (and exp approximated: no intrinsic call).
// LLVM-LABEL: llvm.func @chain_loop(
// LLVM-SAME:    passthrough = ["noinline"]
// LLVM-NOT:     llvm.intr.exp
// LLVM:         llvm.intr.fma
// LLVM-NOT:     llvm.intr.exp
// LLVM-LABEL: llvm.func @chain(
// LLVM-NOT:     llvm.intr.exp
// LLVM:         llvm.call @chain_loop(
// LLVM-NOT:     llvm.intr.exp
// LLVM-LABEL: llvm.func @_mlir_ciface_chain(
// LLVM:         llvm.call @chain(

// NOOUTLINE-LABEL: llvm.func @chain(
// NOOUTLINE:         llvm.intr.fma
// NOOUTLINE:         llvm.return
// NOOUTLINE-LABEL: llvm.func @_mlir_ciface_chain(
func.func @chain(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tt.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = tt.exp %0 : tensor<4x8xf32>
  %2 = tt.mul %1, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// --tt-optimize canonicalises and CSEs the tt ops before converting: the
// duplicated exp becomes one op, pow(x, 2) a multiplication, and everything
// fuses into one generic.

// FUSE-LABEL: func.func @cse_and_canonicalize
// FUSE:         linalg.generic
// FUSE-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// FUSE-NEXT:      %[[E:.*]] = math.exp %[[X]] : f32
// FUSE-NEXT:      %[[S:.*]] = arith.addf %[[E]], %[[E]] : f32
// FUSE-NEXT:      %[[SQ:.*]] = arith.mulf %[[S]], %[[S]] : f32
// FUSE-NEXT:      linalg.yield %[[SQ]] : f32
// FUSE-NOT:     linalg.generic
// FUSE-NOT:     math.powf
// FUSE:         return

// NOFUSE-LABEL: func.func @cse_and_canonicalize
// NOFUSE-COUNT-3: linalg.generic
// NOFUSE-NOT:     linalg.generic
// NOFUSE:         return

// LLVM-LABEL: llvm.func @cse_and_canonicalize(
// LLVM-LABEL: llvm.func @_mlir_ciface_cse_and_canonicalize(
func.func @cse_and_canonicalize(%a: tensor<16xf32>) -> tensor<16xf32> {
  %two = tt.constant dense<2.0> : tensor<f32>
  %0 = tt.exp %a : tensor<16xf32>
  %1 = tt.exp %a : tensor<16xf32>
  %2 = tt.add %0, %1 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %3 = tt.pow %2, %two : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  return %3 : tensor<16xf32>
}

// -----

// A module mixing contractions, gathers, reductions and calls. Public
// functions get _mlir_ciface_ wrappers, private ones do not.

// FUSE-LABEL: func.func private @helper
// FUSE-LABEL: func.func @model
// FUSE:         linalg.matmul
// FUSE:         linalg.reduce

// LLVM-LABEL: llvm.func @helper(
// LLVM-NOT:     _mlir_ciface_helper
// LLVM-LABEL: llvm.func @model_loop(
// LLVM-LABEL: llvm.func @model_loop_0(
// LLVM-LABEL: llvm.func @model(
// LLVM:         llvm.call @helper(
// LLVM:         llvm.call @model_loop(
// LLVM:         llvm.call @model_loop_0(
// LLVM-NOT:     _mlir_ciface_helper
// LLVM-LABEL: llvm.func @_mlir_ciface_model(
// LLVM:         llvm.call @model(
// LLVM-NOT:     _mlir_ciface_helper
// NOOUTLINE-LABEL: llvm.func @model(
// NOOUTLINE:         llvm.call @helper(
// NOOUTLINE-LABEL: llvm.func @_mlir_ciface_model(
func.func private @helper(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tt.tanh %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func @model(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %ids: tensor<2xi32>)
    -> (tensor<2x3xf32>, tensor<4xf32>) {
  %h = call @helper(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = tt.matmul %h, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %g = tt.gather %m[%ids] : (tensor<4x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %v = tt.var %x axes = [1] {ddof = 1 : i64} : tensor<4x8xf32> -> tensor<4xf32>
  return %g, %v : tensor<2x3xf32>, tensor<4xf32>
}

// -----

// Integer pow lowers through math.ipowi, expanded into a private helper
// function (no C wrapper) by --convert-math-to-funcs.

// LLVM-LABEL: llvm.func @pow_i32_loop(
// LLVM:         llvm.call @__mlir_math_ipowi_i32(
// LLVM-LABEL: llvm.func @pow_i32(
// LLVM:         llvm.call @pow_i32_loop(
// LLVM-LABEL: llvm.func @_mlir_ciface_pow_i32(
// LLVM-LABEL: llvm.func linkonce_odr @__mlir_math_ipowi_i32(
// LLVM-NOT:     _mlir_ciface___mlir_math_ipowi
func.func @pow_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tt.pow %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Returning an argument, or a view of one, makes the deallocation pipeline
// emit bufferization.clone, which must be lowered too (to an allocation and
// a copy).

// LLVM-LABEL: llvm.func @return_views(
// LLVM:         llvm.call @malloc(
// LLVM-LABEL: llvm.func @_mlir_ciface_return_views(
func.func @return_views(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>) {
  %0 = tt.reshape %a [6] : tensor<2x3xf32> -> tensor<6xf32>
  return %a, %0 : tensor<2x3xf32>, tensor<6xf32>
}
