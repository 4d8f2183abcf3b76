//===- Engine.cpp - Deciding each layout and candidate once ---------------===//
//
// A layout is decided by one compile with neutral knobs (1f1b, one chunk,
// one microbatch where the count is searched): an error there that no knob
// changes (a dim its axes do not divide, a pipeline its stages do not
// split) rejects it. Each of a compiled layout's candidates is then one
// compile(checked, Layout), rejected under its first failing reason or
// feasible. Threads take whole layouts; results merge in canonical order,
// so every -j prints the same.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "ir/Training.h"
#include "passes/Analyses.h"
#include "passes/CostModel.h"
#include "passes/Schedule.h"
#include "search/Rows.h"
#include "search/Search.h"
#include "search/Space.h"
#include "support/Format.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <thread>

using namespace shardc;

namespace {

/// One compile's outcome: the compile (also with a step over HBM) and its
/// first error.
struct Outcome {
  std::unique_ptr<MeshCompile> C;
  /// The compile its numbers are read from: C, or the layout's last compile
  /// rescheduled in place (Engine::Prefix).
  MeshCompile *Result = nullptr;
  std::optional<Diagnostic> Error;
  std::vector<Diagnostic> Later; ///< the errors after the first
  std::string Internal;          ///< a compile that failed without a diagnostic
  bool failed() const { return Error || !Internal.empty(); }
};

/// Compiles \p L, or with \p Prefix (a compile of the same layout but for
/// its schedule and chunks) reschedules that one in place.
Outcome compileOne(const Module &M, const Layout &L, llvm::SourceMgr &SM,
                   MeshCompile *Prefix = nullptr) {
  Outcome O;
  DiagnosticEngine Diags(SM);
  Diags.setHandler([&](const Diagnostic &D) {
    if (D.Sev != Severity::Error)
      return;
    if (!O.Error)
      O.Error = D;
    else
      O.Later.push_back(D);
  });
  if (Prefix) {
    if (llvm::Error E =
            reschedule(*Prefix, L.Train->Schedule, L.Train->Chunks, Diags)) {
      std::string Why = llvm::toString(std::move(E));
      if (!O.Error)
        O.Internal = "internal error: " + Why;
      return O;
    }
    O.Result = Prefix;
    return O;
  }
  auto C = compile(M, L, Diags);
  if (!C) {
    // A pass that reported an error fails the compile (the error is the
    // reason); one that failed without a word, or a layout compile()
    // refuses, is a bug of ours: its reason is InternalError.
    std::string Why = llvm::toString(C.takeError());
    if (!O.Error)
      O.Internal = "internal error: " + Why;
    return O;
  }
  O.C = std::move(*C);
  O.Result = O.C.get();
  return O;
}

/// The reason an outcome is counted under, and its message.
std::string reasonOf(const Outcome &O) {
  return O.Internal.empty() ? diagKindName(O.Error->Kind).str()
                            : "InternalError";
}
std::string messageOf(const Outcome &O) {
  return O.Internal.empty() ? O.Error->Message : O.Internal;
}

/// One reason's tally within a layout or the whole search.
struct Tally {
  SearchLevel Level = SearchLevel::Layout;
  uint64_t Count = 0;      ///< layouts or candidates, by the level
  uint64_t Candidates = 0; ///< the candidates it rejected
  NearestMiss Nearest;
  double Rank = 0; ///< relative miss for limits; 0 for first-in-order
  bool Limit = false;
};

double seconds(std::chrono::steady_clock::time_point Since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Since)
      .count();
}

/// Reasons by level (layouts first) and name: NotDivisible can reject a
/// layout (a dim its axes do not divide) and a candidate (the batch).
using ReasonKey = std::pair<SearchLevel, std::string>;

