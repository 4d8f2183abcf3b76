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

// The generated accessors (C->ID(), C->index(), ...) test every child with a
// dynamic_cast, and were a fifth of the builder's time. These compare exact
// dynamic types instead: a context's class is the rule's own, or for a
// labelled alternative (`# typedLhs`) the alternative's, never a subclass of
// it; a token is a TerminalNodeImpl (error nodes, its subclass, occur only in
// trees with syntax errors, which are never built).

/// Child \p I of \p C if its class is exactly T, else null. The grammar
/// fixes where each part of a rule is (`tensorType ::= ID '[' indexList ']'
/// unreduced?`: indexList is child 2), so most lookups need one comparison.
template <typename T> T *childAt(antlr4::ParserRuleContext *C, size_t I) {
  if (I >= C->children.size())
    return nullptr;
  antlr4::tree::ParseTree *X = C->children[I];
  return typeid(*X) == typeid(T) ? static_cast<T *>(X) : nullptr;
}

/// The last child of \p C if its class is exactly T: an optional part at
/// the end of its rule (`unreduced?`, `axisSet?`), else null.
template <typename T> T *lastChild(antlr4::ParserRuleContext *C) {
  return C->children.empty() ? nullptr : childAt<T>(C, C->children.size() - 1);
}

/// Calls \p F on each child of \p C whose class is exactly T.
template <typename T, typename Fn>
void forEachChild(antlr4::ParserRuleContext *C, Fn F) {
  for (antlr4::tree::ParseTree *X : C->children)
    if (typeid(*X) == typeid(T))
      F(static_cast<T *>(X));
}

/// The first token of \p C, which must be of type \p Type (most rules start
/// with their ID), else the first token of that type among its children.
antlr4::Token *first(antlr4::ParserRuleContext *C, size_t Type);

/// The \p N-th token of type \p Type among \p C's children, or null.
antlr4::Token *token(antlr4::ParserRuleContext *C, size_t Type, size_t N = 0) {
  for (antlr4::tree::ParseTree *X : C->children) {
    if (typeid(*X) != typeid(antlr4::tree::TerminalNodeImpl))
      continue;
    // TerminalNodeImpl derives virtually from TerminalNode, which derives
    // plainly from ParseTree: the cast goes to TerminalNode.
    antlr4::Token *T =
        static_cast<antlr4::tree::TerminalNode *>(X)->getSymbol();
    if (T->getType() == Type && N-- == 0)
      return T;
  }
  return nullptr;
}

antlr4::Token *first(antlr4::ParserRuleContext *C, size_t Type) {
  antlr4::Token *T = C->getStart();
  return T && T->getType() == Type ? T : token(C, Type);
}

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
  DeclPtr paramDecl(P::ParamDeclContext *C);
  DeclPtr cacheDecl(P::CacheDeclContext *C);
  DeclPtr trainDecl(P::TrainDeclContext *C);
  DeclPtr serveDecl(P::ServeDeclContext *C);
  DeclPtr searchDecl(P::SearchDeclContext *C);
  SetAST searchSet(P::SearchSetContext *C);
  DeclPtr repeatStmt(P::RepeatStmtContext *C);
  DeclPtr assignStmt(P::AssignStmtContext *C);
  std::vector<Binding> bindings(const std::vector<P::BindingContext *> &Cs);
  Property property(P::PropertyContext *C) {
    return property(C->propName(), C->expr());
  }
  Property searchProperty(P::SearchPropertyContext *C);
  Property property(P::PropNameContext *Name, P::ExprContext *Value);
  TensorTypeAST tensorType(P::TensorTypeContext *C);
  void indexList(P::IndexListContext *C, TensorTypeAST &T);
  void unreduced(P::UnreducedContext *C, TensorTypeAST &T);
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
  case P::RuleParamDecl:
    return paramDecl(static_cast<P::ParamDeclContext *>(Child));
  case P::RuleCacheDecl:
    return cacheDecl(static_cast<P::CacheDeclContext *>(Child));
  case P::RuleTrainDecl:
    return trainDecl(static_cast<P::TrainDeclContext *>(Child));
  case P::RuleServeDecl:
    return serveDecl(static_cast<P::ServeDeclContext *>(Child));
  case P::RuleSearchDecl:
    return searchDecl(static_cast<P::SearchDeclContext *>(Child));
  case P::RuleRepeatStmt:
    return repeatStmt(static_cast<P::RepeatStmtContext *>(Child));
  default:
    return assignStmt(static_cast<P::AssignStmtContext *>(Child));
  }
}

