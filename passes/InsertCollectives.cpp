//===- InsertCollectives.cpp - The collectives shardings require ----------===//
//
// Turns every high-level op into local ops and collectives
// (COST-MODEL.md §2):
//  1. A reshard becomes the steps of planReshard (or a free view).
//  2. An elementwise op runs in its operands' sharding; its result is then
//     resharded to the written type.
//  3. A contraction is planned by enumerating, for every conflict between
//     its operands, the ways to resolve it: a shared (batch or contracted)
//     dim sharded differently is either gathered down to the common prefix
//     or the less-sharded operand is sliced up to match (the book's case 2);
//     an axis on a free dim of both is gathered from one of them (case 4).
//     Each valid combination yields the local product's natural type
//     (partial sums over the contracted axes, case 3), then the reshard to
//     the written output. The plan with the lowest op time (compute and
//     comms under `overlap`) wins; ties go to fewer collectives, then to the
//     plan that gathers the first operand. The choice and the best rejected
//     plan are recorded as a remark and on the statement.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "ir/Format.h"
#include "passes/CostModel.h"
#include "passes/Pass.h"
#include "passes/ReshardPlan.h"
#include "llvm/ADT/StringExtras.h"
#include <fmt/format.h>

using namespace shardc;

namespace {

/// One conflict between the operands and the ways to resolve it.
struct Decision {
  enum Kind : uint8_t { Gather, SliceL, SliceR, GatherFreeL, GatherFreeR };
  std::string Dim;   ///< the shared dim, for Gather/SliceL/SliceR
  unsigned Axis = 0; ///< the free-free axis, for GatherFreeL/GatherFreeR
  llvm::SmallVector<Kind, 3> Options;
};

struct Plan {
  ShardType L, R, Natural;
  ReshardSteps LSteps, RSteps, OutSteps;
  ComputeEstimate Compute;
  double Comms = 0, Time = 0;
  unsigned Collectives = 0;
};

/// Names intermediate values after the step that made them (`B.slice`), so
/// the printed IR keeps the user's name for the statement's result.
const char *stepSuffix(OpKind K) {
  switch (K) {
  case OpKind::Slice:
    return "slice";
  case OpKind::AllGather:
    return "ag";
  case OpKind::ReduceScatter:
    return "rs";
  case OpKind::AllReduce:
    return "ar";
  case OpKind::AllToAll:
    return "a2a";
  default:
    return "tmp";
  }
}

constexpr unsigned MaxPlans = 4096;

class InsertCollectives : public Pass {
public:
  llvm::StringRef name() const override { return "insert-collectives"; }
  bool run(Module &M, PassContext &Ctx) override;

private:
  bool block(Block &B);
  bool contraction(Operation &Op, std::vector<std::unique_ptr<Operation>> &Out);
  bool elementwise(std::unique_ptr<Operation> Op,
                   std::vector<std::unique_ptr<Operation>> &Out);
  bool reshard(Operation &Op, std::vector<std::unique_ptr<Operation>> &Out);
  std::vector<Decision> decisions(const ShardType &L, const ShardType &R,
                                  llvm::ArrayRef<ContractionDim> Dims) const;
  std::optional<Plan> makePlan(const Operation &Op, llvm::ArrayRef<Decision> Ds,
                               llvm::ArrayRef<unsigned> Pick);
  Value *emit(Value *In, const ReshardSteps &Steps, const Operation &Origin,
              Value *Final, std::vector<std::unique_ptr<Operation>> &Out);
  std::string describe(const Plan &P, const Operation &Op) const;
  /// Without padding every intermediate type must divide evenly.
  const MeshSpec *evenOn() const {
    return M->Config.AllowPadding ? nullptr : M->Mesh;
  }

