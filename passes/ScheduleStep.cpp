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
// step chains them over the m microbatches; what the communication stream
// still has to do when the last backward ends is the exposed sync. The
// optimizer updates and ZeRO 1-2's param gathers follow, exposed.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "passes/Pipeline.h"
#include "passes/Schedule.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"

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
  bool run(MeshCompile &C, DiagnosticEngine &D) override;

private:
  Versions block(const Block &B);
  Versions statement(unsigned St);
  /// COST-MODEL.md §6.3: the step of a program with pipelined repeats
  /// \p Fwd (the forward's) and \p Bwd (its backward).
  StreamEffect pipelined(const RepeatOp &Fwd, const RepeatOp &Bwd);
  /// The optimizer's time (updates, gathers) of one run of \p B.
  std::pair<double, double> optimizerTime(const Block &B) const;

  const MeshCompile *C = nullptr;
  DiagnosticEngine *Diags = nullptr;
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

std::pair<double, double> ScheduleStep::optimizerTime(const Block &B) const {
  double Opt = 0, Gather = 0;
  unsigned Last = NoStmt;
  for (const auto &O : B.ops()) {
    if (auto *R = dyn_cast<RepeatOp>(O.get())) {
      auto [O2, G2] = optimizerTime(R->body());
      Opt += O2 * double(R->tripCount());
      Gather += G2 * double(R->tripCount());
      continue;
    }
    if (O->stmt() == NoStmt || O->stmt() == Last)
      continue;
    Last = O->stmt();
    const Statement &Stmt = M->statement(Last);
    const auto &Cost = C->Tables.StatementCosts[Last];
    if (Stmt.Ph != Phase::Optimizer || !Cost)
      continue;
    (Stmt.From && Stmt.From->What == Provenance::Gather ? Gather : Opt) +=
        Cost->Time;
  }
  return {Opt, Gather};
}

/// The phase of the first statement in \p B: which part of the step a
/// repeat is.
static std::optional<Phase> firstPhase(const Module &M, const Block &B) {
  std::optional<Phase> Ph;
  walk(B, [&](const Op &In) {
    if (!Ph && In.stmt() != NoStmt)
      Ph = M.statement(In.stmt()).Ph;
  });
  return Ph;
}

/// The pipelined repeats of \p M's top level: the forward's and its
/// backward's (derive-backward keeps the axis on both).
static std::pair<const RepeatOp *, const RepeatOp *>
pipelinedRepeats(const Module &M) {
  const RepeatOp *Fwd = nullptr, *Bwd = nullptr;
  for (const auto &O : M.body().ops()) {
    auto *R = dyn_cast<RepeatOp>(O.get());
    if (!R || !R->pipelineAxis())
      continue;
    std::optional<Phase> Ph = firstPhase(M, R->body());
    if (Ph == Phase::Forward && !Fwd)
      Fwd = R;
    else if ((Ph == Phase::Backward || Ph == Phase::Sync) && !Bwd)
      Bwd = R;
  }
  return {Fwd, Bwd};
}

