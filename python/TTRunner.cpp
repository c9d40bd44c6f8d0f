//===- TTRunner.cpp - Calling compiled functions with NumPy arrays --------===//
//
// See TTRunner.h.
//
//===----------------------------------------------------------------------===//

#include "TTRunner.h"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace nb = nanobind;

namespace {

/// Calls a compiled function through its packed C interface
/// (`_mlir__mlir_ciface_<name>`, from ExecutionEngine::raw_lookup): every
/// input and output is a memref descriptor
/// {allocated, aligned, offset, sizes[rank], strides[rank]}, built here
/// from the arrays' buffers. Each array must have the rank, shape (any
/// size where the compiled shape is negative: a dynamic dimension) and
/// element format it was compiled for and be C-contiguous; outputs must be
/// writable. The compiled code runs without the GIL.
///
/// Inputs listed as `updated` are written by the compiled code (a result
/// computed into them, `tt.updated_by`): they must be writable, and their
/// memory must not overlap another input's (ValueError otherwise: the
/// caller then passes copies).
class Runner {
public:
  struct Spec {
    std::vector<int64_t> shape;
    char format;     // the buffer protocol's format character
    Py_ssize_t size; // bytes per element
  };

  Runner(uintptr_t address, std::vector<Spec> inputs, std::vector<Spec> outputs,
         std::vector<size_t> updatedInputs = {})
      : fn(reinterpret_cast<void (*)(void **)>(address)),
        inputs(std::move(inputs)), outputs(std::move(outputs)),
        updated(this->inputs.size(), false) {
    for (size_t i : updatedInputs) {
      if (i >= this->inputs.size())
        throw nb::value_error("Runner: an updated input is out of range");
      updated[i] = true;
      anyUpdated = true;
    }
    size_t words = 0;
    for (const Spec *spec : allSpecs())
      words += 3 + 2 * spec->shape.size();
    descriptorWords = words;
  }

  void call(nb::handle inputArrays, nb::handle outputArrays) {
    PyObject *in = inputArrays.ptr(), *out = outputArrays.ptr();
    if (!PyTuple_Check(in) || !PyTuple_Check(out))
      throw nb::type_error("Runner expects a tuple of inputs and a tuple "
                           "of outputs");
    size_t nin = PyTuple_GET_SIZE(in), nout = PyTuple_GET_SIZE(out);
    if (nin != inputs.size() || nout != outputs.size())
      throw nb::type_error("Runner: wrong number of arrays");
    Views views(nin + nout);
    for (size_t i = 0; i < nin + nout; ++i) {
      bool isOutput = i >= nin;
      PyObject *array =
          isOutput ? PyTuple_GET_ITEM(out, i - nin) : PyTuple_GET_ITEM(in, i);
      if (!views.acquire(array, isOutput || updated[i]))
        throw nb::type_error("Runner: an argument is not a buffer (or an "
                             "output is read-only)");
      if (!matches(views[i], isOutput ? outputs[i - nin] : inputs[i]))
        throw nb::type_error("Runner: an array has another shape, dtype "
                             "or layout than the function was compiled "
                             "for");
    }
    if (anyUpdated && updatesOverlap(views))
      throw nb::value_error("Runner: an updated input overlaps another "
                            "input");
    run(views);
  }

  /// Buffer views of a call's arrays (inputs, then outputs), released
  /// when it ends.
  class Views {
  public:
    explicit Views(size_t count) : views(count) {}
    Views(const Views &) = delete;
    Views &operator=(const Views &) = delete;
    ~Views() {
      for (size_t i = 0; i < acquired; ++i)
        PyBuffer_Release(&views[i]);
    }
    /// Acquires the next view (false, with no Python error set, if
    /// `array` is not a buffer, or not a writable one when asked).
    bool acquire(PyObject *array, bool writable) {
      int flags =
          PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
      if (PyObject_GetBuffer(array, &views[acquired], flags) != 0) {
        PyErr_Clear();
        return false;
      }
      ++acquired;
      return true;
    }
    const Py_buffer &operator[](size_t i) const { return views[i]; }

  private:
    llvm::SmallVector<Py_buffer, 8> views;
    size_t acquired = 0;
  };

  /// Whether the first views have the input types of this function.
  bool inputsMatch(const Views &views) const {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!matches(views[i], inputs[i]))
        return false;
    return true;
  }

