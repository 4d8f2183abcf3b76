//===- Serve.cpp - The engine arithmetic over the instances ---------------===//
//
// docs/inference.md, "Engine modes": per batch, the instances the mode runs,
// their memory and times (TTFT, TPOT, requests/s); the batches the curve
// shows and the serving batch; the result the report prints.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "ir/ModelOps.h"
#include "serve/Engine.h"
#include "support/Format.h"
#include <algorithm>
#include <cmath>
#include <map>

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

void ServeEngine::findHead() {
  // The head: the statements after the last top-level repeat.
  HeadStmt.assign(Checked.info().Statements.size(), false);
  const Op *LastRepeat = nullptr;
  for (const auto &O : Checked.body().ops())
    if (llvm::isa<RepeatOp>(O.get()))
      LastRepeat = O.get();
  bool After = false;
  for (const auto &O : Checked.body().ops()) {
    if (LastRepeat && After && O->stmt() != NoStmt &&
        O->stmt() < HeadStmt.size())
      HeadStmt[O->stmt()] = true;
    After |= O.get() == LastRepeat;
  }
}

llvm::Expected<const ServeEngine::AtBatch *> ServeEngine::at(int64_t B) {
  auto It = Cache.find(B);
  if (It != Cache.end())
    return &It->second;
  auto D = decode(B);
  if (!D)
    return D.takeError();
  if (!*D)
    return nullptr;
  AtBatch A{**D, *M.Pre1, {}, std::nullopt, {}, 0, 0, 0};
  if (M.Static && B != M.Q) {
    auto Pb = prefill(B);
    if (!Pb)
      return Pb.takeError();
    if (!*Pb)
      return nullptr;
    A.Pre = **Pb;
  }
  // The step a sequence advances by: decode, or a speculative pass's
  // verify (its g drafts added below).
  const auto &Spec = S.Speculate;
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
  double G1 = M.G1, P = M.P;
  if (M.Continuous) {
    // context = exact: each end's mixed step, averaged over the steps.
    auto Mixed = [&](double W) {
      return Adv.Ends.empty() ? mixedStep(Adv, A.Pre, W)
                              : average(mixedStep(Adv.Ends[0], A.Pre, W),
                                        mixedStep(Adv.Ends[1], A.Pre, W));
    };
    A.Step = Mixed(double(B) * M.Tau / G1);
    ServeInstance First = Mixed(std::min(M.Chunk, P) / P);
    A.Mem = memory(B, A.Step, First);
    A.Pass = Drafts + A.Step.Time;
    A.Tpot = A.Pass / M.Tau;
    A.Ttft = std::ceil(P / M.Chunk) * First.Time;
  } else {
    // Disaggregated: the decode pool holds no prefill's workspace, and a
    // request waits for its cache to cross the link.
    A.Mem = memory(B, Adv, M.Disagg ? Adv : A.Pre);
    A.Pass = Drafts + Adv.Time;
    A.Tpot = A.Pass / M.Tau +
             (M.Static || M.Disagg ? 0 : double(B) / G1 * A.Pre.Time);
    A.Ttft = A.Pre.Time + M.TKv;
  }
  A.Rps =
      M.Static ? double(B) / (A.Ttft + G1 * A.Tpot) : double(B) / (G1 * A.Tpot);
  // The chips a replica's tokens count over: disaggregated, the decode
  // pool and r = T_pre(1) x requests/s prefill pools.
  A.Chips = double(Mesh.numChips());
  if (M.Disagg)
    A.Chips += A.Pre.Time * A.Rps * double(S.PrefillMesh->numChips());
  return &Cache.emplace(B, std::move(A)).first->second;
}

