//===- Memory.cpp - Memory per chip, the largest batch, the constants -----===//
//
// docs/inference.md, "Memory per chip": weights, KV at the capacity and the
// largest statement's workspace; the largest batch that fits, by bisection
// on real compiles; B_crit per dtype pair, B_lat and the KV bytes per token;
// a disaggregated prompt's KV transfer.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "ir/ModelOps.h"
#include "serve/Engine.h"
#include "support/Format.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

using namespace shardc;

double ServeEngine::kvBytes(int64_t B, int64_t Ctx, const MeshSpec &On) const {
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

double ServeEngine::kvTransfer() const {
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

double ServeEngine::weightBytes(const MeshSpec &On) const {
  double Bytes = 0;
  walk(Checked.body(), [&](const Op &O) {
    auto *In = llvm::dyn_cast<InputOp>(&O);
    bool Weight = llvm::isa<ParamOp>(O) ||
                  (In && !In->isCache() && !hasPhaseDim(O.result()->type()));
    if (Weight)
      Bytes += O.result()->type().localBytes(On) *
               double(Checked.statement(O.stmt()).Repeat);
  });
  return Bytes;
}

ServeMemory ServeEngine::memory(int64_t B, const ServeInstance &Dec,
                                const ServeInstance &Pre) const {
  ServeMemory M;
  M.Weights = weightBytes();
  M.Kv = kvBytes(B);
  M.Workspace = std::max(Dec.Workspace, Pre.Workspace);
  M.Total = M.Weights + M.Kv + M.Workspace;
  M.Usable = usable(Chip, M);
  return M;
}

double ServeEngine::usable(const ChipSpec &On, const ServeMemory &M) const {
  if (!S.KvFraction)
    return On.HbmBytes * S.HbmUsable;
  // kv_fraction: the cache may take that share of what the weights and the
  // workspace leave (none when they overflow the HBM alone).
  double Left = std::max(0.0, On.HbmBytes - M.Weights - M.Workspace);
  return std::min(On.HbmBytes, M.Weights + M.Workspace + *S.KvFraction * Left);
}

bool ServeEngine::prefillPoolFits() const {
  const MeshSpec &Pre = *S.PrefillMesh;
  const ChipSpec &PreChip = Pre.Cluster->Chip;
  ServeMemory P;
  P.Weights = weightBytes(Pre);
  P.Kv = kvBytes(1, S.Prompt, Pre);
  P.Workspace = M.Pre1->Workspace;
  P.Total = P.Weights + P.Kv + P.Workspace;
  P.Usable = usable(PreChip, P);
  if (P.fits())
    return true;
  Diags.report(S.PrefillAt, diag::ServePrefillPoolNoFit, Pre.Name,
               formatAmount(P.Total, "B"), formatAmount(P.Weights, "B"),
               formatAmount(P.Kv, "B"), formatAmount(P.Workspace, "B"),
               PreChip.Name, formatAmount(P.Usable, "B"));
  return false;
}

/// Every size of phase dim K is a multiple of this (Engine.h).
int64_t ServeEngine::dimQuantum(unsigned K) const {
  int64_t Q = 1;
  if (!S.Dims[K])
    return Q;
  walk(Checked.body(), [&](const Op &O) {
    if (!O.result())
      return;
    const ShardType &T = O.result()->type();
    if (auto I = T.dimIndex(*S.Dims[K])) {
      int64_t P = 1;
      for (AxisId A : T.Dims[*I].Axes)
        P *= Mesh.Axes[A].Size;
      Q = std::lcm(Q, P);
    }
  });
  return Q;
}

void ServeEngine::constants(ServeResult &R, const ServeInstance &DecQ,
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
              (2 * Chip.HbmBw * Chip.matmulHbmEfficiency());
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

void ServeEngine::reportNoFit(int64_t B, const ServeMemory &M,
                              bool Nothing) const {
  std::string Need = formatAmount(M.Total, "B"),
              Has = formatAmount(M.Usable, "B");
  if (Nothing)
    Diags.report(S.BatchAt, diag::ServeNothingFits, B, Need, Chip.Name, Has);
  else
    Diags.report(S.BatchAt, diag::ServeBatchNoFit, B, Need, Chip.Name, Has);
  std::pair<double, const char *> Terms[] = {
      {M.Kv, "KV"}, {M.Weights, "weights"}, {M.Workspace, "workspace"}};
  llvm::stable_sort(Terms, [](auto &A, auto &B) { return A.first > B.first; });
  // fp8 is suggested only for what is wider than a byte already.
  bool WideCache = false, WideParam = false;
  walk(Checked.body(), [&](const Op &O) {
    auto *In = llvm::dyn_cast<InputOp>(&O);
    bool Wide = O.result() && dtypeBytes(O.result()->type().Elt) > 1;
    WideCache |= In && In->isCache() && Wide;
    WideParam |= llvm::isa<ParamOp>(O) && Wide;
  });
  for (auto &[Bytes, Name] : Terms) {
    if (Bytes <= 0)
      continue;
    std::string Hint =
        Name == std::string("KV")
            ? std::string("a smaller batch, a shorter prompt or output") +
                  (WideCache ? ", or an fp8 cache" : "") +
                  " shrinks it; sharding the cache's heads or batch over "
                  "more chips too"
        : Name == std::string("weights")
            ? std::string("shard the params over more chips (tensor "
                          "parallelism)") +
                  (WideParam ? ", or store them in fp8" : "")
            : "a smaller batch (or prompt, in prefill) shrinks it";
    Diags.report(S.BatchAt, diag::ServeMemoryTerm, std::string(Name),
                 formatAmount(Bytes, "B"), Hint);
  }
}

llvm::Expected<std::optional<int64_t>>
ServeEngine::maxBatch(const ServeMemory &M1, const ServeMemory &M2) {
  const int64_t Q = M.Q;
  // Memory only grows with the batch: the largest fitting multiple of Q is
  // found by bisection on real compiles, started at the line through Q and
  // 2Q (exact where the largest statement stays the largest).
  const int64_t Limit = ((int64_t(1) << 40) / Q) * Q;
  auto Fits = [&](int64_t B) -> llvm::Expected<std::optional<bool>> {
    auto A = at(B);
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
