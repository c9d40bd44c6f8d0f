// Without a CUDA toolkit (no libdevice): kernels that need no libdevice
// still become PTX; tt-lower-to-nvvm then runs tt-gpu-require-libdevice,
// which reports a kernel calling a libdevice function by name instead of
// leaving PTX that the driver cannot load.
// RUN: mkdir -p %t.empty
// RUN: not tiny-opt %s --split-input-file --tt-lower-to-nvvm=cuda-path=%t.empty 2>&1 | FileCheck %s

// CHECK-LABEL: llvm.func @add
// CHECK: gpu.binary @add_kernel {{.*}}assembly = "{{.*}}.target sm_90
func.func @add(%x: tensor<300xf32>, %y: tensor<300xf32>) -> tensor<300xf32> {
  %z = tt.add %x, %y : (tensor<300xf32>, tensor<300xf32>) -> tensor<300xf32>
  return %z : tensor<300xf32>
}

// -----

// CHECK: error: kernel module @exp_kernel calls __nv_expf from CUDA's libdevice, which was not found (looked for {{.*}}.empty/nvvm/libdevice/libdevice.10.bc)
func.func @exp(%x: tensor<300xf32>) -> tensor<300xf32> {
  %z = tt.exp %x : tensor<300xf32>
  return %z : tensor<300xf32>
}
