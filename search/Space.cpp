//===- Space.cpp - A search's layouts and candidates, in canonical order --===//
//
// The space of docs/search.md: each searched axis's sizes, the size tuples
// the `chips` rule allows, the orders (`free`: every permutation, with
// size-1 axes in their written places), and per layout each knob's domain.
// Everything here is arithmetic on the spec and the checked module.
//
//===----------------------------------------------------------------------===//
#include "search/Space.h"
#include "ir/Ops.h"
#include "ir/Training.h"
#include <algorithm>
#include <numeric>

using namespace shardc;

std::vector<int64_t> shardc::divisorsOf(int64_t N) {
  std::vector<int64_t> Small, Large;
  for (int64_t D = 1; D * D <= N; ++D)
    if (N % D == 0) {
      Small.push_back(D);
      if (D != N / D)
        Large.push_back(N / D);
    }
  Small.insert(Small.end(), Large.rbegin(), Large.rend());
  return Small;
}

bool shardc::chipsAllowed(const SearchSpec &Spec, int64_t N) {
  switch (Spec.ChipsRule) {
  case SearchChipsRule::Equal:
    return !Spec.Chips.empty() && N == Spec.Chips.front();
  case SearchChipsRule::AtMost:
    return !Spec.Chips.empty() && N <= Spec.Chips.front();
  case SearchChipsRule::InSet:
    return std::binary_search(Spec.Chips.begin(), Spec.Chips.end(), N);
  }
  return false;
}

