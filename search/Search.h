//===- Search.h - The layout search ------------------------------*- C++
//-*-===//
//
// Enumerates a SearchSpec's layouts (axis sizes and orders) and candidates
// (a layout and a value per searched knob) in canonical order, decides each
// once (rejected under the first failing reason, or feasible), and ranks the
// feasible ones. Every candidate is one compile(checked, Layout): the same
// call a file, a re-cost and an inference phase make, so a row's numbers are
// those of the file --emit=best prints, by construction. Above passes/,
// below report/ (which prints a SearchResult) and the driver.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SEARCH_SEARCH_H
#define SHARDC_SEARCH_SEARCH_H

#include "ir/Module.h"
#include "ir/Search.h"
#include "passes/Pipeline.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace shardc {

/// One point of the space: a size per axis (in written order), an order
/// (the written positions, major to minor) and a value per knob (searched
/// knobs' values; the others unused).
struct Candidate {
  std::vector<int64_t> Sizes;
  std::vector<unsigned> Order;
  std::array<int64_t, NumSearchKnobs> Knobs{};
  /// The knobs whose value the candidate sets (searched, or collapsed to
  /// their only value): SearchKnob bits.
  unsigned KnobMask = 0;
};

/// A feasible candidate's numbers, off its compile's tables.
struct CandidateResult {
  Candidate At;
  int64_t Chips = 0;
  double StepTime = 0, Mfu = 0;
  std::optional<double> Memory; ///< none without a memory table (forward)
  std::string LargestMemoryTerm;
  std::string Bound; ///< compute, memory, comms or bubble
  double ExposedComms = 0, Bubble = 0;
  double Objective = 0;
};

enum class SearchLevel : uint8_t { Layout, Candidate };

/// The nearest miss of a reason.
struct NearestMiss {
  Candidate At;
  std::string Message;
  /// For limits (memory, MFU, step time): the value, the limit, and for
  /// memory its terms largest first.
  std::optional<double> Value, Limit;
  std::vector<std::pair<std::string, double>> Terms;
};

struct Rejection {
  std::string Reason; ///< the diagnostic's name: NotDivisible, StepOverHbm
  SearchLevel Level = SearchLevel::Layout;
  uint64_t Count = 0; ///< layouts or candidates, by its level
  /// The candidates it rejected: the layouts' candidates for a layout's
  /// reason, Count for a candidate's.
  uint64_t Candidates = 0;
  NearestMiss Nearest;
  double NearestRank = 0; ///< relative miss (limits), for the merge
};

struct SearchStats {
  unsigned Threads = 1;
  uint64_t Recosts = 0;
  /// Compile time summed over the threads: the layouts' neutral compiles
  /// (level 1) and the candidates' (level 2).
  double LayoutTimeS = 0, KnobTimeS = 0;
  double TimeS = 0;
  bool Stopped = false; ///< at time_limit
};

struct SearchResult {
  /// Candidates counts those of the compiled layouts (decided one by one);
  /// Decided adds the rejected layouts' (decided with their layout).
  uint64_t Layouts = 0, LayoutsRejected = 0, Candidates = 0, Feasible = 0;
  uint64_t Decided = 0;
  /// The space's size before anything was decided.
  uint64_t SpaceCandidates = 0;
  std::vector<CandidateResult> Top, Pareto;
  std::vector<Rejection> Rejected; ///< by level, then count, descending
  SearchStats Stats;
};

struct SearchOptions {
  unsigned Threads = 1;
  /// Called about once a second, after the first second, from a thread of
  /// its own with the candidates decided so far, the space's size and the
  /// seconds elapsed (the driver's progress line on stderr); and once more
  /// with Done set when the search ends.
  std::function<void(uint64_t Decided, uint64_t Total, double Seconds,
                     bool Done)>
      Progress;
};

/// The checked program with its mesh's axes in \p Order (written positions,
/// major to minor; empty: as written): the driver re-checks the file with
/// the mesh so written. Null after reporting why.
using CheckedForOrder = std::function<const Module *(llvm::ArrayRef<unsigned>)>;

/// The number of candidates the space holds, computed before any compile
/// (SEARCH.md's budget): layouts' knob domains multiplied out.
uint64_t spaceSize(const Module &Checked, const SearchSpec &Spec);

/// Runs the search. \p SM is the program's, read (never written) by the
/// threads' diagnostics: its line tables are built first.
SearchResult runSearch(const SearchSpec &Spec, const CheckedForOrder &Checked,
                       llvm::SourceMgr &SM, const SearchOptions &Opts);

/// The candidate's layout: the mesh (in its order, with its sizes), the
/// per-step dim rebound and the knobs, on \p Checked (its order's module).
/// \p Written: the mesh's axis names in written order.
Layout candidateLayout(const Module &Checked,
                       llvm::ArrayRef<std::string> Written,
                       const SearchSpec &Spec, const Candidate &C);

/// A layout's neutral compile (\p L: a candidate with no knob set): as
/// candidateLayout, with the per-step dim made a multiple of every product
/// of axes that shards it. A batch the data-parallel ranks do not split is
/// a candidate's reason (decided by arithmetic), so it neither rejects the
/// layout nor hides the layout's own errors behind it.
Layout neutralLayout(const Module &Checked, llvm::ArrayRef<std::string> Written,
                     const SearchSpec &Spec, const Candidate &L);

/// `[D: 32, P: 4, T: 8]`, in the candidate's order.
std::string meshText(llvm::ArrayRef<std::string> Written, const Candidate &C);
/// Whether a row shows knob \p K: a knob the candidate sets, chunks only
/// beside an interleaved schedule.
bool knobShown(const Candidate &C, SearchKnob K);
/// The searched knobs, `zero = 1, recompute = full`.
std::string knobsText(const Candidate &C);
llvm::StringRef knobName(SearchKnob K);
/// A knob's value as the file writes it (`1f1b`, `full`, `8`).
std::string knobValueText(SearchKnob K, int64_t V);

} // namespace shardc

#endif // SHARDC_SEARCH_SEARCH_H
