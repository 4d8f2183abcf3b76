//===- ServeReport.cpp - A serving program's text and JSON ----------------===//
//
// Reads a ServeResult (serve/Serve.h): every number was computed there.
//
//===----------------------------------------------------------------------===//
#include "report/ServeReport.h"
#include "report/JsonWriter.h"
#include "support/Format.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace shardc;

namespace {

const char *modeName(ServeMode M) {
  switch (M) {
  case ServeMode::Static:
    return "static";
  case ServeMode::Interleaved:
    return "interleaved";
  case ServeMode::Continuous:
    return "continuous";
  case ServeMode::Disaggregated:
    return "disaggregated";
  }
  return "static";
}

/// A context S̄ as written: whole, or with its half.
std::string contextText(double C) {
  return C == std::floor(C) ? std::to_string(int64_t(C))
                            : fmt::format("{:.1f}", C);
}

void instanceTable(const ServeResult &R, const ServeInstance &I,
                   const MeshCompile &C, llvm::raw_ostream &OS) {
  OS << fmt::format("\n-- {} (batch {}, new {}, context {}): {}, bound {}\n",
                    I.Phase == "step" ? std::string("step (mixed)") : I.Phase,
                    I.Batch, I.New, contextText(I.Context), formatTime(I.Time),
                    serveBoundName(I.Bound).str());
  const ProgramInfo &Info = C.checked().info();
  size_t W = 8;
  for (const ServeRow &Row : I.Rows)
    W = std::max(W, Info.Statements[Row.Stmt].Name.size() + 2);
  OS << fmt::format("{:<{}}{:>6}{:>6} {:<13}{:>11}{:>11}{:>11}{:>11} {}\n",
                    "op", W, "line", "x", "kind", "T_math", "T_hbm", "T_comms",
                    "time", "bound");
  for (const ServeRow &Row : I.Rows) {
    const Statement &S = Info.Statements[Row.Stmt];
    std::string Bound = serveBoundName(Row.Bound).str();
    if (Row.Head)
      Bound += " (new 1: the head)";
    OS << fmt::format("{:<{}}{:>6}{:>6} {:<13}{:>11}{:>11}{:>11}{:>11} {}\n",
                      S.Name, W, S.Location.Line, Row.Repeat,
                      opNoun(S.Kind).str(), formatTime(Row.Cost.TMath),
                      formatTime(Row.Cost.THbm), formatTime(Row.Cost.TComms),
                      formatTime(Row.Cost.Time), Bound);
  }
  OS << fmt::format("total: {} (compute-bound ops {}, memory-bound {}, "
                    "comms-bound {}, latency-bound {})\n",
                    formatTime(I.Time), formatTime(I.ClassTime[0]),
                    formatTime(I.ClassTime[1]), formatTime(I.ClassTime[2]),
                    formatTime(I.ClassTime[3]));
}

std::string bytes(double B) { return formatAmount(B, "B"); }

/// A rate: 4 significant figures, whole from 1,000 up (`6987`, `17264`).
std::string rate(double V) {
  return V >= 1000 && V < 1e15 ? fmt::format("{:.0f}", V) : formatSig4(V);
}

/// `no` over memory (whatever the chunk), else `chunk` over the chunk.
const char *fitsText(const CurveRow &Row) {
  return !Row.Memory.fits() ? "no" : Row.OverChunk ? "chunk" : "yes";
}

std::string marks(const CurveRow &Row) {
  std::vector<std::string> M;
  if (Row.MarkCrit)
    M.push_back("B_crit");
  if (Row.MarkMax)
    M.push_back("max");
  if (Row.MarkLat)
    M.push_back("lat");
  return llvm::join(M, ", ");
}

} // namespace