/// `?`: every divisor of a chip count `chips` allows.
static std::vector<int64_t> anySize(const SearchSpec &Spec) {
  std::vector<int64_t> Out;
  if (Spec.Chips.empty())
    return Out;
  if (Spec.ChipsRule == SearchChipsRule::AtMost) {
    Out.resize(size_t(Spec.Chips.front()));
    std::iota(Out.begin(), Out.end(), 1);
    return Out;
  }
  for (int64_t N : Spec.Chips)
    for (int64_t D : divisorsOf(N))
      Out.push_back(D);
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

std::vector<std::vector<int64_t>> shardc::axisDomains(const Module &Checked,
                                                      const SearchSpec &Spec) {
  std::vector<std::vector<int64_t>> Dom;
  for (const MeshAxis &A : Checked.mesh().Axes)
    Dom.push_back({A.Size});
  for (const SearchedAxis &S : Spec.Axes)
    if (S.Axis < Dom.size())
      Dom[S.Axis] = S.Sizes ? *S.Sizes : anySize(Spec);
  return Dom;
}

std::vector<std::vector<int64_t>>
shardc::sizeTuples(const std::vector<std::vector<int64_t>> &Domains,
                   const SearchSpec &Spec) {
  std::vector<std::vector<int64_t>> Out;
  std::vector<int64_t> Cur;
  int64_t Limit = Spec.Chips.empty() ? 0 : Spec.Chips.back();
  // Depth-first in written order, smaller sizes first: canonical order.
  std::function<void(size_t, int64_t)> Rec = [&](size_t I, int64_t Prod) {
    if (I == Domains.size()) {
      if (chipsAllowed(Spec, Prod))
        Out.push_back(Cur);
      return;
    }
    for (int64_t S : Domains[I]) {
      if (Prod * S > Limit)
        break; // sizes ascend: the rest are larger still
      Cur.push_back(S);
      Rec(I + 1, Prod * S);
      Cur.pop_back();
    }
  };
  Rec(0, 1);
  return Out;
}

std::vector<std::vector<unsigned>>
shardc::ordersOf(const std::vector<int64_t> &Sizes, bool Free) {
  std::vector<unsigned> Perm(Sizes.size());
  std::iota(Perm.begin(), Perm.end(), 0u);
  if (!Free)
    return {Perm};
  std::vector<std::vector<unsigned>> Out;
  do {
    // One layout per arrangement of the axes of size > 1: those of size 1
    // stay where they are written.
    bool Canonical = true;
    for (unsigned I = 0; I != Perm.size() && Canonical; ++I)
      if (Sizes[Perm[I]] == 1 && Perm[I] != I)
        Canonical = false;
    if (Canonical)
      Out.push_back(Perm);
  } while (std::next_permutation(Perm.begin(), Perm.end()));
  return Out;
}

/// The pipelined repeat's count and axis, if the program has one.
static std::optional<std::pair<int64_t, AxisId>>
pipelineOf(const Module &Checked) {
  std::optional<std::pair<int64_t, AxisId>> Out;
  walk<RepeatOp>(Checked.body(), [&](const RepeatOp &R) {
    if (!Out && R.pipelineAxis())
      Out = std::make_pair(R.tripCount(), *R.pipelineAxis());
  });
  return Out;
}

static const SearchedKnob *knob(const SearchSpec &Spec, SearchKnob K) {
  for (const SearchedKnob &S : Spec.Knobs)
    if (S.Knob == K)
      return &S;
  return nullptr;
}

/// Word values' canonical rank: recompute none < selective < attention <
/// full; schedules as their enum (gpipe < 1f1b < interleaved); numbers as
/// themselves.
int64_t shardc::knobRank(SearchKnob K, int64_t V) {
  if (K != SearchKnob::Recompute)
    return V;
  switch (RecomputePolicy(V)) {
  case RecomputePolicy::None:
    return 0;
  case RecomputePolicy::Selective:
    return 1;
  case RecomputePolicy::Attention:
    return 2;
  case RecomputePolicy::Full:
    return 3;
  }
  return V;
}

static std::vector<int64_t> sortedValues(SearchKnob K,
                                         std::vector<int64_t> Values) {
  std::sort(Values.begin(), Values.end(), [&](int64_t A, int64_t B) {
    return knobRank(K, A) < knobRank(K, B);
  });
  Values.erase(std::unique(Values.begin(), Values.end()), Values.end());
  return Values;
}

std::vector<int64_t> shardc::knobDomain(const SearchSpec &Spec,
                                        const SearchedKnob &S) {
  if (S.Values)
    return sortedValues(S.Knob, *S.Values);
  switch (S.Knob) {
  case SearchKnob::Zero:
    return {0, 1, 2, 3};
  case SearchKnob::Recompute:
    return sortedValues(S.Knob, {int64_t(RecomputePolicy::None),
                                 int64_t(RecomputePolicy::Selective),
                                 int64_t(RecomputePolicy::Full)});
  case SearchKnob::Schedule:
    return {int64_t(PipelineSchedule::GPipe),
            int64_t(PipelineSchedule::OneFOneB),
            int64_t(PipelineSchedule::Interleaved)};
  case SearchKnob::Microbatches:
  case SearchKnob::MicrobatchSize:
    return Spec.PerStep ? divisorsOf(Spec.PerStep->Global)
                        : std::vector<int64_t>{1};
  case SearchKnob::Chunks:
    return {}; // every valid v: the layout decides
  }
  return {};
}

KnobPlan shardc::knobPlan(const Module &Checked, const SearchSpec &Spec,
                          const std::vector<int64_t> &Sizes) {
  KnobPlan P;
  const auto Pipe = pipelineOf(Checked);
  int64_t Stages =
      Pipe && Pipe->second < Sizes.size() ? Sizes[Pipe->second] : 1;
  const TrainConfig *Train =
      Checked.config().Train ? &*Checked.config().Train : nullptr;
  for (const SearchedKnob &S : Spec.Knobs) {
    if (S.Knob == SearchKnob::Schedule || S.Knob == SearchKnob::Chunks)
      continue;
    P.Simple.push_back({S.Knob, knobDomain(Spec, S)});
  }
  // Schedule and chunks, as pairs: without a pipeline of two stages or more
  // both collapse to 1f1b, 1; chunks vary under `interleaved` only.
  const SearchedKnob *Sched = knob(Spec, SearchKnob::Schedule);
  const SearchedKnob *Chunks = knob(Spec, SearchKnob::Chunks);
  if (!Sched && !Chunks)
    return P;
  P.HasSchedule = true;
  P.ScheduleSearched = Sched != nullptr;
  PipelineSchedule Fixed = Train ? Train->Schedule : PipelineSchedule::OneFOneB;
  int64_t FixedChunks = Train ? Train->Chunks : 1;
  if (Stages < 2) {
    P.Schedules.push_back({int64_t(PipelineSchedule::OneFOneB), 1});
    return P;
  }
  std::vector<int64_t> Scheds =
      Sched ? knobDomain(Spec, *Sched) : std::vector<int64_t>{int64_t(Fixed)};
  std::vector<int64_t> Vs;
  if (Chunks && Chunks->Values) {
    Vs = sortedValues(SearchKnob::Chunks, *Chunks->Values);
  } else if (Chunks || (Sched && FixedChunks <= 1)) {
    // Every v >= 2 with stages x v dividing the pipelined count.
    for (int64_t V = 2; Pipe && Stages * V <= Pipe->first; ++V)
      if (Pipe->first % (Stages * V) == 0)
        Vs.push_back(V);
  } else {
    Vs = {FixedChunks};
  }
  for (int64_t S : Scheds) {
    if (PipelineSchedule(S) != PipelineSchedule::Interleaved) {
      P.Schedules.push_back({S, 1});
      continue;
    }
    for (int64_t V : Vs)
      P.Schedules.push_back({S, V});
  }
  return P;
}

uint64_t KnobPlan::count() const {
  uint64_t N = HasSchedule ? Schedules.size() : 1;
  for (const auto &[K, Values] : Simple)
    N *= Values.size();
  return N;
}

void KnobPlan::forEach(const std::function<void(Candidate &)> &F,
                       Candidate &C) const {
  std::function<void(size_t)> Rec = [&](size_t I) {
    if (I == Simple.size()) {
      if (!HasSchedule) {
        F(C);
        return;
      }
      for (const auto &[S, V] : Schedules) {
        C.Knobs[unsigned(SearchKnob::Schedule)] = S;
        C.Knobs[unsigned(SearchKnob::Chunks)] = V;
        F(C);
      }
      return;
    }
    for (int64_t V : Simple[I].second) {
      C.Knobs[unsigned(Simple[I].first)] = V;
      Rec(I + 1);
    }
  };
  C.KnobMask = 0;
  for (const auto &[K, Values] : Simple)
    C.KnobMask |= 1u << unsigned(K);
  // Chunks vary with a searched schedule even when not written; the
  // schedule is a knob only when searched.
  if (HasSchedule)
    C.KnobMask |=
        (ScheduleSearched ? 1u << unsigned(SearchKnob::Schedule) : 0u) |
        1u << unsigned(SearchKnob::Chunks);
  Rec(0);
}
