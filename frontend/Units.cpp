//===- Units.cpp - Quantities with checked dimensions ---------------------===//
#include "frontend/Units.h"
#include "llvm/ADT/StringMap.h"
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

using namespace shardc;

std::string Dimension::str() const {
  if (isCount())
    return "a plain number";
  std::string Num, Den;
  auto Add = [&](int8_t Exp, const char *Name) {
    std::string &S = Exp > 0 ? Num : Den;
    for (int I = 0, E = std::abs(Exp); I < E; ++I)
      S += (S.empty() ? "" : "*") + std::string(Name);
  };
  Add(Bytes, "bytes");
  Add(Flop, "FLOP");
  Add(Seconds, Seconds > 0 ? "seconds" : "second");
  if (Num.empty())
    Num = "1";
  return Den.empty() ? Num : Num + "/" + Den;
}

std::string Quantity::str() const {
  std::string V = IsInt ? std::to_string(Int) : fmt::format("{:g}", Real);
  return Dim.isCount() ? V : V + " (" + Dim.str() + ")";
}

namespace {

struct Table {
  llvm::StringMap<UnitInfo> Units;
  std::vector<std::string> Names;
  void add(llvm::StringRef N, Dimension D, double Scale) {
    double R = std::round(Scale);
    int64_t I = (R == Scale && Scale >= 1) ? int64_t(R) : 0;
    Units[N] = {D, Scale, I};
    Names.push_back(N.str());
  }
  Table();
};

Table::Table() {
  static const std::pair<const char *, double> Decimal[] = {
      {"", 1}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}};
  for (auto [P, S] : Decimal) {
    add(std::string(P) + "B", Dimension::bytes(), S);
    add(std::string(P) + "FLOP", Dimension::flop(), S);
    add(std::string(P) + "FLOPS", Dimension::flopPerSecond(), S);
  }
  for (auto [P, S] :
       {std::pair{"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}})
    add(std::string(P) + "b", Dimension::bytes(), S / 8);
  add("bit", Dimension::bytes(), 1.0 / 8);
  add("KiB", Dimension::bytes(), 1024.0);
  add("MiB", Dimension::bytes(), 1048576.0);
  add("GiB", Dimension::bytes(), 1073741824.0);
  add("TiB", Dimension::bytes(), 1099511627776.0);
  add("s", Dimension::seconds(), 1);
  add("ms", Dimension::seconds(), 1e-3);
  add("us", Dimension::seconds(), 1e-6);
  add("ns", Dimension::seconds(), 1e-9);
  add("Hz", Dimension::perSecond(), 1);
  add("kHz", Dimension::perSecond(), 1e3);
  add("MHz", Dimension::perSecond(), 1e6);
  add("GHz", Dimension::perSecond(), 1e9);
  // Count suffixes: `2M` is 2,000,000 and `1Mi` is 2^20.
  add("k", Dimension::count(), 1e3);
  add("M", Dimension::count(), 1e6);
  add("G", Dimension::count(), 1e9);
  add("T", Dimension::count(), 1e12);
  add("Ki", Dimension::count(), 1024.0);
  add("Mi", Dimension::count(), 1048576.0);
  add("Gi", Dimension::count(), 1073741824.0);
}

const Table &table() {
  static const Table T;
  return T;
}

} // namespace

/// `µs` (U+00B5, the micro sign the report prints) and `μs` (U+03BC, the
/// Greek mu that looks the same) are `us`. They are not in the table, so no
/// misspelt unit is told "did you mean 'µs'" instead of 'us'.
static llvm::StringRef canonicalUnit(llvm::StringRef U) {
  return U == "\xC2\xB5s" || U == "\xCE\xBCs" ? "us" : U;
}

std::optional<UnitInfo> shardc::lookupUnit(llvm::StringRef Unit,
                                           llvm::StringRef Per) {
  Unit = canonicalUnit(Unit);
  Per = canonicalUnit(Per);
  auto It = table().Units.find(Unit);
  if (It == table().Units.end())
    return std::nullopt;
  UnitInfo U = It->second;
  if (Per.empty())
    return U;
  auto PerIt = table().Units.find(Per);
  if (PerIt == table().Units.end() ||
      !(PerIt->second.Dim == Dimension::seconds()))
    return std::nullopt;
  // Only amounts over time make rates: `GB/s`, `TFLOP/s`; not `Hz/s`.
  if (!(U.Dim == Dimension::bytes() || U.Dim == Dimension::flop()))
    return std::nullopt;
  UnitInfo R{U.Dim / Dimension::seconds(), U.Scale / PerIt->second.Scale, 0};
  if (PerIt->second.Scale == 1)
    R.IntScale = U.IntScale;
  return R;
}

std::vector<std::string> shardc::allUnitNames() {
  // Rates are written `unit/s`; offering them lets `GBps` suggest `GB/s`.
  std::vector<std::string> Names = table().Names;
  for (const std::string &N : table().Names) {
    Dimension D = table().Units.find(N)->second.Dim;
    if (D == Dimension::bytes() || D == Dimension::flop())
      Names.push_back(N + "/s");
  }
  return Names;
}

static ArithError checkReal(double V, Quantity &Out, Dimension D) {
  if (!std::isfinite(V))
    return ArithError::NotFinite;
  Out = Quantity::ofReal(V, D);
  return ArithError::None;
}

ArithError shardc::applyOp(char Op, const Quantity &L, const Quantity &R,
                           Quantity &Out) {
  Dimension D = L.Dim;
  if (Op == '+' || Op == '-') {
    if (!(L.Dim == R.Dim))
      return ArithError::Mismatch;
  } else {
    D = Op == '*' ? L.Dim * R.Dim : L.Dim / R.Dim;
  }
  if (Op == '/' && R.value() == 0)
    return ArithError::DivByZero;
  if (L.IsInt && R.IsInt) {
    int64_t V = 0;
    bool Ovf = false;
    switch (Op) {
    case '+':
      Ovf = __builtin_add_overflow(L.Int, R.Int, &V);
      break;
    case '-':
      Ovf = __builtin_sub_overflow(L.Int, R.Int, &V);
      break;
    case '*':
      Ovf = __builtin_mul_overflow(L.Int, R.Int, &V);
      break;
    default:
      // Exact division stays an integer; INT64_MIN / -1 overflows.
      if (L.Int == INT64_MIN && R.Int == -1)
        return ArithError::Overflow;
      if (L.Int % R.Int != 0)
        return checkReal(double(L.Int) / double(R.Int), Out, D);
      V = L.Int / R.Int;
    }
    if (Ovf)
      return ArithError::Overflow;
    Out = Quantity::ofInt(V, D);
    return ArithError::None;
  }
  double A = L.value(), B = R.value();
  double V = Op == '+' ? A + B : Op == '-' ? A - B : Op == '*' ? A * B : A / B;
  return checkReal(V, Out, D);
}

std::optional<Quantity> shardc::parseNumber(llvm::StringRef Text,
                                            bool &Overflow) {
  Overflow = false;
  std::string Digits;
  for (char C : Text)
    if (C != '_')
      Digits += C;
  bool Real = Digits.find_first_of(".eE") != std::string::npos;
  if (!Real) {
    int64_t V = 0;
    for (char C : Digits) {
      if (__builtin_mul_overflow(V, int64_t(10), &V) ||
          __builtin_add_overflow(V, int64_t(C - '0'), &V)) {
        Overflow = true;
        return std::nullopt;
      }
    }
    return Quantity::ofInt(V);
  }
  char *End = nullptr;
  double V = std::strtod(Digits.c_str(), &End);
  if (End != Digits.c_str() + Digits.size())
    return std::nullopt;
  if (!std::isfinite(V)) {
    Overflow = true;
    return std::nullopt;
  }
  return Quantity::ofReal(V);
}
