//===- Printer.cpp - The IR's textual form (docs/ir.md) -------------------===//
#include "ir/Format.h"
#include "ir/IR.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace shardc;

namespace {

class IRPrinter {
public:
  IRPrinter(const Module &M, const llvm::SourceMgr &SM, llvm::raw_ostream &OS,
            bool Costs)
      : M(M), Mesh(*M.Mesh), SM(SM), OS(OS), Costs(Costs) {}
  void module();

private:
  void block(const Block &B, unsigned Indent);
  void op(const Operation &Op, unsigned Indent);
  std::string attrs(const Operation &Op) const;
  std::string name(const Value *V);
  std::string loc(llvm::SMLoc L) const;
  std::string type(const Value *V) const { return V->Type.str(Mesh); }
  void costs(const Operation &Op, unsigned Indent);

  const Module &M;
  const MeshSpec &Mesh;
  const llvm::SourceMgr &SM;
  llvm::raw_ostream &OS;
  bool Costs;
  llvm::DenseMap<const Value *, std::string> Names;
  llvm::StringMap<unsigned> Used;
};

std::string IRPrinter::name(const Value *V) {
  auto It = Names.find(V);
  if (It != Names.end())
    return It->second;
  unsigned &N = Used[V->Name];
  std::string S = "%" + V->Name + (N ? "." + std::to_string(N) : "");
  ++N;
  return Names[V] = S;
}

std::string IRPrinter::loc(llvm::SMLoc L) const {
  if (!L.isValid())
    return "loc(unknown)";
  unsigned Buf = SM.FindBufferContainingLoc(L);
  if (!Buf)
    return "loc(unknown)";
  auto LC = SM.getLineAndColumn(L, Buf);
  llvm::StringRef File =
      llvm::sys::path::filename(SM.getMemoryBuffer(Buf)->getBufferIdentifier());
  return fmt::format("loc(\"{}\":{}:{})", File.str(), LC.first, LC.second);
}

std::string IRPrinter::attrs(const Operation &Op) const {
  std::string S;
  auto AxisList = [&] {
    std::string L = "over [";
    for (size_t I = 0; I < Op.Axes.size(); ++I)
      L += (I ? ", " : "") + Mesh.Axes[Op.Axes[I]].Name;
    return L + "]";
  };
  const ShardType &In =
      Op.Operands.empty() ? Op.Result->Type : Op.Operands[0]->Type;
  switch (Op.Kind) {
  case OpKind::Contraction: {
    S = " {";
    for (size_t I = 0; I < Op.ContractDims.size(); ++I)
      S += fmt::format("{}{} = {}", I ? ", " : "", Op.ContractDims[I].Name,
                       dimRoleName(Op.ContractDims[I].Role).str());
    return S + "}";
  }
  case OpKind::Elementwise:
    return " \"" + elementwiseName(Op.Fn).str() + "\"";
  case OpKind::AllReduce:
    return " " + AxisList();
  case OpKind::AllToAll:
    return " " + AxisList() + " dim " + In.Dims[Op.Dim].Name + " -> " +
           In.Dims[Op.DstDim].Name;
  case OpKind::Slice:
    if (Op.Dim < 0)
      return " view";
    return " " + AxisList() + " dim " + In.Dims[Op.Dim].Name;
  case OpKind::AllGather:
  case OpKind::ReduceScatter:
    return " " + AxisList() + " dim " + In.Dims[Op.Dim].Name;
  default:
    return S;
  }
}

void IRPrinter::op(const Operation &Op, unsigned Indent) {
  OS.indent(Indent);
  if (Op.Kind == OpKind::Repeat) {
    OS << "repeat " << Op.TripCount << " {  " << loc(Op.Loc) << "\n";
    block(*Op.Body, Indent + 2);
    OS.indent(Indent) << "}\n";
    return;
  }
  std::string Operands, InTypes;
  for (size_t I = 0; I < Op.Operands.size(); ++I) {
    Operands += (I ? ", " : " ") + name(Op.Operands[I]);
    InTypes += (I ? ", " : "") + type(Op.Operands[I]);
  }
  OS << name(Op.Result) << " = " << opMnemonic(Op.Kind) << Operands << attrs(Op)
     << " : ";
  if (Op.Kind != OpKind::Input)
    OS << (Op.Operands.size() > 1 ? "(" + InTypes + ")" : InTypes) << " -> ";
  OS << type(Op.Result) << "  " << loc(Op.Loc) << "\n";
  for (const std::string &R : Op.Remarks)
    OS.indent(Indent + 2) << "// remark: " << R << "\n";
  if (Costs)
    costs(Op, Indent + 2);
}

void IRPrinter::costs(const Operation &Op, unsigned Indent) {
  if (Op.Cost && Op.Kind != OpKind::Input)
    OS.indent(Indent) << fmt::format(
        "// cost: {}, {}, t_math {}, t_hbm {}, {}-bound\n",
        formatAmount(Op.Cost->Flops, "FLOP"),
        formatAmount(Op.Cost->HbmBytes, "B"), formatTime(Op.Cost->TMath),
        formatTime(Op.Cost->THbm), boundName(Op.Cost->Bounded).str());
  if (!Op.CommCost)
    return;
  std::string Levels;
  for (const LevelCost &L : Op.CommCost->Levels)
    Levels += fmt::format(", {}: fan-in {}, {} per uplink, {}",
                          M.Mesh->Cluster->Levels[L.Level].Name, L.FanIn,
                          formatAmount(L.Bytes, "B"), formatTime(L.Time));
  OS.indent(Indent) << fmt::format("// comms: V {}, t_comms {}{}\n",
                                   formatAmount(Op.CommCost->GroupBytes, "B"),
                                   formatTime(Op.CommCost->Time), Levels);
}

void IRPrinter::block(const Block &B, unsigned Indent) {
  for (const auto &Op : B.Ops)
    op(*Op, Indent);
}

void IRPrinter::module() {
  std::string Axes;
  for (size_t I = 0; I < Mesh.Axes.size(); ++I)
    Axes += fmt::format("{}{}: {}", I ? ", " : "", Mesh.Axes[I].Name,
                        Mesh.Axes[I].Size);
  // allow_padding changes what the verifier accepts, so a module that sets
  // it says so; the default is left out.
  OS << fmt::format(
      "module mesh {} = {}[{}] {{  // {} chip{}, overlap = {}{}\n", Mesh.Name,
      Mesh.Cluster->Name, Axes, Mesh.numChips(),
      Mesh.numChips() == 1 ? "" : "s", M.Config.Overlap ? "true" : "false",
      M.Config.AllowPadding ? ", allow_padding = true" : "");
  block(M.Body, 2);
  OS << "}\n";
}

} // namespace

void shardc::printModule(const Module &M, const llvm::SourceMgr &SM,
                         llvm::raw_ostream &OS, bool WithCosts) {
  IRPrinter(M, SM, OS, WithCosts).module();
}
