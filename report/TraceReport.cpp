//===- TraceReport.cpp - The step as Chrome trace events ------------------===//
//
// `--format=trace` (docs/trace.md): the timeline (report/Timeline.h) as
// Chrome's trace-event JSON, which Perfetto and chrome://tracing open. One
// process per pipeline stage, with two threads, the compute and the
// communication stream; complete ("X") events in microseconds, each named
// after its statement, its category the part of the step it belongs to.
//
//===----------------------------------------------------------------------===//
#include "report/JsonWriter.h"
#include "report/Report.h"
#include "report/Timeline.h"
#include <fmt/format.h>

using namespace shardc;
using OStream = shardc::JsonWriter;

namespace {

/// A metadata event: a process's or thread's name (\p Name), or a
/// process's place (\p Sort).
void metadata(OStream &J, llvm::StringRef What, unsigned Pid,
              std::optional<unsigned> Tid, const std::string &Name,
              std::optional<int64_t> Sort = std::nullopt) {
  J.object([&] {
    J.attribute("name", What);
    J.attribute("ph", "M");
    J.attribute("pid", int64_t(Pid));
    if (Tid)
      J.attribute("tid", int64_t(*Tid));
    J.attributeObject("args", [&] {
      if (Sort)
        J.attribute("sort_index", *Sort);
      else
        J.attribute("name", Name);
    });
  });
}

std::string sliceName(const Module &M, llvm::ArrayRef<std::string> Names,
                      const TimelineSlice &S) {
  if (S.Span)
    return fmt::format("microbatches 1 to {} (aggregated)", S.Microbatches);
  if (S.What == TimelineSlice::Group && S.Microbatches > 1)
    return fmt::format("{} {} to {} (aggregated)",
                       S.BackwardSlice ? "backward" : "forward", S.Microbatch,
                       S.Microbatch + S.Microbatches - 1);
  if (S.What == TimelineSlice::Group)
    return fmt::format("{} {}{}", S.BackwardSlice ? "backward" : "forward",
                       S.Microbatch,
                       S.Chunk ? fmt::format(" (chunk {})", S.Chunk) : "");
  if (S.What == TimelineSlice::Send)
    return S.BackwardSlice ? "send gradient to the previous stage"
                           : "send to the next stage";
  const Statement &St = M.statement(S.Stmt);
  std::string Runs = S.Runs > 1 ? fmt::format(" (x{})", S.Runs) : "";
  // A param's update and ZeRO's gather of it share the param's name.
  // A fixed cost's statement names what it is ("grad_norm W").
  if (S.What == TimelineSlice::Optimizer && St.From &&
      St.From->What != Provenance::Fixed)
    return (St.From->What == Provenance::Gather ? "gather " : "update ") +
           St.Name + Runs;
  return Names[S.Stmt] + Runs;
}

/// A statement's slice's cost terms, for one run (docs/trace.md).
void costArgs(OStream &J, const OpCost &Cost) {
  J.attribute("bound", boundName(Cost.Bounded));
  J.attribute("t_comms_s", Cost.TComms);
  J.attribute("t_hbm_s", Cost.THbm);
  J.attribute("t_math_s", Cost.TMath);
}

/// The statement's cost when \p S is one statement's slice.
const OpCost *sliceCost(const MeshCompile &C, const TimelineSlice &S) {
  if (S.Stmt == NoStmt || S.Span || S.What == TimelineSlice::Group ||
      S.What == TimelineSlice::Send)
    return nullptr;
  const auto &Cost = C.Tables.StatementCosts[S.Stmt];
  return Cost ? &*Cost : nullptr;
}

void slice(OStream &J, const MeshCompile &C, llvm::ArrayRef<std::string> Names,
           const TimelineSlice &S, llvm::StringRef Suffix = "",
           bool OnComms = false, double Start = 0, double Duration = 0) {
  const Module &M = *C.lowered();
  if (!OnComms)
    Start = S.Start, Duration = S.Duration;
  J.object([&] {
    J.attribute("name", sliceName(M, Names, S) + Suffix.str());
    J.attribute("cat", OnComms ? llvm::StringRef("collective")
                               : timelineKindName(S.What));
    J.attribute("ph", "X");
    J.attribute("ts", Start * 1e6);
    J.attribute("dur", Duration * 1e6);
    J.attribute("pid", int64_t(S.Stage));
    J.attribute("tid", int64_t(OnComms ? 3 : S.Span ? 2 : S.Comms ? 1 : 0));
    J.attributeObject("args", [&] {
      if (const OpCost *Cost = sliceCost(C, S))
        costArgs(J, *Cost);
      if (S.Stmt != NoStmt) {
        const Statement &St = M.statement(S.Stmt);
        J.attribute("line", int64_t(St.Location.Line));
        J.attribute("phase", phaseName(St.Ph));
      }
      if (S.Microbatch >= 0)
        J.attribute("microbatch", S.Microbatch);
      if (S.Chunk)
        J.attribute("chunk", int64_t(S.Chunk));
      // Past the event limit (docs/trace.md): what the slice stands for.
      if (S.Microbatches > 1)
        J.attribute("aggregated_microbatches", S.Microbatches);
      if (S.Runs > 1)
        J.attribute("aggregated_runs", S.Runs);
    });
  });
}

/// A compute statement's own collectives (a gather a contraction's plan
/// makes, ZeRO 3's gathers, a ReduceScatter after the product) are priced
/// inside its compute slice; they are drawn again on a communication
/// thread of their own (thread 1's syncs run beside them, and a thread's
/// slices must not overlap), their share of the slice long: from its start
/// under overlap, where they run beside the compute, else after it.
bool hasAttached(const MeshCompile &C, const TimelineSlice &S) {
  const OpCost *Cost = sliceCost(C, S);
  return !S.Comms && Cost && Cost->TComms > 0 && Cost->Time > 0 &&
         (Cost->TMath > 0 || Cost->THbm > 0);
}

void attachedCollectives(OStream &J, const MeshCompile &C,
                         llvm::ArrayRef<std::string> Names,
                         const TimelineSlice &S) {
  if (!hasAttached(C, S))
    return;
  const OpCost *Cost = sliceCost(C, S);
  double Dur = S.Duration * std::min(1.0, Cost->TComms / Cost->Time);
  double Start = C.config().Overlap ? S.Start : S.Start + S.Duration - Dur;
  slice(J, C, Names, S, " (collectives)", /*OnComms=*/true, Start, Dur);
}

} // namespace