void shardc::printServeReport(const ServeResult &R, llvm::raw_ostream &OS) {
  const ServeSpec &S = R.Spec;
  const MeshCompile &Dec = *R.DecodeCompile;
  const MeshSpec &Mesh = Dec.mesh();
  std::vector<std::string> Axes;
  for (const MeshAxis &A : Mesh.Axes)
    Axes.push_back(fmt::format("{}: {}", A.Name, A.Size));
  OS << fmt::format("serve: mesh {} = {}[{}]: {} x {}, {} replica{}\n",
                    Mesh.Name, Mesh.Cluster->Name, llvm::join(Axes, ", "),
                    R.Chips, Mesh.Cluster->Chip.Name, S.Replicas,
                    S.Replicas == 1 ? "" : "s");
  // context = exact: decode is the mean of its steps, each at its own.
  std::string Context = S.ContextExact && S.Output > 2
                            ? fmt::format("each step's, {} to {}", S.Prompt + 1,
                                          S.Prompt + S.Output - 1)
                            : "mean " + contextText(S.meanContext());
  OS << fmt::format("mode {}, prompt {}, output {} tokens (decode context: "
                    "{}, capacity {}), batch {}\n",
                    modeName(S.Mode), S.Prompt, S.Output, Context, S.capacity(),
                    R.Batch);
  instanceTable(R, R.Prefill, *R.PrefillCompile, OS);
  instanceTable(R, R.Decode, Dec, OS);
  if (R.Verify)
    instanceTable(R, *R.Verify, Dec, OS);
  if (R.Step)
    instanceTable(R, *R.Step, Dec, OS);

  OS << fmt::format("\nlatency: TTFT {}, TPOT {}, E2E {}\n", formatTime(R.Ttft),
                    formatTime(R.Tpot), formatTime(R.E2e));
  if (R.KvTransfer)
    OS << fmt::format("disaggregated: TTFT = prefill {} on {} + KV transfer "
                      "{} over {}; {} prefill pools per decode pool\n",
                      formatTime(R.Prefill.Time), S.PrefillMesh->Name,
                      formatTime(*R.KvTransfer),
                      Mesh.Cluster->Levels[S.LinkLevel].Name,
                      formatSig4(R.PoolRatio));
  if (S.Speculate)
    OS << fmt::format("speculation: {} tokens per pass of {} ({} drafted, "
                      "accept {}); speed-up over plain decode {}\n",
                      formatSig4(R.Tau), formatTime(R.PassTime),
                      S.Speculate->Tokens, formatSig4(S.Speculate->Accept),
                      formatSig4(R.Decode.Time / (R.PassTime / R.Tau)));
  OS << fmt::format("throughput: {} requests/s per replica; tokens/s {} "
                    "(system), {} (replica), {} (chip)",
                    rate(R.RequestsPerSecond), rate(R.TokensSystem),
                    rate(R.TokensReplica), rate(R.TokensChip));
  if (R.CostPerMtok)
    OS << fmt::format("; cost per Mtok {}", formatSig4(*R.CostPerMtok));
  OS << "\n";
  const ServeMemory &M = R.Memory;
  OS << fmt::format("memory per chip at batch {}: weights {}, KV {}, "
                    "workspace {}; total {} of {} usable\n",
                    R.Batch, bytes(M.Weights), bytes(M.Kv), bytes(M.Workspace),
                    bytes(M.Total), bytes(M.Usable));
  // Without `chunk`, continuous batching's bound is one prompt a step.
  std::string Bound = R.MaxBatchBound == "chunk" && !S.Chunk
                          ? "chunk: no 'chunk' set, a whole prompt a step"
                          : R.MaxBatchBound;
  OS << fmt::format("max batch: {} (bound {}; largest term {})\n", R.MaxBatch,
                    Bound, R.LargestTerm);

  OS << fmt::format("\n{:>7}{:>12}{:>15}  {:<9}{:<6}{}\n", "batch", "TPOT",
                    "tokens/s/chip", "bound", "fits", "marks");
  for (const CurveRow &Row : R.Curve)
    OS << llvm::StringRef(fmt::format("{:>7}{:>12}{:>15}  {:<9}{:<6}{}",
                                      Row.Batch, formatTime(Row.Tpot),
                                      rate(Row.TokensPerChip),
                                      serveBoundName(Row.Bound).str(),
                                      fitsText(Row), marks(Row)))
              .rtrim()
       << "\n";

  std::vector<std::string> Crit;
  for (const BatchCrit &C : R.Crit)
    Crit.push_back(fmt::format("{} ({} weights, {} math)", formatSig4(C.Batch),
                               dtypeName(C.Weights).str(),
                               dtypeName(C.Compute).str()));
  OS << "\nconstants: B_crit " << (Crit.empty() ? "-" : llvm::join(Crit, ", "))
     << "; B_lat "
     << (R.BLat ? std::to_string(*R.BLat) : std::string("- (no collective)"))
     << "\n";
  OS << fmt::format("KV cache: {} per token ({} per chip), {} per sequence "
                    "of {} ({} per chip)\n",
                    bytes(R.KvPerToken), bytes(R.KvPerTokenChip),
                    bytes(R.KvPerSequence), S.capacity(),
                    bytes(R.KvPerSequenceChip));
}

