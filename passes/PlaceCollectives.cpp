//===- PlaceCollectives.cpp - Collectives on the GPU hierarchy ------------===//
//
// Prices every collective of the lowered module on the cluster
// (COST-MODEL.md §3) into the Collectives table:
//  1. V from the operand and result types (CollectiveOp::groupBytes);
//  2. per level the fan-in, the bytes through the busiest child uplink and
//     T_l, from the mesh's placement coefficients (cached per axis set);
//  3. T = max_l T_l + latency.
//
//===----------------------------------------------------------------------===//
#include "passes/Pipeline.h"

using namespace shardc;

namespace {

class PlaceCollectives : public Pass {
public:
  llvm::StringRef name() const override { return "place-collectives"; }
  bool run(MeshCompile &C, DiagnosticEngine &) override {
    const Module &M = *C.lowered();
    auto &Table = C.Tables.Collectives;
    Table.clear();
    Table.resize(M.numOpIds());
    walk<CollectiveOp>(M.body(), [&](const CollectiveOp &O) {
      Table[O.id()] = std::make_unique<CollectiveCost>(
          collectiveCost(C.placements(), O.collectiveKind(),
                         AxisSet::of(O.axes()), O.groupBytes(C.mesh())));
    });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> shardc::createPlaceCollectivesPass() {
  return std::make_unique<PlaceCollectives>();
}