/// importDecl ::= 'import' STRING ';'
DeclPtr Builder::importDecl(P::ImportDeclContext *C) {
  auto D = start<ImportDecl>(C);
  antlr4::Token *S = token(C, P::STRING);
  D->Path = Text.text(S).drop_front().drop_back().str();
  D->PathRange = Text.range(S);
  return D;
}

/// chipDecl   ::= 'chip' ID (':' ID)? '{' chipMember* '}'
/// chipMember ::= propName ('=' expr ';' | ID '{' property* '}')
DeclPtr Builder::chipDecl(P::ChipDeclContext *C) {
  auto D = start<ChipDecl>(C);
  D->Name = Text.ident(token(C, P::ID));
  if (antlr4::Token *Base = token(C, P::ID, 1))
    D->Base = Text.ident(Base);
  forEachChild<P::ChipMemberContext>(C, [&](P::ChipMemberContext *M) {
    if (M->expr()) {
      D->Props.push_back(property(M->propName(), M->expr()));
      return;
    }
    TileAST Tile{{M->propName()->getText(), Text.range(M->propName())},
                 Text.ident(token(M, P::ID)),
                 {},
                 Text.range(M)};
    forEachChild<P::PropertyContext>(
        M, [&](auto *Prop) { Tile.Props.push_back(property(Prop)); });
    D->Tiles.push_back(std::move(Tile));
  });
  return D;
}

/// clusterDecl ::= 'cluster' ID (':' ID)? '{' (property | levelDecl)* '}'
/// levelDecl   ::= 'level' ID '{' property* '}'
DeclPtr Builder::clusterDecl(P::ClusterDeclContext *C) {
  auto D = start<ClusterDecl>(C);
  D->Name = Text.ident(token(C, P::ID));
  if (antlr4::Token *Base = token(C, P::ID, 1))
    D->Base = Text.ident(Base);
  forEachChild<P::PropertyContext>(
      C, [&](auto *Prop) { D->Props.push_back(property(Prop)); });
  forEachChild<P::LevelDeclContext>(C, [&](P::LevelDeclContext *L) {
    LevelAST Level{Text.ident(token(L, P::ID)), {}, Text.range(L)};
    forEachChild<P::PropertyContext>(
        L, [&](auto *Prop) { Level.Props.push_back(property(Prop)); });
    D->Levels.push_back(std::move(Level));
  });
  return D;
}

/// meshDecl ::= 'mesh' ID '=' ID '[' meshAxis (',' meshAxis)* ']' ';'
/// meshAxis ::= ID ':' (expr | '?' (ID searchSet)?)
DeclPtr Builder::meshDecl(P::MeshDeclContext *C) {
  auto D = start<MeshDecl>(C);
  D->Name = Text.ident(token(C, P::ID, 0));
  D->Cluster = Text.ident(token(C, P::ID, 1));
  forEachChild<P::MeshAxisContext>(C, [&](P::MeshAxisContext *A) {
    MeshAxisAST Axis;
    Axis.Name = Text.ident(first(A, P::ID));
    if (P::ExprContext *E = A->expr()) {
      Axis.Size = expr(E);
      Axis.SizeRange = Axis.Size->Range;
    } else {
      antlr4::Token *Q = token(A, P::QUESTION);
      Axis.SizeRange = {Text.range(Q).Start, Text.range(A).End};
      if (auto *S = lastChild<P::SearchSetContext>(A)) {
        Axis.InWord = Text.ident(token(A, P::ID, 1));
        Axis.Set = searchSet(S);
      }
    }
    D->Axes.push_back(std::move(Axis));
  });
  return D;
}

/// searchSet ::= '{' expr (',' expr)* '}' | expr '..' expr
SetAST Builder::searchSet(P::SearchSetContext *C) {
  SetAST S;
  S.Range = Text.range(C);
  S.IsRange = token(C, P::DOTDOT) != nullptr;
  // Exprs are labelled alternatives (subclasses): the generated accessor.
  for (P::ExprContext *E : C->expr())
    S.Items.push_back(expr(E));
  return S;
}

