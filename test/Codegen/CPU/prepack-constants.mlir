// Constant weights (`tt.constant`) packed whole once: --tt-cpu-prepack-constants
// makes the packing calls and hands the packed copies to private functions,
// --tt-cpu-tile-and-fuse reads their panels, --tt-cpu-prepare-constants moves
// the packing into <name>_tt_prepare.
// RUN: tiny-opt %s --split-input-file --tt-cpu-prepack-constants=vector-bits=512 | FileCheck %s --check-prefix=PACK
// RUN: tiny-opt %s --split-input-file --tt-cpu-prepack-constants=vector-bits=512 --tt-cpu-tile-and-fuse=vector-bits=512 --canonicalize | FileCheck %s --check-prefix=TILE
// RUN: tiny-opt %s --split-input-file --tt-cpu-prepack-constants=vector-bits=512 --tt-cpu-tile-and-fuse=vector-bits=512 --canonicalize --tt-cpu-prepare-constants --canonicalize | FileCheck %s --check-prefix=PREP
// RUN: tiny-opt %s --split-input-file --tt-cpu-prepack-constants=vector-bits=512 --tt-cpu-tile-and-fuse="vector-bits=512 prepack=false" --canonicalize | FileCheck %s --check-prefix=OFF
// RUN: tiny-opt %s --split-input-file --tt-cpu-prepack-constants=vector-bits=512 --tt-cpu-tile-and-fuse="vector-bits=512 prefetch=false" --canonicalize | FileCheck %s --check-prefix=NOPF
// The pipelines: on by default, prepack=false turns it off.
// RUN: tiny-opt %s --split-input-file --tt-lower-to-llvm="vector-bits=512 optimize=false" | FileCheck %s --check-prefix=LLVM
// RUN: tiny-opt %s --split-input-file --tt-lower-to-llvm="vector-bits=512 optimize=false prepack=false" | FileCheck %s --check-prefix=NOPREP

// A layer called with two constant weights: each caller packs its weight
// once (200 columns: 4 strips of 64, the last padded) and passes it in.
// PACK-LABEL: func.func private @layer
// PACK-SAME: %{{.*}}: tensor<4x96x64xf32> {tt.packed = {arg = 1 : index, transposed = false, width = 64 : index}}
// PACK-LABEL: func.func @main
// PACK-DAG: %[[P1:.*]] = call @tt_pack_96x200xf32_64(%arg1, %{{.*}}) {tt.packed = {arg = 1 : index
// PACK-DAG: %[[P2:.*]] = call @tt_pack_96x200xf32_64(%arg2, %{{.*}}) {tt.packed = {arg = 2 : index
// PACK: call @layer(%arg0, %arg1, %[[P1]])
// PACK: call @layer(%arg0, %arg2, %[[P2]])
// PACK-LABEL: func.func private @tt_pack_96x200xf32_64
// PACK-SAME: attributes {tt.whole_pack}
// PACK: linalg.fill
// PACK: tensor.insert_slice %arg0 into %{{.*}}[0, 0] [96, 200]
// PACK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [96, 4, 64]
// PACK: linalg.transpose ins(%{{.*}} : tensor<96x4x64xf32>) outs(%arg1 : tensor<4x96x64xf32>) permutation = [1, 0, 2]

// The layer's register tiles read strips of the packed argument; nothing is
// copied per panel.
// TILE-LABEL: func.func private @layer
// TILE-NOT: linalg.copy
// TILE: tensor.extract_slice %arg2[%{{.*}}, 0, 0] [%{{.*}}, 96, 64] [1, 1, 1] : tensor<4x96x64xf32> to tensor<?x96x64xf32>
// TILE: linalg.matmul
// TILE-LABEL: func.func @main

