// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of dynamic dimensions (`?`): each function is
// called with arguments whose static types were cast away, some of them
// twice with different sizes (one compiled function serves both).
// Expected values: NumPy on the same arrays.
//
// mlp(x) = max(x @ w + b, 0) for 3 and then 1 rows; softmax over rows of a
// ?x4 matrix; mean, var(ddof=1), argmax over the dynamic axis and a
// transpose; table[ids] @ w for 4 dynamic ids (one negative); a stack of
// ? 2x3 matrices times a 3x2 matrix, the same as a [?, ?, 3] stack, and
// as a batched matmul of ? pairs.
// CHECK: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
// CHECK-NEXT: {{\[\[}}2.5,   2.5],
// CHECK-NEXT: [2.5,   0],
// CHECK-NEXT: [0,   0]]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [1, 2] strides = [2, 1] data =
// CHECK-NEXT: {{\[\[}}3.5,   0]]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: {{\[\[}}0.03205{{[0-9]*}},   0.08714{{[0-9]*}},   0.2368{{[0-9]*}},   0.6439{{[0-9]*}}],
// CHECK-NEXT: [0.25,   0.25,   0.25,   0.25],
// CHECK-NEXT: [0.01798{{[0-9]*}},   0.0003293{{[0-9]*}},   0.9816{{[0-9]*}},   1.6395{{[0-9]*}}e-05]]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [2,  1,  4,  0.666667]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [7,  1,  21,  9.33333]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [2,  0,  2,  0]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [4, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[\[}}1,   0,   5],
// CHECK-NEXT: [2,   0,   1],
// CHECK-NEXT: [3,   0,   9],
// CHECK-NEXT: [4,   0,   -2]]
// CHECK-NEXT: rank = 2 offset = 0 sizes = [4, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[\[}}4,   0.5,   7.5],
// CHECK-NEXT: [0,   1,   -1],
// CHECK-NEXT: [4,   0.5,   7.5],
// CHECK-NEXT: [2,   2,   2]]
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 2, 2] strides = [4, 2, 1] data =
// CHECK-NEXT: {{\[\[}}[1,    -1],
// CHECK-NEXT: [2,    0.5]],
// CHECK-NEXT: {{\[\[}}-1,    1],
// CHECK-NEXT: [2,    0.5]]]
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 2, 2] strides = [4, 2, 1] data =
// CHECK-NEXT: {{\[\[}}[1,    -1],
// CHECK-NEXT: [2,    0.5]],
// CHECK-NEXT: {{\[\[}}-1,    1],
// CHECK-NEXT: [2,    0.5]]]
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 2, 2] strides = [4, 2, 1] data =
// CHECK-NEXT: {{\[\[}}[1,    -1],
// CHECK-NEXT: [2,    0.5]],
// CHECK-NEXT: {{\[\[}}-1,    1],
// CHECK-NEXT: [2,    0.5]]]

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

