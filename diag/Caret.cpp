//===- Caret.cpp - Carets under lines LLVM leaves unmarked ----------------===//
//
// Owns the caret line for source lines with non-ASCII bytes. Each code point
// is one column (wide characters, such as CJK, are not measured); a tab
// advances as LLVM's printer expanded it, to the next multiple of 8 of a
// column LLVM counts in bytes, so the caret lands under the printed text.
// Also owns the rendering of a source line too long to print whole: a
// window around the caret, as clang prints one.
//
//===----------------------------------------------------------------------===//
#include "diag/Caret.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <string>
#include <vector>

using namespace shardc;

/// The caret line (`^~~`) under \p Line for a caret at byte \p Column and
/// \p Ranges of bytes, one column per code point.
static std::string
caretLine(llvm::StringRef Line, size_t Column,
          llvm::ArrayRef<std::pair<unsigned, unsigned>> Ranges) {
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
  for (const std::pair<unsigned, unsigned> &R : Ranges)
    if (R.first < R.second)
      std::fill(Caret.begin() + At(R.first), Caret.begin() + At(R.second), '~');
  Caret[At(Column)] = '^';
  Caret.erase(Caret.find_last_not_of(' ') + 1);
  return Caret;
}

static void printCaret(llvm::raw_ostream &OS, llvm::StringRef Caret,
                       bool Colors) {
  llvm::WithColor(OS, llvm::raw_ostream::GREEN, /*Bold=*/true, /*BG=*/false,
                  Colors ? llvm::ColorMode::Auto : llvm::ColorMode::Disable)
      << Caret << '\n';
}

void shardc::printCaretForNonAsciiLine(llvm::raw_ostream &OS,
                                       const llvm::SMDiagnostic &D,
                                       bool Colors) {
  llvm::StringRef Line = D.getLineContents();
  auto IsNonAscii = [](char C) { return (C & 0x80) != 0; };
  if (D.getLineNo() < 0 || D.getColumnNo() < 0 ||
      llvm::none_of(Line, IsNonAscii))
    return;
  printCaret(OS, caretLine(Line, D.getColumnNo(), D.getRanges()), Colors);
}

bool shardc::printLongLineMessage(const llvm::SourceMgr &SM,
                                  llvm::raw_ostream &OS,
                                  const llvm::SMDiagnostic &D, bool Colors) {
  llvm::StringRef Line = D.getLineContents();
  if (Line.size() <= MaxShownLine || D.getLineNo() < 0 || D.getColumnNo() < 0)
    return false;
  // The header as LLVM prints it, its place spelled into the file name: a
  // diagnostic with no line number prints no source line.
  std::string Place = (D.getFilename() + ":" + llvm::Twine(D.getLineNo()) +
                       ":" + llvm::Twine(D.getColumnNo() + 1))
                          .str();
  SM.PrintMessage(OS,
                  llvm::SMDiagnostic(SM, D.getLoc(), Place, -1, -1, D.getKind(),
                                     D.getMessage(), "", {}),
                  Colors);
  // A window around the caret, cut at code-point boundaries.
  // At most 3 continuation bytes follow a code point's first: invalid
  // UTF-8 must not stretch the window.
  auto Boundary = [&](size_t I) {
    for (int N = 0; N < 3 && I < Line.size() && (Line[I] & 0xC0) == 0x80; ++N)
      ++I;
    return I;
  };
  size_t Col = std::min<size_t>(D.getColumnNo(), Line.size());
  size_t Begin = Boundary(Col > LongLineContext ? Col - LongLineContext : 0);
  size_t End = Boundary(std::min(Line.size(), Col + LongLineContext));
  std::string Prefix = Begin ? "..." : "";
  std::string Shown =
      Prefix + Line.slice(Begin, End).str() + (End < Line.size() ? "..." : "");
  auto Shift = [&](unsigned B) {
    return unsigned(std::clamp<size_t>(B, Begin, End) - Begin + Prefix.size());
  };
  std::vector<std::pair<unsigned, unsigned>> Ranges;
  for (const std::pair<unsigned, unsigned> &R : D.getRanges())
    Ranges.push_back({Shift(R.first), Shift(R.second)});
  OS << Shown << '\n';
  printCaret(OS, caretLine(Shown, Col - Begin + Prefix.size(), Ranges), Colors);
  return true;
}
