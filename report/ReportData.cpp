//===- ReportData.cpp - What both renderings read off a compile -----------===//
#include "report/Report.h"

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

std::vector<TensorInfo> shardc::inputTensors(const MeshCompile &C) {
  std::vector<TensorInfo> Out;
  const MeshSpec &Mesh = C.mesh();
  const ChipSpec &Chip = Mesh.Cluster->Chip;
  const Module &M = *C.lowered();
  // Outside a training step a param is a tensor (LANGUAGE.md §7); in one,
  // the memory table reports the params.
  bool Training = C.config().Train.has_value();
  walk(M.body(), [&](const Op &O) {
    if (!isa<InputOp>(O) && (Training || !isa<ParamOp>(O)))
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
                   Bytes / (Chip.HbmBw * Chip.HbmEfficiency)});
  });
  return Out;
}
