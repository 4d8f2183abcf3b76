//===- Search.cpp - A candidate as a layout, and as text ------------------===//
//
// What a candidate means to compile() (its mesh, the per-step dim rebound,
// its knobs as train settings) and how a row writes it.
//
//===----------------------------------------------------------------------===//
#include "search/Search.h"
#include "ir/Operation.h"
#include "ir/Training.h"
#include "llvm/ADT/StringExtras.h"
#include <fmt/format.h>
#include <numeric>

using namespace shardc;

llvm::StringRef shardc::knobName(SearchKnob K) {
  switch (K) {
  case SearchKnob::Microbatches:
    return "microbatches";
  case SearchKnob::MicrobatchSize:
    return "microbatch_size";
  case SearchKnob::Zero:
    return "zero";
  case SearchKnob::Recompute:
    return "recompute";
  case SearchKnob::Schedule:
    return "schedule";
  case SearchKnob::Chunks:
    return "chunks";
  }
  return "?";
}

std::string shardc::knobValueText(SearchKnob K, int64_t V) {
  if (K == SearchKnob::Recompute)
    return recomputeName(RecomputePolicy(V)).str();
  if (K == SearchKnob::Schedule)
    return scheduleName(PipelineSchedule(V)).str();
  return std::to_string(V);
}

bool shardc::knobShown(const Candidate &C, SearchKnob K) {
  if (!(C.KnobMask >> unsigned(K) & 1))
    return false;
  if (K == SearchKnob::Chunks)
    return PipelineSchedule(C.Knobs[unsigned(SearchKnob::Schedule)]) ==
           PipelineSchedule::Interleaved;
  return true;
}

std::string shardc::knobsText(const Candidate &C) {
  std::vector<std::string> Parts;
  for (unsigned K = 0; K != NumSearchKnobs; ++K)
    if (knobShown(C, SearchKnob(K)))
      Parts.push_back(fmt::format("{} = {}", knobName(SearchKnob(K)).str(),
                                  knobValueText(SearchKnob(K), C.Knobs[K])));
  return llvm::join(Parts, ", ");
}

std::string shardc::meshText(llvm::ArrayRef<std::string> Written,
                             const Candidate &C) {
  std::vector<std::string> Parts;
  for (unsigned Pos : C.Order)
    Parts.push_back(fmt::format("{}: {}", Written[Pos], C.Sizes[Pos]));
  return "[" + llvm::join(Parts, ", ") + "]";
}

static std::optional<DimId> dimNamed(const Module &M, llvm::StringRef Name) {
  const auto &Dims = M.names().Dims;
  for (DimId I = 0; I != Dims.size(); ++I)
    if (Dims[I] == Name)
      return I;
  return std::nullopt;
}

/// The candidate's microbatches: its knob, or the file's.
static int64_t microbatchesOf(const Module &Checked, const Candidate &C) {
  if (C.KnobMask >> unsigned(SearchKnob::Microbatches) & 1)
    return C.Knobs[unsigned(SearchKnob::Microbatches)];
  return Checked.config().Train ? Checked.config().Train->Microbatches : 1;
}

Layout shardc::candidateLayout(const Module &Checked,
                               llvm::ArrayRef<std::string> Written,
                               const SearchSpec &Spec, const Candidate &C) {
  Layout L{Checked.mesh(), DimSizeMap(), std::nullopt, nullptr};
  for (MeshAxis &A : L.Mesh.Axes)
    for (unsigned Pos = 0; Pos != Written.size(); ++Pos)
      if (Written[Pos] == A.Name)
        A.Size = C.Sizes[Pos];
  if (!Checked.config().Train)
    return L;
  TrainConfig T = *Checked.config().Train;
  for (unsigned K = 0; K != NumSearchKnobs; ++K) {
    if (!(C.KnobMask >> K & 1))
      continue;
    int64_t V = C.Knobs[K];
    switch (SearchKnob(K)) {
    case SearchKnob::Microbatches:
      T.Microbatches = V;
      break;
    case SearchKnob::MicrobatchSize:
      break; // not searchable yet (the frontend refuses it)
    case SearchKnob::Zero:
      T.Zero = unsigned(V);
      break;
    case SearchKnob::Recompute:
      T.Recompute = RecomputePolicy(V);
      break;
    case SearchKnob::Schedule:
      T.Schedule = PipelineSchedule(V);
      break;
    case SearchKnob::Chunks:
      T.Chunks = V;
      break;
    }
  }
  L.Train = T;
  if (Spec.PerStep)
    if (auto B = dimNamed(Checked, Spec.PerStep->Name)) {
      int64_t M = microbatchesOf(Checked, C);
      if (M > 0 && Spec.PerStep->Global % M == 0)
        L.Dims[*B] = Spec.PerStep->Global / M;
    }
  return L;
}

Layout shardc::neutralLayout(const Module &Checked,
                             llvm::ArrayRef<std::string> Written,
                             const SearchSpec &Spec, const Candidate &L) {
  Layout NL = candidateLayout(Checked, Written, Spec, L);
  std::optional<DimId> B;
  if (Spec.PerStep)
    B = dimNamed(Checked, Spec.PerStep->Name);
  if (!B)
    return NL;
  auto It = NL.Dims.find(*B);
  int64_t Size = It != NL.Dims.end() ? It->second : Spec.PerStep->Global;
  // A multiple past 2^62 is no size a compile takes: the batch stays as
  // the candidate's (a layout whose ranks never split it is then rejected
  // as the layout's NotDivisible: the same rows, counted per layout).
  constexpr int64_t Limit = int64_t(1) << 62;
  bool Fits = true;
  auto Cover = [&](const Value *V) {
    if (!V || !Fits)
      return;
    for (const TensorDim &D : V->type().Dims)
      if (D.Id == *B) {
        int64_t Axes = axesProduct(D.Axes, NL.Mesh);
        int64_t Times = Axes / std::gcd(Size, Axes);
        if (__builtin_mul_overflow(Size, Times, &Size) || Size > Limit)
          Fits = false;
      }
  };
  walk(Checked.body(), [&](const Op &O) {
    Cover(O.result());
    for (const Value *V : O.operands())
      Cover(V);
  });
  if (Fits)
    NL.Dims[*B] = Size;
  return NL;
}
