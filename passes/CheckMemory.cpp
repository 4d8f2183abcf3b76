//===- CheckMemory.cpp - A training step's bytes per chip -----------------===//
//
// COST-MODEL.md §7, into the Memory table: weights (each param in its
// stored sharding), gradient buffers, optimizer state (moments and master
// weights), the activations one microbatch saves for its backward (the
// values derive-backward recorded, per `recompute`) times the microbatches
// in flight, and the transient: the largest bytes one statement gathers
// (an AllGather's or AllToAll's result; AllReduce and ReduceScatter work in
// place). Over the chip's hbm, an error at the `train` block with a note
// per term, largest first, each saying what would shrink it. The error does
// not stop the pipeline: the report is still printed. With a pipeline, the
// first and the last stage are checked, each holding what the stage
// partition (StagePartition.h) gives it.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "passes/Pipeline.h"
#include "support/Format.h"
#include "llvm/ADT/DenseSet.h"
#include <fmt/format.h>

using namespace shardc;

llvm::StringRef shardc::memoryTermName(MemoryTerm T) {
  switch (T) {
  case MemoryTerm::Weights:
    return "weights";
  case MemoryTerm::Gradients:
    return "gradients";
  case MemoryTerm::Optimizer:
    return "optimizer";
  case MemoryTerm::Activations:
    return "activations";
  case MemoryTerm::Transient:
    return "transient";
  }
  llvm_unreachable("every memory term is named");
}

namespace {

/// What would shrink a term, given what the step already does: never a
/// setting the file already has.
std::string shrinkHint(MemoryTerm T, const TrainConfig &C,
                       const MemorySummary &S) {
  const char *MoreAxes = "shard the params over more axes (tensor or "
                         "pipeline parallelism)";
  switch (T) {
  case MemoryTerm::Weights:
    return C.Zero < 3 ? std::string(MoreAxes) +
                            ", or store them sharded over the data axes "
                            "(zero = 3)"
                      : MoreAxes;
  case MemoryTerm::Gradients: {
    std::string H = C.Zero < 2 ? "zero = 2 shards the gradient buffers" : "";
    if (dtypeBytes(C.Grad) > 2)
      H += std::string(H.empty() ? "" : "; ") + "grad = bf16 halves them";
    return H.empty() ? MoreAxes : H;
  }
  case MemoryTerm::Optimizer:
    return C.Zero < 1
               ? "zero = 1 shards the optimizer state over the replica axes"
               : std::string(MoreAxes) + " (the optimizer state follows them)";
  case MemoryTerm::Activations:
    switch (C.Recompute) {
    case RecomputePolicy::None:
    case RecomputePolicy::Attention:
      return "recompute = selective or full saves fewer activations; so "
             "does a smaller microbatch";
    case RecomputePolicy::Selective:
      return "recompute = full saves fewer activations; so does a smaller "
             "microbatch";
    case RecomputePolicy::Full:
      return "a smaller microbatch, or sharding the activations over "
             "more axes (sequence or context parallelism)";
    }
    llvm_unreachable("every policy has a hint");
  case MemoryTerm::Transient:
    return S.TransientWorkspace > 0
               ? "the workspace of one op (unfused attention's score-sized "
                 "tensors: 'fused = true' has none) and what it gathers"
               : "the largest set of values one statement gathers";
  }
  llvm_unreachable("every memory term has a hint");
}

/// How many copies of a value, a param or an op's kept bytes one stage of
/// a pipeline holds: the stage partition's share (StagePartition.h), with
/// what a saved value adds. With one stage it is both ends and holds
/// everything.
class StageShare {
public:
  StageShare(const Module &Program, const StagePartition &Part, unsigned Stage)
      : Part(Part), Top(&Program.body()), Stage(Stage) {}
  /// A saved value: a carried value's first version is kept once per
  /// iteration that reads it, so it is split among the stages too. One a
  /// repeat computes and only the code after it reads is held after it: on
  /// the first stage if that repeat is the first stage's, on the last if it
  /// is the layers or comes after them.
  double copies(const SavedValue &S) const {
    if (carried(S))
      return Part.share(Stage, StageSide::Layers, double(S.Copies));
    if (Part.Stages > 1 && S.HeldIn == Top && S.V->def()->parent() != Top) {
      bool First = Part.side(*S.V->def()) == StageSide::First;
      return Part.share(Stage, First ? StageSide::First : StageSide::Last,
                        double(S.Copies));
    }
    return copies(S.V->def(), S.Copies);
  }
  double copies(const Op *O, int64_t Copies) const {
    if (Part.Stages == 1)
      return double(Copies);
    if (isa<InputOp>(O))
      return readHere(*O->result()) ? double(Copies) : 0;
    if (Part.tiedCopy(Stage, O->stmt())) // the last stage's tied copy
      return double(Copies);
    return Part.share(Stage, Part.side(*O), double(Copies));
  }
  /// Whether an input is loaded on this end: an input is loaded wherever it
  /// is read (docs/language.md).
  bool readHere(const Value &V) const {
    return llvm::any_of(V.users(), [&](const Op *U) {
      return Part.runs(Stage, Part.side(*U));
    });
  }
  /// Whether \p O is in the layers (on every stage).
  bool inPipeline(const Op *O) const {
    return Part.Stages > 1 && Part.side(*O) == StageSide::Layers;
  }
  /// Whether a saved value is held for the layers' backward: the carried
  /// value's first version, which the first iteration reads, or one they
  /// compute and read. One they compute and only the code after them reads
  /// (the last layer's output, for the head) is the head's.
  bool inPipeline(const SavedValue &S) const {
    if (carried(S))
      return true;
    // An input the layers read is held for their backward, like theirs.
    if (isa<InputOp>(S.V->def()))
      return llvm::any_of(S.V->users(),
                          [&](const Op *U) { return inPipeline(U); });
    return S.HeldIn != Top && inPipeline(S.V->def());
  }

private:
  bool carried(const SavedValue &S) const {
    return Part.Stages > 1 && Part.ProgramLayers &&
           Part.ProgramLayers->carriedFrom(S.V);
  }

