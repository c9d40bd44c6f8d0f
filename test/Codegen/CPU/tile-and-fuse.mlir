// RUN: tiny-opt %s --split-input-file --tt-optimize --tt-cpu-tile-and-fuse=vector-bits=512 --canonicalize | FileCheck %s
// RUN: tiny-opt %s --split-input-file --tt-optimize '--tt-cpu-tile-and-fuse=vector-bits=512 fuse=false' --canonicalize | FileCheck %s --check-prefix=NOFUSE
// RUN: tiny-opt %s --split-input-file --tt-optimize '--tt-cpu-tile-and-fuse=vector-bits=512 peel=false' --canonicalize | FileCheck %s --check-prefix=NOPEEL
// RUN: tiny-opt %s --split-input-file --tt-optimize '--tt-cpu-tile-and-fuse=vector-bits=512 pack=false' --canonicalize | FileCheck %s --check-prefix=NOPACK
// RUN: tiny-opt %s --split-input-file --tt-optimize '--tt-cpu-tile-and-fuse=vector-bits=512 fuse-rows=false' --canonicalize | FileCheck %s --check-prefix=NOROWS
// RUN: tiny-opt %s --split-input-file --tt-optimize '--tt-cpu-tile-and-fuse=vector-bits=512 register-fill=false' --canonicalize | FileCheck %s --check-prefix=NOFILL
// RUN: tiny-opt %s --split-input-file --tt-optimize '--tt-cpu-tile-and-fuse=vector-bits=512 prefetch=false' --canonicalize | FileCheck %s --check-prefix=NOPREFETCH
// RUN: tiny-opt %s --split-input-file --tt-optimize '--tt-cpu-tile-and-fuse=vector-bits=512 l2-kib=2048' --canonicalize | FileCheck %s --check-prefix=L2

// A matmul with a bias + tanh epilogue: one scf.forall over [64 x 128]
// blocks of C holds the [96 x 128] panel of B copied into two contiguous
// strips of 64 columns (packed, [2 x 96 x 64]; [kc] is the whole K = 96
// here; a row of B at a time, each row into both strips), the
// register-tiled matmul (strips of 64 columns outermost, each read from its
// packed strip, then rows of 6 with a last tile of 4, then K in steps of 4)
// and the epilogue, a row of 64 at a time. No cache block splits K, so the
// zero fill of C is fused down to the register tiles (register-fill): each
// [6 x 64] tile is filled just before its K loop, and vectorisation makes
// that the accumulators' zeros.

// CHECK-LABEL: func.func @linear_tanh
// CHECK:         scf.forall (%{{.*}}) = (0) to (1024) step (128)
// CHECK-NOT:       linalg.fill {{.*}} tensor<64x128xf32>
// CHECK:           %[[EMPTY:.+]] = tensor.empty() : tensor<2x96x64xf32>
// CHECK:           %[[PACKED:.+]] = scf.for {{.*}} = %c0 to %c96 step %c1 iter_args({{.*}} = %[[EMPTY]]) -> (tensor<2x96x64xf32>)
// CHECK:             scf.for {{.*}} = %c0 to %c128 step %c64 {{.*}} -> (tensor<2x96x64xf32>)
// CHECK:               linalg.copy ins({{.*}} : tensor<1x64xf32>)
// CHECK:           scf.for %[[J:.+]] = %c0 to %c128 step %c64
// CHECK:             %[[S:.+]] = affine.apply {{.*}}(%[[J]])
// CHECK:             %[[STRIP:.+]] = tensor.extract_slice %[[PACKED]][%[[S]], 0, 0] [1, 96, 64] [1, 1, 1] : tensor<2x96x64xf32> to tensor<96x64xf32>
// CHECK:             scf.for {{.*}} = %c0 to %c60 step %c6
// CHECK:               linalg.fill {{.*}} -> tensor<6x64xf32>
// CHECK:               scf.for {{.*}} = %c0 to %c96 step %c4
// CHECK:                 tensor.extract_slice %[[STRIP]]
// CHECK:                 linalg.matmul ins({{.*}} : tensor<6x4xf32>, tensor<4x64xf32>) outs({{.*}} : tensor<6x64xf32>)
// CHECK:             linalg.fill {{.*}} -> tensor<4x64xf32>
// CHECK:             scf.for {{.*}} = %c0 to %c96 step %c4
// CHECK:               linalg.matmul ins({{.*}} : tensor<4x4xf32>, tensor<4x64xf32>) outs({{.*}} : tensor<4x64xf32>)
// CHECK:           linalg.generic {{.*}} outs({{.*}} : tensor<1x64xf32>)
// CHECK:             math.tanh
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     scf.forall
// CHECK-NOT:     linalg.matmul
// CHECK:         return

// register-fill=false: the block's C is filled first, a row of 64 at a
// time, and the register tiles read it.
// NOFILL-LABEL: func.func @linear_tanh
// NOFILL:         scf.forall
// NOFILL:           linalg.fill {{.*}} tensor<1x64xf32>
// NOFILL:           scf.for {{.*}} = %c0 to %c60 step %c6
// NOFILL-NOT:         linalg.fill
// NOFILL:             scf.for {{.*}} = %c0 to %c96 step %c4