// PREP-DAG: memref.global "private" @main_tt_prepared_0 : memref<4x96x64xf32> = uninitialized {alignment = 64 : i64}
// PREP-DAG: memref.global "private" @main_tt_prepared_1 : memref<4x96x64xf32> = uninitialized {alignment = 64 : i64}
// PREP-LABEL: func.func @main_tt_prepare
// PREP-SAME: (%arg0: tensor<96x200xf32>, %arg1: tensor<96x200xf32>)
// PREP-DAG: call @tt_pack_96x200xf32_64(%arg0
// PREP-DAG: call @tt_pack_96x200xf32_64(%arg1
// PREP-DAG: bufferization.materialize_in_destination %{{.*}} in restrict writable %{{.*}}
// PREP: return
// PREP-LABEL: func.func @main
// PREP-SAME: attributes {tt.prepare = @main_tt_prepare}
// PREP-NOT: call @tt_pack
// PREP-DAG: memref.get_global @main_tt_prepared_0
// PREP-DAG: memref.get_global @main_tt_prepared_1
// PREP-DAG: bufferization.to_tensor %{{.*}} restrict : memref<4x96x64xf32>
// PREP: call @layer(%arg0, %arg{{[12]}}, %{{.*}})

// OFF-LABEL: func.func private @layer
// OFF: linalg.copy
// OFF-NOT: tensor.extract_slice %arg2

// LLVM: llvm.mlir.global private @main_tt_prepared_0
// LLVM: llvm.func @_mlir_ciface_main_tt_prepare
// NOPREP-NOT: tt_prepare
// NOPREP-NOT: tt_pack

func.func private @layer(%x: tensor<16x96xf32>, %w: tensor<96x200xf32>) -> tensor<16x200xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x200xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x200xf32>) -> tensor<16x200xf32>
  %r = linalg.matmul ins(%x, %w : tensor<16x96xf32>, tensor<96x200xf32>) outs(%f : tensor<16x200xf32>) -> tensor<16x200xf32>
  return %r : tensor<16x200xf32>
}
func.func @main(%x: tensor<16x96xf32>, %w1: tensor<96x200xf32> {tt.constant}, %w2: tensor<96x200xf32> {tt.constant}) -> (tensor<16x200xf32>, tensor<16x200xf32>) {
  %a = call @layer(%x, %w1) : (tensor<16x96xf32>, tensor<96x200xf32>) -> tensor<16x200xf32>
  %b = call @layer(%x, %w2) : (tensor<16x96xf32>, tensor<96x200xf32>) -> tensor<16x200xf32>
  return %a, %b : tensor<16x200xf32>, tensor<16x200xf32>
}

// -----

