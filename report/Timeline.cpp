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
#include <cmath>

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

/// A statement run \c Times over in a row: once, unless the timeline is
/// aggregated and the statement is in a repeat.
struct Run {
  unsigned Stmt;
  int64_t Times = 1;
};
using Runs = std::vector<Run>;

int64_t satMul(int64_t A, int64_t B) {
  int64_t R;
  return __builtin_mul_overflow(A, B, &R) ? INT64_MAX : R;
}
int64_t satAdd(int64_t A, int64_t B) {
  int64_t R;
  return __builtin_add_overflow(A, B, &R) ? INT64_MAX : R;
}

/// The events \p Rs stands for when each run is drawn one by one.
int64_t eventsOf(const Runs &Rs) {
  int64_t N = 0;
  for (const Run &R : Rs)
    N = satAdd(N, R.Times);
  return N;
}

/// Appends the statements \p B runs, \p Times over, in order: a repeat's
/// body once per iteration, or, when \p Aggregate, once standing for all.
void statementsOf(const Block &B, int64_t Times, Runs &Out, bool Aggregate);

void statementsOf(llvm::ArrayRef<const Op *> Ops, int64_t Times, Runs &Out,
                  bool Aggregate) {
  unsigned Last = NoStmt;
  for (const Op *O : Ops) {
    if (auto *R = dyn_cast<RepeatOp>(O)) {
      if (Aggregate)
        statementsOf(R->body(), satMul(Times, R->tripCount()), Out, true);
      else
        statementsOf(R->body(), R->tripCount(), Out, false);
      Last = NoStmt;
      continue;
    }
    // A statement's lowered ops are consecutive. Inputs, params and
    // gradient seeds take no time.
    if (O->stmt() == NoStmt || O->stmt() == Last || isa<InputOp, ParamOp>(O))
      continue;
    Last = O->stmt();
    Out.push_back({Last, Aggregate ? Times : 1});
  }
}

void statementsOf(const Block &B, int64_t Times, Runs &Out, bool Aggregate) {
  std::vector<const Op *> Ops;
  for (const auto &O : B.ops())
    Ops.push_back(O.get());
  if (Aggregate)
    return statementsOf(Ops, Times, Out, true);
  for (int64_t I = 0; I < Times; ++I)
    statementsOf(Ops, 1, Out, false);
}

void statementsOf(llvm::ArrayRef<const Op *> Ops, Runs &Out, bool Aggregate) {
  statementsOf(Ops, 1, Out, Aggregate);
}

/// What (stage \p Sg, chunk \p Ch), virtual stage c·p + s of \p Q, runs
/// per microbatch: its layer iterations, and the first stage's or the
/// last's own pieces where it is that end.
void stageStatements(const StagePartition &Part, unsigned Sg, unsigned Ch,
                     int64_t Q, Runs &Fwd, Runs &Bwd, bool Agg) {
  int64_t Vq = int64_t(Ch) * Part.Stages + Sg;
  int64_t Layers = Part.pipelined() ? Part.layers(Sg, Ch) : 0;
  if (Vq == 0)
    statementsOf(Part.pieces(StepPart::Forward, StageSide::First), Fwd, Agg);
  if (Part.FwdLayers)
    statementsOf(Part.FwdLayers->body(), Layers, Fwd, Agg);
  if (Vq == Q - 1) {
    statementsOf(Part.pieces(StepPart::Forward, StageSide::Last), Fwd, Agg);
    statementsOf(Part.pieces(StepPart::Backward, StageSide::Last), Bwd, Agg);
  }
  if (Part.BwdLayers)
    statementsOf(Part.BwdLayers->body(), Layers, Bwd, Agg);
  if (Vq == 0)
    statementsOf(Part.pieces(StepPart::Backward, StageSide::First), Bwd, Agg);
}

/// A schedule slice to draw, standing for \c Count microbatches' (more than
/// one only in an aggregated step without a pipeline).
struct Drawn {
  PipelineSlice Sl;
  int64_t Count = 1;
};

class Builder {
public:
  Builder(const MeshCompile &C, int64_t EventLimit) : C(C), M(*C.lowered()) {
    T.EventLimit = EventLimit;
    // The step keeps the schedule's inputs, not its slices: simulated
    // again here, the same slices the step's times came from.
    if (const auto &S = C.Tables.Step; S && S->Pipeline)
      PipeSlices = simulatePipeline(S->Pipeline->Schedule, S->Microbatches,
                                    S->Pipeline->Times)
                       .Slices;
  }
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
  Runs optimizerRuns(const StagePartition &Part, unsigned Sg, bool Agg) const;
  void optimizer(const StagePartition &Part, double Start);
  /// Fills one schedule slice with its statements; returns where they end.
  double fill(const Drawn &D, const Runs &Stmts, int64_t Microbatches);
  std::vector<Drawn> slices(const StepSummary &S, const Runs &Fwd0,
                            const Runs &Bwd0) const;
  int64_t fullEvents(const StepSummary &S, const std::vector<Runs> &Fwd,
                     const std::vector<Runs> &Bwd) const;
  void spans(const StepSummary &S);