// Without fusion the matmul and the epilogue are separate parallel loops.
// NOFUSE-LABEL: func.func @linear_tanh
// NOFUSE-COUNT-2: scf.forall

// Without packing the register tiles read B where it is.
// NOPACK-LABEL: func.func @linear_tanh
// NOPACK-NOT:     linalg.copy
// NOPACK:         linalg.matmul
// NOPACK-NOT:     linalg.copy
func.func @linear_tanh(%x: tensor<64x96xf32>, %w: tensor<96x1024xf32>, %b: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %0 = tt.matmul %x, %w : (tensor<64x96xf32>, tensor<96x1024xf32>) -> tensor<64x1024xf32>
  %1 = tt.add %0, %b : (tensor<64x1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>
  %2 = tt.tanh %1 : tensor<64x1024xf32>
  return %2 : tensor<64x1024xf32>
}

// -----

// A producer of a matmul operand is not fused into the matmul's blocks:
// every column block would recompute it. The exp stays its own loop.
// CHECK-LABEL: func.func @no_recompute
// CHECK:         math.exp
// CHECK:         scf.forall
// CHECK-NOT:       math.exp
// CHECK:           linalg.matmul
func.func @no_recompute(%x: tensor<64x256xf32>, %w: tensor<256x1024xf32>) -> tensor<64x1024xf32> {
  %e = tt.exp %x : tensor<64x256xf32>
  %0 = tt.matmul %e, %w : (tensor<64x256xf32>, tensor<256x1024xf32>) -> tensor<64x1024xf32>
  return %0 : tensor<64x1024xf32>
}

// -----

// Sizes the tiles do not divide: the register loops are peeled, so the main
// loops see full static tiles (6 rows, K in steps of 4) and the last
// iteration a smaller static one (1 row, 1 step of K).
// CHECK-LABEL: func.func @matmul_odd
// CHECK:         scf.for {{.*}} = %c0 to %c36 step %c6
// CHECK:           scf.for {{.*}} = %c0 to %c52 step %c4
// CHECK:             linalg.matmul ins({{.*}} : tensor<6x4xf32>, tensor<4x29xf32>)
// CHECK:           linalg.matmul ins({{.*}} : tensor<6x1xf32>, tensor<1x29xf32>)
// CHECK:         scf.for {{.*}} = %c0 to %c52 step %c4
// CHECK:           linalg.matmul ins({{.*}} : tensor<1x4xf32>, tensor<4x29xf32>)
// CHECK:         linalg.matmul ins({{.*}} : tensor<1x1xf32>, tensor<1x29xf32>)

// NOPEEL-LABEL: func.func @matmul_odd
// NOPEEL:         scf.for {{.*}} = %c0 to %c37 step %c6
// NOPEEL:           affine.min
// NOPEEL:           linalg.matmul ins({{.*}} : tensor<?x?xf32>, tensor<?x29xf32>)
func.func @matmul_odd(%a: tensor<37x53xf32>, %b: tensor<53x29xf32>) -> tensor<37x29xf32> {
  %r = tt.matmul %a, %b : (tensor<37x53xf32>, tensor<53x29xf32>) -> tensor<37x29xf32>
  return %r : tensor<37x29xf32>
}

// -----

// Row reductions feeding elementwise consumers (softmax): one scf.forall
// over blocks of 32 rows holds all four ops, each a row at a time: the max
// (computed once, although both the exponentials and the sum depend on it),
// exp(x - max), the sum (accumulated in f64, rounded to f32 once per row)
// and the division.
// CHECK-LABEL: func.func @softmax
// CHECK:         scf.forall (%{{.*}}) = (0) to (1024) step (32)
// CHECK:           linalg.reduce ins({{.*}} : tensor<1x1024xf32>) outs({{.*}} : tensor<1xf32>)
// CHECK:             arith.maximumf
// CHECK:           linalg.generic {{.*}} outs({{.*}} : tensor<1x64xf32>)
// CHECK:             math.exp
// CHECK:           linalg.reduce ins({{.*}} : tensor<1x1024xf32>) outs({{.*}} : tensor<1xf64>)
// CHECK:           linalg.generic {{.*}} outs({{.*}} : tensor<1xf32>)
// CHECK:             arith.truncf
// CHECK:           linalg.generic {{.*}} outs({{.*}} : tensor<1x64xf32>)
// CHECK:             arith.divf
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     arith.maximumf
// CHECK:         return

func.func @softmax(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %m = tt.reduce_max %x axes = [1] keepdims : tensor<1024x1024xf32> -> tensor<1024x1xf32>
  %d = tt.sub %x, %m : (tensor<1024x1024xf32>, tensor<1024x1xf32>) -> tensor<1024x1024xf32>
  %e = tt.exp %d : tensor<1024x1024xf32>
  %s = tt.sum %e axes = [1] keepdims : tensor<1024x1024xf32> -> tensor<1024x1xf32>
  %y = tt.div %e, %s : (tensor<1024x1024xf32>, tensor<1024x1xf32>) -> tensor<1024x1024xf32>
  return %y : tensor<1024x1024xf32>
}

// -----

// Layer norm: mean, x - mean, variance and the normalisation in one
// scf.forall over row blocks (the fusion set is found as a fixpoint: the
// mean and x - mean each feed two consumers). Inside, the block is walked
// a row at a time with all four ops fused in (fuse-rows), so a row is read
// from memory once and stays in L1; the squared deviations, used only by
// the variance, are merged into its body rather than written to a buffer.
// The mean and the reciprocal standard deviation are finished once per
// row, not in the normalisation's body.
// CHECK-LABEL: func.func @layer_norm
// CHECK:         scf.forall (%{{.*}}) = (0) to (1024) step (64)
// CHECK:           scf.for {{.*}} = %c0 to %c64 step %c1 {{.*}} -> (tensor<64x768xf32>)
// CHECK:             %[[SUM:.+]] = linalg.reduce ins({{.*}} : tensor<1x768xf32>) outs({{.*}} : tensor<1xf64>)
// CHECK:             %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<1xf64>)
// CHECK:               arith.truncf
// CHECK:             %[[VAR:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins({{.*}}, %[[MEAN]] : tensor<1x768xf32>, tensor<1xf32>)
// CHECK:               arith.subf
// CHECK:               arith.mulf
// CHECK:               arith.extf
// CHECK:               arith.addf
// CHECK:             %[[RSTD:.+]] = linalg.generic {{.*}} ins(%[[VAR]] : tensor<1xf64>)
// CHECK:               math.rsqrt
// CHECK:             scf.for {{.*}} = %c0 to %c768 step %c64
// CHECK:               linalg.generic {{.*}} ins({{.*}}, %[[MEAN]], %[[RSTD]] : tensor<1x64xf32>, tensor<1xf32>, tensor<1xf32>)
// CHECK-NOT:             math.rsqrt
// CHECK-NOT:     scf.forall (
// CHECK:         return
// Without fuse-rows each op walks the whole block in turn: the mean, then
// the squared deviations in the variance's row loop, then the output.
// NOROWS-LABEL: func.func @layer_norm
// NOROWS:         scf.forall (%{{.*}}) = (0) to (1024) step (64)
// NOROWS:           linalg.reduce ins({{.*}} : tensor<1x768xf32>) outs({{.*}} : tensor<1xf64>)
// NOROWS:           scf.for {{.*}} = %c0 to %c64 step %c1 {{.*}} -> (tensor<64xf64>)
// NOROWS:             %[[SQ:.+]] = linalg.generic
// NOROWS:               arith.mulf
// NOROWS:             } -> tensor<1x768xf32>
// NOROWS:             linalg.reduce ins(%[[SQ]] : tensor<1x768xf32>) outs({{.*}} : tensor<1xf64>)
// NOROWS:           scf.for {{.*}} -> (tensor<64xf32>)
// NOROWS:             math.rsqrt
// NOROWS:           scf.for {{.*}} -> (tensor<64x768xf32>)
// NOROWS-NOT:         math.rsqrt
// NOROWS:           scf.forall.in_parallel
func.func @layer_norm(%x: tensor<1024x768xf32>) -> tensor<1024x768xf32> {
  %m = tt.mean %x axes = [1] keepdims : tensor<1024x768xf32> -> tensor<1024x1xf32>
  %d = tt.sub %x, %m : (tensor<1024x768xf32>, tensor<1024x1xf32>) -> tensor<1024x768xf32>
  %v = tt.var %x axes = [1] keepdims : tensor<1024x768xf32> -> tensor<1024x1xf32>
  %r = tt.rsqrt %v : tensor<1024x1xf32>
  %y = tt.mul %d, %r : (tensor<1024x768xf32>, tensor<1024x1xf32>) -> tensor<1024x768xf32>
  return %y : tensor<1024x768xf32>
}

// -----

// x @ w.T (B laid out [n, k]) with many rows: each [kc x nc] panel of B
// (kc = 384, the block of at most 512 that divides K = 768) is transposed
// back to [k, n] strips while it is packed ([16 x 16] blocks), and the
// register tiles are those of a plain matmul.
// CHECK-LABEL: func.func @transposed_packed
// CHECK:         scf.forall (%{{.*}}) = (0) to (512) step (64)
// CHECK:           scf.for {{.*}} = %c0 to %c768 step %c384
// CHECK:             tensor.empty() : tensor<1x384x64xf32>
// CHECK:             scf.for {{.*}} step %c16
// CHECK:               scf.for {{.*}} step %c16
// CHECK:                 linalg.transpose ins({{.*}} : tensor<16x16xf32>) {{.*}} permutation = [1, 0]
// CHECK:             scf.for {{.*}} step %c6
// CHECK:               scf.for {{.*}} step %c4
// CHECK:                 linalg.generic {{.*}} ins({{.*}} : tensor<6x4xf32>, tensor<4x64xf32>)

// Without packing, the same as dot products (below).
// NOPACK-LABEL: func.func @transposed_packed
// NOPACK-NOT:     linalg.transpose
// NOPACK:         linalg.reduce ins({{.*}} : tensor<4x4x16xf32>)
func.func @transposed_packed(%x: tensor<128x768xf32>, %w: tensor<512x768xf32>) -> tensor<128x512xf32> {
  %wt = tt.transpose %w [1, 0] : tensor<512x768xf32> -> tensor<768x512xf32>
  %0 = tt.matmul %x, %wt : (tensor<128x768xf32>, tensor<768x512xf32>) -> tensor<128x512xf32>
  return %0 : tensor<128x512xf32>
}

// -----

// With few rows (a logits layer over 16 tokens) B is read far more than it
// is reused: register tiles of 4 x 4 dot products along B's contiguous rows,
// whose reduction is split into lanes: a [4 x 4 x 16] accumulator carried
// through the K loop (multiply-adds marked contractible into FMAs), then one
// reduction over the 16 lanes. B (a function argument) is read where it
// is, so each of the four row tiles of a column tile [j, j + 4) prefetches,
// in its K loop, one of the rows the next column tile reads: row
// j + 4 + i / 4 for the row tile at i (at most B's last row, 511).
// CHECK-LABEL: func.func @dot_products
// CHECK:         %[[W:.*]] = bufferization.to_buffer %arg1 read_only
// CHECK:         scf.forall (%[[J:.*]]) = (0) to (512) step (64)
// CHECK:           scf.for %[[JT:.*]] = {{.*}} step %c4
// CHECK:             scf.for %[[I:.*]] = {{.*}} step %c4
// CHECK:               %[[ROW:.*]] = affine.apply #{{.*}}()[%[[I]], %[[JT]], %[[J]]]
// CHECK:               %[[LAST:.*]] = arith.minsi %[[ROW]], %c511
// CHECK:               linalg.fill {{.*}} tensor<4x4x16xf32>
// CHECK:               scf.for %[[K:.*]] = %c0 to %c768 step %c16 {{.*}} -> (tensor<4x4x16xf32>)
// CHECK-NEXT:            memref.prefetch %[[W]][%[[LAST]], %[[K]]], read, locality<3>, data
// CHECK-NOT:             memref.prefetch
// CHECK:                 linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]{{.*}} ins({{.*}} : tensor<4x16xf32>, tensor<4x16xf32>) outs({{.*}} : tensor<4x4x16xf32>)
// CHECK:                   arith.mulf {{.*}} fastmath<contract>
// CHECK:                   arith.addf {{.*}} fastmath<contract>
// CHECK:               linalg.reduce ins({{.*}} : tensor<4x4x16xf32>) outs({{.*}} : tensor<4x4xf32>) dimensions = [2]
// NOPREFETCH-LABEL: func.func @dot_products
// NOPREFETCH-NOT:     bufferization.to_buffer
// NOPREFETCH-NOT:     memref.prefetch
// NOPREFETCH:         linalg.reduce
func.func @dot_products(%x: tensor<16x768xf32>, %w: tensor<512x768xf32>) -> tensor<16x512xf32> {
  %wt = tt.transpose %w [1, 0] : tensor<512x768xf32> -> tensor<768x512xf32>
  %0 = tt.matmul %x, %wt : (tensor<16x768xf32>, tensor<768x512xf32>) -> tensor<16x512xf32>
  return %0 : tensor<16x512xf32>
}

// -----

// With 8 rows (two row tiles) each row tile prefetches two rows of the next
// column tile, j + 4 + (i / 4) * 2 and one past it, in a K loop of 8 float64
// lanes (f64 x f32, the GPT-2 logits over 8 tokens).
// CHECK:       #[[FIRST:.*]] = affine_map<()[s0, s1, s2] -> (s1 + s2 + (s0 floordiv 4) * 2 + 4)>
// CHECK:       #[[SECOND:.*]] = affine_map<()[s0, s1, s2] -> (s1 + s2 + (s0 floordiv 4) * 2 + 5)>
// CHECK-LABEL: func.func @dot_products_mixed
// CHECK:         %[[W:.*]] = bufferization.to_buffer %arg1 read_only
// CHECK:             scf.for %[[I:.*]] = %c0 to %c8 step %c4
// CHECK:               affine.apply #[[FIRST]]()[%[[I]],
// CHECK:               affine.apply #[[SECOND]]()[%[[I]],
// CHECK:               scf.for %[[K:.*]] = %c0 to %c768 step %c8
// CHECK-NEXT:            memref.prefetch %[[W]][%{{.*}}, %[[K]]]
// CHECK-NEXT:            memref.prefetch %[[W]][%{{.*}}, %[[K]]]
// CHECK:                 arith.extf
// With B computed (exp(w), fused into the tiles) nothing is prefetched.
// CHECK-LABEL: func.func @dot_products_computed
// CHECK-NOT:     memref.prefetch
// CHECK:         linalg.reduce
func.func @dot_products_mixed(%x: tensor<8x768xf64>, %w: tensor<1000x768xf32>) -> tensor<8x1000xf64> {
  %wt = tt.transpose %w [1, 0] : tensor<1000x768xf32> -> tensor<768x1000xf32>
  %wc = tt.cast %wt to f64 : tensor<768x1000xf32> -> tensor<768x1000xf64>
  %0 = tt.matmul %x, %wc : (tensor<8x768xf64>, tensor<768x1000xf64>) -> tensor<8x1000xf64>
  return %0 : tensor<8x1000xf64>
}
func.func @dot_products_computed(%x: tensor<16x768xf32>, %w: tensor<512x768xf32>) -> tensor<16x512xf32> {
  %e = tt.exp %w : tensor<512x768xf32>
  %wt = tt.transpose %e [1, 0] : tensor<512x768xf32> -> tensor<768x512xf32>
  %0 = tt.matmul %x, %wt : (tensor<16x768xf32>, tensor<768x512xf32>) -> tensor<16x512xf32>
  return %0 : tensor<16x512xf32>
}

// -----

// 4097 columns in blocks of 256: the last block is partial, so inside the
// scf.forall the block's size is dynamic (at most 256), and so is the
// number of packed strips. The register tiles are chosen from that bound
// and the peeled main loops still see full static [6 x 64] tiles; the last
// strip is [6 x ?] (vectorised with masks later).
// CHECK-LABEL: func.func @partial_block
// CHECK:         scf.forall (%{{.*}}) = (0) to (4097) step (256)
// CHECK:           tensor.empty(%{{.*}}) : tensor<?x384x64xf32>
// CHECK:           linalg.copy ins({{.*}} : tensor<1x64xf32>)
// CHECK:           linalg.matmul ins({{.*}} : tensor<6x4xf32>, tensor<4x64xf32>) outs({{.*}} : tensor<6x64xf32>)
// CHECK:           linalg.matmul ins({{.*}} : tensor<6x4xf32>, tensor<4x?xf32>) outs({{.*}} : tensor<6x?xf32>)
func.func @partial_block(%x: tensor<64x768xf32>, %w: tensor<768x4097xf32>) -> tensor<64x4097xf32> {
  %0 = tt.matmul %x, %w : (tensor<64x768xf32>, tensor<768x4097xf32>) -> tensor<64x4097xf32>
  return %0 : tensor<64x4097xf32>
}

// -----

// 2304 columns in blocks of 256 would be 9 blocks, one more for one of two
// threads than for the other: blocks of 128 make 18.
// CHECK-LABEL: func.func @odd_blocks
// CHECK:         scf.forall (%{{.*}}) = (0) to (2304) step (128)
// CHECK:           tensor.empty() : tensor<2x96x64xf32>
func.func @odd_blocks(%x: tensor<64x96xf32>, %w: tensor<96x2304xf32>) -> tensor<64x2304xf32> {
  %0 = tt.matmul %x, %w : (tensor<64x96xf32>, tensor<96x2304xf32>) -> tensor<64x2304xf32>
  return %0 : tensor<64x2304xf32>
}

// -----

// A panel of B is packed once per reduction block and reused by every row
// block of the thread's block of C: the row-block loop is inside the K
// loop, after the copy. With 512 rows or more, blocks are 256 rows by 128
// columns (fewer rows: 128 by 256, as in @partial_block), and the
// reduction block is as deep as a [kc x 128] panel in half of L2 allows:
// 1024 with the default 1 MiB, so K = 2048 is two blocks, C is filled
// first and the register tiles accumulate into it.
// CHECK-LABEL: func.func @row_blocks
// CHECK:         scf.forall (%{{.*}}) = (0) to (1024) step (128)
// CHECK:           linalg.fill {{.*}} -> tensor<1x64xf32>
// CHECK:           scf.for {{.*}} = %c0 to %c2048 step %c1024
// CHECK:             tensor.empty() : tensor<2x1024x64xf32>
// CHECK:             linalg.copy
// CHECK:             scf.for {{.*}} = %c0 to %c512 step %c256
// CHECK-NOT:           linalg.copy
// CHECK:               scf.for {{.*}} = %c0 to %c128 step %c64
// CHECK:                 scf.for {{.*}} = %c0 to %c252 step %c6
// CHECK:                   linalg.matmul ins({{.*}} : tensor<6x4xf32>, tensor<4x64xf32>)
// CHECK:                 linalg.matmul ins({{.*}} : tensor<4x4xf32>, tensor<4x64xf32>)
// With a 2 MiB L2 (l2-kib=2048) a [2048 x 128] f32 panel fills half of
// it: K = 2048 is one cache block, so the zero fill of C goes down to the
// register tiles.
// L2-LABEL: func.func @row_blocks
// L2:         scf.forall (%{{.*}}) = (0) to (1024) step (128)
// L2-NOT:       step %c1024
// L2:           tensor.empty() : tensor<2x2048x64xf32>
// L2:           scf.for {{.*}} = %c0 to %c512 step %c256
// L2:             scf.for {{.*}} = %c0 to %c128 step %c64
// L2:               scf.for {{.*}} = %c0 to %c252 step %c6
// L2:                 linalg.fill {{.*}} -> tensor<6x64xf32>
// L2:                 scf.for {{.*}} = %c0 to %c2048 step %c4
// L2:                   linalg.matmul ins({{.*}} : tensor<6x4xf32>, tensor<4x64xf32>)
func.func @row_blocks(%x: tensor<512x2048xf32>, %w: tensor<2048x1024xf32>) -> tensor<512x1024xf32> {
  %0 = tt.matmul %x, %w : (tensor<512x2048xf32>, tensor<2048x1024xf32>) -> tensor<512x1024xf32>
  return %0 : tensor<512x1024xf32>
}

// -----

// K = 1031 has no block of 257..512 that divides it: the last 7 steps of
// the reduction are split off into a matmul of their own (accumulating into
// the first one's result), so that both have static blocks; a partial block
// would leave the loops inside it dynamic.
// CHECK-LABEL: func.func @split_k
// CHECK:         scf.forall
// CHECK:           scf.for {{.*}} = %c0 to %c1024 step %c512
// CHECK:             tensor.empty() : tensor<1x512x64xf32>
// CHECK:             linalg.matmul ins({{.*}} : tensor<6x4xf32>, tensor<4x64xf32>)
// CHECK:           tensor.empty() : tensor<1x7x64xf32>
// CHECK:           linalg.matmul ins({{.*}} : tensor<6x4xf32>, tensor<4x64xf32>)
// CHECK:           linalg.matmul ins({{.*}} : tensor<6x3xf32>, tensor<3x64xf32>)
func.func @split_k(%x: tensor<64x1031xf32>, %w: tensor<1031x512xf32>) -> tensor<64x512xf32> {
  %0 = tt.matmul %x, %w : (tensor<64x1031xf32>, tensor<1031x512xf32>) -> tensor<64x512xf32>
  return %0 : tensor<64x512xf32>
}

// -----

// x @ w.T with 32 rows: dot products would read B again for every 4 rows,
// so B is packed (transposed strips) as for many rows; with 64 rows but a
// B small enough for L2 (attention's q @ k.T), dot products.
// CHECK-LABEL: func.func @transposed_rows
// CHECK:         linalg.transpose
// CHECK-NOT:     linalg.reduce
// CHECK-LABEL: func.func @transposed_small_b
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.reduce ins({{.*}} : tensor<4x4x16xf32>)
func.func @transposed_rows(%x: tensor<32x768xf32>, %w: tensor<2304x768xf32>) -> tensor<32x2304xf32> {
  %wt = tt.transpose %w [1, 0] : tensor<2304x768xf32> -> tensor<768x2304xf32>
  %0 = tt.matmul %x, %wt : (tensor<32x768xf32>, tensor<768x2304xf32>) -> tensor<32x2304xf32>
  return %0 : tensor<32x2304xf32>
}
func.func @transposed_small_b(%q: tensor<64x64xf32>, %k: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %kt = tt.transpose %k [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %0 = tt.matmul %q, %kt : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// f64 @ f32.T (NumPy's promotion, a GPT-2 logits layer over 128 tokens):
// each strip of B is packed 16 rows (of the strip: columns of B) at a time,
// transposed in f32 ([16 x 16] register transposes) into a scratch chunk
// that stays in L1, then converted into the f64 packed panel; the register
// tiles read f64 and convert nothing.
// CHECK-LABEL: func.func @transposed_mixed
// CHECK:         tensor.empty() : tensor<2x384x32xf64>
// CHECK:           scf.for %{{.*}} = %c0 to %c384 step %c16
// CHECK:             tensor.empty() : tensor<16x32xf32>
// CHECK:               linalg.transpose ins({{.*}} : tensor<16x16xf32>)
// CHECK:               linalg.generic {{.*}} ins({{.*}} : tensor<1x32xf32>) outs({{.*}} : tensor<1x32xf64>)
// CHECK:                 arith.extf
// CHECK:           linalg.generic {{.*}} ins({{.*}} : tensor<6x4xf64>, tensor<4x32xf64>)
// CHECK-NOT:         arith.extf
// CHECK:             linalg.yield
// f64 panels have at most 128 columns (rows of 1 KiB, as 256 f32
// columns), so with a 2 MiB L2 the blocks are 1024 deep, here all of K:
// no loop over reduction blocks.
// L2-LABEL: func.func @transposed_mixed
// L2-NOT:     step %c384
// L2:         tensor.empty() : tensor<2x768x32xf64>
// L2:           scf.for {{.*}} = %c0 to %c768 step %c16
func.func @transposed_mixed(%x: tensor<128x768xf64>, %w: tensor<512x768xf32>) -> tensor<128x512xf64> {
  %wt = tt.transpose %w [1, 0] : tensor<512x768xf32> -> tensor<768x512xf32>
  %wc = tt.cast %wt to f64 : tensor<768x512xf32> -> tensor<768x512xf64>
  %0 = tt.matmul %x, %wc : (tensor<128x768xf64>, tensor<768x512xf64>) -> tensor<128x512xf64>
  return %0 : tensor<128x512xf64>
}

// -----

// A reduction of 200 is 12 chunks of 16 rows and a peeled one of 8; the
// last strip of 100 columns has 4.
// CHECK-LABEL: func.func @transposed_mixed_tail
// CHECK:         tensor.empty(%{{.*}}) : tensor<?x200x32xf64>
// CHECK:           scf.for %{{.*}} = %c0 to %c192 step %c16
// CHECK:             tensor.empty() : tensor<16x32xf32>
// CHECK:               linalg.transpose ins({{.*}} : tensor<?x16xf32>) outs({{.*}} : tensor<16x?xf32>)
// CHECK:               arith.extf
// CHECK:           tensor.empty() : tensor<8x32xf32>
// CHECK:             linalg.transpose ins({{.*}} : tensor<?x8xf32>) outs({{.*}} : tensor<8x?xf32>)
// CHECK:             arith.extf
// CHECK:         scf.for %{{.*}} = %c0 to %c192 step %c16
// CHECK:           tensor.empty(%{{.*}}) : tensor<16x?xf32>
func.func @transposed_mixed_tail(%x: tensor<128x200xf64>, %w: tensor<100x200xf32>) -> tensor<128x100xf64> {
  %wt = tt.transpose %w [1, 0] : tensor<100x200xf32> -> tensor<200x100xf32>
  %wc = tt.cast %wt to f64 : tensor<200x100xf32> -> tensor<200x100xf64>
  %0 = tt.matmul %x, %wc : (tensor<128x200xf64>, tensor<200x100xf64>) -> tensor<128x100xf64>
  return %0 : tensor<128x100xf64>
}

// -----

// The init of a producer fused into a block is an empty tensor of the
// tile's size, not a slice of an empty tensor of the whole result (a
// buffer of the whole result in every block).
// CHECK-LABEL: func.func @softmax_then_var
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<768x129xf32>
// CHECK:         scf.forall
// CHECK-NOT:       tensor.extract_slice %[[E]]
// CHECK:           tensor.empty() : tensor<1x129xf32>
func.func @softmax_then_var(%x: tensor<768x129xf32>) -> tensor<f32> {
  %m = tt.reduce_max %x axes = [1] keepdims : tensor<768x129xf32> -> tensor<768x1xf32>
  %d = tt.sub %x, %m : (tensor<768x129xf32>, tensor<768x1xf32>) -> tensor<768x129xf32>
  %e = tt.exp %d : tensor<768x129xf32>
  %s = tt.sum %e axes = [1] keepdims : tensor<768x129xf32> -> tensor<768x1xf32>
  %p = tt.div %e, %s : (tensor<768x129xf32>, tensor<768x1xf32>) -> tensor<768x129xf32>
  %v = tt.var %p axes = [0, 1] : tensor<768x129xf32> -> tensor<f32>
  return %v : tensor<f32>
}

// -----

// Rows known only at run time (a batch size): each thread block keeps all
// of them and the columns are split (every block packs its panel of B
// once), unless the columns give too few blocks: then blocks of rows.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK:         scf.forall (%{{.*}}) = (0) to (1024) step (128)
// CHECK-LABEL: func.func @dynamic_rows_few_columns
// CHECK:         scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (128)
func.func @dynamic_rows(%a: tensor<?x256xf32>, %b: tensor<256x1024xf32>) -> tensor<?x1024xf32> {
  %0 = tt.matmul %a, %b : (tensor<?x256xf32>, tensor<256x1024xf32>) -> tensor<?x1024xf32>
  return %0 : tensor<?x1024xf32>
}
func.func @dynamic_rows_few_columns(%a: tensor<?x256xf32>, %b: tensor<256x10xf32>) -> tensor<?x10xf32> {
  %0 = tt.matmul %a, %b : (tensor<?x256xf32>, tensor<256x10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// Packing a plain B whose rows are more than 8 KiB apart (12 KiB here),
// where the hardware prefetchers do not follow: each iteration of the
// packing's row loop prefetches the block's row 4 ahead (at most B's last,
// 767), all 16 cache lines of its 256 columns. Not when B's rows are 8 KiB
// apart or closer, not when the copy converts (f64 x f32), not with 512
// rows or more, and not with prefetch=false.
// CHECK-LABEL: func.func @pack_prefetch
// CHECK:         %[[W:.*]] = bufferization.to_buffer %arg1 read_only
// CHECK:         scf.forall (%[[J:.*]]) = (0) to (3072) step (256)
// CHECK:           scf.for %[[KB:.*]] = %c0 to %c768 step %c384
// CHECK:             scf.for %[[K:.*]] = %c0 to %c384 step %c1
// CHECK-NEXT:          %[[NEXT:.*]] = arith.addi %[[K]], %c4
// CHECK-NEXT:          %[[ABS:.*]] = arith.addi %[[KB]], %[[NEXT]]
// CHECK-NEXT:          %[[ROW:.*]] = arith.minsi %[[ABS]], %c767
// CHECK-NEXT:          memref.prefetch %[[W]][%[[ROW]], %[[J]]], read, locality<3>, data
// CHECK-COUNT-15:      memref.prefetch %[[W]][%[[ROW]], %{{.*}}], read, locality<3>, data
// CHECK-NOT:           memref.prefetch
// CHECK:               linalg.copy
// Partial column blocks (2100 columns) prefetch up to the block's bound,
// each line's column at most B's last.
// CHECK-LABEL: func.func @pack_prefetch_partial
// CHECK:         scf.forall
// CHECK:           %[[FIRST:.*]] = arith.minsi %{{.*}}, %c2099
// CHECK-NEXT:      memref.prefetch %{{.*}}[%{{.*}}, %[[FIRST]]], read, locality<3>, data
// CHECK-LABEL: func.func @pack_near_rows
// CHECK-NOT:     memref.prefetch
// CHECK:         linalg.copy
// CHECK-LABEL: func.func @pack_converted
// CHECK-NOT:     memref.prefetch
// CHECK:         arith.extf
// CHECK-LABEL: func.func @pack_tall
// CHECK-NOT:     memref.prefetch
// CHECK:         linalg.copy
// NOPREFETCH-LABEL: func.func @pack_prefetch
// NOPREFETCH-NOT:     memref.prefetch
// NOPREFETCH:         linalg.copy
func.func @pack_prefetch(%x: tensor<64x768xf32>, %w: tensor<768x3072xf32>) -> tensor<64x3072xf32> {
  %0 = tt.matmul %x, %w : (tensor<64x768xf32>, tensor<768x3072xf32>) -> tensor<64x3072xf32>
  return %0 : tensor<64x3072xf32>
}
func.func @pack_prefetch_partial(%x: tensor<64x768xf32>, %w: tensor<768x2100xf32>) -> tensor<64x2100xf32> {
  %0 = tt.matmul %x, %w : (tensor<64x768xf32>, tensor<768x2100xf32>) -> tensor<64x2100xf32>
  return %0 : tensor<64x2100xf32>
}
func.func @pack_near_rows(%x: tensor<64x768xf32>, %w: tensor<768x2048xf32>) -> tensor<64x2048xf32> {
  %0 = tt.matmul %x, %w : (tensor<64x768xf32>, tensor<768x2048xf32>) -> tensor<64x2048xf32>
  return %0 : tensor<64x2048xf32>
}
func.func @pack_converted(%x: tensor<64x768xf64>, %w: tensor<768x3072xf32>) -> tensor<64x3072xf64> {
  %wc = tt.cast %w to f64 : tensor<768x3072xf32> -> tensor<768x3072xf64>
  %0 = tt.matmul %x, %wc : (tensor<64x768xf64>, tensor<768x3072xf64>) -> tensor<64x3072xf64>
  return %0 : tensor<64x3072xf64>
}
func.func @pack_tall(%x: tensor<512x768xf32>, %w: tensor<768x3072xf32>) -> tensor<512x3072xf32> {
  %0 = tt.matmul %x, %w : (tensor<512x768xf32>, tensor<768x3072xf32>) -> tensor<512x3072xf32>
  return %0 : tensor<512x3072xf32>
}

// -----

// 24 columns (1.5 vectors) over at least 4096 rows: register tiles of one
// vector and a peeled half-vector tile, not 24-lane tiles (8x slower).
// CHECK-LABEL: func.func @matmul_one_and_a_half_vectors
// CHECK-NOT:     tensor<4x24xf32>
// CHECK:         linalg.matmul ins({{.*}} : tensor<6x4xf32>, tensor<4x16xf32>)
// CHECK-NOT:     tensor<4x24xf32>
// CHECK:         return
func.func @matmul_one_and_a_half_vectors(%a: tensor<4099x144xf32>, %b: tensor<144x24xf32>) -> tensor<4099x24xf32> {
  %r = tt.matmul %a, %b : (tensor<4099x144xf32>, tensor<144x24xf32>) -> tensor<4099x24xf32>
  return %r : tensor<4099x24xf32>
}

// -----

// Column blocks are never wider than the columns: 120 columns are one
// static block of 120 (a block of 128 would make every slice's width an
// affine.min, and the register tiles dynamic). A grouped convolution's
// product per group, [6, 196, 1080] @ [6, 120, 1080].T, with its patches
// fused into the blocks.
// CHECK-LABEL: func.func @narrow_batched
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (6, 196) step (1, 98)
// CHECK-NOT:       affine.min
// CHECK:           tensor.extract_slice {{.*}} [1, 120, 1080] [1, 1, 1] : tensor<6x120x1080xf32> to tensor<1x120x1080xf32>
func.func @narrow_batched(%x: tensor<1x720x14x14xf32>, %w: tensor<720x120x3x3xf32>) -> tensor<1x720x14x14xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [1, 1] pad_high = [1, 1] groups = 6 : (tensor<1x720x14x14xf32>, tensor<720x120x3x3xf32>) -> tensor<1x720x14x14xf32>
  return %0 : tensor<1x720x14x14xf32>
}