// x @ w.T of a constant w in the function itself: packed by a call in the
// function, the strips transposed while packed (1003 rows: 16 strips).
// PACK-LABEL: func.func @logits
// PACK: call @tt_pack_1003x96xf32_64_t(%arg1, %{{.*}}) {tt.packed = {arg = 1 : index, transposed = true, width = 64 : index}}
// A float64 x float32 matmul reads its weights packed whole and converted
// to float64 (strips of 32 float64 columns, 7 strips for 200 columns).
// PACK-LABEL: func.func @mixed
// PACK: call @tt_pack_96x200xf32_32_to_f64(%arg1, %{{.*}}) {tt.packed = {arg = 1 : index, convert_to = f64, transposed = false, width = 32 : index}} : (tensor<96x200xf32>, tensor<7x96x32xf64>) -> tensor<7x96x32xf64>
// PACK-LABEL: func.func private @tt_pack_1003x96xf32_64_t
// PACK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [16, 64, 96]
// PACK: linalg.transpose ins(%{{.*}} : tensor<16x64x96xf32>) outs(%arg1 : tensor<16x96x64xf32>) permutation = [0, 2, 1]
// The converting pack: transposed in float32, then converted.
// PACK-LABEL: func.func private @tt_pack_96x200xf32_32_to_f64
// PACK: linalg.transpose ins(%{{.*}} : tensor<96x7x32xf32>) outs(%{{.*}} : tensor<7x96x32xf32>) permutation = [1, 0, 2]
// PACK: linalg.generic
// PACK-SAME: outs(%arg1 : tensor<7x96x32xf64>)
// PACK: arith.extf %{{.*}} : f32 to f64
// TILE-LABEL: func.func @logits
// TILE: tensor.extract_slice %{{.*}}[%{{.*}}, 0, 0] [%{{.*}}, 96, 64] [1, 1, 1] : tensor<16x96x64xf32> to tensor<?x96x64xf32>
// TILE-NOT: linalg.transpose
// The register tiles read float64 strips: no conversion left in them.
// TILE-LABEL: func.func @mixed
// TILE: tensor.extract_slice %{{.*}} : tensor<7x96x32xf64> to tensor<?x96x32xf64>
// TILE-NOT: arith.extf
// TILE: return
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @logits(%x: tensor<128x96xf32>, %w: tensor<1003x96xf32> {tt.constant}) -> tensor<128x1003xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x1003xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x1003xf32>) -> tensor<128x1003xf32>
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<128x96xf32>, tensor<1003x96xf32>) outs(%f : tensor<128x1003xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<128x1003xf32>
  return %r : tensor<128x1003xf32>
}
func.func @mixed(%x: tensor<64x96xf64>, %w: tensor<96x200xf32> {tt.constant}) -> tensor<64x200xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<64x200xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<64x200xf64>) -> tensor<64x200xf64>
  %r = linalg.generic {indexing_maps = [#a, affine_map<(m, n, k) -> (k, n)>, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<64x96xf64>, tensor<96x200xf32>) outs(%f : tensor<64x200xf64>) {
  ^bb0(%p: f64, %q: f32, %o: f64):
    %qq = arith.extf %q : f32 to f64
    %m = arith.mulf %p, %qq : f64
    %s = arith.addf %o, %m : f64
    linalg.yield %s : f64
  } -> tensor<64x200xf64>
  return %r : tensor<64x200xf64>
}

// -----

// A buffer of a constant argument (a gather's table) stays in the function;
// the packed weights still move to the prepare function.
// PREP-LABEL: func.func @gather_tt_prepare
// PREP: call @tt_pack_96x200xf32_64
// PREP-LABEL: func.func @gather
// PREP-SAME: tt.prepare = @gather_tt_prepare
// PREP: %[[B:.*]] = bufferization.to_buffer %arg2 read_only
// PREP: memref.copy %[[B]], %arg3
func.func @gather(%x: tensor<130x96xf32>, %w: tensor<96x200xf32> {tt.constant}, %table: tensor<7xf32> {tt.constant}, %out: memref<7xf32>) -> tensor<130x200xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<130x200xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<130x200xf32>) -> tensor<130x200xf32>
  %r = linalg.matmul ins(%x, %w : tensor<130x96xf32>, tensor<96x200xf32>) outs(%f : tensor<130x200xf32>) -> tensor<130x200xf32>
  %b = bufferization.to_buffer %table read_only : tensor<7xf32> to memref<7xf32>
  memref.copy %b, %out : memref<7xf32> to memref<7xf32>
  return %r : tensor<130x200xf32>
}

// -----

