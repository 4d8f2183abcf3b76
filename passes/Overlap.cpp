//===- Overlap.cpp - Collectives a train block runs under a GEMM ----------===//
//
// docs/cost-model.md §6.6, into the Overlaps table and the statement times:
// with `tp_overlap`, some tensor-parallel collectives leave the compute
// stream's critical path and run under a GEMM, which the collective slows
// by its level's comm_sm_share s. A collective of t_c under compute of t
// (full rate) takes the pair max(t_c, t + s·t_c): the compute runs at 1 − s
// while the collective runs, at full rate after; if the collective outlasts
// the slowed compute, the rest of it is exposed. The statement that owns the
// collectives is charged what the pair adds to the compute,
// max(t_c − t, s·t_c); the GEMM's statement keeps its time.
//  1. Each statement's ops in program order; the params' names.
//  2. Each forward contraction's dgrad D and wgrad W (the gradients with
//     respect to its activation and to its param).
//  3. The groups, in order: (a) the collectives D runs after its GEMM (the
//     input gradient's AllReduce or ReduceScatter) under W's GEMM; (b) a
//     backward statement of collectives only that reduces dgrads' partial
//     sums (summed first: q, k and v of one input) under their W's GEMMs;
//     (c) a recomputed gather only wgrads read (sequence parallelism's
//     input AllGather) under their D's GEMMs. With `all`: (d) every other
//     collective of a contraction's statement under its own GEMM, and (e) a
//     statement of collectives only under the contraction it feeds or that
//     feeds it.
//  4. Each GEMM hides one group; a group's compute is its partners' that no
//     earlier group took. The owner's time is its own compute and its other
//     collectives, combined as `overlap` says, plus the charge.
//
//===----------------------------------------------------------------------===//
#include "passes/Overlap.h"
#include "passes/Pipeline.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

using namespace shardc;

double shardc::commShare(const MeshCompile &C, const CollectiveCost &CC) {
  std::optional<unsigned> Outer;
  for (const LevelCost &L : CC.Levels)
    if (L.Bytes > 0 && (!Outer || L.Level > *Outer))
      Outer = L.Level;
  if (!Outer)
    return 0;
  return C.mesh().Cluster->Levels[*Outer].Calibration.CommSmShare;
}

double shardc::overlapCharge(double TComms, double Contention, double Under) {
  return std::max({TComms - Under, Contention, 0.0});
}

namespace {

struct Group {
  unsigned Owner;
  std::vector<const Op *> Colls;
  std::vector<unsigned> Partners;
};

class OverlapPlanner {
public:
  explicit OverlapPlanner(MeshCompile &C)
      : C(C), M(*C.lowered()), N(M.info().Statements.size()), OpsOf(N),
        Dgrad(N, NoStmt), Wgrad(N, NoStmt), IsD(N, false), IsW(N, false),
        Used(N, false), Readers(N) {}
  void run();

private:
  bool isColl(const Op *O) const { return bool(C.Tables.Collectives[O->id()]); }
  bool hasGemm(unsigned St) const;
  void classify();
  void reductions(std::vector<Group> &Out);
  void traceDgrads(const Value *V, unsigned St,
                   llvm::DenseSet<const Op *> &Seen,
                   std::vector<unsigned> &Ws) const;
  void gathers(std::vector<Group> &Out);
  void ownGemms(std::vector<Group> &Out);
  void price(const Group &G);
  void retime(unsigned St);