/// Adds \p T to the tally of \p Key: counts summed, the nearest miss the
/// smaller relative miss of a limit, else the first (in canonical order).
void add(std::map<ReasonKey, Tally> &Tallies, const ReasonKey &Key, Tally T) {
  Tally &X = Tallies[Key];
  bool Better = X.Count == 0 || (T.Limit && T.Rank < X.Rank);
  X.Level = Key.first;
  X.Count += T.Count;
  X.Candidates += T.Candidates;
  if (Better) {
    X.Nearest = std::move(T.Nearest);
    X.Rank = T.Rank;
    X.Limit = T.Limit;
  }
}

/// Counts one layout (of \p Candidates candidates) or one candidate.
void count(std::map<ReasonKey, Tally> &T, const std::string &Reason,
           SearchLevel Level, NearestMiss Miss, std::optional<double> Rank,
           uint64_t Candidates = 1) {
  add(T, {Level, Reason},
      Tally{Level, 1, Candidates, std::move(Miss), Rank.value_or(0),
            Rank.has_value()});
}

/// What one layout decided.
struct LayoutOutcome {
  /// Whether it was decided (rejected, or a candidate decided): at
  /// time_limit, the layouts a thread took after the stop are not.
  bool Started = false;
  bool Rejected = false;
  uint64_t Candidates = 0, Recosts = 0;
  uint64_t Decided = 0; ///< Candidates, or a rejected layout's candidates
  std::map<ReasonKey, Tally> Reasons;
  std::vector<CandidateResult> Feasible;
  double LayoutTime = 0, KnobTime = 0; ///< seconds in each level's compiles
};

/// Whether an error of a layout's neutral compile is a candidate's (its
/// knobs could change it) or the layout's. The per-step batch's split is
/// neither: the neutral compile's batch splits over every layout.
bool candidateError(const Diagnostic &D) {
  return D.Kind == DiagKind::StepOverHbm ||
         D.Kind == DiagKind::InterleavedMicrobatches;
}

class Engine {
public:
  /// \p AsWritten: the program with its mesh as written, whose axis ids
  /// a layout's sizes follow (the knobs' domains are read off it).
  Engine(const SearchSpec &Spec, llvm::SourceMgr &SM, const Module &AsWritten)
      : Spec(Spec), SM(SM), AsWritten(AsWritten),
        Written(AsWritten.names().Axes) {}

  void decide(const Module &M, const Candidate &Layout, LayoutOutcome &Out);
  const SearchSpec &spec() const { return Spec; }
  /// Candidates decided so far, over every thread (the progress line's).
  std::atomic<uint64_t> Decided{0};
  /// Set at time_limit: no thread decides another candidate.
  std::atomic<bool> Stop{false};
  /// Candidates decided at level 2: the limit stops a search only once
  /// one is (layouts rejected at level 1 decide none).
  std::atomic<uint64_t> Compiled{0};
  std::chrono::steady_clock::time_point Start =
      std::chrono::steady_clock::now();
  bool Stopped() {
    if (!Stop && Spec.TimeLimit && seconds(Start) > *Spec.TimeLimit)
      Stop = true;
    return Stop;
  }

  /// Rejects layout \p L (of \p Candidates candidates) under \p Reason.
  void reject(const Candidate &L, const std::string &Reason,
              std::string Message, uint64_t Candidates, LayoutOutcome &Out) {
    Out.Started = Out.Rejected = true;
    Out.Decided = Candidates;
    Decided += Candidates;
    count(Out.Reasons, Reason, SearchLevel::Layout, miss(L, std::move(Message)),
          std::nullopt, Candidates);
  }

private:
  /// What a layout's candidates share: its placements, and its last
  /// compile that ran every pass, which a candidate differing from it only
  /// in schedule and chunks reschedules instead of compiling afresh.
  struct Shared {
    std::shared_ptr<PlacementCache> Placements;
    std::unique_ptr<MeshCompile> Prefix;
    Candidate PrefixAt;
  };
  void decideCandidate(const Module &M, const Candidate &C, Shared &Layout,
                       LayoutOutcome &Out);
  std::optional<std::string> batchDoesNotSplit(const Candidate &C) const;
  NearestMiss miss(const Candidate &C, std::string Message) const {
    NearestMiss N;
    N.At = C;
    N.Message = std::move(Message);
    return N;
  }

