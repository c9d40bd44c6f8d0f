// RUN: tiny-opt %s --pass-pipeline='builtin.module(gpu.module(tt-gpu-align-workgroup-memory))' | FileCheck %s
// RUN: tiny-opt %s --pass-pipeline='builtin.module(gpu.module(tt-gpu-align-workgroup-memory{alignment=64}))' | FileCheck %s --check-prefix=A64

// CHECK: workgroup(%{{.*}} : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf64, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// A64: {llvm.align = 64 : i64}
gpu.module @m {
  gpu.func @k(%out: memref<4xf32>) workgroup(%w : memref<64xf32, #gpu.address_space<workgroup>>, %d : memref<8xf64, #gpu.address_space<workgroup>>) kernel {
    gpu.return
  }
}
