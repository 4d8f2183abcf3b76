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

/// Whether \p Short abbreviates \p Long: the same first letter and the rest
/// of its letters in order (`hbm_bw` of `hbm_bandwidth`).
static bool abbreviates(llvm::StringRef Short, llvm::StringRef Long) {
  if (Short.empty() || Long.empty() || Short[0] != Long[0])
    return false;
  size_t I = 0;
  for (char C : Long)
    if (I < Short.size() && C == Short[I])
      ++I;
  return I == Short.size();
}

/// The candidate that abbreviates \p Name or that \p Name abbreviates, the
/// nearest in length (`hbm_bw` over `hbm` for `hbm_bandwidth`); equally
/// near ones, the alphabetically first (a symbol table's hash order must not
/// choose). Abbreviations of under three letters match too much.
static std::optional<std::string>
closestAbbreviation(llvm::StringRef Name,
                    llvm::ArrayRef<std::string> Candidates) {
  constexpr size_t MinAbbreviation = 3;
  std::optional<std::string> Result;
  size_t BestShort = 0, BestLong = 1;
  for (const std::string &C : Candidates) {
    llvm::StringRef Short = C.size() < Name.size() ? llvm::StringRef(C) : Name;
    llvm::StringRef Long = C.size() < Name.size() ? Name : llvm::StringRef(C);
    if (Short.size() < MinAbbreviation || Short == Long ||
        !abbreviates(Short, Long))
      continue;
    // Nearer in length: a larger Short / Long (compared multiplied out).
    size_t Mine = Short.size() * BestLong, Best = BestShort * Long.size();
    if (Mine > Best || (Mine == Best && Result && C < *Result)) {
      BestShort = Short.size();
      BestLong = Long.size();
      Result = C;
    }
  }
  return Result;
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

std::optional<std::string>
shardc::closestNameOrAbbreviation(llvm::StringRef Name,
                                  llvm::ArrayRef<std::string> Candidates) {
  if (std::optional<std::string> Close = closestName(Name, Candidates))
    return Close;
  if (Name.size() > MaxSuggestedLength)
    return std::nullopt;
  return closestAbbreviation(Name, Candidates);
}