  /// Runs the function on checked views of its inputs and outputs,
  /// without the GIL.
  void run(const Views &views) {
    size_t count = inputs.size() + outputs.size();
    llvm::SmallVector<int64_t, 64> words(descriptorWords);
    llvm::SmallVector<void *, 16> descriptors(count), packed(count);
    int64_t *cursor = words.data();
    for (size_t i = 0; i < count; ++i) {
      const Py_buffer &view = views[i];
      descriptors[i] = cursor;
      cursor[0] = cursor[1] = reinterpret_cast<int64_t>(view.buf);
      cursor[2] = 0;
      size_t rank = view.ndim;
      int64_t stride = 1;
      for (size_t d = rank; d-- > 0;) {
        cursor[3 + d] = view.shape[d];
        cursor[3 + rank + d] = stride;
        stride *= view.shape[d];
      }
      cursor += 3 + 2 * rank;
      packed[i] = &descriptors[i];
    }
    nb::gil_scoped_release unlocked;
    fn(packed.data());
  }

  size_t numInputs() const { return inputs.size(); }
  size_t numOutputs() const { return outputs.size(); }
  bool updatesInputs() const { return anyUpdated; }

private:
  /// Whether an updated input's bytes overlap another input's.
  bool updatesOverlap(const Views &views) const {
    struct Range {
      uintptr_t begin, end;
      bool updated;
    };
    std::vector<Range> ranges;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto begin = reinterpret_cast<uintptr_t>(views[i].buf);
      if (views[i].len > 0)
        ranges.push_back({begin, begin + views[i].len, updated[i]});
    }
    std::sort(ranges.begin(), ranges.end(),
              [](const Range &a, const Range &b) { return a.begin < b.begin; });
    uintptr_t end = 0, updatedEnd = 0;
    for (const Range &r : ranges) {
      if (r.begin < (r.updated ? end : updatedEnd))
        return true;
      end = std::max(end, r.end);
      if (r.updated)
        updatedEnd = std::max(updatedEnd, r.end);
    }
    return false;
  }

  static bool matches(const Py_buffer &view, const Spec &spec) {
    if (view.ndim != static_cast<int>(spec.shape.size()) ||
        view.itemsize != spec.size)
      return false;
    const char *format = view.format ? view.format : "B";
    if (*format == '<' || *format == '=' || *format == '@')
      ++format;
    if (format[0] != spec.format || format[1] != '\0')
      return false;
    Py_ssize_t expected = view.itemsize;
    for (int d = view.ndim; d-- > 0;) {
      if (spec.shape[d] >= 0 && view.shape[d] != spec.shape[d])
        return false; // a negative size is dynamic: any size
      if (view.shape[d] != 1 && view.strides[d] != expected)
        return false;
      expected *= view.shape[d];
    }
    return true;
  }

  std::vector<const Spec *> allSpecs() const {
    std::vector<const Spec *> all;
    for (const Spec &s : inputs)
      all.push_back(&s);
    for (const Spec &s : outputs)
      all.push_back(&s);
    return all;
  }

  void (*fn)(void **);
  std::vector<Spec> inputs, outputs;
  std::vector<bool> updated;
  bool anyUpdated = false;
  size_t descriptorWords = 0;
};

/// Traces running in any thread (tracing.TraceContext counts them): a jit
/// function called inside a trace is inlined into it, so the dispatcher
/// leaves such calls to Python.
std::atomic<int> activeTraces{0};

/// A jit function's cached calls of the plain kind: positional NumPy
/// arrays, one per parameter, each C-contiguous with the shape and dtype of
/// a static specialisation that has no captured arrays, no run-time checks
/// and array results. `__call__` returns the results, or None when the
/// call is not one of those (a new shape, another layout, keyword
/// arguments, an array or container now reachable from the function's
/// globals or closure, a trace running): the caller then takes the general
/// path, which finds or compiles the specialisation and adds it here.
class Dispatcher {
public:
  /// `fn`: the jitted callable (its globals and closure are checked at each
  /// call, as jit._scope_arrays reads them); `empty`: numpy.empty;
  /// `ndarray`: numpy.ndarray.
  Dispatcher(nb::handle fn, size_t parameters, nb::object empty,
             nb::object ndarray)
      : parameters(parameters), empty(std::move(empty)),
        ndarray(reinterpret_cast<PyTypeObject *>(ndarray.ptr())),
        ndarrayObject(std::move(ndarray)) {
    if (nb::hasattr(fn, "__code__")) {
      names = nb::borrow<nb::tuple>(fn.attr("__code__").attr("co_names"));
      globals = nb::borrow<nb::dict>(fn.attr("__globals__"));
      nb::object closureObject = fn.attr("__closure__");
      if (!closureObject.is_none())
        closure = nb::borrow<nb::tuple>(closureObject);
    }
  }

