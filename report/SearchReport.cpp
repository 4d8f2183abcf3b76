//===- SearchReport.cpp - A layout search's rows and reasons --------------===//
#include "report/SearchReport.h"
#include "report/JsonWriter.h"
#include "support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <fmt/format.h>

using namespace shardc;

static llvm::StringRef objectiveName(SearchObjective O) {
  switch (O) {
  case SearchObjective::StepTime:
    return "step_time";
  case SearchObjective::Cost:
    return "cost";
  case SearchObjective::Memory:
    return "memory";
  }
  return "step_time";
}

static std::string memoryText(const CandidateResult &R) {
  if (!R.Memory)
    return "-";
  return formatAmount(*R.Memory, "B") + " (" + R.LargestMemoryTerm + ")";
}

/// The rows, their gap measured to \p Ref, the top row's objective (the
/// Pareto front's too: its first row is not the best).
static void printRows(llvm::ArrayRef<CandidateResult> Rows,
                      const SearchContext &X, double Ref,
                      llvm::raw_ostream &OS) {
  std::vector<std::string> Meshes, Knobs;
  size_t MeshW = 6, KnobW = 5, MemW = 11;
  for (const CandidateResult &R : Rows) {
    Meshes.push_back(meshText(X.Axes, R.At));
    Knobs.push_back(knobsText(R.At));
    MeshW = std::max(MeshW, Meshes.back().size());
    KnobW = std::max(KnobW, Knobs.back().size());
    MemW = std::max(MemW, memoryText(R).size());
  }
  bool HasKnobs = KnobW > 5 || !X.Spec->Knobs.empty();
  OS << fmt::format("  {:>4}  {:<{}}  ", "rank", "layout", MeshW);
  if (HasKnobs)
    OS << fmt::format("{:<{}}  ", "knobs", KnobW);
  OS << fmt::format("{:>10}  {:>6}  {:<{}}  {:<7}  {:>10}  {:>7}\n",
                    "step time", "MFU", "memory/chip", MemW, "bound", "exposed",
                    "gap");
  for (size_t I = 0; I != Rows.size(); ++I) {
    const CandidateResult &R = Rows[I];
    OS << fmt::format("  {:>4}  {:<{}}  ", I + 1, Meshes[I], MeshW);
    if (HasKnobs)
      OS << fmt::format("{:<{}}  ", Knobs[I].empty() ? "-" : Knobs[I], KnobW);
    double Gap = Ref > 0 ? R.Objective / Ref - 1 : 0;
    OS << fmt::format("{:>10}  {:>5.1f}%  {:<{}}  {:<7}  {:>10}  {:>6.1f}%\n",
                      formatTime(R.StepTime), 100 * R.Mfu, memoryText(R), MemW,
                      R.Bound, formatTime(R.ExposedComms), 100 * Gap);
  }
}

static std::string nearestText(const Rejection &Rj, const SearchContext &X) {
  std::string S = meshText(X.Axes, Rj.Nearest.At);
  std::string K = knobsText(Rj.Nearest.At);
  if (Rj.Level == SearchLevel::Candidate && !K.empty())
    S += " " + K;
  S += ": " + Rj.Nearest.Message;
  if (!Rj.Nearest.Terms.empty()) {
    std::vector<std::string> T;
    for (const auto &[Name, Bytes] : Rj.Nearest.Terms)
      if (Bytes > 0)
        T.push_back(Name + " " + formatAmount(Bytes, "B"));
    S += " (" + fmt::format("{}", fmt::join(T, ", ")) + ")";
  }
  return S;
}

void shardc::printSearchText(const SearchResult &R, const SearchContext &X,
                             llvm::raw_ostream &OS) {
  const SearchSpec &Spec = *X.Spec;
  OS << fmt::format("search: minimize {}; {} layouts ({} rejected, {} "
                    "compiled), {} candidates, {} feasible{}\n",
                    objectiveName(Spec.Minimize).str(), R.Layouts,
                    R.LayoutsRejected, R.Layouts - R.LayoutsRejected,
                    R.Candidates, R.Feasible,
                    R.Stats.Stopped ? " (stopped at time_limit: partial)" : "");
  if (!R.Top.empty()) {
    OS << fmt::format("\ntop {} of {}:\n", R.Top.size(), R.Feasible);
    printRows(R.Top, X, R.Top.front().Objective, OS);
  }
  if (!R.Pareto.empty()) {
    OS << fmt::format("\npareto front (step time against {}):\n",
                      Spec.Pareto == SearchPareto::Chips ? "chips" : "memory");
    printRows(R.Pareto, X, R.Top.empty() ? 0 : R.Top.front().Objective, OS);
  }
  if (!R.Rejected.empty()) {
    OS << "\nrejected:\n";
    for (const Rejection &Rj : R.Rejected) {
      uint64_t Of = Rj.Level == SearchLevel::Layout ? R.Layouts : R.Candidates;
      OS << fmt::format(
          "  {:<24} {:<9} {:>8}  {:>5.1f}%  nearest: {}\n", Rj.Reason,
          Rj.Level == SearchLevel::Layout ? "layout" : "candidate", Rj.Count,
          Of ? 100.0 * double(Rj.Count) / double(Of) : 0, nearestText(Rj, X));
    }
  }
  OS << fmt::format("\nstatistics: {} re-costs in {:.2f} s on {} thread{} "
                    "({:.0f} candidates/s)\n",
                    R.Stats.Recosts, R.Stats.TimeS, R.Stats.Threads,
                    R.Stats.Threads == 1 ? "" : "s",
                    R.Stats.TimeS > 0 ? double(R.Candidates) / R.Stats.TimeS
                                      : 0);
}