  MeshCompile &C;
  const Module &M;
  size_t N;
  std::vector<std::vector<const Op *>> OpsOf;
  /// By forward statement: its dgrad and wgrad statements.
  std::vector<unsigned> Dgrad, Wgrad;
  /// By statement: it is a dgrad (the forward statement in From).
  std::vector<bool> IsD, IsW;
  /// By statement: its GEMM already hides a group.
  std::vector<bool> Used;
  /// By statement: the other statements that read its results.
  std::vector<std::vector<unsigned>> Readers;
  llvm::DenseSet<const Op *> Grouped;
};

bool OverlapPlanner::hasGemm(unsigned St) const {
  return llvm::any_of(OpsOf[St],
                      [](const Op *O) { return isa<ContractionOp>(O); });
}

/// Steps 1 and 2.
void OverlapPlanner::classify() {
  walk(M.body(), [&](const Op &O) {
    if (O.stmt() != NoStmt)
      OpsOf[O.stmt()].push_back(&O);
  });
  for (unsigned St = 0; St < N; ++St)
    for (const Op *O : OpsOf[St])
      for (const Value *V : O->operands())
        if (const Op *D = V->def(); D && D->stmt() != NoStmt &&
                                    D->stmt() != St &&
                                    !llvm::is_contained(Readers[D->stmt()], St))
          Readers[D->stmt()].push_back(St);
  llvm::StringSet<> Params;
  for (const Statement &St : M.info().Statements)
    if (St.Kind == OpKind::Param && St.Ph == Phase::Forward)
      Params.insert(St.Name);
  for (unsigned St = 0; St < N; ++St) {
    const Statement &S = M.statement(St);
    if (S.Ph != Phase::Backward || !S.From ||
        S.From->What != Provenance::Gradient ||
        M.statement(S.From->Stmt).Kind != OpKind::Contraction || !hasGemm(St))
      continue;
    bool W = Params.contains(S.From->Wrt);
    (W ? Wgrad : Dgrad)[S.From->Stmt] = St;
    (W ? IsW : IsD)[St] = true;
  }
}

/// Step 3 (a) and (b): what reduces a dgrad runs under its wgrad.
void OverlapPlanner::reductions(std::vector<Group> &Out) {
  for (unsigned St = 0; St < N; ++St) {
    const Statement &S = M.statement(St);
    if (S.Ph != Phase::Backward)
      continue;
    Group G{St, {}, {}};
    if (IsD[St]) {
      // (a) the collectives after D's GEMM.
      auto Gemm = llvm::find_if(llvm::reverse(OpsOf[St]), [](const Op *O) {
        return isa<ContractionOp>(O);
      });
      for (auto It = Gemm.base(); It != OpsOf[St].end(); ++It)
        if (isColl(*It))
          G.Colls.push_back(*It);
      if (unsigned W = Wgrad[S.From->Stmt]; W != NoStmt)
        G.Partners.push_back(W);
    } else if (!hasGemm(St)) {
      // (b) a reduction of dgrads' partial sums.
      llvm::DenseSet<const Op *> Seen;
      for (const Op *O : OpsOf[St])
        if (isColl(O)) {
          G.Colls.push_back(O);
          for (const Value *V : O->operands())
            traceDgrads(V, St, Seen, G.Partners);
        }
    }
    if (!G.Colls.empty() && !G.Partners.empty())
      Out.push_back(std::move(G));
  }
}

/// The wgrads of the dgrads whose results reach \p V through statement
/// \p St's own ops or the sums of gradient contributions.
void OverlapPlanner::traceDgrads(const Value *V, unsigned St,
                                 llvm::DenseSet<const Op *> &Seen,
                                 std::vector<unsigned> &Ws) const {
  const Op *D = V->def();
  if (!D || D->stmt() == NoStmt || !Seen.insert(D).second)
    return;
  unsigned From = D->stmt();
  if (IsD[From]) {
    unsigned W = Wgrad[M.statement(From).From->Stmt];
    if (W != NoStmt && !llvm::is_contained(Ws, W))
      Ws.push_back(W);
    return;
  }
  const Statement &S = M.statement(From);
  if (From != St && !(S.From && S.From->What == Provenance::Sum))
    return;
  for (const Value *O : D->operands())
    traceDgrads(O, St, Seen, Ws);
}

/// Step 3 (c): a recomputed gather that only wgrads read runs under their
/// dgrads.
void OverlapPlanner::gathers(std::vector<Group> &Out) {
  for (unsigned St = 0; St < N; ++St) {
    const Statement &S = M.statement(St);
    if (!S.From || S.From->What != Provenance::Recompute || hasGemm(St) ||
        Readers[St].empty())
      continue;
    Group G{St, {}, {}};
    for (const Op *O : OpsOf[St])
      if (isColl(O))
        G.Colls.push_back(O);
    bool OnlyW = llvm::all_of(Readers[St], [&](unsigned R) { return IsW[R]; });
    if (!OnlyW || G.Colls.empty())
      continue;
    for (unsigned R : Readers[St])
      if (unsigned D = Dgrad[M.statement(R).From->Stmt]; D != NoStmt)
        G.Partners.push_back(D);
    if (!G.Partners.empty())
      Out.push_back(std::move(G));
  }
}

/// Step 3 (d) and (e), `tp_overlap = all`: the forward's collectives, and
/// the backward's that no rule above placed, under the GEMM they feed or
/// drain.
void OverlapPlanner::ownGemms(std::vector<Group> &Out) {
  for (unsigned St = 0; St < N; ++St) {
    Phase Ph = M.statement(St).Ph;
    if (Ph != Phase::Forward && Ph != Phase::Backward)
      continue;
    Group G{St, {}, {}};
    for (const Op *O : OpsOf[St])
      if (isColl(O) && !Grouped.contains(O))
        G.Colls.push_back(O);
    if (G.Colls.empty())
      continue;
    if (hasGemm(St)) {
      G.Partners.push_back(St);
    } else {
      for (unsigned R : Readers[St])
        if (hasGemm(R))
          G.Partners.push_back(R);
      if (G.Partners.empty())
        for (const Op *O : OpsOf[St])
          for (const Value *V : O->operands())
            if (const Op *D = V->def(); D && D->stmt() != NoStmt &&
                                        D->stmt() != St && hasGemm(D->stmt()))
              G.Partners.push_back(D->stmt());
    }
    if (!G.Partners.empty())
      Out.push_back(std::move(G));
  }
}

/// Step 4: one group's charge, added to its owner's entry.
void OverlapPlanner::price(const Group &G) {
  Analyses &T = C.Tables;
  OverlapCost O;
  int64_t Rep = M.statement(G.Owner).Repeat;
  for (unsigned P : G.Partners) {
    if (Used[P] || M.statement(P).Repeat != Rep ||
        llvm::is_contained(O.Partners, P))
      continue;
    Used[P] = true;
    O.Under += computeOf(*T.StatementCosts[P], false);
    O.UnderFirst += computeOf(*T.StatementCosts[P], true);
    O.Partners.push_back(P);
  }
  if (O.Partners.empty())
    return;
  for (const Op *Co : G.Colls) {
    double Time = T.OpCosts[Co->id()]->TComms;
    O.TComms += Time;
    O.Contention += T.OpCosts[Co->id()]->Contention;
    Grouped.insert(Co);
  }
  O.Charge = overlapCharge(O.TComms, O.Contention, O.Under);
  O.ChargeFirst = overlapCharge(O.TComms, O.Contention, O.UnderFirst);
  std::optional<OverlapCost> &Slot = T.Overlaps[G.Owner];
  if (!Slot) {
    Slot = std::move(O);
    return;
  }
  Slot->TComms += O.TComms;
  Slot->Contention += O.Contention;
  Slot->Under += O.Under;
  Slot->UnderFirst += O.UnderFirst;
  Slot->Charge += O.Charge;
  Slot->ChargeFirst += O.ChargeFirst;
  Slot->Partners.append(O.Partners.begin(), O.Partners.end());
}

/// Step 4: the owner's time: its compute and its other collectives, then
/// what the overlapped ones add.
void OverlapPlanner::retime(unsigned St) {
  const OverlapCost &O = *C.Tables.Overlaps[St];
  OpCost &Own = *C.Tables.StatementCosts[St];
  double Rest = std::max(0.0, Own.TComms - O.TComms);
  bool Overlap = C.config().Overlap;
  Own.Time = combineTime(computeOf(Own, false), Rest, Overlap) + O.Charge;
  Own.FirstTime =
      combineTime(computeOf(Own, true), Rest, Overlap) + O.ChargeFirst;
}

void OverlapPlanner::run() {
  classify();
  std::vector<Group> Groups;
  reductions(Groups);
  gathers(Groups);
  for (const Group &G : Groups)
    price(G);
  if (C.config().Train->TpOverlap == TpOverlapMode::All) {
    Groups.clear();
    ownGemms(Groups);
    for (const Group &G : Groups)
      price(G);
  }
  for (unsigned St = 0; St < N; ++St)
    if (C.Tables.Overlaps[St])
      retime(St);
}

} // namespace

void shardc::overlapTensorParallel(MeshCompile &C) {
  C.Tables.Overlaps.assign(C.Tables.StatementCosts.size(), std::nullopt);
  const auto &Train = C.config().Train;
  if (!Train || Train->TpOverlap == TpOverlapMode::None)
    return;
  OverlapPlanner(C).run();
}
