// RUN: tiny-opt %s | %tt-run | FileCheck %s

// Compiled-and-run tests of float16, bfloat16, uint8, int8 and int16
// tensors through --tt-legalize-types. Expected values: PyTorch on CPU
// (and NumPy where they agree).

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

// uint8: 200 // 7, 200 > 100, max(200, 100), 200 + 100 (wraps to 44),
// float(200), 250.0 -> uint8
// CHECK: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [28, 1, 200, 44, 200, 250]
func.func @unsigned(%a: tensor<1xui8>, %b: tensor<1xui8>, %f: tensor<1xf32>) -> tensor<6xi32> {
  %seven = tt.constant dense<7> : tensor<ui8>
  %q = tt.div %a, %seven : (tensor<1xui8>, tensor<ui8>) -> tensor<1xui8>
  %gt = tt.cmp gt, %a, %b : (tensor<1xui8>, tensor<1xui8>) -> tensor<1xi1>
  %m = tt.max %a, %b : (tensor<1xui8>, tensor<1xui8>) -> tensor<1xui8>
  %s = tt.add %a, %b : (tensor<1xui8>, tensor<1xui8>) -> tensor<1xui8>
  %af = tt.cast %a to f32 : tensor<1xui8> -> tensor<1xf32>
  %fu = tt.cast %f to ui8 : tensor<1xf32> -> tensor<1xui8>
  %q32 = tt.cast %q to i32 : tensor<1xui8> -> tensor<1xi32>
  %gt32 = tt.cast %gt to i32 : tensor<1xi1> -> tensor<1xi32>
  %m32 = tt.cast %m to i32 : tensor<1xui8> -> tensor<1xi32>
  %s32 = tt.cast %s to i32 : tensor<1xui8> -> tensor<1xi32>
  %af32 = tt.cast %af to i32 : tensor<1xf32> -> tensor<1xi32>
  %fu32 = tt.cast %fu to i32 : tensor<1xui8> -> tensor<1xi32>
  %all = tt.concat %q32, %gt32, %m32, %s32, %af32, %fu32 axis = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<6xi32>
  return %all : tensor<6xi32>
}

// uint8 reductions: max and argmax of [3, 200, 129] (signed i8 would pick 3)
// CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [200, 1]
func.func @unsigned_reductions(%a: tensor<3xui8>) -> tensor<2xi32> {
  %m = tt.reduce_max %a axes = [0] : tensor<3xui8> -> tensor<ui8>
  %i32 = tt.argmax %a axis = 0 : tensor<3xui8> -> tensor<i32>
  %m32 = tt.cast %m to i32 : tensor<ui8> -> tensor<i32>
  %m1 = tt.reshape %m32 [1] : tensor<i32> -> tensor<1xi32>
  %i1 = tt.reshape %i32 [1] : tensor<i32> -> tensor<1xi32>
  %all = tt.concat %m1, %i1 axis = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  return %all : tensor<2xi32>
}

// int8 and int16 wrap as PyTorch's do: 100 + 100 in int8 is -56;
// 30000 + 30000 in int16 is -5536.
// CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [-56, -5536]
func.func @narrow_signed(%a: tensor<1xi8>, %b: tensor<1xi16>) -> tensor<2xi32> {
  %s = tt.add %a, %a : (tensor<1xi8>, tensor<1xi8>) -> tensor<1xi8>
  %t = tt.add %b, %b : (tensor<1xi16>, tensor<1xi16>) -> tensor<1xi16>
  %s32 = tt.cast %s to i32 : tensor<1xi8> -> tensor<1xi32>
  %t32 = tt.cast %t to i32 : tensor<1xi16> -> tensor<1xi32>
  %all = tt.concat %s32, %t32 axis = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  return %all : tensor<2xi32>
}

// float16: 2048 + 1 rounds back to 2048 (each op rounds to f16), but the
// sum of [2048, 1, 1] accumulates in f32 (2050). bfloat16: 1 + 2^-8 is 1.
// exp(1) in f16 is 2.71875.
// CHECK: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [2048, 2050, 1, 2.71875]
func.func @half(%h: tensor<3xf16>, %b: tensor<bf16>, %e: tensor<f16>) -> tensor<4xf32> {
  %h0 = tt.slice %h starts = [0] sizes = [1] strides = [1] : tensor<3xf16> -> tensor<1xf16>
  %h1 = tt.slice %h starts = [1] sizes = [1] strides = [1] : tensor<3xf16> -> tensor<1xf16>
  %add = tt.add %h0, %h1 : (tensor<1xf16>, tensor<1xf16>) -> tensor<1xf16>
  %sum = tt.sum %h axes = [0] keepdims : tensor<3xf16> -> tensor<1xf16>
  %tiny = tt.constant dense<0.00390625> : tensor<bf16>
  %bs = tt.add %b, %tiny : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
  %ex = tt.exp %e : tensor<f16>
  %add32 = tt.cast %add to f32 : tensor<1xf16> -> tensor<1xf32>
  %sum32 = tt.cast %sum to f32 : tensor<1xf16> -> tensor<1xf32>
  %bs32 = tt.cast %bs to f32 : tensor<bf16> -> tensor<f32>
  %ex32 = tt.cast %ex to f32 : tensor<f16> -> tensor<f32>
  %bs1 = tt.reshape %bs32 [1] : tensor<f32> -> tensor<1xf32>
  %ex1 = tt.reshape %ex32 [1] : tensor<f32> -> tensor<1xf32>
  %all = tt.concat %add32, %sum32, %bs1, %ex1 axis = 0 : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %all : tensor<4xf32>
}

func.func @main() {
  %a = tt.constant dense<200> : tensor<1xui8>
  %b = tt.constant dense<100> : tensor<1xui8>
  %f = tt.constant dense<250.0> : tensor<1xf32>
  %r0 = call @unsigned(%a, %b, %f) : (tensor<1xui8>, tensor<1xui8>, tensor<1xf32>) -> tensor<6xi32>
  %u0 = tensor.cast %r0 : tensor<6xi32> to tensor<*xi32>
  call @printMemrefI32(%u0) : (tensor<*xi32>) -> ()
  %c = tt.constant dense<[3, 200, 129]> : tensor<3xui8>
  %r1 = call @unsigned_reductions(%c) : (tensor<3xui8>) -> tensor<2xi32>
  %u1 = tensor.cast %r1 : tensor<2xi32> to tensor<*xi32>
  call @printMemrefI32(%u1) : (tensor<*xi32>) -> ()
  %i8 = tt.constant dense<100> : tensor<1xi8>
  %i16 = tt.constant dense<30000> : tensor<1xi16>
  %r2 = call @narrow_signed(%i8, %i16) : (tensor<1xi8>, tensor<1xi16>) -> tensor<2xi32>
  %u2 = tensor.cast %r2 : tensor<2xi32> to tensor<*xi32>
  call @printMemrefI32(%u2) : (tensor<*xi32>) -> ()
  %h = tt.constant dense<[2048.0, 1.0, 1.0]> : tensor<3xf16>
  %bf = tt.constant dense<1.0> : tensor<bf16>
  %e = tt.constant dense<1.0> : tensor<f16>
  %r3 = call @half(%h, %bf, %e) : (tensor<3xf16>, tensor<bf16>, tensor<f16>) -> tensor<4xf32>
  %u3 = tensor.cast %r3 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  return
}
