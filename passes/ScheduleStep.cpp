//===- ScheduleStep.cpp - A training step on two streams ------------------===//
//
// COST-MODEL.md §6.1, §6.2, §6.4 and §6.5, into the Step table. One walk over
// the lowered training program turns each statement into a StreamEffect
// (Schedule.h): forward and backward statements are compute-stream work
// (their collectives attached, §4), a gradient sync is issued on the
// communication stream and overlaps what follows (with `sync =
// after_backward`, it waits for the end of the backward), a repeat is its
// body's effect N times. Four versions of one microbatch are built at once:
// whether it is the first (whose weight-gradient contractions do not read
// the buffer yet) and whether it is the last (when the once-per-step syncs
// of ZeRO 0 and 1 run; ZeRO 2 and FSDP syncs run in every microbatch). The
// step chains them over the m microbatches (with a pipeline, the schedule
// of PipelinedStep.cpp); what the communication stream still has to do
// when the last backward ends is the exposed sync. The optimizer updates
// and ZeRO 1-2's param gathers follow, exposed, with the step's fixed costs
// (`fixed_costs = priced`, summed apart): those of one chip's stage
// (with `param_gather = overlapped`, the gathers under the next step's
// forward, docs/cost-model.md §6.6).
//
// The pass first computes the stage partition (StagePartition.h), which
// the step, check-memory and the timeline all read.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "passes/Network.h"
#include "passes/Overlap.h"
#include "passes/StepBuilder.h"
#include <array>

using namespace shardc;

double shardc::runsPerStep(const Statement &St, int64_t Microbatches) {
  bool Every = St.Ph == Phase::Forward || St.Ph == Phase::Backward ||
               (St.Ph == Phase::Sync && St.From && St.From->EveryMicrobatch);
  return Every ? double(Microbatches) : 1;
}

StepBuilder::StepBuilder(const MeshCompile &C, DiagnosticEngine &D)
    : C(C), Diags(D), M(*C.lowered()), Train(*C.config().Train),
      Microbatches(Train.Microbatches),
      CommsPerStep(M.info().Statements.size(), 0.0) {
  S.Microbatches = Microbatches;
}

Versions StepBuilder::statement(unsigned St) {
  Versions V;
  const std::optional<OpCost> &Cost = C.Tables.StatementCosts[St];
  if (!Cost)
    return V;
  const Statement &Stmt = M.statement(St);
  double N = double(Stmt.Repeat), Mb = double(Microbatches);
  switch (Stmt.Ph) {
  case Phase::Forward:
    V = Versions::compute(Cost->Time);
    S.TFwd += Cost->Time * N;
    S.CastBytes += Cost->CastBytes * N;
    S.ModelFlops += 3 * Cost->UsefulFlops * N * Mb;
    ModelAtPeak += 3 * Cost->AtPeak * N * Mb;
    S.ModelFlopsCausalFull += 3 * Cost->FullCausalFlops * N * Mb;
    CausalFullAtPeak += 3 * Cost->FullCausalAtPeak * N * Mb;
    S.Hfu += Cost->HwAtPeak * N * Mb;
    break;
  case Phase::Backward:
    for (auto L : {0, 1}) {
      V.E[1][L] = StreamEffect::compute(Cost->FirstTime);
      V.E[0][L] = StreamEffect::compute(Cost->Time);
    }
    S.TBwd += Cost->Time * N;
    S.TBwdFirst += Cost->FirstTime * N;
    S.CastBytes += Cost->CastBytes * N;
    S.Hfu += Cost->HwAtPeak * N * Mb;
    break;
  case Phase::Sync: {
    bool Every = Stmt.From && Stmt.From->EveryMicrobatch;
    for (auto F : {0, 1})
      for (auto L : {0, 1})
        if (Every || L)
          V.E[F][L] = StreamEffect::sync(Cost->Time);
    break;
  }
  case Phase::Optimizer:
    break;
  }
  CommsPerStep[St] = Cost->TComms * N * runsPerStep(Stmt, Microbatches);
  return V;
}

Versions StepBuilder::block(const Block &B) {
  Versions V;
  unsigned Last = NoStmt;
  for (const auto &O : B.ops()) {
    if (auto *R = dyn_cast<RepeatOp>(O.get())) {
      V.then(block(R->body()).times(R->tripCount()));
      Last = NoStmt;
      continue;
    }
    // A statement's lowered ops are consecutive; its cost is theirs summed.
    if (O->stmt() == NoStmt || O->stmt() == Last)
      continue;
    Last = O->stmt();
    V.then(statement(Last));
  }
  return V;
}

