//===- Resharding.cpp - The steps a sharding change needs -----------------===//
#include "ir/Resharding.h"
#include "llvm/ADT/STLExtras.h"

using namespace shardc;

ShardType shardc::applyStep(OpKind K, const ShardType &In,
                            llvm::ArrayRef<AxisId> Axes, int Dim, int DstDim) {
  switch (K) {
  case OpKind::Slice:
    return SliceOp::rule(In, Axes, Dim);
  case OpKind::AllGather:
    return AllGatherOp::rule(In, Axes, Dim);
  case OpKind::ReduceScatter:
    return ReduceScatterOp::rule(In, Axes, Dim);
  case OpKind::AllReduce:
    return AllReduceOp::rule(In, Axes);
  case OpKind::AllToAll:
    return AllToAllOp::rule(In, Axes, Dim, DstDim);
  case OpKind::Input:
  case OpKind::Contraction:
  case OpKind::Elementwise:
  case OpKind::Reshard:
  case OpKind::View:
  case OpKind::Repeat:
    break;
  }
  llvm_unreachable("only slices and collectives are reshard steps");
}

namespace {

/// Where a step sits in a plan: slices first, then the collectives in
/// CollectiveKinds.def's order.
unsigned stepRank(OpKind K) {
  std::optional<CollectiveKind> C = collectiveKindOf(K);
  return C ? 1 + unsigned(*C) : 0;
}

/// A step waiting to be ordered: its kind, dims and axes.
struct Pending {
  OpKind Kind;
  int Dim, DstDim;
  AxisList Axes;
};

/// Per axis, what COST-MODEL §2's table asks for; nullopt for nothing.
std::optional<Pending> axisMove(const ShardType &From, const ShardType &To,
                                AxisId A, bool &Impossible) {
  std::optional<unsigned> Src = From.dimOfAxis(A), Dst = To.dimOfAxis(A);
  bool SrcU = From.Unreduced.contains(A), DstU = To.Unreduced.contains(A);
  if (DstU && !SrcU) {
    Impossible = true;
    return std::nullopt;
  }
  if (SrcU && !DstU)
    return Dst ? Pending{OpKind::ReduceScatter, int(*Dst), -1, {}}
               : Pending{OpKind::AllReduce, -1, -1, {}};
  if (Src && !Dst && !DstU)
    return Pending{OpKind::AllGather, int(*Src), -1, {}};
  if (Src && Dst && *Src != *Dst)
    return Pending{OpKind::AllToAll, int(*Src), int(*Dst), {}};
  if (!Src && !SrcU && Dst)
    return Pending{OpKind::Slice, int(*Dst), -1, {}};
  return std::nullopt;
}

/// The position of axis \p A in the target's dim, so appended axes come out
/// in the target's order.
unsigned targetRank(const ShardType &To, int Dim, AxisId A) {
  if (Dim < 0)
    return A;
  const AxisList &Axes = To.Dims[Dim].Axes;
  return std::find(Axes.begin(), Axes.end(), A) - Axes.begin();
}

/// 1. Classifies every axis by the table and fuses axes of the same kind on
/// the same dims, in plan order. False when no plan exists.
bool classify(const ShardType &From, const ShardType &To,
              llvm::SmallVectorImpl<Pending> &Out) {
  bool Impossible = false;
  for (AxisId A : (From.axesUsed() | To.axesUsed()).list()) {
    std::optional<Pending> Move = axisMove(From, To, A, Impossible);
    if (Impossible)
      return false;
    if (!Move)
      continue;
    auto Same = llvm::find_if(Out, [&](const Pending &P) {
      return P.Kind == Move->Kind && P.Dim == Move->Dim &&
             P.DstDim == Move->DstDim;
    });
    if (Same == Out.end())
      Same = Out.insert(Out.end(), *Move);
    Same->Axes.push_back(A);
  }
  // 2. Order: slices, ReduceScatter, AllReduce, AllToAll, AllGather; within
  //    a kind by dim, as the table lists them.
  llvm::stable_sort(Out, [](const Pending &X, const Pending &Y) {
    return std::make_tuple(stepRank(X.Kind), X.Dim, X.DstDim) <
           std::make_tuple(stepRank(Y.Kind), Y.Dim, Y.DstDim);
  });
  for (Pending &P : Out) {
    int Into = P.Kind == OpKind::AllToAll ? P.DstDim : P.Dim;
    llvm::sort(P.Axes, [&](AxisId X, AxisId Y) {
      return targetRank(To, Into, X) < targetRank(To, Into, Y);
    });
  }
  return true;
}

} // namespace

std::optional<ReshardSteps> shardc::planReshard(const ShardType &From,
                                                const ShardType &To,
                                                const MeshSpec *EvenOn) {
  llvm::SmallVector<Pending, 4> Queue;
  if (!classify(From, To, Queue))
    return std::nullopt;
  // Each step in that order, except that with \p EvenOn a step whose result
  // would not divide evenly waits for one that keeps it even: slicing
  // N_{Z,W} by Y before gathering Z and W can leave N_{Z,W,Y} uneven, and
  // the costs would count padding nobody asked for. When no step keeps it
  // even the preferred order stands.
  ReshardSteps Steps;
  ShardType Cur = From;
  Cur.Elt = To.Elt;
  while (!Queue.empty()) {
    auto Try = [&](size_t I) {
      const Pending &P = Queue[I];
      return applyStep(P.Kind, Cur, P.Axes, P.Dim, P.DstDim);
    };
    size_t Pick = 0;
    for (size_t I = 0; EvenOn && I < Queue.size(); ++I)
      if (Try(I).isEven(*EvenOn)) {
        Pick = I;
        break;
      }
    const Pending &P = Queue[Pick];
    ShardType Next = Try(Pick);
    Steps.push_back({P.Kind, P.Axes, P.Dim, P.DstDim, Cur, Next});
    Queue.erase(Queue.begin() + Pick);
    Cur = std::move(Next);
  }
  // 3. Axis order inside a dim: one AllToAll over the out-of-place suffix.
  for (unsigned D = 0; D < Cur.Dims.size(); ++D) {
    const AxisList &Have = Cur.Dims[D].Axes, &Want = To.Dims[D].Axes;
    if (Have == Want)
      continue;
    size_t K = 0;
    while (K < Have.size() && K < Want.size() && Have[K] == Want[K])
      ++K;
    AxisList Axes(Want.begin() + K, Want.end());
    ShardType Next = AllToAllOp::rule(Cur, Axes, D, D);
    Steps.push_back({OpKind::AllToAll, Axes, int(D), int(D), Cur, Next});
    Cur = std::move(Next);
  }
  // 4. A typed reshard (`y: fp32[..] = x[..]`) converts first, so the
  //    collectives above move the target dtype: a view changes the element
  //    type before them, and every step's operand is the type its Before
  //    says.
  if (!Steps.empty() && From.Elt != To.Elt) {
    ShardType Converted = From;
    Converted.Elt = To.Elt;
    Steps.insert(Steps.begin(),
                 ReshardStep{OpKind::View, {}, -1, -1, From, Converted});
  }
  return Steps;
}

double shardc::stepGroupBytes(const ReshardStep &S, const MeshSpec &M) {
  std::optional<CollectiveKind> C = collectiveKindOf(S.Kind);
  return C ? collectiveGroupBytes(*C, S.Before, S.After, S.Axes, M) : 0;
}

unsigned shardc::countCollectives(llvm::ArrayRef<ReshardStep> Steps) {
  return llvm::count_if(
      Steps, [](const ReshardStep &S) { return isCollective(S.Kind); });
}
