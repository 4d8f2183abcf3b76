//===- Describe.h - Plans and costs in words --------------------*- C++ -*-===//
//
// The sentences the IR printer's remarks and the report print, rendered
// from the side tables' data: `slice 'B' over X, then AllReduce 'C' over X`.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_REPORT_DESCRIBE_H
#define SHARDC_REPORT_DESCRIBE_H

#include "passes/Analyses.h"
#include <string>

namespace shardc {

/// `slice 'B' over X, then AllReduce 'C' over X`; `local product` when the
/// plan has no steps.
std::string describePlan(const PlanSummary &P, const TypeNames &N);

/// `op time T`, or `op time T, B moved` when the choice's op times tie (the
/// bytes decided it). \p Time is the plan's op time as the reader sees it.
std::string planCost(const PlanChoice &C, const PlanSummary &P, double Time);

/// `chose <plan> (op time T) over <plan> (op time T')`; empty when there
/// was no alternative.
std::string choiceRemark(const PlanChoice &C, const TypeNames &N);

} // namespace shardc

#endif // SHARDC_REPORT_DESCRIBE_H
