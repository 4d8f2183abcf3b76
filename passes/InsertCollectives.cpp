//===- InsertCollectives.cpp - The collectives shardings require ----------===//
//
// Builds, for one mesh, the lowered module from the checked one: every
// high-level op becomes local ops and collectives (COST-MODEL.md §2). Two
// steps per op: *plan* (pure: which steps, priced on the mesh) and
// *materialise* (emit them). By the op's lowering interface:
//  1. Reshard: the steps of planReshard, or a view when nothing moves. A
//     reshard that changes the dtype also converts: every place for the
//     conversion (planConversions) is priced like a contraction's plan,
//     the conversion being its compute, and chosen by the same order.
//  2. Local (elementwise): each operand is resharded to the type the op
//     needs of it (requiredOperandType: a broadcast operand takes its full
//     operand's sharding), the op runs in their sharding (naturalType),
//     then its result is resharded to the written type.
//  3. Contraction: every candidate of forEachContractionPlan is priced (the
//     local product's compute and the steps' comms under `overlap`); the
//     cheapest wins, ties going to fewer bytes moved (PlanPrice), then to
//     fewer collectives, then to the first candidate (the one that gathers
//     the first operand). The choice and the best rejected plan go to the
//     Choices table as data.
//  4. Keep (inputs) and repeats are copied.
// In the backward, an operand's step is emitted once per block: a second
// op that needs the same step of the same value (the dgrad and the wgrad
// of a sequence-parallel layer both gathering one gradient, as Megatron-LM
// does) reuses the first one's result, and its plans price that step as
// free. Forward gathers are not reused: keeping one to the backward, or
// across the forward, is a memory decision (recompute) the user writes.
// A recompute is a reshard the backward writes out, so it gathers again.
// The checked module is never changed, so the same one lowers for any mesh.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "ir/ContractionPlans.h"
#include "passes/Pipeline.h"
#include <map>
#include <tuple>
#include <type_traits>

using namespace shardc;

