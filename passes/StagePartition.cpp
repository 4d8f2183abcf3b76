//===- StagePartition.cpp - Which stage runs what -------------------------===//
//
// StagePartition.h. The algorithm:
//  1. Find the pipelined repeats of the program and of the lowered module:
//     the forward's and the backward's (derive-backward keeps the axis on
//     both), and the optimizer's. Without both, one stage runs everything.
//  2. Deal out the layers: virtual stage c·p + s runs the k iterations from
//     (c·p + s)·k.
//  3. Walk the program's top level in order, giving each top-level op a
//     side and every statement in it that side: a pipelined repeat is the
//     layers; a forward piece before the forward's repeat is the first
//     stage's, after it the last's; a backward or sync piece before the
//     backward's repeat is the last stage's (the head's backward), after it
//     the first's; an update or gather runs where its param lives.
//  4. Sort the lowered module's top-level ops into pieces by part and side.
//
//===----------------------------------------------------------------------===//
#include "passes/StagePartition.h"
#include "passes/Pipeline.h"

using namespace shardc;

int64_t StagePartition::stageLayers(unsigned Stage) const {
  int64_t N = 0;
  for (const LayerRange &Chunk : Layers[Stage])
    N += Chunk.Count;
  return N;
}

int64_t StagePartition::totalLayers() const {
  int64_t N = 0;
  for (unsigned S = 0; S < Stages; ++S)
    N += stageLayers(S);
  return N;
}

/// The first statement in \p B, if any.
static unsigned firstStmt(const Block &B) {
  unsigned St = NoStmt;
  walk(B, [&](const Op &In) {
    if (St == NoStmt && In.stmt() != NoStmt)
      St = In.stmt();
  });
  return St;
}

unsigned shardc::pieceStmt(const Op &O) {
  auto *R = dyn_cast<RepeatOp>(&O);
  return R ? firstStmt(R->body()) : O.stmt();
}

StageSide StagePartition::side(const Op &O) const {
  unsigned St = pieceStmt(O);
  return St < Side.size() ? Side[St] : StageSide::First;
}

StepPart shardc::stepPart(Phase Ph) {
  switch (Ph) {
  case Phase::Forward:
    return StepPart::Forward;
  case Phase::Backward:
  case Phase::Sync:
    return StepPart::Backward;
  case Phase::Optimizer:
    return StepPart::Optimizer;
  }
  llvm_unreachable("every phase is a part of the step");
}

double StagePartition::share(unsigned Stage, StageSide S, double Copies) const {
  if (S != StageSide::Layers)
    return runs(Stage, S) ? Copies : 0;
  // Copies · n_s / N in that order: an even split of whole copies gives
  // exactly Copies / p (byte counts stay whole).
  int64_t Total = totalLayers();
  if (Total == 0) // fewer layers than stages: a mesh bind-mesh rejects
    return Copies / double(Stages);
  return Copies * double(stageLayers(Stage)) / double(Total);
}

