// RUN: tiny-opt %s --tt-cpu-vector-math=vector-bits=512 | FileCheck %s --check-prefix=AVX512
// RUN: tiny-opt %s --tt-cpu-vector-math=vector-bits=256 | FileCheck %s --check-prefix=AVX2
// RUN: tiny-opt %s --tt-cpu-vector-math=vector-bits=128 | FileCheck %s --check-prefix=NONE

// f64 math on vectors calls glibc's libmvec, one call per register; vectors
// that are not a whole number of registers, f32 and other functions stay.

// AVX512-DAG:   func.func private @_ZGVeN8v_tanh(vector<8xf64>) -> vector<8xf64>
// AVX512-DAG:   func.func private @_ZGVeN8v_exp(vector<8xf64>) -> vector<8xf64>
// AVX512-LABEL: func.func @f
// AVX512-COUNT-2: call @_ZGVeN8v_tanh
// exp: a register with a lane below -708 (or NaN) takes a branch that
// gives the lanes below -745.2 their 0 without passing them to libmvec.
// AVX512:         %[[LOW:.*]] = arith.cmpf ult, %[[B:.*]], %{{.*}} : vector<8xf64>
// AVX512:         %[[ANY:.*]] = vector.reduction <or>, %[[LOW]] : vector<8xi1> into i1
// AVX512:         scf.if %[[ANY]] -> (vector<8xf64>) {
// AVX512:           %[[ZERO:.*]] = arith.cmpf olt, %[[B]], %{{.*}} : vector<8xf64>
// AVX512:           %[[SAFE:.*]] = arith.select %[[ZERO]], %{{.*}}, %[[B]]
// AVX512:           call @_ZGVeN8v_exp
// AVX512:           arith.select %[[ZERO]]
// AVX512:         } else {
// AVX512:           call @_ZGVeN8v_exp
// AVX512:         }
// AVX512:         math.log {{.*}} : vector<3xf64>
// AVX512:         math.tanh {{.*}} : vector<16xf32>
// AVX512:         math.sin {{.*}} : vector<8xf64>

// AVX2-LABEL:   func.func @f
// AVX2-COUNT-4: call @_ZGVdN4v_tanh
// AVX2-COUNT-2: call @_ZGVdN4v_exp

// NONE-NOT:     call
func.func @f(%a: vector<16xf64>, %b: vector<8xf64>, %c: vector<3xf64>, %d: vector<16xf32>)
    -> (vector<16xf64>, vector<8xf64>, vector<3xf64>, vector<16xf32>, vector<8xf64>) {
  %0 = math.tanh %a : vector<16xf64>
  %1 = math.exp %b : vector<8xf64>
  %2 = math.log %c : vector<3xf64>
  %3 = math.tanh %d : vector<16xf32>
  %4 = math.sin %b : vector<8xf64>
  return %0, %1, %2, %3, %4 : vector<16xf64>, vector<8xf64>, vector<3xf64>, vector<16xf32>, vector<8xf64>
}
