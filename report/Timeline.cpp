//===- Timeline.cpp - A step laid out in time -----------------------------===//
//
// Timeline.h: each slice of the schedule (a stage's forward or backward of
// one microbatch) is filled with its statements in program order, each
// taking its statement's time; a gradient sync goes on the communication
// stream when it is issued (the last microbatch's, or every microbatch's
// under ZeRO 2 and FSDP) and runs when that stream is free, as §6.1 says;
// a pipeline's send ends the slice. The optimizer follows the schedule.
// What each stage and chunk runs is the stage partition's (StagePartition.h),
// the one schedule-step priced.
//
//===----------------------------------------------------------------------===//
#include "report/Timeline.h"
#include "ir/Ops.h"

using namespace shardc;

llvm::StringRef shardc::timelineKindName(TimelineSlice::Kind K) {
  switch (K) {
  case TimelineSlice::Forward:
    return "forward";
  case TimelineSlice::Backward:
    return "backward";
  case TimelineSlice::Sync:
    return "sync";
  case TimelineSlice::Send:
    return "send";
  case TimelineSlice::Optimizer:
    return "optimizer";
  case TimelineSlice::Group:
    return "microbatch";
  }
  llvm_unreachable("every slice kind has a name");
}

namespace {

/// Appends the statements \p B runs, \p Times over, in order (a repeat's
/// body once per iteration).
void statementsOf(const Block &B, int64_t Times, std::vector<unsigned> &Out);

void statementsOf(llvm::ArrayRef<const Op *> Ops, std::vector<unsigned> &Out) {
  unsigned Last = NoStmt;
  for (const Op *O : Ops) {
    if (auto *R = dyn_cast<RepeatOp>(O)) {
      statementsOf(R->body(), R->tripCount(), Out);
      Last = NoStmt;
      continue;
    }
    // A statement's lowered ops are consecutive. Inputs, params and
    // gradient seeds take no time.
    if (O->stmt() == NoStmt || O->stmt() == Last || isa<InputOp, ParamOp>(O))
      continue;
    Last = O->stmt();
    Out.push_back(Last);
  }
}

void statementsOf(const Block &B, int64_t Times, std::vector<unsigned> &Out) {
  std::vector<const Op *> Ops;
  for (const auto &O : B.ops())
    Ops.push_back(O.get());
  for (int64_t I = 0; I < Times; ++I)
    statementsOf(Ops, Out);
}

/// What (stage \p Sg, chunk \p Ch), virtual stage c·p + s of \p Q, runs
/// per microbatch: its layer iterations, and the first stage's or the
/// last's own pieces where it is that end.
void stageStatements(const StagePartition &Part, unsigned Sg, unsigned Ch,
                     int64_t Q, std::vector<unsigned> &Fwd,
                     std::vector<unsigned> &Bwd) {
  int64_t Vq = int64_t(Ch) * Part.Stages + Sg;
  int64_t Layers = Part.pipelined() ? Part.layers(Sg, Ch) : 0;
  if (Vq == 0)
    statementsOf(Part.pieces(StepPart::Forward, StageSide::First), Fwd);
  if (Part.FwdLayers)
    statementsOf(Part.FwdLayers->body(), Layers, Fwd);
  if (Vq == Q - 1) {
    statementsOf(Part.pieces(StepPart::Forward, StageSide::Last), Fwd);
    statementsOf(Part.pieces(StepPart::Backward, StageSide::Last), Bwd);
  }
  if (Part.BwdLayers)
    statementsOf(Part.BwdLayers->body(), Layers, Bwd);
  if (Vq == 0)
    statementsOf(Part.pieces(StepPart::Backward, StageSide::First), Bwd);
}

class Builder {
public:
  explicit Builder(const MeshCompile &C) : C(C), M(*C.lowered()) {}
  Timeline build();

private:
  double time(unsigned St, bool First) const {
    const auto &Cost = C.Tables.StatementCosts[St];
    return !Cost ? 0 : First ? Cost->FirstTime : Cost->Time;
  }
  void add(TimelineSlice S) {
    T.End = std::max(T.End, S.Start + S.Duration);
    T.Slices.push_back(S);
  }
  Timeline forwardOnly();
  void optimizer(const StagePartition &Part, double Start);
  /// Fills one schedule slice with its statements; returns where they end.
  double fill(const PipelineSlice &Sl, llvm::ArrayRef<unsigned> Stmts,
              int64_t Microbatches);

