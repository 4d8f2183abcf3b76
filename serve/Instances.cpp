//===- Instances.cpp - One serving instance from its compiles -------------===//
//
// docs/inference.md, "Cost rules": an instance is compile(checked, Layout)
// with the phase dims bound; its rows are the statements' costs, with
// their collectives' latency and bandwidth terms, their workspace and the
// weights they read. The head runs on the last position in prefill (a
// second compile with new = 1); an odd output's mean context is the mean
// of two compiles; continuous batching's mixed step adds a share of a
// prefill to a decode, statement by statement.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "ir/ModelOps.h"
#include "serve/Engine.h"
#include "support/Format.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <algorithm>
#include <cmath>
#include <map>

using namespace shardc;

bool ServeEngine::hasPhaseDim(const ShardType &T) const {
  for (const TensorDim &D : T.Dims)
    for (const std::optional<DimId> &P : S.Dims)
      if (P && *P == D.Id)
        return true;
  return false;
}

/// Params, caches (and what `append` returns: the cache), tensors without
/// a phase dim, and views of them: in HBM across steps.
bool ServeEngine::isResident(const Value *V) const {
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
bool ServeEngine::isWeight(const Value *V) const {
  const Op *D = V->def();
  if (auto *In = llvm::dyn_cast_or_null<InputOp>(D))
    return !In->isCache() && !hasPhaseDim(V->type());
  if (llvm::isa_and_nonnull<ViewOp>(D))
    return isWeight(D->operand(0));
  return llvm::isa_and_nonnull<ParamOp>(D);
}

llvm::Expected<std::unique_ptr<MeshCompile>>
ServeEngine::compileAt(int64_t B, int64_t New, int64_t Ctx,
                       const MeshSpec *On) {
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
ServeEngine::statementBytes(const MeshCompile &C) const {
  std::vector<std::pair<double, double>> Bytes(Checked.info().Statements.size(),
                                               {0.0, 0.0});
  std::vector<llvm::SmallPtrSet<const Value *, 8>> Seen(Bytes.size());
  // \p Share: the part of a weight the op reads (an expert contraction
  // in decode reads the experts its tokens touch).
  auto Add = [&](unsigned St, const Value *V, double Share = 1) {
    if (St >= Bytes.size() || !Seen[St].insert(V).second)
      return;
    double B = V->type().localBytes(C.mesh());
    if (!isResident(V))
      Bytes[St].first += B;
    else if (isWeight(V))
      Bytes[St].second += B * Share;
  };
  walk(C.lowered()->body(), [&](const Op &O) {
    if (O.stmt() == NoStmt || llvm::isa<InputOp, ParamOp>(O))
      return;
    auto *Ct = llvm::dyn_cast<ContractionOp>(&O);
    for (unsigned K = 0; K < O.numOperands(); ++K)
      Add(O.stmt(), O.operand(K),
          Ct && Ct->expertShares() && Ct->expertShares()->Weight == K
              ? Ct->expertShares()->WeightShare
              : 1.0);
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

ServeInstance ServeEngine::instance(llvm::StringRef Phase, int64_t B,
                                    int64_t New, double Ctx,
                                    const MeshCompile &Full,
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

ServeInstance ServeEngine::mixedStep(const ServeInstance &Dec,
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

/// `context = exact`: \p A and \p B, the program at the first and the last
/// decode step's contexts, averaged over the \p Steps steps between (one a
/// context): each step's terms lie on the line through the two (FLOPs,
/// bytes and collectives are linear in the context), and each step's time
/// is the roofline of its own terms, so an op that changes bound along the
/// way is priced on both sides. The rest is the middle step's.
ServeInstance ServeEngine::average(const ServeInstance &A,
                                   const ServeInstance &B) const {
  const int64_t First = S.Prompt + 1, Last = S.Prompt + S.Output - 1;
  const int64_t Steps = Last - First + 1;
  const double Span = B.Context - A.Context;
  const bool Overlap = Checked.config().Overlap;
  ServeInstance M =
      mix(A, B, Span > 0 ? (S.meanContext() - A.Context) / Span : 0.0);
  M.Ends = {A, B};
  M.EndCtx[0] = A.Context;
  M.EndCtx[1] = B.Context;
  M.FirstCtx = First;
  M.LastCtx = Last;
  auto Lerp = [](double X, double Y, double W) { return X + (Y - X) * W; };
  for (size_t K = 0; K < M.Rows.size() && K < B.Rows.size(); ++K) {
    const OpCost &C = A.Rows[K].Cost, &D = B.Rows[K].Cost;
    // Each bound's share of the steps' time: the row is bound by the most.
    std::map<Bound, double> ByBound;
    double Sum = 0;
    for (int64_t I = 0; I < Steps; ++I) {
      // The compiles' contexts are multiples of the context's shards: the
      // steps between (and a little beyond) lie on their line.
      double W = Span > 0 ? (double(First + I) - A.Context) / Span : 0;
      OpCost At = C;
      At.TMath = Lerp(C.TMath, D.TMath, W);
      At.THbm = Lerp(C.THbm, D.THbm, W);
      At.FirstTHbm = Lerp(C.FirstTHbm, D.FirstTHbm, W);
      At.TSerial = Lerp(C.TSerial, D.TSerial, W);
      At.TComms = Lerp(C.TComms, D.TComms, W);
      finishCost(At, Overlap);
      Sum += At.Time;
      ByBound[At.Bounded] += At.Time;
    }
    M.Rows[K].Cost.Time = Sum / double(Steps);
    M.Rows[K].Cost.Bounded =
        std::max_element(ByBound.begin(), ByBound.end(), [](auto &X, auto &Y) {
          return X.second < Y.second;
        })->first;
  }
  addUp(M);
  return M;
}

llvm::Expected<std::optional<ServeInstance>>
ServeEngine::decode(int64_t B, std::unique_ptr<MeshCompile> *Keep,
                    int64_t New) {
  // New > 1: speculation's verify, g + 1 tokens over the same context.
  const char *Phase = New > 1 ? "verify" : "decode";
  if (S.ContextExact && S.Output > 2)
    return decodeExact(Phase, B, Keep, New);
  return decodeAtMean(Phase, B, Keep, New);
}

llvm::Expected<std::optional<ServeInstance>>
ServeEngine::decodeAtMean(const char *Phase, int64_t B,
                          std::unique_ptr<MeshCompile> *Keep, int64_t New) {
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
ServeEngine::decodeExact(const char *Phase, int64_t B,
                         std::unique_ptr<MeshCompile> *Keep, int64_t New) {
  // Step i (1 .. G - 1) attends P + i keys; the two compiles are at the
  // first and last of them that the context's shards divide.
  const int64_t Q = dimQuantum(2);
  const int64_t First = (S.Prompt + 1 + Q - 1) / Q * Q,
                Last = (S.Prompt + S.Output - 1) / Q * Q;
  if (First >= Last)
    return decodeAtMean(Phase, B, Keep, New);
  ServeInstance Ends[2];
  for (int K = 0; K < 2; ++K) {
    int64_t Ctx = K == 0 ? First : Last;
    auto C = compileAt(B, New, Ctx);
    if (!C)
      return C.takeError();
    if (!*C)
      return std::nullopt;
    Ends[K] = instance(Phase, B, New, double(Ctx), **C, nullptr);
  }
  if (Keep) {
    auto C = compileAt(B, New, int64_t(std::floor(S.meanContext())) / Q * Q);
    if (!C)
      return C.takeError();
    if (!*C)
      return std::nullopt;
    *Keep = std::move(*C);
  }
  return average(Ends[0], Ends[1]);
}

llvm::Expected<std::optional<ServeInstance>>
ServeEngine::prefill(int64_t B, std::unique_ptr<MeshCompile> *Keep) {
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
