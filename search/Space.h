//===- Space.h - A search's layouts and candidates --------------*- C++ -*-===//
//
// The enumeration docs/search.md defines, in canonical order: sizes in
// written axis order, smaller first; orders as permutations of the written
// positions, lexicographic (size-1 axes stay where they are written); knobs
// in SearchKnob order, values ascending (words in their documented order).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SEARCH_SPACE_H
#define SHARDC_SEARCH_SPACE_H

#include "ir/Module.h"
#include "ir/Search.h"
#include "search/Search.h"
#include <functional>
#include <utility>
#include <vector>

namespace shardc {

/// N's divisors, ascending.
std::vector<int64_t> divisorsOf(int64_t N);
/// Whether a layout may use \p N chips.
bool chipsAllowed(const SearchSpec &Spec, int64_t N);
/// Each axis's sizes (written order): a fixed axis its own, a searched one
/// its set or every divisor of an allowed chip count.
std::vector<std::vector<int64_t>> axisDomains(const Module &Checked,
                                              const SearchSpec &Spec);
/// The size tuples whose product `chips` allows, canonical order.
std::vector<std::vector<int64_t>>
sizeTuples(const std::vector<std::vector<int64_t>> &Domains,
           const SearchSpec &Spec);
/// The orders of one size tuple (just the written one unless \p Free).
std::vector<std::vector<unsigned>> ordersOf(const std::vector<int64_t> &Sizes,
                                            bool Free);
/// A knob value's place in canonical order.
int64_t knobRank(SearchKnob K, int64_t V);

/// One layout's knob domains.
struct KnobPlan {
  /// The knobs other than schedule and chunks, in SearchKnob order.
  std::vector<std::pair<SearchKnob, std::vector<int64_t>>> Simple;
  /// (schedule, chunks) pairs, when either is searched.
  bool HasSchedule = false, ScheduleSearched = false;
  std::vector<std::pair<int64_t, int64_t>> Schedules;
  uint64_t count() const;
  /// Calls \p F with \p C's knobs set to each combination, canonical order.
  void forEach(const std::function<void(Candidate &)> &F, Candidate &C) const;
};
/// A searched knob's values before a layout narrows them, canonical order
/// (chunks: none, each layout has its own).
std::vector<int64_t> knobDomain(const SearchSpec &Spec, const SearchedKnob &S);
/// One layout's knob domains; \p Checked has the mesh as written, whose
/// axis order \p Sizes follows.
KnobPlan knobPlan(const Module &Checked, const SearchSpec &Spec,
                  const std::vector<int64_t> &Sizes);

} // namespace shardc

#endif // SHARDC_SEARCH_SPACE_H
