// RUN: tiny-opt %s --split-input-file --tt-outline-loops --mlir-print-local-scope | FileCheck %s
// RUN: tiny-opt %s --split-input-file --tt-outline-loops=share=false --mlir-print-local-scope | FileCheck %s --check-prefix=APART

// The copies of three heads out of one projection ([4 x 24], 8 columns a
// head): equal nests but for where the source view starts. The view is
// passed with a dynamic offset (memref.cast) and all three call one
// function; without `share` each has a function of its own, whose argument
// keeps its static offset.
// CHECK-LABEL: func.func private @heads_loop(
// CHECK-SAME:    %{{.*}}: memref<4x8xf32, strided<[24, 1], offset: ?>>, %{{.*}}: memref<4x8xf32>)
// CHECK-NOT:   func.func private @heads_loop_
// CHECK-LABEL: func.func @heads(
// CHECK:         memref.cast %{{.*}} : memref<4x8xf32, strided<[24, 1]>> to memref<4x8xf32, strided<[24, 1], offset: ?>>
// CHECK-COUNT-2: memref.cast %{{.*}} : memref<4x8xf32, strided<[24, 1], offset: {{[0-9]+}}>> to memref<4x8xf32, strided<[24, 1], offset: ?>>
// CHECK-NOT:     call @heads_loop_
// APART-LABEL: func.func private @heads_loop(
// APART-SAME:    memref<4x8xf32, strided<[24, 1]>>
// APART:       func.func private @heads_loop_0(
// APART-SAME:    memref<4x8xf32, strided<[24, 1], offset: 8>>
// APART:       func.func private @heads_loop_1(
// APART-SAME:    memref<4x8xf32, strided<[24, 1], offset: 16>>
// APART-NOT:     memref.cast
func.func @heads(%qkv: memref<4x24xf32>, %q: memref<4x8xf32>, %k: memref<4x8xf32>, %v: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %s0 = memref.subview %qkv[0, 0] [4, 8] [1, 1] : memref<4x24xf32> to memref<4x8xf32, strided<[24, 1]>>
  %s1 = memref.subview %qkv[0, 8] [4, 8] [1, 1] : memref<4x24xf32> to memref<4x8xf32, strided<[24, 1], offset: 8>>
  %s2 = memref.subview %qkv[0, 16] [4, 8] [1, 1] : memref<4x24xf32> to memref<4x8xf32, strided<[24, 1], offset: 16>>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %s0[%i, %j] : memref<4x8xf32, strided<[24, 1]>>
      memref.store %x, %q[%i, %j] : memref<4x8xf32>
    }
  }
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %s1[%i, %j] : memref<4x8xf32, strided<[24, 1], offset: 8>>
      memref.store %x, %k[%i, %j] : memref<4x8xf32>
    }
  }
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %s2[%i, %j] : memref<4x8xf32, strided<[24, 1], offset: 16>>
      memref.store %x, %v[%i, %j] : memref<4x8xf32>
    }
  }
  return
}

// -----

// A view the nest takes a subview of keeps its static offset (the
// subview's type depends on it); the other nests over the same view pass it
// with a dynamic offset. Nests with different constants (a scale of 2 and
// of 3) are different functions.
// CHECK-LABEL: func.func private @kept_loop(
// CHECK-SAME:    memref<4x8xf32, strided<[16, 1], offset: 8>>
// CHECK:         memref.subview
// CHECK-LABEL: func.func private @kept_loop_0(
// CHECK-SAME:    memref<4x8xf32, strided<[16, 1], offset: ?>>
// CHECK:         arith.constant 2.0
// CHECK-LABEL: func.func private @kept_loop_1(
// CHECK-SAME:    memref<4x8xf32, strided<[16, 1], offset: ?>>
// CHECK:         arith.constant 3.0
// CHECK-LABEL: func.func @kept(
// CHECK:         call @kept_loop(
// CHECK:         call @kept_loop_0(
// CHECK:         call @kept_loop_1(
func.func @kept(%a: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %s = memref.subview %a[0, 8] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  scf.for %i = %c0 to %c4 step %c1 {
    %row = memref.subview %s[%i, 0] [1, 8] [1, 1] : memref<4x8xf32, strided<[16, 1], offset: 8>> to memref<8xf32, strided<[1], offset: ?>>
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %row[%j] : memref<8xf32, strided<[1], offset: ?>>
      %y = arith.addf %x, %x : f32
      memref.store %y, %row[%j] : memref<8xf32, strided<[1], offset: ?>>
    }
  }
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %s[%i, %j] : memref<4x8xf32, strided<[16, 1], offset: 8>>
      %y = arith.mulf %x, %two : f32
      memref.store %y, %s[%i, %j] : memref<4x8xf32, strided<[16, 1], offset: 8>>
    }
  }
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %s[%i, %j] : memref<4x8xf32, strided<[16, 1], offset: 8>>
      %y = arith.mulf %x, %three : f32
      memref.store %y, %s[%i, %j] : memref<4x8xf32, strided<[16, 1], offset: 8>>
    }
  }
  return
}

// -----

// A captured vector wider than one AVX-512 register (a batch norm's
// per-channel scale, computed before the loop) is passed in memory: stored
// into a stack buffer before the call and loaded at the top of the new
// function. One register's worth (16 floats) stays a value.
// CHECK-LABEL: func.func private @wide_vector_loop(
// CHECK-SAME:    %[[O:.*]]: memref<4x64xf32>, %[[W:.*]]: memref<64xf32>, %[[N:.*]]: vector<16xf32>)
// CHECK:         %[[V:.*]] = vector.load %[[W]][%{{.*}}] : memref<64xf32>, vector<64xf32>
// CHECK:         scf.for
// CHECK:           arith.mulf %{{.*}}, %[[V]] : vector<64xf32>
// CHECK-LABEL: func.func @wide_vector(
// CHECK:         %[[S:.*]] = arith.mulf %{{.*}} : vector<64xf32>
// CHECK:         %[[B:.*]] = memref.alloca() : memref<64xf32>
// CHECK:         vector.store %[[S]], %[[B]][%{{.*}}] : memref<64xf32>, vector<64xf32>
// CHECK:         call @wide_vector_loop(%{{.*}}, %[[B]], %{{.*}}) : (memref<4x64xf32>, memref<64xf32>, vector<16xf32>) -> ()
func.func @wide_vector(%scale: memref<64xf32>, %narrow: vector<16xf32>, %out: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %l = vector.load %scale[%c0] : memref<64xf32>, vector<64xf32>
  %s = arith.mulf %l, %l : vector<64xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = vector.load %out[%i, %c0] : memref<4x64xf32>, vector<64xf32>
    %y = arith.mulf %x, %s : vector<64xf32>
    vector.store %y, %out[%i, %c0] : memref<4x64xf32>, vector<64xf32>
    %z = vector.load %out[%i, %c0] : memref<4x64xf32>, vector<16xf32>
    %w = arith.addf %z, %narrow : vector<16xf32>
    vector.store %w, %out[%i, %c0] : memref<4x64xf32>, vector<16xf32>
  }
  return
}
