//===- TTOps.td - Python bindings of the tt dialect --------*- tablegen -*-===//

#ifndef PYTHON_BINDINGS_TT_OPS
#define PYTHON_BINDINGS_TT_OPS

include "TinyTensor/Dialect/TT/TTOps.td"

#endif // PYTHON_BINDINGS_TT_OPS
