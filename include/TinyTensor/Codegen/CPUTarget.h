//===- CPUTarget.h - What code generation knows of the CPU ------*- C++ -*-===//
//
// The facts about the CPU that the CPU strategy (lib/Codegen/CPU/
// KernelConfig) and the pipelines decide by, read from the host.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_CODEGEN_CPUTARGET_H
#define TINYTENSOR_CODEGEN_CPUTARGET_H

#include "mlir/IR/Types.h"

namespace mlir {
namespace tt {

/// What the strategy needs to know about the CPU.
struct CPUTarget {
  /// Width of a vector register in bits: 512 (AVX-512), 256 (AVX2/AVX) or
  /// 128 (SSE, NEON and anything else).
  unsigned vectorBits = 128;
  /// Whether a matmul with few rows runs faster reading B where it is, a
  /// strip of lines from rows a row of B apart, than packing B's panels
  /// (--tt-cpu-align-columns). Measured, m x 768 f64 @ 768 x 3072 f32:
  /// yes on an AMD Zen 4 (m = 64: 82-91 GFLOP/s in place, 69-75 packed),
  /// no on an Intel Xeon (26 in place, 76 packed; at 16 rows 27 and 52).
  /// Set for AMD CPUs (by the vendor: the reason, presumably how each
  /// streams such strides into its caches, was not measured); false for
  /// every other CPU and for targets that are not the host.
  bool readsStridedRowsFast = false;
  /// Bytes of the level-2 cache of one core, from Linux's
  /// /sys/devices/system/cpu/cpu0/cache; 0 when unknown (and for targets
  /// that are not the host), which the strategy takes as 1 MiB.
  int64_t l2Bytes = 0;

  /// The CPU this process runs on, from LLVM's host feature detection.
  static CPUTarget host();
  /// `host()` when `vectorBits` is 0, else a CPU with that vector width.
  static CPUTarget get(unsigned vectorBits);

  /// Elements of `elementType` in one vector register (at least 1).
  int64_t lanes(Type elementType) const;
};

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_CODEGEN_CPUTARGET_H
