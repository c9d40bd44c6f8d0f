// RUN: tiny-opt %s --split-input-file --tt-optimize --tt-cpu-tile-and-fuse=vector-bits=512 --canonicalize --tt-cpu-vectorize --canonicalize --cse | FileCheck %s
// RUN: tiny-opt %s --split-input-file --tt-optimize --tt-cpu-tile-and-fuse=vector-bits=512 --canonicalize '--tt-cpu-vectorize=max-vector-elements=16' | FileCheck %s --check-prefix=SMALL
// RUN: tiny-opt %s --split-input-file --tt-optimize --tt-cpu-tile-and-fuse=vector-bits=512 --canonicalize '--tt-cpu-vectorize=masked=false' | FileCheck %s --check-prefix=NOMASK
// RUN: tiny-opt %s --split-input-file --tt-optimize --tt-cpu-tile-and-fuse=vector-bits=512 --canonicalize '--tt-cpu-vectorize=unmask-contractions=false' | FileCheck %s --check-prefix=MASKED

// Register tiles of a matmul become vector.contract on [6 x 4] x [4 x 64];
// the [6 x 64] accumulator starts at zero (the fill of C, fused into the
// register tile when no cache block splits K, is folded into the read),
// is carried in registers (an iter_arg of vector type) and written once
// after the K loop.
// CHECK-LABEL: func.func @matmul
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<6x64xf32>
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[ZERO]]) -> (vector<6x64xf32>)
// CHECK:           vector.transfer_read {{.*}} vector<6x4xf32>
// CHECK:           vector.transfer_read {{.*}} vector<4x64xf32>
// CHECK:           %[[C:.*]] = vector.contract {{.*}} %[[A]] : vector<6x4xf32>, vector<4x64xf32> into vector<6x64xf32>
// CHECK:           scf.yield %[[C]] : vector<6x64xf32>
// CHECK:         vector.transfer_write %[[R]]
// CHECK-NOT:     linalg.matmul

// Above max-vector-elements nothing is vectorised.
// SMALL-LABEL: func.func @matmul
// SMALL-NOT:     vector.contract
// SMALL:         linalg.matmul
func.func @matmul(%a: tensor<60x96xf32>, %b: tensor<96x64xf32>) -> tensor<60x64xf32> {
  %r = tt.matmul %a, %b : (tensor<60x96xf32>, tensor<96x64xf32>) -> tensor<60x64xf32>
  return %r : tensor<60x64xf32>
}

// -----

// Mixed precision (NumPy's f64 @ f32): the f32 operand is converted while
// it is packed (once per panel, not once per row tile), the register tiles
// read the f64 strips, and the contraction runs in f64 ([6 x 32] f64
// accumulators).
// CHECK-LABEL: func.func @matmul_f64_f32
// CHECK:         scf.for {{.*}} -> (tensor<1x96x32xf64>)
// CHECK:           vector.transfer_read {{.*}} : tensor<96x64xf32>, vector<1x32xf32>
// CHECK:           arith.extf {{.*}} : vector<1x32xf32> to vector<1x32xf64>
// CHECK:         scf.for {{.*}} -> (vector<6x32xf64>)
// CHECK-NOT:       arith.extf
// CHECK:           vector.transfer_read {{.*}} : tensor<1x96x32xf64>, vector<4x32xf64>
// CHECK-NOT:       arith.extf
// CHECK:           vector.contract {{.*}} : vector<6x4xf64>, vector<4x32xf64> into vector<6x32xf64>
func.func @matmul_f64_f32(%a: tensor<60x96xf64>, %b: tensor<96x64xf32>) -> tensor<60x64xf64> {
  %bc = tt.cast %b to f64 : tensor<96x64xf32> -> tensor<96x64xf64>
  %r = tt.matmul %a, %bc : (tensor<60x96xf64>, tensor<96x64xf64>) -> tensor<60x64xf64>
  return %r : tensor<60x64xf64>
}

// -----

// Elementwise ops: one row of 64 f32 (four 512-bit registers) per step.
// CHECK-LABEL: func.func @elementwise
// CHECK:         scf.for
// CHECK:           vector.transfer_read {{.*}} vector<1x64xf32>
// CHECK:           math.tanh {{.*}} : vector<1x64xf32>
// CHECK:           vector.transfer_write {{.*}} vector<1x64xf32>
func.func @elementwise(%x: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %0 = tt.tanh %x : tensor<16x256xf32>
  return %0 : tensor<16x256xf32>
}

// -----