  nb::object call(nb::handle argsHandle) {
    PyObject *args = argsHandle.ptr();
    if (entries.empty() || activeTraces.load(std::memory_order_relaxed) ||
        !PyTuple_Check(args) ||
        static_cast<size_t>(PyTuple_GET_SIZE(args)) != parameters)
      return nb::none();
    for (size_t i = 0; i < parameters; ++i)
      if (Py_TYPE(PyTuple_GET_ITEM(args, i)) != ndarray)
        return nb::none();
    if (!scopeIsFree())
      return nb::none();
    std::shared_ptr<Entry> entry;
    Runner::Views views(parameters + maxOutputs);
    for (size_t i = 0; i < parameters; ++i)
      if (!views.acquire(PyTuple_GET_ITEM(args, i), /*writable=*/false))
        return nb::none();
    for (const auto &e : entries)
      if (e->runner->inputsMatch(views)) {
        entry = e; // kept alive while the code runs without the GIL
        break;
      }
    if (!entry)
      return nb::none();
    size_t nout = entry->outputs.size();
    llvm::SmallVector<nb::object, 4> results;
    for (const auto &[shape, dtype] : entry->outputs) {
      PyObject *argv[] = {shape.ptr(), dtype.ptr()};
      PyObject *array = PyObject_Vectorcall(empty.ptr(), argv, 2, nullptr);
      if (!array)
        throw nb::python_error();
      results.push_back(nb::steal(array));
      if (!views.acquire(array, /*writable=*/true))
        throw nb::type_error("Dispatcher: numpy.empty returned an array "
                             "without a writable buffer");
    }
    entry->runner->run(views);
    ++hits;
    entry->lastUsed = ++tick;
    if (entry->result == Result::Array)
      return results[0];
    PyObject *sequence =
        entry->result == Result::List ? PyList_New(nout) : PyTuple_New(nout);
    if (!sequence)
      throw nb::python_error();
    for (size_t j = 0; j < nout; ++j) {
      PyObject *item = results[j].release().ptr();
      if (entry->result == Result::List)
        PyList_SET_ITEM(sequence, j, item);
      else
        PyTuple_SET_ITEM(sequence, j, item);
    }
    return nb::steal(sequence);
  }

  /// Adds a specialisation: `key` (the jit cache's key, returned by
  /// `recent`), `executable` (a runtime.Executable: static, updating no
  /// input), its output types as (shape tuple, dtype) and how the results
  /// are returned ("array", "tuple" or "list").
  void add(nb::object key, nb::object executable, nb::handle runnerObject,
           std::vector<std::pair<nb::tuple, nb::object>> outputs,
           const std::string &result) {
    auto entry = std::make_shared<Entry>();
    entry->runner = nb::cast<Runner *>(runnerObject);
    if (entry->runner->updatesInputs() ||
        entry->runner->numInputs() != parameters ||
        entry->runner->numOutputs() != outputs.size())
      throw nb::value_error("Dispatcher.add: the runner's inputs or outputs "
                            "do not fit this dispatcher");
    if (result == "array")
      entry->result = Result::Array;
    else if (result == "tuple")
      entry->result = Result::Tuple;
    else if (result == "list")
      entry->result = Result::List;
    else
      throw nb::value_error("Dispatcher.add: result is 'array', 'tuple' or "
                            "'list'");
    if (entry->result == Result::Array && outputs.size() != 1)
      throw nb::value_error("Dispatcher.add: an 'array' result has one "
                            "output");
    entry->key = std::move(key);
    entry->executable = std::move(executable);
    entry->runnerObject = nb::borrow(runnerObject);
    for (auto &[shape, dtype] : outputs)
      entry->outputs.emplace_back(std::move(shape), std::move(dtype));
    maxOutputs = std::max(maxOutputs, entry->outputs.size());
    entries.push_back(std::move(entry));
  }

  /// Removes the specialisation added with `key` (if any).
  void remove(nb::handle key) {
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](const std::shared_ptr<Entry> &e) {
                                   return e->key.equal(key);
                                 }),
                  entries.end());
  }

  void clear() { entries.clear(); }

  /// The keys of the specialisations called here since the last `recent`,
  /// least recently called first (the jit cache moves them to its end, so
  /// that its LRU bound sees these calls).
  nb::list recent() {
    std::vector<Entry *> used;
    for (const auto &e : entries)
      if (e->lastUsed > synced)
        used.push_back(e.get());
    std::sort(used.begin(), used.end(), [](const Entry *a, const Entry *b) {
      return a->lastUsed < b->lastUsed;
    });
    nb::list keys;
    for (Entry *e : used)
      keys.append(e->key);
    synced = tick;
    return keys;
  }

  uint64_t hits = 0;

  size_t size() const { return entries.size(); }

