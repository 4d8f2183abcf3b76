//===- Resharding.cpp - The steps a sharding change needs -----------------===//
#include "ir/Resharding.h"
#include "llvm/ADT/STLExtras.h"
#include <cassert>

using namespace shardc;

std::optional<CollectiveKind> shardc::collectiveOf(StepKind K) {
  switch (K) {
#define COLLECTIVE(Name, Mnemonic, ...)                                        \
  case StepKind::Name:                                                         \
    return CollectiveKind::Name;
#include "ir/CollectiveKinds.def"
  case StepKind::Slice:
  case StepKind::View:
  case StepKind::Convert:
    return std::nullopt;
  }
  llvm_unreachable("every step kind is handled");
}

StepKind shardc::stepOf(CollectiveKind K) {
  switch (K) {
#define COLLECTIVE(Name, Mnemonic, ...)                                        \
  case CollectiveKind::Name:                                                   \
    return StepKind::Name;
#include "ir/CollectiveKinds.def"
  }
  llvm_unreachable("every collective is handled");
}

/// A local step's name, which both its plan description and its result's
/// suffix use; a collective has two names (CollectiveKinds.def), asked
/// apart.
static llvm::StringRef localStepName(StepKind K) {
  switch (K) {
  case StepKind::Slice:
    return "slice";
  case StepKind::View:
    return "view";
  case StepKind::Convert:
    return "convert";
#define COLLECTIVE(Name, Mnemonic, ...) case StepKind::Name:
#include "ir/CollectiveKinds.def"
    break;
  }
  llvm_unreachable("a collective's names are CollectiveKinds.def's");
}

llvm::StringRef shardc::stepKindName(StepKind K) {
  if (std::optional<CollectiveKind> C = collectiveOf(K))
    return collectiveName(*C);
  return localStepName(K);
}

llvm::StringRef shardc::stepSuffix(StepKind K) {
  if (std::optional<CollectiveKind> C = collectiveOf(K))
    return collectiveTraits(*C).Suffix;
  return localStepName(K);
}

/// A collective's sharding rule: each kind's class takes the axes and the
/// dims its kind names (none, one, or a source and a destination).
template <typename OpT>
static ShardType collectiveRule(const ShardType &In,
                                llvm::ArrayRef<AxisId> Axes, int Dim,
                                int DstDim) {
  if constexpr (requires { OpT::rule(In, Axes, Dim, DstDim); })
    return OpT::rule(In, Axes, Dim, DstDim);
  else if constexpr (requires { OpT::rule(In, Axes, Dim); })
    return OpT::rule(In, Axes, Dim);
  else
    return OpT::rule(In, Axes);
}

ShardType shardc::applyStep(StepKind K, const ShardType &In,
                            llvm::ArrayRef<AxisId> Axes, int Dim, int DstDim) {
  switch (K) {
  case StepKind::Slice:
    return SliceOp::rule(In, Axes, Dim);
#define COLLECTIVE(Kind, ...)                                                  \
  case StepKind::Kind:                                                         \
    return collectiveRule<Kind##Op>(In, Axes, Dim, DstDim);
#include "ir/CollectiveKinds.def"
  case StepKind::View:
  case StepKind::Convert:
    break;
  }
  llvm_unreachable("a view or a conversion has no sharding rule");
}

