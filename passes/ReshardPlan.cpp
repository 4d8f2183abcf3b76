//===- ReshardPlan.cpp - The collectives a sharding change needs ----------===//
#include "passes/ReshardPlan.h"
#include "passes/CostModel.h"
#include <map>

using namespace shardc;

namespace {

/// Per axis, what COST-MODEL §2's table asks for.
struct AxisMove {
  OpKind Kind;
  int Dim, DstDim;
};

/// Applies one step's change to a type (the same rule the verifier checks).
ShardType apply(const ShardType &T, OpKind K, llvm::ArrayRef<unsigned> Axes,
                int Dim, int DstDim) {
  ShardType R = T;
  for (unsigned A : Axes) {
    switch (K) {
    case OpKind::AllGather:
      llvm::erase_value(R.Dims[Dim].Axes, A);
      break;
    case OpKind::ReduceScatter:
      llvm::erase_value(R.Unreduced, A);
      R.Dims[Dim].Axes.push_back(A);
      break;
    case OpKind::AllReduce:
      llvm::erase_value(R.Unreduced, A);
      break;
    case OpKind::AllToAll:
      llvm::erase_value(R.Dims[Dim].Axes, A);
      R.Dims[DstDim].Axes.push_back(A);
      break;
    default: // Slice
      R.Dims[Dim].Axes.push_back(A);
      break;
    }
  }
  return R;
}

/// The position of axis \p A in the target's dim, so appended axes come out
/// in the target's order.
unsigned targetRank(const ShardType &To, int Dim, unsigned A) {
  if (Dim < 0)
    return A;
  const auto &Axes = To.Dims[Dim].Axes;
  return std::find(Axes.begin(), Axes.end(), A) - Axes.begin();
}

/// True when every dim of \p T divides by the product of its axes.
bool isEven(const ShardType &T, const MeshSpec &M) {
  for (const TensorDim &D : T.Dims) {
    int64_t Shards = 1;
    for (unsigned A : D.Axes)
      Shards *= M.Axes[A].Size;
    if (D.Size % Shards != 0)
      return false;
  }
  return true;
}

} // namespace

