//===- AnnotatedIR.cpp - The IR with what the tables know of each op ------===//
//
// --emit=ir and --emit=costs, and the dumps of --print-ir-after: the
// lowered module (or the program, before insert-collectives) with each
// statement's plan choice as a remark and, with costs, each op's cost and
// each collective's per-level traffic.
//
//===----------------------------------------------------------------------===//
#include "report/Describe.h"
#include "report/Report.h"
#include "support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace shardc;

namespace {

/// The `// cost:` and `// comms:` lines of --emit=costs under one op.
void printCosts(const MeshCompile &C, const Op &O, llvm::raw_ostream &OS,
                unsigned Indent) {
  const Analyses &T = C.Tables;
  if (O.id() < T.OpCosts.size() && T.OpCosts[O.id()] && !isa<InputOp>(O)) {
    const OpCost &Cost = *T.OpCosts[O.id()];
    OS.indent(Indent) << fmt::format(
        "// cost: {}, {}, t_math {}, t_hbm {}, {}-bound\n",
        formatAmount(Cost.Flops, "FLOP"), formatAmount(Cost.HbmBytes, "B"),
        formatTime(Cost.TMath), formatTime(Cost.THbm),
        boundName(Cost.Bounded).str());
  }
  if (O.id() >= T.Collectives.size() || !T.Collectives[O.id()])
    return;
  const CollectiveCost &CC = *T.Collectives[O.id()];
  std::string Levels;
  for (const LevelCost &L : CC.Levels)
    Levels += fmt::format(", {}: fan-in {}, {} per uplink, {}",
                          C.mesh().Cluster->Levels[L.Level].Name, L.FanIn,
                          formatAmount(L.Bytes, "B"), formatTime(L.Time));
  OS.indent(Indent) << fmt::format("// comms: V {}, t_comms {}{}\n",
                                   formatAmount(CC.GroupBytes, "B"),
                                   formatTime(CC.Time), Levels);
}

} // namespace

void shardc::printAnnotated(const MeshCompile &C, llvm::raw_ostream &OS,
                            bool WithCosts) {
  const Module &M = C.lowered() ? *C.lowered() : C.program();
  const auto &Choices = C.Tables.Choices;
  printModule(M, OS, [&](const Op &O, llvm::raw_ostream &OS, unsigned Indent) {
    // A statement's choice is remarked on the op it chose the place of.
    if (M.isLowered() && O.stmt() < Choices.size() && Choices[O.stmt()] &&
        Choices[O.stmt()]->At == O.id())
      if (std::string R = choiceRemark(*Choices[O.stmt()], M.names());
          !R.empty())
        OS.indent(Indent) << "// remark: " << R << "\n";
    if (WithCosts && M.isLowered())
      printCosts(C, O, OS, Indent);
  });
}