// Booleans stay scalar (LLVM packs vectors of i1 into bits; memrefs of i1
// hold a byte per element).
// CHECK-LABEL: func.func @select
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
func.func @select(%c: tensor<16x256xi1>, %a: tensor<16x256xf32>, %b: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %0 = tt.select %c, %a, %b : (tensor<16x256xi1>, tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<16x256xf32>
  return %0 : tensor<16x256xf32>
}

// -----

// A partial tile whose size is only known at run time (the last strip of
// the last block of 4097 columns, at most 63 wide) is vectorised to whole
// registers (64 lanes) with masks: its transfers take a vector.create_mask
// of the run-time width. Its contraction runs as a whole tile: the masked
// columns are never stored (the accumulator's write takes the mask); with
// unmask-contractions=false it runs under vector.mask (lowered lane by
// lane). With masked=false it stays a linalg op (scalar loops later).
// CHECK-LABEL: func.func @partial_tile
// CHECK:         vector.create_mask {{.*}} : vector<1x64xi1>
// CHECK:         %[[MASK:.*]] = vector.create_mask {{.*}} : vector<6x64xi1>
// CHECK-NOT:     vector.mask
// CHECK:         %[[ACC:.*]] = vector.contract {{.*}} : vector<6x4xf32>, vector<4x64xf32> into vector<6x64xf32>
// CHECK:         vector.transfer_write {{.*}}, %[[MASK]] {{.*}} : vector<6x64xf32>, tensor<6x?xf32>
// CHECK-NOT:     linalg.matmul
// MASKED-LABEL: func.func @partial_tile
// MASKED:         vector.mask %{{.*}} { vector.contract {{.*}} : vector<6x4xf32>, vector<4x64xf32> into vector<6x64xf32> } : vector<6x64x4xi1> -> vector<6x64xf32>
// NOMASK-LABEL: func.func @partial_tile
// NOMASK:         linalg.matmul ins({{.*}} : tensor<6x4xf32>, tensor<4x?xf32>) outs({{.*}} : tensor<6x?xf32>)
func.func @partial_tile(%x: tensor<18x64xf32>, %w: tensor<64x4097xf32>) -> tensor<18x4097xf32> {
  %0 = tt.matmul %x, %w : (tensor<18x64xf32>, tensor<64x4097xf32>) -> tensor<18x4097xf32>
  return %0 : tensor<18x4097xf32>
}

// -----

// A K of run-time size (attention's probabilities times values over a
// sequence of any length): the last K steps are read with masks padded
// with 0, so their masked lanes add 0 * 0 and the contraction runs
// unmasked; with unmask-contractions=false it stays under vector.mask.
// CHECK-LABEL: func.func @dynamic_k
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         %[[KA:.*]] = vector.create_mask %c6, %[[K:.*]] : vector<6x4xi1>
// CHECK:         %[[A:.*]] = vector.transfer_read {{.*}}, %[[ZERO]], %[[KA]] {{.*}} : tensor<6x?xf64>, vector<6x4xf64>
// CHECK:         %[[KB:.*]] = vector.create_mask %[[K]], %c32 : vector<4x32xi1>
// CHECK:         %[[B:.*]] = vector.transfer_read {{.*}}, %[[ZERO]], %[[KB]] {{.*}} : tensor<?x32xf64>, vector<4x32xf64>
// CHECK-NOT:     vector.mask
// CHECK:         vector.contract {{.*}} %[[A]], %[[B]], %{{.*}} : vector<6x4xf64>, vector<4x32xf64> into vector<6x32xf64>
// MASKED-LABEL: func.func @dynamic_k
// MASKED:         vector.mask %{{.*}} { vector.contract {{.*}} } : vector<6x32x4xi1> -> vector<6x32xf64>
func.func @dynamic_k(%p: tensor<6x?xf64>, %v: tensor<?x32xf64>) -> tensor<6x32xf64> {
  %o = tt.matmul %p, %v : (tensor<6x?xf64>, tensor<?x32xf64>) -> tensor<6x32xf64>
  return %o : tensor<6x32xf64>
}

// -----

// K = 1024 is two cache blocks of 512: the second block adds to what the
// first wrote, so C is filled before them and each register tile's
// accumulator is read from C before its K loop, carried in registers and
// written once after it.
// CHECK-LABEL: func.func @matmul_two_k_blocks
// CHECK:         vector.transfer_write %{{.*}} : vector<1x64xf32>, tensor<18x64xf32>
// CHECK:         scf.for {{.*}} = %c0 to %c1024 step %c512
// CHECK:         %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<6x64xf32>, vector<6x64xf32>
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[ACC]]) -> (vector<6x64xf32>)
// CHECK:           vector.contract {{.*}} %[[A]] : vector<6x4xf32>, vector<4x64xf32> into vector<6x64xf32>
// CHECK:         vector.transfer_write %[[R]]
func.func @matmul_two_k_blocks(%a: tensor<18x1024xf32>, %b: tensor<1024x64xf32>) -> tensor<18x64xf32> {
  %r = tt.matmul %a, %b : (tensor<18x1024xf32>, tensor<1024x64xf32>) -> tensor<18x64xf32>
  return %r : tensor<18x64xf32>
}

// -----

// A batched matmul of 120 columns: register tiles of 64 columns and a
// static tail of 56 (3.5 registers, which LLVM would widen element by
// element), computed as a masked tile of 64 columns (16 batches: a block
// per batch, all the columns static). Unmasked
// (masked=false) the tail stays vector<...x56>.
// CHECK-LABEL: func.func @odd_columns
// CHECK-DAG:     vector.constant_mask [1, 6, 56, 4] : vector<1x6x64x4xi1>
// CHECK-DAG:     vector.constant_mask [1, 4, 56] : vector<1x4x64xi1>
// CHECK-NOT:     into vector<1x6x56xf32>
// CHECK:         vector.mask %{{.*}} { vector.contract {{.*}} : vector<1x6x4xf32>, vector<1x4x64xf32> into vector<1x6x64xf32>
// CHECK-NOT:     into vector<1x6x56xf32>
// NOMASK-LABEL: func.func @odd_columns
// NOMASK:        vector.contract {{.*}} into vector<1x6x56xf32>
func.func @odd_columns(%a: tensor<16x48x96xf32>, %b: tensor<16x96x120xf32>) -> tensor<16x48x120xf32> {
  %r = tt.matmul %a, %b : (tensor<16x48x96xf32>, tensor<16x96x120xf32>) -> tensor<16x48x120xf32>
  return %r : tensor<16x48x120xf32>
}
