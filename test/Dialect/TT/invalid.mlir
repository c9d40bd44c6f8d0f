// RUN: tiny-opt %s -split-input-file -verify-diagnostics

// Every verifier error of the tt dialect. Errors found by type inference are
// followed by a second "failed to infer returned types" error on the same op.

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

func.func @add_bad_broadcast(%a: tensor<2x3xf32>, %b: tensor<5xf32>) {
  // expected-error @+2 {{operands are not broadcast-compatible: operand #1 dimension 0 is 5, expected 3 or 1 to broadcast against dimension 1 of operand #0 (shapes [2, 3] and [5])}}
  // expected-error @+1 {{'tt.add' op failed to infer returned types}}
  %0 = tt.add %a, %b : (tensor<2x3xf32>, tensor<5xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @mul_bad_broadcast_rank3(%a: tensor<4x3x3xf32>, %b: tensor<2x1xf32>) {
  // expected-error @+2 {{operands are not broadcast-compatible: operand #1 dimension 1 is 3, expected 2 or 1 to broadcast against dimension 0 of operand #0 (shapes [2, 1] and [4, 3, 3])}}
  // expected-error @+1 {{'tt.mul' op failed to infer returned types}}
  %0 = tt.mul %b, %a : (tensor<2x1xf32>, tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
  return
}

// -----

func.func @cmp_bad_broadcast(%a: tensor<3xi32>, %b: tensor<2xi32>) {
  // expected-error @+2 {{operands are not broadcast-compatible: operand #1 dimension 0 is 2, expected 3 or 1 to broadcast against dimension 0 of operand #0 (shapes [3] and [2])}}
  // expected-error @+1 {{'tt.cmp' op failed to infer returned types}}
  %0 = tt.cmp lt, %a, %b : (tensor<3xi32>, tensor<2xi32>) -> tensor<3xi1>
  return
}

// -----

// The condition does not broadcast against the values.
func.func @select_bad_condition_broadcast(%c: tensor<4xi1>, %a: tensor<3xf32>, %b: tensor<5x1xf32>) {
  // expected-error @+2 {{operands are not broadcast-compatible: operand #1 dimension 0 is 3, expected 4 or 1 to broadcast against dimension 0 of operand #0 (shapes [4] and [3])}}
  // expected-error @+1 {{'tt.select' op failed to infer returned types}}
  %0 = tt.select %c, %a, %b : (tensor<4xi1>, tensor<3xf32>, tensor<5x1xf32>) -> tensor<5x3xf32>
  return
}

// -----

// The two values do not broadcast against each other.
func.func @select_bad_value_broadcast(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{dimension 0 is 2, expected 3 or 1 to broadcast against dimension 0 of operand}}
  // expected-error @+1 {{'tt.select' op failed to infer returned types}}
  %0 = tt.select %c, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

// -----

func.func @add_element_type_mismatch(%a: tensor<3xf32>, %b: tensor<3xi32>) {
  // expected-error @+2 {{element type mismatch: operand #1 has element type 'i32' but operand #0 has 'f32'; insert a tt.cast to make them agree}}
  // expected-error @+1 {{'tt.add' op failed to infer returned types}}
  %0 = tt.add %a, %b : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @cmp_element_type_mismatch(%a: tensor<3xf64>, %b: tensor<3xf32>) {
  // expected-error @+2 {{element type mismatch: operand #1 has element type 'f32' but operand #0 has 'f64'}}
  // expected-error @+1 {{'tt.cmp' op failed to infer returned types}}
  %0 = tt.cmp eq, %a, %b : (tensor<3xf64>, tensor<3xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @select_element_type_mismatch(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xi32>) {
  // expected-error @+2 {{element type mismatch}}
  // expected-error @+1 {{'tt.select' op failed to infer returned types}}
  %0 = tt.select %c, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @matmul_element_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x4xi32>) {
  // expected-error @+2 {{element type mismatch: lhs has 'f32' but rhs has 'i32'}}
  // expected-error @+1 {{'tt.matmul' op failed to infer returned types}}
  %0 = tt.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @concat_element_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x4xi32>) {
  // expected-error @+2 {{element type mismatch: input #1 has 'i32' but input #0 has 'f32'}}
  // expected-error @+1 {{'tt.concat' op failed to infer returned types}}
  %0 = tt.concat %a, %b axis = 1 : (tensor<2x3xf32>, tensor<2x4xi32>) -> tensor<2x7xf32>
  return
}

// -----

// Type constraints: i1 is not a numeric type.
func.func @add_i1(%a: tensor<3xi1>, %b: tensor<3xi1>) {
  // expected-error @+1 {{'tt.add' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer values, but got 'tensor<3xi1>'}}
  %0 = tt.add %a, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @exp_i32(%a: tensor<3xi32>) {
  // expected-error @+1 {{'tt.exp' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3xi32>'}}
  %0 = tt.exp %a : tensor<3xi32>
  return
}

// -----

func.func @mean_i32(%a: tensor<3x2xi32>) {
  // expected-error @+1 {{'tt.mean' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3x2xi32>'}}
  %0 = tt.mean %a axes = [1] : tensor<3x2xi32> -> tensor<3xi32>
  return
}

// -----

func.func @var_i32(%a: tensor<3xi32>) {
  // expected-error @+1 {{'tt.var' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3xi32>'}}
  %0 = tt.var %a axes = [0] : tensor<3xi32> -> tensor<i32>
  return
}

// -----

func.func @cmp_result_not_i1(%a: tensor<3xf32>) {
  // expected-error @+1 {{'tt.cmp' op result #0 must be tensor of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = tt.cmp lt, %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @select_condition_not_i1(%c: tensor<3xf32>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'tt.select' op operand #0 must be tensor of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = tt.select %c, %a, %a : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_f32_indices(%t: tensor<50x8xf32>, %i: tensor<4xf32>) {
  // expected-error @+1 {{'tt.gather' op operand #1 must be tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = tt.gather %t[%i] : (tensor<50x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @cast_to_ui16(%a: tensor<3xf32>) {
  // expected-error @+1 {{'tt.cast' op attribute 'to' failed to satisfy constraint: type attribute of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 1-bit signless integer}}
  %0 = tt.cast %a to ui16 : tensor<3xf32> -> tensor<3xui16>
  return
}

// -----

func.func @cast_from_ui16(%a: tensor<3xui16>) {
  // expected-error @+1 {{'tt.cast' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 1-bit signless integer values, but got 'tensor<3xui16>'}}
  %0 = tt.cast %a to f32 : tensor<3xui16> -> tensor<3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Dynamic dimensions: the ops whose attributes spell out sizes reject them
// (elementwise ops, reductions, matmul and transpose take them; see ops.mlir)
//===----------------------------------------------------------------------===//

// -----

func.func @dynamic_dim_reshape(%a: tensor<?x3xf32>) {
  // expected-error @+2 {{a reshape of 'tensor<?x3xf32>' (dynamic dimensions) needs -1 in its target shape for the dynamic size, got [6]}}
  // expected-error @+1 {{'tt.reshape' op failed to infer returned types}}
  %0 = tt.reshape %a [6] : tensor<?x3xf32> -> tensor<6xf32>
  return
}

// -----

func.func @reshape_two_inferred(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{target shape [-1, -1] has more than one -1}}
  // expected-error @+1 {{'tt.reshape' op failed to infer returned types}}
  %0 = tt.reshape %a [-1, -1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @dynamic_dim_slice(%a: tensor<?x3xf32>) {
  // expected-error @+2 {{dimension 0 of the sliced tensor 'tensor<?x3xf32>' is dynamic: a slice takes all of it (size -1)}}
  // expected-error @+1 {{'tt.slice' op failed to infer returned types}}
  %0 = tt.slice %a starts = [0, 0] sizes = [1, 3] strides = [1, 1] : tensor<?x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @dynamic_dim_sort(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'tt.sort' op operand #0 must be statically shaped or unranked tensor}}
  %0:2 = tt.sort %a axis = 1 : tensor<?x3xf32> -> tensor<?x3xf32>, tensor<?x3xi32>
  return
}

// -----

// A static size that disagrees with another static size is still an error
// where a dynamic one is involved elsewhere.
func.func @dynamic_dim_mismatch(%a: tensor<?x3xf32>, %b: tensor<?x4xf32>) {
  // expected-error @+2 {{operands are not broadcast-compatible: operand #1 dimension 1 is 4, expected 3 or 1}}
  // expected-error @+1 {{'tt.add' op failed to infer returned types}}
  %0 = tt.add %a, %b : (tensor<?x3xf32>, tensor<?x4xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @dynamic_matmul_mismatch(%a: tensor<?x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+2 {{matmul contraction sizes differ: lhs dimension 1 is 3 but rhs dimension 0 is 4}}
  // expected-error @+1 {{'tt.matmul' op failed to infer returned types}}
  %0 = tt.matmul %a, %b : (tensor<?x3xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// Declared result type incompatible with the inferred one
//===----------------------------------------------------------------------===//

// -----

func.func @add_wrong_result_shape(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'tt.add' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'tt.add' op failed to infer returned types}}
  %0 = tt.add %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @add_wrong_result_element_type(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'tt.add' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<3xf64>'}}
  // expected-error @+1 {{'tt.add' op failed to infer returned types}}
  %0 = tt.add %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf64>
  return
}

// -----

// Broadcasting the scalar does not give the declared rank-0 result.
func.func @sub_wrong_result_rank(%a: tensor<3xf32>, %b: tensor<f32>) {
  // expected-error @+2 {{'tt.sub' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{'tt.sub' op failed to infer returned types}}
  %0 = tt.sub %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @sum_keepdims_wrong_result(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{'tt.sum' op inferred type(s) 'tensor<3x1xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'tt.sum' op failed to infer returned types}}
  %0 = tt.sum %a axes = [1] keepdims : tensor<3x4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @matmul_wrong_result(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'tt.matmul' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<1xf32>'}}
  // expected-error @+1 {{'tt.matmul' op failed to infer returned types}}
  %0 = tt.matmul %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @transpose_wrong_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'tt.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'tt.transpose' op failed to infer returned types}}
  %0 = tt.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @cast_wrong_result(%a: tensor<3xf32>) {
  // expected-error @+2 {{'tt.cast' op inferred type(s) 'tensor<3xi32>' are incompatible with return type(s) of operation 'tensor<3xf64>'}}
  // expected-error @+1 {{'tt.cast' op failed to infer returned types}}
  %0 = tt.cast %a to i32 : tensor<3xf32> -> tensor<3xf64>
  return
}

// -----

func.func @gather_wrong_result(%t: tensor<50x8xf32>, %i: tensor<2x4xi32>) {
  // expected-error @+2 {{'tt.gather' op inferred type(s) 'tensor<2x4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{'tt.gather' op failed to infer returned types}}
  %0 = tt.gather %t[%i] : (tensor<50x8xf32>, tensor<2x4xi32>) -> tensor<4x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

func.func @sum_axis_out_of_range(%a: tensor<3xf32>) {
  // expected-error @+2 {{axis 1 is out of range for a tensor of rank 1 (expected 0 <= axis < 1)}}
  // expected-error @+1 {{'tt.sum' op failed to infer returned types}}
  %0 = tt.sum %a axes = [1] : tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @reduce_max_negative_axis(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{axis -1 is out of range for a tensor of rank 2 (expected 0 <= axis < 2)}}
  // expected-error @+1 {{'tt.reduce_max' op failed to infer returned types}}
  %0 = tt.reduce_max %a axes = [-1] : tensor<3x4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @mean_axis_out_of_range_rank0(%a: tensor<f32>) {
  // expected-error @+2 {{axis 0 is out of range for a tensor of rank 0 (expected 0 <= axis < 0)}}
  // expected-error @+1 {{'tt.mean' op failed to infer returned types}}
  %0 = tt.mean %a axes = [0] : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @sum_repeated_axis(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{axis 1 is repeated}}
  // expected-error @+1 {{'tt.sum' op failed to infer returned types}}
  %0 = tt.sum %a axes = [1, 1] : tensor<3x4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @var_repeated_axis(%a: tensor<2x3x4xf64>) {
  // expected-error @+2 {{axis 0 is repeated}}
  // expected-error @+1 {{'tt.var' op failed to infer returned types}}
  %0 = tt.var %a axes = [0, 2, 0] {ddof = 1 : i64} : tensor<2x3x4xf64> -> tensor<3xf64>
  return
}

// -----

func.func @var_float_ddof(%a: tensor<3xf32>) {
  // expected-error @+1 {{'tt.var' op attribute 'ddof' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = tt.var %a axes = [0] {ddof = 1.0 : f32} : tensor<3xf32> -> tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// Transpose
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_wrong_length(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{permutation [1, 0] has 2 entries but the input has rank 3}}
  // expected-error @+1 {{'tt.transpose' op failed to infer returned types}}
  %0 = tt.transpose %a [1, 0] : tensor<2x3x4xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_repeated(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{permutation [1, 0, 1] is not a permutation of [0, 3)}}
  // expected-error @+1 {{'tt.transpose' op failed to infer returned types}}
  %0 = tt.transpose %a [1, 0, 1] : tensor<2x3x4xf32> -> tensor<3x2x3xf32>
  return
}

// -----

func.func @transpose_out_of_range(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{permutation [0, 1, 3] is not a permutation of [0, 3)}}
  // expected-error @+1 {{'tt.transpose' op failed to infer returned types}}
  %0 = tt.transpose %a [0, 1, 3] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @transpose_negative(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{permutation [-1, 0] is not a permutation of [0, 2)}}
  // expected-error @+1 {{'tt.transpose' op failed to infer returned types}}
  %0 = tt.transpose %a [-1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_contraction_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{matmul contraction sizes differ: lhs dimension 1 is 3 but rhs dimension 0 is 4 (shapes [2, 3] and [4, 5])}}
  // expected-error @+1 {{'tt.matmul' op failed to infer returned types}}
  %0 = tt.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_contraction_mismatch_vector(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{matmul contraction sizes differ: lhs dimension 1 is 3 but rhs dimension 0 is 4 (shapes [2, 3] and [4])}}
  // expected-error @+1 {{'tt.matmul' op failed to infer returned types}}
  %0 = tt.matmul %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @matmul_contraction_mismatch_batched(%a: tensor<5x2x3xf32>, %b: tensor<5x2x4xf32>) {
  // expected-error @+2 {{matmul contraction sizes differ: lhs dimension 2 is 3 but rhs dimension 1 is 2 (shapes [5, 2, 3] and [5, 2, 4])}}
  // expected-error @+1 {{'tt.matmul' op failed to infer returned types}}
  %0 = tt.matmul %a, %b : (tensor<5x2x3xf32>, tensor<5x2x4xf32>) -> tensor<5x2x4xf32>
  return
}

// -----

func.func @matmul_rank0(%a: tensor<f32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{matmul operands must have rank >= 1, got rank 0 and rank 1 (use tt.mul for scalars)}}
  // expected-error @+1 {{'tt.matmul' op failed to infer returned types}}
  %0 = tt.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x2x3xf32>, %b: tensor<5x3x4xf32>) {
  // expected-error @+2 {{matmul batch dimensions are not broadcast-compatible: [2] vs [5]}}
  // expected-error @+1 {{'tt.matmul' op failed to infer returned types}}
  %0 = tt.matmul %a, %b : (tensor<2x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reshape and broadcast_to
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_element_count(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  // expected-error @+1 {{'tt.reshape' op failed to infer returned types}}
  %0 = tt.reshape %a [4, 2] : tensor<2x3xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_negative_size(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{target shape [-2, 6] has negative size -2 at dimension 0}}
  // expected-error @+1 {{'tt.reshape' op failed to infer returned types}}
  %0 = tt.reshape %a [-2, 6] : tensor<2x3xf32> -> tensor<1x6xf32>
  return
}

// -----

// -1 is the inferred size; the declared type must agree with it.
func.func @reshape_inferred_mismatch(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'tt.reshape' op inferred type(s) 'tensor<1x6xf32>' are incompatible with return type(s) of operation 'tensor<2x6xf32>'}}
  // expected-error @+1 {{'tt.reshape' op failed to infer returned types}}
  %0 = tt.reshape %a [-1, 6] : tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @broadcast_to_incompatible(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{cannot broadcast [2, 3] to [4, 3]: input dimension 0 is 2, expected 4 or 1}}
  // expected-error @+1 {{'tt.broadcast_to' op failed to infer returned types}}
  %0 = tt.broadcast_to %a [4, 3] : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @broadcast_to_lower_rank(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{cannot broadcast rank-2 shape [2, 3] to lower rank shape [3]}}
  // expected-error @+1 {{'tt.broadcast_to' op failed to infer returned types}}
  %0 = tt.broadcast_to %a [3] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

// -----

func.func @slice_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{slice of dimension 1 (start 2, size 2, stride 1) is out of range for size 3}}
  // expected-error @+1 {{'tt.slice' op failed to infer returned types}}
  %0 = tt.slice %a starts = [0, 2] sizes = [2, 2] strides = [1, 1] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

// The last accessed index, 0 + (2 - 1) * 3 = 3, is past the end.
func.func @slice_stride_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{slice of dimension 1 (start 0, size 2, stride 3) is out of range for size 3}}
  // expected-error @+1 {{'tt.slice' op failed to infer returned types}}
  %0 = tt.slice %a starts = [0, 0] sizes = [2, 2] strides = [1, 3] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_negative_start(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{slice of dimension 1 (start -1, size 1, stride 1) is out of range for size 3}}
  // expected-error @+1 {{'tt.slice' op failed to infer returned types}}
  %0 = tt.slice %a starts = [0, -1] sizes = [2, 1] strides = [1, 1] : tensor<2x3xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @slice_zero_stride(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{stride 0 of dimension 1 must be at least 1}}
  // expected-error @+1 {{'tt.slice' op failed to infer returned types}}
  %0 = tt.slice %a starts = [0, 0] sizes = [2, 2] strides = [1, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_negative_size(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{size -2 of dimension 1 is negative}}
  // expected-error @+1 {{'tt.slice' op failed to infer returned types}}
  %0 = tt.slice %a starts = [0, 0] sizes = [2, -2] strides = [1, 1] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

// -1 is the whole dimension: start 0 and stride 1 only.
func.func @slice_whole_with_start(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{size -1 (the whole dimension) of dimension 1 needs start 0 and stride 1}}
  // expected-error @+1 {{'tt.slice' op failed to infer returned types}}
  %0 = tt.slice %a starts = [0, 1] sizes = [2, -1] strides = [1, 1] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_length_mismatch(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{starts, sizes and strides must have the same length, got 2, 1 and 2}}
  // expected-error @+1 {{'tt.slice' op failed to infer returned types}}
  %0 = tt.slice %a starts = [0, 0] sizes = [2] strides = [1, 1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @slice_rank_mismatch(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{slice has 1 dimensions but the input has rank 2}}
  // expected-error @+1 {{'tt.slice' op failed to infer returned types}}
  %0 = tt.slice %a starts = [0] sizes = [2] strides = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

//===----------------------------------------------------------------------===//
// Concat
//===----------------------------------------------------------------------===//

// -----

func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{rank mismatch: input #1 has rank 1 but input #0 has rank 2}}
  // expected-error @+1 {{'tt.concat' op failed to infer returned types}}
  %0 = tt.concat %a, %b axis = 0 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @concat_dimension_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x4xf32>) {
  // expected-error @+2 {{input #2 dimension 1 is 4 but input #0 has 3 (only the concatenation axis 0 may differ)}}
  // expected-error @+1 {{'tt.concat' op failed to infer returned types}}
  %0 = tt.concat %a, %b, %c axis = 0 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<6x3xf32>
  return
}

// -----

func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{axis 2 is out of range for inputs of rank 2}}
  // expected-error @+1 {{'tt.concat' op failed to infer returned types}}
  %0 = tt.concat %a, %b axis = 2 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
  return
}

// -----

func.func @concat_negative_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{axis -1 is out of range for inputs of rank 2}}
  // expected-error @+1 {{'tt.concat' op failed to infer returned types}}
  %0 = tt.concat %a axis = -1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+2 {{concat needs at least one input}}
  // expected-error @+1 {{'tt.concat' op failed to infer returned types}}
  %0 = tt.concat axis = 0 : () -> tensor<2x7xf32>
  return
}

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

// -----

func.func @gather_rank0_table(%t: tensor<f32>, %i: tensor<4xi32>) {
  // expected-error @+2 {{cannot gather from a rank-0 table}}
  // expected-error @+1 {{'tt.gather' op failed to infer returned types}}
  %0 = tt.gather %t[%i] : (tensor<f32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

// -----

func.func @constant_result_shape_mismatch() {
  // expected-error @+2 {{'tt.constant' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'tt.constant' op failed to infer returned types}}
  %0 = "tt.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<4xf32>
  return
}

// -----

func.func @constant_result_element_type_mismatch() {
  // expected-error @+2 {{'tt.constant' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<3xf64>'}}
  // expected-error @+1 {{'tt.constant' op failed to infer returned types}}
  %0 = "tt.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<3xf64>
  return
}

// -----

func.func @constant_vector_value() {
  // expected-error @+1 {{'tt.constant' op value must be a statically shaped tensor, got 'vector<3xf32>'}}
  %0 = "tt.constant"() {value = dense<1.0> : vector<3xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @constant_vector_result() {
  // expected-error @+1 {{'tt.constant' op result #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 1-bit signless integer values, but got 'vector<3xf32>'}}
  %0 = tt.constant dense<1.0> : vector<3xf32>
  return
}

// -----

func.func @constant_ui16() {
  // expected-error @+1 {{'tt.constant' op result #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 1-bit signless integer values, but got 'tensor<3xui16>'}}
  %0 = tt.constant dense<1> : tensor<3xui16>
  return
}

// -----

func.func @constant_scalar_attribute() {
  // expected-error @+1 {{'tt.constant' op attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %0 = "tt.constant"() {value = 1.0 : f32} : () -> tensor<f32>
  return
}

// -----

func.func @constant_scalar_attribute_custom_form() {
  // expected-error @+1 {{custom op 'tt.constant' invalid kind of attribute specified}}
  %0 = tt.constant 1.0 : f32
  return
}

// -----

func.func @iota_dimension_out_of_range(%x: tensor<4x3xf32>) -> tensor<4xi32> {
  // expected-error @+2 {{iota: dimension 2 is out of range for 'tensor<4x3xf32>'}}
  // expected-error @+1 {{'tt.iota' op failed to infer returned types}}
  %0 = tt.iota %x dim = 2 : tensor<4x3xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @bitcast_width(%a: tensor<3xf32>) {
  // expected-error @+1 {{'tt.bitcast' op reinterprets 'f32' as 'i64': the element types must have the same width (not i1)}}
  %0 = tt.bitcast %a to i64 : tensor<3xf32> -> tensor<3xi64>
  return
}