// A static float64 x float32 layer (blocks of 64 columns, 2 strips of 32
// each): the register tiles of a strip prefetch the next strip of the
// packed copy, two cache lines per iteration of their reduction loop
// (96 rows x 4 lines of the strip over 11 row tiles x 24 steps), rows
// clamped to the strip's and B's last; prefetch=false turns it off.
// TILE-LABEL: func.func @strips
// TILE: %[[PACKED:.*]] = call @tt_pack_96x512xf32_32_to_f64
// TILE: %[[BUF:.*]] = bufferization.to_buffer %[[PACKED]] read_only : tensor<16x96x32xf64>
// TILE: scf.forall
// TILE: scf.for
// TILE: scf.for
// TILE: memref.prefetch %[[BUF]][%{{.*}}, %{{.*}}, %{{.*}}], read, locality<2>, data
// TILE: memref.prefetch %[[BUF]][%{{.*}}, %{{.*}}, %{{.*}}], read, locality<2>, data
// TILE-NOT: memref.prefetch
// TILE: linalg.generic
// NOPF-LABEL: func.func @strips
// NOPF-NOT: memref.prefetch
// NOPF: return
func.func @strips(%x: tensor<64x96xf64>, %w: tensor<96x512xf32> {tt.constant}) -> tensor<64x512xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<64x512xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<64x512xf64>) -> tensor<64x512xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<64x96xf64>, tensor<96x512xf32>) outs(%f : tensor<64x512xf64>) {
  ^bb0(%p: f64, %q: f32, %o: f64):
    %qq = arith.extf %q : f32 to f64
    %m = arith.mulf %p, %qq : f64
    %s = arith.addf %o, %m : f64
    linalg.yield %s : f64
  } -> tensor<64x512xf64>
  return %r : tensor<64x512xf64>
}

// -----

// 500 columns: every column block is partial (its width only bounded by
// 64), so the loops over its strips have dynamic upper bounds; their row
// tiles still prefetch the next strip (the bound of the loop, one strip of
// 32 columns, gives its trip count).
// TILE-LABEL: func.func @partial_strips
// TILE: %[[BUF:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<16x96x32xf64>
// TILE: scf.forall
// TILE: affine.min
// TILE: memref.prefetch %[[BUF]]
// TILE: linalg.generic
// TILE: %[[W:.*]] = tensor.dim %{{.*}}, %c1 : tensor<96x?xf64>
// TILE: %[[FULL:.*]] = affine.apply #{{.*}}()[%[[W]]]
// TILE: scf.for %{{.*}} = %c0 to %[[FULL]] step %c32
// TILE: scf.for %{{.*}} = %c0 to %c60 step %c6
// TILE: scf.for %{{.*}} = %c0 to %c96 step %c4
// TILE: memref.prefetch %[[BUF]]
// NOPF-LABEL: func.func @partial_strips
// NOPF-NOT: memref.prefetch
// NOPF: return
func.func @partial_strips(%x: tensor<64x96xf64>, %w: tensor<96x500xf32> {tt.constant}) -> tensor<64x500xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<64x500xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<64x500xf64>) -> tensor<64x500xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<64x96xf64>, tensor<96x500xf32>) outs(%f : tensor<64x500xf64>) {
  ^bb0(%p: f64, %q: f32, %o: f64):
    %qq = arith.extf %q : f32 to f64
    %m = arith.mulf %p, %qq : f64
    %s = arith.addf %o, %m : f64
    linalg.yield %s : f64
  } -> tensor<64x500xf64>
  return %r : tensor<64x500xf64>
}

// -----

// With fewer than 32 rows a float64 copy of float32 weights costs more to
// read than converting them while packing each panel: no whole copy, the
// register tiles' panels are packed (and converted) at every call.
// PACK-LABEL: func.func @mixed_few_rows
// PACK-NOT: call @tt_pack
// PACK: return
// TILE-LABEL: func.func @mixed_few_rows
// TILE-NOT: call @tt_pack
// TILE: arith.extf %{{.*}} : f32 to f64
// TILE: return
func.func @mixed_few_rows(%x: tensor<31x96xf64>, %w: tensor<96x200xf32> {tt.constant}) -> tensor<31x200xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<31x200xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<31x200xf64>) -> tensor<31x200xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<31x96xf64>, tensor<96x200xf32>) outs(%f : tensor<31x200xf64>) {
  ^bb0(%p: f64, %q: f32, %o: f64):
    %qq = arith.extf %q : f32 to f64
    %m = arith.mulf %p, %qq : f64
    %s = arith.addf %o, %m : f64
    linalg.yield %s : f64
  } -> tensor<31x200xf64>
  return %r : tensor<31x200xf64>
}
