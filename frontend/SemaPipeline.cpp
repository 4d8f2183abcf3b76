//===- SemaPipeline.cpp - `repeat N over A` and its checks ----------------===//
//
// LANGUAGE.md §9 in the checker: the pipeline axis of `repeat N over A`, and
// the checks that need the whole program (the train block's pipeline
// settings, values crossing stages, the pipeline axis sharding nothing else).
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace shardc;

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
  // Whether N splits into the stages (and chunks), and the microbatches
  // into the interleaved schedule's groups, depends on the mesh's sizes:
  // bind-mesh checks them, for this mesh and every other.
  if (!Config.Train)
    Diags.report(D.Over.Range, diag::PipelineWithoutTrain);
  Pipeline = &D;
  PipelineAxis = A;
  return A;
}

/// `repeat N over A [n0, n1, ...]` (docs/language.md, uneven stages): each
/// count a whole number in [1, N], together N. How many counts there must
/// be depends on the mesh (stages x chunks): bind-mesh checks that.
void Sema::stageSplit(const RepeatDecl &D, RepeatOp &R) {
  std::vector<int64_t> Counts;
  int64_t Sum = 0;
  bool Ok = true;
  for (const ExprPtr &E : D.Split) {
    std::optional<Quantity> Q = eval(*E);
    if (!Q) {
      Ok = false;
      continue;
    }
    if (!Q->Dim.isCount() || !Q->IsInt || Q->Int < 1 ||
        Q->Int > R.tripCount()) {
      Diags.report(E->Range, diag::StageSplitEntry, Q->str());
      Ok = false;
      continue;
    }
    Counts.push_back(Q->Int);
    // Each count is at most N <= 2^62, but there may be many of them.
    if (__builtin_add_overflow(Sum, Q->Int, &Sum) || Sum > (int64_t(1) << 62))
      Sum = (int64_t(1) << 62) + 1;
  }
  if (!Ok)
    return;
  if (Sum != R.tripCount()) {
    Diags.report(D.SplitRange, diag::StageSplitSum, Sum, R.tripCount());
    return;
  }
  R.setStageSplit(std::move(Counts), Diags.location(D.SplitRange.Start));
}

/// A `train` block's pipeline settings that would be silently ignored.
void Sema::checkPipelineSettings() {
  if (!TrainBlock || !Config.Train)
    return;
  const TrainConfig &T = *Config.Train;
  // Chunks searched (in train or search): each candidate's chunk count is
  // its own, so `schedule = interleaved` with the default one is no slip.
  auto SearchesChunks = [](const std::vector<Property> &Ps) {
    return llvm::any_of(Ps, [](const Property &P) {
      return P.Name.Name == "chunks" && P.Form != PropForm::Assign;
    });
  };
  bool ChunksSearched = SearchesChunks(TrainBlock->Props) ||
                        (SearchBlock && SearchesChunks(SearchBlock->Props));
  for (const Property &P : TrainBlock->Props) {
    bool Schedule = P.Name.Name == "schedule", Chunks = P.Name.Name == "chunks";
    if (!Schedule && !Chunks)
      continue;
    // A searched value is each candidate's: only "no pipeline at all" is
    // known here (they collapse to 1f1b and 1 chunk).
    if (P.Form != PropForm::Assign && (PipelineAxis || PipelineWritten))
      continue;
    if (!PipelineAxis && !PipelineWritten)
      Diags.report(P.Name.Range, diag::PipelineSettingUnused, P.Name.Name,
                   "without a pipelined 'repeat ... over'");
    else if (Chunks && T.Chunks > 1 &&
             T.Schedule != PipelineSchedule::Interleaved)
      Diags.report(P.Name.Range, diag::PipelineSettingUnused, P.Name.Name,
                   "unless 'schedule = interleaved'");
    else if (Schedule && T.Schedule == PipelineSchedule::Interleaved &&
             T.Chunks == 1 && !ChunksRejected && !ChunksSearched)
      Diags.report(P.Name.Range, diag::PipelineSettingUnused,
                   "schedule = interleaved",
                   "with one chunk: it runs as 1f1b (set 'chunks')");
  }
}

/// LANGUAGE.md §9: only the carried value crosses stages, on a mesh with
/// more than one (bind-mesh checks the same on every other mesh). Checked
/// here too so that an error elsewhere in the file does not hide one.
void Sema::checkPipelineCrossings() {
  if (!PipelineAxis || !IR || Mesh->Axes[*PipelineAxis].Size == 1)
    return;
  forEachPipelineCrossing(IR->body(), [&](const Op &O, const Value &V) {
    Diags.report(O.loc(), crossingDiag(V), V.name());
  });
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
