//===- ServeReport.h - A serving program's report ---------------*- C++ -*-===//
//
// docs/inference.md, "Outputs": the instances' op tables, the latency and
// throughput lines, memory per chip and the largest batch, the batch–latency
// table and the constants, as text; the same numbers as the JSON entry's
// `serve` object (docs/json.md). Nothing here computes a number beyond a
// unit conversion: serve/ did.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_REPORT_SERVEREPORT_H
#define SHARDC_REPORT_SERVEREPORT_H

#include "serve/Serve.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace shardc {
class JsonWriter;

void printServeReport(const ServeResult &R, llvm::raw_ostream &OS);
/// Writes the `serve` attribute of a JSON entry.
void serveJson(JsonWriter &J, const ServeResult &R);

} // namespace shardc

#endif // SHARDC_REPORT_SERVEREPORT_H
