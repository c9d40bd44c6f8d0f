// RUN: tiny-opt %s --split-input-file --tt-cpu-hoist-buffers | FileCheck %s

// A row buffer of a block computed row by row (a softmax's exponentials) is
// allocated once per block, before the row loop, not once per row; it stays
// inside the parallel loop, so that each block has its own.
// CHECK-LABEL: func.func @rows
// CHECK:         scf.forall
// CHECK-NEXT:      %[[ROW:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x1024xf32>
// CHECK-NEXT:      scf.for
// CHECK-NOT:         memref.alloc
// CHECK:             memref.copy %[[ROW]]
func.func @rows(%x: memref<64x1024xf32>, %y: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.forall (%i) = (0) to (64) step (32) {
    scf.for %r = %c0 to %c32 step %c1 {
      %row = memref.alloc() {alignment = 64 : i64} : memref<1x1024xf32>
      %src = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
      memref.copy %src, %row : memref<1x1024xf32, strided<[1024, 1], offset: ?>> to memref<1x1024xf32>
      %dst = memref.subview %y[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
      memref.copy %row, %dst : memref<1x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// Through nested loops and scf.if, to the outermost scf.for; a view of the
// buffer is used like the buffer.
// CHECK-LABEL: func.func @nested
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    %[[BUF:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        scf.if
// CHECK-NEXT:          memref.subview %[[BUF]]
func.func @nested(%n: index, %c: i1, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      scf.if %c {
        %buf = memref.alloc() : memref<4x8xf32>
        %view = memref.subview %buf[1, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: 8>>
        memref.store %v, %view[%c0] : memref<8xf32, strided<[1], offset: 8>>
      }
    }
  }
  return
}

// -----

// Buffers that outlive an iteration, or whose size is not static, stay:
// one carried to the next iteration, one passed to a call, one of a run-time
// size; and one outside any sequential loop.
// CHECK-LABEL: func.func @stay
// CHECK:         scf.for
// CHECK-NEXT:      memref.alloc() : memref<8xf32>
// CHECK-NEXT:      scf.yield
// CHECK:         scf.for
// CHECK-NEXT:      memref.alloc() : memref<8xf32>
// CHECK-NEXT:      func.call @use
// CHECK:         scf.for
// CHECK-NEXT:      memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         scf.forall
// CHECK-NEXT:      memref.alloc() : memref<8xf32>
func.func private @use(memref<8xf32>)
func.func @stay(%n: index, %init: memref<8xf32>, %v: f32) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%b = %init) -> (memref<8xf32>) {
    %next = memref.alloc() : memref<8xf32>
    scf.yield %next : memref<8xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %buf = memref.alloc() : memref<8xf32>
    func.call @use(%buf) : (memref<8xf32>) -> ()
  }
  scf.for %i = %c0 to %n step %c1 {
    %buf = memref.alloc(%i) : memref<?xf32>
    memref.store %v, %buf[%c0] : memref<?xf32>
  }
  scf.forall (%i) in (4) {
    %buf = memref.alloc() : memref<8xf32>
    memref.store %v, %buf[%c0] : memref<8xf32>
  }
  return %0 : memref<8xf32>
}