func.func @mlp(%x: tensor<?x3xf32>, %w: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<?x2xf32> {
  %0 = tt.matmul %x, %w : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  %1 = tt.add %0, %b : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %z = tt.constant dense<0.0> : tensor<f32>
  %2 = tt.max %1, %z : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
  return %2 : tensor<?x2xf32>
}

func.func @softmax(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %m = tt.reduce_max %x axes = [1] keepdims : tensor<?x4xf32> -> tensor<?x1xf32>
  %d = tt.sub %x, %m : (tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32>
  %e = tt.exp %d : tensor<?x4xf32>
  %s = tt.sum %e axes = [1] keepdims : tensor<?x4xf32> -> tensor<?x1xf32>
  %r = tt.div %e, %s : (tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

func.func @stats(%x: tensor<?x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4x?xf32>) {
  %m = tt.mean %x axes = [0] : tensor<?x4xf32> -> tensor<4xf32>
  %v = tt.var %x axes = [0] {ddof = 1 : i64} : tensor<?x4xf32> -> tensor<4xf32>
  %a = tt.argmax %x axis = 0 : tensor<?x4xf32> -> tensor<4xi32>
  %t = tt.transpose %x [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  return %m, %v, %a, %t : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4x?xf32>
}

func.func @embed(%table: tensor<5x2xf32>, %ids: tensor<?xi32>, %w: tensor<2x3xf32>) -> tensor<?x3xf32> {
  %e = tt.gather %table[%ids] : (tensor<5x2xf32>, tensor<?xi32>) -> tensor<?x2xf32>
  %r = tt.matmul %e, %w : (tensor<?x2xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

func.func @stack(%x: tensor<?x2x3xf32>, %w: tensor<3x2xf32>) -> tensor<?x2x2xf32> {
  %r = tt.matmul %x, %w : (tensor<?x2x3xf32>, tensor<3x2xf32>) -> tensor<?x2x2xf32>
  return %r : tensor<?x2x2xf32>
}

func.func @stack2(%x: tensor<?x?x3xf32>, %w: tensor<3x2xf32>) -> tensor<?x?x2xf32> {
  %r = tt.matmul %x, %w : (tensor<?x?x3xf32>, tensor<3x2xf32>) -> tensor<?x?x2xf32>
  return %r : tensor<?x?x2xf32>
}

func.func @bmm(%x: tensor<?x2x3xf32>, %y: tensor<?x3x2xf32>) -> tensor<?x2x2xf32> {
  %r = tt.matmul %x, %y : (tensor<?x2x3xf32>, tensor<?x3x2xf32>) -> tensor<?x2x2xf32>
  return %r : tensor<?x2x2xf32>
}

func.func @main() {
  %w = tt.constant dense<[[1.0, -1.0], [2.0, 0.5], [-1.0, 1.0]]> : tensor<3x2xf32>
  %b = tt.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %x3 = tt.constant dense<[[1.0, 2.0, 3.0], [0.0, 1.0, 0.0], [-1.0, -1.0, -1.0]]> : tensor<3x3xf32>
  %d3 = tensor.cast %x3 : tensor<3x3xf32> to tensor<?x3xf32>
  %r3 = call @mlp(%d3, %w, %b) : (tensor<?x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %u3 = tensor.cast %r3 : tensor<?x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  %x1 = tt.constant dense<[[4.0, 0.0, 1.0]]> : tensor<1x3xf32>
  %d1 = tensor.cast %x1 : tensor<1x3xf32> to tensor<?x3xf32>
  %r1 = call @mlp(%d1, %w, %b) : (tensor<?x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %u1 = tensor.cast %r1 : tensor<?x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()

  %s = tt.constant dense<[[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0], [5.0, 1.0, 9.0, -2.0]]> : tensor<3x4xf32>
  %ds = tensor.cast %s : tensor<3x4xf32> to tensor<?x4xf32>
  %rs = call @softmax(%ds) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %us = tensor.cast %rs : tensor<?x4xf32> to tensor<*xf32>
  call @printMemrefF32(%us) : (tensor<*xf32>) -> ()
  %st:4 = call @stats(%ds) : (tensor<?x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4x?xf32>)
  %u0 = tensor.cast %st#0 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1b = tensor.cast %st#1 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u1b) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %st#2 : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%u2) : (tensor<*xi32>) -> ()
  %u4 = tensor.cast %st#3 : tensor<4x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()

  %table = tt.constant dense<[[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, -1.0], [4.0, 0.5]]> : tensor<5x2xf32>
  %ids = tt.constant dense<[4, 0, -1, 2]> : tensor<4xi32>
  %dids = tensor.cast %ids : tensor<4xi32> to tensor<?xi32>
  %we = tt.constant dense<[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]]> : tensor<2x3xf32>
  %re = call @embed(%table, %dids, %we) : (tensor<5x2xf32>, tensor<?xi32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  %ue = tensor.cast %re : tensor<?x3xf32> to tensor<*xf32>
  call @printMemrefF32(%ue) : (tensor<*xf32>) -> ()

  %xs = tt.constant dense<[[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]]> : tensor<2x2x3xf32>
  %dxs = tensor.cast %xs : tensor<2x2x3xf32> to tensor<?x2x3xf32>
  %rk = call @stack(%dxs, %w) : (tensor<?x2x3xf32>, tensor<3x2xf32>) -> tensor<?x2x2xf32>
  %uk = tensor.cast %rk : tensor<?x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%uk) : (tensor<*xf32>) -> ()
  %dxs2 = tensor.cast %xs : tensor<2x2x3xf32> to tensor<?x?x3xf32>
  %rk2 = call @stack2(%dxs2, %w) : (tensor<?x?x3xf32>, tensor<3x2xf32>) -> tensor<?x?x2xf32>
  %uk2 = tensor.cast %rk2 : tensor<?x?x2xf32> to tensor<*xf32>
  call @printMemrefF32(%uk2) : (tensor<*xf32>) -> ()
  %ws = tt.constant dense<[[[1.0, -1.0], [2.0, 0.5], [-1.0, 1.0]], [[1.0, -1.0], [2.0, 0.5], [-1.0, 1.0]]]> : tensor<2x3x2xf32>
  %dws = tensor.cast %ws : tensor<2x3x2xf32> to tensor<?x3x2xf32>
  %rb = call @bmm(%dxs, %dws) : (tensor<?x2x3xf32>, tensor<?x3x2xf32>) -> tensor<?x2x2xf32>
  %ub = tensor.cast %rb : tensor<?x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%ub) : (tensor<*xf32>) -> ()
  return
}
