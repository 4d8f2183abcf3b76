//===- Suggest.cpp - "did you mean" ---------------------------------------===//
#include "diag/Suggest.h"

using namespace shardc;

/// Names longer than this get no suggestion: nobody mistypes them, and the
/// edit distance is O(n x m), so two 1 MB names took minutes
/// (tests/lit/hostile/long-names.test).
constexpr size_t MaxSuggestedLength = 128;

/// A case-only difference (`h100` for `H100`, `TFLOPs` for `TFLOPS`) is the
/// likeliest typo of all.
static bool differsInCaseOnly(llvm::StringRef Name, llvm::StringRef C) {
  return Name.equals_insensitive(C) && Name != C;
}

std::optional<std::string>
shardc::closestName(llvm::StringRef Name,
                    llvm::ArrayRef<std::string> Candidates) {
  if (Name.size() > MaxSuggestedLength)
    return std::nullopt;
  // Every one-letter name is one edit from every other, so a suggestion for
  // `K` would only name some other one-letter dim: noise, unless the case is
  // all that differs.
  if (Name.size() == 1) {
    for (const std::string &C : Candidates)
      if (differsInCaseOnly(Name, C))
        return C;
    return std::nullopt;
  }
  // A suggestion must be closer than a third of the name, or it is noise.
  unsigned Best = std::max<unsigned>(1, (Name.size() + 2) / 3) + 1;
  std::optional<std::string> Result;
  for (const std::string &C : Candidates) {
    // The lengths alone put it further than the best so far.
    if (std::max(C.size(), Name.size()) - std::min(C.size(), Name.size()) >
        Best)
      continue;
    if (differsInCaseOnly(Name, C))
      return C;
    unsigned D = Name.edit_distance(C, /*AllowReplacements=*/true, Best);
    // Equally close candidates: the shorter, then the alphabetically first,
    // so the suggestion does not depend on a symbol table's hash order.
    bool Tie = D == Best && Result &&
               (C.size() < Result->size() ||
                (C.size() == Result->size() && C < *Result));
    if (D < Best || Tie) {
      Best = D;
      Result = C;
    }
  }
  return Result;
}