namespace {

/// What a plan costs on the mesh, in the order plans are compared.
struct PlanPrice {
  double Time = 0; ///< the op time, compute and comms under `overlap`
  /// Bytes moved: over the plan's collectives, the bytes through the busiest
  /// uplink of each level they cross, summed (what the totals' level_bytes
  /// add up). Breaks ties in time: a plan whose collectives hide under the
  /// compute can still load the network less.
  double Bytes = 0;
  unsigned Collectives = 0;
};

/// A candidate plan with its price on the mesh.
struct PricedPlan {
  ContractionPlan Plan;
  PlanPrice Price;
};

/// A candidate of a converting reshard with its price on the mesh.
struct PricedSteps {
  ReshardSteps Steps;
  PlanPrice Price;
};

/// An operand step already emitted in a block: the block, the value it
/// reads, and the step's kind, axes and dims (which fix its result type).
using StepKey = std::tuple<const Block *, const Value *, StepKind,
                           std::vector<AxisId>, int, int>;

/// A collective step as its op: each kind's class takes the axes and the
/// dims its kind names (none, one, or a source and a destination).
template <typename OpT>
Value *createCollective(OpBuilder &B, Loc L, unsigned St, Value *In,
                        std::string Name, const ReshardStep &S) {
  if constexpr (std::is_constructible_v<OpT, llvm::ArrayRef<AxisId>, unsigned,
                                        unsigned>)
    return B
        .create<OpT>(L, St, In, std::move(Name), S.After, S.Axes,
                     unsigned(S.Dim), unsigned(S.DstDim))
        ->result();
  else if constexpr (std::is_constructible_v<OpT, llvm::ArrayRef<AxisId>,
                                             unsigned>)
    return B
        .create<OpT>(L, St, In, std::move(Name), S.After, S.Axes,
                     unsigned(S.Dim))
        ->result();
  else
    return B.create<OpT>(L, St, In, std::move(Name), S.After, S.Axes)->result();
}

/// Plans whose op times differ by less than this fraction are equally
/// cheap: the same terms summed in another order differ in the last bits,
/// and that must not decide a plan.
constexpr double TieTolerance = 1e-12;

/// True when \p A and \p B differ by more than the tie tolerance.
bool differ(double A, double B) {
  return std::abs(A - B) > TieTolerance * std::max(A, B);
}

/// COST-MODEL.md §2's order: op time, then bytes moved, then the number of
/// collectives; a full tie keeps the plan found first.
bool cheaper(const PlanPrice &A, const PlanPrice &B) {
  if (differ(A.Time, B.Time))
    return A.Time < B.Time;
  if (differ(A.Bytes, B.Bytes))
    return A.Bytes < B.Bytes;
  return A.Collectives < B.Collectives;
}

/// Keeps the two cheapest of the candidates offered so far; the first found
/// wins a tie, as a stable sort of all of them would give.
template <typename Priced>
void keepBestTwo(Priced X, std::optional<Priced> &Best,
                 std::optional<Priced> &Second) {
  if (!Best || cheaper(X.Price, Best->Price)) {
    Second = std::move(Best);
    Best = std::move(X);
  } else if (!Second || cheaper(X.Price, Second->Price)) {
    Second = std::move(X);
  }
}

/// A plan's steps as the user reads them, applied to \p V.
void addPlanSteps(PlanSummary &S, llvm::ArrayRef<ReshardStep> Steps,
                  const Value *V) {
  for (const ReshardStep &Step : Steps)
    if (Step.Kind != StepKind::View)
      S.Steps.push_back({Step.Kind, V->name(), Step.Axes, Step.After.Elt});
}

class InsertCollectives : public Pass {
public:
  llvm::StringRef name() const override { return "insert-collectives"; }
  bool run(MeshCompile &C, DiagnosticEngine &Diags) override;

private:
  void block(const Block &From, Block &To);
  void op(const Op &O);
  void contraction(const ContractionOp &O);
  void local(const Op &O);
  void reshard(const ReshardOp &O);
  void convertingReshard(const ReshardOp &O);
  Value *emit(Value *In, llvm::ArrayRef<ReshardStep> Steps, const Op &Origin,
              const std::string &FinalName, Op **Converted = nullptr);
  Value *emitStep(const ReshardStep &S, Value *In, const Op &Origin,
                  std::string Name);
  /// Emits an operand's \p Steps on \p In, reusing any this block has.
  Value *emitOperand(Value *In, llvm::ArrayRef<ReshardStep> Steps,
                     const Op &Origin);
  /// The result of step \p S on \p In where this block has emitted it.
  Value *emitted(const Value *In, const ReshardStep &S) const {
    auto It = Emitted.find(key(In, S));
    return It == Emitted.end() || It->second->type() != S.After ? nullptr
                                                                : It->second;
  }
  StepKey key(const Value *In, const ReshardStep &S) const {
    std::vector<AxisId> Axes(S.Axes.begin(), S.Axes.end());
    return {&B->block(), In, S.Kind, std::move(Axes), S.Dim, S.DstDim};
  }
  /// \p Steps past the prefix this block has emitted on \p In for \p O.
  llvm::ArrayRef<ReshardStep>
  unemitted(const Op &O, const Value *In,
            llvm::ArrayRef<ReshardStep> Steps) const;
  /// Whether \p O's operand steps are shared: in the backward only.
  bool shares(const Op &O) const {
    return C->program().info().Statements[O.stmt()].Ph == Phase::Backward;
  }
  PricedPlan price(const ContractionOp &O, const ContractionPlan &P);
  PlanPrice priceConversion(llvm::ArrayRef<ReshardStep> Steps);
  /// Adds the comms time, bytes moved and collectives of \p Steps to \p P.
  void addSteps(llvm::ArrayRef<ReshardStep> Steps, PlanPrice &P);
  PlanSummary summarise(const ContractionOp &O, const PricedPlan &P) const;
  /// Records the statement's choice; \p At is the op it is remarked on.
  void choose(unsigned Stmt, PlanSummary Chosen,
              std::optional<PlanSummary> Rejected, const Op &At);
  Value *lowered(const Value *V) const { return Map[V->id()]; }
  llvm::SmallVector<Value *, 4> loweredOperands(const Op &O) const {
    llvm::SmallVector<Value *, 4> Out;
    for (const Value *V : O.operands())
      Out.push_back(lowered(V));
    return Out;
  }
  void map(const Value *From, Value *To) { Map[From->id()] = To; }
  /// Without padding every intermediate type must divide evenly.
  const MeshSpec *evenOn() const {
    return C->config().AllowPadding ? nullptr : &C->mesh();
  }

