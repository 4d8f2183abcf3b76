//===- Warnings.cpp - The book's serving warnings -------------------------===//
//
// docs/inference.md, "Diagnostics": the warnings a served program raises
// once its serving batch is known. Two read the serving batch's decode
// numbers (collectives that outlast the weight reads, collectives priced
// free of latency), one reads its decode plan (a param gathered in every
// step: FSDP in decode), two read the shardings as written (a mesh axis
// that shards only the batch: data parallelism; a KV cache replicated over
// an axis that shards the query heads). Each is reported once, where the
// user writes the fix.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "ir/ModelOps.h"
#include "serve/Engine.h"
#include "support/Format.h"
#include <map>

using namespace shardc;

void ServeEngine::warnings(const ServeResult &R) const {
  warnCommsOverWeights(R);
  warnNoLatency(*R.DecodeCompile);
  warnGatheredParams(*R.DecodeCompile);
  warnDataParallel();
  warnKvReplicated();
}

void ServeEngine::warnCommsOverWeights(const ServeResult &R) const {
  // Model parallelism past its memory-bound limit: the decode step's
  // collectives (latency included) outlast its weight reads.
  double WeightReads = 0;
  for (const ServeRow &Row : R.Decode.Rows)
    WeightReads += Row.WeightHbm * double(Row.Repeat);
  if (WeightReads > 0 && R.Decode.TComms > WeightReads)
    Diags.report(S.At, diag::ServeCommsOverWeights, R.Batch,
                 formatTime(R.Decode.TComms), formatTime(WeightReads));
}

void ServeEngine::warnNoLatency(const MeshCompile &C) const {
  // A decode collective over a level with no latency is priced free of it.
  const auto &Levels = Mesh.Cluster->Levels;
  std::vector<int64_t> Crossing(Levels.size(), 0);
  walk(C.lowered()->body(), [&](const Op &O) {
    if (O.id() < C.Tables.Collectives.size())
      if (const auto &Cc = C.Tables.Collectives[O.id()])
        for (const LevelCost &L : Cc->Levels)
          if (L.Level < Levels.size() && L.Bytes > 0)
            Crossing[L.Level] +=
                O.stmt() == NoStmt ? 1 : Checked.statement(O.stmt()).Repeat;
  });
  for (unsigned L = 0; L < Levels.size(); ++L) {
    const LevelCalibration &Cal = Levels[L].Calibration;
    if (Crossing[L] && Cal.Latency <= 0 && !(Cal.BulkLatency > 0.0))
      Diags.report(S.At, diag::ServeNoLatency, Levels[L].Name, Crossing[L]);
  }
}

/// The param \p V is read from, through views, conversions and resharding
/// steps; null when it is not a param's.
static const ParamOp *paramBehind(const Value *V) {
  while (const Op *D = V->def()) {
    if (auto *P = llvm::dyn_cast<ParamOp>(D))
      return P;
    if (!llvm::isa<ViewOp, ConvertOp, ReshardStepOp>(D) || !D->numOperands())
      return nullptr;
    V = D->operand(0);
  }
  return nullptr;
}

void ServeEngine::warnGatheredParams(const MeshCompile &C) const {
  // FSDP in decode: a param the decode plan gathers is moved over the
  // network in every step, for one token per sequence. One warning per
  // param (the repeat body is lowered once), in declaration order, with
  // the axes of all its gathers and the first statement that reads it.
  struct Gathered {
    AxisSet Axes;
    unsigned For = NoStmt;
  };
  std::map<unsigned, Gathered> ByParam;
  walk(C.lowered()->body(), [&](const Op &O) {
    auto *G = llvm::dyn_cast<AllGatherOp>(&O);
    if (!G || axesProduct(G->axes(), C.mesh()) <= 1)
      return;
    const ParamOp *P = paramBehind(G->operand(0));
    if (!P || P->stmt() == NoStmt)
      return;
    Gathered &E = ByParam[P->stmt()];
    E.Axes = E.Axes | AxisSet::of(G->axes());
    if (E.For == NoStmt)
      E.For = G->stmt();
  });
  for (const auto &[Param, E] : ByParam) {
    const Statement &P = Checked.statement(Param);
    Diags.report(P.Location, diag::ServeGatheredParam, P.Name,
                 axisNames(E.Axes.list(), Checked.names(), " and "));
    if (E.For != NoStmt)
      Diags.report(Checked.statement(E.For).Location, diag::ServeGatheredFor,
                   Checked.statement(E.For).Name);
  }
}

