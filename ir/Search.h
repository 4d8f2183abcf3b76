//===- Search.h - What a layout search ranges over --------------*- C++ -*-===//
//
// A file is a search when its mesh has a `?` size, a train knob is written
// `in SET` or `= ?`, or it has a `search { }` block (docs/search.md). The
// frontend checks what is written and fills a SearchSpec; the search
// (search/) enumerates it and compiles each candidate with compile(). Plain
// data: values, where each was written, and the source ranges --emit=best
// rewrites.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_SEARCH_H
#define SHARDC_IR_SEARCH_H

#include "diag/Location.h"
#include "llvm/Support/SMLoc.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardc {

/// A mesh axis whose size is searched: `?` or `? in SET`.
struct SearchedAxis {
  unsigned Axis = 0; ///< its index in the program's mesh
  /// `? in SET`: the sizes written, ascending, no duplicates; none for `?`
  /// (every divisor of the chip counts `chips` allows).
  std::optional<std::vector<int64_t>> Sizes;
  Loc At;
  /// The size's text (`?` or `? in {1, 2}`), which --emit=best replaces.
  llvm::SMRange SizeRange;
};

/// The train settings a search may vary, in their canonical order.
enum class SearchKnob : uint8_t {
  Microbatches,
  MicrobatchSize,
  Zero,
  Recompute,
  Schedule,
  Chunks
};
constexpr unsigned NumSearchKnobs = 6;

/// A knob written `NAME in SET` or `NAME = ?`, in `train` or `search`.
struct SearchedKnob {
  SearchKnob Knob = SearchKnob::Zero;
  /// The values written, in their canonical order (numbers ascending;
  /// recompute and schedule as their RecomputePolicy and PipelineSchedule
  /// values); none for `= ?` (every value the rules allow).
  std::optional<std::vector<int64_t>> Values;
  Loc At;
  /// The whole property (`zero in {0, 1};`), which --emit=best removes
  /// (and writes `NAME = VALUE;` in `train` instead).
  llvm::SMRange PropRange;
  bool InSearchBlock = false;
};

enum class SearchObjective : uint8_t { StepTime, Cost, Memory };
enum class SearchChipsRule : uint8_t { Equal, AtMost, InSet };
enum class SearchPareto : uint8_t { None, Chips, Memory };

/// `dim B = G per step;`
struct PerStepDim {
  std::string Name;
  int64_t Global = 0; ///< G, the global batch
  Loc At;
};

struct SearchSpec {
  std::vector<SearchedAxis> Axes;  ///< in the mesh's order
  std::vector<SearchedKnob> Knobs; ///< in SearchKnob order
  /// `chips = N` (the default, N the cluster's chips), `chips <= N` or
  /// `chips in SET`: the chip counts a layout may use.
  SearchChipsRule ChipsRule = SearchChipsRule::Equal;
  std::vector<int64_t> Chips; ///< {N}, {N} or the set, ascending
  bool FreeOrder = false;     ///< `order = free`
  SearchObjective Minimize = SearchObjective::StepTime;
  /// Bytes per chip (default: the chip's hbm), a fraction, seconds.
  std::optional<double> MaxMemory, MinMfu, MaxStepTime;
  unsigned Top = 10;
  SearchPareto Pareto = SearchPareto::None;
  uint64_t MaxCandidates = 100'000'000;
  std::optional<double> TimeLimit; ///< seconds
  std::optional<PerStepDim> PerStep;
  /// The `search { }` block, --emit=best removes it; invalid without one.
  llvm::SMRange BlockRange;
  /// The `train` block's closing `}`, before which --emit=best writes the
  /// knobs searched from the `search` block; invalid without `train`.
  llvm::SMLoc TrainEnd;
  /// Where a search-wide error ("no candidate is feasible") is reported:
  /// the `search` block, or else the mesh declaration.
  Loc At;
  /// Where each property of the `search` block was written (for
  /// diagnostics about their values); keyed by the property's name.
  std::vector<std::pair<std::string, Loc>> PropertyAt;
};

} // namespace shardc

#endif // SHARDC_IR_SEARCH_H
