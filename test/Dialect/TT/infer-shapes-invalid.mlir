// RUN: tiny-opt %s --split-input-file --tt-infer-shapes -verify-diagnostics

// Operands seen through shape-erasing casts are checked again: shapes that
// were only compatible while unranked are an error, not an invalid op.

func.func @incompatible_behind_casts(%a: tensor<3xf32>, %b: tensor<2xf32>) -> tensor<3xf32> {
  %0 = tensor.cast %a : tensor<3xf32> to tensor<*xf32>
  %1 = tensor.cast %b : tensor<2xf32> to tensor<*xf32>
  // expected-error @+2 {{operands are not broadcast-compatible: operand #1 dimension 0 is 2, expected 3 or 1 to broadcast against dimension 0 of operand #0 (shapes [3] and [2])}}
  // expected-error @+1 {{unable to infer the result shape of this operation}}
  %2 = tt.add %0, %1 : (tensor<*xf32>, tensor<*xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

func.func @declared_type_contradicted(%a: tensor<3x5xf32>) -> tensor<4xf32> {
  %0 = tensor.cast %a : tensor<3x5xf32> to tensor<*xf32>
  // expected-error @+1 {{the refined operand types give result type 'tensor<5xf32>', but the op declares 'tensor<4xf32>'}}
  %1 = tt.sum %0 axes = [0] : tensor<*xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