  const SearchSpec &Spec;
  llvm::SourceMgr &SM;
  const Module &AsWritten;
  std::vector<std::string> Written;
};

void Engine::decide(const Module &M, const Candidate &L, LayoutOutcome &Out) {
  // Level 1: the layout with neutral knobs.
  Candidate Neutral = L;
  Neutral.KnobMask = 0;
  Layout NL = neutralLayout(M, Written, Spec, Neutral);
  // Every compile of the layout is on one mesh: they share its placements.
  NL.Placements = std::make_shared<PlacementCache>(NL.Mesh);
  auto T0 = std::chrono::steady_clock::now();
  Outcome O = compileOne(M, NL, SM);
  Out.LayoutTime += seconds(T0);
  ++Out.Recosts;
  // The layout's own error: the first that no knob could change (one the
  // candidates could would come first only if it were reported first).
  std::optional<Diagnostic> Own;
  if (O.Error && !candidateError(*O.Error))
    Own = O.Error;
  for (const Diagnostic &D : O.Later)
    if (!Own && !candidateError(D))
      Own = D;
  KnobPlan Plan = knobPlan(AsWritten, Spec, L.Sizes);
  if (!O.Internal.empty() || Own) {
    reject(L,
           Own ? diagKindName(Own->Kind).str() : std::string("InternalError"),
           Own ? Own->Message : O.Internal, Plan.count(), Out);
    return;
  }
  // A layout with no knob values to try (`chunks = ?` beside a fixed
  // interleaved schedule, no v >= 2 splitting the stages' layers) is
  // rejected, not dropped.
  if (Plan.count() == 0) {
    reject(L, "PipelineIndivisible",
           "no searched 'chunks' value v >= 2 splits the pipelined "
           "iterations into the layout's stages x v chunks",
           0, Out);
    return;
  }
  // Level 2: each candidate, in canonical order.
  Candidate C = L;
  Shared Lay{NL.Placements, nullptr, {}};
  auto T1 = std::chrono::steady_clock::now();
  Plan.forEach(
      [&](Candidate &K) {
        // time_limit is checked after each candidate (so one is always
        // decided), within a layout too: the rest stay undecided.
        if (Stop)
          return;
        decideCandidate(M, K, Lay, Out);
        ++Compiled;
        Stopped();
      },
      C);
  Out.KnobTime += seconds(T1);
}

/// Reason (4), decided before compiling: with `dim B = G per step`, m
/// microbatches and d data-parallel ranks (the axes sharding B in the
/// value the global batch is counted on), m·d must divide G.
std::optional<std::string> Engine::batchDoesNotSplit(const Candidate &C) const {
  if (!Spec.PerStep)
    return std::nullopt;
  int64_t M = C.KnobMask >> unsigned(SearchKnob::Microbatches) & 1
                  ? C.Knobs[unsigned(SearchKnob::Microbatches)]
                  : AsWritten.config().Train->Microbatches;
  int64_t D = 1;
  std::vector<std::string> Over;
  const Value *V = batchCountedOn(AsWritten);
  if (V && !V->type().Dims.empty() &&
      AsWritten.names().Dims[V->type().Dims[0].Id] == Spec.PerStep->Name)
    for (AxisId A : V->type().Dims[0].Axes)
      if (A < C.Sizes.size()) {
        D *= C.Sizes[A];
        Over.push_back(fmt::format("{}={}", Written[A], C.Sizes[A]));
      }
  if (M > 0 && Spec.PerStep->Global % (M * D) == 0)
    return std::nullopt;
  return fmt::format("the global batch {} ('{}' per step) does not split "
                     "into {} microbatches x {} data-parallel ranks{}",
                     Spec.PerStep->Global, Spec.PerStep->Name, M, D,
                     Over.empty() ? "" : " (" + llvm::join(Over, ", ") + ")");
}

