// RUN: tiny-opt %s --tt-to-linalg --split-input-file -verify-diagnostics

// --tt-to-linalg needs ranked types: the first tt op with an unranked type
// is reported and the pass fails. (-verify-diagnostics makes tiny-opt exit 0
// when exactly the expected diagnostics are produced. A `not` RUN line for
// the exit status is not possible yet: lit.cfg.py only substitutes `not`
// after a pipe and the LLVM tools directory is not on PATH.)

func.func @unranked_operand(%a: tensor<*xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'tt.add' op cannot be converted to linalg: type 'tensor<*xf32>' is unranked (run --tt-infer-shapes first)}}
  %0 = tt.add %a, %b : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Only the result is unranked; the ranked op before it is not reported.
func.func @unranked_result(%a: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = tt.exp %a : tensor<2x3xf32>
  // expected-error @+1 {{'tt.reshape' op cannot be converted to linalg: type 'tensor<*xf32>' is unranked}}
  %1 = tt.reshape %0 [6] : tensor<2x3xf32> -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// Integer element types are named in the diagnostic too.
func.func @unranked_matmul(%a: tensor<*xi32>, %b: tensor<*xi32>) -> tensor<*xi32> {
  // expected-error @+1 {{'tt.matmul' op cannot be converted to linalg: type 'tensor<*xi32>' is unranked}}
  %0 = tt.matmul %a, %b : (tensor<*xi32>, tensor<*xi32>) -> tensor<*xi32>
  return %0 : tensor<*xi32>
}

// -----

func.func @unranked_reduction(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'tt.sum' op cannot be converted to linalg: type 'tensor<*xf32>' is unranked}}
  %0 = tt.sum %a axes = [0] : tensor<*xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// A reshape with dynamic dimensions that is not one collapse or expand.
func.func @dynamic_general_reshape(%a: tensor<?x6xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{'tt.reshape' op cannot be converted to linalg: a reshape with dynamic dimensions must be one collapse or expand of dimensions ('tensor<?x6xf32>' to 'tensor<?x2xf32>')}}
  %0 = tt.reshape %a [-1, 2] : tensor<?x6xf32> -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// Unsigned types are made signless by --tt-legalize-types first.
func.func @unsigned(%a: tensor<3xui8>) -> tensor<3xui8> {
  // expected-error @+1 {{'tt.add' op cannot be converted to linalg: type 'tensor<3xui8>' is unsigned (run --tt-legalize-types first)}}
  %0 = tt.add %a, %a : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}
