//===- Suggest.cpp - "did you mean" ---------------------------------------===//
#include "frontend/Sema.h"

using namespace shardc;

std::optional<std::string>
shardc::closestName(llvm::StringRef Name,
                    llvm::ArrayRef<std::string> Candidates) {
  // A suggestion must be closer than a third of the name, or it is noise.
  unsigned Best = std::max<unsigned>(1, (Name.size() + 2) / 3) + 1;
  std::optional<std::string> Result;
  for (const std::string &C : Candidates) {
    // A case-only difference (`h100` for `H100`, `TFLOPs` for `TFLOPS`) is
    // the likeliest typo: it beats every other candidate.
    if (Name.equals_insensitive(C) && Name != C)
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