  /// An op no plan lowers: a bug (the frontend checks every written op,
  /// and derive-backward's ops are built to have one), reported at the op
  /// instead of lowering nothing; the rest of the module is skipped.
  void noPlan(const Op &O, llvm::StringRef What) {
    Diags->report(O.loc(), diag::NoPlanInternal,
                  O.result() ? O.result()->name() : "", What.str());
    Failed = true;
  }

  MeshCompile *C = nullptr;
  DiagnosticEngine *Diags = nullptr;
  bool Failed = false;
  std::unique_ptr<OpBuilder> B;
  /// The lowered value of each checked value, by checked value id.
  std::vector<Value *> Map;
  /// The operand steps emitted so far, by block, value and step.
  std::map<StepKey, Value *> Emitted;
};

bool InsertCollectives::run(MeshCompile &Compile, DiagnosticEngine &D) {
  C = &Compile;
  Diags = &D;
  Failed = false;
  const Module &Checked = Compile.program();
  auto Lowered =
      std::make_unique<Module>(Checked.sharedInfo(), Compile.mesh(),
                               Compile.config(), Module::Stage::Lowered);
  B = std::make_unique<OpBuilder>(*Lowered, Lowered->body());
  Map.assign(Checked.numValueIds(), nullptr);
  Emitted.clear();
  Compile.Tables.Choices.clear();
  Compile.Tables.Choices.resize(Checked.info().Statements.size());
  block(Checked.body(), Lowered->body());
  if (Failed)
    return false;
  Compile.setLowered(std::move(Lowered));
  return true;
}

void InsertCollectives::block(const Block &From, Block &To) {
  B->setInsertionPointToEnd(To);
  for (const auto &O : From.ops())
    op(*O);
}

void InsertCollectives::op(const Op &O) {
  if (Failed)
    return;
  if (auto *R = llvm::dyn_cast<RepeatOp>(&O)) {
    auto *Copy = B->createNoResult<RepeatOp>(O.loc(), O.stmt(), R->tripCount(),
                                             R->pipelineAxis());
    Copy->copyShape(*R);
    Block &Outer = B->block();
    block(R->body(), Copy->body());
    for (const RepeatOp::Carried &C : R->carried())
      Copy->addCarried(lowered(C.Init), lowered(C.Next));
    B->setInsertionPointToEnd(Outer);
    return;
  }
  auto *L = dyn_cast<Lowerable>(&O);
  switch (L ? L->lowering() : Lowering::Keep) {
  case Lowering::Keep:
    map(O.result(), B->cloneAs(O, loweredOperands(O), O.result()->name(),
                               O.result()->type())
                        ->result());
    return;
  case Lowering::Contraction:
    return contraction(llvm::cast<ContractionOp>(O));
  case Lowering::Reshard:
    return reshard(llvm::cast<ReshardOp>(O));
  case Lowering::Local:
    return local(O);
  }
  llvm_unreachable("every lowering is handled");
}

Value *InsertCollectives::emitStep(const ReshardStep &S, Value *In,
                                   const Op &Origin, std::string Name) {
  Loc L = Origin.loc();
  unsigned St = Origin.stmt();
  switch (S.Kind) {
  case StepKind::Slice:
    return B->create<SliceOp>(L, St, In, Name, S.After, S.Axes, S.Dim)
        ->result();
  case StepKind::View:
    return B->create<ViewOp>(L, St, In, Name, S.After)->result();
  case StepKind::Convert:
    return B->create<ConvertOp>(L, St, In, Name, S.After)->result();
#define COLLECTIVE(Kind, ...)                                                  \
  case StepKind::Kind:                                                         \
    return createCollective<Kind##Op>(*B, L, St, In, std::move(Name), S);
#include "ir/CollectiveKinds.def"
  }
  llvm_unreachable("every step kind is handled");
}

/// Emits \p Steps on \p In; the last one's result is named \p FinalName
/// when that is not empty. \p Converted, when given, receives the convert
/// op among them.
Value *InsertCollectives::emit(Value *In, llvm::ArrayRef<ReshardStep> Steps,
                               const Op &Origin, const std::string &FinalName,
                               Op **Converted) {
  for (size_t I = 0; I < Steps.size(); ++I) {
    bool Last = I + 1 == Steps.size() && !FinalName.empty();
    std::string Name =
        Last ? FinalName : In->name() + "." + stepSuffix(Steps[I].Kind).str();
    In = emitStep(Steps[I], In, Origin, std::move(Name));
    if (Converted && Steps[I].Kind == StepKind::Convert)
      *Converted = In->def();
  }
  return In;
}

Value *InsertCollectives::emitOperand(Value *In,
                                      llvm::ArrayRef<ReshardStep> Steps,
                                      const Op &Origin) {
  if (!shares(Origin))
    return emit(In, Steps, Origin, "");
  for (const ReshardStep &S : Steps) {
    if (Value *Done = emitted(In, S)) {
      In = Done;
      continue;
    }
    StepKey K = key(In, S);
    In = emitStep(S, In, Origin, In->name() + "." + stepSuffix(S.Kind).str());
    Emitted.emplace(std::move(K), In);
  }
  return In;
}

llvm::ArrayRef<ReshardStep>
InsertCollectives::unemitted(const Op &O, const Value *In,
                             llvm::ArrayRef<ReshardStep> Steps) const {
  if (!shares(O))
    return Steps;
  size_t I = 0;
  for (; I < Steps.size() && In; ++I)
    if (!(In = emitted(In, Steps[I])))
      break;
  return Steps.drop_front(I);
}

void InsertCollectives::reshard(const ReshardOp &O) {
  const Value *Src = O.operand(0), *Dst = O.result();
  if (Src->type().Elt != Dst->type().Elt)
    return convertingReshard(O);
  std::optional<ReshardSteps> Steps =
      planReshard(Src->type(), Dst->type(), evenOn());
  if (!Steps)
    return noPlan(O, "a reshard");
  if (Steps->empty()) // nothing moves: the result is a view of the operand
    Steps->push_back({StepKind::View, {}, -1, -1, Src->type(), Dst->type()});
  map(Dst, emit(lowered(Src), *Steps, O, Dst->name()));
}

void InsertCollectives::local(const Op &O) {
  const Value *Final = O.result();
  const auto &L = cast<Lowerable>(O);
  ShardType Natural = L.naturalType();
  std::optional<ReshardSteps> Steps =
      planReshard(Natural, Final->type(), evenOn());
  if (!Steps)
    return noPlan(O, "its result's sharding");
  llvm::SmallVector<Value *, 4> Operands = loweredOperands(O);
  for (unsigned I = 0; I < O.numOperands(); ++I) {
    std::optional<ReshardSteps> In =
        planReshard(O.operand(I)->type(), L.requiredOperandType(I), evenOn());
    if (!In)
      return noPlan(O, "an operand's sharding");
    Operands[I] = emitOperand(Operands[I], *In, O);
  }
  // The op computes in its operands' sharding; the written type follows.
  bool Direct = Steps->empty();
  Op *Copy = B->cloneAs(
      O, Operands, Direct ? Final->name() : Final->name() + ".local", Natural);
  map(Final,
      Direct ? Copy->result() : emit(Copy->result(), *Steps, O, Final->name()));
}

void InsertCollectives::addSteps(llvm::ArrayRef<ReshardStep> Steps,
                                 PlanPrice &P) {
  for (const ReshardStep &S : Steps) {
    std::optional<CollectiveKind> K = collectiveOf(S.Kind);
    if (!K)
      continue;
    CollectivePlacement Placed = C->placements().place(
        *K, AxisSet::of(S.Axes), stepGroupBytes(S, C->mesh()));
    P.Time += Placed.Time;
    for (const LevelTraffic &L : Placed.Levels)
      P.Bytes += L.Bytes;
    ++P.Collectives;
  }
}

/// The conversion is the plan's compute, sized where it runs; the steps
/// around it are its comms.
PlanPrice
InsertCollectives::priceConversion(llvm::ArrayRef<ReshardStep> Steps) {
  const MeshSpec &M = C->mesh();
  double Compute = 0;
  for (const ReshardStep &S : Steps)
    if (S.Kind == StepKind::Convert)
      Compute +=
          computeTime(ConvertOp::workFor(S.Before, S.After, M), M.Cluster->Chip)
              .time();
  PlanPrice Price; // Time holds the comms until the compute joins them
  addSteps(Steps, Price);
  Price.Time = combineTime(Compute, Price.Time, C->config().Overlap);
  return Price;
}

void InsertCollectives::convertingReshard(const ReshardOp &O) {
  const Value *Src = O.operand(0), *Dst = O.result();
  std::optional<PricedSteps> Best, Second;
  for (ReshardSteps &Steps :
       planConversions(Src->type(), Dst->type(), evenOn())) {
    PlanPrice Price = priceConversion(Steps);
    keepBestTwo(PricedSteps{std::move(Steps), Price}, Best, Second);
  }
  if (!Best)
    return noPlan(O, "a converting reshard");
  auto Summary = [&](const PricedSteps &P) {
    PlanSummary S{{}, P.Price.Time, P.Price.Bytes};
    addPlanSteps(S, P.Steps, Src);
    return S;
  };
  Op *Convert = nullptr;
  map(Dst, emit(lowered(Src), Best->Steps, O, Dst->name(), &Convert));
  std::optional<PlanSummary> Rejected;
  if (Second)
    Rejected = Summary(*Second);
  choose(O.stmt(), Summary(*Best), std::move(Rejected), *Convert);
}

void InsertCollectives::choose(unsigned Stmt, PlanSummary Chosen,
                               std::optional<PlanSummary> Rejected,
                               const Op &At) {
  PlanChoice &Choice =
      *(C->Tables.Choices[Stmt] = std::make_unique<PlanChoice>());
  Choice.TimesTie = Rejected && !differ(Chosen.Time, Rejected->Time);
  Choice.Chosen = std::move(Chosen);
  Choice.Rejected = std::move(Rejected);
  Choice.At = At.id();
}

PricedPlan InsertCollectives::price(const ContractionOp &O,
                                    const ContractionPlan &P) {
  const MeshSpec &M = C->mesh();
  OpWork W =
      ContractionOp::workFor(P.L, P.R, P.Natural, O.dims(), M,
                             O.fp8() ? &*O.fp8() : nullptr, O.mathDType());
  double Compute = computeTime(W, M.Cluster->Chip).time();
  PlanPrice Price; // Time holds the comms until the compute joins them
  // An operand step this block has already emitted is reused: it is free.
  addSteps(unemitted(O, lowered(O.operand(0)), P.LSteps), Price);
  addSteps(unemitted(O, lowered(O.operand(1)), P.RSteps), Price);
  addSteps(P.OutSteps, Price);
  Price.Time = combineTime(Compute, Price.Time, C->config().Overlap);
  return {P, Price};
}

PlanSummary InsertCollectives::summarise(const ContractionOp &O,
                                         const PricedPlan &P) const {
  PlanSummary S{{}, P.Price.Time, P.Price.Bytes};
  addPlanSteps(S, P.Plan.LSteps, O.operand(0));
  addPlanSteps(S, P.Plan.RSteps, O.operand(1));
  addPlanSteps(S, P.Plan.OutSteps, O.result());
  return S;
}

void InsertCollectives::contraction(const ContractionOp &O) {
  ContractionShape Shape{O.operand(0)->type(), O.operand(1)->type(),
                         O.result()->type(), O.dims()};
  // Each candidate is priced as it is found; the best two are kept.
  std::optional<PricedPlan> Best, Second;
  forEachContractionPlan(Shape, evenOn(), [&](const ContractionPlan &P) {
    keepBestTwo(price(O, P), Best, Second);
  });
  if (!Best && evenOn() && hasContractionPlan(Shape)) {
    // Every plan passes through a type this mesh does not divide: a user
    // error (allow_padding would price the padding), reported at the op.
    const Module &M = C->program();
    Diags->report(O.loc(), diag::NoContractionPlan,
                  M.typeStr(O.result()->type()), M.typeStr(Shape.L),
                  M.typeStr(Shape.R));
    Failed = true;
    return;
  }
  if (!Best)
    return noPlan(O, "a contraction");
  const ContractionPlan &P = Best->Plan;
  const std::string &Final = O.result()->name();
  Value *L = emitOperand(lowered(O.operand(0)), P.LSteps, O);
  Value *R = emitOperand(lowered(O.operand(1)), P.RSteps, O);
  std::string Name = P.OutSteps.empty()            ? Final
                     : P.Natural.Unreduced.empty() ? Final + ".local"
                                                   : Final + ".partial";
  Op *Product = B->cloneAs(O, {L, R}, Name, P.Natural);
  map(O.result(), emit(Product->result(), P.OutSteps, O, Final));
  std::optional<PlanSummary> Rejected;
  if (Second)
    Rejected = summarise(O, *Second);
  choose(O.stmt(), summarise(O, *Best), std::move(Rejected), *Product);
}

} // namespace

std::unique_ptr<Pass> shardc::createInsertCollectivesPass() {
  return std::make_unique<InsertCollectives>();
}
