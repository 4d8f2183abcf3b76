//===- ScheduleStep.cpp - A training step on two streams ------------------===//
//
// COST-MODEL.md §6.1, §6.2, §6.4 and §6.5, into the Step table. One walk over
// the lowered training program turns each statement into a StreamEffect
// (Schedule.h): forward and backward statements are compute-stream work
// (their collectives attached, §4), a gradient sync is issued on the
// communication stream and overlaps what follows, a repeat is its body's
// effect N times. Four versions of one microbatch are built at once:
// whether it is the first (whose weight-gradient contractions do not read
// the buffer yet) and whether it is the last (when the once-per-step syncs
// of ZeRO 0 and 1 run; ZeRO 2 and FSDP syncs run in every microbatch). The
// step chains them over the m microbatches; what the communication stream
// still has to do when the last backward ends is the exposed sync. The
// optimizer updates and ZeRO 1-2's param gathers follow, exposed.
//
//===----------------------------------------------------------------------===//
#include "passes/Pipeline.h"
#include "passes/Schedule.h"

using namespace shardc;

namespace {

/// The four versions of a piece of one microbatch: [first][last].
struct Versions {
  StreamEffect E[2][2];
  void then(const Versions &O) {
    for (auto F : {0, 1})
      for (auto L : {0, 1})
        E[F][L] = E[F][L].then(O.E[F][L]);
  }
};

class ScheduleStep : public Pass {
public:
  llvm::StringRef name() const override { return "schedule-step"; }
  bool run(MeshCompile &C, DiagnosticEngine &) override;

private:
  Versions block(const Block &B);
  Versions statement(unsigned St);

  const MeshCompile *C = nullptr;
  const Module *M = nullptr;
  int64_t Microbatches = 1;
  StepSummary S;
  /// The model FLOPs' time at peak, each contraction at its own dtype's
  /// peak (as ProgramCost's MFU): MFU's numerator.
  double ModelAtPeak = 0;
  /// Per statement, its collectives' time in one step.
  std::vector<double> CommsPerStep;
};

Versions ScheduleStep::statement(unsigned St) {
  Versions V;
  const std::optional<OpCost> &Cost = C->Tables.StatementCosts[St];
  if (!Cost)
    return V;
  const Statement &Stmt = M->statement(St);
  double N = double(Stmt.Repeat), Mb = double(Microbatches);
  switch (Stmt.Ph) {
  case Phase::Forward:
    for (auto F : {0, 1})
      for (auto L : {0, 1})
        V.E[F][L] = StreamEffect::compute(Cost->Time);
    S.TFwd += Cost->Time * N;
    S.ModelFlops += 3 * Cost->ModelFlops * N * Mb;
    ModelAtPeak += 3 * Cost->ModelAtPeak * N * Mb;
    S.Hfu += Cost->HwAtPeak * N * Mb;
    CommsPerStep[St] = Cost->TComms * N * Mb;
    break;
  case Phase::Backward:
    for (auto L : {0, 1}) {
      V.E[1][L] = StreamEffect::compute(Cost->FirstTime);
      V.E[0][L] = StreamEffect::compute(Cost->Time);
    }
    S.TBwd += Cost->Time * N;
    S.TBwdFirst += Cost->FirstTime * N;
    S.Hfu += Cost->HwAtPeak * N * Mb;
    CommsPerStep[St] = Cost->TComms * N * Mb;
    break;
  case Phase::Sync: {
    bool Every = Stmt.From && Stmt.From->EveryMicrobatch;
    for (auto F : {0, 1})
      for (auto L : {0, 1})
        if (Every || L)
          V.E[F][L] = StreamEffect::sync(Cost->Time);
    double Runs = Every ? Mb : 1;
    S.TSync += Cost->Time * N * Runs;
    CommsPerStep[St] = Cost->TComms * N * Runs;
    break;
  }
  case Phase::Optimizer:
    if (Stmt.From && Stmt.From->What == Provenance::Gather)
      S.TParamGather += Cost->Time * N;
    else
      S.TOpt += Cost->Time * N;
    CommsPerStep[St] = Cost->TComms * N;
    break;
  }
  return V;
}

Versions ScheduleStep::block(const Block &B) {
  Versions V;
  unsigned Last = NoStmt;
  for (const auto &O : B.ops()) {
    if (auto *R = dyn_cast<RepeatOp>(O.get())) {
      Versions Body = block(R->body());
      for (auto F : {0, 1})
        for (auto L : {0, 1})
          Body.E[F][L] = Body.E[F][L].times(R->tripCount());
      V.then(Body);
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

/// COST-MODEL.md §6.5: the product of all but the last dim of the first
/// carried value, or of the first input when nothing is carried; and the
/// batch, its first dim (LANGUAGE.md §7: the program is one microbatch).
/// Token ids (an int32 input, `tok[B, S]`) have no feature dim: every dim
/// counts (docs/training.md).
std::pair<double, double> tokensPerMicrobatch(const Module &M) {
  const Value *From = nullptr;
  for (const auto &O : M.body().ops()) {
    if (auto *R = dyn_cast<RepeatOp>(O.get()); R && !R->carried().empty()) {
      From = R->carried().front().Init;
      break;
    }
    if (!From && isa<InputOp>(O.get()) &&
        M.statement(O->stmt()).Ph == Phase::Forward)
      From = O->result();
  }
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

bool ScheduleStep::run(MeshCompile &Compile, DiagnosticEngine &) {
  const auto &Train = Compile.config().Train;
  if (!Train)
    return true;
  C = &Compile;
  M = Compile.lowered();
  Microbatches = Train->Microbatches;
  S = StepSummary();
  ModelAtPeak = 0;
  S.Microbatches = Microbatches;
  CommsPerStep.assign(M->info().Statements.size(), 0.0);
  Versions Mb = block(M->body());
  StreamEffect Step;
  if (Microbatches == 1)
    Step = Mb.E[1][1];
  else
    Step = Mb.E[1][0].then(Mb.E[0][0].times(Microbatches - 2)).then(Mb.E[0][1]);
  S.TPipe = Step.T;
  S.TSyncExposed = Step.backlogAfter(0);
  S.TStep = S.TPipe + S.TSyncExposed + S.TOpt + S.TParamGather;
  auto [Tokens, Batch] = tokensPerMicrobatch(*M);
  S.Tokens = Tokens * double(Microbatches);
  S.GlobalBatch = Batch * double(Microbatches);
  double Chips = double(Compile.mesh().numChips());
  if (S.TStep > 0) {
    S.TokensPerSecond = S.Tokens / S.TStep;
    S.Mfu = ModelAtPeak / (Chips * S.TStep);
    S.Hfu /= S.TStep;
  }
  for (size_t I = 0; I < CommsPerStep.size(); ++I)
    if (CommsPerStep[I] > S.CostliestCommsTime) {
      S.CostliestCommsTime = CommsPerStep[I];
      S.CostliestComms = unsigned(I);
    }
  Compile.Tables.Step = S;
  return true;
}

} // namespace

std::unique_ptr<Pass> shardc::createScheduleStepPass() {
  return std::make_unique<ScheduleStep>();
}