  const MeshCompile &C;
  const Module &M;
  std::vector<PipelineSlice> PipeSlices; ///< with a pipeline
  Timeline T;
  std::vector<double> CommFree; ///< per stage
};

Timeline Builder::forwardOnly() {
  Runs Stmts;
  statementsOf(M.body(), 1, Stmts, true);
  T.FullEvents = eventsOf(Stmts);
  T.Aggregated = T.FullEvents > T.EventLimit;
  if (!T.Aggregated) {
    Stmts.clear();
    statementsOf(M.body(), 1, Stmts, false);
  }
  double At = 0;
  for (const Run &R : Stmts) {
    TimelineSlice S;
    S.Stmt = R.Stmt;
    S.Runs = R.Times;
    S.Start = At;
    S.Duration = time(R.Stmt, false) * double(R.Times);
    add(S);
    At += S.Duration;
  }
  return std::move(T);
}

double Builder::fill(const Drawn &D, const Runs &Stmts, int64_t Microbatches) {
  const PipelineSlice &Sl = D.Sl;
  TimelineSlice Group;
  Group.What = TimelineSlice::Group;
  Group.Stage = Sl.Stage;
  Group.Microbatch = Sl.Microbatch;
  Group.Chunk = Sl.Chunk;
  Group.BackwardSlice = Sl.Backward;
  Group.Microbatches = D.Count;
  Group.Start = Sl.Start;
  Group.Duration = Sl.End - Sl.Start;
  add(Group);
  bool First = Sl.Microbatch == 0,
       Last = Sl.Microbatch + D.Count == Microbatches;
  double At = Sl.Start;
  for (const Run &R : Stmts) {
    const Statement &Stmt = M.statement(R.Stmt);
    TimelineSlice S = Group;
    S.Stmt = R.Stmt;
    S.Microbatches = 1;
    S.Runs = satMul(R.Times, D.Count);
    double Times = double(R.Times) * double(D.Count);
    if (Stmt.Ph == Phase::Sync) {
      // Issued now; it runs when the communication stream is free.
      bool Every = Stmt.From && Stmt.From->EveryMicrobatch;
      if (!Every && !Last)
        continue;
      if (!Every)
        Times = double(R.Times), S.Runs = R.Times;
      S.What = TimelineSlice::Sync;
      S.Comms = true;
      S.Start = std::max(At, CommFree[Sl.Stage]);
      S.Duration = time(R.Stmt, false) * Times;
      CommFree[Sl.Stage] = S.Start + S.Duration;
      add(S);
      continue;
    }
    S.What = Sl.Backward ? TimelineSlice::Backward : TimelineSlice::Forward;
    S.Start = At;
    S.Duration = time(R.Stmt, Sl.Backward && First) * Times;
    add(S);
    At += S.Duration;
  }
  return At;
}

Runs Builder::optimizerRuns(const StagePartition &Part, unsigned Sg,
                            bool Agg) const {
  Runs Stmts;
  if (Sg == 0)
    statementsOf(Part.pieces(StepPart::Optimizer, StageSide::First), Stmts,
                 Agg);
  if (Part.OptLayers)
    statementsOf(Part.OptLayers->body(), Part.stageLayers(Sg), Stmts, Agg);
  if (Sg == T.Stages - 1)
    statementsOf(Part.pieces(StepPart::Optimizer, StageSide::Last), Stmts, Agg);
  return Stmts;
}

/// The optimizer from \p Start, once the syncs are done (§6.5): each stage
/// updates its own params.
void Builder::optimizer(const StagePartition &Part, double Start) {
  for (unsigned Sg = 0; Sg < T.Stages; ++Sg) {
    double At = Start;
    for (const Run &R : optimizerRuns(Part, Sg, T.Aggregated)) {
      TimelineSlice O;
      O.What = TimelineSlice::Optimizer;
      O.Stage = Sg;
      O.Stmt = R.Stmt;
      O.Runs = R.Times;
      O.Start = At;
      O.Duration = time(R.Stmt, false) * double(R.Times);
      add(O);
      At += O.Duration;
    }
  }
}

/// The events a step drawn one by one has: a group, its statements and a
/// send per schedule slice, then the optimizer.
int64_t Builder::fullEvents(const StepSummary &S, const std::vector<Runs> &Fwd,
                            const std::vector<Runs> &Bwd) const {
  int64_t N = 0;
  if (S.Pipeline) {
    for (const PipelineSlice &Sl : PipeSlices) {
      int64_t Vq = int64_t(Sl.Chunk) * T.Stages + Sl.Stage;
      N = satAdd(N, satAdd(2, eventsOf(Sl.Backward ? Bwd[Vq] : Fwd[Vq])));
    }
  } else {
    int64_t PerMb = satAdd(2, satAdd(eventsOf(Fwd[0]), eventsOf(Bwd[0])));
    N = satMul(S.Microbatches, PerMb);
  }
  for (unsigned Sg = 0; Sg < T.Stages; ++Sg)
    N = satAdd(N, eventsOf(optimizerRuns(*C.Tables.Partition, Sg, true)));
  return N;
}

