//===- BindMesh.cpp - The decisions a mesh's sizes make
//--------------------===//
//
// The checked module names mesh axes by position, never by size, so one
// checked program serves every mesh with its axis names. What a mesh's
// sizes decide is made here, the first pass of every compile, the file's
// own and each re-cost alike, so that a re-cost is a fresh compile by
// construction:
//  1. the pipeline: the repeat's count splits evenly into the stages (and
//     chunks), the interleaved schedule's microbatches into groups of the
//     stages, the simulated schedule stays within its slice limit, and on
//     more than one stage only the carried value crosses stages;
//  2. attention: the query heads' sharding divides the KV heads;
//  3. a mixture of experts' capacity slots: rounded up to a multiple of the
//     chips the tokens are sharded over, so they depend on the mesh (and on
//     the tokens' dims). Where they differ from what the checked module
//     holds, or the layout rebinds dims, the pass binds a copy with those
//     sizes (and the experts' useful share of FLOPs recomputed), which
//     every later pass reads (MeshCompile::forward);
//  4. with dims rebound, the rules Sema checked on the written sizes: the
//     query heads a multiple of the KV heads, `top` at most the experts,
//     every value under 2^62 elements (reported at the op).
// Each problem is reported where the user wrote what the mesh breaks.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "passes/Pipeline.h"
#include <cmath>
#include <string>

using namespace shardc;

namespace {

/// The most slices a pipeline's simulated schedule may have (about a
/// second and a few hundred MB of slices: docs/limits.md).
constexpr int64_t MaxPipelineSlices = int64_t(1) << 22;

/// \p A x \p B, or nullopt past 2^62.
std::optional<int64_t> product(int64_t A, int64_t B) {
  int64_t P;
  if (__builtin_mul_overflow(A, B, &P) || P > (int64_t(1) << 62))
    return std::nullopt;
  return P;
}

std::string countStr(std::optional<int64_t> N) {
  return N ? std::to_string(*N) : "more than 2^62";
}

class BindMesh : public Pass {
public:
  llvm::StringRef name() const override { return "bind-mesh"; }
  bool run(MeshCompile &C, DiagnosticEngine &Diags) override;
  /// Step 1's check of every pipelined repeat, alone.
  bool pipelinesSplit(const MeshCompile &C, DiagnosticEngine &Diags);

private:
  bool pipelineSplits(const RepeatOp &R);
  bool crossingsUnchecked(const RepeatOp &R) const;
  void kvHeads(const AttentionOp &A);
  void moeSlots();
  void reboundRules(const Module &M);