  const StagePartition &Part;
  const Block *Top;
  unsigned Stage;
};

class CheckMemory : public Pass {
public:
  llvm::StringRef name() const override { return "check-memory"; }
  bool run(MeshCompile &C, DiagnosticEngine &Diags) override;
};

/// The transient term of one stage (COST-MODEL.md §7): the largest bytes
/// one forward or backward statement of that stage gathers, with an op's
/// workspace less what is already counted as kept.
void transientTerm(const MeshCompile &C, unsigned Stage, int64_t Stages,
                   MemorySummary &S) {
  const MeshSpec &Mesh = C.mesh();
  const Module &M = *C.lowered();
  std::vector<double> Gathered(M.info().Statements.size(), 0.0);
  // The kept table names the derive-backward module's ops: matched by
  // statement.
  std::vector<double> Workspace(Gathered.size(), 0.0);
  llvm::DenseSet<unsigned> KeptStmts;
  for (auto [O, Copies] : C.Tables.Kept)
    KeptStmts.insert(O->stmt());
  const StagePartition &Part = *C.Tables.Partition;
  auto OnStage = [&](const Op &O) {
    return Stages == 1 || Part.runs(Stage, Part.side(O));
  };
  walk(M.body(), [&](const Op &O) {
    if (!OnStage(O))
      return;
    auto *Co = dyn_cast<Costed>(&O);
    if (Co && O.stmt() != NoStmt)
      if (double W = Co->workspaceBytes(Mesh))
        Workspace[O.stmt()] +=
            W - (KeptStmts.count(O.stmt())
                     ? cast<Differentiable>(O).keptBytes(Mesh)
                     : 0);
    std::optional<CollectiveKind> K = collectiveKindOf(O.kind());
    if (!K || O.stmt() == NoStmt)
      return;
    Phase Ph = M.statement(O.stmt()).Ph;
    // A gather over a group of one chip moves nothing and its result is its
    // operand: no buffer (ZeRO 3 over an axis of size 1, or over axes a
    // param's own sharding already uses, as a MoE's experts on X_D).
    auto *Coll = dyn_cast<CollectiveOp>(&O);
    if (Coll && axesProduct(Coll->axes(), Mesh) == 1)
      return;
    if (collectiveTraits(*K).TransientResult &&
        (Ph == Phase::Forward || Ph == Phase::Backward))
      Gathered[O.stmt()] += O.result()->type().localBytes(Mesh);
  });
  for (size_t I = 0; I < Gathered.size(); ++I)
    if (Gathered[I] + Workspace[I] > S.Bytes[unsigned(MemoryTerm::Transient)]) {
      S.Bytes[unsigned(MemoryTerm::Transient)] = Gathered[I] + Workspace[I];
      S.TransientStmt = unsigned(I);
      S.TransientWorkspace = Workspace[I];
    }
}

/// Microbatches (in stages' worth of layers) stage \p Stage of \p Stages
/// holds at once: on the first, COST-MODEL.md §7's; on the last, 1 under
/// 1F1B, each microbatch's backward following its forward, and under the
/// interleaved schedule Megatron-LM's (v - 1)·p warm-up chunks and the one
/// in its 1F1B, in stages' worth, ((v - 1)·p + 1) / v; between them (a
/// check uneven stages need) Megatron-LM's warm-up of stage s, p - s
/// microbatches under 1F1B, ((p - s - 1)·2 + (v - 1)·p + 1) / v chunks'
/// worth interleaved, which meets both ends' figures.
double inFlight(const StepSummary::PipelineInfo &Pipe, double Mb,
                int64_t Stages, unsigned Stage) {
  double P = double(Stages), V = double(Pipe.Chunks), S = double(Stage);
  if (Pipe.Schedule == PipelineSchedule::GPipe)
    return Mb;
  bool OneF = Pipe.Schedule == PipelineSchedule::OneFOneB;
  if (Stage + 1 == Stages)
    return OneF ? 1 : std::min(Mb, ((V - 1) * P + 1) / V);
  if (Stage == 0)
    return OneF ? std::min(Mb, P) : std::min(Mb, P) * (1 + (P - 1) / (P * V));
  return OneF ? std::min(Mb, P - S)
              : std::min(Mb, ((P - S - 1) * 2 + (V - 1) * P + 1) / V);
}

/// The params an fp8 GEMM reads (`train { fp8 = ...; }`).
llvm::DenseSet<const Value *> fp8Weights(const Module &Training) {
  llvm::DenseSet<const Value *> W;
  walk<ContractionOp>(Training.body(), [&](const ContractionOp &O) {
    if (O.fp8())
      for (const Value *V : O.operands())
        if (isa<ParamOp>(V->def()))
          W.insert(V);
  });
  return W;
}

/// COST-MODEL.md §7's table for one stage of the pipeline (the whole step
/// without one).
MemorySummary stageMemory(const MeshCompile &C, unsigned Stage) {
  const TrainConfig &Train = *C.config().Train;
  const MeshSpec &Mesh = C.mesh();
  const Module &M = *C.lowered();
  MemorySummary S;
  auto Add = [&](MemoryTerm T, double Bytes) { S.Bytes[unsigned(T)] += Bytes; };
  // A pointer, not `Step ? Step->Pipeline : nullopt`: that copies the
  // pipeline's slices (a search compiles this per candidate).
  const StepSummary::PipelineInfo *Pipe =
      C.Tables.Step && C.Tables.Step->Pipeline ? &*C.Tables.Step->Pipeline
                                               : nullptr;
  int64_t Stages = Pipe ? C.Tables.Step->Stages : 1;
  S.Stage = Stage;
  S.Stages = Stages;
  StageShare Share(C.program(), *C.Tables.Partition, Stage);
  llvm::DenseSet<const Value *> Fp8Weights = fp8Weights(C.program());
  for (const ParamInfo &P : C.Tables.Params) {
    double N = Share.copies(P.Param->def(), M.statement(P.Stmt).Repeat);
    Add(MemoryTerm::Weights, P.Param->type().localBytes(Mesh) * N);
    // Transformer Engine keeps an fp8 weight's copy and its transpose
    // beside the weight (its cast once per step, ContractionOp::Fp8Gemm).
    if (Fp8Weights.contains(P.Param))
      Add(MemoryTerm::Weights,
          P.Param->type().localElements(Mesh) * 2 * dtypeBytes(DType::fp8) * N);
    Add(MemoryTerm::Gradients, P.GradBuffer.localBytes(Mesh) * N);
    Add(MemoryTerm::Optimizer,
        P.Optimizer.localElements(Mesh) * P.StateBytesPerElement * N);
  }
  // Without a pipeline one microbatch's activations are held at a time;
  // with one, the microbatches in flight on the stage (inFlight). The head
  // and loss after the pipelined repeat hold one microbatch's values (the
  // last stage runs their backward right after their forward) except under
  // GPipe.
  S.InFlight = 1;
  double OutsideInFlight = 1;
  if (Pipe) {
    double Mb = double(Train.Microbatches);
    S.InFlight = inFlight(*Pipe, Mb, Stages, Stage);
    OutsideInFlight = Stage == 0                                  ? S.InFlight
                      : Pipe->Schedule == PipelineSchedule::GPipe ? Mb
                                                                  : 1;
  }
  for (const SavedValue &SV : C.Tables.Saved)
    Add(MemoryTerm::Activations,
        SV.V->type().localBytes(Mesh) * Share.copies(SV) *
            (Share.inPipeline(SV) ? S.InFlight : OutsideInFlight));
  for (auto [O, Copies] : C.Tables.Kept)
    Add(MemoryTerm::Activations,
        cast<Differentiable>(O)->keptBytes(Mesh) * Share.copies(O, Copies) *
            (Share.inPipeline(O) ? S.InFlight : OutsideInFlight));
  transientTerm(C, Stage, Stages, S);
  for (double B : S.Bytes)
    S.Total += B;
  S.Capacity = Mesh.Cluster->Chip.HbmBytes;
  return S;
}

bool CheckMemory::run(MeshCompile &C, DiagnosticEngine &Diags) {
  const auto &Train = C.config().Train;
  if (!Train)
    return true;
  const MeshSpec &Mesh = C.mesh();
  // With a pipeline, the heavier of its two ends (COST-MODEL.md §7 names
  // the first stage; a large untied head can make the last one heavier);
  // with uneven stages, the heaviest stage, since a middle one may hold
  // more layers than either end.
  MemorySummary S = stageMemory(C, 0);
  if (S.Stages > 1) {
    const StagePartition &Part = *C.Tables.Partition;
    bool Uneven =
        Part.ProgramLayers && !Part.ProgramLayers->stageSplit().empty();
    double FirstTotal = S.Total, LastTotal = 0;
    for (int64_t St = Uneven ? 1 : S.Stages - 1; St < S.Stages; ++St) {
      MemorySummary Other = stageMemory(C, unsigned(St));
      if (St + 1 == S.Stages)
        LastTotal = Other.Total;
      if (Other.Total > S.Total)
        S = Other;
    }
    // The report compares the heaviest with the first stage, or with the
    // last when the first is the heaviest.
    S.OtherEndTotal = S.Stage == 0 ? LastTotal : FirstTotal;
  }
  C.Tables.Memory = S;
  if (S.Capacity <= 0 || S.Total <= S.Capacity)
    return true;
  Diags.report(Train->At, diag::StepOverHbm, formatAmount(S.Total, "B"),
               S.Stages > 1 ? fmt::format(" on stage {}", S.Stage) : "",
               Mesh.Cluster->Chip.Name, formatAmount(S.Capacity, "B"));
  std::vector<MemoryTerm> Order;
  for (unsigned T = 0; T < NumMemoryTerms; ++T)
    if (S.Bytes[T] > 0)
      Order.push_back(MemoryTerm(T));
  std::stable_sort(Order.begin(), Order.end(), [&](MemoryTerm A, MemoryTerm B) {
    return S.Bytes[unsigned(A)] > S.Bytes[unsigned(B)];
  });
  for (MemoryTerm T : Order)
    Diags.report(Train->At, diag::MemoryTermNote, memoryTermName(T).str(),
                 formatAmount(S.Bytes[unsigned(T)], "B"),
                 shrinkHint(T, *Train, S));
  // Reported, and the report still printed: the pipeline goes on.
  return true;
}

} // namespace

std::unique_ptr<Pass> shardc::createCheckMemoryPass() {
  return std::make_unique<CheckMemory>();
}