private:
  enum class Result { Array, Tuple, List };
  struct Entry {
    nb::object key, executable, runnerObject;
    Runner *runner = nullptr;
    std::vector<std::pair<nb::tuple, nb::object>> outputs;
    Result result = Result::Array;
    uint64_t lastUsed = 0;
  };

  /// Whether no array or container is reachable from the function's
  /// closure or the globals its code names (jit._scope_arrays would find
  /// arrays to capture, or has to look).
  bool scopeIsFree() const {
    auto isScopeKind = [&](PyObject *value) {
      return PyObject_TypeCheck(value, ndarray) || PyDict_Check(value) ||
             PyList_Check(value) || PyTuple_Check(value);
    };
    if (closure.is_valid())
      for (size_t i = 0, e = PyTuple_GET_SIZE(closure.ptr()); i < e; ++i) {
        PyObject *value = PyCell_GET(PyTuple_GET_ITEM(closure.ptr(), i));
        if (value && isScopeKind(value))
          return false;
      }
    if (names.is_valid())
      for (size_t i = 0, e = PyTuple_GET_SIZE(names.ptr()); i < e; ++i) {
        PyObject *value = PyDict_GetItemWithError(
            globals.ptr(), PyTuple_GET_ITEM(names.ptr(), i));
        if (!value && PyErr_Occurred()) {
          PyErr_Clear();
          return false;
        }
        if (value && isScopeKind(value))
          return false;
      }
    return true;
  }

  size_t parameters;
  nb::object empty;
  PyTypeObject *ndarray;
  nb::object ndarrayObject; // the reference that keeps `ndarray` alive
  nb::tuple names, closure;
  nb::dict globals;
  std::vector<std::shared_ptr<Entry>> entries;
  /// The most outputs of any specialisation added (views to reserve).
  size_t maxOutputs = 0;
  uint64_t tick = 0, synced = 0;
};

std::vector<Runner::Spec> toSpecs(
    const std::vector<std::tuple<std::vector<int64_t>, std::string, Py_ssize_t>>
        &types) {
  std::vector<Runner::Spec> specs;
  for (const auto &[shape, format, size] : types) {
    if (format.size() != 1)
      throw nb::value_error("Runner: a format is one character");
    specs.push_back({shape, format[0], size});
  }
  return specs;
}

} // namespace

void tt::python::bindRunner(nb::module_ &tt) {
  nb::class_<Runner>(tt, "Runner",
                     "A compiled function's packed C interface, called "
                     "with NumPy arrays (see TTRunner.cpp).")
      .def(
          "__init__",
          [](Runner *self, uintptr_t address,
             const std::vector<std::tuple<std::vector<int64_t>, std::string,
                                          Py_ssize_t>> &inputs,
             const std::vector<std::tuple<std::vector<int64_t>, std::string,
                                          Py_ssize_t>> &outputs,
             const std::vector<size_t> &updated) {
            new (self)
                Runner(address, toSpecs(inputs), toSpecs(outputs), updated);
          },
          nb::arg("address"), nb::arg("inputs"), nb::arg("outputs"),
          nb::arg("updated") = std::vector<size_t>(),
          "`address` of the packed function; inputs and outputs as "
          "(shape, buffer format character, item size); `updated`: the "
          "inputs the function writes (checked writable and apart from "
          "the other inputs at each call, ValueError if they overlap).")
      .def("__call__", &Runner::call, nb::arg("inputs"), nb::arg("outputs"),
           "Runs the function on a tuple of input arrays, writing a tuple "
           "of output arrays.");

  nb::class_<Dispatcher>(tt, "Dispatcher",
                         "A jit function's cached calls of plain "
                         "specialisations, in C++ (see TTRunner.cpp).")
      .def(nb::init<nb::handle, size_t, nb::object, nb::object>(),
           nb::arg("fn"), nb::arg("parameters"), nb::arg("empty"),
           nb::arg("ndarray"))
      .def("__call__", &Dispatcher::call, nb::arg("args"),
           "The results of a call with the tuple `args`, or None when it is "
           "not a cached plain call.")
      .def("add", &Dispatcher::add, nb::arg("key"), nb::arg("executable"),
           nb::arg("runner"), nb::arg("outputs"), nb::arg("result"))
      .def("remove", &Dispatcher::remove, nb::arg("key"))
      .def("clear", &Dispatcher::clear)
      .def("recent", &Dispatcher::recent)
      .def("__len__", &Dispatcher::size)
      .def_ro("hits", &Dispatcher::hits,
              "Calls served here (cache hits the jit cache did not see).");
  tt.def(
      "trace_entered", [] { ++activeTraces; },
      "Counts a trace starting (any thread): cached calls go to Python.");
  tt.def("trace_exited", [] { --activeTraces; }, "Counts a trace ending.");
}
