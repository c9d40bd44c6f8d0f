// RUN: tiny-opt %s --verify-diagnostics --tt-gpu-require-libdevice=searched=/opt/cuda/nvvm/libdevice/libdevice.10.bc

module attributes {gpu.container_module} {
  gpu.module @exp_kernel {
    // expected-error @below {{kernel module @exp_kernel calls __nv_expf from CUDA's libdevice, which was not found (looked for /opt/cuda/nvvm/libdevice/libdevice.10.bc): install the CUDA toolkit (or pip's nvidia-cuda-nvcc) and pass cuda-path= or set $CUDA_HOME}}
    llvm.func @__nv_expf(f32) -> f32
  }
  gpu.module @add_kernel {
    llvm.func @helper(f32) -> f32
  }
}
