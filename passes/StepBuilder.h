//===- StepBuilder.h - schedule-step's walk, shared by its files -*- C++
//-*-===//
//
// What ScheduleStep.cpp (the pass, the step without a pipeline, the totals)
// and PipelinedStep.cpp (COST-MODEL.md §6.3's step with one) share: the
// walk that turns each statement of one microbatch into its four stream
// effects (first or not, last or not) and adds up its per-step totals.
// Private to schedule-step.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_STEPBUILDER_H
#define SHARDC_PASSES_STEPBUILDER_H

#include "passes/Pipeline.h"
#include "passes/Schedule.h"

namespace shardc {

/// The four versions of a piece of one microbatch: [first][last].
struct Versions {
  StreamEffect E[2][2];
  void then(const Versions &O) {
    for (auto F : {0, 1})
      for (auto L : {0, 1})
        E[F][L] = E[F][L].then(O.E[F][L]);
  }
  Versions times(int64_t N) const {
    Versions V;
    for (auto F : {0, 1})
      for (auto L : {0, 1})
        V.E[F][L] = E[F][L].times(N);
    return V;
  }
  /// The same compute work \p T in every version.
  static Versions compute(double T) {
    Versions V;
    for (auto F : {0, 1})
      for (auto L : {0, 1})
        V.E[F][L] = StreamEffect::compute(T);
    return V;
  }
};

class StepBuilder {
public:
  StepBuilder(const MeshCompile &C, DiagnosticEngine &D);

  /// One statement's versions; adds its per-step totals to S.
  Versions statement(unsigned St);
  /// \p B's statements in order, a repeat's body as many times as it runs.
  Versions block(const Block &B);
  /// COST-MODEL.md §6.3: the step of a pipelined program, partitioned as
  /// \p Part says (PipelinedStep.cpp).
  StreamEffect pipelined(const StagePartition &Part);
  /// The step without a pipeline: m microbatches one after another.
  StreamEffect unpipelined();
  /// The gradient syncs, updates and param gathers one chip runs per step
  /// (its stage's), and the collectives per step averaged over the chips.
  void chipShares(const StagePartition &Part);
  /// The tied params' exchange between the pipeline's ends (TTiedSync).
  void tiedSync(const StagePartition &Part);
  /// MFU, HFU, tokens, the step time and the costliest collectives.
  void finish(const StreamEffect &Step);

  const MeshCompile &C;
  DiagnosticEngine &Diags;
  const Module &M;
  const TrainConfig &Train;
  int64_t Microbatches = 1;
  StepSummary S;
  /// The model FLOPs' time at peak, each contraction at its own dtype's
  /// peak (as ProgramCost's MFU): MFU's numerator; and with causal
  /// attention counted in full.
  double ModelAtPeak = 0, CausalFullAtPeak = 0;
  /// Per statement, its collectives' time in one step.
  std::vector<double> CommsPerStep;
};

/// How many times a step runs statement \p St per iteration of what
/// encloses it: every microbatch for the forward and backward and the
/// syncs of ZeRO 2 and FSDP; once for the other syncs and the optimizer.
double runsPerStep(const Statement &St, int64_t Microbatches);

} // namespace shardc

#endif // SHARDC_PASSES_STEPBUILDER_H