void shardc::serveJson(JsonWriter &J, const ServeResult &R) {
  const ServeSpec &S = R.Spec;
  auto Instance = [&](const ServeInstance &I) {
    J.object([&] {
      J.attribute("batch", I.Batch);
      J.attribute("bound", serveBoundName(I.Bound));
      J.attribute("context", I.Context);
      J.attribute("latency_s", I.Latency);
      J.attribute("new", I.New);
      J.attribute("phase", I.Phase);
      J.attributeObject("total", [&] {
        J.attribute("t_comms_s", I.TComms);
        J.attribute("t_hbm_s", I.THbm);
        J.attribute("t_math_s", I.TMath);
        J.attribute("time_s", I.Time);
      });
    });
  };
  J.attributeObject("serve", [&] {
    J.attribute("batch", R.Batch);
    J.attributeObject("constants", [&] {
      J.attributeArray("b_crit", [&] {
        for (const BatchCrit &C : R.Crit)
          J.object([&] {
            J.attribute("batch", C.Batch);
            J.attribute("compute", dtypeName(C.Compute));
            J.attribute("weights", dtypeName(C.Weights));
          });
      });
      if (R.BLat)
        J.attribute("b_lat", *R.BLat);
      J.attribute("kv_bytes_per_sequence", R.KvPerSequence);
      J.attribute("kv_bytes_per_token", R.KvPerToken);
      J.attribute("kv_bytes_per_token_per_chip", R.KvPerTokenChip);
    });
    J.attribute("context_capacity", S.capacity());
    J.attribute("context_mean", S.meanContext());
    if (R.CostPerMtok)
      J.attribute("cost_per_mtok", *R.CostPerMtok);
    J.attributeArray("curve", [&] {
      for (const CurveRow &Row : R.Curve)
        J.object([&] {
          J.attribute("batch", Row.Batch);
          J.attribute("bound", serveBoundName(Row.Bound));
          J.attribute("fits", fitsText(Row));
          J.attributeArray("marks", [&] {
            if (Row.MarkCrit)
              J.value("B_crit");
            if (Row.MarkMax)
              J.value("max");
            if (Row.MarkLat)
              J.value("lat");
          });
          J.attribute("tokens_per_s_per_chip", Row.TokensPerChip);
          J.attribute("tpot_s", Row.Tpot);
        });
    });
    J.attribute("e2e_s", R.E2e);
    J.attributeArray("instances", [&] {
      Instance(R.Prefill);
      Instance(R.Decode);
      if (R.Verify)
        Instance(*R.Verify);
      if (R.Step)
        Instance(*R.Step);
    });
    J.attributeObject("memory", [&] {
      J.attribute("kv_bytes", R.Memory.Kv);
      J.attribute("largest_term", R.LargestTerm);
      J.attribute("max_batch", R.MaxBatch);
      J.attribute("max_batch_bound", R.MaxBatchBound);
      J.attribute("total_bytes", R.Memory.Total);
      J.attribute("usable_bytes", R.Memory.Usable);
      J.attribute("weights_bytes", R.Memory.Weights);
      J.attribute("workspace_bytes", R.Memory.Workspace);
    });
    J.attribute("mode", modeName(S.Mode));
    J.attribute("output", S.Output);
    if (R.KvTransfer) {
      J.attribute("kv_transfer_s", *R.KvTransfer);
      J.attribute("pool_ratio", R.PoolRatio);
    }
    J.attribute("prompt", S.Prompt);
    J.attribute("replicas", S.Replicas);
    J.attribute("requests_per_s", R.RequestsPerSecond);
    if (S.Speculate)
      J.attributeObject("speculate", [&] {
        J.attribute("pass_s", R.PassTime);
        J.attribute("speedup", R.Decode.Time / (R.PassTime / R.Tau));
        J.attribute("tokens_per_pass", R.Tau);
      });
    J.attributeObject("tokens_per_s", [&] {
      J.attribute("chip", R.TokensChip);
      J.attribute("replica", R.TokensReplica);
      J.attribute("system", R.TokensSystem);
    });
    J.attribute("tpot_s", R.Tpot);
    J.attribute("ttft_s", R.Ttft);
  });
}
