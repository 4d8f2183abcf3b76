//===- EstimateCosts.cpp - Op times, bounds and totals --------------------===//
//
// COST-MODEL.md §1 and §4, into the OpCosts, StatementCosts and Totals
// tables:
//  1. every local op gets its work (the op's compute interface) as FLOPs
//     and HBM bytes per chip, T_math and T_hbm (a contraction's T_math by
//     its GEMM's shape on a chip with tile classes, passes/GemmModel.h;
//     its GEMM and efficiency are kept for the report); every collective
//     its T_comms from place-collectives;
//  2. with `fuse = elementwise`, each fused kernel of elementwise
//     statements (Fusion.cpp) is priced as one op, on its root statement's
//     op, the other members' ops at zero;
//  3. each source statement adds up its ops: T_compute = max(T_math, T_hbm)
//     of the summed terms, T_comms the sum of its collectives, time under
//     `overlap`, and the bound (the largest term);
//  4. with `tp_overlap`, the collectives it overlaps move off their
//     statements' critical path (Overlap.cpp, §6.6);
//  5. the program totals multiply each statement by its repeat count; MFU
//     is the contractions' useful FLOPs over chips x peak x time.
// In a training step a weight-gradient contraction reads the gradient
// buffer it accumulates into from the second microbatch on (§6.2): an op's
// cost is as in the last microbatch, its first-microbatch time beside it.
//
//===----------------------------------------------------------------------===//
#include "passes/Fusion.h"
#include "passes/GemmModel.h"
#include "passes/Overlap.h"
#include "passes/Pipeline.h"

using namespace shardc;

namespace {

class EstimateCosts : public Pass {
public:
  llvm::StringRef name() const override { return "estimate-costs"; }
  bool run(MeshCompile &C, DiagnosticEngine &) override;

private:
  OpCost opCost(const Op &O, MeshCompile &C);

