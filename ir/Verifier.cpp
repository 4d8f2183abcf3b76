//===- Verifier.cpp - The IR's invariants ---------------------------------===//
//
// Run after every pass in builds with assertions and on --verify-each. A
// broken invariant here is a compiler bug, never a user error: the driver
// reports it as an internal error and exits non-zero.
//
//===----------------------------------------------------------------------===//
#include "ir/IR.h"
#include "llvm/ADT/DenseSet.h"
#include <fmt/format.h>

using namespace shardc;

namespace {

class Verifier {
public:
  explicit Verifier(const Module &M) : M(M), Mesh(*M.Mesh) {}
  std::string run() {
    block(M.Body);
    return Error;
  }

private:
  void fail(const Operation &Op, const std::string &What) {
    if (Error.empty())
      Error = fmt::format("'{}' op: {}", opMnemonic(Op.Kind).str(), What);
  }
  void block(const Block &B);
  void op(const Operation &Op);
  bool type(const Operation &Op, const ShardType &T);
  void contraction(const Operation &Op);
  void collective(const Operation &Op);
  ShardType expectedAfter(const Operation &Op) const;

  const Module &M;
  const MeshSpec &Mesh;
  llvm::DenseSet<const Value *> Defined;
  std::string Error;
};

void Verifier::block(const Block &B) {
  for (const auto &Op : B.Ops)
    if (Error.empty())
      op(*Op);
}

bool Verifier::type(const Operation &Op, const ShardType &T) {
  llvm::SmallVector<bool, 8> Seen(Mesh.Axes.size(), false);
  auto Use = [&](unsigned A) {
    if (A >= Mesh.Axes.size() || Seen[A])
      return false;
    return Seen[A] = true;
  };
  for (const TensorDim &D : T.Dims) {
    if (D.Size <= 0)
      return fail(Op, "dim '" + D.Name + "' has a non-positive size"), false;
    int64_t Shards = 1;
    for (unsigned A : D.Axes) {
      if (!Use(A))
        return fail(Op, "an axis is invalid or used twice"), false;
      Shards *= Mesh.Axes[A].Size;
    }
    if (!M.Config.AllowPadding && D.Size % Shards != 0)
      return fail(Op, "dim '" + D.Name + "' is not divisible"), false;
  }
  for (unsigned A : T.Unreduced)
    if (!Use(A))
      return fail(Op, "an unreduced axis is invalid or used twice"), false;
  if (!std::is_sorted(T.Unreduced.begin(), T.Unreduced.end()))
    return fail(Op, "unreduced axes are not sorted"), false;
  return true;
}

void Verifier::op(const Operation &Op) {
  for (const Value *V : Op.Operands)
    if (!Defined.count(V))
      return fail(Op, "operand '" + V->Name + "' is used before it is defined");
  if (Op.Kind == OpKind::Repeat) {
    if (!Op.Body || Op.TripCount < 1)
      return fail(Op, "needs a body and a positive trip count");
    return block(*Op.Body);
  }
  if (!Op.Result || Op.Result->Def != &Op)
    return fail(Op, "result is missing or not defined by this op");
  if (!type(Op, Op.Result->Type))
    return;
  for (const Value *V : Op.Operands)
    if (!type(Op, V->Type))
      return;
  Defined.insert(Op.Result);
  switch (Op.Kind) {
  case OpKind::Input:
    if (!Op.Operands.empty())
      fail(Op, "takes no operands");
    break;
  case OpKind::Contraction:
    contraction(Op);
    break;
  case OpKind::Elementwise:
    if (Op.Operands.size() != elementwiseArity(Op.Fn))
      fail(Op, "wrong number of operands");
    for (const Value *V : Op.Operands) {
      if (!V->Type.sameDims(Op.Result->Type) ||
          (M.CollectivesInserted && V->Type.Dims != Op.Result->Type.Dims))
        fail(Op, "operands and result must have the same dims and sharding");
      if (V->Type.Elt != Op.Operands[0]->Type.Elt)
        fail(Op, "operands must have the same dtype");
    }
    break;
  case OpKind::Reshard:
    if (M.CollectivesInserted)
      fail(Op, "survived insert-collectives");
    else if (Op.Operands.size() != 1 ||
             !Op.Operands[0]->Type.sameDims(Op.Result->Type))
      fail(Op, "must keep its operand's dims");
    break;
  case OpKind::Slice:
  case OpKind::AllGather:
  case OpKind::ReduceScatter:
  case OpKind::AllReduce:
  case OpKind::AllToAll:
    collective(Op);
    break;
  case OpKind::Repeat:
    llvm_unreachable("handled above");
  }
}

void Verifier::contraction(const Operation &Op) {
  if (Op.Operands.size() != 2)
    return fail(Op, "takes two operands");
  for (const TensorDim &D : Op.Result->Type.Dims) {
    bool Known = llvm::any_of(Op.ContractDims, [&](const ContractionDim &C) {
      return C.Name == D.Name && C.Role != DimRole::Contracted;
    });
    if (!Known)
      return fail(Op, "result dim '" + D.Name + "' is not a batch or free dim");
  }
  if (!M.CollectivesInserted)
    return;
  // After insertion the product is local: shared dims are sharded alike and
  // every result dim keeps its input's sharding.
  const ShardType &L = Op.Operands[0]->Type, &R = Op.Operands[1]->Type;
  for (const TensorDim &D : L.Dims)
    if (auto J = R.dimIndex(D.Name); J && R.Dims[*J].Axes != D.Axes)
      return fail(Op, "dim '" + D.Name +
                          "' is sharded differently in the operands");
  for (const TensorDim &D : Op.Result->Type.Dims) {
    const ShardType &Src = L.dimIndex(D.Name) ? L : R;
    if (Src.Dims[*Src.dimIndex(D.Name)].Axes != D.Axes)
      return fail(Op, "result dim '" + D.Name + "' changes sharding");
  }
}

/// The type a collective or slice produces from its operand.
ShardType Verifier::expectedAfter(const Operation &Op) const {
  ShardType T = Op.Operands[0]->Type;
  auto Remove = [](auto &Vec, unsigned A) { llvm::erase_value(Vec, A); };
  for (unsigned A : Op.Axes) {
    switch (Op.Kind) {
    case OpKind::AllGather:
      Remove(T.Dims[Op.Dim].Axes, A);
      break;
    case OpKind::ReduceScatter:
      Remove(T.Unreduced, A);
      T.Dims[Op.Dim].Axes.push_back(A);
      break;
    case OpKind::AllReduce:
      Remove(T.Unreduced, A);
      break;
    case OpKind::AllToAll:
      Remove(T.Dims[Op.Dim].Axes, A);
      T.Dims[Op.DstDim].Axes.push_back(A);
      break;
    default: // Slice
      T.Dims[Op.Dim].Axes.push_back(A);
      break;
    }
  }
  return T;
}

void Verifier::collective(const Operation &Op) {
  // A slice over no axes is a view: the reshard that moved nothing.
  bool View = Op.Kind == OpKind::Slice && Op.Axes.empty();
  if (View && Op.Operands.size() == 1 &&
      Op.Operands[0]->Type.Dims == Op.Result->Type.Dims &&
      Op.Operands[0]->Type.Unreduced == Op.Result->Type.Unreduced)
    return;
  if (Op.Operands.size() != 1 || Op.Axes.empty())
    return fail(Op, "takes one operand and at least one axis");
  const ShardType &In = Op.Operands[0]->Type;
  bool NeedsDim = Op.Kind != OpKind::AllReduce;
  if (NeedsDim && (Op.Dim < 0 || unsigned(Op.Dim) >= In.Dims.size()))
    return fail(Op, "names no valid dim");
  if (Op.Kind == OpKind::AllToAll &&
      (Op.DstDim < 0 || unsigned(Op.DstDim) >= In.Dims.size()))
    return fail(Op, "names no valid target dim");
  // Collectives move data; only a view converts the element type.
  if (In.Elt != Op.Result->Type.Elt)
    return fail(Op, "changes the dtype");
  if (!(expectedAfter(Op) == Op.Result->Type))
    fail(Op, "result type " + Op.Result->Type.str(Mesh) +
                 " does not follow from the operand " + In.str(Mesh));
}

} // namespace

std::string shardc::verifyModule(const Module &M) {
  if (!M.Mesh || !M.Mesh->Cluster)
    return "module has no mesh";
  return Verifier(M).run();
}
