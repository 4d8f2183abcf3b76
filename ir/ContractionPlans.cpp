//===- ContractionPlans.cpp - The ways to compute a contraction -----------===//
#include "ir/ContractionPlans.h"
#include "llvm/ADT/STLExtras.h"

using namespace shardc;

namespace {

/// One conflict between the operands and the ways to resolve it.
struct Decision {
  enum Kind : uint8_t { Gather, SliceL, SliceR, GatherFreeL, GatherFreeR };
  DimId Dim = 0;   ///< the shared dim, for Gather/SliceL/SliceR
  AxisId Axis = 0; ///< the free-free axis, for GatherFreeL/GatherFreeR
  llvm::SmallVector<Kind, 3> Options;
};

/// Past this many combinations only each decision's first option (gather)
/// is tried: 4096 = 2^12 plans keep one contraction's planning under a few
/// milliseconds, and no program a person writes has twelve independent
/// sharding conflicts in one contraction (docs/limits.md).
constexpr uint64_t MaxPlans = 4096;

bool isStrictPrefix(const AxisList &A, const AxisList &B) {
  return A.size() < B.size() && std::equal(A.begin(), A.end(), B.begin());
}

llvm::SmallVector<Decision, 4> decisions(const ContractionShape &C) {
  llvm::SmallVector<Decision, 4> Ds;
  for (const ContractionDim &D : C.Dims) {
    if (D.Role != DimRole::Batch && D.Role != DimRole::Contracted)
      continue;
    const AxisList &Sl = C.L.Dims[*C.L.dimIndex(D.Id)].Axes;
    const AxisList &Sr = C.R.Dims[*C.R.dimIndex(D.Id)].Axes;
    if (Sl == Sr)
      continue;
    Decision X{D.Id, 0, {Decision::Gather}};
    if (isStrictPrefix(Sl, Sr))
      X.Options.push_back(Decision::SliceL);
    if (isStrictPrefix(Sr, Sl))
      X.Options.push_back(Decision::SliceR);
    Ds.push_back(X);
  }
  for (const ContractionDim &D : C.Dims) {
    if (D.Role != DimRole::FreeLhs)
      continue;
    for (AxisId A : C.L.Dims[*C.L.dimIndex(D.Id)].Axes) {
      std::optional<unsigned> RD = C.R.dimOfAxis(A);
      if (RD && !C.L.dimIndex(C.R.Dims[*RD].Id))
        Ds.push_back({0, A, {Decision::GatherFreeL, Decision::GatherFreeR}});
    }
  }
  return Ds;
}

/// Changes the operands' types as option \p K of \p D says.
void applyDecision(ShardType &L, ShardType &R, const Decision &D,
                   Decision::Kind K) {
  if (K == Decision::GatherFreeL || K == Decision::GatherFreeR) {
    ShardType &T = K == Decision::GatherFreeL ? L : R;
    llvm::erase_value(T.Dims[*T.dimOfAxis(D.Axis)].Axes, D.Axis);
    return;
  }
  AxisList &Al = L.Dims[*L.dimIndex(D.Dim)].Axes;
  AxisList &Ar = R.Dims[*R.dimIndex(D.Dim)].Axes;
  if (K == Decision::SliceL) {
    Al = Ar;
  } else if (K == Decision::SliceR) {
    Ar = Al;
  } else {
    size_t N = 0;
    while (N < Al.size() && N < Ar.size() && Al[N] == Ar[N])
      ++N;
    Al.resize(N);
    Ar.resize(N);
  }
}

/// The natural type of the local product of \p P.L and \p P.R: free and
/// batch dims keep their operand's axes, the contracted dims' axes become
/// partial sums. False when the operands cannot be multiplied locally.
bool naturalType(const ContractionShape &C, ContractionPlan &P) {
  P.Natural.Elt = C.Out.Elt;
  for (const ContractionDim &D : C.Dims) {
    auto Il = P.L.dimIndex(D.Id), Ir = P.R.dimIndex(D.Id);
    if (Il && Ir && P.L.Dims[*Il].Axes != P.R.Dims[*Ir].Axes)
      return false;
    if (D.Role == DimRole::Contracted)
      for (AxisId A : P.L.Dims[*Il].Axes) {
        if (P.Natural.Unreduced.contains(A))
          return false;
        P.Natural.Unreduced.insert(A);
      }
  }
  for (const TensorDim &D : C.Out.Dims) {
    auto Il = P.L.dimIndex(D.Id);
    P.Natural.Dims.push_back(Il ? P.L.Dims[*Il]
                                : P.R.Dims[*P.R.dimIndex(D.Id)]);
  }
  return P.Natural.axesDistinct();
}

/// True when every type the plan passes through divides evenly on \p M:
/// the local product's operands and result, and each step's result. A plan
/// through an uneven intermediate would be priced on a fractional shard
/// (and fail the IR verifier), so without padding it is no candidate.
bool allEven(const ContractionPlan &P, const MeshSpec &M) {
  if (!P.L.isEven(M) || !P.R.isEven(M) || !P.Natural.isEven(M))
    return false;
  for (const ReshardSteps *Steps : {&P.LSteps, &P.RSteps, &P.OutSteps})
    for (const ReshardStep &S : *Steps)
      if (!S.After.isEven(M))
        return false;
  return true;
}

std::optional<ContractionPlan> makePlan(const ContractionShape &C,
                                        llvm::ArrayRef<Decision> Ds,
                                        llvm::ArrayRef<unsigned> Pick,
                                        const MeshSpec *EvenOn) {
  ContractionPlan P;
  P.L = C.L;
  P.R = C.R;
  for (size_t I = 0; I < Ds.size(); ++I)
    applyDecision(P.L, P.R, Ds[I], Ds[I].Options[Pick[I]]);
  if (!P.L.axesDistinct() || !P.R.axesDistinct() || !naturalType(C, P))
    return std::nullopt;
  auto LS = planReshard(C.L, P.L, EvenOn);
  auto RS = planReshard(C.R, P.R, EvenOn);
  auto OS = planReshard(P.Natural, C.Out, EvenOn);
  if (!LS || !RS || !OS)
    return std::nullopt;
  P.LSteps = std::move(*LS);
  P.RSteps = std::move(*RS);
  P.OutSteps = std::move(*OS);
  if (EvenOn && !allEven(P, *EvenOn))
    return std::nullopt;
  return P;
}

} // namespace

