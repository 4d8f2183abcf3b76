//===- SemaExpr.cpp - Evaluating expressions with units -------------------===//
//
// Expressions are evaluated as soon as they are checked: every value in a
// .shard file is a compile-time constant. A failed evaluation reports once
// and yields nullopt, which callers treat as poison.
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include <cmath>
#include <fmt/format.h>

using namespace shardc;

/// `2.5k` is 2500 and `8 b / 1 B` is 1: a real count that lands on a whole
/// number becomes exact again, so it can size a dim or count a repeat.
static Quantity exactIfWhole(Quantity Q) {
  if (!Q.IsInt && Q.Dim.isCount() && std::floor(Q.Real) == Q.Real &&
      std::fabs(Q.Real) < 9.0e15)
    return Quantity::ofInt(int64_t(Q.Real), Q.Dim);
  return Q;
}

std::optional<Quantity> Sema::evalNumber(const Expr &E) {
  bool Overflow = false;
  std::optional<Quantity> Q = parseNumber(E.Text, Overflow);
  if (!Q) {
    // `1e400` is a real too large for a double, not an integer overflow.
    bool Real = E.Text.find_first_of(".eE") != std::string::npos;
    if (Overflow)
      Diags.report(E.Range, Real ? diag::NotFinite : diag::IntegerOverflow);
    else
      Diags.report(E.Range, diag::InvalidNumber, E.Text);
    return std::nullopt;
  }
  // `2.0` is whole, so it is exact like `2` (`dim N = 2.0;` is fine).
  if (E.Unit.empty())
    return exactIfWhole(*Q);
  std::optional<UnitInfo> U = lookupUnit(E.Unit, E.Per);
  // `8 GB / layers`: not a rate but an amount divided by a constant.
  if (!U && !E.Per.empty() && lookup(E.Per))
    return evalDividedNumber(E);
  if (!U) {
    std::string Written = E.Per.empty() ? E.Unit : E.Unit + "/" + E.Per;
    if (auto Best = closestName(Written, allUnitNames()))
      Diags.report(E.UnitRange, diag::UnknownUnitSuggest, Written, *Best);
    else
      Diags.report(E.UnitRange, diag::UnknownUnit, Written);
    // `2 layers`: a number followed by a name reads as a unit.
    if (const Symbol *S = E.Per.empty() ? lookup(E.Unit) : nullptr;
        S && (S->Kind == SymKind::Let || S->Kind == SymKind::Dim))
      Diags.report(E.UnitRange, diag::UnitIsAName, E.Unit,
                   S->Kind == SymKind::Let ? "let" : "dim", E.Text);
    return std::nullopt;
  }
  Quantity Out;
  ArithError Err;
  if (Q->IsInt && U->IntScale)
    Err = applyOp('*', *Q, Quantity::ofInt(U->IntScale, U->Dim), Out);
  else
    Err = applyOp('*', *Q, Quantity::ofReal(U->Scale, U->Dim), Out);
  if (Err != ArithError::None) {
    Diags.report(E.Range, Err == ArithError::Overflow ? diag::IntegerOverflow
                                                      : diag::NotFinite);
    return std::nullopt;
  }
  return exactIfWhole(Out);
}

/// Evaluates `8 GB / layers`, which parsed as one number with a unit.
std::optional<Quantity> Sema::evalDividedNumber(const Expr &E) {
  Expr Amount;
  Amount.Kind = ExprKind::Number;
  Amount.Text = E.Text;
  Amount.Unit = E.Unit;
  Amount.UnitRange = {E.UnitRange.Start,
                      llvm::SMLoc::getFromPointer(
                          E.UnitRange.Start.getPointer() + E.Unit.size())};
  Amount.Range = {E.Range.Start, Amount.UnitRange.End};
  std::optional<Quantity> L = evalNumber(Amount);
  Expr Divisor;
  Divisor.Kind = ExprKind::Name;
  Divisor.Range = E.PerRange;
  Divisor.Text = E.Per;
  std::optional<Quantity> R = eval(Divisor);
  if (!L || !R)
    return std::nullopt;
  return combine(E.Range, '/', *L, *R, E.PerRange);
}