llvm::Expected<bool> ServeEngine::setUp() {
  M.Q = batchQuantum();
  // Every batch is a multiple of Q: a number written is checked, a range's
  // entries are rounded up.
  for (int64_t B : S.Batches) {
    if (B % M.Q == 0 || S.BatchRange) {
      M.Written.push_back((B + M.Q - 1) / M.Q * M.Q);
      continue;
    }
    Diags.report(S.BatchAt, diag::ServeBatchQuantum, B, M.Q,
                 Checked.names().Dims[*S.Dims[0]]);
    return false;
  }
  M.Static = S.Mode == ServeMode::Static;
  M.Continuous = S.Mode == ServeMode::Continuous;
  M.Disagg = S.Mode == ServeMode::Disaggregated;
  M.TKv = M.Disagg ? kvTransfer() : 0;
  M.G1 = double(S.Output - 1);
  M.P = double(S.Prompt);
  // Continuous batching: a step carries B·P/(G − 1) prefill tokens, at
  // most `chunk` (unlimited: a whole prompt); speculating, τ times that.
  M.Chunk = S.Chunk ? double(*S.Chunk) : M.P;
  M.Tau = S.Speculate ? S.Speculate->tokensPerPass() : 1;
  // One prompt's prefill (every mode but static reads it).
  auto Pre1 = prefill(M.Static ? M.Q : 1);
  if (!Pre1)
    return Pre1.takeError();
  if (!*Pre1)
    return false;
  M.Pre1 = **Pre1;
  return !M.Disagg || prefillPoolFits();
}

/// `at(B)` as the engine's steps read it: false after reporting.
#define SERVE_AT(Var, B)                                                       \
  auto Var = at(B);                                                            \
  if (!Var)                                                                    \
    return Var.takeError();                                                    \
  if (!*Var)                                                                   \
    return false;

llvm::Expected<bool> ServeEngine::largestBatch(ServeResult &R) {
  // B_mem: from the memory at Q and 2Q, then settled by compiles.
  SERVE_AT(A1, M.Q);
  if (!((*A1)->Dec.Time > 0)) {
    Diags.report(S.At, diag::ServeNothingToCost);
    return false;
  }
  SERVE_AT(A2, 2 * M.Q);
  constants(R, (*A1)->Dec, (*A2)->Dec, M.Q);
  const ServeMemory &M1 = (*A1)->Mem, &M2 = (*A2)->Mem;
  if (!M1.fits()) {
    reportNoFit(M.Q, M1, /*Nothing=*/true);
    return false;
  }
  auto BMem = maxBatch(M1, M2);
  if (!BMem)
    return BMem.takeError();
  if (!*BMem)
    return false;
  R.MaxBatch = **BMem;
  R.MaxBatchBound = "memory";
  M.ChunkLimit =
      int64_t(std::floor(M.Chunk * M.G1 / (M.P * M.Tau))) / M.Q * M.Q;
  if (M.Continuous && M.ChunkLimit < R.MaxBatch) {
    R.MaxBatch = std::max(M.Q, M.ChunkLimit);
    R.MaxBatchBound = "chunk";
  }
  if (S.MaxBatch && *S.MaxBatch < R.MaxBatch) {
    R.MaxBatch = std::max<int64_t>(M.Q, *S.MaxBatch / M.Q * M.Q);
    R.MaxBatchBound = "max_batch";
  }
  SERVE_AT(AMax, R.MaxBatch);
  const ServeMemory &MM = (*AMax)->Mem;
  R.LargestTerm = MM.Kv >= MM.Weights && MM.Kv >= MM.Workspace ? "KV"
                  : MM.Weights >= MM.Workspace                 ? "weights"
                                                               : "workspace";
  return true;
}

llvm::Expected<bool> ServeEngine::servingBatch(ServeResult &R) {
  // The batches named: the written ones, and `max` (with a range's powers
  // of two up to it).
  M.Named = M.Written;
  if (S.BatchMax) {
    M.Named.push_back(R.MaxBatch);
    if (S.PowersFrom)
      for (int64_t B = 1; B < R.MaxBatch; B *= 2)
        if (B >= S.PowersFrom)
          M.Named.push_back(B);
  }
  llvm::sort(M.Named);
  M.Named.erase(std::unique(M.Named.begin(), M.Named.end()), M.Named.end());
  // The largest named that fits; none is an error.
  std::optional<int64_t> Serving;
  for (int64_t B : M.Named) {
    SERVE_AT(A, B);
    if ((*A)->Mem.fits() && !overChunk(B))
      Serving = B;
  }
  if (Serving) {
    R.Batch = *Serving;
    return true;
  }
  int64_t B = M.Named.front();
  SERVE_AT(A, B);
  if (overChunk(B) && (*A)->Mem.fits())
    Diags.report(S.BatchAt, diag::ServeChunkTooSmall, B,
                 formatSig4(double(B) * M.Tau * M.P / M.G1), int64_t(M.Chunk),
                 M.ChunkLimit);
  else
    reportNoFit(B, (*A)->Mem, /*Nothing=*/false);
  return false;
}

