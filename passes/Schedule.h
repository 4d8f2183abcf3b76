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

#include <algorithm>
#include <cstdint>

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

} // namespace shardc

#endif // SHARDC_PASSES_SCHEDULE_H