/// configDecl ::= 'config' '{' property* '}'
DeclPtr Builder::configDecl(P::ConfigDeclContext *C) {
  auto D = start<ConfigDecl>(C);
  forEachChild<P::PropertyContext>(
      C, [&](auto *Prop) { D->Props.push_back(property(Prop)); });
  return D;
}

/// tensorDecl ::= 'tensor' ID ':' tensorType ';'
DeclPtr Builder::tensorDecl(P::TensorDeclContext *C) {
  auto D = start<TensorDecl>(C);
  D->Name = Text.ident(token(C, P::ID));
  D->Type = tensorType(childAt<P::TensorTypeContext>(C, 3));
  return D;
}

/// paramDecl ::= 'param' ID ':' tensorType (ID '[' indexList ']')? ';'
DeclPtr Builder::paramDecl(P::ParamDeclContext *C) {
  auto D = start<ParamDecl>(C);
  D->Name = Text.ident(token(C, P::ID, 0));
  D->Type = tensorType(childAt<P::TensorTypeContext>(C, 3));
  if (auto *L = childAt<P::IndexListContext>(C, 6)) {
    D->StateWord = Text.ident(token(C, P::ID, 1));
    indexList(L, D->State);
    D->State.Range = {D->StateWord->Range.Start,
                      Text.range(token(C, P::RBRACK)).End};
  }
  return D;
}

/// cacheDecl ::= 'cache' ID ':' tensorType ';'
DeclPtr Builder::cacheDecl(P::CacheDeclContext *C) {
  auto D = start<CacheDecl>(C);
  D->Name = Text.ident(token(C, P::ID));
  D->Type = tensorType(childAt<P::TensorTypeContext>(C, 3));
  return D;
}

/// serveDecl ::= 'serve' '{' serveMember* '}'
/// serveMember ::= propName ('=' serveValue ';' | '{' property* '}')
/// serveValue ::= '[' expr (',' expr)* ']' | expr '..' expr | expr
DeclPtr Builder::serveDecl(P::ServeDeclContext *C) {
  auto D = start<ServeDecl>(C);
  forEachChild<P::ServeMemberContext>(C, [&](P::ServeMemberContext *M) {
    P::ServeValueContext *V = M->serveValue();
    if (!V) {
      NestedBlockAST B;
      B.Name = {M->propName()->getText(), Text.range(M->propName())};
      B.Range = Text.range(M);
      forEachChild<P::PropertyContext>(
          M, [&](auto *Prop) { B.Props.push_back(property(Prop)); });
      D->Blocks.push_back(std::move(B));
      return;
    }
    std::vector<P::ExprContext *> Es = V->expr();
    Property Prop;
    bool List = token(V, P::LBRACK) || token(V, P::DOTDOT);
    if (!List && Es.size() == 1) {
      Prop = property(M->propName(), Es[0]);
    } else {
      Prop.Name = {M->propName()->getText(), Text.range(M->propName())};
      Prop.Form = PropForm::List;
      SetAST S;
      S.Range = Text.range(V);
      S.IsRange = token(V, P::DOTDOT) != nullptr;
      for (P::ExprContext *E : Es)
        S.Items.push_back(expr(E));
      Prop.Set = std::move(S);
    }
    Prop.Range = Text.range(M);
    D->Props.push_back(std::move(Prop));
  });
  return D;
}

/// trainDecl ::= 'train' '{' searchProperty* '}'
DeclPtr Builder::trainDecl(P::TrainDeclContext *C) {
  auto D = start<TrainDecl>(C);
  forEachChild<P::SearchPropertyContext>(
      C, [&](auto *Prop) { D->Props.push_back(searchProperty(Prop)); });
  return D;
}

/// searchDecl ::= 'search' '{' searchProperty* '}'
DeclPtr Builder::searchDecl(P::SearchDeclContext *C) {
  auto D = start<SearchDecl>(C);
  forEachChild<P::SearchPropertyContext>(
      C, [&](auto *Prop) { D->Props.push_back(searchProperty(Prop)); });
  return D;
}