StreamEffect ScheduleStep::pipelined(const RepeatOp &RF, const RepeatOp &RB) {
  const MeshSpec &Mesh = C->mesh();
  AxisId Axis = *RF.pipelineAxis();
  unsigned P = unsigned(Mesh.Axes[Axis].Size);
  const TrainConfig &Train = *C->config().Train;
  int64_t V =
      Train.Schedule == PipelineSchedule::Interleaved ? Train.Chunks : 1;
  int64_t PerChunk = RF.tripCount() / (int64_t(P) * V);
  // The params before the pipeline live on the first stage, after it on
  // the last (LANGUAGE.md §9).
  llvm::DenseSet<unsigned> PreParams;
  for (const auto &O : M->body().ops()) {
    if (O.get() == &RF)
      break;
    if (isa<ParamOp>(O.get()))
      PreParams.insert(O->stmt());
  }
  // The top level in pieces: before, in and after each pipelined repeat.
  Versions FPre, FBody, FPost, BPost, BBody, BPre;
  double OptPre = 0, OptPost = 0, GatherPre = 0, GatherPost = 0;
  std::pair<double, double> OptBody;
  int Part = 0; // 0: before the forward's repeat, 1: before the backward's
  unsigned Last = NoStmt;
  StepSummary::Pieces &Pc = S.Program;
  Pc.FwdBody = &RF;
  Pc.BwdBody = &RB;
  // The syncs of what runs on the first stage only and on the last only:
  // a chip issues its own stage's (below).
  double SyncFirst = 0, SyncLast = 0;
  for (const auto &O : M->body().ops()) {
    double SyncBefore = S.TSync;
    auto SyncSide = llvm::make_scope_exit([&] {
      if (O.get() != &RF && O.get() != &RB)
        (Part < 2 ? SyncLast : SyncFirst) += S.TSync - SyncBefore;
    });
    if (auto *R = dyn_cast<RepeatOp>(O.get())) {
      Last = NoStmt;
      if (R == &RF) {
        FBody = block(R->body());
        Part = 1;
        continue;
      }
      if (R == &RB) {
        BBody = block(R->body());
        Part = 2;
        continue;
      }
      std::optional<Phase> Ph = firstPhase(*M, R->body());
      if (Ph == Phase::Optimizer) {
        // The updates of the stages' params, or (another repeat's) of the
        // first stage's.
        std::pair<double, double> T = optimizerTime(R->body());
        block(R->body());
        if (R->pipelineAxis()) {
          OptBody = T;
          Pc.OptBody = R;
        } else {
          OptPre += T.first * double(R->tripCount());
          GatherPre += T.second * double(R->tripCount());
          Pc.OptFirst.push_back(R);
        }
        continue;
      }
      Versions Body = block(R->body());
      for (auto F : {0, 1})
        for (auto L : {0, 1})
          Body.E[F][L] = Body.E[F][L].times(R->tripCount());
      bool Fwd = Ph == Phase::Forward;
      (Fwd ? (Part == 0 ? FPre : FPost) : (Part < 2 ? BPost : BPre)).then(Body);
      (Fwd ? (Part == 0 ? Pc.FwdFirst : Pc.FwdLast)
           : (Part < 2 ? Pc.BwdLast : Pc.BwdFirst))
          .push_back(R);
      continue;
    }
    if (O->stmt() == NoStmt || O->stmt() == Last)
      continue;
    Last = O->stmt();
    const Statement &Stmt = M->statement(Last);
    Versions V = statement(Last);
    switch (Stmt.Ph) {
    case Phase::Forward:
      (Part == 0 ? FPre : FPost).then(V);
      (Part == 0 ? Pc.FwdFirst : Pc.FwdLast).push_back(O.get());
      break;
    case Phase::Backward:
    case Phase::Sync:
      (Part < 2 ? BPost : BPre).then(V);
      (Part < 2 ? Pc.BwdLast : Pc.BwdFirst).push_back(O.get());
      break;
    case Phase::Optimizer: {
      const auto &Cost = C->Tables.StatementCosts[Last];
      double T = Cost ? Cost->Time : 0;
      bool Pre = Stmt.From && PreParams.count(Stmt.From->Stmt);
      bool Gather = Stmt.From && Stmt.From->What == Provenance::Gather;
      (Gather ? (Pre ? GatherPre : GatherPost) : (Pre ? OptPre : OptPost)) += T;
      (Pre ? Pc.OptFirst : Pc.OptLast).push_back(O.get());
      break;
    }
    }
  }
  // The sends: each stage's carried values forward, their gradients back.
  // With `scatter_gather`, a value replicated over axes other than the
  // pipeline's is sent 1/r per chip and AllGathered over them on arrival.
  PlacementCoefficients Send = computeSendCoefficients(Mesh, Axis);
  StepSummary::PipelineInfo PI;
  AxisSet AllAxes;
  for (AxisId A = 0; A < Mesh.Axes.size(); ++A)
    AllAxes.insert(A);
  auto SendTime = [&](llvm::ArrayRef<const Value *> Values) {
    double Bytes = 0, Gathers = 0;
    for (const Value *Vl : Values) {
      const ShardType &T = Vl->type();
      double Local = T.localBytes(Mesh);
      AxisSet Split;
      // One stage has no boundary to send across.
      if (Train.ScatterGather && T.Unreduced.empty() && P > 1) {
        Split = AllAxes.without(T.axesUsed());
        Split.erase(Axis);
        for (AxisId A : Split.list())
          if (Mesh.Axes[A].Size == 1)
            Split.erase(A); // nothing to split over
      }
      int64_t R = axesProduct(Split, Mesh);
      if (R <= 1) {
        Bytes += Local;
        continue;
      }
      PI.SendGatherAxes = PI.SendGatherAxes | Split;
      Bytes += Local / double(R);
      llvm::SmallVector<unsigned, 4> Axes;
      for (AxisId A : Split.list())
        Axes.push_back(A);
      Gathers +=
          placeCollective(Mesh, CollectiveKind::AllGather, Axes, Local).Time;
    }
    return priceCoefficients(*Mesh.Cluster, Send, Bytes).Time + Gathers;
  };
  llvm::SmallVector<const Value *, 4> FwdValues, BwdValues;
  for (const RepeatOp::Carried &Cv : RF.carried())
    FwdValues.push_back(Cv.Init);
  for (size_t I = 0; I < RB.carried().size() && I < RF.carried().size(); ++I)
    BwdValues.push_back(RB.carried()[I].Init);
  PI.Axis = Axis;
  PI.Schedule = V > 1 ? PipelineSchedule::Interleaved : Train.Schedule;
  if (PI.Schedule == PipelineSchedule::Interleaved && V == 1)
    PI.Schedule = PipelineSchedule::OneFOneB; // one chunk: plain 1F1B
  PI.Chunks = V;
  PI.SendFwd = SendTime(FwdValues);
  PI.SendBwd = SendTime(BwdValues);
  // Each (stage, chunk): virtual stage c·p + s runs iterations
  // [(c·p + s)·k, (c·p + s + 1)·k) of the N, k = N / (p·v).
  PipelineTimes Times;
  Times.Fwd.assign(P, std::vector<double>(V, 0));
  Times.Bwd = Times.BwdFirst = Times.Fwd;
  // Each (stage, chunk)'s backward, in its four versions: the syncs it
  // issues run on the communication stream across the schedule's slices.
  std::vector<std::vector<Versions>> BwdOf(P, std::vector<Versions>(V));
  int64_t Q = int64_t(P) * V;
  for (unsigned Sg = 0; Sg < P; ++Sg)
    for (int64_t Ch = 0; Ch < V; ++Ch) {
      int64_t Vq = Ch * P + Sg;
      Versions F, B, Body = FBody, BBodyN = BBody;
      for (auto Fi : {0, 1})
        for (auto L : {0, 1}) {
          Body.E[Fi][L] = Body.E[Fi][L].times(PerChunk);
          BBodyN.E[Fi][L] = BBodyN.E[Fi][L].times(PerChunk);
        }
      if (Vq == 0)
        F.then(FPre);
      F.then(Body);
      if (Vq == Q - 1) {
        F.then(FPost);
        B.then(BPost);
      }
      B.then(BBodyN);
      if (Vq == 0)
        B.then(BPre);
      Versions SendF, SendB;
      for (auto Fi : {0, 1})
        for (auto L : {0, 1}) {
          SendF.E[Fi][L] = StreamEffect::compute(PI.SendFwd);
          SendB.E[Fi][L] = StreamEffect::compute(PI.SendBwd);
        }
      if (Vq + 1 < Q)
        F.then(SendF);
      if (Vq > 0)
        B.then(SendB);
      Times.Fwd[Sg][Ch] = F.E[0][0].T;
      Times.Bwd[Sg][Ch] = B.E[0][0].T;
      Times.BwdFirst[Sg][Ch] = B.E[1][0].T;
      BwdOf[Sg][Ch] = B;
    }
  PipelineRun Run = simulatePipeline(PI.Schedule, Microbatches, Times);
  if (!Run.Complete) {
    Diags->report(Train.At, diag::ScheduleInternal,
                  scheduleName(PI.Schedule).str(), Microbatches, int64_t(P));
    return {};
  }
  // The communication stream of each stage through its backward slices:
  // a slice's syncs (every microbatch's under ZeRO 2 and FSDP, the last's
  // otherwise) queue behind what the stream still has from earlier ones.
  // With `sync = after_backward` a stage's syncs wait for its last backward
  // slice (Megatron-LM's data-parallel AllReduce after the flush), one
  // after another on its communication stream.
  bool After = C->config().Train->SyncAfterBackward;
  double SyncEnd = Run.Makespan;
  std::vector<double> CommFree(P, 0);
  if (After)
    for (const PipelineSlice &Sl : Run.Slices)
      if (Sl.Backward)
        CommFree[Sl.Stage] = std::max(CommFree[Sl.Stage], Sl.End);
  for (const PipelineSlice &Sl : Run.Slices) {
    if (!Sl.Backward)
      continue;
    const StreamEffect &E =
        BwdOf[Sl.Stage][Sl.Chunk]
            .E[Sl.Microbatch == 0][Sl.Microbatch == Microbatches - 1];
    double Backlog = std::max(0.0, CommFree[Sl.Stage] - Sl.Start);
    CommFree[Sl.Stage] = After ? CommFree[Sl.Stage] + E.D + E.T // its syncs
                               : Sl.End + E.backlogAfter(Backlog);
    SyncEnd = std::max(SyncEnd, CommFree[Sl.Stage]);
  }
  // t_f and t_b are one stage's: the slowest's, not the whole model's.
  S.TFwd = S.TBwd = S.TBwdFirst = 0;
  for (unsigned Sg = 0; Sg < P; ++Sg) {
    double Fw = 0, Bw = 0, BwFirst = 0;
    for (int64_t Ch = 0; Ch < V; ++Ch) {
      Fw += Times.Fwd[Sg][Ch];
      Bw += Times.Bwd[Sg][Ch];
      BwFirst += Times.BwdFirst[Sg][Ch];
    }
    PI.StageFwd.push_back(Fw);
    PI.StageBwd.push_back(Bw);
    if (Fw + Bw > S.TFwd + S.TBwd) {
      S.TFwd = Fw;
      S.TBwd = Bw;
      S.TBwdFirst = BwFirst;
    }
    if (Run.Busy[Sg] > Run.Busy[PI.SlowestStage])
      PI.SlowestStage = Sg;
  }
  PI.Bubble =
      Run.Makespan > 0 ? 1 - Run.Busy[PI.SlowestStage] / Run.Makespan : 0;
  PI.Slices = std::move(Run.Slices);
  int64_t PerStage = RF.tripCount() / P;
  // The optimizer of the stage with the most to update: the first's extra
  // params or the last's, beside the layers every stage has.
  if (P == 1) {
    OptPre += OptPost;
    GatherPre += GatherPost;
  } else if (OptPost + GatherPost > OptPre + GatherPre) {
    OptPre = OptPost;
    GatherPre = GatherPost;
  }
  S.TOpt = OptBody.first * double(PerStage) + OptPre;
  S.TParamGather = OptBody.second * double(PerStage) + GatherPre;
  S.Stages = P;
  S.Pipeline = std::move(PI);
  // Each chip runs its stage's share: HFU and the collectives per step are
  // per chip, averaged over the stages.
  S.Hfu /= double(P);
  llvm::DenseSet<unsigned> Done;
  for (const RepeatOp *R : {&RF, &RB, Pc.OptBody})
    if (R)
      walk(R->body(), [&](const Op &O) {
        if (O.stmt() == NoStmt || !Done.insert(O.stmt()).second)
          return;
        const auto &Cost = C->Tables.StatementCosts[O.stmt()];
        const Statement &St = M->statement(O.stmt());
        bool Every =
            (St.Ph == Phase::Forward || St.Ph == Phase::Backward) ||
            (St.Ph == Phase::Sync && St.From && St.From->EveryMicrobatch);
        double Runs = Every ? double(Microbatches) : 1;
        CommsPerStep[O.stmt()] = 0;
        if (!Cost)
          return;
        CommsPerStep[O.stmt()] =
            Cost->TComms * double(St.Repeat) / double(P) * Runs;
        // The syncs a chip issues: its stage's share of the layers.
        if (St.Ph == Phase::Sync)
          S.TSync -=
              Cost->Time * double(St.Repeat) * Runs * (1 - 1 / double(P));
      });
  // ... and the first or the last stage's own, whichever issues more: the
  // other end's are another chip's (one stage is both ends).
  if (P > 1)
    S.TSync -= std::min(SyncFirst, SyncLast);
  // What the step needs of the makespan and the syncs: a piece of
  // Makespan compute time leaving the syncs' overrun as backlog.
  StreamEffect Step = StreamEffect::compute(Run.Makespan);
  Step.K = SyncEnd - Run.Makespan;
  return Step;
}

