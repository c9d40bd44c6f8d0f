//===- OutlineRepeatedScopes.cpp - One function per repeated source call --===//
//
// Ops carry `tt.scope` (the ids of the source calls they were traced in);
// structurally identical ranges of calls of one name become calls of one
// private function. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Dialect/TT/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTOUTLINEREPEATEDSCOPES
#include "TinyTensor/Dialect/TT/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kScope = "tt.scope";
constexpr llvm::StringLiteral kScopeNames = "tt.scope_names";

/// The ops of one source call: a contiguous range of a block.
struct Range {
  int64_t id = -1;
  SmallVector<Operation *> ops;
  /// Values from outside the range it uses, in order of first use.
  SmallVector<Value> inputs;
  /// Results of its ops used after it, in op and result order.
  SmallVector<Value> outputs;
};

/// Fills `inputs` and `outputs` of a range of ops.
void analyse(Range &range) {
  llvm::DenseSet<Operation *> inside(range.ops.begin(), range.ops.end());
  llvm::DenseSet<Value> seen;
  for (Operation *op : range.ops) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if ((!def || !inside.contains(def)) && seen.insert(operand).second)
        range.inputs.push_back(operand);
    }
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !inside.contains(user);
          }))
        range.outputs.push_back(result);
  }
}

/// Whether `b` computes the same function of its inputs as `a`.
bool equivalent(const Range &a, const Range &b) {
  if (a.ops.size() != b.ops.size() || a.inputs.size() != b.inputs.size() ||
      a.outputs.size() != b.outputs.size())
    return false;
  IRMapping map;
  for (auto [x, y] : llvm::zip(a.inputs, b.inputs)) {
    if (x.getType() != y.getType())
      return false;
    map.map(x, y);
  }
  for (auto [x, y] : llvm::zip(a.ops, b.ops)) {
    if (x->getNumOperands() != y->getNumOperands() ||
        x->getNumRegions() != 0 || y->getNumRegions() != 0)
      return false;
    for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands()))
      if (map.lookupOrNull(u) != v)
        return false;
    if (!OperationEquivalence::isEquivalentTo(
            x, y, [](Value, Value) { return success(); }, nullptr,
            OperationEquivalence::Flags(
                OperationEquivalence::IgnoreLocations |
                OperationEquivalence::IgnoreDiscardableAttrs)))
      return false;
    for (auto [u, v] : llvm::zip(x->getResults(), y->getResults()))
      map.map(u, v);
  }
  for (auto [x, y] : llvm::zip(a.outputs, b.outputs))
    if (map.lookupOrNull(x) != y)
      return false;
  return true;
}

std::string symbolName(StringRef name) {
  std::string out;
  for (char c : name)
    out += (llvm::isAlnum(c) || c == '_') ? c : '_';
  if (out.empty() || llvm::isDigit(out[0]))
    out = "scope_" + out;
  return out;
}