/// Whether \p A and \p B differ at most in schedule and chunks.
static bool sameButSchedule(const Candidate &A, const Candidate &B) {
  if (A.KnobMask != B.KnobMask)
    return false;
  for (unsigned K = 0; K != NumSearchKnobs; ++K)
    if (SearchKnob(K) != SearchKnob::Schedule &&
        SearchKnob(K) != SearchKnob::Chunks && A.Knobs[K] != B.Knobs[K])
      return false;
  return true;
}

void Engine::decideCandidate(const Module &M, const Candidate &C, Shared &Lay,
                             LayoutOutcome &Out) {
  Out.Started = true;
  ++Out.Candidates;
  ++Out.Decided;
  ++Decided;
  auto Reject = [&](const std::string &Reason, NearestMiss N,
                    std::optional<double> Rank) {
    count(Out.Reasons, Reason, SearchLevel::Candidate, std::move(N), Rank);
  };
  if (std::optional<std::string> Why = batchDoesNotSplit(C))
    return Reject("NotDivisible", miss(C, *Why), std::nullopt);
  Layout L = candidateLayout(M, Written, Spec, C);
  L.Placements = Lay.Placements;
  bool Reuse = Lay.Prefix && L.Train && sameButSchedule(Lay.PrefixAt, C);
  Outcome O = compileOne(M, L, SM, Reuse ? Lay.Prefix.get() : nullptr);
  ++Out.Recosts;
  if (O.C) { // ran every pass: the next candidates may reschedule it
    Lay.Prefix = std::move(O.C);
    Lay.PrefixAt = C;
  }
  if (O.failed()) {
    NearestMiss N = miss(C, messageOf(O));
    if (O.Error && O.Error->Kind == DiagKind::StepOverHbm && O.Result &&
        O.Result->Tables.Memory) {
      const MemorySummary &Mem = *O.Result->Tables.Memory;
      N.Value = Mem.Total;
      N.Limit = Mem.Capacity;
      N.Terms = memoryTerms(*O.Result);
      return Reject("StepOverHbm", std::move(N), Mem.Total / Mem.Capacity - 1);
    }
    return Reject(reasonOf(O), std::move(N), std::nullopt);
  }
  CandidateResult R = resultOf(*O.Result, C, Spec);
  if (Spec.MaxMemory && R.Memory && *R.Memory > *Spec.MaxMemory) {
    NearestMiss N = miss(C, fmt::format("needs {} per chip; max_memory is {}",
                                        formatAmount(*R.Memory, "B"),
                                        formatAmount(*Spec.MaxMemory, "B")));
    N.Value = R.Memory;
    N.Limit = Spec.MaxMemory;
    N.Terms = memoryTerms(*O.Result);
    return Reject("OverMaxMemory", std::move(N),
                  *R.Memory / *Spec.MaxMemory - 1);
  }
  if (Spec.MinMfu && R.Mfu < *Spec.MinMfu) {
    NearestMiss N = miss(C, fmt::format("MFU {:.1f}% is below min_mfu {:.1f}%",
                                        100 * R.Mfu, 100 * *Spec.MinMfu));
    N.Value = R.Mfu;
    N.Limit = Spec.MinMfu;
    return Reject("BelowMinMfu", std::move(N),
                  R.Mfu > 0 ? *Spec.MinMfu / R.Mfu - 1 : 1e300);
  }
  if (Spec.MaxStepTime && R.StepTime > *Spec.MaxStepTime) {
    NearestMiss N = miss(C, fmt::format("step time {} is over max_step_time {}",
                                        formatTime(R.StepTime),
                                        formatTime(*Spec.MaxStepTime)));
    N.Value = R.StepTime;
    N.Limit = Spec.MaxStepTime;
    return Reject("OverMaxStepTime", std::move(N),
                  R.StepTime / *Spec.MaxStepTime - 1);
  }
  Out.Feasible.push_back(std::move(R));
}

