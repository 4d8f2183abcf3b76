//===- Serve.cpp - The serving instances and their arithmetic -------------===//
//
// docs/inference.md §"Cost rules": each instance is compile(checked,
// Layout) with the phase dims bound; the head (the statements after the
// last top-level `repeat`) runs on the last position in prefill, so it is
// read from a second compile with new = 1. Everything else here is the
// engine arithmetic over the instances' statement costs.
//
//===----------------------------------------------------------------------===//
#include "serve/Serve.h"
#include "diag/Diagnostic.h"
#include "ir/ModelOps.h"
#include "support/Format.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>

using namespace shardc;

llvm::StringRef shardc::serveBoundName(ServeBound B) {
  switch (B) {
  case ServeBound::Compute:
    return "compute";
  case ServeBound::Memory:
    return "memory";
  case ServeBound::Comms:
    return "comms";
  case ServeBound::Latency:
    return "latency";
  }
  llvm_unreachable("every bound is named");
}

namespace {

class Engine {
public:
  Engine(const Module &Checked, const ServeSpec &S, const MeshSpec &Mesh,
         DiagnosticEngine &Diags)
      : Checked(Checked), S(S), Mesh(Mesh), Diags(Diags),
        Chip(Mesh.Cluster->Chip) {}

  llvm::Expected<std::optional<ServeResult>> run();

private:
  /// The program at batch \p B, \p New new tokens, \p Ctx context; null
  /// after reporting a problem of the program at those sizes.
  llvm::Expected<std::unique_ptr<MeshCompile>>
  compileAt(int64_t B, int64_t New, int64_t Ctx, const MeshSpec *On = nullptr);
  /// The instance from \p Full, its head rows from \p Head when given.
  ServeInstance instance(llvm::StringRef Phase, int64_t B, int64_t New,
                         double Ctx, const MeshCompile &Full,
                         const MeshCompile *Head) const;
  /// Decode at batch \p B (the mean context: two compiles when it is
  /// fractional); \p Keep receives the compile at the lower context.
  llvm::Expected<std::optional<ServeInstance>>
  decode(int64_t B, std::unique_ptr<MeshCompile> *Keep = nullptr,
         int64_t New = 1);
  llvm::Expected<std::optional<ServeInstance>>
  prefill(int64_t B, std::unique_ptr<MeshCompile> *Keep = nullptr);
  bool isResident(const Value *V) const;
  bool hasPhaseDim(const ShardType &T) const;
  bool isWeight(const Value *V) const;
  std::vector<std::pair<double, double>>
  statementBytes(const MeshCompile &C) const;
  /// The mixed step of continuous batching: \p Dec plus \p W of \p Pre.
  ServeInstance mixedStep(const ServeInstance &Dec, const ServeInstance &Pre,
                          double W) const;
  /// Bytes per chip of every cache at batch \p B and the capacity.
  double kvBytes(int64_t B) const { return kvBytes(B, S.capacity(), Mesh); }
  /// Bytes per chip of every cache at batch \p B and context \p Ctx on
  /// \p On.
  double kvBytes(int64_t B, int64_t Ctx, const MeshSpec &On) const;
  /// Disaggregated: the time one prompt's cache takes across the link.
  double kvTransfer() const;
  double weightBytes() const;
  ServeMemory memory(int64_t B, const ServeInstance &Dec,
                     const ServeInstance &Pre) const;
  int64_t batchQuantum() const;
  void constants(ServeResult &R, const ServeInstance &DecQ,
                 const ServeInstance &Dec2Q, int64_t Q) const;
  /// Everything at one batch: its instances, memory and the mode's times.
  struct AtBatch {
    ServeInstance Dec, Pre, Step;
    std::optional<ServeInstance> Verify; ///< speculating
    ServeMemory Mem;
    double Tpot, Ttft, Rps;
    double Pass = 0;  ///< speculating: g drafts and a verify
    double Chips = 1; ///< the chips one replica's tokens count over
  };
  using AtFn = std::function<llvm::Expected<const AtBatch *>(int64_t)>;
  /// The largest batch (a multiple of \p Q) whose memory fits, from the
  /// memory at Q (\p M1) and 2Q (\p M2).
  llvm::Expected<std::optional<int64_t>> maxBatch(const AtFn &At,
                                                  const ServeMemory &M1,
                                                  const ServeMemory &M2,
                                                  int64_t Q) const;
  void reportNoFit(int64_t B, const ServeMemory &M, bool Nothing) const;