void shardc::forEachContractionPlan(
    const ContractionShape &C, const MeshSpec *EvenOn,
    llvm::function_ref<void(const ContractionPlan &)> F) {
  llvm::SmallVector<Decision, 4> Ds = decisions(C);
  // Every combination of options (mixed radix), up to MaxPlans.
  uint64_t Count = 1;
  for (const Decision &D : Ds)
    Count = std::min<uint64_t>(Count * D.Options.size(), MaxPlans + 1);
  if (Count > MaxPlans) {
    for (Decision &D : Ds)
      D.Options.resize(1);
    Count = 1;
  }
  llvm::SmallVector<unsigned, 8> Pick(Ds.size(), 0);
  for (uint64_t N = 0; N < Count; ++N) {
    uint64_t Rest = N;
    for (size_t I = 0; I < Ds.size(); ++I) {
      Pick[I] = Rest % Ds[I].Options.size();
      Rest /= Ds[I].Options.size();
    }
    if (std::optional<ContractionPlan> P = makePlan(C, Ds, Pick, EvenOn))
      F(*P);
  }
}

bool shardc::hasContractionPlan(const ContractionShape &C) {
  bool Found = false;
  forEachContractionPlan(C, nullptr,
                         [&](const ContractionPlan &) { Found = true; });
  return Found;
}
