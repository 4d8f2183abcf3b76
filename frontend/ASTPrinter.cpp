//===- ASTPrinter.cpp - --emit=ast ----------------------------------------===//
//
// A readable, stable tree dump: one node a line, `@line:col` on each, and
// expressions as compact S-expressions so lit tests can check them in one line.
//
//===----------------------------------------------------------------------===//
#include "frontend/AST.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace shardc;

llvm::StringRef shardc::declKindSpelling(DeclKind K) {
  switch (K) {
#define AST_NODE(Kind, Spelling)                                               \
  case DeclKind::Kind:                                                         \
    return Spelling;
#include "frontend/ASTNodes.def"
  }
  return "?";
}

namespace {

class Printer {
public:
  Printer(const llvm::SourceMgr &SM, llvm::raw_ostream &OS) : SM(SM), OS(OS) {}
  void decl(const Decl &D, unsigned Indent);

private:
  std::string at(llvm::SMRange R) const {
    if (!R.Start.isValid())
      return "@?";
    auto LC = SM.getLineAndColumn(R.Start);
    return fmt::format("@{}:{}", LC.first, LC.second);
  }
  std::string expr(const Expr &E) const;
  std::string index(const IndexAST &I) const;
  std::string type(const TensorTypeAST &T) const;
  std::string set(const SetAST &S) const {
    if (S.IsRange)
      return expr(*S.Items[0]) + ".." + expr(*S.Items[1]);
    std::string Out = "{";
    for (size_t K = 0; K < S.Items.size(); ++K)
      Out += (K ? ", " : "") + expr(*S.Items[K]);
    return Out + "}";
  }
  void line(unsigned Indent, const std::string &S) {
    OS.indent(Indent * 2) << S << "\n";
  }
  void props(const std::vector<Property> &Ps, unsigned Indent);

