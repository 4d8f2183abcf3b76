//===- Units.cpp - Human units for the text report ------------------------===//
#include "report/Report.h"

using namespace shardc;

std::vector<std::vector<const Operation *>>
shardc::collectivesByStatement(const Module &M) {
  std::vector<std::vector<const Operation *>> Out(M.Statements.size());
  walk(M.Body, [&](const Operation &Op) {
    if (isCollective(Op.Kind))
      Out[Op.Stmt].push_back(&Op);
  });
  return Out;
}

std::vector<TensorInfo> shardc::inputTensors(const Module &M) {
  std::vector<TensorInfo> Out;
  const MeshSpec &Mesh = *M.Mesh;
  const ChipSpec &C = Mesh.Cluster->Chip;
  walk(M.Body, [&](const Operation &Op) {
    if (Op.Kind != OpKind::Input)
      return;
    const ShardType &T = Op.Result->Type;
    std::string Shape = dtypeName(T.Elt).str() + "[";
    for (unsigned I = 0; I < T.Dims.size(); ++I)
      Shape += (I ? ", " : "") + std::to_string(T.localSize(I, Mesh));
    double Bytes = T.localBytes(Mesh);
    Out.push_back({&M.Statements[Op.Stmt], Op.Result, Shape + "]", Bytes,
                   Bytes / (C.HbmBw * C.HbmEfficiency)});
  });
  return Out;
}
