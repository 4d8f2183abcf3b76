//===- SearchReport.h - A layout search's rows and reasons ------*- C++ -*-===//
//
// The text and JSON of a search (docs/search.md): the top rows, the Pareto
// front, the rejections by reason with their nearest misses, the counts and
// the statistics.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_REPORT_SEARCHREPORT_H
#define SHARDC_REPORT_SEARCHREPORT_H

#include "search/Search.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace shardc {
class JsonWriter;

/// What the report needs beside the result: the axis names in written
/// order and the chip's HBM (for the memory column).
struct SearchContext {
  const SearchSpec *Spec = nullptr;
  std::vector<std::string> Axes;
};

void printSearchText(const SearchResult &R, const SearchContext &X,
                     llvm::raw_ostream &OS);
/// The `search` object of the JSON entry.
void writeSearchJson(JsonWriter &J, const SearchResult &R,
                     const SearchContext &X);

} // namespace shardc

#endif