StreamEffect StepBuilder::unpipelined() {
  Versions Mb = block(M.body());
  if (Microbatches == 1)
    return Mb.E[1][1];
  return Mb.E[1][0].then(Mb.E[0][0].times(Microbatches - 2)).then(Mb.E[0][1]);
}

void StepBuilder::chipShares(const StagePartition &Part) {
  unsigned P = Part.Stages;
  // Per stage, what its chips issue and update: each statement's per-step
  // time, shared out as the partition says.
  std::vector<double> Sync(P, 0), Opt(P, 0), Gather(P, 0), GatherShare(P, 0);
  std::vector<std::array<double, NumFixedCosts>> Fixed(P);
  std::vector<bool> Seen(CommsPerStep.size(), false);
  walk(M.body(), [&](const Op &O) {
    unsigned St = O.stmt();
    if (St == NoStmt || Seen[St])
      return;
    Seen[St] = true;
    const auto &Cost = C.Tables.StatementCosts[St];
    if (!Cost)
      return;
    const Statement &Stmt = M.statement(St);
    StageSide Side = Part.Side[St];
    double N = double(Stmt.Repeat), Runs = runsPerStep(Stmt, Microbatches);
    // The layers' collectives per step, averaged over the stages.
    if (Side == StageSide::Layers)
      CommsPerStep[St] = Cost->TComms * N / double(P) * Runs;
    bool Gathers = Stmt.From && Stmt.From->What == Provenance::Gather;
    // A tied param's copy on the last stage is synced and updated there too.
    auto Share = [&](unsigned Sg, double X) {
      return Stmt.From && Part.tiedCopy(Sg, Stmt.From->Stmt)
                 ? X
                 : Part.share(Sg, Side, X);
    };
    FixedCost FixedPart = fixedCostOf(Stmt.Kind);
    for (unsigned Sg = 0; Sg < P; ++Sg)
      if (Stmt.Ph == Phase::Sync)
        Sync[Sg] += Share(Sg, Cost->Time * N * Runs);
      else if (FixedPart != NotFixed)
        // The norm's AllReduce (no param's) blocks every stage's chips.
        Fixed[Sg][FixedPart] +=
            Stmt.From ? Share(Sg, Cost->Time * N) : Cost->Time * N;
      else if (Stmt.Ph == Phase::Optimizer) {
        (Gathers ? Gather : Opt)[Sg] += Share(Sg, Cost->Time * N);
        if (Gathers)
          GatherShare[Sg] += Share(Sg, Cost->Contention * N);
      }
  });
  // The chip of the stage that issues the most syncs; that updates the
  // most (the first stage's extra params or the last's, beside the
  // layers every stage has).
  unsigned Updates = 0;
  auto AfterSync = [&](unsigned Sg) {
    double T = Opt[Sg] + Gather[Sg];
    for (double F : Fixed[Sg])
      T += F;
    return T;
  };
  for (unsigned Sg = 0; Sg < P; ++Sg) {
    S.TSync = std::max(S.TSync, Sync[Sg]);
    if (AfterSync(Sg) > AfterSync(Updates))
      Updates = Sg;
  }
  tiedSync(Part);
  S.TOpt = Opt[Updates];
  for (unsigned F = 0; F < NumFixedCosts; ++F) {
    S.TFixedPart[F] = Fixed[Updates][F];
    S.TFixed += Fixed[Updates][F];
  }
  S.TParamGather = S.TParamGatherIssued = Gather[Updates];
  S.ParamGatherContention = GatherShare[Updates];
  // Each chip runs its stage's share: HFU is per chip, averaged.
  S.Hfu /= double(P);
}

/// docs/training.md: a tied param's two copies, on the first and the last
/// stage, sum their gradients after the backward with one exchange over
/// the pipeline axis: each end sends its gradient buffer to the other at
/// once (Megatron-LM's embedding-group AllReduce of two), priced as one
/// send of those bytes between neighbouring stages.
void StepBuilder::tiedSync(const StagePartition &Part) {
  if (!S.Pipeline)
    return;
  const MeshSpec &Mesh = C.mesh();
  for (const ParamInfo &P : C.Tables.Params)
    if (Part.tiedCopy(Part.Stages - 1, P.Stmt)) {
      S.TiedSyncBytes += P.GradBuffer.localBytes(Mesh);
      S.TiedParams.push_back(P.Stmt);
    }
  if (S.TiedParams.empty())
    return;
  S.TTiedSync =
      C.placements().placeSend(S.Pipeline->Axis, S.TiedSyncBytes).Time;
  S.TSync += S.TTiedSync;
}