bool ScheduleStep::run(MeshCompile &Compile, DiagnosticEngine &D) {
  Diags = &D;
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
  StreamEffect Step;
  if (auto [Fwd, Bwd] = pipelinedRepeats(*M); Fwd && Bwd) {
    Step = pipelined(*Fwd, *Bwd);
    if (S.Pipeline && Train->ScatterGather &&
        S.Pipeline->SendGatherAxes.empty())
      D.report(Train->At, diag::ScatterGatherUnused,
               S.Stages <= 1 ? "the pipeline has one stage"
                             : "no value the stages send is replicated over "
                               "an axis but the pipeline's");
  } else {
    if (Train->ScatterGather)
      D.report(Train->At, diag::ScatterGatherUnused,
               "the step has no pipeline ('repeat N over AXIS')");
    // One stage: every piece is the first stage's.
    StepSummary::Pieces &Pc = S.Program;
    for (const auto &O : M->body().ops()) {
      const auto *R = dyn_cast<RepeatOp>(O.get());
      std::optional<Phase> Ph = R ? firstPhase(*M, R->body())
                                : O->stmt() != NoStmt
                                    ? std::optional(M->statement(O->stmt()).Ph)
                                    : std::nullopt;
      if (!Ph)
        continue;
      (*Ph == Phase::Forward     ? Pc.FwdFirst
       : *Ph == Phase::Optimizer ? Pc.OptFirst
                                 : Pc.BwdFirst)
          .push_back(O.get());
    }
    Versions Mb = block(M->body());
    if (Microbatches == 1)
      Step = Mb.E[1][1];
    else
      Step =
          Mb.E[1][0].then(Mb.E[0][0].times(Microbatches - 2)).then(Mb.E[0][1]);
  }
  S.TPipe = Step.T;
  // With `sync = after_backward` a step's syncs run after its compute
  // (pipelined: the backlog is already that): D + T is their time.
  S.TSyncExposed = !Train->SyncAfterBackward || S.Pipeline
                       ? Step.backlogAfter(0)
                       : Step.D + Step.T;
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
  // A statement's collectives per step include its recomputation's: a
  // gather recomputed for the backward runs twice.
  const ProgramInfo &Info = M->info();
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
  Compile.Tables.Step = S;
  return !D.hasErrors();
}

} // namespace

std::unique_ptr<Pass> shardc::createScheduleStepPass() {
  return std::make_unique<ScheduleStep>();
}
