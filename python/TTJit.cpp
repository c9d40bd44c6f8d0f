//===- TTJit.cpp - Object code from the LLVM dialect, and loading it ------===//
//
// `compile_objects` turns a module in the LLVM dialect into relocatable
// objects for the host CPU (LLVM's O0-O3 pipeline, then code generation of
// parts of the module on several threads), with a packed wrapper
// `_mlir_<fn>(void **args)` for every `_mlir_ciface_<fn>`. `Library` loads
// such objects with LLVM's ORC JIT, resolving calls into the process and
// the given shared libraries (and the buffers of `generic-alloc` code to
// TTBufferCache). The two halves let compiled code be cached on
// disk and loaded without compiling.
//
//===----------------------------------------------------------------------===//

#include "TTJit.h"
#include "TTBufferCache.h"
#include "TTGnuOpenMP.h"

#include "mlir/CAPI/IR.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace nb = nanobind;

namespace {

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    const char *value = std::getenv("TT_LLVM_POST_RA_SCHED");
    if (!(value && std::string(value) == "1"))
      if (auto *option =
              llvm::cl::getRegisteredOptions().lookup("disable-post-ra"))
        static_cast<llvm::cl::opt<bool> *>(option)->setValue(true);
  });
}

std::string message(llvm::Error error) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << error;
  return text;
}

/// The host's target machine builder: CPU name and features detected, code
/// position-independent.
llvm::orc::JITTargetMachineBuilder hostMachine(int optLevel) {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    throw std::runtime_error("cannot detect the host CPU: " +
                             message(builder.takeError()));
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeGenOptLevel(optLevel >= 3 ? llvm::CodeGenOptLevel::Aggressive
                              : optLevel == 0 ? llvm::CodeGenOptLevel::None
                                              : llvm::CodeGenOptLevel::Default);
  return std::move(*builder);
}

/// `_mlir_<name>(void **args)` for each `_mlir_ciface_*` function: loads
/// argument i from *args[i] and calls it (the convention of MLIR's
/// ExecutionEngine, whose results are void with out-params).
void addPackedWrappers(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  llvm::SmallVector<llvm::Function *> targets;
  for (llvm::Function &fn : module)
    if (!fn.isDeclaration() && fn.getName().starts_with("_mlir_ciface_"))
      targets.push_back(&fn);
  auto *ptr = llvm::PointerType::getUnqual(context);
  for (llvm::Function *fn : targets) {
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr},
                                         /*isVarArg=*/false);
    auto *wrapper =
        llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                               "_mlir_" + fn->getName(), module);
    llvm::IRBuilder<> builder(
        llvm::BasicBlock::Create(context, "entry", wrapper));
    llvm::Value *packed = wrapper->getArg(0);
    llvm::SmallVector<llvm::Value *> args;
    for (auto [i, arg] : llvm::enumerate(fn->args())) {
      llvm::Value *slot = builder.CreateGEP(
          ptr, packed, builder.getInt64(static_cast<int64_t>(i)));
      llvm::Value *address = builder.CreateLoad(ptr, slot);
      args.push_back(builder.CreateLoad(arg.getType(), address));
    }
    llvm::Value *result = builder.CreateCall(fn, args);
    if (!fn->getReturnType()->isVoidTy()) {
      llvm::Value *slot = builder.CreateGEP(
          ptr, packed, builder.getInt64(static_cast<int64_t>(args.size())));
      builder.CreateStore(result, builder.CreateLoad(ptr, slot));
    }
    builder.CreateRetVoid();
  }
}

/// Inlines each function into its C-interface wrapper
/// (`_mlir_ciface_<name>`, which reads the memref descriptors it is passed
/// and calls the function with every descriptor expanded into scalars)
/// where that call is the function's only use, and erases the function.
/// GPT-2 124M's entry takes 163 arrays, about 900 scalars: instruction
/// selection of that one call took 0.9 s, half of LLVM's time.
void inlineIntoWrappers(llvm::Module &module) {
  llvm::SmallVector<llvm::CallBase *> calls;
  for (llvm::Function &wrapper : module) {
    if (wrapper.isDeclaration() ||
        !wrapper.getName().starts_with("_mlir_ciface_"))
      continue;
    for (llvm::Instruction &inst : llvm::instructions(wrapper))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
        if (llvm::Function *callee = call->getCalledFunction())
          if (!callee->isDeclaration() && callee->hasOneUse() &&
              callee->getName() ==
                  wrapper.getName().drop_front(strlen("_mlir_ciface_")))
            calls.push_back(call);
  }
  for (llvm::CallBase *call : calls) {
    llvm::Function *callee = call->getCalledFunction();
    llvm::InlineFunctionInfo info;
    if (llvm::InlineFunction(*call, info).isSuccess() && callee->use_empty())
      callee->eraseFromParent();
  }
}