namespace {

/// The part of the step the first statement of \p B is in.
std::optional<Phase> firstPhase(const Module &M, const Block &B) {
  unsigned St = firstStmt(B);
  if (St == NoStmt)
    return std::nullopt;
  return M.statement(St).Ph;
}

struct LayerRepeats {
  const RepeatOp *Fwd = nullptr, *Bwd = nullptr, *Opt = nullptr;
};

/// Step 1: the pipelined repeats of \p M's top level.
LayerRepeats layerRepeats(const Module &M) {
  LayerRepeats L;
  for (const auto &O : M.body().ops()) {
    auto *R = dyn_cast<RepeatOp>(O.get());
    if (!R || !R->pipelineAxis())
      continue;
    std::optional<Phase> Ph = firstPhase(M, R->body());
    if (Ph == Phase::Forward && !L.Fwd)
      L.Fwd = R;
    else if ((Ph == Phase::Backward || Ph == Phase::Sync) && !L.Bwd)
      L.Bwd = R;
    else if (Ph == Phase::Optimizer)
      L.Opt = R;
  }
  return L;
}

/// Step 2: the even split, k = N / (p·v) iterations per (stage, chunk),
/// or the file's own counts, virtual stage c·p + s running the \p Split
/// entry of that index (bind-mesh has checked there are p·v of them).
void dealLayers(StagePartition &P, int64_t N, llvm::ArrayRef<int64_t> Split) {
  int64_t K = N / (int64_t(P.Stages) * P.Chunks);
  P.Layers.assign(P.Stages, std::vector<LayerRange>(P.Chunks));
  int64_t First = 0;
  for (int64_t C = 0; C < P.Chunks; ++C)
    for (unsigned S = 0; S < P.Stages; ++S) {
      int64_t Count = Split.empty() ? K : Split[C * P.Stages + S];
      P.Layers[S][C] = {First, Count};
      First += Count;
    }
}

/// Step 3: the sides of \p M's statements, given its layers \p L.
void assignSides(StagePartition &P, const Module &M, const LayerRepeats &L) {
  P.Side.assign(M.info().Statements.size(), StageSide::First);
  if (!L.Fwd)
    return;
  // Where the walk is: before the forward's repeat, before the backward's,
  // after both.
  enum { BeforeFwd, BeforeBwd, After } Where = BeforeFwd;
  auto SideOf = [&](const Op &O) {
    if (auto *R = dyn_cast<RepeatOp>(&O);
        R && R->pipelineAxis() && (R == L.Fwd || R == L.Bwd || R == L.Opt))
      return StageSide::Layers;
    const Statement &Stmt = M.statement(pieceStmt(O));
    switch (stepPart(Stmt.Ph)) {
    case StepPart::Forward:
      return Where == BeforeFwd ? StageSide::First : StageSide::Last;
    case StepPart::Backward:
      return Where == After ? StageSide::First : StageSide::Last;
    case StepPart::Optimizer:
      // Where its param lives: declared before the layers, the first
      // stage; after them, the last. (The layers' own params are updated in
      // the optimizer's pipelined repeat.)
      return Stmt.From && P.Side[Stmt.From->Stmt] == StageSide::First
                 ? StageSide::First
                 : StageSide::Last;
    }
    llvm_unreachable("every part has a side");
  };
  for (const auto &O : M.body().ops()) {
    if (pieceStmt(*O) == NoStmt)
      continue;
    StageSide S = SideOf(*O);
    if (auto *R = dyn_cast<RepeatOp>(O.get()))
      walk(R->body(), [&](const Op &In) {
        if (In.stmt() != NoStmt)
          P.Side[In.stmt()] = S;
      });
    else
      P.Side[O->stmt()] = S;
    if (O.get() == L.Fwd)
      Where = BeforeBwd;
    else if (O.get() == L.Bwd)
      Where = After;
  }
}

/// Step 3b: the params the last stage holds a copy of: declared before the
/// layers (on the first stage), read by a forward statement before them and
/// by one after them. One read only after them (an untied head declared at
/// the top) lives on the last stage, as if declared there: it and its
/// updates move to the last side.
void findTied(StagePartition &P, const Module &M, const LayerRepeats &L) {
  P.TiedOnLast.assign(M.info().Statements.size(), false);
  if (!L.Fwd)
    return;
  for (const auto &O : M.body().ops()) {
    if (!isa<ParamOp>(O.get()) || P.Side[O->stmt()] != StageSide::First)
      continue;
    auto ReadOn = [&](StageSide S) {
      return llvm::any_of(O->result()->users(), [&](const Op *U) {
        unsigned St = pieceStmt(*U);
        return St != NoStmt && M.statement(St).Ph == Phase::Forward &&
               P.Side[St] == S;
      });
    };
    if (!ReadOn(StageSide::Last))
      continue;
    if (ReadOn(StageSide::First)) {
      P.TiedOnLast[O->stmt()] = true;
      continue;
    }
    P.Side[O->stmt()] = StageSide::Last;
    for (size_t St = 0; St < P.Side.size(); ++St) {
      const Statement &S = M.statement(unsigned(St));
      if (S.From && S.From->Stmt == O->stmt() &&
          stepPart(S.Ph) == StepPart::Optimizer)
        P.Side[St] = StageSide::Last;
    }
  }
}

/// Step 4: the lowered module's top-level pieces.
void collectPieces(StagePartition &P, const Module &Lowered) {
  unsigned Last = NoStmt;
  for (const auto &O : Lowered.body().ops()) {
    auto *R = dyn_cast<RepeatOp>(O.get());
    if (R && (R == P.FwdLayers || R == P.BwdLayers || R == P.OptLayers)) {
      Last = NoStmt;
      continue;
    }
    unsigned St = pieceStmt(*O);
    // A statement's lowered ops are consecutive: its first stands for it.
    if (St == NoStmt || (!R && St == Last))
      continue;
    Last = R ? NoStmt : St;
    StepPart Part = stepPart(Lowered.statement(St).Ph);
    P.Pieces[unsigned(Part)][P.Side[St] == StageSide::Last].push_back(O.get());
  }
}

} // namespace

StagePartition shardc::partitionStages(const MeshCompile &C) {
  StagePartition P;
  const Module &Lowered = *C.lowered();
  LayerRepeats Program = layerRepeats(C.program());
  LayerRepeats Low = layerRepeats(Lowered);
  if (Program.Fwd && Program.Bwd && Low.Fwd && Low.Bwd) {
    const TrainConfig &Train = *C.config().Train;
    P.Stages = unsigned(C.mesh().Axes[*Low.Fwd->pipelineAxis()].Size);
    P.Chunks =
        Train.Schedule == PipelineSchedule::Interleaved ? Train.Chunks : 1;
    P.FwdLayers = Low.Fwd;
    P.BwdLayers = Low.Bwd;
    P.OptLayers = Low.Opt;
    P.ProgramLayers = Program.Fwd;
    dealLayers(P, Low.Fwd->tripCount(), Program.Fwd->stageSplit());
  } else {
    P.Layers.assign(1, std::vector<LayerRange>(1));
    Program = {};
  }
  assignSides(P, C.program(), Program);
  findTied(P, C.program(), Program);
  collectPieces(P, Lowered);
  return P;
}
