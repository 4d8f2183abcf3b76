//===- Caret.cpp - Carets under lines LLVM leaves unmarked ----------------===//
//
// Owns the caret line for source lines with non-ASCII bytes. Each code point
// is one column (wide characters, such as CJK, are not measured); a tab
// advances as LLVM's printer expanded it, to the next multiple of 8 of a
// column LLVM counts in bytes, so the caret lands under the printed text.
//
//===----------------------------------------------------------------------===//
#include "diag/Caret.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

using namespace shardc;

void shardc::printCaretForNonAsciiLine(llvm::raw_ostream &OS,
                                       const llvm::SMDiagnostic &D,
                                       bool Colors) {
  llvm::StringRef Line = D.getLineContents();
  auto IsNonAscii = [](char C) { return (C & 0x80) != 0; };
  if (D.getLineNo() < 0 || D.getColumnNo() < 0 ||
      llvm::none_of(Line, IsNonAscii))
    return;
  // The display column of each byte offset of the line, and of its end.
  std::vector<size_t> ColOf(Line.size() + 1);
  size_t Col = 0, ByteCol = 0;
  for (size_t I = 0; I < Line.size(); ++I) {
    ColOf[I] = Col;
    unsigned char C = Line[I];
    if (C == '\t') {
      size_t Spaces = 8 - ByteCol % 8;
      ByteCol += Spaces;
      Col += Spaces;
      continue;
    }
    ++ByteCol;
    Col += (C & 0xC0) != 0x80; // continuation bytes add no column
  }
  ColOf[Line.size()] = Col;
  auto At = [&](size_t Byte) { return ColOf[std::min(Byte, Line.size())]; };
  std::string Caret(Col + 1, ' ');
  for (const std::pair<unsigned, unsigned> &R : D.getRanges())
    std::fill(Caret.begin() + At(R.first), Caret.begin() + At(R.second), '~');
  Caret[At(D.getColumnNo())] = '^';
  Caret.erase(Caret.find_last_not_of(' ') + 1);
  llvm::WithColor(OS, llvm::raw_ostream::GREEN, /*Bold=*/true, /*BG=*/false,
                  Colors ? llvm::ColorMode::Auto : llvm::ColorMode::Disable)
      << Caret << '\n';
}
