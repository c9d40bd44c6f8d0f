// RUN: tiny-opt %s --tt-gpu-device-memory | FileCheck %s

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// Host buffers are device buffers; a constant is copied to the device once
// per call and freed at the end; kernels are left alone.
// CHECK-LABEL: func.func @host
// CHECK:         %[[TMP:.*]] = gpu.alloc () : memref<4xf32>
// CHECK:         %[[G:.*]] = memref.get_global @table
// CHECK:         %[[DG:.*]] = gpu.alloc () : memref<4xf32>
// CHECK:         gpu.memcpy %[[DG]], %[[G]]
// CHECK:         gpu.launch
// CHECK:           memref.load %[[DG]]
// CHECK:           memref.alloca
// CHECK:         gpu.memcpy %{{.*}}, %[[TMP]]
// CHECK:         gpu.dealloc %[[TMP]]
// CHECK:         gpu.dealloc %[[DG]]
// CHECK:         return
func.func @host(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %tmp = memref.alloc() : memref<4xf32>
  %g = memref.get_global @table : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    %v = memref.load %g[%tx] : memref<4xf32>
    %p = memref.alloca() : memref<1xf32>
    memref.store %v, %tmp[%tx] : memref<4xf32>
    gpu.terminator
  }
  memref.copy %tmp, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %tmp : memref<4xf32>
  return
}
