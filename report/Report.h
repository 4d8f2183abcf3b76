//===- Report.h - What shardc prints: the table and the JSON ----*- C++ -*-===//
//
// Both renderings read the same MeshCompile (the lowered module and the
// passes' side tables): a text table for people (human units, times to 4
// significant figures) and a versioned JSON document for programs (SI base
// units; docs/json.md). Neither computes a number of its own beyond unit
// conversion, so they always agree.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_REPORT_REPORT_H
#define SHARDC_REPORT_REPORT_H

#include "passes/Pipeline.h"
#include "report/Timeline.h"
#include "support/Format.h"
#include <functional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace shardc {
class JsonWriter;

constexpr unsigned JsonVersion = 2;

void printTextReport(const MeshCompile &C, llvm::raw_ostream &OS);

/// Prints \p C's lowered module (the program before insert-collectives)
/// with what the tables know of each op: remarks always, costs when
/// \p WithCosts (report/AnnotatedIR.cpp).
void printAnnotated(const MeshCompile &C, llvm::raw_ostream &OS,
                    bool WithCosts);
/// What a trace drew: whether it was past its event limit and aggregated,
/// and the events it would have had.
struct TraceSummary {
  bool Aggregated = false;
  int64_t FullEvents = 0;
};
/// The step's timeline as Chrome trace-event JSON (docs/trace.md),
/// aggregated past \p EventLimit events.
TraceSummary printTraceReport(const MeshCompile &C, llvm::raw_ostream &OS,
                              int64_t EventLimit = TraceEventLimit);
/// A trace with no events, for a program without a mesh.
void printEmptyTraceReport(llvm::raw_ostream &OS);

/// The ops of the report under the chip's roofline, as a standalone SVG
/// (docs/cli.md): intensity against achieved FLOP/s, coloured by bound.
void printRooflineSvg(const MeshCompile &C, llvm::raw_ostream &OS);
/// The SVG of a program without a mesh: a line saying there is no plot.
void printEmptyRooflineSvg(llvm::raw_ostream &OS);

/// One diagnostic as the JSON lists it.
struct JsonDiagnostic {
  std::string Severity; ///< error, warning, note, remark
  std::string Message;
  std::string File; ///< empty when it has no location
  unsigned Line = 0, Column = 0;
};

/// What one input file (one chunk, under --split-input-file) gave: its
/// entry in the JSON array (docs/json.md).
struct JsonEntry {
  std::string Source;
  unsigned Chunk = 0;
  std::vector<JsonDiagnostic> Diagnostics;
  /// The costed program; null when the input had errors or no mesh.
  const MeshCompile *Compile = nullptr;
  bool Failed = false;
  /// The command line's overrides, as written (`-D B=16`, `--mesh D: 8`):
  /// the numbers are those of the file with these values written in.
  std::vector<std::string> Overrides;
  /// A layout search's `search` object (report/SearchReport.h); the entry
  /// is then row 1's report.
  std::function<void(JsonWriter &)> Search;
  /// A serving program's `serve` object (report/ServeReport.h); the entry
  /// is then the decode step's report at the serving batch.
  std::function<void(JsonWriter &)> Serve;
  /// The `phase` of every op, when not their statements' own: a serving
  /// program's report is its decode step's.
  std::string OpPhase;
};
void printJsonEntry(const JsonEntry &E, llvm::raw_ostream &OS);
/// The report of one costed program, as a one-element array.
void printJsonReport(const MeshCompile &C, llvm::raw_ostream &OS);

/// The collectives that realise each statement, in program order, indexed
/// by statement.
std::vector<std::vector<const CollectiveOp *>>
collectivesByStatement(const Module &Lowered);

/// Per statement, the name `--emit=ir` prints its result with (the
/// lowered module's last value of the statement): `dag1.2` for the third
/// value named `dag1`. Empty for a statement with no value there.
std::vector<std::string> irNames(const MeshCompile &C);
/// Per statement, the name its row in the op table has: its own, or for a
/// derived statement (the backward, syncs, updates) whose name another
/// listed statement of its phase shares, its irNames entry, so each row can be
/// found in the IR (the backward's `dag1` for q's, k's and v's contributions).
std::vector<std::string> rowNames(const MeshCompile &C);

/// A declared tensor as one chip holds it.
struct TensorInfo {
  const Statement *Decl;
  const Value *V;
  std::string LocalShape; ///< `fp32[64, 4096]`
  double Bytes = 0;       ///< per chip
  double ReadTime = 0;    ///< Bytes / hbm_bw
  /// A training step's param, in the sharding it is stored in (ZeRO 3
  /// shards it over its replica axes).
  bool Param = false;
};
std::vector<TensorInfo> inputTensors(const MeshCompile &C);

/// A collective is latency-bound-small below this time: a measured preset
/// pays about that in latency alone for one collective in a node (the DGX
/// H100's 0.976 us per hop x 14 hops = 13.7 us for an 8-GPU AllReduce, the
/// A100's 2.41 us x 14 = 33.7 us; 1 to 2.4 us for a 2-GPU ring), so a
/// collective priced below it at bandwidth alone is off by about 2x or more.
constexpr double LatencyBoundSmallTime = 1e-5;

/// The collectives priced on levels that all have zero latency (the book
/// presets) and below LatencyBoundSmallTime: how many run per step on one
/// chip (repeats, microbatches and a pipeline stage's share applied) and
/// their priced time per step. Count is 0 when there are none.
struct LatencyFreeCollectives {
  double Count = 0;
  double Time = 0;
};
LatencyFreeCollectives latencyFreeCollectives(const MeshCompile &C);

} // namespace shardc

#endif
