//===- ASTBuilder.cpp - ANTLR parse tree to AST ---------------------------===//
//
// One function per grammar rule, each carrying its rule. Runs on one
// top-level item at a time, as the parser leaves it (Parser.cpp frees the
// item's tree right after), and only while the file has parsed without
// errors, so every child the grammar requires is present.
//
//===----------------------------------------------------------------------===//
#include "frontend/ParserSupport.h"

using namespace shardc;
using P = shardgen::ShardParser;

namespace {

class Builder {
public:
  explicit Builder(const SourceText &T) : Text(T) {}

  DeclPtr item(P::ItemContext *C);

private:
  template <typename T> std::unique_ptr<T> start(antlr4::ParserRuleContext *C) {
    auto D = std::make_unique<T>();
    D->Range = Text.range(C);
    return D;
  }
  DeclPtr importDecl(P::ImportDeclContext *C);
  DeclPtr chipDecl(P::ChipDeclContext *C);
  DeclPtr clusterDecl(P::ClusterDeclContext *C);
  DeclPtr meshDecl(P::MeshDeclContext *C);
  DeclPtr configDecl(P::ConfigDeclContext *C);
  DeclPtr tensorDecl(P::TensorDeclContext *C);
  DeclPtr repeatStmt(P::RepeatStmtContext *C);
  DeclPtr assignStmt(P::AssignStmtContext *C);
  std::vector<Binding> bindings(const std::vector<P::BindingContext *> &Cs);
  Property property(P::PropertyContext *C);
  TensorTypeAST tensorType(P::TensorTypeContext *C);
  void indexList(P::IndexListContext *C, TensorTypeAST &T);
  IndexAST index(P::IndexContext *C);
  OperandAST operand(P::OperandContext *C);
  ExprPtr expr(P::ExprContext *C);
  ExprPtr numberExpr(P::NumberExprContext *C);

