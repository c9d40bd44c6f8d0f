// RUN: tiny-opt %s --split-input-file --allow-unregistered-dialect --tt-inline-alloca-scopes | FileCheck %s

// A scope around heap allocations and loops only is inlined, wherever it is
// (here not the last op of its region).
// CHECK-LABEL: func.func @no_stack
// CHECK-NOT:     memref.alloca_scope
// CHECK:         scf.for
// CHECK:           memref.alloc()
// CHECK:           memref.dealloc
// CHECK:           %[[R:.*]] = arith.addi
// CHECK:           "test.use"(%[[R]])
func.func @no_stack(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %r = memref.alloca_scope -> (index) {
      %a = memref.alloc() : memref<64xf32>
      memref.dealloc %a : memref<64xf32>
      %s = arith.addi %i, %c1 : index
      memref.alloca_scope.return %s : index
    }
    "test.use"(%r) : (index) -> ()
    "test.other"() : () -> ()
  }
  return
}

// -----

// A scope around a stack allocation stays.
// CHECK-LABEL: func.func @stack
// CHECK:         memref.alloca_scope
// CHECK:           memref.alloca
func.func @stack(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.alloca_scope {
      %a = memref.alloca() : memref<64xf32>
      "test.use"(%a) : (memref<64xf32>) -> ()
    }
    "test.other"() : () -> ()
  }
  return
}