/// For a rejected layout: the nearest that passed the layout checks, in
/// the same order: fewest axes changed, then the smallest change in size
/// by ratio, then the first in canonical order ("; [D: 2, T: 4] passes");
/// empty when none did.
std::string nearestPassing(const Candidate &L, llvm::ArrayRef<Candidate> All,
                           const std::vector<LayoutOutcome> &Outcomes,
                           const std::vector<std::string> &Names) {
  std::optional<std::pair<std::pair<unsigned, double>, size_t>> Best;
  for (size_t I = 0; I != All.size(); ++I) {
    if (!Outcomes[I].Started || Outcomes[I].Rejected || All[I].Order != L.Order)
      continue;
    unsigned Changed = 0;
    double Far = 0;
    for (unsigned A = 0; A != L.Sizes.size(); ++A)
      if (All[I].Sizes[A] != L.Sizes[A]) {
        ++Changed;
        Far += std::abs(std::log(double(All[I].Sizes[A]) / double(L.Sizes[A])));
      }
    std::pair<unsigned, double> Key{Changed, Far};
    if (!Best || Key.first < Best->first.first ||
        (Key.first == Best->first.first &&
         Key.second < Best->first.second - 1e-12))
      Best = {Key, I};
  }
  if (!Best)
    return "";
  return "; " + meshText(Names, All[Best->second]) + " passes";
}

} // namespace

uint64_t shardc::spaceSize(const Module &Checked, const SearchSpec &Spec) {
  uint64_t N = 0;
  for (const auto &Sizes : sizeTuples(axisDomains(Checked, Spec), Spec))
    N += ordersOf(Sizes, Spec.FreeOrder).size() *
         knobPlan(Checked, Spec, Sizes).count();
  return N;
}

namespace {

/// Decides every layout on \p Threads threads (this one included), the
/// progress line on one more; returns the threads used.
unsigned decideAll(Engine &E, llvm::ArrayRef<Candidate> Layouts,
                   const std::map<std::vector<unsigned>, const Module *> &Mods,
                   const Module &Written, std::vector<LayoutOutcome> &Outcomes,
                   const SearchOptions &Opts, uint64_t Space) {
  std::atomic<size_t> Next{0};
  auto Work = [&] {
    for (size_t I; !E.Stop && (I = Next++) < Layouts.size();
         E.Compiled ? E.Stopped() : false) {
      auto It = Mods.find(Layouts[I].Order);
      if (const Module *M = It != Mods.end() ? It->second : nullptr)
        E.decide(*M, Layouts[I], Outcomes[I]);
      else // the file did not check with its axes in this order: a bug of
           // ours (the order changes no rule), counted, never silent
        E.reject(Layouts[I], "InternalError",
                 "internal error: the program does not check with its "
                 "mesh's axes in this order",
                 knobPlan(Written, E.spec(), Layouts[I].Sizes).count(),
                 Outcomes[I]);
    }
  };
  unsigned Threads =
      std::max(1u, std::min<unsigned>(Opts.Threads, Layouts.size()));
  std::vector<std::thread> Pool;
  for (unsigned T = 1; T < Threads; ++T)
    Pool.emplace_back(Work);
  // The progress line: after a second, about once a second, from a thread
  // of its own (never one that decides candidates).
  std::atomic<bool> Finished{false};
  std::thread Reporter;
  if (Opts.Progress)
    Reporter = std::thread([&] {
      double At = 1;
      while (!Finished) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (!Finished && seconds(E.Start) >= At) {
          Opts.Progress(E.Decided, Space, seconds(E.Start), false);
          At = seconds(E.Start) + 1;
        }
      }
      if (At > 1) // a line was printed: end it
        Opts.Progress(E.Decided, Space, seconds(E.Start), true);
    });
  Work();
  for (std::thread &T : Pool)
    T.join();
  Finished = true;
  if (Reporter.joinable())
    Reporter.join();
  return Threads;
}

