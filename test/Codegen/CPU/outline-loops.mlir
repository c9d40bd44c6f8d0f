// RUN: tiny-opt %s --tt-outline-loops | FileCheck %s
// RUN: tiny-opt %s --tt-outline-loops=min-ops=1000 | FileCheck %s --check-prefix=MIN \
// RUN:   --implicit-check-not=call --implicit-check-not=_loop

// --tt-outline-loops moves each top-level scf.for nest without results (as
// convert-linalg-to-loops produces on buffers) with at least min-ops
// operations (default 4, counting the loops and their scf.yield) into a
// private noinline function <parent>_loop[_N], called with the values the
// nest captures; constants are cloned into the new function instead.
// The new functions are inserted before their parent.

// Two nests of exactly 8 ops each (for, for, 4 body ops, 2 yields): two
// functions, the second renamed by the symbol table. The first nest
// captures three memrefs, the second only %out; the index bounds and the
// f32 constant are cloned, not passed.
// CHECK-LABEL: func.func private @two_nests_loop(
// CHECK-SAME:    %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8xf32>, %[[O:.*]]: memref<4x8xf32>)
// CHECK-SAME:    attributes {passthrough = ["noinline"]} {
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.for %[[I:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT:      scf.for %[[J:.*]] = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[A]][%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[Y:.*]] = memref.load %[[B]][%[[J]]] : memref<8xf32>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:        memref.store %[[S]], %[[O]][%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }

// CHECK-LABEL: func.func private @two_nests_loop_0(
// CHECK-SAME:    %[[O:.*]]: memref<4x8xf32>) attributes {passthrough = ["noinline"]} {
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.for %[[I:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT:      scf.for %[[J:.*]] = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[O]][%[[I]], %[[J]]]
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[X]], %[[TWO]] : f32
// CHECK-NEXT:        %[[E:.*]] = math.exp %[[M]] : f32
// CHECK-NEXT:        memref.store %[[E]], %[[O]][%[[I]], %[[J]]]
// CHECK:         return

// The parent keeps its (now unused) constants and calls the new functions
// in the original order.
// CHECK-LABEL: func.func @two_nests(
// CHECK-SAME:    %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8xf32>, %[[O:.*]]: memref<4x8xf32>) {
// CHECK-NOT:     scf.for
// CHECK:         call @two_nests_loop(%[[A]], %[[B]], %[[O]]) : (memref<4x8xf32>, memref<8xf32>, memref<4x8xf32>) -> ()
// CHECK-NOT:     scf.for
// CHECK:         call @two_nests_loop_0(%[[O]]) : (memref<4x8xf32>) -> ()
// CHECK-NEXT:    return

// With min-ops=1000 nothing is outlined (no call, no _loop function
// anywhere): all four loops stay in place.
// MIN-LABEL:   func.func @two_nests(
// MIN-COUNT-4: scf.for
// MIN:         return
func.func @two_nests(%a: memref<4x8xf32>, %b: memref<8xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %a[%i, %j] : memref<4x8xf32>
      %y = memref.load %b[%j] : memref<8xf32>
      %s = arith.addf %x, %y : f32
      memref.store %s, %out[%i, %j] : memref<4x8xf32>
    }
  }
  %cst = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %out[%i, %j] : memref<4x8xf32>
      %m = arith.mulf %x, %cst : f32
      %e = math.exp %m : f32
      memref.store %e, %out[%i, %j] : memref<4x8xf32>
    }
  }
  return
}

// Non-constant captured values (a dynamic bound from memref.dim, a scalar
// argument) become arguments too, in the order the nest's ops (inner ones
// first) use them; constants are still cloned.
// CHECK-LABEL: func.func private @dynamic_loop
// CHECK-SAME:    (%[[A:.*]]: memref<?xf32>, %[[S:.*]]: f32, %[[N:.*]]: index) attributes {passthrough = ["noinline"]} {
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]] {
// CHECK-NEXT:      memref.load %[[A]][%[[I]]] : memref<?xf32>
// CHECK-NEXT:      arith.mulf %{{.*}}, %[[S]] : f32
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[A:.*]]: memref<?xf32>, %[[S:.*]]: f32)
// CHECK:         %[[N:.*]] = memref.dim %[[A]], %{{.*}} : memref<?xf32>
// CHECK-NEXT:    call @dynamic_loop(%[[A]], %[[S]], %[[N]]) : (memref<?xf32>, f32, index) -> ()
// CHECK-NEXT:    return

// MIN-LABEL: func.func @dynamic(
// MIN:         scf.for %
func.func @dynamic(%a: memref<?xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = arith.mulf %x, %s : f32
    %z = arith.addf %y, %s : f32
    %w = arith.mulf %z, %z : f32
    %v = arith.addf %w, %z : f32
    memref.store %v, %a[%i] : memref<?xf32>
  }
  return
}

// 3 ops (one below the default min-ops): stays inline.
// CHECK-LABEL: func.func @below_min_ops
// CHECK-NOT:     call
// CHECK:         scf.for
// CHECK-NOT:     call
// CHECK:         return
func.func @below_min_ops(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  return
}

// A loop with iter_args (and so results) stays, however large.
// CHECK-LABEL: func.func @iter_args
// CHECK-NOT:     call
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args
// CHECK-NOT:     call
// CHECK:         return %[[R]] : f32
func.func @iter_args(%a: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %z) -> f32 {
    %x = memref.load %a[%i] : memref<8xf32>
    %y = arith.mulf %x, %x : f32
    %w = arith.addf %y, %x : f32
    %v = arith.addf %acc, %w : f32
    %u = arith.addf %v, %x : f32
    %t = arith.mulf %u, %u : f32
    %q = arith.addf %t, %u : f32
    scf.yield %q : f32
  }
  return %r : f32
}

// Declarations are skipped.
// CHECK-LABEL: func.func private @decl(memref<4xf32>)

// Nothing else was outlined (no @below_min_ops_loop, no @iter_args_loop).
// CHECK-NOT:   _loop

// MIN-NOT:     _loop
func.func private @decl(memref<4xf32>)