TraceSummary shardc::printTraceReport(const MeshCompile &C,
                                      llvm::raw_ostream &OS,
                                      int64_t EventLimit) {
  Timeline T = buildTimeline(C, EventLimit);
  // Slices are named as the report's rows (derived ones that share a
  // name as --emit=ir prints their values).
  std::vector<std::string> Names = rowNames(C);
  bool Attached = llvm::any_of(
      T.Slices, [&](const TimelineSlice &S) { return hasAttached(C, S); });
  OStream J(OS);
  J.object([&] {
    J.attribute("displayTimeUnit", "ms");
    J.attributeObject("otherData", [&] {
      J.attribute("generator", "shardc");
      J.attribute("mesh", C.mesh().Name);
      J.attribute("stages", int64_t(T.Stages));
      J.attribute("end_s", T.End);
      if (T.Aggregated) {
        J.attribute("aggregated", true);
        J.attribute("event_limit", T.EventLimit);
        J.attribute("full_events", T.FullEvents);
      }
    });
    J.attributeArray("traceEvents", [&] {
      for (unsigned S = 0; S < T.Stages; ++S) {
        metadata(J, "process_name", S, std::nullopt,
                 T.Stages > 1 ? fmt::format("stage {}", S) : "chip");
        metadata(J, "process_sort_index", S, std::nullopt, "", int64_t(S));
        metadata(J, "thread_name", S, 0, "compute");
        metadata(J, "thread_name", S, 1, "communication");
        if (Attached)
          metadata(J, "thread_name", S, 3,
                   "communication (statements' own collectives)");
        if (T.Aggregated && T.Stages > 1)
          metadata(J, "thread_name", S, 2, "aggregated microbatches");
      }
      for (const TimelineSlice &S : T.Slices) {
        slice(J, C, Names, S);
        attachedCollectives(J, C, Names, S);
      }
    });
  });
  OS << "\n";
  return {T.Aggregated, T.FullEvents};
}

void shardc::printEmptyTraceReport(llvm::raw_ostream &OS) {
  OStream J(OS);
  J.object([&] {
    J.attribute("displayTimeUnit", "ms");
    J.attributeObject("otherData", [&] {
      J.attribute("generator", "shardc");
      J.attribute("end_s", 0.0);
    });
    J.attributeArray("traceEvents", [&] {});
  });
  OS << "\n";
}