  const SourceText &Text;
};

/// item ::= importDecl | chipDecl | ... | assignStmt
/// An item has exactly one child; dispatching on its rule index avoids a
/// dynamic_cast per alternative (the builder's hottest path on big files).
DeclPtr Builder::item(P::ItemContext *C) {
  auto *Child = static_cast<antlr4::ParserRuleContext *>(C->children.front());
  switch (Child->getRuleIndex()) {
  case P::RuleImportDecl:
    return importDecl(static_cast<P::ImportDeclContext *>(Child));
  case P::RuleChipDecl:
    return chipDecl(static_cast<P::ChipDeclContext *>(Child));
  case P::RuleClusterDecl:
    return clusterDecl(static_cast<P::ClusterDeclContext *>(Child));
  case P::RuleMeshDecl:
    return meshDecl(static_cast<P::MeshDeclContext *>(Child));
  case P::RuleDimDecl: {
    auto *X = static_cast<P::DimDeclContext *>(Child);
    auto D = start<DimDecl>(X);
    D->Bindings = bindings(X->binding());
    return D;
  }
  case P::RuleLetDecl: {
    auto *X = static_cast<P::LetDeclContext *>(Child);
    auto D = start<LetDecl>(X);
    D->Bindings = bindings(X->binding());
    return D;
  }
  case P::RuleConfigDecl:
    return configDecl(static_cast<P::ConfigDeclContext *>(Child));
  case P::RuleTensorDecl:
    return tensorDecl(static_cast<P::TensorDeclContext *>(Child));
  case P::RuleRepeatStmt:
    return repeatStmt(static_cast<P::RepeatStmtContext *>(Child));
  default:
    return assignStmt(static_cast<P::AssignStmtContext *>(Child));
  }
}

/// importDecl ::= 'import' STRING ';'
DeclPtr Builder::importDecl(P::ImportDeclContext *C) {
  auto D = start<ImportDecl>(C);
  std::string S = C->STRING()->getText();
  D->Path = S.substr(1, S.size() - 2);
  D->PathRange = Text.range(C->STRING()->getSymbol());
  return D;
}

/// chipDecl ::= 'chip' ID '{' property* '}'
DeclPtr Builder::chipDecl(P::ChipDeclContext *C) {
  auto D = start<ChipDecl>(C);
  D->Name = Text.ident(C->ID());
  for (auto *Prop : C->property())
    D->Props.push_back(property(Prop));
  return D;
}

/// clusterDecl ::= 'cluster' ID '{' (property | levelDecl)* '}'
/// levelDecl   ::= 'level' ID '{' property* '}'
DeclPtr Builder::clusterDecl(P::ClusterDeclContext *C) {
  auto D = start<ClusterDecl>(C);
  D->Name = Text.ident(C->ID());
  for (auto *Child : C->children) {
    if (auto *Prop = dynamic_cast<P::PropertyContext *>(Child)) {
      D->Props.push_back(property(Prop));
    } else if (auto *L = dynamic_cast<P::LevelDeclContext *>(Child)) {
      LevelAST Level{Text.ident(L->ID()), {}, Text.range(L)};
      for (auto *Prop : L->property())
        Level.Props.push_back(property(Prop));
      D->Levels.push_back(std::move(Level));
    }
  }
  return D;
}

/// meshDecl ::= 'mesh' ID '=' ID '[' meshAxis (',' meshAxis)* ']' ';'
DeclPtr Builder::meshDecl(P::MeshDeclContext *C) {
  auto D = start<MeshDecl>(C);
  D->Name = Text.ident(C->ID(0));
  D->Cluster = Text.ident(C->ID(1));
  for (auto *A : C->meshAxis())
    D->Axes.push_back({Text.ident(A->ID()), expr(A->expr())});
  return D;
}

/// configDecl ::= 'config' '{' property* '}'
DeclPtr Builder::configDecl(P::ConfigDeclContext *C) {
  auto D = start<ConfigDecl>(C);
  for (auto *Prop : C->property())
    D->Props.push_back(property(Prop));
  return D;
}

/// tensorDecl ::= 'tensor' ID ':' tensorType ';'
DeclPtr Builder::tensorDecl(P::TensorDeclContext *C) {
  auto D = start<TensorDecl>(C);
  D->Name = Text.ident(C->ID());
  D->Type = tensorType(C->tensorType());
  return D;
}

/// repeatStmt ::= 'repeat' expr '{' item* '}'
DeclPtr Builder::repeatStmt(P::RepeatStmtContext *C) {
  auto D = start<RepeatDecl>(C);
  D->Count = expr(C->expr());
  for (auto *I : C->item())
    D->Body.push_back(item(I));
  return D;
}

/// assignStmt ::= lhs '=' rhs ';'
/// lhs ::= ID ':' tensorType | ID '[' indexList ']' unreduced?
/// rhs ::= operand ('*'|'+'|'-') operand | ID '(' operand (',' operand)* ')'
///       | operand
DeclPtr Builder::assignStmt(P::AssignStmtContext *C) {
  auto D = start<AssignDecl>(C);
  if (auto *T = dynamic_cast<P::TypedLhsContext *>(C->lhs())) {
    D->Out = Text.ident(T->ID());
    D->OutType = tensorType(T->tensorType());
  } else {
    auto *I = static_cast<P::IndexedLhsContext *>(C->lhs());
    D->Out = Text.ident(I->ID());
    D->OutType.Range = Text.range(I);
    indexList(I->indexList(), D->OutType);
    if (auto *U = I->unreduced()) {
      D->OutType.HasUnreduced = true;
      for (auto *X : U->index())
        D->OutType.Unreduced.push_back(index(X));
    }
  }
  if (auto *B = dynamic_cast<P::BinaryRhsContext *>(C->rhs())) {
    D->Rhs = RhsKind::Binary;
    D->Op = B->op->getText()[0];
    D->OpRange = Text.range(B->op);
    for (auto *O : B->operand())
      D->Args.push_back(operand(O));
  } else if (auto *F = dynamic_cast<P::CallRhsContext *>(C->rhs())) {
    D->Rhs = RhsKind::Call;
    D->Callee = Text.ident(F->ID());
    for (auto *O : F->operand())
      D->Args.push_back(operand(O));
  } else {
    D->Args.push_back(
        operand(static_cast<P::CopyRhsContext *>(C->rhs())->operand()));
  }
  return D;
}

/// binding ::= ID '=' expr
std::vector<Binding>
Builder::bindings(const std::vector<P::BindingContext *> &Cs) {
  std::vector<Binding> Out;
  for (auto *B : Cs)
    Out.push_back({Text.ident(B->ID()), expr(B->expr())});
  return Out;
}

/// property ::= propName '=' expr ';'    propName ::= word ('.' word)*
Property Builder::property(P::PropertyContext *C) {
  Property Prop;
  Prop.Name.Range = Text.range(C->propName());
  Prop.Name.Name = C->propName()->getText();
  Prop.Value = expr(C->expr());
  return Prop;
}

/// tensorType ::= ID '[' indexList ']' unreduced?
/// unreduced  ::= '{' index (',' index)* '}'
TensorTypeAST Builder::tensorType(P::TensorTypeContext *C) {
  TensorTypeAST T;
  T.DType = Text.ident(C->ID());
  T.Range = Text.range(C);
  indexList(C->indexList(), T);
  if (auto *U = C->unreduced()) {
    T.HasUnreduced = true;
    for (auto *X : U->index())
      T.Unreduced.push_back(index(X));
  }
  return T;
}

/// indexList ::= index (',' index)*
void Builder::indexList(P::IndexListContext *C, TensorTypeAST &T) {
  for (auto *X : C->index())
    T.Indices.push_back(index(X));
}

/// index ::= ID axisSet?     axisSet ::= '{' ID (',' ID)* '}'
IndexAST Builder::index(P::IndexContext *C) {
  IndexAST I;
  I.Id = Text.ident(C->ID());
  I.Range = Text.range(C);
  if (auto *S = C->axisSet()) {
    I.Braced = true;
    for (auto *A : S->ID())
      I.BracedAxes.push_back(Text.ident(A));
  }
  return I;
}

/// operand ::= ID ('[' indexList ']' unreduced?)?
OperandAST Builder::operand(P::OperandContext *C) {
  OperandAST O;
  O.Name = Text.ident(C->ID());
  O.Range = Text.range(C);
  if (auto *L = C->indexList()) {
    TensorTypeAST T;
    T.Range = O.Range;
    indexList(L, T);
    if (auto *U = C->unreduced()) {
      T.HasUnreduced = true;
      for (auto *X : U->index())
        T.Unreduced.push_back(index(X));
    }
    O.Type = std::move(T);
  }
  return O;
}

ExprPtr makeExpr(ExprKind K, llvm::SMRange R) {
  auto E = std::make_unique<Expr>();
  E->Kind = K;
  E->Range = R;
  return E;
}

/// expr ::= '-' expr | expr ('*'|'/') expr | expr ('+'|'-') expr
///        | '(' expr ')' | NUMBER (ID ('/' ID)?)? | ID
ExprPtr Builder::expr(P::ExprContext *C) {
  // Iterative descent through parentheses keeps deep nesting off the stack.
  while (auto *Paren = dynamic_cast<P::ParenExprContext *>(C))
    C = Paren->expr();
  if (auto *N = dynamic_cast<P::NumberExprContext *>(C))
    return numberExpr(N);
  if (auto *N = dynamic_cast<P::NameExprContext *>(C)) {
    auto E = makeExpr(ExprKind::Name, Text.range(N));
    E->Text = N->ID()->getText();
    return E;
  }
  if (auto *N = dynamic_cast<P::NegExprContext *>(C)) {
    auto E = makeExpr(ExprKind::Neg, Text.range(N));
    E->LHS = expr(N->expr());
    return E;
  }
  auto E = makeExpr(ExprKind::Binary, Text.range(C));
  if (auto *M = dynamic_cast<P::MulExprContext *>(C)) {
    E->Op = M->op->getText()[0];
    E->LHS = expr(M->expr(0));
    E->RHS = expr(M->expr(1));
  } else {
    auto *A = static_cast<P::AddExprContext *>(C);
    E->Op = A->op->getText()[0];
    E->LHS = expr(A->expr(0));
    E->RHS = expr(A->expr(1));
  }
  return E;
}

/// NUMBER (unit=ID ('/' per=ID)?)?
/// `8 GB / layers` parses as a unit "GB/layers" too: only the checker knows
/// whether `layers` is a constant to divide by or a misspelt time unit.
ExprPtr Builder::numberExpr(P::NumberExprContext *C) {
  auto E = makeExpr(ExprKind::Number, Text.range(C));
  E->Text = C->NUMBER()->getText();
  if (!C->unit)
    return E;
  E->Unit = C->unit->getText();
  E->UnitRange = {Text.range(C->unit).Start, Text.range(C->unit).End};
  if (C->per) {
    E->Per = C->per->getText();
    E->PerRange = Text.range(C->per);
    E->UnitRange.End = E->PerRange.End;
  }
  return E;
}

} // namespace

DeclPtr shardc::buildItem(P::ItemContext *Item, const SourceText &Text) {
  return Builder(Text).item(Item);
}
