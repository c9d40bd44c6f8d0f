// RUN: tiny-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// tt.scatter: round trip of each mode, and every error of its type
// inference.

// CHECK-LABEL: func.func @modes
// CHECK: tt.scatter set %{{.*}}[%{{.*}}], %{{.*}} : (tensor<5x3xf32>, tensor<4xi64>, tensor<4x3xf32>) -> tensor<5x3xf32>
// CHECK: tt.scatter add
// CHECK: tt.scatter mul
// CHECK: tt.scatter max
// CHECK: tt.scatter min %{{.*}}[%{{.*}}], %{{.*}} : (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
func.func @modes(%t: tensor<5x3xf32>, %i: tensor<4xi64>, %u: tensor<4x3xf32>, %e: tensor<?xi32>) {
  %0 = tt.scatter set %t[%i], %u : (tensor<5x3xf32>, tensor<4xi64>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %1 = tt.scatter add %t[%i], %u : (tensor<5x3xf32>, tensor<4xi64>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %2 = tt.scatter mul %t[%i], %u : (tensor<5x3xf32>, tensor<4xi64>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %3 = tt.scatter max %t[%i], %u : (tensor<5x3xf32>, tensor<4xi64>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %4 = tt.scatter min %e[%e], %e : (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  return
}

// -----

func.func @element_types(%t: tensor<5x3xf32>, %i: tensor<4xi64>, %u: tensor<4x3xf64>) {
  // expected-error @+2 {{scatter: the updates' element type 'f64' differs from the table's 'f32'}}
  // expected-error @+1 {{'tt.scatter' op failed to infer returned types}}
  %0 = tt.scatter set %t[%i], %u : (tensor<5x3xf32>, tensor<4xi64>, tensor<4x3xf64>) -> tensor<5x3xf32>
  return
}

// -----

func.func @combining_booleans(%t: tensor<5xi1>, %i: tensor<4xi64>, %u: tensor<4xi1>) {
  // expected-error @+2 {{scatter: a combining mode takes numbers, not booleans}}
  // expected-error @+1 {{'tt.scatter' op failed to infer returned types}}
  %0 = tt.scatter add %t[%i], %u : (tensor<5xi1>, tensor<4xi64>, tensor<4xi1>) -> tensor<5xi1>
  return
}

// -----

func.func @indices_rank(%t: tensor<5x3xf32>, %i: tensor<2x2xi64>, %u: tensor<4x3xf32>) {
  // expected-error @+2 {{scatter: the indices must be 1-D, got rank 2}}
  // expected-error @+1 {{'tt.scatter' op failed to infer returned types}}
  %0 = tt.scatter set %t[%i], %u : (tensor<5x3xf32>, tensor<2x2xi64>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @updates_rank(%t: tensor<5x3xf32>, %i: tensor<4xi64>, %u: tensor<4xf32>) {
  // expected-error @+2 {{scatter: the updates have rank 1 but the table has rank 2 (one row of updates per index)}}
  // expected-error @+1 {{'tt.scatter' op failed to infer returned types}}
  %0 = tt.scatter set %t[%i], %u : (tensor<5x3xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @row_count(%t: tensor<5x3xf32>, %i: tensor<4xi64>, %u: tensor<3x3xf32>) {
  // expected-error @+2 {{scatter: 4 indices but 3 rows of updates}}
  // expected-error @+1 {{'tt.scatter' op failed to infer returned types}}
  %0 = tt.scatter set %t[%i], %u : (tensor<5x3xf32>, tensor<4xi64>, tensor<3x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @row_width(%t: tensor<5x3xf32>, %i: tensor<4xi64>, %u: tensor<4x2xf32>) {
  // expected-error @+2 {{scatter: dimension 1 of the updates is 2 but the table's is 3}}
  // expected-error @+1 {{'tt.scatter' op failed to infer returned types}}
  %0 = tt.scatter set %t[%i], %u : (tensor<5x3xf32>, tensor<4xi64>, tensor<4x2xf32>) -> tensor<5x3xf32>
  return
}
