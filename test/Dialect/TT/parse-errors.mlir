// RUN: not tiny-opt %s -split-input-file 2>&1 | FileCheck %s
// RUN: not tiny-opt %s 2>&1 | FileCheck %s --check-prefix=FIRST

// Malformed tt syntax makes tiny-opt exit with a non-zero status and a
// diagnostic located at the offending token. Without -split-input-file
// parsing stops at the first error.

// CHECK: parse-errors.mlir:[[@LINE+4]]:8: error: custom op 'tt.foo' is unknown
// FIRST: parse-errors.mlir:[[@LINE+3]]:8: error: custom op 'tt.foo' is unknown
// FIRST-NOT: error
func.func @unknown_op(%a: tensor<3xf32>) {
  %0 = tt.foo %a : tensor<3xf32>
  return
}

// -----

// Missing type list.
// CHECK: parse-errors.mlir:[[@LINE+2]]:21: error: expected ':'
func.func @missing_type(%a: tensor<3xf32>) {
  %0 = tt.add %a, %a
  return
}

// -----

// Missing operand.
// CHECK: parse-errors.mlir:[[@LINE+2]]:17: error: expected ','
func.func @missing_operand(%a: tensor<3xf32>) {
  %0 = tt.add %a : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Missing result type of a shape op.
// CHECK: parse-errors.mlir:[[@LINE+2]]:43: error: expected '->'
func.func @missing_result_type(%a: tensor<3xf32>) {
  %0 = tt.transpose %a [0] : tensor<3xf32>
  return
}

// -----

// Unknown comparison predicate.
// CHECK: parse-errors.mlir:[[@LINE+2]]:15: error: custom op 'tt.cmp' expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]
func.func @bad_predicate(%a: tensor<3xf32>) {
  %0 = tt.cmp foo, %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return
}

// -----

// Missing `axes =` keyword of a reduction.
// CHECK: parse-errors.mlir:[[@LINE+2]]:18: error: custom op 'tt.sum' expected 'axes'
func.func @missing_axes_keyword(%a: tensor<3xf32>) {
  %0 = tt.sum %a [0] : tensor<3xf32> -> tensor<f32>
  return
}

// -----

// A float ddof is rejected while parsing the attribute dictionary.
// CHECK: parse-errors.mlir:[[@LINE+2]]:29: error: custom op 'tt.var' 'tt.var' op attribute 'ddof' failed to satisfy constraint: 64-bit signless integer attribute
func.func @float_ddof(%a: tensor<3xf32>) {
  %0 = tt.var %a axes = [0] {ddof = 1.0 : f32} : tensor<3xf32> -> tensor<f32>
  return
}

// -----

// The generic form with the wrong number of operands.
// CHECK: parse-errors.mlir:[[@LINE+2]]:8: error: 'tt.add' op expected 2 operands, but found 1
func.func @generic_operand_count(%a: tensor<3xf32>) {
  %0 = "tt.add"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return
}