std::optional<Quantity> Sema::eval(const Expr &E) {
  switch (E.Kind) {
  case ExprKind::Number:
    return evalNumber(E);
  case ExprKind::Name: {
    Symbol *S = lookup(E.Text);
    if (!S) {
      reportUndefined({E.Text, E.Range}, "name", {SymKind::Dim, SymKind::Let});
      return std::nullopt;
    }
    if (S->Poisoned)
      return std::nullopt;
    if (S->Kind != SymKind::Dim && S->Kind != SymKind::Let) {
      Diags.report(E.Range, diag::WrongKindOfName, E.Text, symKindName(S->Kind),
                   "number, dim or let constant");
      return std::nullopt;
    }
    if (S->Kind == SymKind::Dim && PerStepDimId && *PerStepDimId == S->Dim) {
      // A search rebinds it per candidate: nothing computed from it may
      // be fixed once.
      Diags.report(E.Range, diag::PerStepDimRead, E.Text);
      return std::nullopt;
    }
    if (S->Kind == SymKind::Dim && isPhaseDim(S->Dim)) {
      // Sized per serving instance: nothing computed from it is fixed.
      Diags.report(E.Range, diag::PhaseDimRead, E.Text);
      return std::nullopt;
    }
    if (S->Kind == SymKind::Dim) {
      if (Info->DimReadByExpr.size() <= S->Dim)
        Info->DimReadByExpr.resize(S->Dim + 1);
      Info->DimReadByExpr[S->Dim] = true;
    }
    return S->Value;
  }
  case ExprKind::Neg: {
    std::optional<Quantity> V = eval(*E.LHS);
    if (!V)
      return std::nullopt;
    Quantity Out;
    if (applyOp('-', Quantity::ofInt(0, V->Dim), *V, Out) != ArithError::None) {
      Diags.report(E.Range, diag::IntegerOverflow);
      return std::nullopt;
    }
    return Out;
  }
  case ExprKind::Binary:
    break;
  }
  std::optional<Quantity> L = eval(*E.LHS);
  std::optional<Quantity> R = eval(*E.RHS);
  if (!L || !R)
    return std::nullopt;
  return combine(E.Range, E.Op, *L, *R, E.RHS->Range);
}

/// Applies \p Op, reporting at \p At (or at the divisor \p RhsRange for a
/// division by zero).
std::optional<Quantity> Sema::combine(llvm::SMRange At, char Op,
                                      const Quantity &L, const Quantity &R,
                                      llvm::SMRange RhsRange) {
  Quantity Out;
  switch (applyOp(Op, L, R, Out)) {
  case ArithError::None:
    return exactIfWhole(Out);
  case ArithError::Overflow:
    Diags.report(At, diag::IntegerOverflow);
    break;
  case ArithError::DivByZero:
    Diags.report(RhsRange, diag::DivisionByZero);
    break;
  case ArithError::NotFinite:
    Diags.report(At, diag::NotFinite);
    break;
  case ArithError::Mismatch:
    Diags.report(At, diag::OperandUnitMismatch, Op == '+' ? "add" : "subtract",
                 L.Dim.str(), R.Dim.str());
    break;
  }
  return std::nullopt;
}

std::optional<int64_t> Sema::evalWhole(const Expr &E, llvm::StringRef What,
                                       int64_t Min) {
  std::optional<Quantity> Q = eval(E);
  if (!Q)
    return std::nullopt;
  if (!Q->Dim.isCount()) {
    Diags.report(E.Range, diag::UnitMismatch, "a plain number", Q->Dim.str());
    return std::nullopt;
  }
  if (!Q->IsInt) {
    Diags.report(E.Range, diag::ExpectedWholeNumber, Q->str());
    return std::nullopt;
  }
  if (Q->Int < Min) {
    Diags.report(E.Range,
                 Min > 0 ? diag::ExpectedPositive : diag::ExpectedNonNegative,
                 What.str(), Q->str());
    return std::nullopt;
  }
  return Q->Int;
}

const Symbol *Sema::evalRef(const Expr &E, SymKind Want) {
  if (E.Kind != ExprKind::Name) {
    Diags.report(E.Range, diag::UnitMismatch,
                 "the name of a " + symKindName(Want).str(), "a number");
    return nullptr;
  }
  Symbol *S = lookup(E.Text);
  if (!S) {
    reportUndefined({E.Text, E.Range}, symKindName(Want), {Want});
    return nullptr;
  }
  if (S->Kind != Want) {
    Diags.report(E.Range, diag::WrongKindOfName, E.Text, symKindName(S->Kind),
                 symKindName(Want));
    return nullptr;
  }
  return S->Poisoned ? nullptr : S;
}