namespace {

/// A step waiting to be ordered: its kind, dims and axes.
struct Pending {
  StepKind Kind;
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
    return Dst ? Pending{StepKind::ReduceScatter, int(*Dst), -1, {}}
               : Pending{StepKind::AllReduce, -1, -1, {}};
  if (Src && !Dst && !DstU)
    return Pending{StepKind::AllGather, int(*Src), -1, {}};
  if (Src && Dst && *Src != *Dst)
    return Pending{StepKind::AllToAll, int(*Src), int(*Dst), {}};
  if (!Src && !SrcU && Dst)
    return Pending{StepKind::Slice, int(*Dst), -1, {}};
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
  // 2. Order: slices, then the collectives in CollectiveKinds.def's order
  //    (StepKind's); within a kind by dim, as the table lists them.
  llvm::stable_sort(Out, [](const Pending &X, const Pending &Y) {
    return std::make_tuple(X.Kind, X.Dim, X.DstDim) <
           std::make_tuple(Y.Kind, Y.Dim, Y.DstDim);
  });
  for (Pending &P : Out) {
    int Into = P.Kind == StepKind::AllToAll ? P.DstDim : P.Dim;
    llvm::sort(P.Axes, [&](AxisId X, AxisId Y) {
      return targetRank(To, Into, X) < targetRank(To, Into, Y);
    });
  }
  return true;
}

/// Replaces the first AllToAll of \p Queue by an AllGather off its source
/// dim and a slice onto its destination: gathers keep a type even, and the
/// slices after them only add axes the (even) target has, so every step of
/// that order divides. False when no AllToAll is left.
bool splitAllToAll(llvm::SmallVectorImpl<Pending> &Queue) {
  auto *A = llvm::find_if(
      Queue, [](const Pending &P) { return P.Kind == StepKind::AllToAll; });
  if (A == Queue.end())
    return false;
  Pending Slice{StepKind::Slice, A->DstDim, -1, A->Axes};
  *A = Pending{StepKind::AllGather, A->Dim, -1, A->Axes};
  Queue.push_back(std::move(Slice));
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
  // even an AllToAll becomes a gather and a slice (splitAllToAll); when
  // none is left the preferred order stands.
  ReshardSteps Steps;
  ShardType Cur = From;
  while (!Queue.empty()) {
    auto Try = [&](size_t I) {
      const Pending &P = Queue[I];
      return applyStep(P.Kind, Cur, P.Axes, P.Dim, P.DstDim);
    };
    size_t Pick = Queue.size();
    for (size_t I = 0; EvenOn && I < Queue.size(); ++I)
      if (Try(I).isEven(*EvenOn)) {
        Pick = I;
        break;
      }
    if (EvenOn && Pick == Queue.size() && splitAllToAll(Queue))
      continue;
    Pick = Pick == Queue.size() ? 0 : Pick;
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
    Steps.push_back({StepKind::AllToAll, Axes, int(D), int(D), Cur, Next});
    Cur = std::move(Next);
  }
  return Steps;
}

llvm::SmallVector<ReshardSteps, 2>
shardc::planConversions(const ShardType &From, const ShardType &To,
                        const MeshSpec *EvenOn) {
  assert(From.Elt != To.Elt && "a conversion changes the dtype");
  llvm::SmallVector<ReshardSteps, 2> Plans;
  std::optional<ReshardSteps> Moves = planReshard(From, To, EvenOn);
  if (!Moves)
    return Plans;
  for (size_t At = 0; At <= Moves->size(); ++At) {
    if (At < Moves->size() && (*Moves)[At].Kind == StepKind::Slice)
      continue;
    ReshardSteps Plan = *Moves;
    for (size_t I = At; I < Plan.size(); ++I)
      Plan[I].Before.Elt = Plan[I].After.Elt = To.Elt;
    ShardType Before = At < Moves->size() ? (*Moves)[At].Before
                       : Moves->empty()   ? From
                                          : Moves->back().After;
    ShardType After = Before;
    After.Elt = To.Elt;
    Plan.insert(Plan.begin() + At,
                ReshardStep{StepKind::Convert, {}, -1, -1, Before, After});
    Plans.push_back(std::move(Plan));
  }
  return Plans;
}

double shardc::stepGroupBytes(const ReshardStep &S, const MeshSpec &M) {
  std::optional<CollectiveKind> C = collectiveOf(S.Kind);
  return C ? collectiveGroupBytes(*C, S.Before, S.After, S.Axes, M) : 0;
}
