// RUN: tiny-opt %s --tt-cpu-expand-bf16 | FileCheck %s

// bfloat16 conversions of 33 (65, ...) elements become integer operations
// (LLVM's x86 back end aborts on the bfloat arithmetic InstCombine makes
// of them); other lengths and other types stay conversions.
// CHECK-LABEL: func.func @lengths
// CHECK-NOT:     arith.truncf %{{.*}} : vector<33xf32> to vector<33xbf16>
// CHECK-NOT:     arith.extf %{{.*}} : vector<33xbf16> to vector<33xf32>
// CHECK:         arith.truncf %{{.*}} : vector<32xf32> to vector<32xbf16>
// CHECK:         arith.extf %{{.*}} : vector<32xbf16> to vector<32xf32>
// CHECK:         arith.truncf %{{.*}} : vector<33xf32> to vector<33xf16>
// CHECK-NOT:     arith.truncf %{{.*}} : vector<65xf32> to vector<65xbf16>
// CHECK:         return
func.func @lengths(%a: vector<33xf32>, %b: vector<33xbf16>, %c: vector<32xf32>, %d: vector<32xbf16>, %e: vector<65xf32>) -> (vector<33xbf16>, vector<33xf32>, vector<32xbf16>, vector<32xf32>, vector<33xf16>, vector<65xbf16>) {
  %0 = arith.truncf %a : vector<33xf32> to vector<33xbf16>
  %1 = arith.extf %b : vector<33xbf16> to vector<33xf32>
  %2 = arith.truncf %c : vector<32xf32> to vector<32xbf16>
  %3 = arith.extf %d : vector<32xbf16> to vector<32xf32>
  %4 = arith.truncf %a : vector<33xf32> to vector<33xf16>
  %5 = arith.truncf %e : vector<65xf32> to vector<65xbf16>
  return %0, %1, %2, %3, %4, %5 : vector<33xbf16>, vector<33xf32>, vector<32xbf16>, vector<32xf32>, vector<33xf16>, vector<65xbf16>
}