  const MeshCompile &C;
  const Module &M;
  Timeline T;
  std::vector<double> CommFree; ///< per stage
};

Timeline Builder::forwardOnly() {
  std::vector<unsigned> Stmts;
  statementsOf(M.body(), 1, Stmts);
  double At = 0;
  for (unsigned St : Stmts) {
    TimelineSlice S;
    S.Stmt = St;
    S.Start = At;
    S.Duration = time(St, false);
    add(S);
    At += S.Duration;
  }
  return std::move(T);
}

double Builder::fill(const PipelineSlice &Sl, llvm::ArrayRef<unsigned> Stmts,
                     int64_t Microbatches) {
  TimelineSlice Group;
  Group.What = TimelineSlice::Group;
  Group.Stage = Sl.Stage;
  Group.Microbatch = Sl.Microbatch;
  Group.Chunk = Sl.Chunk;
  Group.BackwardSlice = Sl.Backward;
  Group.Start = Sl.Start;
  Group.Duration = Sl.End - Sl.Start;
  add(Group);
  bool First = Sl.Microbatch == 0, Last = Sl.Microbatch == Microbatches - 1;
  double At = Sl.Start;
  for (unsigned St : Stmts) {
    const Statement &Stmt = M.statement(St);
    TimelineSlice S = Group;
    S.Stmt = St;
    if (Stmt.Ph == Phase::Sync) {
      // Issued now; it runs when the communication stream is free.
      bool Every = Stmt.From && Stmt.From->EveryMicrobatch;
      if (!Every && !Last)
        continue;
      S.What = TimelineSlice::Sync;
      S.Comms = true;
      S.Start = std::max(At, CommFree[Sl.Stage]);
      S.Duration = time(St, false);
      CommFree[Sl.Stage] = S.Start + S.Duration;
      add(S);
      continue;
    }
    S.What = Sl.Backward ? TimelineSlice::Backward : TimelineSlice::Forward;
    S.Start = At;
    S.Duration = time(St, Sl.Backward && First);
    add(S);
    At += S.Duration;
  }
  return At;
}

/// The optimizer from \p Start, once the syncs are done (§6.5): each stage
/// updates its own params.
void Builder::optimizer(const StagePartition &Part, double Start) {
  for (unsigned Sg = 0; Sg < T.Stages; ++Sg) {
    std::vector<unsigned> Stmts;
    if (Sg == 0)
      statementsOf(Part.pieces(StepPart::Optimizer, StageSide::First), Stmts);
    if (Part.OptLayers)
      statementsOf(Part.OptLayers->body(), Part.stageLayers(Sg), Stmts);
    if (Sg == T.Stages - 1)
      statementsOf(Part.pieces(StepPart::Optimizer, StageSide::Last), Stmts);
    double At = Start;
    for (unsigned St : Stmts) {
      TimelineSlice O;
      O.What = TimelineSlice::Optimizer;
      O.Stage = Sg;
      O.Stmt = St;
      O.Start = At;
      O.Duration = time(St, false);
      add(O);
      At += O.Duration;
    }
  }
}

Timeline Builder::build() {
  const auto &Step = C.Tables.Step;
  if (!Step)
    return forwardOnly();
  const StepSummary &S = *Step;
  const StagePartition &Part = *C.Tables.Partition;
  const auto &PI = S.Pipeline;
  unsigned P = unsigned(S.Stages);
  int64_t Q = int64_t(P) * (PI ? PI->Chunks : 1);
  T.Stages = P;
  CommFree.assign(P, 0);
  // What each virtual stage runs per microbatch (COST-MODEL.md §6.3).
  std::vector<std::vector<unsigned>> Fwd(Q), Bwd(Q);
  for (int64_t Vq = 0; Vq < Q; ++Vq)
    stageStatements(Part, unsigned(Vq % P), unsigned(Vq / P), Q, Fwd[Vq],
                    Bwd[Vq]);
  // The schedule's slices: simulated with a pipeline; otherwise each
  // microbatch's forward, then its backward.
  std::vector<PipelineSlice> Slices;
  if (PI) {
    Slices = PI->Slices;
  } else {
    double At = 0;
    for (int64_t Mb = 0; Mb < S.Microbatches; ++Mb)
      for (bool B : {false, true}) {
        double D = 0;
        for (unsigned St : B ? Bwd[0] : Fwd[0])
          if (M.statement(St).Ph != Phase::Sync)
            D += time(St, B && Mb == 0);
        Slices.push_back({0, 0, Mb, B, At, At + D});
        At += D;
      }
  }
  // With `sync = after_backward` a stage's syncs queue from its last
  // backward slice's end (ScheduleStep agrees).
  if (C.config().Train->SyncAfterBackward)
    for (const PipelineSlice &Sl : Slices)
      if (Sl.Backward)
        CommFree[Sl.Stage] = std::max(CommFree[Sl.Stage], Sl.End);
  for (const PipelineSlice &Sl : Slices) {
    int64_t Vq = int64_t(Sl.Chunk) * P + Sl.Stage;
    double At = fill(Sl, Sl.Backward ? Bwd[Vq] : Fwd[Vq], S.Microbatches);
    // A pipeline's send ends the slice: forward to the next virtual stage,
    // the gradient back to the previous one.
    if (PI && (Sl.Backward ? Vq > 0 : Vq + 1 < Q)) {
      TimelineSlice Send;
      Send.What = TimelineSlice::Send;
      Send.Stage = Sl.Stage;
      Send.Microbatch = Sl.Microbatch;
      Send.Chunk = Sl.Chunk;
      Send.BackwardSlice = Sl.Backward;
      Send.Start = At;
      Send.Duration = Sl.Backward ? PI->SendBwd : PI->SendFwd;
      add(Send);
    }
  }
  optimizer(*C.Tables.Partition, S.TPipe + S.TSyncExposed);
  return std::move(T);
}

} // namespace

Timeline shardc::buildTimeline(const MeshCompile &C) {
  return Builder(C).build();
}