  Module *M = nullptr;
  PassContext *Ctx = nullptr;
};

bool InsertCollectives::run(Module &Mod, PassContext &C) {
  M = &Mod;
  Ctx = &C;
  bool Ok = block(Mod.Body);
  Mod.CollectivesInserted = Ok;
  return Ok;
}

bool InsertCollectives::block(Block &B) {
  std::vector<std::unique_ptr<Operation>> Out;
  bool Ok = true;
  for (auto &Op : B.Ops) {
    Operation &O = *Op;
    switch (O.Kind) {
    case OpKind::Contraction:
      Ok &= contraction(O, Out);
      break;
    case OpKind::Elementwise:
      Ok &= elementwise(std::move(Op), Out);
      break;
    case OpKind::Reshard:
      Ok &= reshard(O, Out);
      break;
    case OpKind::Repeat:
      Ok &= block(*O.Body);
      Out.push_back(std::move(Op));
      break;
    default:
      Out.push_back(std::move(Op));
      break;
    }
  }
  B.Ops = std::move(Out);
  return Ok;
}

/// Emits \p Steps on \p In; the last step defines \p Final when given.
Value *InsertCollectives::emit(Value *In, const ReshardSteps &Steps,
                               const Operation &Origin, Value *Final,
                               std::vector<std::unique_ptr<Operation>> &Out) {
  for (size_t I = 0; I < Steps.size(); ++I) {
    const ReshardStep &S = Steps[I];
    auto Op = std::make_unique<Operation>(S.Kind);
    Op->Loc = Origin.Loc;
    Op->Stmt = Origin.Stmt;
    Op->Operands.push_back(In);
    Op->Axes = S.Axes;
    Op->Dim = S.Dim;
    Op->DstDim = S.DstDim;
    if (Final && I + 1 == Steps.size()) {
      Final->Def = Op.get();
      Final->Type = S.After;
      In = Final;
    } else {
      In = M->newValue(In->Name + "." + stepSuffix(S.Kind), S.After, Op.get());
    }
    Op->Result = In;
    Out.push_back(std::move(Op));
  }
  return In;
}

std::vector<Decision>
InsertCollectives::decisions(const ShardType &L, const ShardType &R,
                             llvm::ArrayRef<ContractionDim> Dims) const {
  std::vector<Decision> Ds;
  for (const ContractionDim &D : Dims) {
    if (D.Role != DimRole::Batch && D.Role != DimRole::Contracted)
      continue;
    const auto &Sl = L.Dims[*L.dimIndex(D.Name)].Axes;
    const auto &Sr = R.Dims[*R.dimIndex(D.Name)].Axes;
    if (Sl == Sr)
      continue;
    Decision X{D.Name, 0, {Decision::Gather}};
    auto IsPrefix = [](const auto &A, const auto &B) {
      return A.size() < B.size() && std::equal(A.begin(), A.end(), B.begin());
    };
    if (IsPrefix(Sl, Sr))
      X.Options.push_back(Decision::SliceL);
    if (IsPrefix(Sr, Sl))
      X.Options.push_back(Decision::SliceR);
    Ds.push_back(X);
  }
  for (const ContractionDim &D : Dims) {
    if (D.Role != DimRole::FreeLhs)
      continue;
    for (unsigned A : L.Dims[*L.dimIndex(D.Name)].Axes) {
      std::optional<unsigned> RD = R.dimOfAxis(A);
      if (RD && !L.dimIndex(R.Dims[*RD].Name))
        Ds.push_back({"", A, {Decision::GatherFreeL, Decision::GatherFreeR}});
    }
  }
  return Ds;
}

/// Changes the operands' types as option \p K of \p D says.
void applyDecision(ShardType &L, ShardType &R, const Decision &D,
                   Decision::Kind K) {
  if (K == Decision::GatherFreeL || K == Decision::GatherFreeR) {
    ShardType &T = K == Decision::GatherFreeL ? L : R;
    llvm::erase_value(T.Dims[*T.dimOfAxis(D.Axis)].Axes, D.Axis);
    return;
  }
  auto &Al = L.Dims[*L.dimIndex(D.Dim)].Axes;
  auto &Ar = R.Dims[*R.dimIndex(D.Dim)].Axes;
  if (K == Decision::SliceL) {
    Al = Ar;
  } else if (K == Decision::SliceR) {
    Ar = Al;
  } else {
    size_t N = 0;
    while (N < Al.size() && N < Ar.size() && Al[N] == Ar[N])
      ++N;
    Al.resize(N);
    Ar.resize(N);
  }
}

/// True when no mesh axis appears twice in \p T.
bool axesDistinct(const ShardType &T) {
  llvm::SmallVector<unsigned, 8> All(T.Unreduced.begin(), T.Unreduced.end());
  for (const TensorDim &D : T.Dims)
    All.append(D.Axes.begin(), D.Axes.end());
  llvm::sort(All);
  return std::adjacent_find(All.begin(), All.end()) == All.end();
}

std::optional<Plan> InsertCollectives::makePlan(const Operation &Op,
                                                llvm::ArrayRef<Decision> Ds,
                                                llvm::ArrayRef<unsigned> Pick) {
  Plan P;
  P.L = Op.Operands[0]->Type;
  P.R = Op.Operands[1]->Type;
  for (size_t I = 0; I < Ds.size(); ++I)
    applyDecision(P.L, P.R, Ds[I], Ds[I].Options[Pick[I]]);
  if (!axesDistinct(P.L) || !axesDistinct(P.R))
    return std::nullopt;
  // The local product needs shared dims sharded alike and no axis on a free
  // dim of both operands.
  const ShardType &Out = Op.Result->Type;
  P.Natural.Elt = Out.Elt;
  for (const ContractionDim &D : Op.ContractDims) {
    auto Il = P.L.dimIndex(D.Name), Ir = P.R.dimIndex(D.Name);
    if (Il && Ir && P.L.Dims[*Il].Axes != P.R.Dims[*Ir].Axes)
      return std::nullopt;
    if (D.Role == DimRole::Contracted)
      P.Natural.Unreduced.append(P.L.Dims[*Il].Axes.begin(),
                                 P.L.Dims[*Il].Axes.end());
  }
  for (const TensorDim &D : Out.Dims) {
    auto Il = P.L.dimIndex(D.Name);
    P.Natural.Dims.push_back(Il ? P.L.Dims[*Il]
                                : P.R.Dims[*P.R.dimIndex(D.Name)]);
  }
  llvm::sort(P.Natural.Unreduced);
  if (!axesDistinct(P.Natural))
    return std::nullopt;
  auto LS = planReshard(Op.Operands[0]->Type, P.L, evenOn());
  auto RS = planReshard(Op.Operands[1]->Type, P.R, evenOn());
  auto OS = planReshard(P.Natural, Out, evenOn());
  if (!LS || !RS || !OS)
    return std::nullopt;
  P.LSteps = *LS;
  P.RSteps = *RS;
  P.OutSteps = *OS;
  const MeshSpec &Mesh = *M->Mesh;
  P.Compute = estimateContraction(P.L, P.R, P.Natural, Op.ContractDims, Mesh);
  P.Comms = stepsTime(P.LSteps, Mesh, Ctx->Cache) +
            stepsTime(P.RSteps, Mesh, Ctx->Cache) +
            stepsTime(P.OutSteps, Mesh, Ctx->Cache);
  P.Time = combineTime(P.Compute.time(), P.Comms, M->Config.Overlap);
  P.Collectives = countCollectives(P.LSteps) + countCollectives(P.RSteps) +
                  countCollectives(P.OutSteps);
  return P;
}

std::string InsertCollectives::describe(const Plan &P,
                                        const Operation &Op) const {
  const MeshSpec &Mesh = *M->Mesh;
  std::vector<std::string> Parts;
  auto Add = [&](const ReshardSteps &Steps, const std::string &Name) {
    for (const ReshardStep &S : Steps) {
      std::vector<std::string> Axes;
      for (unsigned A : S.Axes)
        Axes.push_back(Mesh.Axes[A].Name);
      std::string Kind = S.Kind == OpKind::Slice
                             ? "slice"
                             : collectiveName(collectiveKindOf(S.Kind)).str();
      Parts.push_back(
          fmt::format("{} '{}' over {}", Kind, Name, llvm::join(Axes, ",")));
    }
  };
  Add(P.LSteps, Op.Operands[0]->Name);
  Add(P.RSteps, Op.Operands[1]->Name);
  Add(P.OutSteps, Op.Result->Name);
  return Parts.empty() ? "local product" : llvm::join(Parts, ", then ");
}

bool InsertCollectives::contraction(
    Operation &Op, std::vector<std::unique_ptr<Operation>> &Out) {
  std::vector<Decision> Ds =
      decisions(Op.Operands[0]->Type, Op.Operands[1]->Type, Op.ContractDims);
  // Enumerate every combination of options (mixed radix), up to MaxPlans;
  // past that only the first option of each decision is tried.
  uint64_t Count = 1;
  for (const Decision &D : Ds)
    Count = std::min<uint64_t>(Count * D.Options.size(), MaxPlans + 1);
  if (Count > MaxPlans)
    for (Decision &D : Ds)
      D.Options.resize(1), Count = 1;
  std::vector<Plan> Plans;
  llvm::SmallVector<unsigned, 8> Pick(Ds.size(), 0);
  for (uint64_t N = 0; N < Count; ++N) {
    uint64_t Rest = N;
    for (size_t I = 0; I < Ds.size(); ++I) {
      Pick[I] = Rest % Ds[I].Options.size();
      Rest /= Ds[I].Options.size();
    }
    if (std::optional<Plan> P = makePlan(Op, Ds, Pick))
      Plans.push_back(std::move(*P));
  }
  const MeshSpec &Mesh = *M->Mesh;
  if (Plans.empty()) {
    Ctx->Diags.report(Op.Loc, diag::NoContractionPlan,
                      Op.Result->Type.str(Mesh), Op.Operands[0]->Type.str(Mesh),
                      Op.Operands[1]->Type.str(Mesh));
    return false;
  }
  auto Better = [](const Plan &A, const Plan &B) {
    double Tol = 1e-12 * std::max(A.Time, B.Time);
    if (std::abs(A.Time - B.Time) > Tol)
      return A.Time < B.Time;
    return A.Collectives < B.Collectives;
  };
  std::stable_sort(Plans.begin(), Plans.end(), Better);
  const Plan &Best = Plans.front();
  Statement &St = M->Statements[Op.Stmt];
  St.Choice = describe(Best, Op);
  if (Plans.size() > 1) {
    St.Rejected = describe(Plans[1], Op);
    St.RejectedTime = Plans[1].Time;
    Op.Remarks.push_back(fmt::format(
        "chose {} (op time {}) over {} (op time {})", St.Choice,
        formatTime(Best.Time), St.Rejected, formatTime(Plans[1].Time)));
  }
  Value *L = emit(Op.Operands[0], Best.LSteps, Op, nullptr, Out);
  Value *R = emit(Op.Operands[1], Best.RSteps, Op, nullptr, Out);
  Value *Final = Op.Result;
  auto Product = std::make_unique<Operation>(OpKind::Contraction);
  Product->Loc = Op.Loc;
  Product->Stmt = Op.Stmt;
  Product->Operands = {L, R};
  Product->ContractDims = Op.ContractDims;
  Product->Remarks = std::move(Op.Remarks);
  Value *Natural =
      Best.OutSteps.empty()
          ? Final
          : M->newValue(Final->Name + (Best.Natural.Unreduced.empty()
                                           ? ".local"
                                           : ".partial"),
                        Best.Natural, Product.get());
  Natural->Def = Product.get();
  Natural->Type = Best.Natural;
  Product->Result = Natural;
  Out.push_back(std::move(Product));
  emit(Natural, Best.OutSteps, Op, Final, Out);
  return true;
}

bool InsertCollectives::elementwise(
    std::unique_ptr<Operation> Op,
    std::vector<std::unique_ptr<Operation>> &Out) {
  ShardType Natural = Op->Operands[0]->Type;
  Natural.Elt = Op->Result->Type.Elt;
  std::optional<ReshardSteps> Steps =
      planReshard(Natural, Op->Result->Type, evenOn());
  if (!Steps) {
    Ctx->Diags.report(Op->Loc, diag::NoReshardPlan, Natural.str(*M->Mesh),
                      Op->Result->Type.str(*M->Mesh));
    return false;
  }
  // The op computes in its operands' sharding; the written type follows.
  Value *Final = Op->Result;
  if (!Steps->empty())
    Op->Result = M->newValue(Final->Name + ".local", Natural, Op.get());
  Operation &Self = *Out.emplace_back(std::move(Op));
  emit(Self.Result, *Steps, Self, Final, Out);
  return true;
}

bool InsertCollectives::reshard(Operation &Op,
                                std::vector<std::unique_ptr<Operation>> &Out) {
  std::optional<ReshardSteps> Steps =
      planReshard(Op.Operands[0]->Type, Op.Result->Type, evenOn());
  if (!Steps) {
    Ctx->Diags.report(Op.Loc, diag::NoReshardPlan,
                      Op.Operands[0]->Type.str(*M->Mesh),
                      Op.Result->Type.str(*M->Mesh));
    return false;
  }
  if (Steps->empty()) {
    // Nothing moves: the result is a view of the operand.
    ReshardStep View{OpKind::Slice,  {}, -1, -1, Op.Operands[0]->Type,
                     Op.Result->Type};
    Steps->push_back(View);
  }
  emit(Op.Operands[0], *Steps, Op, Op.Result, Out);
  return true;
}

} // namespace

std::unique_ptr<Pass> shardc::createInsertCollectivesPass() {
  return std::make_unique<InsertCollectives>();
}