static void candidateJson(JsonWriter &J, const Candidate &C,
                          const SearchContext &X) {
  J.attributeArray("mesh", [&] {
    for (unsigned Pos : C.Order)
      J.object([&] {
        J.attribute("axis", X.Axes[Pos]);
        J.attribute("size", C.Sizes[Pos]);
      });
  });
  J.attributeObject("knobs", [&] {
    for (unsigned K = 0; K != NumSearchKnobs; ++K) {
      if (!knobShown(C, SearchKnob(K)))
        continue;
      auto Kind = SearchKnob(K);
      if (Kind == SearchKnob::Zero || Kind == SearchKnob::Microbatches ||
          Kind == SearchKnob::MicrobatchSize || Kind == SearchKnob::Chunks)
        J.attribute(knobName(Kind), C.Knobs[K]);
      else
        J.attribute(knobName(Kind), knobValueText(Kind, C.Knobs[K]));
    }
  });
}

static void rowsJson(JsonWriter &J, llvm::StringRef Key,
                     llvm::ArrayRef<CandidateResult> Rows,
                     const SearchContext &X, double Ref) {
  J.attributeArray(Key, [&] {
    for (size_t I = 0; I != Rows.size(); ++I) {
      const CandidateResult &R = Rows[I];
      J.object([&] {
        J.attribute("bound", R.Bound);
        J.attribute("bubble", R.Bubble);
        J.attribute("exposed_comms_s", R.ExposedComms);
        J.attribute("gap", Ref > 0 ? R.Objective / Ref - 1 : 0.0);
        candidateJson(J, R.At, X);
        J.attribute("largest_memory_term", R.LargestMemoryTerm);
        if (R.Memory)
          J.attribute("memory_bytes", *R.Memory);
        J.attribute("mfu", R.Mfu);
        J.attribute("objective", R.Objective);
        J.attribute("rank", int64_t(I + 1));
        J.attribute("step_time_s", R.StepTime);
      });
    }
  });
}

void shardc::writeSearchJson(JsonWriter &J, const SearchResult &R,
                             const SearchContext &X) {
  J.attributeObject("search", [&] {
    J.attribute("objective", objectiveName(X.Spec->Minimize));
    double Ref = R.Top.empty() ? 0 : R.Top.front().Objective;
    rowsJson(J, "pareto", R.Pareto, X, Ref);
    J.attributeArray("rejected", [&] {
      for (const Rejection &Rj : R.Rejected)
        J.object([&] {
          uint64_t Of =
              Rj.Level == SearchLevel::Layout ? R.Layouts : R.Candidates;
          J.attribute("candidates", int64_t(Rj.Candidates));
          J.attribute("count", int64_t(Rj.Count));
          J.attribute("level",
                      Rj.Level == SearchLevel::Layout ? "layout" : "candidate");
          J.attribute("message", Rj.Nearest.Message);
          J.attributeObject("nearest", [&] {
            candidateJson(J, Rj.Nearest.At, X);
            if (Rj.Nearest.Limit)
              J.attribute("limit", *Rj.Nearest.Limit);
            J.attribute("message", Rj.Nearest.Message);
            if (Rj.Nearest.Value)
              J.attribute("value", *Rj.Nearest.Value);
          });
          J.attribute("reason", Rj.Reason);
          J.attribute("share", Of ? double(Rj.Count) / double(Of) : 0.0);
        });
    });
    J.attributeObject("space", [&] {
      J.attribute("candidates", int64_t(R.Candidates));
      J.attribute("decided", int64_t(R.Decided));
      J.attribute("feasible", int64_t(R.Feasible));
      J.attribute("layouts", int64_t(R.Layouts));
      J.attribute("layouts_rejected", int64_t(R.LayoutsRejected));
      J.attribute("size", int64_t(R.SpaceCandidates));
    });
    J.attributeObject("stats", [&] {
      J.attribute("candidates_per_s", R.Stats.TimeS > 0
                                          ? double(R.Candidates) / R.Stats.TimeS
                                          : 0.0);
      J.attribute("knob_time_s", R.Stats.KnobTimeS);
      J.attribute("layout_time_s", R.Stats.LayoutTimeS);
      J.attribute("layouts_per_s",
                  R.Stats.TimeS > 0 ? double(R.Layouts) / R.Stats.TimeS : 0.0);
      J.attribute("recosts", int64_t(R.Stats.Recosts));
      J.attribute("stopped", R.Stats.Stopped);
      J.attribute("threads", int64_t(R.Stats.Threads));
      J.attribute("time_s", R.Stats.TimeS);
    });
    rowsJson(J, "top", R.Top, X, Ref);
  });
}