  ProgramCost Total;
  /// The time the useful FLOPs would take at peak, summed (MFU's numerator:
  /// with mixed dtypes each contraction counts at its own dtype's peak).
  double AtPeak = 0;
};

OpCost EstimateCosts::opCost(const Op &O, MeshCompile &C) {
  OpCost Cost;
  double Repeat = double(C.program().statement(O.stmt()).Repeat);
  const ChipSpec &Chip = C.mesh().Cluster->Chip;
  auto *Co = dyn_cast<Costed>(&O);
  if (std::optional<OpWork> W = Co ? Co->work(C.mesh()) : std::nullopt) {
    // With one microbatch the buffer is never read; with several, the
    // first microbatch does not read it yet.
    const auto &Train = C.config().Train;
    if (!Train || Train->Microbatches == 1)
      W->HbmBytes -= W->AccumulateBytes;
    OpWork First = *W;
    First.HbmBytes -= First.AccumulateBytes;
    ComputeTime T = computeTime(*W, Chip);
    Cost.Flops = W->Flops;
    Cost.HbmBytes = W->HbmBytes;
    Cost.TMath = T.TMath;
    Cost.THbm = T.THbm;
    Cost.TSerial = T.TSerial;
    Cost.CastBytes = W->CastBytes;
    Cost.VectorFallback = vectorFallback(*W, Chip);
    Cost.FirstTHbm = Train && Train->Microbatches > 1
                         ? computeTime(First, Chip).THbm
                         : T.THbm;
    if (W->Matmul) {
      Cost.UsefulFlops = W->UsefulFlops;
      Cost.AtPeak = W->UsefulFlops / Chip.matmulPeak(W->Elt);
      Cost.FullCausalFlops = W->UsefulFlops + W->MaskedFlops;
      Cost.FullCausalAtPeak = Cost.FullCausalFlops / Chip.matmulPeak(W->Elt);
      Cost.HwAtPeak = W->Flops / Chip.matmulPeak(W->Elt);
      Total.Flops += W->UsefulFlops * Repeat;
      AtPeak += Cost.AtPeak * Repeat;
    }
    if (W->Matmul && W->Gemm.valid()) {
      GemmTime G = gemmTime(W->Gemm, W->Elt, Chip);
      Cost.Gemm = W->Gemm;
      Cost.GemmElt = W->Elt;
      Cost.GemmEfficiency = G.Efficiency;
      Cost.GemmCeiling = G.Ceiling;
    }
  } else if (const auto &CC = C.Tables.Collectives[O.id()]) {
    Cost.TComms = CC->Time;
    Cost.Contention = commShare(C, *CC) * CC->Time;
    for (const LevelCost &L : CC->Levels)
      Total.LevelBytes[L.Level] += L.Bytes * Repeat;
  }
  finishCost(Cost, C.config().Overlap);
  return Cost;
}

/// With `fuse = elementwise` (Fusion.cpp): each kernel's cost moves to its
/// root's op; the other members' ops cost nothing.
void fuseKernels(MeshCompile &C) {
  Analyses &T = C.Tables;
  T.Fusion = findFusedKernels(C);
  std::vector<const Op *> OpOf(T.Fusion->KernelOf.size(), nullptr);
  walk(C.lowered()->body(), [&](const Op &O) {
    if (O.result() && O.stmt() != NoStmt && T.Fusion->kernelOf(O.stmt()))
      OpOf[O.stmt()] = &O;
  });
  const ChipSpec &Chip = C.mesh().Cluster->Chip;
  for (const FusedKernel &K : T.Fusion->Kernels) {
    llvm::SmallVector<const OpCost *, 4> Members;
    for (unsigned S : K.Stmts)
      Members.push_back(&*T.OpCosts[OpOf[S]->id()]);
    OpCost Kernel = fusedKernelCost(K, Members, Chip);
    for (unsigned S : K.Stmts)
      T.OpCosts[OpOf[S]->id()] = OpCost();
    T.OpCosts[OpOf[K.root()]->id()] = Kernel;
    for (unsigned S : K.Stmts)
      finishCost(*T.OpCosts[OpOf[S]->id()], C.config().Overlap);
  }
}

/// Step 2: statement \p S adds op cost \p Cost.
void addToStatement(OpCost &S, const OpCost &Cost) {
  S.Flops += Cost.Flops;
  S.UsefulFlops += Cost.UsefulFlops;
  S.AtPeak += Cost.AtPeak;
  S.FullCausalFlops += Cost.FullCausalFlops;
  S.FullCausalAtPeak += Cost.FullCausalAtPeak;
  S.HwAtPeak += Cost.HwAtPeak;
  S.HbmBytes += Cost.HbmBytes;
  S.TMath += Cost.TMath;
  S.THbm += Cost.THbm;
  S.TSerial += Cost.TSerial;
  S.CastBytes += Cost.CastBytes;
  S.FirstTHbm += Cost.FirstTHbm;
  S.TComms += Cost.TComms;
  S.Contention += Cost.Contention;
  S.VectorFallback |= Cost.VectorFallback;
  if (Cost.Gemm.valid() &&
      (!S.Gemm.valid() || Cost.Gemm.flops() > S.Gemm.flops())) {
    S.Gemm = Cost.Gemm;
    S.GemmElt = Cost.GemmElt;
    S.GemmEfficiency = Cost.GemmEfficiency;
    S.GemmCeiling = Cost.GemmCeiling;
  }
}

bool EstimateCosts::run(MeshCompile &C, DiagnosticEngine &) {
  const Module &M = *C.lowered();
  Analyses &T = C.Tables;
  T.OpCosts.assign(M.numOpIds(), std::nullopt);
  T.StatementCosts.assign(M.info().Statements.size(), std::nullopt);
  T.Fusion.reset();
  Total = ProgramCost();
  Total.LevelBytes.assign(C.mesh().Cluster->Levels.size(), 0.0);
  AtPeak = 0;
  auto Priced = [](const Op &O) { return O.result() && O.stmt() != NoStmt; };
  walk(M.body(), [&](const Op &O) {
    if (Priced(O))
      T.OpCosts[O.id()].emplace(opCost(O, C));
  });
  if (C.config().FuseElementwise)
    fuseKernels(C);
  walk(M.body(), [&](const Op &O) {
    if (!Priced(O))
      return;
    std::optional<OpCost> &Slot = T.StatementCosts[O.stmt()];
    if (!Slot)
      Slot.emplace();
    addToStatement(*Slot, *T.OpCosts[O.id()]);
  });
  for (auto &S : T.StatementCosts)
    if (S)
      finishCost(*S, C.config().Overlap);
  overlapTensorParallel(C);
  for (size_t I = 0; I < T.StatementCosts.size(); ++I) {
    if (!T.StatementCosts[I])
      continue;
    const OpCost &S = *T.StatementCosts[I];
    double N = double(M.statement(I).Repeat);
    Total.Time += S.Time * N;
    Total.TMath += S.TMath * N;
    Total.THbm += S.THbm * N;
    Total.TComms += S.TComms * N;
  }
  double Chips = double(C.mesh().numChips());
  Total.Mfu = Total.Time > 0 ? AtPeak / (Chips * Total.Time) : 0;
  T.Totals = Total;
  return true;
}

} // namespace

std::unique_ptr<Pass> shardc::createEstimateCostsPass() {
  return std::make_unique<EstimateCosts>();
}
