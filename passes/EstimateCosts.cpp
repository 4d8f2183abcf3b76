//===- EstimateCosts.cpp - Op times, bounds and totals --------------------===//
//
// COST-MODEL.md §1 and §4:
//  1. every local op gets FLOPs and HBM bytes per chip, T_math and T_hbm;
//     every collective its T_comms from place-collectives;
//  2. each source statement adds up its ops: T_compute = max(T_math, T_hbm)
//     of the summed terms, T_comms the sum of its collectives, time under
//     `overlap`, and the bound (the largest term);
//  3. the program totals multiply each statement by its repeat count; MFU
//     is the contractions' useful FLOPs over chips x peak x time.
//
//===----------------------------------------------------------------------===//
#include "passes/CostModel.h"
#include "passes/Pass.h"

using namespace shardc;

namespace {

class EstimateCosts : public Pass {
public:
  llvm::StringRef name() const override { return "estimate-costs"; }
  bool run(Module &M, PassContext &Ctx) override;

private:
  void op(Operation &Op, Module &M, std::vector<double> &PeakTime,
          ProgramCost &Total);
};

void EstimateCosts::op(Operation &Op, Module &M, std::vector<double> &PeakTime,
                       ProgramCost &Total) {
  if (Op.Kind == OpKind::Repeat || !Op.Result)
    return;
  Statement &St = M.Statements[Op.Stmt];
  if (!St.Cost)
    St.Cost = OpCost{};
  OpCost C;
  if (Op.Kind == OpKind::Contraction || Op.Kind == OpKind::Elementwise) {
    ComputeEstimate E = estimateCompute(Op, *M.Mesh);
    C.Flops = E.Flops;
    C.HbmBytes = E.HbmBytes;
    C.TMath = E.TMath;
    C.THbm = E.THbm;
    if (Op.Kind == OpKind::Contraction) {
      double Peak = M.Mesh->Cluster->Chip.matmulPeak(Op.Operands[0]->Type.Elt);
      Total.Flops += E.UsefulFlops * double(St.Repeat);
      PeakTime.push_back(E.UsefulFlops * double(St.Repeat) / Peak);
    }
  } else if (Op.CommCost) {
    C.TComms = Op.CommCost->Time;
    for (const LevelCost &L : Op.CommCost->Levels)
      Total.LevelBytes[L.Level] += L.Bytes * double(St.Repeat);
  }
  C.Time = combineTime(std::max(C.TMath, C.THbm), C.TComms, M.Config.Overlap);
  C.Bounded = boundOf(C.TMath, C.THbm, C.TComms);
  Op.Cost = C;
  OpCost &S = *St.Cost;
  S.Flops += C.Flops;
  S.HbmBytes += C.HbmBytes;
  S.TMath += C.TMath;
  S.THbm += C.THbm;
  S.TComms += C.TComms;
}

bool EstimateCosts::run(Module &M, PassContext &) {
  ProgramCost Total;
  Total.LevelBytes.assign(M.Mesh->Cluster->Levels.size(), 0.0);
  std::vector<double> PeakTime;
  walk(M.Body, [&](Operation &Op) { op(Op, M, PeakTime, Total); });
  for (Statement &St : M.Statements) {
    if (!St.Cost)
      continue;
    OpCost &S = *St.Cost;
    S.Time = combineTime(std::max(S.TMath, S.THbm), S.TComms, M.Config.Overlap);
    S.Bounded = boundOf(S.TMath, S.THbm, S.TComms);
    double N = double(St.Repeat);
    Total.Time += S.Time * N;
    Total.TMath += S.TMath * N;
    Total.THbm += S.THbm * N;
    Total.TComms += S.TComms * N;
  }
  // MFU: the time the chips would need at peak for the useful FLOPs, over
  // the time the program takes (a sum, so mixed dtypes use their own peak).
  double AtPeak = 0;
  for (double T : PeakTime)
    AtPeak += T;
  double Chips = double(M.Mesh->numChips());
  Total.Mfu = Total.Time > 0 ? AtPeak / (Chips * Total.Time) : 0;
  M.Totals = Total;
  return true;
}

} // namespace

std::unique_ptr<Pass> shardc::createEstimateCostsPass() {
  return std::make_unique<EstimateCosts>();
}