std::optional<ReshardSteps> shardc::planReshard(const ShardType &From,
                                                const ShardType &To,
                                                const MeshSpec *EvenOn) {
  // 1. Classify every axis by the table.
  std::map<std::tuple<unsigned, int, int>, llvm::SmallVector<unsigned, 2>>
      Groups; // (order, dim, dst) -> axes
  unsigned NumAxes = 0;
  for (const ShardType *T : {&From, &To}) {
    for (const TensorDim &D : T->Dims)
      for (unsigned A : D.Axes)
        NumAxes = std::max(NumAxes, A + 1);
    for (unsigned A : T->Unreduced)
      NumAxes = std::max(NumAxes, A + 1);
  }
  for (unsigned A = 0; A < NumAxes; ++A) {
    std::optional<unsigned> Src = From.dimOfAxis(A), Dst = To.dimOfAxis(A);
    bool SrcU = From.isUnreducedOver(A), DstU = To.isUnreducedOver(A);
    if (DstU && !SrcU)
      return std::nullopt;
    std::optional<AxisMove> Move;
    if (SrcU && !DstU)
      Move = Dst ? AxisMove{OpKind::ReduceScatter, int(*Dst), -1}
                 : AxisMove{OpKind::AllReduce, -1, -1};
    else if (Src && !Dst && !DstU)
      Move = AxisMove{OpKind::AllGather, int(*Src), -1};
    else if (Src && Dst && *Src != *Dst)
      Move = AxisMove{OpKind::AllToAll, int(*Src), int(*Dst)};
    else if (!Src && !SrcU && Dst)
      Move = AxisMove{OpKind::Slice, int(*Dst), -1};
    if (!Move)
      continue;
    // 2. Order: slices, ReduceScatter, AllReduce, AllToAll, AllGather.
    unsigned Order = Move->Kind == OpKind::Slice           ? 0
                     : Move->Kind == OpKind::ReduceScatter ? 1
                     : Move->Kind == OpKind::AllReduce     ? 2
                     : Move->Kind == OpKind::AllToAll      ? 3
                                                           : 4;
    Groups[{Order, Move->Dim, Move->DstDim}].push_back(A);
  }
  static const OpKind Kinds[] = {OpKind::Slice, OpKind::ReduceScatter,
                                 OpKind::AllReduce, OpKind::AllToAll,
                                 OpKind::AllGather};
  std::vector<ReshardStep> Pending;
  for (auto &[Key, Axes] : Groups) {
    auto [Order, Dim, DstDim] = Key;
    int Into = Kinds[Order] == OpKind::AllToAll ? DstDim : Dim;
    llvm::sort(Axes, [&](unsigned X, unsigned Y) {
      return targetRank(To, Into, X) < targetRank(To, Into, Y);
    });
    Pending.push_back({Kinds[Order], Axes, Dim, DstDim, {}, {}});
  }
  // Each step in that order, except that with \p EvenOn a step whose result
  // would not divide evenly waits for one that keeps it even: slicing
  // N_{Z,W} by Y before gathering Z and W can leave N_{Z,W,Y} uneven, and
  // the costs would count padding nobody asked for. When no step keeps it
  // even the preferred order stands.
  ReshardSteps Steps;
  ShardType Cur = From;
  Cur.Elt = To.Elt;
  while (!Pending.empty()) {
    auto Try = [&](size_t I) {
      const ReshardStep &S = Pending[I];
      return apply(Cur, S.Kind, S.Axes, S.Dim, S.DstDim);
    };
    size_t Pick = 0;
    for (size_t I = 0; EvenOn && I < Pending.size(); ++I)
      if (isEven(Try(I), *EvenOn)) {
        Pick = I;
        break;
      }
    ReshardStep S = Pending[Pick];
    S.Before = Cur;
    S.After = Try(Pick);
    Pending.erase(Pending.begin() + Pick);
    Cur = S.After;
    Steps.push_back(std::move(S));
  }
  // 3. Axis order inside a dim: one AllToAll over the out-of-place suffix.
  for (unsigned D = 0; D < Cur.Dims.size(); ++D) {
    const auto &Have = Cur.Dims[D].Axes, &Want = To.Dims[D].Axes;
    if (Have == Want)
      continue;
    size_t K = 0;
    while (K < Have.size() && K < Want.size() && Have[K] == Want[K])
      ++K;
    llvm::SmallVector<unsigned, 2> Axes(Want.begin() + K, Want.end());
    ShardType Next = apply(Cur, OpKind::AllToAll, Axes, D, D);
    Steps.push_back({OpKind::AllToAll, Axes, int(D), int(D), Cur, Next});
    Cur = std::move(Next);
  }
  // 4. A typed reshard (`y: fp32[..] = x[..]`) converts first, so the
  //    collectives above move the target dtype: a view over no axes changes
  //    the element type before them, and every step's operand is the type
  //    its Before says.
  if (!Steps.empty() && From.Elt != To.Elt) {
    ShardType Converted = From;
    Converted.Elt = To.Elt;
    Steps.insert(Steps.begin(),
                 ReshardStep{OpKind::Slice, {}, -1, -1, From, Converted});
  }
  return Steps;
}

double shardc::stepsTime(llvm::ArrayRef<ReshardStep> Steps, const MeshSpec &M,
                         PlacementCache &Cache) {
  double T = 0;
  for (const ReshardStep &S : Steps)
    if (isCollective(S.Kind))
      T += collectiveCost(Cache, S.Kind, S.Axes,
                          groupBytes(S.Kind, S.Before, S.After, S.Axes, M))
               .Time;
  return T;
}

unsigned shardc::countCollectives(llvm::ArrayRef<ReshardStep> Steps) {
  return llvm::count_if(
      Steps, [](const ReshardStep &S) { return isCollective(S.Kind); });
}