/// Values wider than this many bits make a loop that computes on them
/// stay rolled (16 AVX-512 registers).
constexpr unsigned kMaxUnrolledVectorBits = 8192;

/// Marks loops that compute on vectors wider than kMaxUnrolledVectorBits
/// `llvm.loop.unroll.disable`: their body is already that much
/// straight-line code. A layer norm's row loop over vector<768xf64> rows
/// (96 registers per value), fully unrolled over 16 rows, was a third of
/// GPT-2 float64's LLVM time.
void keepWideVectorLoopsRolled(llvm::Function &fn) {
  if (fn.isDeclaration())
    return;
  auto wide = [](llvm::Type *type) {
    auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(type);
    return vector && vector->getPrimitiveSizeInBits().getFixedValue() >
                         kMaxUnrolledVectorBits;
  };
  llvm::DominatorTree dominators(fn);
  llvm::LoopInfo loops(dominators);
  for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
    bool hasWide = llvm::any_of(loop->blocks(), [&](llvm::BasicBlock *block) {
      return llvm::any_of(*block, [&](llvm::Instruction &inst) {
        return wide(inst.getType());
      });
    });
    if (hasWide)
      llvm::addStringMetadataToLoop(loop, "llvm.loop.unroll.disable");
  }
}

} // namespace

