//===- Describe.cpp - Plans and costs in words ----------------------------===//
#include "report/Describe.h"
#include "support/Format.h"
#include "llvm/ADT/StringExtras.h"
#include <fmt/format.h>

using namespace shardc;

std::string shardc::describePlan(const PlanSummary &P, const TypeNames &N) {
  std::vector<std::string> Parts;
  for (const PlanStep &S : P.Steps)
    Parts.push_back(
        S.Kind == StepKind::Convert
            ? fmt::format("convert '{}' to {}", S.Value, dtypeName(S.Elt).str())
            : fmt::format("{} '{}' over {}", stepKindName(S.Kind).str(),
                          S.Value, axisNames(S.Axes, N, ",")));
  return Parts.empty() ? "local product" : llvm::join(Parts, ", then ");
}

std::string shardc::planCost(const PlanChoice &C, const PlanSummary &P,
                             double Time) {
  std::string S = "op time " + formatTime(Time);
  return C.TimesTie ? S + ", " + formatAmount(P.BytesMoved, "B") + " moved" : S;
}

std::string shardc::choiceRemark(const PlanChoice &C, const TypeNames &N) {
  if (!C.Rejected)
    return "";
  return fmt::format("chose {} ({}) over {} ({})", describePlan(C.Chosen, N),
                     planCost(C, C.Chosen, C.Chosen.Time),
                     describePlan(*C.Rejected, N),
                     planCost(C, *C.Rejected, C.Rejected->Time));
}
