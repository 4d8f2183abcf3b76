//===- Rows.h - A feasible candidate's row, and the ranking -----*- C++ -*-===//
//
// What the engine reads off a candidate's compile (step time, MFU, memory
// and its largest term, what bounds the step, the objective) and how rows
// rank: internal to search/.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SEARCH_ROWS_H
#define SHARDC_SEARCH_ROWS_H

#include "passes/Pipeline.h"
#include "search/Search.h"
#include <string>
#include <utility>
#include <vector>

namespace shardc {

/// Candidate \p At's row, off its compile \p C.
CandidateResult resultOf(const MeshCompile &C, const Candidate &At,
                         const SearchSpec &Spec);
/// \p C's memory terms, largest first (a memory miss's).
std::vector<std::pair<std::string, double>> memoryTerms(const MeshCompile &C);
/// Ranking: the objective, then step time, chips, memory, canonical order
/// (\p IA and \p IB: the index each was enumerated at).
bool ranksBefore(const CandidateResult &A, size_t IA, const CandidateResult &B,
                 size_t IB);
/// The Pareto front of step time against chips or memory.
std::vector<CandidateResult> paretoOf(const std::vector<CandidateResult> &All,
                                      SearchPareto By);

} // namespace shardc

#endif // SHARDC_SEARCH_ROWS_H