  const Module &Checked;
  const ServeSpec &S;
  const MeshSpec &Mesh;
  DiagnosticEngine &Diags;
  const ChipSpec &Chip;
  std::vector<bool> HeadStmt;
};

bool Engine::hasPhaseDim(const ShardType &T) const {
  for (const TensorDim &D : T.Dims)
    for (const std::optional<DimId> &P : S.Dims)
      if (P && *P == D.Id)
        return true;
  return false;
}

/// Params, caches (and what `append` returns: the cache), tensors without
/// a phase dim, and views of them: in HBM across steps.
bool Engine::isResident(const Value *V) const {
  const Op *D = V->def();
  if (!D)
    return false;
  if (llvm::isa<ParamOp, AppendOp>(D))
    return true;
  if (auto *In = llvm::dyn_cast<InputOp>(D))
    return In->isCache() || !hasPhaseDim(V->type());
  if (llvm::isa<ViewOp>(D))
    return isResident(D->operand(0));
  return false;
}

/// A param or a tensor without a phase dim (and views of them).
bool Engine::isWeight(const Value *V) const {
  const Op *D = V->def();
  if (auto *In = llvm::dyn_cast_or_null<InputOp>(D))
    return !In->isCache() && !hasPhaseDim(V->type());
  if (llvm::isa_and_nonnull<ViewOp>(D))
    return isWeight(D->operand(0));
  return llvm::isa_and_nonnull<ParamOp>(D);
}

llvm::Expected<std::unique_ptr<MeshCompile>>
Engine::compileAt(int64_t B, int64_t New, int64_t Ctx, const MeshSpec *On) {
  Layout L{On ? *On : Mesh, DimSizeMap(), std::nullopt, nullptr};
  const int64_t Sizes[NumPhaseDims] = {B, New, Ctx};
  for (unsigned K = 0; K < NumPhaseDims; ++K)
    if (S.Dims[K])
      L.Dims[*S.Dims[K]] = Sizes[K];
  auto C = compile(Checked, L, Diags);
  // A problem of the program at these sizes (a dim its axes do not divide)
  // was reported where it is written: the compile's error only says so.
  if (Diags.hasErrors()) {
    if (!C)
      llvm::consumeError(C.takeError());
    return nullptr;
  }
  if (!C)
    return C.takeError();
  return std::move(*C);
}

/// Per statement of \p C: its non-resident bytes (operands and result,
/// gathered values included) and its weights' bytes (the params and
/// phase-free tensors it reads), each value once.
std::vector<std::pair<double, double>>
Engine::statementBytes(const MeshCompile &C) const {
  std::vector<std::pair<double, double>> Bytes(Checked.info().Statements.size(),
                                               {0.0, 0.0});
  std::vector<llvm::SmallPtrSet<const Value *, 8>> Seen(Bytes.size());
  auto Add = [&](unsigned St, const Value *V) {
    if (St >= Bytes.size() || !Seen[St].insert(V).second)
      return;
    double B = V->type().localBytes(C.mesh());
    if (!isResident(V))
      Bytes[St].first += B;
    else if (isWeight(V))
      Bytes[St].second += B;
  };
  walk(C.lowered()->body(), [&](const Op &O) {
    if (O.stmt() == NoStmt || llvm::isa<InputOp, ParamOp>(O))
      return;
    for (const Value *V : O.operands())
      Add(O.stmt(), V);
    if (O.result())
      Add(O.stmt(), O.result());
  });
  return Bytes;
}

/// Each statement's collectives: their latency and bandwidth terms.
static std::vector<std::pair<double, double>> commsOf(const MeshCompile &C) {
  std::vector<std::pair<double, double>> Out(
      C.checked().info().Statements.size(), {0.0, 0.0});
  walk(C.lowered()->body(), [&](const Op &O) {
    if (O.stmt() == NoStmt || O.id() >= C.Tables.Collectives.size())
      return;
    if (const auto &Cc = C.Tables.Collectives[O.id()]) {
      Out[O.stmt()].first += Cc->LatencyTime;
      Out[O.stmt()].second += Cc->Time - Cc->LatencyTime;
    }
  });
  return Out;
}

/// A row's bound: the cost model's, and `latency` for a comms-bound row
/// whose collectives' latency outweighs their bandwidth time.
static ServeBound rowBound(const ServeRow &R) {
  return R.Cost.Bounded == Bound::Compute  ? ServeBound::Compute
         : R.Cost.Bounded == Bound::Memory ? ServeBound::Memory
         : R.Latency > R.Bandwidth         ? ServeBound::Latency
                                           : ServeBound::Comms;
}

/// The instance's totals from its rows (repeats applied).
static void addUp(ServeInstance &I) {
  I.Time = I.TMath = I.THbm = I.TComms = I.Latency = I.Bandwidth = 0;
  I.Workspace = 0;
  std::fill(std::begin(I.ClassTime), std::end(I.ClassTime), 0.0);
  for (ServeRow &R : I.Rows) {
    R.Bound = rowBound(R);
    double N = double(R.Repeat);
    I.Time += R.Cost.Time * N;
    I.TMath += R.Cost.TMath * N;
    I.THbm += R.Cost.THbm * N;
    I.TComms += R.Cost.TComms * N;
    I.ClassTime[unsigned(R.Bound)] += R.Cost.Time * N;
    I.Latency += R.Latency * N;
    I.Bandwidth += R.Bandwidth * N;
    I.Workspace = std::max(I.Workspace, R.Workspace);
  }
  unsigned Best = 0;
  for (unsigned K = 1; K < NumServeBounds; ++K)
    if (I.ClassTime[K] > I.ClassTime[Best])
      Best = K;
  I.Bound = ServeBound(Best);
}

ServeInstance Engine::instance(llvm::StringRef Phase, int64_t B, int64_t New,
                               double Ctx, const MeshCompile &Full,
                               const MeshCompile *Head) const {
  ServeInstance I;
  I.Phase = Phase.str();
  I.Batch = B;
  I.New = New;
  I.Context = Ctx;
  auto BytesFull = statementBytes(Full), CommsFull = commsOf(Full);
  decltype(BytesFull) BytesHead, CommsHead;
  if (Head) {
    BytesHead = statementBytes(*Head);
    CommsHead = commsOf(*Head);
  }
  const auto &Stmts = Checked.info().Statements;
  for (unsigned St = 0; St < Stmts.size(); ++St) {
    bool FromHead = Head && St < HeadStmt.size() && HeadStmt[St];
    const MeshCompile &C = FromHead ? *Head : Full;
    const std::optional<OpCost> &Cost = C.Tables.StatementCosts[St];
    if (!Cost || Stmts[St].Kind == OpKind::Input ||
        Stmts[St].Kind == OpKind::Param)
      continue;
    ServeRow R;
    R.Stmt = St;
    R.Repeat = Stmts[St].Repeat;
    R.Cost = *Cost;
    R.Head = FromHead;
    std::tie(R.Latency, R.Bandwidth) = (FromHead ? CommsHead : CommsFull)[St];
    auto [Ws, Weights] = (FromHead ? BytesHead : BytesFull)[St];
    R.Workspace = Ws;
    // The weights a contraction reads whole: read once however many tokens
    // a step carries. (An embedding reads a row per token: its table's
    // bytes grow with them.)
    if (Stmts[St].Kind == OpKind::Contraction && Cost->HbmBytes > 0)
      R.WeightHbm = Cost->THbm * std::min(1.0, Weights / Cost->HbmBytes);
    I.Rows.push_back(R);
  }
  addUp(I);
  return I;
}

/// \p A and \p B (one program at two contexts) mixed with weight \p W on
/// B: the costs that are linear in the context, at a context between.
static ServeInstance mix(ServeInstance A, const ServeInstance &B, double W) {
  auto Lerp = [W](double X, double Y) { return X + (Y - X) * W; };
  for (size_t K = 0; K < A.Rows.size() && K < B.Rows.size(); ++K) {
    ServeRow &R = A.Rows[K];
    const ServeRow &Q = B.Rows[K];
    OpCost &C = R.Cost;
    const OpCost &D = Q.Cost;
    C.Time = Lerp(C.Time, D.Time);
    C.TMath = Lerp(C.TMath, D.TMath);
    C.THbm = Lerp(C.THbm, D.THbm);
    C.TComms = Lerp(C.TComms, D.TComms);
    C.Flops = Lerp(C.Flops, D.Flops);
    C.HbmBytes = Lerp(C.HbmBytes, D.HbmBytes);
    R.Latency = Lerp(R.Latency, Q.Latency);
    R.Bandwidth = Lerp(R.Bandwidth, Q.Bandwidth);
    R.Workspace = std::max(R.Workspace, Q.Workspace);
  }
  A.Context = Lerp(A.Context, B.Context);
  addUp(A);
  return A;
}

ServeInstance Engine::mixedStep(const ServeInstance &Dec,
                                const ServeInstance &Pre, double W) const {
  // Decode at its batch plus W of one prompt's prefill, statement by
  // statement: FLOPs and every byte but the weights' add (the weights are
  // read once), each collective moves both volumes under one latency.
  ServeInstance I = Dec;
  I.Phase = "step";
  for (size_t K = 0; K < I.Rows.size() && K < Pre.Rows.size(); ++K) {
    ServeRow &R = I.Rows[K];
    const ServeRow &P = Pre.Rows[K];
    OpCost &C = R.Cost;
    C.Flops += W * P.Cost.Flops;
    C.HbmBytes += W * P.Cost.HbmBytes;
    C.TMath += W * P.Cost.TMath;
    C.THbm += W * (P.Cost.THbm - P.WeightHbm);
    C.TSerial += W * P.Cost.TSerial;
    C.TComms += W * P.Bandwidth;
    finishCost(C, Checked.config().Overlap);
    R.Bandwidth += W * P.Bandwidth;
    R.Workspace += W * P.Workspace;
  }
  addUp(I);
  return I;
}

llvm::Expected<std::optional<ServeInstance>>
Engine::decode(int64_t B, std::unique_ptr<MeshCompile> *Keep, int64_t New) {
  // New > 1: speculation's verify, g + 1 tokens over the same context.
  const char *Phase = New > 1 ? "verify" : "decode";
  double Mean = S.meanContext();
  int64_t Lo = int64_t(std::floor(Mean));
  auto C = compileAt(B, New, Lo);
  if (!C)
    return C.takeError();
  if (!*C)
    return std::nullopt;
  ServeInstance I = instance(Phase, B, New, double(Lo), **C, nullptr);
  if (double(Lo) != Mean) {
    // G odd: S̄ is a half; the costs linear in the context are the mean of
    // the two contexts around it.
    auto Hi = compileAt(B, New, Lo + 1);
    if (!Hi)
      return Hi.takeError();
    if (!*Hi)
      return std::nullopt;
    I = mix(I, instance(Phase, B, New, double(Lo + 1), **Hi, nullptr),
            Mean - double(Lo));
  }
  if (Keep)
    *Keep = std::move(*C);
  return I;
}

llvm::Expected<std::optional<ServeInstance>>
Engine::prefill(int64_t B, std::unique_ptr<MeshCompile> *Keep) {
  // Disaggregated, prefill runs on its own pool.
  const MeshSpec *On = S.PrefillMesh ? &*S.PrefillMesh : nullptr;
  auto Full = compileAt(B, S.Prompt, S.Prompt, On);
  if (!Full)
    return Full.takeError();
  if (!*Full)
    return std::nullopt;
  std::unique_ptr<MeshCompile> Head;
  if (llvm::is_contained(HeadStmt, true) && S.Prompt > 1) {
    auto H = compileAt(B, 1, S.Prompt, On);
    if (!H)
      return H.takeError();
    if (!*H)
      return std::nullopt;
    Head = std::move(*H);
  }
  ServeInstance I =
      instance("prefill", B, S.Prompt, double(S.Prompt), **Full, Head.get());
  if (Keep)
    *Keep = std::move(*Full);
  return I;
}

double Engine::kvBytes(int64_t B, int64_t Ctx, const MeshSpec &On) const {
  double Bytes = 0;
  walk<InputOp>(Checked.body(), [&](const InputOp &In) {
    if (!In.isCache())
      return;
    ShardType T = In.result()->type();
    DimSizeMap Sizes;
    Sizes[*S.Dims[0]] = B;
    Sizes[*S.Dims[2]] = Ctx;
    T.rebind(Sizes);
    Bytes += T.localBytes(On) * double(Checked.statement(In.stmt()).Repeat);
  });
  return Bytes;
}

double Engine::kvTransfer() const {
  // Each unit of the level below the link sends the cache of one prompt
  // that its prefill chips hold through its uplink into the link level.
  const MeshSpec &Pre = *S.PrefillMesh;
  const LevelSpec &Link = Mesh.Cluster->Levels[S.LinkLevel];
  int64_t N = Pre.numChips();
  double PerChip = kvBytes(N, S.Prompt, Pre) / double(N);
  int64_t Unit = 1;
  for (unsigned L = 0; L < S.LinkLevel; ++L)
    Unit *= Mesh.Cluster->Levels[L].Size;
  double Bytes = PerChip * double(std::min(Unit, N));
  return Bytes / (Link.uplink() * Link.Calibration.Efficiency) +
         Link.Calibration.Latency;
}

double Engine::weightBytes() const {
  double Bytes = 0;
  walk(Checked.body(), [&](const Op &O) {
    auto *In = llvm::dyn_cast<InputOp>(&O);
    bool Weight = llvm::isa<ParamOp>(O) ||
                  (In && !In->isCache() && !hasPhaseDim(O.result()->type()));
    if (Weight)
      Bytes += O.result()->type().localBytes(Mesh) *
               double(Checked.statement(O.stmt()).Repeat);
  });
  return Bytes;
}

ServeMemory Engine::memory(int64_t B, const ServeInstance &Dec,
                           const ServeInstance &Pre) const {
  ServeMemory M;
  M.Weights = weightBytes();
  M.Kv = kvBytes(B);
  M.Workspace = std::max(Dec.Workspace, Pre.Workspace);
  M.Total = M.Weights + M.Kv + M.Workspace;
  M.Usable = Chip.HbmBytes * S.HbmUsable;
  return M;
}

/// The least common multiple of the axes that shard the batch dim in any
/// type of the program: every batch is a multiple of it.
int64_t Engine::batchQuantum() const {
  int64_t Q = 1;
  if (!S.Dims[0])
    return Q;
  walk(Checked.body(), [&](const Op &O) {
    if (!O.result())
      return;
    const ShardType &T = O.result()->type();
    if (auto I = T.dimIndex(*S.Dims[0])) {
      int64_t P = 1;
      for (AxisId A : T.Dims[*I].Axes)
        P *= Mesh.Axes[A].Size;
      Q = std::lcm(Q, P);
    }
  });
  return Q;
}

void Engine::constants(ServeResult &R, const ServeInstance &DecQ,
                       const ServeInstance &Dec2Q, int64_t Q) const {
  // B_crit per (weight dtype, compute dtype) pair of the contractions that
  // read a param.
  std::map<std::pair<unsigned, unsigned>, double> Pairs;
  walk<ContractionOp>(Checked.body(), [&](const ContractionOp &O) {
    for (unsigned K = 0; K < 2; ++K) {
      const Op *D = O.operand(K)->def();
      if (!llvm::isa<ParamOp>(D))
        continue;
      DType W = O.operand(K)->type().Elt;
      DType Math = O.mathDType().value_or(O.operand(0)->type().Elt);
      Pairs[{unsigned(W), unsigned(Math)}] +=
          O.operand(K)->type().localBytes(Mesh) *
          double(Checked.statement(D->stmt()).Repeat);
    }
  });
  for (auto &[Key, Bytes] : Pairs) {
    BatchCrit C;
    C.Weights = DType(Key.first);
    C.Compute = DType(Key.second);
    C.WeightBytes = Bytes;
    C.Batch = Chip.matmulPeak(C.Compute) * Chip.matmulCeiling(C.Compute) *
              double(dtypeBytes(C.Weights)) /
              (2 * Chip.HbmBw * Chip.HbmEfficiency);
    R.Crit.push_back(C);
  }
  llvm::stable_sort(R.Crit, [](const BatchCrit &A, const BatchCrit &B) {
    return A.WeightBytes > B.WeightBytes;
  });
  // B_lat: the decode collectives' bandwidth terms grow with the batch
  // (a line through batches Q and 2Q: a gathered weight's part does not
  // grow), their latency does not.
  if (DecQ.Latency > 0 || DecQ.Bandwidth > 0) {
    double PerRow = (Dec2Q.Bandwidth - DecQ.Bandwidth) / double(Q);
    double Fixed = DecQ.Bandwidth - PerRow * double(Q);
    double X = PerRow > 0 ? (DecQ.Latency - Fixed) / PerRow : INFINITY;
    R.BLat = DecQ.Latency <= Fixed           ? 0
             : !std::isfinite(X) || X > 1e15 ? int64_t(1e15)
                                             : int64_t(std::ceil(X)) - 1;
  }
  // KV bytes per token and per sequence.
  double PerTokenGlobal = 0;
  walk<InputOp>(Checked.body(), [&](const InputOp &In) {
    if (!In.isCache())
      return;
    ShardType T = In.result()->type();
    DimSizeMap Sizes;
    Sizes[*S.Dims[0]] = 1;
    Sizes[*S.Dims[2]] = 1;
    T.rebind(Sizes);
    PerTokenGlobal += T.globalElements() * double(dtypeBytes(T.Elt)) *
                      double(Checked.statement(In.stmt()).Repeat);
  });
  int64_t N = Mesh.numChips() * Q;
  R.KvPerSequenceChip = kvBytes(N) / double(N);
  R.KvPerTokenChip = R.KvPerSequenceChip / double(S.capacity());
  R.KvPerToken = PerTokenGlobal;
  R.KvPerSequence = PerTokenGlobal * double(S.capacity());
}

void Engine::reportNoFit(int64_t B, const ServeMemory &M, bool Nothing) const {
  std::string Need = formatAmount(M.Total, "B"),
              Has = formatAmount(M.Usable, "B");
  if (Nothing)
    Diags.report(S.BatchAt, diag::ServeNothingFits, B, Need, Chip.Name, Has);
  else
    Diags.report(S.BatchAt, diag::ServeBatchNoFit, B, Need, Chip.Name, Has);
  std::pair<double, const char *> Terms[] = {
      {M.Kv, "KV"}, {M.Weights, "weights"}, {M.Workspace, "workspace"}};
  llvm::stable_sort(Terms, [](auto &A, auto &B) { return A.first > B.first; });
  for (auto &[Bytes, Name] : Terms) {
    if (Bytes <= 0)
      continue;
    std::string Hint =
        Name == std::string("KV")
            ? "a smaller batch, a shorter prompt or output, or an fp8 cache "
              "shrinks it; sharding the cache's heads or batch over more "
              "chips too"
        : Name == std::string("weights")
            ? "shard the params over more chips (tensor parallelism), or "
              "store them in fp8"
            : "a smaller batch (or prompt, in prefill) shrinks it";
    Diags.report(S.BatchAt, diag::ServeMemoryTerm, std::string(Name),
                 formatAmount(Bytes, "B"), Hint);
  }
}

llvm::Expected<std::optional<ServeResult>> Engine::run() {
  // The head: the statements after the last top-level repeat.
  HeadStmt.assign(Checked.info().Statements.size(), false);
  const Op *LastRepeat = nullptr;
  for (const auto &O : Checked.body().ops())
    if (llvm::isa<RepeatOp>(O.get()))
      LastRepeat = O.get();
  if (LastRepeat) {
    bool After = false;
    for (const auto &O : Checked.body().ops()) {
      if (O.get() == LastRepeat) {
        After = true;
        continue;
      }
      if (After && O->stmt() != NoStmt && O->stmt() < HeadStmt.size())
        HeadStmt[O->stmt()] = true;
    }
  }
  ServeResult R;
  R.Spec = S;
  R.Chips = Mesh.numChips();
  int64_t Q = batchQuantum();
  // Every batch is a multiple of Q: a number written is checked, a range's
  // entries are rounded up.
  std::vector<int64_t> Written;
  for (int64_t B : S.Batches) {
    if (B % Q == 0 || S.BatchRange) {
      Written.push_back((B + Q - 1) / Q * Q);
      continue;
    }
    Diags.report(S.BatchAt, diag::ServeBatchQuantum, B, Q,
                 Checked.names().Dims[*S.Dims[0]]);
    return std::nullopt;
  }
  bool Static = S.Mode == ServeMode::Static;
  bool Continuous = S.Mode == ServeMode::Continuous;
  bool Disagg = S.Mode == ServeMode::Disaggregated;
  double TKv = Disagg ? kvTransfer() : 0;
  double G1 = double(S.Output - 1), P = double(S.Prompt);
  // Continuous batching: a step carries B·P/(G − 1) prefill tokens, at
  // most `chunk` (unlimited: a whole prompt).
  double Chunk = S.Chunk ? double(*S.Chunk) : P;
  // Speculating, a pass advances a sequence Tau tokens.
  const auto &Spec = S.Speculate;
  double Tau = Spec ? Spec->tokensPerPass() : 1;

  // One prompt's prefill (every mode but static reads it), and decode at
  // the quantum: the constants and B_mem's first estimate.
  auto Pre1 = prefill(Static ? Q : 1);
  if (!Pre1)
    return Pre1.takeError();
  auto DecQ = decode(Q);
  if (!DecQ)
    return DecQ.takeError();
  if (!*Pre1 || !*DecQ)
    return std::nullopt;
  if (!(DecQ->value().Time > 0)) {
    Diags.report(S.At, diag::ServeNothingToCost);
    return std::nullopt;
  }

  // Everything at one batch: its instances, memory and the mode's times
  // (docs/inference.md, "Engine modes").
  std::map<int64_t, AtBatch> Cache;
  auto At = [&](int64_t B) -> llvm::Expected<const AtBatch *> {
    auto It = Cache.find(B);
    if (It != Cache.end())
      return &It->second;
    auto D = decode(B);
    if (!D)
      return D.takeError();
    if (!*D)
      return nullptr;
    AtBatch A{**D, **Pre1, {}, std::nullopt, {}, 0, 0, 0};
    if (Static && B != Q) {
      auto Pb = prefill(B);
      if (!Pb)
        return Pb.takeError();
      if (!*Pb)
        return nullptr;
      A.Pre = **Pb;
    }
    // The step a sequence advances by: decode, or a speculative pass's
    // verify (its g drafts added below).
    double Drafts = 0;
    if (Spec) {
      auto V = decode(B, nullptr, Spec->Tokens + 1);
      if (!V)
        return V.takeError();
      if (!*V)
        return nullptr;
      A.Verify = **V;
      Drafts = double(Spec->Tokens) *
               (Spec->DraftIsTime ? Spec->Draft : Spec->Draft * A.Dec.Time);
    }
    const ServeInstance &Adv = A.Verify ? *A.Verify : A.Dec;
    if (Continuous) {
      A.Step = mixedStep(Adv, A.Pre, double(B) * Tau / G1);
      ServeInstance First = mixedStep(Adv, A.Pre, std::min(Chunk, P) / P);
      A.Mem = memory(B, A.Step, First);
      A.Pass = Drafts + A.Step.Time;
      A.Tpot = A.Pass / Tau;
      A.Ttft = std::ceil(P / Chunk) * First.Time;
    } else {
      // Disaggregated: the decode pool holds no prefill's workspace, and a
      // request waits for its cache to cross the link.
      A.Mem = memory(B, Adv, Disagg ? Adv : A.Pre);
      A.Pass = Drafts + Adv.Time;
      A.Tpot =
          A.Pass / Tau + (Static || Disagg ? 0 : double(B) / G1 * A.Pre.Time);
      A.Ttft = A.Pre.Time + TKv;
    }
    A.Rps =
        Static ? double(B) / (A.Ttft + G1 * A.Tpot) : double(B) / (G1 * A.Tpot);
    // The chips a replica's tokens count over: disaggregated, the decode
    // pool and r = T_pre(1) x requests/s prefill pools.
    A.Chips = double(R.Chips);
    if (Disagg)
      A.Chips += A.Pre.Time * A.Rps * double(S.PrefillMesh->numChips());
    return &Cache.emplace(B, std::move(A)).first->second;
  };

  // B_mem: from the affine estimate at Q and 2Q, then checked by compiles.
  auto A1 = At(Q);
  if (!A1)
    return A1.takeError();
  auto A2 = At(2 * Q);
  if (!A2)
    return A2.takeError();
  if (!*A1 || !*A2)
    return std::nullopt;
  constants(R, (*A1)->Dec, (*A2)->Dec, Q);
  const ServeMemory &M1 = (*A1)->Mem, &M2 = (*A2)->Mem;
  if (!M1.fits()) {
    reportNoFit(Q, M1, /*Nothing=*/true);
    return std::nullopt;
  }
  auto BMem = maxBatch(At, M1, M2, Q);
  if (!BMem)
    return BMem.takeError();
  if (!*BMem)
    return std::nullopt;
  R.MaxBatch = **BMem;
  R.MaxBatchBound = "memory";
  int64_t ChunkLimit = int64_t(std::floor(Chunk * G1 / (P * Tau))) / Q * Q;
  if (Continuous && ChunkLimit < R.MaxBatch) {
    R.MaxBatch = std::max(Q, ChunkLimit);
    R.MaxBatchBound = "chunk";
  }
  if (S.MaxBatch && *S.MaxBatch < R.MaxBatch) {
    R.MaxBatch = std::max<int64_t>(Q, *S.MaxBatch / Q * Q);
    R.MaxBatchBound = "max_batch";
  }
  auto OverChunk = [&](int64_t B) { return Continuous && B > ChunkLimit; };

  // The batches the curve shows and the serving batch.
  std::vector<int64_t> Named = Written;
  if (S.BatchMax) {
    Named.push_back(R.MaxBatch);
    if (S.PowersFrom)
      for (int64_t B = 1; B < R.MaxBatch; B *= 2)
        if (B >= S.PowersFrom)
          Named.push_back(B);
  }
  llvm::sort(Named);
  Named.erase(std::unique(Named.begin(), Named.end()), Named.end());
  std::optional<int64_t> CritRow;
  if (!R.Crit.empty() && R.Crit.front().Batch >= 1 &&
      R.Crit.front().Batch < 1e9) {
    // Speculating, a step carries B·(g + 1) tokens.
    int64_t C = int64_t(
        std::ceil(R.Crit.front().Batch / double(Spec ? Spec->Tokens + 1 : 1)));
    CritRow = (C + Q - 1) / Q * Q;
  }
  std::vector<int64_t> Rows = Named;
  Rows.push_back(R.MaxBatch);
  if (CritRow)
    Rows.push_back(*CritRow);
  llvm::sort(Rows);
  Rows.erase(std::unique(Rows.begin(), Rows.end()), Rows.end());

  // The serving batch: the largest named that fits; none is an error.
  std::optional<int64_t> Serving;
  for (int64_t B : Named) {
    auto A = At(B);
    if (!A)
      return A.takeError();
    if (!*A)
      return std::nullopt;
    if ((*A)->Mem.fits() && !OverChunk(B))
      Serving = B;
  }
  if (!Serving) {
    int64_t B = Named.front();
    auto A = At(B);
    if (!A)
      return A.takeError();
    if (!*A)
      return std::nullopt;
    if (OverChunk(B) && (*A)->Mem.fits())
      Diags.report(S.BatchAt, diag::ServeChunkTooSmall, B,
                   formatSig4(double(B) * Tau * P / G1), int64_t(Chunk),
                   ChunkLimit);
    else
      reportNoFit(B, (**A).Mem, /*Nothing=*/false);
    return std::nullopt;
  }
  R.Batch = *Serving;

  for (int64_t B : Rows) {
    auto A = At(B);
    if (!A)
      return A.takeError();
    if (!*A)
      return std::nullopt;
    CurveRow Row;
    Row.Batch = B;
    Row.Tpot = (*A)->Tpot;
    Row.TokensPerChip = double(S.Output) * (*A)->Rps / (*A)->Chips;
    Row.Bound = Continuous ? (*A)->Step.Bound : (*A)->Dec.Bound;
    Row.Memory = (*A)->Mem;
    Row.OverChunk = OverChunk(B);
    Row.MarkCrit = CritRow && B == *CritRow;
    Row.MarkMax = B == R.MaxBatch;
    Row.MarkLat = R.BLat && B <= *R.BLat;
    R.Curve.push_back(Row);
  }

  // The serving batch's numbers, and its compiles kept for the report.
  int64_t B = R.Batch;
  auto A = At(B);
  if (!A)
    return A.takeError();
  auto Dec = decode(B, &R.DecodeCompile);
  if (!Dec)
    return Dec.takeError();
  auto Pre = prefill(Static ? B : 1, &R.PrefillCompile);
  if (!Pre)
    return Pre.takeError();
  if (!*A || !*Dec || !*Pre)
    return std::nullopt;
  R.Decode = (*A)->Dec;
  R.Prefill = (*A)->Pre;
  if (Continuous)
    R.Step = (*A)->Step;
  R.Verify = (*A)->Verify;
  if (Spec) {
    R.Tau = Tau;
    R.PassTime = (*A)->Pass;
  }
  R.Memory = (*A)->Mem;
  R.Tpot = (*A)->Tpot;
  R.Ttft = (*A)->Ttft;
  R.E2e = R.Ttft + G1 * R.Tpot;
  R.RequestsPerSecond = (*A)->Rps;
  R.TokensReplica = double(S.Output) * R.RequestsPerSecond;
  R.TokensSystem = R.TokensReplica * double(S.Replicas);
  R.TokensChip = R.TokensReplica / (*A)->Chips;
  if (Disagg) {
    R.KvTransfer = TKv;
    R.PoolRatio = R.Prefill.Time * R.RequestsPerSecond;
  }
  if (S.Price)
    R.CostPerMtok = *S.Price * 1e6 / (3600 * R.TokensChip);
  auto AMax = At(R.MaxBatch);
  if (!AMax)
    return AMax.takeError();
  if (!*AMax)
    return std::nullopt;
  const ServeMemory &MM = (*AMax)->Mem;
  R.LargestTerm = MM.Kv >= MM.Weights && MM.Kv >= MM.Workspace ? "KV"
                  : MM.Weights >= MM.Workspace                 ? "weights"
                                                               : "workspace";
  return std::optional<ServeResult>(std::move(R));
}

llvm::Expected<std::optional<int64_t>> Engine::maxBatch(const AtFn &At,
                                                        const ServeMemory &M1,
                                                        const ServeMemory &M2,
                                                        int64_t Q) const {
  // Memory only grows with the batch: the largest fitting multiple of Q is
  // found by bisection on real compiles, started at the line through Q and
  // 2Q (exact where the largest statement stays the largest).
  const int64_t Limit = ((int64_t(1) << 40) / Q) * Q;
  auto Fits = [&](int64_t B) -> llvm::Expected<std::optional<bool>> {
    auto A = At(B);
    if (!A)
      return A.takeError();
    if (!*A)
      return std::nullopt;
    return std::optional<bool>((*A)->Mem.fits());
  };
  double PerQ = M2.Total - M1.Total;
  double Steps = PerQ > 0 ? std::floor((M1.Usable - (M1.Total - PerQ)) / PerQ)
                          : double(Limit / Q);
  int64_t Lo = Q;
  int64_t Hi = std::clamp<int64_t>(int64_t(std::min(Steps, double(Limit / Q))),
                                   1, Limit / Q) *
               Q;
  auto F = Fits(Hi);
  if (!F)
    return F.takeError();
  if (!*F)
    return std::nullopt;
  if (**F) {
    // The estimate fits: grow until a batch does not (or the limit).
    Lo = Hi;
    Hi = std::min(Limit, Lo + Q);
    while (Lo < Limit) {
      auto Up = Fits(Hi);
      if (!Up)
        return Up.takeError();
      if (!*Up)
        return std::nullopt;
      if (!**Up)
        break;
      Lo = Hi;
      Hi = std::min(Limit, std::max(Lo + Q, (Lo * 2) / Q * Q));
    }
    if (Lo >= Limit)
      return std::optional<int64_t>(Limit);
  }
  while (Hi - Lo > Q) {
    int64_t Mid = std::max(Lo + Q, (Lo + (Hi - Lo) / 2) / Q * Q);
    auto M = Fits(Mid);
    if (!M)
      return M.takeError();
    if (!*M)
      return std::nullopt;
    (**M ? Lo : Hi) = Mid;
  }
  return std::optional<int64_t>(Lo);
}

} // namespace

llvm::Expected<std::optional<ServeResult>>
shardc::runServe(const Module &Checked, const ServeSpec &Spec,
                 const MeshSpec &Mesh, DiagnosticEngine &Diags) {
  Engine E(Checked, Spec, Mesh, Diags);
  return E.run();
}