/// LLVM's default module pipeline at `optLevel`, without the SLP
/// vectoriser unless TT_LLVM_SLP=1: the code is vectorised already (the
/// vector dialect), and SLP's search over the unrolled register tiles and
/// transposes of a CNN was most of LLVM's time. On a 2-core Xeon, first
/// calls without it: ResNet-18 4.1 -> 3.2 s, MobileNetV3-small 13.8 -> 7.6
/// s, EfficientNet-B0 45 -> 12 s, with the models' run times level or
/// better.
void optimizeModule(llvm::Module &m, int optLevel,
                    llvm::TargetMachine *target) {
  static const bool slp = [] {
    const char *value = std::getenv("TT_LLVM_SLP");
    return value && std::string(value) == "1";
  }();
  for (llvm::Function &fn : m)
    keepWideVectorLoopsRolled(fn);
  llvm::PipelineTuningOptions tuning;
  tuning.SLPVectorization = slp && optLevel > 1;
  tuning.LoopVectorization = optLevel > 1;
  tuning.LoopUnrolling = optLevel > 0;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(target, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel == 0   ? llvm::OptimizationLevel::O0
                                  : optLevel == 1 ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = optLevel == 0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
}

/// Machine code for `module` in `parts` objects, optimised and compiled on
/// `workers` threads: the module is split (LLVM's SplitModule, functions
/// distributed round-robin, locals externalised under unique names), each
/// part goes through bitcode into a context and target machine of its own.
/// A module of fewer than two functions per part stays whole.
std::vector<std::string> codegen(std::unique_ptr<llvm::Module> module,
                                 unsigned parts, unsigned workers, int optLevel,
                                 std::string &error) {
  auto emit = [&](llvm::Module &m, std::string &out) -> std::string {
    auto target = hostMachine(optLevel).createTargetMachine();
    if (!target)
      return "cannot create a target machine: " + message(target.takeError());
    optimizeModule(m, optLevel, target->get());
    llvm::orc::SimpleCompiler compile(**target);
    auto buffer = compile(m);
    if (!buffer)
      return "LLVM code generation failed: " + message(buffer.takeError());
    out.assign((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
    return "";
  };
  size_t functions = llvm::count_if(
      *module, [](llvm::Function &f) { return !f.isDeclaration(); });
  if (parts <= 1 || functions < 2 * parts) {
    std::vector<std::string> objects(1);
    error = emit(*module, objects[0]);
    return objects;
  }
  std::vector<llvm::SmallString<0>> bitcode;
  llvm::SplitModule(
      *module, parts,
      [&](std::unique_ptr<llvm::Module> part) {
        llvm::raw_svector_ostream os(bitcode.emplace_back());
        llvm::WriteBitcodeToFile(*part, os);
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);
  std::vector<std::string> objects(bitcode.size()), errors(bitcode.size());
  std::vector<std::thread> threads;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < bitcode.size(); i = next++) {
      llvm::LLVMContext context;
      auto part = llvm::parseBitcodeFile(
          llvm::MemoryBufferRef(
              llvm::StringRef(bitcode[i].data(), bitcode[i].size()), "part"),
          context);
      if (!part) {
        errors[i] = message(part.takeError());
        continue;
      }
      errors[i] = emit(**part, objects[i]);
    }
  };
  for (unsigned t = 0; t < workers; ++t)
    threads.emplace_back(work);
  for (std::thread &t : threads)
    t.join();
  for (const std::string &e : errors)
    if (!e.empty())
      error = e;
  return objects;
}

std::vector<nb::bytes>
tt::python::compileObjects(MlirModule module, int optLevel, unsigned threads) {
  if (optLevel < 0 || optLevel > 3)
    throw nb::value_error("opt_level must be 0, 1, 2 or 3");
  initializeNativeTarget();
  mlir::ModuleOp op = unwrap(module);
  mlir::DialectRegistry registry;
  mlir::registerAllToLLVMIRTranslations(registry);
  op->getContext()->appendDialectRegistry(registry);

  std::vector<std::string> objects;
  std::string error;
  {
    nb::gil_scoped_release unlocked;
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> llvmModule =
        mlir::translateModuleToLLVMIR(op, context);
    if (!llvmModule) {
      error = "the module could not be translated to LLVM IR";
    } else {
      auto target = hostMachine(optLevel).createTargetMachine();
      if (!target) {
        error =
            "cannot create a target machine: " + message(target.takeError());
      } else {
        llvmModule->setDataLayout((*target)->createDataLayout());
        llvmModule->setTargetTriple((*target)->getTargetTriple());
        addPackedWrappers(*llvmModule);
        inlineIntoWrappers(*llvmModule);
        // Optimising the module as a whole took 1.7 s for GPT-2 124M,
        // in two parts 0.75 s on one thread (0.44 s on two): LLVM's
        // inliner no longer merges the outlined functions into large ones,
        // which were no faster. More parts than threads balance the load.
        unsigned workers = std::max(threads, 1u);
        objects = codegen(std::move(llvmModule), 4 * workers, workers, optLevel,
                          error);
      }
    }
  }
  if (!error.empty())
    throw std::runtime_error(error);
  std::vector<nb::bytes> result;
  for (const std::string &o : objects)
    result.emplace_back(o.data(), o.size());
  return result;
}

std::string tt::python::hostCPU() {
  std::string text = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> enabled;
  for (const auto &entry : features)
    if (entry.second)
      enabled.push_back(entry.first().str());
  std::sort(enabled.begin(), enabled.end());
  for (const std::string &f : enabled)
    text += " +" + f;
  return text;
}

namespace {

/// TT_PERF_MAP=1: every function of compiled code is listed in
/// /tmp/perf-<pid>.map, where `perf report` finds the names of JIT code
/// (the outlined loop nests and OpenMP regions of each kernel).
bool perfMapEnabled() {
  const char *value = std::getenv("TT_PERF_MAP");
  return value && *value && std::string(value) != "0";
}

/// Appends the address, size and name of each function of `objects` (as
/// loaded into `jit`) to the perf map of this process.
void writePerfMap(llvm::orc::LLJIT &jit,
                  const std::vector<nb::bytes> &objects) {
  static std::mutex mutex;
  std::string lines;
  for (const nb::bytes &object : objects) {
    auto file =
        llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(
            llvm::StringRef(object.c_str(), object.size()), "tinytensor"));
    if (!file) {
      llvm::consumeError(file.takeError());
      continue;
    }
    for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
      auto type = symbol.getType();
      auto name = symbol.getName();
      if (!type || !name || *type != llvm::object::SymbolRef::ST_Function) {
        if (!type)
          llvm::consumeError(type.takeError());
        if (!name)
          llvm::consumeError(name.takeError());
        continue;
      }
      uint64_t size = llvm::object::ELFSymbolRef(symbol).getSize();
      auto address = jit.lookup(*name);
      if (!address || size == 0) {
        if (!address)
          llvm::consumeError(address.takeError());
        continue;
      }
      llvm::raw_string_ostream(lines)
          << llvm::format_hex_no_prefix(address->getValue(), 1) << " "
          << llvm::format_hex_no_prefix(size, 1) << " " << *name << "\n";
    }
  }
  std::lock_guard<std::mutex> lock(mutex);
  std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  if (FILE *f = std::fopen(path.c_str(), "a")) {
    std::fwrite(lines.data(), 1, lines.size(), f);
    std::fclose(f);
  }
}

} // namespace