/// Merges the layouts' outcomes in canonical order into \p Res: counts,
/// the ranked rows, the Pareto front, the rejections by level and count.
void merge(const SearchSpec &Spec, llvm::ArrayRef<Candidate> Layouts,
           std::vector<LayoutOutcome> &Outcomes,
           const std::vector<std::string> &Names, SearchResult &Res) {
  std::map<ReasonKey, Tally> Reasons;
  std::vector<CandidateResult> All;
  for (size_t I = 0; I != Layouts.size(); ++I) {
    LayoutOutcome &O = Outcomes[I];
    if (!O.Started)
      continue; // taken after time_limit
    ++Res.Layouts;
    Res.LayoutsRejected += O.Rejected;
    Res.Candidates += O.Candidates;
    Res.Decided += O.Decided;
    Res.Stats.Recosts += O.Recosts;
    Res.Stats.LayoutTimeS += O.LayoutTime;
    Res.Stats.KnobTimeS += O.KnobTime;
    for (auto &[Reason, T] : O.Reasons)
      add(Reasons, Reason, std::move(T));
    for (CandidateResult &R : O.Feasible)
      All.push_back(std::move(R));
  }
  Res.Feasible = All.size();
  std::vector<size_t> Idx(All.size());
  for (size_t I = 0; I != Idx.size(); ++I)
    Idx[I] = I;
  std::sort(Idx.begin(), Idx.end(), [&](size_t A, size_t B) {
    return ranksBefore(All[A], A, All[B], B);
  });
  for (size_t I = 0; I != std::min<size_t>(Idx.size(), Spec.Top); ++I)
    Res.Top.push_back(All[Idx[I]]);
  if (Spec.Pareto != SearchPareto::None)
    Res.Pareto = paretoOf(All, Spec.Pareto);
  for (auto &[Reason, T] : Reasons) {
    if (T.Level == SearchLevel::Layout)
      T.Nearest.Message +=
          nearestPassing(T.Nearest.At, Layouts, Outcomes, Names);
    Res.Rejected.push_back(Rejection{Reason.second, T.Level, T.Count,
                                     T.Candidates, T.Nearest, T.Rank});
  }
  std::stable_sort(Res.Rejected.begin(), Res.Rejected.end(),
                   [](const Rejection &A, const Rejection &B) {
                     if (A.Level != B.Level)
                       return A.Level < B.Level;
                     return A.Count > B.Count;
                   });
}

} // namespace

SearchResult shardc::runSearch(const SearchSpec &Spec,
                               const CheckedForOrder &Checked,
                               llvm::SourceMgr &SM, const SearchOptions &Opts) {
  auto Start = std::chrono::steady_clock::now();
  SearchResult Res;
  const Module *Written = Checked({});
  // The layouts, canonical order, and the module of each order (checked
  // here, on this thread: the frontend is not shared between threads).
  std::vector<Candidate> Layouts;
  std::map<std::vector<unsigned>, const Module *> Modules;
  for (auto &Sizes : sizeTuples(axisDomains(*Written, Spec), Spec)) {
    uint64_t Knobs = knobPlan(*Written, Spec, Sizes).count();
    for (auto &Order : ordersOf(Sizes, Spec.FreeOrder)) {
      if (!Modules.count(Order))
        Modules[Order] = Checked(Order);
      Layouts.push_back(Candidate{Sizes, Order, {}, 0});
      Res.SpaceCandidates += Knobs; // spaceSize's count, as enumerated
    }
  }
  // Line tables built now, so the threads' diagnostics only read them.
  for (unsigned B = 1; B <= SM.getNumBuffers(); ++B)
    SM.FindLocForLineAndColumn(B, 1, 1);
  std::vector<LayoutOutcome> Outcomes(Layouts.size());
  Engine E(Spec, SM, *Written);
  E.Start = Start;
  Res.Stats.Threads = decideAll(E, Layouts, Modules, *Written, Outcomes, Opts,
                                Res.SpaceCandidates);
  merge(Spec, Layouts, Outcomes, Written->names().Axes, Res);
  Res.Stats.Stopped = E.Stop;
  Res.Stats.TimeS = seconds(Start);
  return Res;
}
