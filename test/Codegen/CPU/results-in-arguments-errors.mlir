// RUN: tiny-opt %s --split-input-file --tt-results-in-arguments --verify-diagnostics

// tt-results-in-arguments refuses a tt.updated_by it cannot honour, naming
// the argument and the result.

// expected-error @+1 {{argument #0's tt.updated_by names result #2; the function has 1 result(s)}}
func.func @out_of_range(%p: tensor<4xf32> {tt.updated_by = 2 : i64}) -> tensor<4xf32> {
  return %p : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument #0 has type 'tensor<4xf32>', the result #0 written into it 'tensor<8xf32>'}}
func.func @other_type(%p: tensor<4xf32> {tt.updated_by = 0 : i64}, %q: tensor<8xf32>) -> tensor<8xf32> {
  return %q : tensor<8xf32>
}

// -----

// expected-error @+1 {{result #0 is written into two arguments (#0 and #1)}}
func.func @twice(%p: tensor<4xf32> {tt.updated_by = 0 : i64}, %q: tensor<4xf32> {tt.updated_by = 0 : i64}) -> tensor<4xf32> {
  return %p : tensor<4xf32>
}
