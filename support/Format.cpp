//===- Format.cpp - Human units for times and amounts ---------------------===//
#include "support/Format.h"
#include <cassert>
#include <cmath>
#include <fmt/format.h>

using namespace shardc;

/// 4 significant figures with trailing zeros kept; `{:#.4g}` would also keep
/// a lone trailing point ("1000."), which this drops.
std::string shardc::formatSig4(double V) {
  // Every printed time and amount goes through here; Sema's bounds on the
  // hardware keep them finite (docs/limits.md).
  assert(std::isfinite(V) && "a report number is not finite");
  std::string S = fmt::format("{:#.4g}", V);
  if (!S.empty() && S.back() == '.')
    S.pop_back();
  return S;
}

std::string shardc::formatTime(double S) {
  assert(std::isfinite(S) && "a report time is not finite");
  if (S == 0)
    return "0 s";
  static const std::pair<double, const char *> Scales[] = {
      {1, "s"},     {1e-3, "ms"},  {1e-6, "µs"},
      {1e-9, "ns"}, {1e-12, "ps"}, {1e-15, "fs"}};
  for (auto [Scale, Name] : Scales)
    if (std::fabs(S) >= Scale * 0.99995)
      return formatSig4(S / Scale) + " " + Name;
  return fmt::format("{:.3e} s", S);
}

std::string shardc::formatAmount(double V, llvm::StringRef Unit) {
  assert(std::isfinite(V) && "a report amount is not finite");
  if (V == 0)
    return "0 " + Unit.str();
  static const std::pair<double, const char *> Scales[] = {
      {1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"},
      {1e6, "M"},  {1e3, "k"},  {1, ""}};
  for (auto [Scale, Prefix] : Scales)
    if (std::fabs(V) >= Scale * 0.99995)
      return formatSig4(V / Scale) + " " + Prefix + Unit.str();
  return formatSig4(V) + " " + Unit.str();
}
