/*===- TinyTensor-c/Dialects.h - C API of TinyTensor --------------*- C -*-===*\
|*                                                                            *|
|* The tt dialect and the registration of TinyTensor's passes and named      *|
|* pipelines, for the MLIR C API and the Python bindings built on it.         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TINYTENSOR_C_DIALECTS_H
#define TINYTENSOR_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(TinyTensor, tt);

/// Registers TinyTensor's passes and the named pipelines (`tt-optimize`,
/// `tt-lower-to-llvm`) with the global pass registry, so that pass pipeline
/// strings parsed by the C API (and Python's PassManager.parse) find them.
MLIR_CAPI_EXPORTED void ttRegisterPasses(void);

/// Adds to `registry` the dialect extensions TinyTensor's pipelines need
/// beyond the dialects themselves (the memory effects of mpi.allreduce).
MLIR_CAPI_EXPORTED void
ttRegisterDialectExtensions(MlirDialectRegistry registry);

#ifdef __cplusplus
}
#endif

#endif // TINYTENSOR_C_DIALECTS_H
