//===- Timeline.h - A step laid out in time ---------------------*- C++ -*-===//
//
// The slices of a costed program on each stage's two streams, for
// `--format=trace`: a training step's simulated schedule (COST-MODEL.md
// §6.3) with every statement placed inside its microbatch's forward or
// backward, the gradient syncs on the communication stream, the sends of a
// pipeline, then the optimizer; a program without a train block as its
// statements one after another. Built on demand from the side tables
// schedule-step and estimate-costs filled: no number here is new, each
// slice is a statement's time, and the slices of a microbatch add up to
// the schedule's.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_REPORT_TIMELINE_H
#define SHARDC_REPORT_TIMELINE_H

#include "passes/Pipeline.h"
#include <string>
#include <vector>

namespace shardc {

struct TimelineSlice {
  enum Kind : uint8_t {
    Forward,   ///< a forward statement
    Backward,  ///< a backward statement (recompute included)
    Sync,      ///< a gradient sync, on the communication stream
    Send,      ///< a pipeline's point-to-point send
    Optimizer, ///< an update or a param gather, after the schedule
    Group,     ///< one microbatch's forward or backward on a stage
  };
  Kind What = Forward;
  unsigned Stage = 0;
  bool Comms = false;         ///< on the communication stream
  unsigned Stmt = NoStmt;     ///< the statement, if any
  int64_t Microbatch = -1;    ///< -1: not one microbatch's
  unsigned Chunk = 0;         ///< the interleaved schedule's chunk
  bool BackwardSlice = false; ///< a Microbatch slice: its backward
  /// Past the event limit: the runs a statement's slice stands for (its
  /// repeats' iterations times the microbatches), the microbatches a group
  /// stands for, and whether it is a stage's span of the middle microbatches
  /// (drawn on a third thread, as it overlaps the drawn ones).
  int64_t Runs = 1;
  int64_t Microbatches = 1;
  bool Span = false;
  double Start = 0, Duration = 0;
};
llvm::StringRef timelineKindName(TimelineSlice::Kind K);

/// The most events a trace draws one by one (docs/trace.md): past it each
/// repeat's body is drawn once, standing for all its iterations, and only a
/// step's first and last microbatches are drawn, the others aggregated, so
/// the trace stays small and still ends at the step time.
constexpr int64_t TraceEventLimit = 1000000;

struct Timeline {
  unsigned Stages = 1;
  double End = 0;
  std::vector<TimelineSlice> Slices;
  /// The events the trace would have drawn one by one (at most 2^63 - 1),
  /// and whether that was past the event limit so it was aggregated.
  int64_t FullEvents = 0;
  int64_t EventLimit = TraceEventLimit;
  bool Aggregated = false;
};

/// Lays out the costed program \p C (after schedule-step for a training
/// step; after estimate-costs otherwise), aggregating past \p EventLimit
/// events (the fuzz targets draw with a small one, to stay fast).
Timeline buildTimeline(const MeshCompile &C,
                       int64_t EventLimit = TraceEventLimit);

} // namespace shardc

#endif // SHARDC_REPORT_TIMELINE_H
