//===- PlaceCollectives.cpp - Collectives on the GPU hierarchy ------------===//
//
// Annotates every collective with its cost on the cluster (COST-MODEL.md §3):
//  1. V from the operand and result types (groupBytes);
//  2. per level the fan-in, the bytes through the busiest child uplink and
//     T_l, from the mesh's placement coefficients (cached per axis set);
//  3. T = max_l T_l + latency.
//
//===----------------------------------------------------------------------===//
#include "passes/CostModel.h"
#include "passes/Pass.h"

using namespace shardc;

namespace {

class PlaceCollectives : public Pass {
public:
  llvm::StringRef name() const override { return "place-collectives"; }
  bool run(Module &M, PassContext &Ctx) override {
    const MeshSpec &Mesh = *M.Mesh;
    walk(M.Body, [&](Operation &Op) {
      if (!isCollective(Op.Kind))
        return;
      double V = groupBytes(Op.Kind, Op.Operands[0]->Type, Op.Result->Type,
                            Op.Axes, Mesh);
      Op.CommCost = collectiveCost(Ctx.Cache, Op.Kind, Op.Axes, V);
    });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> shardc::createPlaceCollectivesPass() {
  return std::make_unique<PlaceCollectives>();
}
