//===- Lines.h - A benchmark output's lines and fields ----------*- C++ -*-===//
//
// What every calibration input parser needs from its buffer: its lines, each
// cut into fields (whitespace-separated for nccl-tests tables, comma-separated
// for the sweep CSVs), each field keeping where it starts so that a
// diagnostic can point at it; and the numbers in them, read strictly (a field
// is a number or it is an error, never a prefix of one).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_CALIBRATE_LINES_H
#define SHARDC_CALIBRATE_LINES_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <optional>
#include <vector>

namespace shardc::calibrate {

/// One field of a line and where it starts in the buffer.
struct Field {
  llvm::StringRef Text;
  llvm::SMLoc Loc() const { return llvm::SMLoc::getFromPointer(Text.data()); }
};

/// One line of the buffer, without its line end.
struct Line {
  llvm::StringRef Text;
  unsigned Number = 0; ///< 1-based
  llvm::SMLoc Loc() const { return llvm::SMLoc::getFromPointer(Text.data()); }
};

/// The lines of \p Buffer ('\n' or "\r\n" ends).
std::vector<Line> splitLines(llvm::StringRef Buffer);

/// The whitespace-separated fields of \p Text.
llvm::SmallVector<Field, 16> splitFields(llvm::StringRef Text);

/// The comma-separated fields of \p Text, each trimmed of spaces.
llvm::SmallVector<Field, 16> splitCsv(llvm::StringRef Text);

/// \p S as a finite number (decimal or exponent notation, all of it), or
/// nothing.
std::optional<double> parseNumber(llvm::StringRef S);

/// \p S as a whole number of decimal digits (no sign), or nothing.
std::optional<uint64_t> parseCount(llvm::StringRef S);

} // namespace shardc::calibrate

#endif // SHARDC_CALIBRATE_LINES_H
