//===- Rows.cpp - A feasible candidate's row, and the ranking -------------===//
//
// The numbers a row shows, read off its compile's tables, and the order
// rows rank in (Rows.h).
//
//===----------------------------------------------------------------------===//
#include "search/Rows.h"
#include "passes/Analyses.h"
#include <algorithm>

using namespace shardc;

/// The step's largest part, for the bound column: the statements' time by
/// what bounds each, the optimizer and fixed costs (memory), exposed syncs
/// and param gathers (comms), the pipeline's idle time (bubble).
static void boundColumn(const MeshCompile &C, CandidateResult &R) {
  // Per statement and execution: its compute time (math or memory, which
  // ever bounds it) and the rest of its time, collectives not hidden under
  // it; weighted by the repeats around it, then scaled to the step's busy
  // time (the pipeline's, less its bubble).
  double Part[3] = {0, 0, 0}; // compute, memory, comms
  const ProgramInfo &Info = C.program().info();
  for (size_t I = 0; I != C.Tables.StatementCosts.size(); ++I) {
    const auto &S = C.Tables.StatementCosts[I];
    // The compute stream's statements: syncs, updates and gathers are
    // the step's own terms below.
    if (!S || I >= Info.Statements.size() ||
        (Info.Statements[I].Ph != Phase::Forward &&
         Info.Statements[I].Ph != Phase::Backward))
      continue;
    double N = double(Info.Statements[I].Repeat);
    double Compute = std::max(S->TMath, S->THbm - S->TSerial) + S->TSerial;
    Part[S->TMath >= S->THbm ? 0 : 1] += N * std::min(Compute, S->Time);
    Part[2] += N * std::max(0.0, S->Time - Compute);
  }
  double Busy = Part[0] + Part[1] + Part[2];
  double Bubble = 0;
  if (const auto &S = C.Tables.Step) {
    if (S->Pipeline)
      Bubble = S->Pipeline->Bubble * S->TPipe;
    double Scale = Busy > 0 ? (S->TPipe - Bubble) / Busy : 0;
    for (double &P : Part)
      P *= Scale;
    Part[1] += S->TOpt + S->TFixed;
    Part[2] += S->TSyncExposed + S->TParamGather;
  } else if (Busy > 0) {
    for (double &P : Part)
      P *= R.StepTime / Busy;
  }
  R.ExposedComms = Part[2];
  R.Bubble = R.StepTime > 0 ? Bubble / R.StepTime : 0;
  const char *Names[4] = {"compute", "memory", "comms", "bubble"};
  double Values[4] = {Part[0], Part[1], Part[2], Bubble};
  unsigned Best = 0;
  for (unsigned I = 1; I != 4; ++I)
    if (Values[I] > Values[Best])
      Best = I;
  R.Bound = Names[Best];
}

CandidateResult shardc::resultOf(const MeshCompile &C, const Candidate &At,
                                 const SearchSpec &Spec) {
  CandidateResult R;
  R.At = At;
  R.Chips = C.mesh().numChips();
  R.StepTime = C.Tables.headlineTime();
  R.Mfu = C.Tables.headlineMfu();
  if (const auto &M = C.Tables.Memory) {
    R.Memory = M->Total;
    unsigned Largest = 0;
    for (unsigned I = 1; I != NumMemoryTerms; ++I)
      if (M->Bytes[I] > M->Bytes[Largest])
        Largest = I;
    R.LargestMemoryTerm = memoryTermName(MemoryTerm(Largest)).str();
  }
  boundColumn(C, R);
  switch (Spec.Minimize) {
  case SearchObjective::StepTime:
    R.Objective = R.StepTime;
    break;
  case SearchObjective::Cost:
    R.Objective = double(R.Chips) * R.StepTime;
    break;
  case SearchObjective::Memory:
    R.Objective = R.Memory.value_or(0);
    break;
  }
  return R;
}

/// Memory's terms, largest first, for a memory miss.
std::vector<std::pair<std::string, double>>
shardc::memoryTerms(const MeshCompile &C) {
  std::vector<std::pair<std::string, double>> Out;
  if (const auto &M = C.Tables.Memory)
    for (unsigned I = 0; I != NumMemoryTerms; ++I)
      Out.push_back({memoryTermName(MemoryTerm(I)).str(), M->Bytes[I]});
  std::stable_sort(Out.begin(), Out.end(), [](const auto &A, const auto &B) {
    return A.second > B.second;
  });
  return Out;
}

/// Ranking: the objective, then step time, chips, memory, canonical order
/// (the index the candidates were enumerated in).
bool shardc::ranksBefore(const CandidateResult &A, size_t IA,
                         const CandidateResult &B, size_t IB) {
  if (A.Objective != B.Objective)
    return A.Objective < B.Objective;
  if (A.StepTime != B.StepTime)
    return A.StepTime < B.StepTime;
  if (A.Chips != B.Chips)
    return A.Chips < B.Chips;
  double MA = A.Memory.value_or(0), MB = B.Memory.value_or(0);
  if (MA != MB)
    return MA < MB;
  return IA < IB;
}

std::vector<CandidateResult>
shardc::paretoOf(const std::vector<CandidateResult> &All, SearchPareto By) {
  auto Second = [&](const CandidateResult &R) {
    return By == SearchPareto::Chips ? double(R.Chips) : R.Memory.value_or(0);
  };
  std::vector<size_t> Idx(All.size());
  for (size_t I = 0; I != Idx.size(); ++I)
    Idx[I] = I;
  // By the second measure, then step time, then canonical order: a point
  // joins the front when it is faster than every point before it.
  std::stable_sort(Idx.begin(), Idx.end(), [&](size_t A, size_t B) {
    if (Second(All[A]) != Second(All[B]))
      return Second(All[A]) < Second(All[B]);
    return All[A].StepTime < All[B].StepTime;
  });
  std::vector<CandidateResult> Front;
  for (size_t I : Idx)
    if (Front.empty() || All[I].StepTime < Front.back().StepTime)
      Front.push_back(All[I]);
  return Front;
}