  const MeshCompile *C = nullptr;
  DiagnosticEngine *Diags = nullptr;
  DimSizeMap Sizes;
  llvm::DenseMap<DimId, double> UsedBySlots;
  /// Serving: by slot dim, the share of the experts' weights the tokens
  /// touch and of the slots' FLOPs the routed pairs execute.
  llvm::DenseMap<DimId, std::pair<double, double>> ServingShares;
};

/// Step 1: the stages (and chunks) split the count, and the schedule is
/// one shardc simulates.
bool BindMesh::pipelineSplits(const RepeatOp &R) {
  const std::optional<TrainConfig> &Train = C->config().Train;
  int64_t N = R.tripCount();
  int64_t Stages = C->mesh().Axes[*R.pipelineAxis()].Size;
  int64_t Chunks = Train && Train->Schedule == PipelineSchedule::Interleaved
                       ? Train->Chunks
                       : 1;
  std::optional<int64_t> Parts = product(Stages, Chunks);
  if (!R.stageSplit().empty()) {
    // Uneven stages: one count per (stage, chunk), summing to N (Sema).
    if (!Parts || int64_t(R.stageSplit().size()) != *Parts) {
      std::string Of =
          Chunks > 1 ? " of each of the " + std::to_string(Chunks) + " chunks"
                     : "";
      std::string Has = std::to_string(Stages) + " stages";
      if (Chunks > 1)
        Has = countStr(Parts) + " (" + Has + " x " + std::to_string(Chunks) +
              " chunks)";
      Diags->report(R.splitLoc(), diag::StageSplitLength,
                    int64_t(R.stageSplit().size()), Has, Of);
      return false;
    }
  } else if (!Parts || N % *Parts != 0) {
    std::string Split = std::to_string(Stages) + " stages";
    if (Chunks > 1)
      Split += " x " + std::to_string(Chunks) + " chunks";
    Diags->report(R.countLoc(), diag::PipelineIndivisible, N, Split,
                  countStr(Parts));
    return false;
  }
  // Megatron-LM's interleaved order needs whole groups of p microbatches;
  // reported at `microbatches` when the train block writes it.
  int64_t Mb = Train ? Train->Microbatches : 1;
  Loc MbAt = Train && Train->MicrobatchesAt.isValid() ? Train->MicrobatchesAt
                                                      : R.overLoc();
  if (Chunks > 1 && Mb % Stages != 0) {
    Diags->report(MbAt, diag::InterleavedMicrobatches, Stages, Mb);
    return false;
  }
  // The simulation is linear in its slices, which are bounded.
  std::optional<int64_t> Slices = product(2 * *Parts, Mb);
  if (!Slices || *Slices > MaxPipelineSlices) {
    Diags->report(MbAt, diag::PipelineTooManySlices, countStr(Slices), Stages,
                  Chunks, Mb, MaxPipelineSlices);
    return false;
  }
  return true;
}

/// Step 1, on more than one stage: only the carried value crosses stages
/// (forEachPipelineCrossing). Which values cross does not depend on the
/// mesh, only whether there is more than one stage, so they are checked
/// here on a layout with several stages whose file had one; where the
/// file's own mesh has several, Sema has checked them.
bool BindMesh::crossingsUnchecked(const RepeatOp &R) const {
  AxisId A = *R.pipelineAxis();
  return C->mesh().Axes[A].Size > 1 && C->checked().mesh().Axes[A].Size == 1;
}

/// Step 2: each chip's query heads read their own KV heads, so k and v
/// sharded over the heads are sharded as q is, which must divide them
/// (written whole, every chip keeps them all).
void BindMesh::kvHeads(const AttentionOp &A) {
  ShardType Q = A.operand(0)->type(), K = A.operand(1)->type();
  Q.rebind(Sizes); // the layout's dims
  K.rebind(Sizes);
  const TensorDim &NHeads = Q.Dims[AttentionOp::seqDim(Q) + 1];
  const TensorDim &KHeads = K.Dims[AttentionOp::seqDim(K) + 1];
  int64_t Ways = axesProduct(NHeads.Axes, C->mesh());
  if (KHeads.Axes.empty() || KHeads.Size % Ways == 0)
    return;
  const TypeNames &Names = C->checked().names();
  Diags->report(A.kvLoc(), diag::AttentionKvShards, Names.Dims[KHeads.Id],
                KHeads.Size, axisNames(NHeads.Axes, Names), Ways);
}

/// Step 3: each dispatch's slots on this mesh, collected where they differ
/// from the checked module's.
void BindMesh::moeSlots() {
  walk<MoeDispatchOp>(C->checked().body(), [&](const MoeDispatchOp &D) {
    if (!D.capacity())
      return;
    ShardType Tokens = D.operand(0)->type(), Buf = D.result()->type();
    Tokens.rebind(Sizes);
    Buf.rebind(Sizes);
    int64_t Experts = Buf.Dims[0].Size;
    std::optional<int64_t> Slots =
        MoeDispatchOp::slots(*D.capacity(), Tokens, Experts, C->mesh());
    if (!Slots) {
      Diags->report(D.loc(), diag::MoeSlotsOverflow,
                    C->checked().names().Dims[Buf.Dims[0].Id]);
      return;
    }
    // The share of used slots follows the tokens even where the rounding
    // leaves the slot count as it was (a rebound token dim).
    UsedBySlots[Buf.Dims[1].Id] =
        MoeDispatchOp::usedShare(*D.capacity(), Tokens, Experts, *Slots);
    if (C->config().Serving) {
      // T tokens routed uniformly to `top` of X experts touch X(1 - (1 -
      // top/X)^T) of them; the pairs are top x capacity x T, unrounded.
      double T = Tokens.globalElements() / double(Tokens.Dims.back().Size);
      double X = double(Experts), Top = double(D.capacity()->Top);
      double Touched = X * (1 - std::pow(1 - std::min(1.0, Top / X), T));
      double Pairs = Top * D.capacity()->Factor * T;
      ServingShares[Buf.Dims[1].Id] = {
          std::min(1.0, Touched / X),
          std::min(1.0, Pairs / (X * double(*Slots)))};
    }
    if (*Slots != Buf.Dims[1].Size)
      Sizes[Buf.Dims[1].Id] = *Slots;
  });
}

/// Step 4: what Sema checked of the written sizes, on the rebound module.
void BindMesh::reboundRules(const Module &M) {
  const TypeNames &Names = M.names();
  walk(M.body(), [&](const Op &O) {
    if (O.result() &&
        O.result()->type().globalElements() > double(int64_t(1) << 62))
      Diags->report(O.loc(), diag::ElementsOverflow);
    if (auto *A = dyn_cast<AttentionOp>(&O)) {
      const ShardType &Q = A->operand(0)->type(), &K = A->operand(1)->type();
      const TensorDim &N = Q.Dims[AttentionOp::seqDim(Q) + 1];
      const TensorDim &KH = K.Dims[AttentionOp::seqDim(K) + 1];
      if (N.Size % KH.Size != 0)
        Diags->report(A->kvLoc(), diag::AttentionHeads, Names.Dims[N.Id],
                      N.Size, Names.Dims[KH.Id], KH.Size);
    }
    auto *Dispatch = dyn_cast<MoeDispatchOp>(&O);
    if (Dispatch && Dispatch->capacity() &&
        Dispatch->capacity()->Top > Dispatch->result()->type().Dims[0].Size)
      Diags->report(O.loc(), diag::MoeTop, Dispatch->capacity()->Top,
                    Names.Dims[Dispatch->result()->type().Dims[0].Id],
                    Dispatch->result()->type().Dims[0].Size);
  });
}

bool BindMesh::run(MeshCompile &Compile, DiagnosticEngine &D) {
  C = &Compile;
  Diags = &D;
  Sizes = Compile.dims();
  unsigned Before = D.errorCount();
  const Block &Top = Compile.checked().body();
  for (const auto &O : Top.ops())
    if (auto *R = dyn_cast<RepeatOp>(O.get());
        R && R->pipelineAxis() && pipelineSplits(*R) && crossingsUnchecked(*R))
      forEachPipelineCrossing(Top, [&](const Op &Reader, const Value &V) {
        D.report(Reader.loc(), crossingDiag(V), V.name());
      });
  walk<AttentionOp>(Top, [&](const AttentionOp &A) { kvHeads(A); });
  moeSlots();
  if (D.errorCount() != Before || D.shouldStop())
    return false;
  if (Sizes.empty())
    return true;
  std::unique_ptr<Module> Bound =
      rebindModule(Compile.checked(), Compile.mesh(), Sizes);
  if (!Compile.dims().empty()) {
    reboundRules(*Bound);
    if (D.errorCount() != Before)
      return false;
  }
  // The experts' contractions count the slots that hold tokens.
  walk<ContractionOp>(Bound->body(), [&](ContractionOp &O) {
    auto Slots = [&](const Value *V) -> std::optional<double> {
      for (const TensorDim &Dim : V->type().Dims)
        if (auto It = UsedBySlots.find(Dim.Id); It != UsedBySlots.end())
          return It->second;
      return std::nullopt;
    };
    if (auto U = Slots(O.result()))
      O.setUsed(*U);
    else if (auto U = Slots(O.operand(0)))
      O.setUsed(*U);
    for (unsigned K = 0; K < 2; ++K)
      for (const TensorDim &Dim : O.operand(1 - K)->type().Dims)
        if (auto It = ServingShares.find(Dim.Id); It != ServingShares.end())
          // Operand K, without the slots, is the experts' weight.
          return O.setExpertShares(K, It->second.first, It->second.second);
  });
  Compile.setBound(std::move(Bound));
  return true;
}

} // namespace

bool BindMesh::pipelinesSplit(const MeshCompile &Compile, DiagnosticEngine &D) {
  C = &Compile;
  Diags = &D;
  bool Split = true;
  for (const auto &O : Compile.checked().body().ops())
    if (auto *R = dyn_cast<RepeatOp>(O.get()); R && R->pipelineAxis())
      Split = pipelineSplits(*R) && Split;
  return Split;
}

bool shardc::checkPipelineSplits(const MeshCompile &C, DiagnosticEngine &D) {
  return BindMesh().pipelinesSplit(C, D);
}

std::unique_ptr<Pass> shardc::createBindMeshPass() {
  return std::make_unique<BindMesh>();
}