struct tt::python::Library::State {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

tt::python::Library::Library(const std::vector<nb::bytes> &objects,
                             const std::vector<std::string> &sharedLibs,
                             const std::string &gnuOpenMP)
    : state(std::make_unique<State>()) {
  initializeNativeTarget();
  std::string error;
  if (!gnuOpenMP.empty())
    error = bindGnuOpenMP(gnuOpenMP);
  if (error.empty()) {
    nb::gil_scoped_release unlocked;
    auto jit = llvm::orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(hostMachine(2))
                   .create();
    if (!jit) {
      error = "cannot create the JIT: " + message(jit.takeError());
    } else {
      state->jit = std::move(*jit);
      llvm::orc::JITDylib &main = state->jit->getMainJITDylib();
      char prefix = state->jit->getDataLayout().getGlobalPrefix();
      for (const std::string &path : sharedLibs) {
        auto generator = llvm::orc::DynamicLibrarySearchGenerator::Load(
            path.c_str(), prefix);
        if (!generator) {
          error = "cannot load " + path + ": " + message(generator.takeError());
          break;
        }
        main.addGenerator(std::move(*generator));
      }
      // Buffers of code built with generic-alloc=true: the reusing cache.
      if (error.empty()) {
        llvm::orc::SymbolMap buffers;
        auto flags =
            llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
        buffers[state->jit->mangleAndIntern("_mlir_memref_to_llvm_alloc")] = {
            llvm::orc::ExecutorAddr::fromPtr(&ttBufferAlloc), flags};
        buffers[state->jit->mangleAndIntern("_mlir_memref_to_llvm_free")] = {
            llvm::orc::ExecutorAddr::fromPtr(&ttBufferFree), flags};
        // Parallel loops on GNU OpenMP: the shim's entry points come first.
        if (!gnuOpenMP.empty())
          for (auto [name, address] : gnuOpenMPSymbols())
            buffers[state->jit->mangleAndIntern(name)] = {
                llvm::orc::ExecutorAddr::fromPtr(address), flags};
        if (llvm::Error e =
                main.define(llvm::orc::absoluteSymbols(std::move(buffers))))
          error = message(std::move(e));
      }
      if (error.empty()) {
        auto process =
            llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                prefix);
        if (!process)
          error = message(process.takeError());
        else
          main.addGenerator(std::move(*process));
      }
      for (const nb::bytes &object : objects) {
        if (!error.empty())
          break;
        auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
            llvm::StringRef(object.c_str(), object.size()), "tinytensor");
        if (llvm::Error e = state->jit->addObjectFile(std::move(buffer)))
          error = "cannot load the object: " + message(std::move(e));
      }
      if (error.empty() && perfMapEnabled())
        writePerfMap(*state->jit, objects);
    }
  }
  if (!error.empty())
    throw std::runtime_error(error);
}

tt::python::Library::~Library() = default;

uintptr_t tt::python::Library::lookup(const std::string &name) {
  std::string error;
  uintptr_t address = 0;
  {
    nb::gil_scoped_release unlocked;
    auto symbol = state->jit->lookup(name);
    if (!symbol)
      error = message(symbol.takeError());
    else
      address = symbol->getValue();
  }
  if (!error.empty())
    throw std::runtime_error("cannot resolve '" + name + "': " + error);
  return address;
}
