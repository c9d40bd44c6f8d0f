// RUN: tiny-opt %s --split-input-file --verify-diagnostics --tt-gpu-tile-and-distribute=threads-per-block=100
// RUN: not tiny-opt %s --tt-lower-to-nvvm="threads-per-block=2048" 2>&1 | FileCheck %s --check-prefix=PIPELINE

// PIPELINE: threads-per-block must be a multiple of 32 between 32 and 1024, got 2048

// expected-error @below {{tt-gpu-tile-and-distribute: threads-per-block must be a multiple of 32 between 32 and 1024, got 100}}
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
