//===- Verifier.cpp - The IR's invariants ---------------------------------===//
//
// Run after the frontend and after every pass in builds with assertions, and
// on --verify-each. A broken invariant here is a compiler bug, never a user
// error: the driver reports it as an internal error and exits non-zero.
// Checked here for every op: its operands are defined before it, its result
// is its own, and every type is valid on the module's mesh; each kind's own
// invariants are its `verify` method (Ops.cpp). tests/unit/VerifierTest.cpp
// shows each one fire. What the builder guarantees by construction (an op's
// parent block, use-lists) is asserted where it is maintained instead.
//
//===----------------------------------------------------------------------===//
#include "ir/Module.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include <fmt/format.h>

using namespace shardc;

namespace {

class Verifier {
public:
  explicit Verifier(const Module &M) : M(M), Mesh(M.mesh()) {}
  std::string run() {
    block(M.body());
    return Error;
  }

private:
  void fail(const Op &O, const std::string &What) {
    if (Error.empty())
      Error = fmt::format("'{}' op: {}", opMnemonic(O.kind()).str(), What);
  }
  void block(const Block &B);
  void op(const Op &O);
  bool linked(const Op &O);
  bool type(const Op &O, const ShardType &T);

  const Module &M;
  const MeshSpec &Mesh;
  llvm::DenseSet<const Value *> Defined;
  std::string Error;
};

void Verifier::block(const Block &B) {
  for (const auto &O : B.ops())
    if (Error.empty())
      op(*O);
}

/// The op's links to its operands and result.
bool Verifier::linked(const Op &O) {
  for (const Value *V : O.operands())
    if (!Defined.count(V))
      return fail(O,
                  "operand '" + V->name() + "' is used before it is defined"),
             false;
  if (O.kind() == OpKind::Repeat)
    return true;
  if (!O.result() || O.result()->def() != &O)
    return fail(O, "result is missing or not defined by this op"), false;
  return true;
}

bool Verifier::type(const Op &O, const ShardType &T) {
  AxisSet Seen;
  auto Use = [&](AxisId A) {
    if (A >= Mesh.Axes.size() || Seen.contains(A))
      return false;
    Seen.insert(A);
    return true;
  };
  for (const TensorDim &D : T.Dims) {
    if (D.Size <= 0)
      return fail(O, "a dim has a non-positive size"), false;
    for (AxisId A : D.Axes)
      if (!Use(A))
        return fail(O, "an axis is invalid or used twice"), false;
  }
  for (AxisId A : T.Unreduced.list())
    if (!Use(A))
      return fail(O, "an unreduced axis is invalid or used twice"), false;
  if (auto I = T.firstUneven(Mesh); I && !M.config().AllowPadding)
    return fail(O,
                "dim '" + M.names().Dims[T.Dims[*I].Id] + "' is not divisible"),
           false;
  return true;
}

void Verifier::op(const Op &O) {
  if (!linked(O))
    return;
  if (O.result()) {
    if (!type(O, O.result()->type()))
      return;
    Defined.insert(O.result());
  }
  for (const Value *V : O.operands())
    if (!type(O, V->type()))
      return;
  if (std::string Why = O.verify(M.names(), M.isLowered()); !Why.empty())
    return fail(O, Why);
  for (const Block *R : O.regions())
    block(*R);
  if (auto *R = dyn_cast<RepeatOp>(&O))
    for (const RepeatOp::Carried &C : R->carried())
      if (!Defined.count(C.Init) || !Defined.count(C.Next))
        return fail(O, "carried value '" + C.Init->name() +
                           "' is not defined by its loop");
}

} // namespace

std::string shardc::verifyModule(const Module &M) {
  if (!M.mesh().Cluster)
    return "module has no cluster";
  return Verifier(M).run();
}