/// repeatStmt ::= 'repeat' expr ('over' ID stageSplit?)? '{' item* '}'
/// stageSplit ::= '[' expr (',' expr)* ']'
DeclPtr Builder::repeatStmt(P::RepeatStmtContext *C) {
  auto D = start<RepeatDecl>(C);
  D->Count = expr(C->expr());
  if (token(C, P::OVER))
    D->Over = Text.ident(token(C, P::ID));
  if (auto *S = C->stageSplit()) {
    D->SplitRange = Text.range(S);
    for (P::ExprContext *E : S->expr())
      D->Split.push_back(expr(E));
  }
  forEachChild<P::ItemContext>(
      C, [&](P::ItemContext *I) { D->Body.push_back(item(I)); });
  return D;
}

/// assignStmt ::= lhs '=' rhs ';'
/// lhs ::= ID ':' tensorType | ID '[' indexList ']' unreduced?
/// rhs ::= operand ('*'|'+'|'-') operand
///       | ID '(' operand (',' operand)* callOptions? ')' | operand
/// callOptions ::= ';' callOption (',' callOption)*
/// callOption  ::= word '=' expr
DeclPtr Builder::assignStmt(P::AssignStmtContext *C) {
  auto D = start<AssignDecl>(C);
  if (auto *T = childAt<P::TypedLhsContext>(C, 0)) {
    D->Out = Text.ident(first(T, P::ID));
    D->OutType = tensorType(childAt<P::TensorTypeContext>(T, 2));
  } else {
    auto *I = childAt<P::IndexedLhsContext>(C, 0);
    D->Out = Text.ident(first(I, P::ID));
    D->OutType.Range = Text.range(I);
    indexList(childAt<P::IndexListContext>(I, 2), D->OutType);
    unreduced(lastChild<P::UnreducedContext>(I), D->OutType);
  }
  antlr4::ParserRuleContext *Rhs = nullptr;
  if (auto *B = childAt<P::BinaryRhsContext>(C, 2)) {
    D->Rhs = RhsKind::Binary;
    D->Op = Text.text(B->op).front();
    D->OpRange = Text.range(B->op);
    Rhs = B;
  } else if (auto *S = childAt<P::ScaleRhsContext>(C, 2)) {
    // `x * 2`, `x / 4`, `2 * x`: the constant does not change the cost.
    D->Rhs = RhsKind::Scale;
    D->Op = Text.text(S->op).front();
    D->OpRange = Text.range(S->op);
    Rhs = S;
  } else if (auto *F = childAt<P::CallRhsContext>(C, 2)) {
    D->Rhs = RhsKind::Call;
    D->Callee = Text.ident(first(F, P::ID));
    // callOptions, when written, is the child before the closing ')'.
    if (auto *Opts = childAt<P::CallOptionsContext>(F, F->children.size() - 2))
      forEachChild<P::CallOptionContext>(Opts, [&](P::CallOptionContext *O) {
        Property Prop;
        Prop.Name = {O->word()->getText(), Text.range(O->word())};
        Prop.Value = expr(O->expr());
        D->Options.push_back(std::move(Prop));
      });
    Rhs = F;
  } else {
    Rhs = childAt<P::CopyRhsContext>(C, 2);
  }
  D->Args.reserve(Rhs->children.size() / 2 + 1);
  forEachChild<P::OperandContext>(
      Rhs, [&](P::OperandContext *O) { D->Args.push_back(operand(O)); });
  return D;
}

/// binding ::= ID '=' expr (ID ID)?
std::vector<Binding>
Builder::bindings(const std::vector<P::BindingContext *> &Cs) {
  std::vector<Binding> Out;
  for (auto *B : Cs) {
    Binding X{Text.ident(first(B, P::ID)), expr(B->expr()), {}, {}};
    if (antlr4::Token *Per = token(B, P::ID, 1)) {
      X.PerWord = Text.ident(Per);
      X.StepWord = Text.ident(token(B, P::ID, 2));
    }
    Out.push_back(std::move(X));
  }
  return Out;
}