namespace {
Dimension dimensionOf(PropKind K) {
  switch (K) {
  case PropKind::Bytes:
    return Dimension::bytes();
  case PropKind::BytesPerSecond:
    return Dimension::bytesPerSecond();
  case PropKind::FlopPerSecond:
    return Dimension::flopPerSecond();
  case PropKind::Frequency:
    return Dimension::perSecond();
  case PropKind::Seconds:
    return Dimension::seconds();
  case PropKind::Count:
  case PropKind::Whole:
  case PropKind::Fraction:
  case PropKind::Share:
  case PropKind::Real:
    return Dimension::count();
  case PropKind::Word:
  case PropKind::Bool:
  case PropKind::ChipRef:
  case PropKind::MeshRef:
    break;
  }
  llvm_unreachable("flags and references have no dimension");
}
} // namespace

std::optional<PropValue> Sema::evalProperty(const Property &Prop, PropKind K) {
  return evalValue(Prop.Name.Name, *Prop.Value, K);
}

/// The value \p E of a property named \p Name, of kind \p K (also a value
/// in a search's set).
std::optional<PropValue> Sema::evalValue(const std::string &Name, const Expr &E,
                                         PropKind K) {
  PropValue V;
  if (K == PropKind::Bool) {
    if (E.Kind != ExprKind::Name || (E.Text != "true" && E.Text != "false")) {
      Diags.report(E.Range, diag::ExpectedBool, Name);
      return std::nullopt;
    }
    V.Flag = E.Text == "true";
    return V;
  }
  if (K == PropKind::ChipRef || K == PropKind::MeshRef) {
    V.Sym = evalRef(E, K == PropKind::ChipRef ? SymKind::Chip : SymKind::Mesh);
    return V.Sym ? std::optional(V) : std::nullopt;
  }
  V.Range = E.Range;
  if (K == PropKind::Word) {
    // `1f1b` lexes as a number with a unit; it is a word here.
    bool IsName = E.Kind == ExprKind::Name;
    bool Glued = E.Kind == ExprKind::Number && !E.Unit.empty() && E.Per.empty();
    if (!IsName && !Glued) {
      Diags.report(E.Range, diag::ExpectedWord, Name);
      return std::nullopt;
    }
    V.Word = IsName ? E.Text : E.Text + E.Unit;
    return V;
  }
  if (K == PropKind::Count || K == PropKind::Whole) {
    std::optional<int64_t> N = evalWhole(E, Name, K == PropKind::Count ? 1 : 0);
    if (!N)
      return std::nullopt;
    V.Whole = *N;
    V.Number = double(*N);
    return V;
  }
  std::optional<Quantity> Q = eval(E);
  if (!Q)
    return std::nullopt;
  Dimension Want = dimensionOf(K);
  if (!(Q->Dim == Want)) {
    Diags.report(E.Range, diag::UnitMismatch, Want.str(), Q->Dim.str());
    return std::nullopt;
  }
  V.Number = Q->value();
  if (K == PropKind::Fraction && !(V.Number > 0 && V.Number <= 1)) {
    Diags.report(E.Range, diag::ExpectedFraction, Name, Q->str());
    return std::nullopt;
  }
  // A share of the chip's SMs: 0 (the default) leaves compute alone, 1
  // would stop it.
  if (K == PropKind::Share) {
    if (!(V.Number >= 0 && V.Number < 1)) {
      Diags.report(E.Range, diag::ExpectedShare, Name, Q->str());
      return std::nullopt;
    }
    return V;
  }
  // Latency may be zero (its default); sizes and bandwidths may not.
  if (K == PropKind::Seconds && V.Number < 0) {
    Diags.report(E.Range, diag::ExpectedNonNegative, Name, Q->str());
    return std::nullopt;
  }
  if (K != PropKind::Seconds && V.Number <= 0) {
    Diags.report(E.Range, diag::ExpectedPositive, Name, Q->str());
    return std::nullopt;
  }
  std::optional<PropRange> R = physicalRange(K);
  if (R && !(V.Number >= R->Min && V.Number <= R->Max)) {
    std::string Unit = Want.isCount() ? "" : " " + Want.str();
    Diags.report(E.Range, diag::OutsidePhysicalRange, Name, Q->str(),
                 fmt::format("{:g}", R->Min), fmt::format("{:g}", R->Max),
                 Unit);
    return std::nullopt;
  }
  return V;
}
