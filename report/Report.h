//===- Report.h - What shardc prints: the table and the JSON ----*- C++ -*-===//
//
// Both renderings read the same costed module: a text table for people
// (human units, times to 4 significant figures) and a versioned JSON
// document for programs (SI base units; docs/json.md). Neither computes a
// number of its own beyond unit conversion, so they always agree.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_REPORT_REPORT_H
#define SHARDC_REPORT_REPORT_H

#include "ir/Format.h"
#include "ir/IR.h"
#include <string>

namespace llvm {
class raw_ostream;
class SourceMgr;
} // namespace llvm

namespace shardc {

constexpr unsigned JsonVersion = 1;

void printTextReport(const Module &M, const llvm::SourceMgr &SM,
                     llvm::raw_ostream &OS);
void printJsonReport(const Module &M, const llvm::SourceMgr &SM,
                     llvm::raw_ostream &OS);

/// The collectives that realise each statement, in program order, indexed
/// by statement.
std::vector<std::vector<const Operation *>>
collectivesByStatement(const Module &M);

/// A declared tensor as one chip holds it.
struct TensorInfo {
  const Statement *Decl;
  const Value *V;
  std::string LocalShape; ///< `fp32[64, 4096]`
  double Bytes = 0;       ///< per chip
  double ReadTime = 0;    ///< Bytes / hbm_bw
};
std::vector<TensorInfo> inputTensors(const Module &M);

} // namespace shardc

#endif