/// The schedule's slices to draw: simulated with a pipeline; otherwise
/// each microbatch's forward, then its backward. Aggregated, a pipeline's
/// first and last microbatches (spans() draws the others), or without one
/// the first, the middle ones as one, and the last.
std::vector<Drawn> Builder::slices(const StepSummary &S, const Runs &Fwd0,
                                   const Runs &Bwd0) const {
  std::vector<Drawn> Out;
  int64_t N = S.Microbatches;
  if (S.Pipeline) {
    for (const PipelineSlice &Sl : PipeSlices)
      if (!T.Aggregated || Sl.Microbatch == 0 || Sl.Microbatch == N - 1)
        Out.push_back({Sl, 1});
    return Out;
  }
  auto Add = [&](int64_t Mb, int64_t Count, double &At) {
    for (bool B : {false, true}) {
      double D = 0;
      for (const Run &R : B ? Bwd0 : Fwd0)
        if (M.statement(R.Stmt).Ph != Phase::Sync)
          D += time(R.Stmt, B && Mb == 0) * double(R.Times) * double(Count);
      Out.push_back({{0, 0, Mb, B, At, At + D}, Count});
      At += D;
    }
  };
  double At = 0;
  if (!T.Aggregated) {
    for (int64_t Mb = 0; Mb < N; ++Mb)
      Add(Mb, 1, At);
    return Out;
  }
  Add(0, 1, At);
  if (N > 2)
    Add(1, N - 2, At);
  if (N > 1)
    Add(N - 1, 1, At);
  return Out;
}

/// Aggregated with a pipeline: per stage, one span from the first middle
/// microbatch's slice to the last's, on its own thread.
void Builder::spans(const StepSummary &S) {
  int64_t N = S.Microbatches;
  if (!T.Aggregated || !S.Pipeline || N <= 2)
    return;
  std::vector<double> From(T.Stages, INFINITY), To(T.Stages, 0);
  for (const PipelineSlice &Sl : PipeSlices)
    if (Sl.Microbatch > 0 && Sl.Microbatch < N - 1) {
      From[Sl.Stage] = std::min(From[Sl.Stage], Sl.Start);
      To[Sl.Stage] = std::max(To[Sl.Stage], Sl.End);
    }
  for (unsigned Sg = 0; Sg < T.Stages; ++Sg) {
    TimelineSlice Span;
    Span.What = TimelineSlice::Group;
    Span.Stage = Sg;
    Span.Microbatch = 1;
    Span.Microbatches = N - 2;
    Span.Span = true;
    Span.Start = From[Sg];
    Span.Duration = To[Sg] - From[Sg];
    add(Span);
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
  // What each virtual stage runs per microbatch (COST-MODEL.md §6.3),
  // first aggregated to count the events, then one by one if they fit.
  std::vector<Runs> Fwd(Q), Bwd(Q);
  for (bool Agg : {true, false}) {
    for (int64_t Vq = 0; Vq < Q; ++Vq) {
      Fwd[Vq].clear(), Bwd[Vq].clear();
      stageStatements(Part, unsigned(Vq % P), unsigned(Vq / P), Q, Fwd[Vq],
                      Bwd[Vq], Agg);
    }
    if (Agg) {
      T.FullEvents = fullEvents(S, Fwd, Bwd);
      T.Aggregated = T.FullEvents > T.EventLimit;
      if (T.Aggregated)
        break;
    }
  }
  std::vector<Drawn> Slices = slices(S, Fwd[0], Bwd[0]);
  // With `sync = after_backward` a stage's syncs queue from its last
  // backward slice's end (ScheduleStep agrees).
  if (C.config().Train->SyncAfterBackward)
    for (const Drawn &D : Slices)
      if (D.Sl.Backward)
        CommFree[D.Sl.Stage] = std::max(CommFree[D.Sl.Stage], D.Sl.End);
  for (const Drawn &D : Slices) {
    const PipelineSlice &Sl = D.Sl;
    int64_t Vq = int64_t(Sl.Chunk) * P + Sl.Stage;
    double At = fill(D, Sl.Backward ? Bwd[Vq] : Fwd[Vq], S.Microbatches);
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
  spans(S);
  optimizer(*C.Tables.Partition, S.TPipe + S.TSyncExposed);
  return std::move(T);
}

} // namespace

Timeline shardc::buildTimeline(const MeshCompile &C, int64_t EventLimit) {
  return Builder(C, EventLimit).build();
}