  const llvm::SourceMgr &SM;
  llvm::raw_ostream &OS;
};

std::string Printer::expr(const Expr &E) const {
  switch (E.Kind) {
  case ExprKind::Number: {
    std::string S = E.Text;
    if (!E.Unit.empty())
      S += " " + E.Unit + (E.Per.empty() ? "" : "/" + E.Per);
    return E.Unit.empty() ? S : "(" + S + ")";
  }
  case ExprKind::Name:
    return E.Text;
  case ExprKind::Neg:
    return "(- " + expr(*E.LHS) + ")";
  case ExprKind::Binary:
    return fmt::format("({} {} {})", E.Op, expr(*E.LHS), expr(*E.RHS));
  }
  return "?";
}

std::string Printer::index(const IndexAST &I) const {
  std::string S = I.Id.Name;
  if (I.Braced) {
    S += "{";
    for (size_t K = 0; K < I.BracedAxes.size(); ++K)
      S += (K ? "," : "") + I.BracedAxes[K].Name;
    S += "}";
  }
  return S;
}

std::string Printer::type(const TensorTypeAST &T) const {
  std::string S = T.DType.Name + "[";
  for (size_t K = 0; K < T.Indices.size(); ++K)
    S += (K ? ", " : "") + index(T.Indices[K]);
  S += "]";
  if (T.HasUnreduced) {
    S += "{";
    for (size_t K = 0; K < T.Unreduced.size(); ++K)
      S += (K ? ", " : "") + index(T.Unreduced[K]);
    S += "}";
  }
  return S;
}

void Printer::props(const std::vector<Property> &Ps, unsigned Indent) {
  for (const Property &P : Ps) {
    std::string V = P.Form == PropForm::Assign   ? "= " + expr(*P.Value)
                    : P.Form == PropForm::AtMost ? "<= " + expr(*P.Value)
                    : P.Form == PropForm::Any    ? std::string("= ?")
                    : P.Form == PropForm::List   ? "= " + set(*P.Set)
                                                 : "in " + set(*P.Set);
    line(Indent,
         fmt::format("Property '{}' {} {}", P.Name.Name, at(P.Name.Range), V));
  }
}

void Printer::decl(const Decl &D, unsigned Indent) {
  std::string Head =
      fmt::format("{} {}", declKindSpelling(D.Kind), at(D.Range));
  if (auto *I = llvm::dyn_cast<ImportDecl>(&D)) {
    line(Indent, Head + fmt::format(" \"{}\"", I->Path));
  } else if (auto *C = llvm::dyn_cast<ChipDecl>(&D)) {
    line(Indent, Head + " '" + C->Name.Name + "'" +
                     (C->Base.Name.empty() ? "" : " : " + C->Base.Name));
    props(C->Props, Indent + 1);
    for (const TileAST &T : C->Tiles) {
      line(Indent + 1,
           fmt::format("{} {} '{}'", T.Keyword.Name, at(T.Range), T.Name.Name));
      props(T.Props, Indent + 2);
    }
  } else if (auto *C = llvm::dyn_cast<ClusterDecl>(&D)) {
    line(Indent, Head + " '" + C->Name.Name + "'" +
                     (C->Base.Name.empty() ? "" : " : " + C->Base.Name));
    props(C->Props, Indent + 1);
    for (const LevelAST &L : C->Levels) {
      line(Indent + 1, fmt::format("level {} '{}'", at(L.Range), L.Name.Name));
      props(L.Props, Indent + 2);
    }
  } else if (auto *M = llvm::dyn_cast<MeshDecl>(&D)) {
    std::string S = Head + " '" + M->Name.Name + "' = " + M->Cluster.Name + "[";
    for (size_t K = 0; K < M->Axes.size(); ++K)
      S += (K ? ", " : "") + M->Axes[K].Name.Name + ": " +
           (M->Axes[K].Size  ? expr(*M->Axes[K].Size)
            : M->Axes[K].Set ? "? in " + set(*M->Axes[K].Set)
                             : std::string("?"));
    line(Indent, S + "]");
  } else if (auto *Dm = llvm::dyn_cast<DimDecl>(&D)) {
    line(Indent, Head);
    for (const Binding &B : Dm->Bindings)
      line(Indent + 1, fmt::format("'{}' {} = {}{}", B.Name.Name,
                                   at(B.Name.Range), expr(*B.Value),
                                   B.PerWord.Name.empty() ? "" : " per step"));
  } else if (auto *L = llvm::dyn_cast<LetDecl>(&D)) {
    line(Indent, Head);
    for (const Binding &B : L->Bindings)
      line(Indent + 1, fmt::format("'{}' {} = {}", B.Name.Name,
                                   at(B.Name.Range), expr(*B.Value)));
  } else if (auto *C = llvm::dyn_cast<ConfigDecl>(&D)) {
    line(Indent, Head);
    props(C->Props, Indent + 1);
  } else if (auto *T = llvm::dyn_cast<TensorDecl>(&D)) {
    line(Indent, Head + " '" + T->Name.Name + "' : " + type(T->Type));
  } else if (auto *Pm = llvm::dyn_cast<ParamDecl>(&D)) {
    line(Indent,
         Head + " '" + Pm->Name.Name + "' : " + type(Pm->Type) +
             (Pm->StateWord ? " " + Pm->StateWord->Name + " " + type(Pm->State)
                            : ""));
  } else if (auto *Ca = llvm::dyn_cast<CacheDecl>(&D)) {
    line(Indent, Head + " '" + Ca->Name.Name + "' : " + type(Ca->Type));
  } else if (auto *Sv = llvm::dyn_cast<ServeDecl>(&D)) {
    line(Indent, Head);
    props(Sv->Props, Indent + 1);
    for (const NestedBlockAST &B : Sv->Blocks) {
      line(Indent + 1, "'" + B.Name.Name + "' " + at(B.Name.Range));
      props(B.Props, Indent + 2);
    }
  } else if (auto *Tr = llvm::dyn_cast<TrainDecl>(&D)) {
    line(Indent, Head);
    props(Tr->Props, Indent + 1);
  } else if (auto *Se = llvm::dyn_cast<SearchDecl>(&D)) {
    line(Indent, Head);
    props(Se->Props, Indent + 1);
  } else if (auto *R = llvm::dyn_cast<RepeatDecl>(&D)) {
    std::string Split;
    for (const ExprPtr &E : R->Split)
      Split += (Split.empty() ? " [" : ", ") + expr(*E);
    line(Indent, Head + " " + expr(*R->Count) +
                     (R->Over.Name.empty() ? "" : " over " + R->Over.Name) +
                     (Split.empty() ? "" : Split + "]"));
    for (const DeclPtr &Item : R->Body)
      decl(*Item, Indent + 1);
  } else if (auto *A = llvm::dyn_cast<AssignDecl>(&D)) {
    std::string Rhs =
        A->Rhs == RhsKind::Binary  ? std::string("binary '") + A->Op + "'"
        : A->Rhs == RhsKind::Call  ? "call '" + A->Callee.Name + "'"
        : A->Rhs == RhsKind::Scale ? std::string("scale '") + A->Op + "'"
                                   : std::string("copy");
    line(Indent,
         Head + " '" + A->Out.Name + "' : " + type(A->OutType) + " = " + Rhs);
    for (const OperandAST &O : A->Args)
      line(Indent + 1,
           fmt::format("operand '{}' {}{}", O.Name.Name, at(O.Range),
                       O.Type ? " " + type(*O.Type) : ""));
    props(A->Options, Indent + 1);
  }
}

} // namespace

void shardc::printAST(const FileAST &F, const llvm::SourceMgr &SM,
                      llvm::raw_ostream &OS) {
  OS << "file '" << SM.getMemoryBuffer(F.BufferId)->getBufferIdentifier()
     << "'\n";
  Printer P(SM, OS);
  for (const DeclPtr &D : F.Items)
    P.decl(*D, 1);
}
