//===- PipelinedStep.cpp - A training step on a pipeline ------------------===//
//
// COST-MODEL.md §6.3: the step of a program with pipelined repeats, on the
// stages and chunks of its StagePartition. The steps:
//  1. stagePieces: one walk over the step in program order gives each piece
//     its four versions (StepBuilder.h), summed by the side it runs on (the
//     first stage's, the last's) and, for the layers, one iteration's.
//  2. pipelineInfo, sendTime: the schedule and one boundary's send each
//     way (with `scatter_gather`, split over and gathered back over the
//     axes a value is replicated on).
//  3. chunkTimes: each (stage, chunk)'s forward and backward of one
//     microbatch: its own layer iterations, the first's or the last's
//     pieces where it is that end, and its send.
//  4. simulatePipeline (PipelineSchedule.cpp): the schedule's slices.
//  5. CommStream: when each stage's communication stream is done with
//     the syncs its backward slices issued (fed during step 4).
//  6. slowestStage: t_f and t_b of the stage with the most work; the bubble.
// What one chip issues and updates per step is StepBuilder::chipShares
// (ScheduleStep.cpp), from the same partition.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "passes/StepBuilder.h"

using namespace shardc;

namespace {

/// Step 1's sums: [0] the first stage's own, [1] the last's.
struct StagePieces {
  Versions Fwd[2], Bwd[2];
  Versions FwdLayer, BwdLayer; ///< one iteration of the layers
};

StagePieces stagePieces(StepBuilder &B, const StagePartition &Part) {
  StagePieces Pc;
  unsigned Last = NoStmt;
  for (const auto &O : B.M.body().ops()) {
    Versions V;
    auto *R = dyn_cast<RepeatOp>(O.get());
    if (R) {
      Last = NoStmt;
      V = B.block(R->body());
      if (R == Part.FwdLayers || R == Part.BwdLayers) {
        (R == Part.FwdLayers ? Pc.FwdLayer : Pc.BwdLayer) = V;
        continue;
      }
      V = V.times(R->tripCount());
    } else {
      // A statement's lowered ops are consecutive: one effect for them.
      if (O->stmt() == NoStmt || O->stmt() == Last)
        continue;
      Last = O->stmt();
      V = B.statement(Last);
    }
    unsigned St = pieceStmt(*O);
    if (St == NoStmt)
      continue;
    bool AtLast = Part.side(*O) == StageSide::Last;
    switch (stepPart(B.M.statement(St).Ph)) {
    case StepPart::Forward:
      Pc.Fwd[AtLast].then(V);
      break;
    case StepPart::Backward:
      Pc.Bwd[AtLast].then(V);
      break;
    case StepPart::Optimizer: // after the schedule: chipShares
      break;
    }
  }
  return Pc;
}

/// Σ comm_sm_share x time of \p P: the share of the outermost level whose
/// links it uses.
double contention(const MeshSpec &Mesh, const CollectivePlacement &P) {
  std::optional<unsigned> Outer;
  for (const LevelTraffic &L : P.Levels)
    if (L.Bytes > 0 && (!Outer || L.Level > *Outer))
      Outer = L.Level;
  return Outer ? Mesh.Cluster->Levels[*Outer].Calibration.CommSmShare * P.Time
               : 0;
}

/// Step 2: the time of sending \p Values across one stage boundary, and
/// its contention (docs/cost-model.md §6.6) in \p Contention.
double sendTime(const StepBuilder &B, llvm::ArrayRef<const Value *> Values,
                unsigned Stages, StepSummary::PipelineInfo &PI,
                double &Contention) {
  const MeshSpec &Mesh = B.C.mesh();
  PlacementCache &Net = B.C.placements();
  AxisSet AllAxes;
  for (AxisId A = 0; A < Mesh.Axes.size(); ++A)
    AllAxes.insert(A);
  double Bytes = 0, Gathers = 0;
  for (const Value *Vl : Values) {
    const ShardType &T = Vl->type();
    double Local = T.localBytes(Mesh);
    AxisSet Split;
    // One stage has no boundary to send across.
    if (B.Train.ScatterGather && T.Unreduced.empty() && Stages > 1) {
      Split = AllAxes.without(T.axesUsed());
      Split.erase(PI.Axis);
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
    CollectivePlacement G = Net.place(CollectiveKind::AllGather, Axes, Local);
    Gathers += G.Time;
    Contention += contention(Mesh, G);
  }
  CollectivePlacement Send = Net.placeSend(PI.Axis, Bytes);
  Contention += contention(Mesh, Send);
  return Send.Time + Gathers;
}

/// Step 2: the schedule and the sends: each stage's carried values
/// forward, their gradients back.
StepSummary::PipelineInfo pipelineInfo(const StepBuilder &B,
                                       const StagePartition &Part) {
  StepSummary::PipelineInfo PI;
  const RepeatOp &RF = *Part.FwdLayers, &RB = *Part.BwdLayers;
  PI.Axis = *RF.pipelineAxis();
  PI.Chunks = Part.Chunks;
  PI.Schedule =
      Part.Chunks > 1 ? PipelineSchedule::Interleaved : B.Train.Schedule;
  if (PI.Schedule == PipelineSchedule::Interleaved && Part.Chunks == 1)
    PI.Schedule = PipelineSchedule::OneFOneB; // one chunk: plain 1F1B
  llvm::SmallVector<const Value *, 4> FwdValues, BwdValues;
  for (const RepeatOp::Carried &Cv : RF.carried())
    FwdValues.push_back(Cv.Init);
  for (size_t I = 0; I < RB.carried().size() && I < RF.carried().size(); ++I)
    BwdValues.push_back(RB.carried()[I].Init);
  PI.SendFwd = sendTime(B, FwdValues, Part.Stages, PI, PI.SendFwdContention);
  PI.SendBwd = sendTime(B, BwdValues, Part.Stages, PI, PI.SendBwdContention);
  return PI;
}

/// Step 3: per (stage, chunk), one microbatch's forward and backward; the
/// backward in its four versions beside (the syncs it issues run on the
/// communication stream across the schedule's slices).
struct ChunkTimes {
  PipelineTimes Times;
  std::vector<std::vector<Versions>> BwdOf; ///< [stage][chunk]
};

ChunkTimes chunkTimes(const StagePartition &Part, const StagePieces &Pc,
                      const StepSummary::PipelineInfo &PI, bool P2pOverlap) {
  unsigned P = Part.Stages;
  int64_t V = Part.Chunks, Q = int64_t(P) * V;
  ChunkTimes CT;
  CT.Times.Fwd.assign(P, std::vector<double>(V, 0));
  CT.Times.Bwd = CT.Times.BwdFirst = CT.Times.Fwd;
  CT.BwdOf.assign(P, std::vector<Versions>(V));
  for (unsigned Sg = 0; Sg < P; ++Sg)
    for (int64_t Ch = 0; Ch < V; ++Ch) {
      // Virtual stage c·p + s: the first runs the first stage's pieces,
      // the last the last's.
      int64_t Vq = Ch * P + Sg, Layers = Part.layers(Sg, unsigned(Ch));
      Versions F, B;
      if (Vq == 0)
        F.then(Pc.Fwd[0]);
      F.then(Pc.FwdLayer.times(Layers));
      if (Vq == Q - 1) {
        F.then(Pc.Fwd[1]);
        B.then(Pc.Bwd[1]);
      }
      B.then(Pc.BwdLayer.times(Layers));
      if (Vq == 0)
        B.then(Pc.Bwd[0]);
      // With p2p_overlap a send runs beside the next slice, which it
      // slows by its contention; the receiver waits for it (the delays).
      if (Vq + 1 < Q)
        F.then(
            Versions::compute(P2pOverlap ? PI.SendFwdContention : PI.SendFwd));
      if (Vq > 0)
        B.then(
            Versions::compute(P2pOverlap ? PI.SendBwdContention : PI.SendBwd));
      CT.Times.Fwd[Sg][Ch] = F.E[0][0].T;
      CT.Times.Bwd[Sg][Ch] = B.E[0][0].T;
      CT.Times.BwdFirst[Sg][Ch] = B.E[1][0].T;
      CT.BwdOf[Sg][Ch] = B;
    }
  // The send starts when the slice's compute ends, before the contention
  // the slice was charged for it.
  if (P2pOverlap) {
    CT.Times.FwdDelay = PI.SendFwd - PI.SendFwdContention;
    CT.Times.BwdDelay = PI.SendBwd - PI.SendBwdContention;
  }
  return CT;
}

/// Step 5: the communication stream of each stage through its backward
/// slices, fed each slice as the schedule is simulated: a slice's syncs
/// (every microbatch's under ZeRO 2 and FSDP, the last's otherwise) queue
/// behind what the stream still has from earlier ones. With `sync =
/// after_backward` a stage's syncs wait for its last backward slice
/// (Megatron-LM's data-parallel AllReduce after the flush), one after
/// another on its communication stream.
class CommStream {
public:
  CommStream(const ChunkTimes &CT, unsigned Stages, int64_t Microbatches,
             bool After)
      : CT(CT), Microbatches(Microbatches), After(After), Free(Stages, 0),
        Queued(Stages, 0) {}
  void add(const PipelineSlice &Sl) {
    if (!Sl.Backward)
      return;
    const StreamEffect &E =
        CT.BwdOf[Sl.Stage][Sl.Chunk]
            .E[Sl.Microbatch == 0][Sl.Microbatch == Microbatches - 1];
    if (After) { // queued after the stage's last backward slice (each
                 // slice's syncs take D + T >= 0: the last sum is the most)
      Queued[Sl.Stage] += E.D + E.T;
      return;
    }
    double Backlog = std::max(0.0, Free[Sl.Stage] - Sl.Start);
    Free[Sl.Stage] = Sl.End + E.backlogAfter(Backlog);
    End = std::max(End, Free[Sl.Stage]);
  }
  /// When the last stream is done (at least the makespan).
  double end(const PipelineRun &Run) const {
    double Last = std::max(End, Run.Makespan);
    if (After)
      for (size_t St = 0; St != Queued.size(); ++St)
        Last = std::max(Last, Run.LastBackwardEnd[St] + Queued[St]);
    return Last;
  }

private:
  const ChunkTimes &CT;
  int64_t Microbatches;
  bool After;
  std::vector<double> Free, Queued;
  double End = 0;
};

/// Step 6: t_f and t_b are one stage's, the slowest's (not the whole
/// model's); the bubble is its idle share of the makespan.
void slowestStage(const PipelineTimes &Times, const PipelineRun &Run,
                  StepSummary::PipelineInfo &PI, StepSummary &S) {
  S.TFwd = S.TBwd = S.TBwdFirst = 0;
  for (unsigned Sg = 0; Sg < Times.Fwd.size(); ++Sg) {
    double Fw = 0, Bw = 0, BwFirst = 0;
    for (size_t Ch = 0; Ch < Times.Fwd[Sg].size(); ++Ch) {
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
}

} // namespace

StreamEffect StepBuilder::pipelined(const StagePartition &Part) {
  StagePieces Pc = stagePieces(*this, Part);
  StepSummary::PipelineInfo PI = pipelineInfo(*this, Part);
  ChunkTimes CT = chunkTimes(Part, Pc, PI, Train.P2pOverlap);
  CommStream Comm(CT, Part.Stages, Microbatches, Train.SyncAfterBackward);
  PipelineRun Run =
      simulatePipeline(PI.Schedule, Microbatches, CT.Times,
                       [&](const PipelineSlice &Sl) { Comm.add(Sl); });
  if (!Run.Complete) {
    Diags.report(Train.At, diag::ScheduleInternal,
                 scheduleName(PI.Schedule).str(), Microbatches,
                 int64_t(Part.Stages));
    return {};
  }
  double SyncEnd = Comm.end(Run);
  slowestStage(CT.Times, Run, PI, S);
  PI.Times = std::move(CT.Times);
  S.Stages = Part.Stages;
  S.Pipeline = std::move(PI);
  // What the step needs of the makespan and the syncs: a piece of
  // Makespan compute time leaving the syncs' overrun as backlog.
  StreamEffect Step = StreamEffect::compute(Run.Makespan);
  Step.K = SyncEnd - Run.Makespan;
  return Step;
}
