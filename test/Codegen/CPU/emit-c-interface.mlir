// RUN: tiny-opt %s --tt-emit-c-interface | FileCheck %s

// --tt-emit-c-interface marks every public func.func with a body with
// llvm.emit_c_interface (so that --convert-func-to-llvm emits a
// _mlir_ciface_ wrapper); private functions and declarations are left alone.

// CHECK-LABEL: func.func @public_fn
// CHECK-SAME:    (%{{.*}}: tensor<4xf32>) -> tensor<4xf32> attributes {llvm.emit_c_interface} {
// CHECK-NEXT:    return
func.func @public_fn(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// CHECK-LABEL: func.func private @private_fn
// CHECK-SAME:    (%{{.*}}: i32) -> i32 {
// CHECK-NEXT:    return
func.func private @private_fn(%a: i32) -> i32 {
  return %a : i32
}

// A declaration (always private) has no body to wrap.
// CHECK-LABEL: func.func private @decl
// CHECK-SAME:    (i32) -> i32{{$}}
func.func private @decl(i32) -> i32

// Other attributes are kept; the unit attribute is added next to them.
// CHECK-LABEL: func.func @with_attrs
// CHECK-SAME:    attributes {llvm.emit_c_interface, tt.keep = 1 : i64} {
func.func @with_attrs() attributes {tt.keep = 1 : i64} {
  return
}

// Already marked: stays marked (once).
// CHECK-LABEL: func.func @already
// CHECK-SAME:    attributes {llvm.emit_c_interface} {
func.func @already() attributes {llvm.emit_c_interface} {
  return
}

// CHECK-NOT: emit_c_interface