/// COST-MODEL.md §6.5: the product of all but the last dim of the first
/// carried value, or of the first input when nothing is carried; and the
/// batch, its first dim (LANGUAGE.md §7: the program is one microbatch).
/// Token ids (an int32 input, `tok[B, S]`) have no feature dim: every dim
/// counts (docs/training.md).
static std::pair<double, double> tokensPerMicrobatch(const Module &M) {
  const Value *From = batchCountedOn(M);
  if (!From)
    return {0, 0};
  double Tokens = 1;
  const auto &Dims = From->type().Dims;
  size_t Counted = From->type().Elt == DType::int32 ? Dims.size()
                   : Dims.empty()                   ? 0
                                                    : Dims.size() - 1;
  for (size_t I = 0; I < Counted; ++I)
    Tokens *= double(Dims[I].Size);
  return {Tokens, Dims.empty() ? 0 : double(Dims.front().Size)};
}

void StepBuilder::finish(const StreamEffect &Step) {
  S.TPipe = Step.T;
  // With `sync = after_backward` a step's syncs run after its compute
  // (pipelined: the backlog is already that): D + T is their time.
  S.TSyncExposed = !Train.SyncAfterBackward || S.Pipeline ? Step.backlogAfter(0)
                                                          : Step.D + Step.T;
  S.TSyncExposed += S.TTiedSync; // after every other sync (tiedSync)
  // docs/cost-model.md §6.6: under the next step's forward, the gathers
  // add what the pair rule says.
  if (Train.ParamGatherOverlapped)
    S.TParamGather =
        overlapCharge(S.TParamGatherIssued, S.ParamGatherContention, S.TFwd);
  S.TStep = S.TPipe + S.TSyncExposed + S.TFixed + S.TOpt + S.TParamGather;
  auto [Tokens, Batch] = tokensPerMicrobatch(M);
  S.Tokens = Tokens * double(Microbatches);
  S.GlobalBatch = Batch * double(Microbatches);
  double Chips = double(C.mesh().numChips());
  if (S.TStep > 0) {
    S.TokensPerSecond = S.Tokens / S.TStep;
    S.Mfu = ModelAtPeak / (Chips * S.TStep);
    S.MfuCausalFull = CausalFullAtPeak / (Chips * S.TStep);
    S.Hfu /= S.TStep;
  }
  // A statement's collectives per step include its recomputation's: a
  // gather recomputed for the backward runs twice.
  const ProgramInfo &Info = M.info();
  std::vector<double> WithRecompute(CommsPerStep);
  for (size_t I = 0; I < Info.Statements.size(); ++I) {
    const std::optional<Provenance> &From = Info.Statements[I].From;
    if (From && From->What == Provenance::Recompute) {
      WithRecompute[From->Stmt] += WithRecompute[I];
      WithRecompute[I] = 0;
    }
  }
  for (size_t I = 0; I < WithRecompute.size(); ++I)
    if (WithRecompute[I] > S.CostliestCommsTime) {
      S.CostliestCommsTime = WithRecompute[I];
      S.CostliestComms = unsigned(I);
    }
}

namespace {

class ScheduleStep : public Pass {
public:
  llvm::StringRef name() const override { return "schedule-step"; }
  bool run(MeshCompile &C, DiagnosticEngine &D) override;
};

bool ScheduleStep::run(MeshCompile &C, DiagnosticEngine &D) {
  const auto &Train = C.config().Train;
  if (!Train)
    return true;
  C.Tables.Partition = partitionStages(C);
  const StagePartition &Part = *C.Tables.Partition;
  StepBuilder B(C, D);
  StreamEffect Step;
  if (Part.pipelined()) {
    Step = B.pipelined(Part);
    if (B.S.Pipeline && Train->ScatterGather &&
        B.S.Pipeline->SendGatherAxes.empty())
      D.report(Train->At, diag::ScatterGatherUnused,
               B.S.Stages <= 1 ? "the pipeline has one stage"
                               : "no value the stages send is replicated "
                                 "over an axis but the pipeline's");
  } else {
    if (Train->ScatterGather)
      D.report(Train->At, diag::ScatterGatherUnused,
               "the step has no pipeline ('repeat N over AXIS')");
    Step = B.unpipelined();
  }
  B.chipShares(Part);
  B.finish(Step);
  C.Tables.Step = std::move(B.S); // B is done: its slices move, not copy
  return !D.hasErrors();
}

} // namespace

std::unique_ptr<Pass> shardc::createScheduleStepPass() {
  return std::make_unique<ScheduleStep>();
}
