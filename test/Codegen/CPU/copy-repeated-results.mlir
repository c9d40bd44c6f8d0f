// RUN: tiny-opt %s --split-input-file --tt-copy-repeated-results | FileCheck %s
// RUN: tiny-opt %s --split-input-file '--tt-lower-to-llvm=out-params=true tile=false vectorize=false outline=false' | FileCheck %s --check-prefix=LLVM

// --tt-copy-repeated-results: when func.return lists one tensor more than
// once, every repetition after the first returns a linalg.copy of it into a
// new tensor.empty, so that each result gets its own buffer.

// CHECK-LABEL: func.func @twice
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[X:.*]] = linalg.add ins(%[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>) outs(%[[B]] : tensor<4xf32>)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = linalg.copy ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %[[X]], %[[C]] : tensor<4xf32>, tensor<4xf32>
func.func @twice(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%b : tensor<4xf32>) -> tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// An argument returned three times, around a distinct one: two copies, each
// into its own tensor.empty; the first occurrence and %b stay.
// CHECK-LABEL: func.func @three_times
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<2x3xi32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<2x3xi32>
// CHECK-NEXT:    %[[C1:.*]] = linalg.copy ins(%[[A]] : tensor<2x3xi32>) outs(%[[E1]] : tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<2x3xi32>
// CHECK-NEXT:    %[[C2:.*]] = linalg.copy ins(%[[A]] : tensor<2x3xi32>) outs(%[[E2]] : tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C1]], %[[C2]] :
func.func @three_times(%a: tensor<2x3xi32>, %b: tensor<2x3xi32>) -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>) {
  return %a, %b, %a, %a : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>
}

// -----

// Distinct results, and repeated non-tensor results, are left alone.
// CHECK-LABEL: func.func @distinct
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT:    return %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>
func.func @distinct(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @scalars
// CHECK-SAME:    (%[[X:.*]]: f32)
// CHECK-NEXT:    return %[[X]], %[[X]] : f32, f32
func.func @scalars(%x: f32) -> (f32, f32) {
  return %x, %x : f32, f32
}

// -----

// Through the whole pipeline with caller-allocated results: a tt function
// returning one value twice used to crash upstream
// --buffer-results-to-out-params. Now both results become output memrefs
// (3 descriptors of 5 values each): exp is stored into the first one, which
// is then copied into the second.
// CHECK-LABEL: func.func @tt_twice
// CHECK:         %[[X:.*]] = tt.exp
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = linalg.copy ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK-NEXT:    return %[[X]], %[[C]]

// LLVM-LABEL: llvm.func @tt_twice(
// LLVM-SAME:    %{{[a-z0-9]+}}: !llvm.ptr, %[[IN:[a-z0-9]+]]: !llvm.ptr, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64,
// LLVM-SAME:    %{{[a-z0-9]+}}: !llvm.ptr, %[[OUT1:[a-z0-9]+]]: !llvm.ptr, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64,
// LLVM-SAME:    %{{[a-z0-9]+}}: !llvm.ptr, %[[OUT2:[a-z0-9]+]]: !llvm.ptr, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64) attributes {llvm.emit_c_interface} {
// LLVM-NOT:     llvm.return
// LLVM:         %[[PIN:.*]] = llvm.getelementptr {{.*}}%[[IN]][
// LLVM-NEXT:    llvm.load %[[PIN]] : !llvm.ptr -> f32
// LLVM-NOT:     llvm.return
// LLVM:         %[[P1:.*]] = llvm.getelementptr {{.*}}%[[OUT1]][
// LLVM-NEXT:    llvm.store %{{.*}}, %[[P1]] : f32, !llvm.ptr
// LLVM-NOT:     llvm.return
// LLVM:         %[[Q1:.*]] = llvm.getelementptr {{.*}}%[[OUT1]][
// LLVM-NEXT:    %[[V:.*]] = llvm.load %[[Q1]] : !llvm.ptr -> f32
// LLVM-NEXT:    %[[P2:.*]] = llvm.getelementptr {{.*}}%[[OUT2]][
// LLVM-NEXT:    llvm.store %[[V]], %[[P2]] : f32, !llvm.ptr
// LLVM:         llvm.return{{$}}
// LLVM-LABEL: llvm.func @_mlir_ciface_tt_twice(
// LLVM-SAME:    %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// LLVM:         llvm.call @tt_twice(
func.func @tt_twice(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tt.exp %a : tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Dynamic shapes: the copy's tensor.empty takes the sizes of the value.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[A:.*]]: tensor<?xf32>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[DIM:.*]] = tensor.dim %[[A]], %[[C0]] : tensor<?xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[DIM]]) : tensor<?xf32>
// CHECK:         %[[COPY:.*]] = linalg.copy ins(%[[A]] : tensor<?xf32>) outs(%[[E]] : tensor<?xf32>)
// CHECK:         return %[[A]], %[[COPY]]
func.func @dynamic(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  return %a, %a : tensor<?xf32>, tensor<?xf32>
}
