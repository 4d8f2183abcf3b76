//===- Schedule.h - Two streams, in closed form -----------------*- C++ -*-===//
//
// COST-MODEL.md §6.1: a chip runs a compute stream and a communication
// stream. Compute-stream work runs in order; a gradient sync is issued on the
// communication stream when its gradient is final and overlaps whatever
// compute follows. What matters of the communication stream at any point is
// its backlog: how much longer it stays busy than the compute stream. A
// piece of the timeline maps a backlog B at its start to one at its end of
//   max(K, B + D)
// (K: the backlog it leaves when it starts idle; D: what it adds to a
// backlog that outlasts it), and that form is closed under sequencing and
// repetition. So a step's timeline is computed in one pass over its ops,
// with a repeat of N iterations costing O(1) whatever N is: linear in the
// number of ops, as the issue asks.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_SCHEDULE_H
#define SHARDC_PASSES_SCHEDULE_H

#include "ir/Training.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <algorithm>
#include <cstdint>
#include <vector>

namespace shardc {

struct StreamEffect {
  double T = 0; ///< compute-stream time
  double K = 0; ///< backlog at the end, starting from an idle stream
  double D = 0; ///< added to a backlog that outlasts the piece

  /// Compute work of \p Time seconds.
  static StreamEffect compute(double Time) { return {Time, 0, -Time}; }
  /// A sync of \p Time seconds issued now on the communication stream.
  static StreamEffect sync(double Time) { return {0, Time, Time}; }

  /// The backlog at the end, given \p B at the start.
  double backlogAfter(double B) const { return std::max(K, B + D); }
  /// This piece, then \p Next.
  StreamEffect then(const StreamEffect &Next) const {
    return {T + Next.T, std::max(Next.K, K + Next.D), D + Next.D};
  }
  /// This piece \p N times in a row.
  StreamEffect times(int64_t N) const {
    if (N <= 0)
      return {};
    double Nd = double(N);
    return {Nd * T, D <= 0 ? K : K + (Nd - 1) * D, Nd * D};
  }
};

/// One slice of a simulated pipeline (COST-MODEL.md §6.3): a microbatch's
/// forward or backward through one chunk of one stage, sends included.
struct PipelineSlice {
  unsigned Stage = 0, Chunk = 0;
  int64_t Microbatch = 0;
  bool Backward = false;
  double Start = 0, End = 0;
};

/// What a pipeline's slices take: per stage, per chunk (one chunk unless the
/// schedule is interleaved), the forward and backward of one microbatch; the
/// first microbatch's backward beside (it does not read the gradient
/// buffers yet).
struct PipelineTimes {
  std::vector<std::vector<double>> Fwd, Bwd, BwdFirst; ///< [stage][chunk]
  /// With `p2p_overlap` (docs/cost-model.md §6.6), the sends are not in the
  /// slices (only their contention is): a slice's input arrives this long
  /// after the slice it comes from ends (forward: the previous virtual
  /// stage's; backward: the next's).
  double FwdDelay = 0, BwdDelay = 0;
};

struct PipelineRun {
  double Makespan = 0;
  std::vector<double> Busy;            ///< per stage, the slices' time
  std::vector<double> LastBackwardEnd; ///< per stage
  std::vector<PipelineSlice> Slices;   ///< per stage in its order
  /// False when some slice never became ready (a shardc bug: every order
  /// it builds completes).
  bool Complete = true;
};

/// Simulates schedule \p S of \p M microbatches over the stages and chunks
/// of \p T (COST-MODEL.md §6.3): each stage runs its slices in the
/// schedule's order, each starting when its stage is free and its input has
/// arrived (a forward after the previous virtual stage's forward of the
/// microbatch, a backward after the next one's backward). Linear in stages
/// x chunks x microbatches.
/// Run.Slices holds every slice, in the order they were scheduled (each
/// stage's in its order).
PipelineRun simulatePipeline(PipelineSchedule S, int64_t M,
                             const PipelineTimes &T);
/// The same, calling \p Visit on each slice as it is scheduled instead of
/// keeping them (Run.Slices stays empty): what a step needs of a schedule
/// of 10^5 slices without holding them.
PipelineRun
simulatePipeline(PipelineSchedule S, int64_t M, const PipelineTimes &T,
                 llvm::function_ref<void(const PipelineSlice &)> Visit);

} // namespace shardc

#endif // SHARDC_PASSES_SCHEDULE_H