struct OutlineRepeatedScopesPass
    : public tt::impl::TTOutlineRepeatedScopesBase<OutlineRepeatedScopesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Outlined functions keep the scopes nested in the outlined call (the
    // heads of an attention block) and are processed in turn.
    SmallVector<func::FuncOp> worklist(module.getOps<func::FuncOp>());
    while (!worklist.empty()) {
      func::FuncOp fn = worklist.pop_back_val();
      if (auto names = fn->getAttrOfType<ArrayAttr>(kScopeNames))
        outline(fn, names, symbols, worklist);
    }
    module.walk([](Operation *op) {
      op->removeAttr(kScope);
      op->removeAttr(kScopeNames);
    });
  }

  void outline(func::FuncOp fn, ArrayAttr names, SymbolTable &symbols,
               SmallVector<func::FuncOp> &worklist) {
    if (!fn.getBody().hasOneBlock())
      return;
    Block &body = fn.getBody().front();
    // The ops of each scope id, in block order, and whether contiguous.
    llvm::MapVector<int64_t, Range> ranges;
    llvm::DenseMap<Operation *, size_t> position;
    for (auto [i, op] : llvm::enumerate(body)) {
      position[&op] = i;
      if (auto scopes = op.getAttrOfType<DenseI64ArrayAttr>(kScope))
        for (int64_t id : scopes.asArrayRef()) {
          ranges[id].id = id;
          ranges[id].ops.push_back(&op);
        }
    }
    // Calls grouped by name and size (only calls of one size can be
    // equivalent), largest first: a network's blocks are outlined before
    // the calls inside them, even where a larger call of the same name
    // (another lambda) has no equivalent.
    llvm::MapVector<std::pair<StringRef, size_t>, SmallVector<Range *>> byName;
    for (auto &[id, range] : ranges) {
      if (id < 0 || id >= static_cast<int64_t>(names.size()) ||
          range.ops.size() < minOps)
        continue;
      auto name = dyn_cast<StringAttr>(names[id]);
      if (!name)
        continue;
      bool contiguous = true;
      for (size_t i = 1; i < range.ops.size(); ++i)
        contiguous &= position[range.ops[i]] == position[range.ops[i - 1]] + 1;
      if (!contiguous || llvm::any_of(range.ops, [](Operation *op) {
            return op->getNumRegions() != 0 || op->hasTrait<OpTrait::IsTerminator>();
          }))
        continue;
      byName[{name.getValue(), range.ops.size()}].push_back(&range);
    }
    SmallVector<std::pair<std::pair<StringRef, size_t>, SmallVector<Range *>>>
        groups(byName.begin(), byName.end());
    SmallVector<size_t> order(groups.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    auto largest = [&](size_t i) { return groups[i].second.front()->ops.size(); };
    llvm::sort(order, [&](size_t x, size_t y) {
      return largest(x) != largest(y) ? largest(x) > largest(y) : x < y;
    });

    llvm::DenseSet<Operation *> outlined;
    for (size_t index : order) {
      auto &[key, calls] = groups[index];
      StringRef name = key.first;
      // Classes of equivalent calls; a class of one stays inline.
      SmallVector<SmallVector<Range *>> classes;
      for (Range *call : calls) {
        if (llvm::any_of(call->ops,
                         [&](Operation *op) { return outlined.contains(op); }))
          continue;
        // Now: an earlier outlining may have replaced values it uses.
        call->inputs.clear();
        call->outputs.clear();
        analyse(*call);
        auto it = llvm::find_if(classes, [&](const SmallVector<Range *> &c) {
          return equivalent(*c.front(), *call);
        });
        if (it == classes.end())
          classes.push_back({call});
        else
          it->push_back(call);
      }
      // One call's outputs may be the next one's inputs (the blocks of a
      // network), in its own class or in another one of this group (all
      // were analysed before any was replaced): inputs are looked up in
      // what was replaced so far.
      IRMapping replaced;
      for (SmallVector<Range *> &members : classes) {
        if (members.size() < 2)
          continue;
        for (Value &input : members.front()->inputs)
          input = replaced.lookupOrDefault(input);
        func::FuncOp callee = createFunction(fn, name, *members.front(),
                                             names, symbols);
        worklist.push_back(callee);
        for (Range *call : members) {
          for (Operation *op : call->ops)
            outlined.insert(op);
          for (Value &input : call->inputs)
            input = replaced.lookupOrDefault(input);
          replaceWithCall(*call, callee, replaced);
        }
      }
    }
  }

  /// A private function computing `range` (a clone of its ops).
  func::FuncOp createFunction(func::FuncOp parent, StringRef name,
                              const Range &range, ArrayAttr names,
                              SymbolTable &symbols) {
    OpBuilder builder(parent);
    SmallVector<Type> inputs, results;
    for (Value v : range.inputs)
      inputs.push_back(v.getType());
    for (Value v : range.outputs)
      results.push_back(v.getType());
    auto callee = func::FuncOp::create(builder, range.ops.front()->getLoc(),
                                       symbolName(name),
                                       builder.getFunctionType(inputs,
                                                               results));
    callee.setPrivate();
    symbols.insert(callee); // renames it if the name is taken
    Block *entry = callee.addEntryBlock();
    IRMapping map;
    for (auto [v, arg] : llvm::zip(range.inputs, entry->getArguments()))
      map.map(v, arg);
    builder.setInsertionPointToStart(entry);
    bool nested = false;
    for (Operation *op : range.ops) {
      Operation *copy = builder.clone(*op, map);
      // Keep the calls inside the outlined one.
      ArrayRef<int64_t> scopes =
          copy->getAttrOfType<DenseI64ArrayAttr>(kScope).asArrayRef();
      ArrayRef<int64_t> inner = scopes.drop_front(
          llvm::find(scopes, range.id) - scopes.begin() + 1);
      if (inner.empty()) {
        copy->removeAttr(kScope);
      } else {
        copy->setAttr(kScope, builder.getDenseI64ArrayAttr(inner));
        nested = true;
      }
    }
    if (nested)
      callee->setAttr(kScopeNames, names);
    SmallVector<Value> returned;
    for (Value v : range.outputs)
      returned.push_back(map.lookup(v));
    func::ReturnOp::create(builder, range.ops.back()->getLoc(), returned);
    return callee;
  }

  void replaceWithCall(const Range &range, func::FuncOp callee,
                       IRMapping &replaced) {
    OpBuilder builder(range.ops.front());
    auto call = func::CallOp::create(builder, range.ops.front()->getLoc(),
                                     callee, range.inputs);
    for (auto [v, result] : llvm::zip(range.outputs, call.getResults())) {
      Value(v).replaceAllUsesWith(result);
      replaced.map(v, result);
    }
    for (Operation *op : llvm::reverse(range.ops))
      op->erase();
  }
};

} // namespace
