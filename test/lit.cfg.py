# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TINYTENSOR"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tinytensor_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "python",
                   "tinytensor-capi-test.c", "cuda-runtime-test.c",
                   "fake-cuda-driver.c"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", ".so"))
config.substitutions.append(("%llvm_lib_dir", config.llvm_lib_dir))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                    "ASAN_OPTIONS", "UBSAN_OPTIONS",
                                    "LSAN_OPTIONS"])
llvm_config.use_default_substitutions()
# RUN lines may start with LLVM's test tools (`not`, `count`).
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.tinytensor_tools_dir, config.llvm_tools_dir]
tools = ["tiny-opt", "tinytensor-capi-test", "tinytensor-cuda-runtime-test",
         ToolSubst("mlir-runner", unresolved="ignore")]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Compiled-and-run integration tests link MLIR's runner utility libraries.
config.substitutions.append(
    ("%mlir_runner_utils", os.path.join(config.llvm_lib_dir, "libmlir_runner_utils.so")))
config.substitutions.append(
    ("%mlir_c_runner_utils", os.path.join(config.llvm_lib_dir, "libmlir_c_runner_utils.so")))
# Parallel tile loops run on LLVM's OpenMP runtime.
config.substitutions.append(("%libomp", os.path.join(config.llvm_lib_dir, "libomp.so")))
# f64 math on vectors calls glibc's libmvec (x86-64).
_libmvec = "/lib/x86_64-linux-gnu/libmvec.so.1"
_runtime_libs = "%mlir_runner_utils,%mlir_c_runner_utils,%libomp"
if os.path.exists(_libmvec):
    _runtime_libs += "," + _libmvec
# Compile with the CPU pipeline and run main() with mlir-runner.
# Inserted first so that the tool and library substitutions expand inside it.
config.substitutions.insert(
    0,
    ("%tt-run",
     "tiny-opt --tt-lower-to-llvm | mlir-runner -O3 -e main -entry-point-result=void "
     "-shared-libs=" + _runtime_libs))

# GPU tests that assemble kernels into cubins need the CUDA toolkit's ptxas
# (on $PATH, under $CUDA_HOME or /usr/local/cuda); without it they are
# reported as unsupported, and PTX is still checked.
_cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
if shutil.which("ptxas") or os.path.exists(os.path.join(_cuda, "bin", "ptxas")):
    config.available_features.add("ptxas")
if os.path.exists(os.path.join(_cuda, "nvvm", "libdevice", "libdevice.10.bc")):
    config.available_features.add("libdevice")

# A fake CUDA driver on host memory (test/Runtime/fake-cuda-driver.c).
config.substitutions.append(
    ("%fake_cuda", os.path.join(config.tinytensor_obj_root, "lib", "libtinytensor-fake-cuda.so")))
