//===- IR.cpp - Types, values and ops -------------------------------------===//
#include "ir/IR.h"
#include "llvm/ADT/StringSet.h"
#include <algorithm>
#include <fmt/format.h>

using namespace shardc;

llvm::StringRef shardc::opMnemonic(OpKind K) {
  switch (K) {
#define OP(Kind, Mnemonic)                                                     \
  case OpKind::Kind:                                                           \
    return Mnemonic;
#include "ir/Ops.def"
  }
  return "?";
}

bool shardc::isCollective(OpKind K) {
  return K == OpKind::AllGather || K == OpKind::ReduceScatter ||
         K == OpKind::AllReduce || K == OpKind::AllToAll;
}

OpKind shardc::collectiveOp(CollectiveKind K) {
  switch (K) {
#define COLLECTIVE(Name)                                                       \
  case CollectiveKind::Name:                                                   \
    return OpKind::Name;
#include "ir/CollectiveKinds.def"
  }
  return OpKind::AllGather;
}

CollectiveKind shardc::collectiveKindOf(OpKind K) {
  switch (K) {
  case OpKind::ReduceScatter:
    return CollectiveKind::ReduceScatter;
  case OpKind::AllReduce:
    return CollectiveKind::AllReduce;
  case OpKind::AllToAll:
    return CollectiveKind::AllToAll;
  default:
    return CollectiveKind::AllGather;
  }
}

namespace {
struct FnInfo {
  const char *Name;
  double Flops;
  unsigned Arity;
};
constexpr FnInfo Fns[] = {
#define ELEMENTWISE(Name, Flops, Arity) {#Name, Flops, Arity},
#include "ir/Elementwise.def"
};
} // namespace

llvm::StringRef shardc::elementwiseName(ElementwiseFn F) {
  return Fns[unsigned(F)].Name;
}
double shardc::elementwiseFlops(ElementwiseFn F) {
  return Fns[unsigned(F)].Flops;
}
unsigned shardc::elementwiseArity(ElementwiseFn F) {
  return Fns[unsigned(F)].Arity;
}
std::optional<ElementwiseFn> shardc::parseElementwise(llvm::StringRef Name) {
  for (unsigned I = 0; I < std::size(Fns); ++I)
    if (Name == Fns[I].Name)
      return ElementwiseFn(I);
  return std::nullopt;
}

llvm::StringRef shardc::dimRoleName(DimRole R) {
  switch (R) {
  case DimRole::Batch:
    return "batch";
  case DimRole::Contracted:
    return "contracted";
  case DimRole::FreeLhs:
    return "free_lhs";
  case DimRole::FreeRhs:
    return "free_rhs";
  }
  return "?";
}

llvm::StringRef shardc::boundName(Bound B) {
  switch (B) {
  case Bound::Compute:
    return "compute";
  case Bound::Memory:
    return "memory";
  case Bound::Comms:
    return "comms";
  }
  return "?";
}

bool ShardType::sameDims(const ShardType &O) const {
  if (Dims.size() != O.Dims.size())
    return false;
  for (size_t I = 0; I < Dims.size(); ++I)
    if (Dims[I].Name != O.Dims[I].Name || Dims[I].Size != O.Dims[I].Size)
      return false;
  return true;
}

std::optional<unsigned> ShardType::dimIndex(llvm::StringRef Name) const {
  for (unsigned I = 0; I < Dims.size(); ++I)
    if (Dims[I].Name == Name)
      return I;
  return std::nullopt;
}

std::optional<unsigned> ShardType::dimOfAxis(unsigned Axis) const {
  for (unsigned I = 0; I < Dims.size(); ++I)
    if (llvm::is_contained(Dims[I].Axes, Axis))
      return I;
  return std::nullopt;
}

bool ShardType::isUnreducedOver(unsigned Axis) const {
  return llvm::is_contained(Unreduced, Axis);
}

int64_t ShardType::localSize(unsigned I, const MeshSpec &M) const {
  int64_t Shards = 1;
  for (unsigned A : Dims[I].Axes)
    Shards *= M.Axes[A].Size;
  return (Dims[I].Size + Shards - 1) / Shards;
}

double ShardType::localElements(const MeshSpec &M) const {
  double N = 1;
  for (unsigned I = 0; I < Dims.size(); ++I)
    N *= double(localSize(I, M));
  return N;
}

double ShardType::localBytes(const MeshSpec &M) const {
  return localElements(M) * dtypeBytes(Elt);
}

double ShardType::globalElements() const {
  double N = 1;
  for (const TensorDim &D : Dims)
    N *= double(D.Size);
  return N;
}

/// `X`, `XY`, or `{data,model}` when a name is longer than one letter.
static std::string axisSubscript(llvm::ArrayRef<unsigned> Axes,
                                 const MeshSpec &M) {
  bool Short = llvm::all_of(
      Axes, [&](unsigned A) { return M.Axes[A].Name.size() == 1; });
  std::string S = Short ? "" : "{";
  for (size_t I = 0; I < Axes.size(); ++I)
    S += (Short || I == 0 ? "" : ",") + M.Axes[Axes[I]].Name;
  return Short ? S : S + "}";
}

std::string ShardType::str(const MeshSpec &M, bool WithDType) const {
  std::string S = WithDType ? dtypeName(Elt).str() : "";
  S += "[";
  for (size_t I = 0; I < Dims.size(); ++I) {
    S += (I ? ", " : "") + Dims[I].Name;
    if (!Dims[I].Axes.empty())
      S += "_" + axisSubscript(Dims[I].Axes, M);
  }
  S += "]";
  if (!Unreduced.empty())
    S += "{U_" + axisSubscript(Unreduced, M) + "}";
  return S;
}

Value *Module::newValue(std::string Name, ShardType T, Operation *Def) {
  auto V = std::make_unique<Value>();
  V->Id = Values.size();
  V->Name = std::move(Name);
  V->Type = std::move(T);
  V->Def = Def;
  Values.push_back(std::move(V));
  return Values.back().get();
}

Operation *Module::append(Block &B, std::unique_ptr<Operation> Op) {
  B.Ops.push_back(std::move(Op));
  return B.Ops.back().get();
}
