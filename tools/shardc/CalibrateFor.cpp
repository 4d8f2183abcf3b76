//===- CalibrateFor.cpp - shardc calibrate --for FILE ---------------------===//
#include "CalibrateFor.h"
#include "diag/Diagnostic.h"
#include "frontend/Compiler.h"
#include "ir/IR.h"
#include "passes/Pipeline.h"
#include "support/Format.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/WithColor.h"
#include <cmath>
#include <fmt/format.h>

using namespace shardc;
using namespace shardc::calibrate;

namespace {

/// Within 2x: |log2(A / B)| <= 1.
bool near(double A, double B) { return A <= 2 * B && B <= 2 * A; }

bool gemmCovered(const GemmShape &S, llvm::StringRef DType,
                 llvm::ArrayRef<GemmSweep> Gemms) {
  for (const GemmSweep &G : Gemms)
    for (const GemmRow &R : G.Rows)
      if (R.DType == DType && near(R.Point.M, S.M) && near(R.Point.N, S.N) &&
          near(R.Point.K, S.K))
        return true;
  return false;
}

std::optional<NcclCollective> ncclKind(CollectiveKind K) {
  switch (K) {
  case CollectiveKind::AllReduce:
    return NcclCollective::AllReduce;
  case CollectiveKind::AllGather:
    return NcclCollective::AllGather;
  case CollectiveKind::ReduceScatter:
    return NcclCollective::ReduceScatter;
  case CollectiveKind::AllToAll:
    // nccl-tests' size is one rank's buffer, shardc's volume the group's:
    // not compared.
    return std::nullopt;
  }
  llvm_unreachable("unknown collective");
}

/// Why \p V of \p K is not covered by \p Runs; empty if it is.
std::string collectiveGap(NcclCollective K, double V,
                          llvm::ArrayRef<NcclRun> Runs) {
  double Lo = INFINITY, Hi = 0;
  for (const NcclRun &R : Runs)
    if (R.Collective == K && !R.Rows.empty()) {
      Lo = std::min(Lo, R.Rows.front().Bytes);
      Hi = std::max(Hi, R.Rows.back().Bytes);
    }
  if (Hi == 0)
    return ("has no nccl-tests run of " + ncclTestName(K)).str();
  if (V >= Lo && V <= Hi)
    return "";
  return fmt::format("is outside the {:.0f}..{:.0f} B that {} measured", Lo, Hi,
                     ncclTestName(K).str());
}

/// Step 2: the warnings, once per statement and shape.
void warn(const MeshCompile &C, llvm::ArrayRef<NcclRun> Runs,
          llvm::ArrayRef<GemmSweep> Gemms, DiagnosticEngine &Diags) {
  const Module &L = *C.lowered();
  const ProgramInfo &Info = C.program().info();
  llvm::StringSet<> Seen;
  walk(L.body(), [&](const Op &O) {
    if (O.stmt() == NoStmt || O.id() >= C.Tables.OpCosts.size())
      return;
    const std::string &Stmt = Info.Statements[O.stmt()].Name;
    const std::optional<OpCost> &Cost = C.Tables.OpCosts[O.id()];
    if (!Gemms.empty() && Cost && Cost->Gemm.valid()) {
      const GemmShape &S = Cost->Gemm;
      std::string Shape =
          fmt::format("{:.0f} x {:.0f} x {:.0f}", S.M, S.N, S.K);
      std::string DType = dtypeName(Cost->GemmElt).str();
      if (!gemmCovered(S, DType, Gemms) &&
          Seen.insert(Stmt + "/" + Shape).second)
        Diags.report(O.loc(), diag::CalibGemmNotCovered, Shape, DType, Stmt);
    }
    const auto *Coll = llvm::dyn_cast<CollectiveOp>(&O);
    if (Runs.empty() || !Coll || O.id() >= C.Tables.Collectives.size() ||
        !C.Tables.Collectives[O.id()])
      return;
    std::optional<NcclCollective> K = ncclKind(Coll->collectiveKind());
    if (!K)
      return;
    double V = C.Tables.Collectives[O.id()]->GroupBytes;
    std::string Gap = collectiveGap(*K, V, Runs);
    std::string Name = collectiveName(Coll->collectiveKind()).str();
    if (!Gap.empty() &&
        Seen.insert(Stmt + "/" + Name + std::to_string(V)).second)
      Diags.report(O.loc(), diag::CalibCollectiveNotCovered, Name,
                   fmt::format("{:.0f}", V), Stmt, Gap);
  });
}

} // namespace

int shardc::checkCoverage(const std::string &Path, const std::string &StdlibDir,
                          llvm::ArrayRef<NcclRun> Runs,
                          llvm::ArrayRef<GemmSweep> Gemms,
                          DiagnosticEngine &Diags) {
  // Step 1: the driver's one compile.
  CompileOptions Opts;
  Opts.StdlibDir = StdlibDir;
  auto Buf = readSourceFile(Path, Opts.Limits.MaxFileBytes);
  if (!Buf) {
    llvm::WithColor::error(llvm::errs(), "shardc")
        << "cannot read '" << Path << "': " << Buf.getError().message() << "\n";
    return 2;
  }
  unsigned Id =
      Diags.sourceMgr().AddNewSourceBuffer(std::move(*Buf), llvm::SMLoc());
  Program P;
  if (!loadProgram(Id, Diags, Opts, P) || !checkProgram(Diags, P))
    return 1;
  if (!P.IR)
    return 0; // no mesh: nothing runs
  auto C = std::make_unique<MeshCompile>(*P.IR, P.IR->mesh());
  if (llvm::Error E =
          runPipeline(*C, Diags, PipelineOptions(), llvm::nulls())) {
    llvm::consumeError(std::move(E));
    return 1;
  }
  warn(*C, Runs, Gemms, Diags);
  return 0;
}
