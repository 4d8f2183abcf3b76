//===- ReportData.cpp - What both renderings read off a compile -----------===//
#include "passes/StepBuilder.h"
#include "report/Report.h"
#include "llvm/ADT/StringMap.h"

using namespace shardc;

std::vector<std::vector<const CollectiveOp *>>
shardc::collectivesByStatement(const Module &Lowered) {
  std::vector<std::vector<const CollectiveOp *>> Out(
      Lowered.info().Statements.size());
  walk<CollectiveOp>(Lowered.body(), [&](const CollectiveOp &O) {
    Out[O.stmt()].push_back(&O);
  });
  return Out;
}

std::vector<std::string> shardc::irNames(const MeshCompile &C) {
  const Module &M = *C.lowered();
  std::vector<std::string> Out(M.info().Statements.size());
  llvm::DenseMap<const Value *, std::string> Names = printedNames(M);
  walk(M.body(), [&](const Op &O) {
    if (O.stmt() != NoStmt && O.result())
      Out[O.stmt()] = Names.lookup(O.result());
  });
  return Out;
}

std::vector<std::string> shardc::rowNames(const MeshCompile &C) {
  const ProgramInfo &Info = C.program().info();
  std::vector<std::string> Out;
  // Rows are listed by phase, so a name is ambiguous within its phase
  // (a sync named as its gradient is under a title of its own).
  auto Key = [&](size_t I) {
    return std::to_string(unsigned(Info.Statements[I].Ph)) + " " +
           Info.Statements[I].Name;
  };
  llvm::StringMap<unsigned> Count;
  for (size_t I = 0; I < Info.Statements.size(); ++I) {
    Out.push_back(Info.Statements[I].Name);
    OpKind K = Info.Statements[I].Kind;
    if (C.Tables.StatementCosts[I] && K != OpKind::Input && K != OpKind::Param)
      ++Count[Key(I)];
  }
  std::vector<std::string> Ir = irNames(C);
  for (size_t I = 0; I < Out.size(); ++I)
    if (Info.Statements[I].From && Count.lookup(Key(I)) > 1 && !Ir[I].empty())
      Out[I] = Ir[I];
  return Out;
}

std::vector<TensorInfo> shardc::inputTensors(const MeshCompile &C) {
  std::vector<TensorInfo> Out;
  const MeshSpec &Mesh = C.mesh();
  const ChipSpec &Chip = Mesh.Cluster->Chip;
  const Module &M = *C.lowered();
  // Outside a training step a param is a tensor (LANGUAGE.md §7); in one,
  // it is listed as a param, in the sharding it is stored in.
  bool Training = C.config().Train.has_value();
  walk(M.body(), [&](const Op &O) {
    if (!isa<InputOp>(O) && !isa<ParamOp>(O))
      return;
    // A training step's gradient seeds are not the program's tensors.
    if (M.statement(O.stmt()).Ph != Phase::Forward)
      return;
    const ShardType &T = O.result()->type();
    std::string Shape = dtypeName(T.Elt).str() + "[";
    for (unsigned I = 0; I < T.Dims.size(); ++I)
      Shape += (I ? ", " : "") + std::to_string(T.localSize(I, Mesh));
    double Bytes = T.localBytes(Mesh);
    Out.push_back({&M.statement(O.stmt()), O.result(), Shape + "]", Bytes,
                   Bytes / (Chip.HbmBw * Chip.HbmEfficiency),
                   Training && isa<ParamOp>(O)});
  });
  return Out;
}

namespace {

/// Whether every level \p Cost crosses prices a hop at zero (either
/// protocol): then its time is bandwidth alone.
bool latencyFree(const CollectiveCost &Cost, const ClusterSpec &Cluster) {
  if (Cost.Levels.empty())
    return false;
  for (const LevelCost &L : Cost.Levels) {
    const LevelCalibration &Cal = Cluster.Levels[L.Level].Calibration;
    if (Cal.Latency > 0 || Cal.BulkLatency.value_or(0) > 0)
      return false;
  }
  return true;
}

} // namespace

LatencyFreeCollectives shardc::latencyFreeCollectives(const MeshCompile &C) {
  LatencyFreeCollectives Out;
  const Module &M = *C.lowered();
  const ClusterSpec &Cluster = *C.mesh().Cluster;
  const auto &Train = C.config().Train;
  const auto &Part = C.Tables.Partition;
  walk<CollectiveOp>(M.body(), [&](const CollectiveOp &O) {
    const auto &Cost = C.Tables.Collectives[O.id()];
    if (!Cost || Cost->Time >= LatencyBoundSmallTime ||
        !latencyFree(*Cost, Cluster))
      return;
    const Statement &St = M.statement(O.stmt());
    // Runs per step on one chip, as the step counts a statement's
    // collectives: a pipeline's layers are shared out over its stages.
    double Runs = double(St.Repeat);
    if (Train)
      Runs *= runsPerStep(St, Train->Microbatches);
    if (Part && Part->pipelined() && Part->Side[O.stmt()] == StageSide::Layers)
      Runs /= double(Part->Stages);
    Out.Count += Runs;
    Out.Time += Runs * Cost->Time;
  });
  return Out;
}
