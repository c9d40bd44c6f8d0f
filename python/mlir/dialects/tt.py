"""The tt dialect: op classes generated from TinyTensor's ODS.

Every tt op infers its result type through the dialect's own
InferTypeOpInterface, so builders take operands and attributes only::

    from mlir.dialects import tt
    c = tt.add(a, b)          # result type computed by the dialect
"""

from ._tt_ops_gen import *  # noqa: F401,F403
from ._tt_enum_gen import *  # noqa: F401,F403
from .._mlir_libs._ttDialects.tt import (  # noqa: F401
    Dispatcher, Library, Runner, aot_export, buffer_cache_stats, clone_module,
    compile_objects, cuda_runtime_library,
    host_cpu, register_dialect, register_passes, release_cached_buffers,
    run_pipeline, set_gnu_openmp_default_threads, set_gnu_openmp_threads,
    trace_entered, trace_exited)
