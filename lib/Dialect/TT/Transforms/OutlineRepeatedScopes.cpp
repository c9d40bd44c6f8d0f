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

/// Whether `op` is a constant: constants are not part of any range (a
/// pass before this one may have hoisted and merged them), a range's
/// constant operands are inputs, and those equal in every call of a class
/// are copied into the outlined function (see `sharedConstants`).
bool isConstant(Operation *op) {
  return op->hasTrait<OpTrait::ConstantLike>() && op->getNumRegions() == 0 &&
         op->getNumOperands() == 0;
}

/// For each input of the calls in `members`: whether it is the same
/// constant (equal ops) in all of them.
SmallVector<bool> sharedConstants(ArrayRef<Range *> members,
                                  const IRMapping &replaced) {
  SmallVector<bool> shared;
  for (size_t i = 0; i < members.front()->inputs.size(); ++i) {
    Operation *def = members.front()->inputs[i].getDefiningOp();
    shared.push_back(
        def && isConstant(def) && llvm::all_of(members, [&](Range *call) {
          // (Values an earlier call replaced are results of
          // erased ops: never constants.)
          Value value = call->inputs[i];
          if (replaced.contains(value))
            return false;
          Operation *other = value.getDefiningOp();
          return other && OperationEquivalence::isEquivalentTo(
                              def, other,
                              OperationEquivalence::IgnoreLocations |
                                  OperationEquivalence::IgnoreDiscardableAttrs);
        }));
  }
  return shared;
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
    // The ops of each scope id, in block order, and whether contiguous
    // (constants aside).
    llvm::MapVector<int64_t, Range> ranges;
    llvm::DenseMap<Operation *, size_t> position;
    size_t next = 0;
    for (Operation &op : body) {
      if (isConstant(&op))
        continue;
      position[&op] = next++;
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
      // Calls of one name with the same ops (a module that only calls
      // another of its class) are one range.
      llvm::DenseSet<Operation *> starts;
      for (Range *call : calls) {
        if (llvm::any_of(
                call->ops,
                [&](Operation *op) { return outlined.contains(op); }) ||
            !starts.insert(call->ops.front()).second)
          continue;
        // Now: an earlier outlining may have replaced values it uses.
        call->inputs.clear();
        call->outputs.clear();
        analyse(*call);
        if (call->outputs.size() > maxOutputs)
          continue;
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
        SmallVector<bool> copied = sharedConstants(members, replaced);
        func::FuncOp callee =
            createFunction(fn, name, *members.front(), copied, names, symbols);
        worklist.push_back(callee);
        for (Range *call : members) {
          for (Operation *op : call->ops)
            outlined.insert(op);
          for (Value &input : call->inputs)
            input = replaced.lookupOrDefault(input);
          replaceWithCall(*call, callee, copied, replaced);
        }
      }
    }
  }

  /// A private function computing `range` (a clone of its ops), with the
  /// inputs marked in `copied` (constants) copied into it rather than
  /// taken as arguments.
  func::FuncOp createFunction(func::FuncOp parent, StringRef name,
                              const Range &range, ArrayRef<bool> copied,
                              ArrayAttr names, SymbolTable &symbols) {
    OpBuilder builder(parent);
    SmallVector<Type> inputs, results;
    for (auto [v, copy] : llvm::zip(range.inputs, copied))
      if (!copy)
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
    builder.setInsertionPointToStart(entry);
    auto arg = entry->args_begin();
    for (auto [v, copy] : llvm::zip(range.inputs, copied)) {
      if (!copy) {
        map.map(v, *arg++);
        continue;
      }
      Operation *constant = builder.clone(*v.getDefiningOp());
      constant->removeAttr(kScope);
      map.map(v, constant->getResult(0));
    }
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

  /// Replaces `range` with a call of `callee`, which takes the inputs not
  /// `copied` into it.
  void replaceWithCall(const Range &range, func::FuncOp callee,
                       ArrayRef<bool> copied, IRMapping &replaced) {
    Operation *first = range.ops.front();
    SmallVector<Value> operands;
    for (auto [v, copy] : llvm::zip(range.inputs, copied)) {
      if (copy)
        continue;
      operands.push_back(v);
      // A constant among the range's ops is used by the call before it.
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == first->getBlock() &&
          first->isBeforeInBlock(def))
        def->moveBefore(first);
    }
    OpBuilder builder(first);
    auto call =
        func::CallOp::create(builder, first->getLoc(), callee, operands);
    for (auto [v, result] : llvm::zip(range.outputs, call.getResults())) {
      Value(v).replaceAllUsesWith(result);
      replaced.map(v, result);
    }
    for (Operation *op : llvm::reverse(range.ops))
      op->erase();
  }
};

} // namespace
