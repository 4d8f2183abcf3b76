//===- Suggest.h - "did you mean" -------------------------------*- C++ -*-===//
//
// The one place a misspelt name finds its closest candidate, for every phase
// that reports an unknown name.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIAG_SUGGEST_H
#define SHARDC_DIAG_SUGGEST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace shardc {

/// The candidate closest to \p Name by edit distance, if close enough to be
/// a plausible typo. A candidate that differs from \p Name only in case wins
/// outright; a one-letter name gets no other suggestion.
std::optional<std::string> closestName(llvm::StringRef Name,
                                       llvm::ArrayRef<std::string> Candidates);

/// closestName, or else the candidate \p Name abbreviates or is an
/// abbreviation of (`hbm_bandwidth` for `hbm_bw`): for a fixed vocabulary
/// of abbreviated names, such as a block's properties. Not for declared names
/// or keywords, where any word with the right letters would match.
std::optional<std::string>
closestNameOrAbbreviation(llvm::StringRef Name,
                          llvm::ArrayRef<std::string> Candidates);

} // namespace shardc

#endif // SHARDC_DIAG_SUGGEST_H
