//===- SemaPipeline.cpp - `repeat N over A` and its checks ----------------===//
//
// LANGUAGE.md §9 in the checker: the pipeline axis of `repeat N over A`, and
// the checks that need the whole program (the train block's pipeline
// settings, values crossing stages, the pipeline axis sharding nothing else).
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

using namespace shardc;

namespace {
/// The most slices a pipeline's simulated schedule may have (about a
/// second and a few hundred MB of slices).
constexpr int64_t MaxPipelineSlices = int64_t(1) << 22;
} // namespace

/// `repeat N over A` (LANGUAGE.md §9): A a mesh axis, the pipeline the
/// file's only one and at the top level, N split evenly into the stages
/// (and chunks, for the interleaved schedule).
std::optional<AxisId> Sema::pipelineAxis(const RepeatDecl &D, int64_t N) {
  PipelineWritten = true;
  if (!Repeats.empty()) {
    Diags.report(D.Over.Range, diag::NestedPipeline);
    return std::nullopt;
  }
  if (Pipeline) {
    Diags.report(D.Over.Range, diag::SecondPipeline);
    Diags.report(Pipeline->Over.Range, diag::FirstPipelineHere,
                 Pipeline->Over.Name);
    return std::nullopt;
  }
  std::optional<AxisId> A;
  std::string Names;
  for (size_t I = 0; I < Mesh->Axes.size(); ++I) {
    Names += (I ? ", " : "") + Mesh->Axes[I].Name;
    if (Mesh->Axes[I].Name == D.Over.Name)
      A = AxisId(I);
  }
  if (!A) {
    Diags.report(D.Over.Range, diag::UnknownAxis, Mesh->Name, D.Over.Name,
                 Names);
    return std::nullopt;
  }
  int64_t Stages = Mesh->Axes[*A].Size;
  int64_t Chunks =
      Config.Train && Config.Train->Schedule == PipelineSchedule::Interleaved
          ? Config.Train->Chunks
          : 1;
  if (N % (Stages * Chunks) != 0) {
    std::string Split = std::to_string(Stages) + " stages";
    if (Chunks > 1)
      Split += " x " + std::to_string(Chunks) + " chunks";
    Diags.report(D.Count->Range, diag::PipelineIndivisible, N, Split,
                 Stages * Chunks);
    return std::nullopt;
  }
  // Megatron-LM's interleaved order needs whole groups of p microbatches;
  // reported at `microbatches` when the train block writes it.
  llvm::SMRange MbAt = D.Over.Range;
  if (TrainBlock)
    for (const Property &P : TrainBlock->Props)
      if (P.Name.Name == "microbatches")
        MbAt = P.Value->Range;
  if (Chunks > 1 && Config.Train->Microbatches % Stages != 0) {
    Diags.report(MbAt, diag::InterleavedMicrobatches, Stages,
                 Config.Train->Microbatches);
    return std::nullopt;
  }
  // The simulation is linear in its slices, which are bounded
  // (docs/limits.md).
  int64_t Mb = Config.Train ? Config.Train->Microbatches : 1;
  if (Mb > MaxPipelineSlices / (2 * Stages * Chunks)) {
    Diags.report(MbAt, diag::PipelineTooManySlices,
                 Mb > INT64_MAX / (2 * Stages * Chunks)
                     ? INT64_MAX
                     : 2 * Stages * Chunks * Mb,
                 Stages, Chunks, Mb, MaxPipelineSlices);
    return std::nullopt;
  }
  if (!Config.Train)
    Diags.report(D.Over.Range, diag::PipelineWithoutTrain);
  Pipeline = &D;
  PipelineAxis = A;
  return A;
}

/// A `train` block's pipeline settings that would be silently ignored.
void Sema::checkPipelineSettings() {
  if (!TrainBlock || !Config.Train)
    return;
  const TrainConfig &T = *Config.Train;
  for (const Property &P : TrainBlock->Props) {
    bool Schedule = P.Name.Name == "schedule", Chunks = P.Name.Name == "chunks";
    if (!Schedule && !Chunks)
      continue;
    if (!PipelineAxis && !PipelineWritten)
      Diags.report(P.Name.Range, diag::PipelineSettingUnused, P.Name.Name,
                   "without a pipelined 'repeat ... over'");
    else if (Chunks && T.Chunks > 1 &&
             T.Schedule != PipelineSchedule::Interleaved)
      Diags.report(P.Name.Range, diag::PipelineSettingUnused, P.Name.Name,
                   "unless 'schedule = interleaved'");
    else if (Schedule && T.Schedule == PipelineSchedule::Interleaved &&
             T.Chunks == 1 && !ChunksRejected)
      Diags.report(P.Name.Range, diag::PipelineSettingUnused,
                   "schedule = interleaved",
                   "with one chunk: it runs as 1f1b (set 'chunks')");
  }
}

/// LANGUAGE.md §9: only the carried value crosses stages (point to point,
/// priced). A value computed before the pipelined repeat lives on the first
/// stage; read inside the repeat (every stage) or after it (the last), it
/// would need a transfer shardc does not price, so it is an error. Inputs
/// (data, token ids) are loaded wherever they are read.
void Sema::checkPipelineCrossings() {
  if (!PipelineAxis || !IR || Mesh->Axes[*PipelineAxis].Size == 1)
    return;
  const Block &Top = IR->body();
  size_t At = 0;
  const RepeatOp *Pipe = nullptr;
  for (; At < Top.ops().size(); ++At) {
    auto *R = dyn_cast<RepeatOp>(Top.ops()[At].get());
    if (R && R->pipelineAxis()) {
      Pipe = R;
      break;
    }
  }
  if (!Pipe)
    return;
  llvm::DenseSet<const Value *> FirstStage;
  for (size_t I = 0; I < At; ++I) {
    const Op &O = *Top.ops()[I];
    auto Add = [&](const Op &D) {
      if (D.result() && !isa<InputOp>(D))
        FirstStage.insert(D.result());
    };
    Add(O);
    for (Block *B : O.regions())
      walk(*B, Add);
  }
  llvm::DenseSet<const Value *> Reported;
  auto Check = [&](const Op &O, bool InBody) {
    for (const Value *V : O.operands())
      if (FirstStage.count(V) && !(InBody && Pipe->carriedFrom(V)) &&
          Reported.insert(V).second)
        Diags.report(O.loc(), diag::PipelineCrossing, V->name());
  };
  walk(Pipe->body(), [&](const Op &O) { Check(O, true); });
  for (size_t I = At + 1; I < Top.ops().size(); ++I) {
    const Op &O = *Top.ops()[I];
    Check(O, false);
    for (Block *B : O.regions())
      walk(*B, [&](const Op &In) { Check(In, false); });
  }
}

/// LANGUAGE.md §9: the pipeline axis places stages; it shards no tensor.
void Sema::checkPipelineAxisUnused() {
  if (!PipelineAxis)
    return;
  // Once per name: a carried value rebinds its name every iteration.
  llvm::StringSet<> Seen;
  auto Uses = [&](const Value *V) {
    auto *P = dyn_cast<ParamOp>(V->def());
    return V->type().axesUsed().contains(*PipelineAxis) ||
           (P && P->stateType() &&
            P->stateType()->axesUsed().contains(*PipelineAxis));
  };
  for (const auto &[Name, V] : Bound)
    if (Uses(V) && Seen.insert(Name.Name).second)
      Diags.report(Name.Range, diag::PipelineAxisShards,
                   Mesh->Axes[*PipelineAxis].Name, Name.Name,
                   typeStr(V->type()));
}
