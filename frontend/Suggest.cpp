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
    unsigned D = Name.edit_distance(C, /*AllowReplacements=*/true, Best);
    // Case-only differences (`h100` for `H100`) count as one edit.
    if (Name.equals_insensitive(C) && Name != C)
      D = 1;
    if (D < Best) {
      Best = D;
      Result = C;
    }
  }
  return Result;
}