llvm::Expected<bool> ServeEngine::curve(ServeResult &R) {
  // The named batches, the largest that fits and ⌈B_crit⌉ (speculating,
  // a step carries B·(g + 1) tokens).
  std::optional<int64_t> CritRow;
  if (!R.Crit.empty() && R.Crit.front().Batch >= 1 &&
      R.Crit.front().Batch < 1e9) {
    double PerStep = double(S.Speculate ? S.Speculate->Tokens + 1 : 1);
    int64_t C = int64_t(std::ceil(R.Crit.front().Batch / PerStep));
    CritRow = (C + M.Q - 1) / M.Q * M.Q;
  }
  std::vector<int64_t> Rows = M.Named;
  Rows.push_back(R.MaxBatch);
  if (CritRow)
    Rows.push_back(*CritRow);
  llvm::sort(Rows);
  Rows.erase(std::unique(Rows.begin(), Rows.end()), Rows.end());
  for (int64_t B : Rows) {
    SERVE_AT(A, B);
    CurveRow Row;
    Row.Batch = B;
    Row.Tpot = (*A)->Tpot;
    Row.TokensPerChip = double(S.Output) * (*A)->Rps / (*A)->Chips;
    Row.Bound = M.Continuous ? (*A)->Step.Bound : (*A)->Dec.Bound;
    Row.Memory = (*A)->Mem;
    Row.OverChunk = overChunk(B);
    Row.MarkCrit = CritRow && B == *CritRow;
    Row.MarkMax = B == R.MaxBatch;
    Row.MarkLat = R.BLat && B <= *R.BLat;
    R.Curve.push_back(Row);
  }
  return true;
}

llvm::Expected<bool> ServeEngine::finish(ServeResult &R) {
  // The serving batch's numbers, and its compiles kept for the report.
  int64_t B = R.Batch;
  SERVE_AT(A, B);
  auto Dec = decode(B, &R.DecodeCompile);
  if (!Dec)
    return Dec.takeError();
  auto Pre = prefill(M.Static ? B : 1, &R.PrefillCompile);
  if (!Pre)
    return Pre.takeError();
  if (!*Dec || !*Pre)
    return false;
  const AtBatch &X = **A;
  R.Decode = X.Dec;
  R.Prefill = X.Pre;
  if (M.Continuous)
    R.Step = X.Step;
  R.Verify = X.Verify;
  if (S.Speculate) {
    R.Tau = M.Tau;
    R.PassTime = X.Pass;
  }
  R.Memory = X.Mem;
  R.Tpot = X.Tpot;
  R.Ttft = X.Ttft;
  R.E2e = R.Ttft + M.G1 * R.Tpot;
  R.RequestsPerSecond = X.Rps;
  R.TokensReplica = double(S.Output) * R.RequestsPerSecond;
  R.TokensSystem = R.TokensReplica * double(S.Replicas);
  R.TokensChip = R.TokensReplica / X.Chips;
  if (M.Disagg) {
    R.KvTransfer = M.TKv;
    R.PoolRatio = R.Prefill.Time * R.RequestsPerSecond;
  }
  if (S.Price)
    R.CostPerMtok = *S.Price * 1e6 / (3600 * R.TokensChip);
  warnings(R);
  return true;
}

#undef SERVE_AT

llvm::Expected<std::optional<ServeResult>> ServeEngine::run() {
  findHead();
  ServeResult R;
  R.Spec = S;
  R.Chips = Mesh.numChips();
  for (auto Step : {&ServeEngine::setUpStep, &ServeEngine::largestBatch,
                    &ServeEngine::servingBatch, &ServeEngine::curve,
                    &ServeEngine::finish}) {
    auto Ok = (this->*Step)(R);
    if (!Ok)
      return Ok.takeError();
    if (!*Ok)
      return std::nullopt;
  }
  return std::optional<ServeResult>(std::move(R));
}

llvm::Expected<std::optional<ServeResult>>
shardc::runServe(const Module &Checked, const ServeSpec &Spec,
                 const MeshSpec &Mesh, DiagnosticEngine &Diags) {
  ServeEngine E(Checked, Spec, Mesh, Diags);
  return E.run();
}