void ServeEngine::warnDataParallel() const {
  // An axis that shards the batch dim and nothing else, as written: each
  // group of chips along it decodes its own sequences with its own copy of
  // everything, which is what separate replicas do (costed as written: per
  // chip the same).
  const DimId Batch = *S.Dims[unsigned(PhaseDim::Batch)];
  AxisSet OnBatch, Elsewhere;
  auto Note = [&](const ShardType &T) {
    for (const TensorDim &D : T.Dims) {
      AxisSet &Into = D.Id == Batch ? OnBatch : Elsewhere;
      Into = Into | AxisSet::of(D.Axes);
    }
    Elsewhere = Elsewhere | T.Unreduced;
  };
  walk(Checked.body(), [&](const Op &O) {
    for (unsigned K = 0; K < O.numOperands(); ++K)
      Note(O.operand(K)->type());
    if (O.result())
      Note(O.result()->type());
  });
  for (AxisId A : OnBatch.without(Elsewhere).list())
    if (A < Mesh.Axes.size() && Mesh.Axes[A].Size > 1)
      Diags.report(S.MeshAt, diag::ServeDataParallel, Mesh.Axes[A].Name);
}

/// The cache \p V is read from (through `append` and views); null when
/// it is not a cache's.
static const InputOp *cacheBehind(const Value *V) {
  while (const Op *D = V->def()) {
    if (auto *In = llvm::dyn_cast<InputOp>(D))
      return In->isCache() ? In : nullptr;
    if (!llvm::isa<AppendOp, ViewOp>(D))
      return nullptr;
    V = D->operand(0);
  }
  return nullptr;
}

void ServeEngine::warnKvReplicated() const {
  // A cache that shards nothing over an axis sharding the query heads
  // that read it holds every one of its KV heads on each chip of that
  // axis: its bytes per chip stop shrinking there. Once per cache, with
  // every such axis (of size > 1) of every attention reading it.
  struct Replicated {
    AxisSet Over;
    int64_t KvHeads = 0;
  };
  std::map<unsigned, Replicated> ByCache;
  walk(Checked.body(), [&](const Op &O) {
    auto *At = llvm::dyn_cast<AttentionOp>(&O);
    if (!At || At->numOperands() < 3)
      return;
    const ShardType &Q = At->operand(0)->type();
    if (Q.Dims.size() < 2)
      return;
    AxisSet Heads = AxisSet::of(Q.Dims[Q.Dims.size() - 2].Axes);
    for (unsigned K = 1; K < 3; ++K) {
      const InputOp *C = cacheBehind(At->operand(K));
      if (!C || C->stmt() == NoStmt || C->result()->type().Dims.size() < 2)
        continue;
      const ShardType &T = C->result()->type();
      AxisSet Held;
      for (const TensorDim &D : T.Dims)
        Held = Held | AxisSet::of(D.Axes);
      AxisSet Over;
      for (AxisId A : Heads.without(Held).list())
        if (A < Mesh.Axes.size() && Mesh.Axes[A].Size > 1)
          Over.insert(A);
      if (Over.empty())
        continue;
      Replicated &E = ByCache[C->stmt()];
      E.Over = E.Over | Over;
      E.KvHeads = T.Dims[T.Dims.size() - 2].Size;
    }
  });
  for (const auto &[Cache, E] : ByCache) {
    const Statement &C = Checked.statement(Cache);
    Diags.report(C.Location, diag::ServeKvReplicated, C.Name,
                 axisNames(E.Over.list(), Checked.names(), " and "), E.KvHeads,
                 axesProduct(E.Over, Mesh));
  }
}
