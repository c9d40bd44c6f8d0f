// REQUIRES: libdevice
// RUN: tiny-opt %s --split-input-file --tt-lower-to-nvvm | FileCheck %s
// RUN: tiny-opt %s --split-input-file --tt-lower-to-nvvm="chip=sm_80 features=+ptx70 opt-level=2" | FileCheck %s --check-prefix=SM80
// RUN: tiny-opt %s --split-input-file --tt-lower-to-nvvm=binary=false | FileCheck %s --check-prefix=NVVM
// RUN: tiny-opt %s --split-input-file --tt-lower-to-nvvm=shared-memory-matmul=false | FileCheck %s --check-prefix=NOSHARED

// The whole pipeline: host code in the LLVM dialect that launches the
// kernels of a gpu.binary holding PTX for sm_90. Softmax is one kernel:
// block-wide reductions with warp shuffles and shared memory, barriers.
// CHECK-LABEL: llvm.func @softmax
// CHECK:         llvm.call @mgpuStreamCreate
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @softmax_kernel::@softmax_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) : i64
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.call @mgpuStreamSynchronize
// CHECK:       llvm.func @_mlir_ciface_softmax
// CHECK:       gpu.binary @softmax_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_90{{.*}}.shared{{.*}}shfl.sync.bfly{{.*}}bar.sync{{.*}}ex2.approx
//
// SM80: gpu.binary @softmax_kernel [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx70">, properties = {{{.*}}O = 2 : i32}, assembly = "{{.*}}.version 7.0{{.*}}.target sm_80
//
// NVVM:      gpu.module @softmax_kernel [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// NVVM:        llvm.mlir.global internal @__wg_softmax_kernel_{{[0-9]+}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
// NVVM:        llvm.func @softmax_kernel
// NVVM-SAME:     nvvm.kernel
// NVVM:          nvvm.read.ptx.sreg.ctaid.x
// NVVM:          nvvm.read.ptx.sreg.tid.x
// NVVM:          nvvm.shfl.sync bfly
// NVVM:          nvvm.barrier0
func.func @softmax(%x: tensor<1024x1000xf32>) -> tensor<1024x1000xf32> {
  %m = tt.reduce_max %x axes = [1] keepdims : tensor<1024x1000xf32> -> tensor<1024x1xf32>
  %d = tt.sub %x, %m : (tensor<1024x1000xf32>, tensor<1024x1xf32>) -> tensor<1024x1000xf32>
  %e = tt.exp %d : tensor<1024x1000xf32>
  %s = tt.sum %e axes = [1] keepdims : tensor<1024x1000xf32> -> tensor<1024x1xf32>
  %y = tt.div %e, %s : (tensor<1024x1000xf32>, tensor<1024x1xf32>) -> tensor<1024x1000xf32>
  return %y : tensor<1024x1000xf32>
}

// -----

// Layer norm: one kernel, one block per row.
// CHECK-LABEL: llvm.func @layer_norm
// CHECK:         gpu.launch_func {{.*}} @layer_norm_kernel::@layer_norm_kernel
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.binary @layer_norm_kernel {{.*}}shfl.sync.bfly{{.*}}bar.sync{{.*}}rsqrt.approx
func.func @layer_norm(%x: tensor<4096x768xf32>) -> tensor<4096x768xf32> {
  %m = tt.mean %x axes = [1] keepdims : tensor<4096x768xf32> -> tensor<4096x1xf32>
  %d = tt.sub %x, %m : (tensor<4096x768xf32>, tensor<4096x1xf32>) -> tensor<4096x768xf32>
  %v = tt.var %x axes = [1] keepdims : tensor<4096x768xf32> -> tensor<4096x1xf32>
  %r = tt.rsqrt %v : tensor<4096x1xf32>
  %y = tt.mul %d, %r : (tensor<4096x768xf32>, tensor<4096x1xf32>) -> tensor<4096x768xf32>
  return %y : tensor<4096x768xf32>
}

// -----

// Matmul: blocks of 16 x 16 threads, each accumulating its 4x4 outputs in
// registers (no local memory), starting from zero, with fused
// multiply-adds; K in steps of 16 through shared memory (A transposed),
// copied by all threads between barriers, read back four at a time.
// CHECK-LABEL: llvm.func @matmul
// CHECK:         gpu.launch_func {{.*}} blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK:       gpu.binary @matmul_kernel{{.*}}.maxntid 16, 16, 1
// CHECK-NOT:     .local
// CHECK-SAME:    .shared .align 16 .b8 __wg_matmul_kernel_0[4352]
// CHECK-SAME:    .shared .align 16 .b8 __wg_matmul_kernel_1[4096]
// CHECK-SAME:    bar.sync
// CHECK-SAME:    st.shared
// CHECK-SAME:    bar.sync
// CHECK-SAME:    ld.shared.v4.b32
// CHECK-SAME:    fma.rn.f32
//
// NOSHARED-LABEL: llvm.func @matmul
// NOSHARED:       gpu.binary @matmul_kernel
// NOSHARED-NOT:     .shared
// NOSHARED-SAME:    fma.rn.f32
func.func @matmul(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %c = tt.matmul %a, %b : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %c : tensor<1024x1024xf32>
}