/// searchProperty ::= propName ('=' expr | '=' '?' | '<=' expr
///                               | ID searchSet) ';'
Property Builder::searchProperty(P::SearchPropertyContext *C) {
  Property Prop;
  if (P::ExprContext *E = C->expr())
    Prop = property(C->propName(), E);
  else
    Prop.Name = {C->propName()->getText(), Text.range(C->propName())};
  Prop.Range = Text.range(C);
  if (token(C, P::LE)) {
    Prop.Form = PropForm::AtMost;
  } else if (token(C, P::QUESTION)) {
    Prop.Form = PropForm::Any;
  } else if (auto *S = childAt<P::SearchSetContext>(C, 2)) {
    Prop.Form = PropForm::In;
    Prop.InWord = Text.ident(token(C, P::ID));
    Prop.Set = searchSet(S);
  }
  return Prop;
}

/// propName ::= word ('.' word)*
Property Builder::property(P::PropNameContext *Name, P::ExprContext *Value) {
  Property Prop;
  Prop.Name.Range = Text.range(Name);
  Prop.Name.Name = Name->getText();
  Prop.Value = expr(Value);
  return Prop;
}

/// tensorType ::= ID '[' indexList ']' unreduced?
TensorTypeAST Builder::tensorType(P::TensorTypeContext *C) {
  TensorTypeAST T;
  T.DType = Text.ident(first(C, P::ID));
  T.Range = Text.range(C);
  indexList(childAt<P::IndexListContext>(C, 2), T);
  unreduced(lastChild<P::UnreducedContext>(C), T);
  return T;
}

/// indexList ::= index (',' index)*
void Builder::indexList(P::IndexListContext *C, TensorTypeAST &T) {
  T.Indices.reserve(C->children.size() / 2 + 1);
  forEachChild<P::IndexContext>(
      C, [&](P::IndexContext *X) { T.Indices.push_back(index(X)); });
}

/// unreduced ::= '{' index (',' index)* '}'    (\p C may be absent)
void Builder::unreduced(P::UnreducedContext *C, TensorTypeAST &T) {
  if (!C)
    return;
  T.HasUnreduced = true;
  T.Unreduced.reserve(C->children.size() / 2);
  forEachChild<P::IndexContext>(
      C, [&](P::IndexContext *X) { T.Unreduced.push_back(index(X)); });
}

/// index ::= ID axisSet?     axisSet ::= '{' ID (',' ID)* '}'
IndexAST Builder::index(P::IndexContext *C) {
  IndexAST I;
  I.Id = Text.ident(first(C, P::ID));
  I.Range = Text.range(C);
  if (auto *S = lastChild<P::AxisSetContext>(C)) {
    I.Braced = true;
    for (size_t N = 0; antlr4::Token *A = token(S, P::ID, N); ++N)
      I.BracedAxes.push_back(Text.ident(A));
  }
  return I;
}

/// operand ::= ID ('[' indexList ']' unreduced?)?
OperandAST Builder::operand(P::OperandContext *C) {
  OperandAST O;
  O.Name = Text.ident(first(C, P::ID));
  O.Range = Text.range(C);
  if (auto *L = childAt<P::IndexListContext>(C, 2)) {
    TensorTypeAST T;
    T.Range = O.Range;
    indexList(L, T);
    unreduced(lastChild<P::UnreducedContext>(C), T);
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
    E->Text = Text.text(first(N, P::ID)).str();
    return E;
  }
  if (auto *N = dynamic_cast<P::NegExprContext *>(C)) {
    auto E = makeExpr(ExprKind::Neg, Text.range(N));
    E->LHS = expr(N->expr());
    return E;
  }
  auto E = makeExpr(ExprKind::Binary, Text.range(C));
  if (auto *M = dynamic_cast<P::MulExprContext *>(C)) {
    E->Op = Text.text(M->op).front();
    E->LHS = expr(M->expr(0));
    E->RHS = expr(M->expr(1));
  } else {
    auto *A = static_cast<P::AddExprContext *>(C);
    E->Op = Text.text(A->op).front();
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
  E->Text = Text.text(first(C, P::NUMBER)).str();
  if (!C->unit)
    return E;
  E->Unit = Text.text(C->unit).str();
  E->UnitRange = {Text.range(C->unit).Start, Text.range(C->unit).End};
  if (C->per) {
    E->Per = Text.text(C->per).str();
    E->PerRange = Text.range(C->per);
    E->UnitRange.End = E->PerRange.End;
  }
  return E;
}

} // namespace

DeclPtr shardc::buildItem(P::ItemContext *Item, const SourceText &Text) {
  return Builder(Text).item(Item);
}
