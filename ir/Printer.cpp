//===- Printer.cpp - The IR's textual form (docs/ir.md) -------------------===//
#include "ir/Module.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace shardc;

namespace {

class IRPrinter {
public:
  IRPrinter(const Module &M, llvm::raw_ostream &OS, OpAnnotator Annotate)
      : M(M), OS(OS), Annotate(Annotate) {}
  void module();
  /// Each value's printed name, `%` left off.
  llvm::DenseMap<const Value *, std::string> takeNames() {
    for (auto &E : Names)
      E.second.erase(0, 1);
    return std::move(Names);
  }

private:
  void block(const Block &B, unsigned Indent);
  void op(const Op &O, unsigned Indent);
  std::string name(const Value *V);
  std::string loc(Loc L) const;
  std::string type(const Value *V) const { return M.typeStr(V->type()); }

  const Module &M;
  llvm::raw_ostream &OS;
  OpAnnotator Annotate;
  unsigned LastStmt = NoStmt;
  llvm::DenseMap<const Value *, std::string> Names;
  llvm::StringMap<unsigned> Used;
};

/// `%h`, or `%h.1` for the second value printed with the source name `h`.
std::string IRPrinter::name(const Value *V) {
  auto It = Names.find(V);
  if (It != Names.end())
    return It->second;
  unsigned &N = Used[V->name()];
  std::string S = "%" + V->name() + (N ? "." + std::to_string(N) : "");
  ++N;
  return Names[V] = S;
}

std::string IRPrinter::loc(Loc L) const {
  const std::vector<std::string> &Files = M.info().Files;
  if (!L.isValid() || L.File >= Files.size())
    return "loc(unknown)";
  return fmt::format("loc(\"{}\":{}:{})", Files[L.File], L.Line, L.Col);
}

void IRPrinter::op(const Op &O, unsigned Indent) {
  OS.indent(Indent);
  if (auto *R = llvm::dyn_cast<RepeatOp>(&O)) {
    // Name the body's values in program order before the carry clause
    // mentions some of them.
    walk(R->body(), [&](const Op &Nested) {
      if (Nested.result())
        name(Nested.result());
    });
    OS << "repeat " << R->tripCount() << R->attrs(M.names());
    for (size_t I = 0; I < R->carried().size(); ++I)
      OS << (I ? ", " : " carry(") << name(R->carried()[I].Init) << " -> "
         << name(R->carried()[I].Next)
         << (I + 1 == R->carried().size() ? ")" : "");
    OS << " {  " << loc(O.loc()) << "\n";
    if (Annotate)
      Annotate(O, OS, Indent + 2);
    block(R->body(), Indent + 2);
    OS.indent(Indent) << "}\n";
    return;
  }
  std::string Operands, InTypes;
  for (size_t I = 0; I < O.numOperands(); ++I) {
    Operands += (I ? ", " : " ") + name(O.operand(I));
    InTypes += (I ? ", " : "") + type(O.operand(I));
  }
  OS << name(O.result()) << " = " << opMnemonic(O.kind()) << Operands
     << O.attrs(M.names()) << " : ";
  if (O.numOperands() > 0)
    OS << (O.numOperands() > 1 ? "(" + InTypes + ")" : InTypes) << " -> ";
  OS << type(O.result()) << "  " << loc(O.loc());
  // A derived statement says what it computes, on its first op.
  if (O.stmt() != NoStmt && O.stmt() != LastStmt) {
    const Statement &S = M.statement(O.stmt());
    if (S.From)
      OS << "  // " << S.Name << " = "
         << describeProvenance(*S.From, M.statement(S.From->Stmt));
  }
  LastStmt = O.stmt();
  OS << "\n";
  if (Annotate)
    Annotate(O, OS, Indent + 2);
}

void IRPrinter::block(const Block &B, unsigned Indent) {
  for (const auto &O : B.ops())
    op(*O, Indent);
}

void IRPrinter::module() {
  const MeshSpec &Mesh = M.mesh();
  std::string Axes;
  for (size_t I = 0; I < Mesh.Axes.size(); ++I)
    Axes += fmt::format("{}{}: {}", I ? ", " : "", Mesh.Axes[I].Name,
                        Mesh.Axes[I].Size);
  // allow_padding changes what the verifier accepts, so a module that sets
  // it says so; the default is left out.
  OS << fmt::format(
      "module mesh {} = {}[{}] {{  // {} chip{}, overlap = {}{}\n", Mesh.Name,
      Mesh.Cluster->Name, Axes, Mesh.numChips(),
      Mesh.numChips() == 1 ? "" : "s", M.config().Overlap ? "true" : "false",
      M.config().AllowPadding ? ", allow_padding = true" : "");
  block(M.body(), 2);
  OS << "}\n";
}

} // namespace

void shardc::printModule(const Module &M, llvm::raw_ostream &OS,
                         OpAnnotator Annotate) {
  IRPrinter(M, OS, Annotate).module();
}

llvm::DenseMap<const Value *, std::string>
shardc::printedNames(const Module &M) {
  // Print to nowhere: the names are the printer's own, so they match the
  // dump a reader searches.
  llvm::raw_null_ostream Null;
  IRPrinter P(M, Null, nullptr);
  P.module();
  return P.takeNames();
}
