//===- Units.h - Quantities with checked dimensions -------------*- C++ -*-===//
//
// Every value in a .shard file has a dimension: a product of powers of bytes,
// seconds and FLOP (bits are bytes / 8, hertz is 1/second). Values are exact
// 64-bit integers while they are whole and doubles otherwise; integer
// overflow and non-finite doubles are errors the caller reports.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_UNITS_H
#define SHARDC_FRONTEND_UNITS_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardc {

struct Dimension {
  int8_t Bytes = 0, Seconds = 0, Flop = 0;
  bool operator==(const Dimension &) const = default;
  Dimension operator*(Dimension O) const {
    return {int8_t(Bytes + O.Bytes), int8_t(Seconds + O.Seconds),
            int8_t(Flop + O.Flop)};
  }
  Dimension operator/(Dimension O) const {
    return {int8_t(Bytes - O.Bytes), int8_t(Seconds - O.Seconds),
            int8_t(Flop - O.Flop)};
  }
  bool isCount() const { return *this == Dimension{}; }
  /// "bytes/second", "FLOP", "a plain number", ...
  std::string str() const;

  static Dimension count() { return {}; }
  static Dimension bytes() { return {1, 0, 0}; }
  static Dimension seconds() { return {0, 1, 0}; }
  static Dimension flop() { return {0, 0, 1}; }
  static Dimension bytesPerSecond() { return {1, -1, 0}; }
  static Dimension flopPerSecond() { return {0, -1, 1}; }
  static Dimension perSecond() { return {0, -1, 0}; }
};

struct Quantity {
  Dimension Dim;
  bool IsInt = true;
  int64_t Int = 0;
  double Real = 0;

  static Quantity ofInt(int64_t V, Dimension D = {}) { return {D, true, V, 0}; }
  static Quantity ofReal(double V, Dimension D = {}) {
    return {D, false, 0, V};
  }
  double value() const { return IsInt ? double(Int) : Real; }
  /// "80 GB"-like rendering for messages: the value in base units.
  std::string str() const;
};

/// A unit or count suffix: value in base units = number x scale.
struct UnitInfo {
  Dimension Dim;
  double Scale = 1;
  int64_t IntScale = 0; ///< the scale when it is a whole number, else 0
};

/// Looks up `GB`, `TB/s`-style units (\p Per is the denominator, may be
/// empty) and the count suffixes `k M G T Ki Mi Gi`.
std::optional<UnitInfo> lookupUnit(llvm::StringRef Unit, llvm::StringRef Per);
/// Every unit name, for "did you mean".
std::vector<std::string> allUnitNames();

enum class ArithError { None, Overflow, DivByZero, NotFinite, Mismatch };

/// Applies + - * / to two quantities, exact while both are whole.
ArithError applyOp(char Op, const Quantity &L, const Quantity &R,
                   Quantity &Out);
/// Parses a number literal (`1_000`, `3.35`, `1e-6`).
std::optional<Quantity> parseNumber(llvm::StringRef Text, bool &Overflow);

} // namespace shardc

#endif
