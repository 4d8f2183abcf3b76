//===- StepGenerator.cpp - Random training steps for tests and fuzzing ----===//
#include "tests/support/StepGenerator.h"
#include <fmt/format.h>

using namespace shardc::testgen;

namespace {

int64_t pow2(Chooser &C, unsigned Lo, unsigned Hi) {
  return int64_t(1) << C.between(Lo, Hi);
}

const char *pick(Chooser &C, std::initializer_list<const char *> L) {
  return L.begin()[C.index(L.size())];
}

/// The mesh: D x P x T chips of one of the NVIDIA presets.
void drawMesh(Chooser &C, GenStep &G) {
  bool Pod = C.percent(45);
  G.Cluster = Pod ? pick(C, {"DGX_H100_SuperPod", "DGX_H100_SuperPod_measured",
                             "Selene_measured"})
                  : pick(C, {"DGX_H100_Node", "DGX_H100_Node_measured",
                             "DGX_A100_Node_measured"});
  int64_t Chips = Pod ? 64 : 8;
  G.P = Pod && C.percent(50) ? pow2(C, 1, 2) : 1;
  G.T = pow2(C, 0, 3);
  G.D = Chips / G.P / G.T;
}

/// The model's sizes: powers of two, each at least what shards it.
void drawModel(Chooser &C, GenStep &G) {
  G.Seq = G.T > 1 && C.percent(50);
  G.Head = C.percent(50);
  G.Norm = pick(C, {"", "rmsnorm", "layernorm"});
  G.Attention = C.percent(80);
  G.Fused = C.percent(80);
  G.Causal = C.percent(70);
  G.Moe = C.percent(20);
  if (G.Moe && G.Seq && C.percent(50))
    G.MoeDispatch = pick(C, {"gather_then_a2a", "a2a_then_gather"});
  G.Gated = C.percent(60);
  G.S = pow2(C, 8, G.Fused ? 12 : 10);
  G.B = G.D * pow2(C, 0, 2);
  G.E = pow2(C, 9, 12);
  G.F = G.E * pow2(C, 1, 2);
  G.H = C.percent(50) ? 64 : 128;
  G.K = G.T * pow2(C, 0, 2);
  G.N = G.K * pow2(C, 0, 2);
  G.V = G.T * pow2(C, 10, 14);
  G.X = G.D * pow2(C, 0, 2);
  G.Top = int64_t(C.between(1, 2));
  G.Layers = int64_t(C.between(1, 3));
}

void drawTrain(Chooser &C, GenStep &G) {
  auto Set = [&](const char *Name, std::string Value) {
    G.Train.emplace_back(Name, std::move(Value));
  };
  if (G.P > 1) {
    std::string Schedule = pick(C, {"gpipe", "1f1b", "interleaved"});
    Set("schedule", Schedule);
    if (Schedule == "interleaved") {
      G.Chunks = 2;
      Set("chunks", "2");
      Set("microbatches", std::to_string(G.P * int64_t(C.between(1, 3))));
    } else {
      Set("microbatches", std::to_string(C.between(1, 8)));
    }
    if (C.percent(40))
      Set("p2p_overlap", "true");
    if (C.percent(30))
      Set("scatter_gather", "true");
  } else {
    Set("microbatches", std::to_string(C.between(1, 8)));
  }
  Set("optimizer", pick(C, {"adam", "adam", "sgd", "none"}));
  Set("zero", std::to_string(C.between(0, 3)));
  Set("recompute", pick(C, {"none", "selective", "full", "attention"}));
  if (C.percent(30))
    Set("grad", "bf16");
  if (C.percent(40))
    Set("tp_overlap", pick(C, {"none", "backward", "all"}));
  if (C.percent(30))
    Set("param_gather", "overlapped");
  if (C.percent(30))
    Set("sync", "after_backward");
  if (C.percent(40)) {
    Set("fixed_costs", "priced");
    if (C.percent(50))
      Set("grad_clip", "1.0");
  }
  if (C.percent(30))
    Set("fuse", "elementwise");
  if (G.Cluster.find("H100") != std::string::npos && C.percent(20))
    Set("fp8", pick(C, {"hybrid", "e4m3"}));
}

/// One deliberate mistake.
void drawWrong(Chooser &C, GenStep &G) {
  switch (C.index(4)) {
  case 0:
    G.Train.emplace_back("recompute", "sometimes"); // an unknown value
    break;
  case 1: // a sharded dim that does not divide
    if (G.T > 1)
      G.F += 1; // F_T
    else if (G.D > 1)
      G.B += 1; // B_D
    else
      G.Train.emplace_back("zero", "7");
    break;
  case 2:
    G.Wrong = "int32"; // the loss typed int32 in a training step
    G.Head = true;
    break;
  default:
    G.Train.emplace_back("microbatches", "0");
    break;
  }
}

} // namespace

GenStep shardc::testgen::generateStep(Chooser &C, unsigned WrongPercent) {
  GenStep G;
  drawMesh(C, G);
  drawModel(C, G);
  drawTrain(C, G);
  if (WrongPercent && C.percent(WrongPercent))
    drawWrong(C, G);
  return G;
}

namespace {

/// The statements of one layer; \p Lead is the activations' leading dims.
std::string renderLayer(const GenStep &G, const std::string &Lead) {
  std::string S;
  auto Line = [&](const std::string &L) { S += "  " + L + "\n"; };
  std::string Full = "B_D, S";
  // A norm (and its gain), then the sequence gathered for the GEMMs.
  auto Normed = [&](const char *N, const std::string &In, bool Gather) {
    std::string Out = In;
    if (!G.Norm.empty()) {
      Line(fmt::format("param g{} : bf16[E];", N));
      Line(fmt::format("n{}[{}, E] = {}({});", N, Lead, G.Norm, In));
      Line(fmt::format("a{}[{}, E] = n{} * g{};", N, Lead, N, N));
      Out = fmt::format("a{}", N);
    }
    if (G.Seq && Gather) {
      Line(fmt::format("ag{}[{}, E] = {};", N, Full, Out));
      Out = fmt::format("ag{}", N);
    }
    return Out;
  };
  std::string H = "x";
  if (G.Attention) {
    std::string In = Normed("1", "x", true);
    Line("param Wq : bf16[E, N_T, H];");
    Line("param Wk : bf16[E, K_T, H];");
    Line("param Wv : bf16[E, K_T, H];");
    Line("param Wo : bf16[N_T, H, E];");
    Line(fmt::format("q[{}, N_T, H] = {} * Wq;", Full, In));
    Line(fmt::format("k[{}, K_T, H] = {} * Wk;", Full, In));
    Line(fmt::format("v[{}, K_T, H] = {} * Wv;", Full, In));
    Line(fmt::format("c[{}, N_T, H] = attention(q, k, v; causal = {}, fused = "
                     "{});",
                     Full, G.Causal, G.Fused));
    Line(fmt::format("o[{}, E] = c * Wo;", Lead));
    Line(fmt::format("h[{}, E] = x + o;", Lead));
    H = "h";
  }
  // Expert tensor parallelism: the experts' F over T, the tokens left
  // sequence-sharded for moe's own dispatch order.
  std::string In = Normed("2", H, !G.MoeDispatch.size());
  if (G.Moe && !G.MoeDispatch.empty()) {
    Line("param W1 : bf16[X_D, E, F_T];");
    Line("param W2 : bf16[X_D, F_T, E];");
    Line(fmt::format("m[{}, E] = moe({}, W1, W2; top = {}, capacity = 1.25, "
                     "dispatch = {});",
                     Lead, In, G.Top, G.MoeDispatch));
  } else if (G.Moe) {
    Line("param W1 : bf16[X_D, E, F];");
    Line("param W2 : bf16[X_D, F, E];");
    if (G.Gated)
      Line("param W3 : bf16[X_D, E, F];");
    Line(fmt::format("y[{}, E] = moe({}, W1, W2{}; top = {}, capacity = 1.25, "
                     "gated = {});",
                     Full, In, G.Gated ? ", W3" : "", G.Top, G.Gated));
    Line(fmt::format("m[{}, E] = y;", Lead));
  } else {
    Line("param W1 : bf16[E, F_T];");
    Line("param W2 : bf16[F_T, E];");
    Line(fmt::format("u[{}, F_T] = {} * W1;", Full, In));
    if (G.Gated) {
      Line("param W3 : bf16[E, F_T];");
      Line(fmt::format("w[{}, F_T] = {} * W3;", Full, In));
      Line(fmt::format("sw[{}, F_T] = silu(u);", Full));
      Line(fmt::format("z[{}, F_T] = sw * w;", Full));
    } else {
      Line(fmt::format("z[{}, F_T] = gelu(u);", Full));
    }
    Line(fmt::format("m[{}, E] = z * W2;", Lead));
  }
  Line(fmt::format("x[{}, E] = {} + m;", Lead, H));
  return S;
}

} // namespace

std::string GenStep::render() const {
  std::string Lead = Seq ? "B_D, S_T" : "B_D, S";
  std::string S = "import \"nvidia.shard\";\nimport \"measured.shard\";\n";
  S += fmt::format("mesh M = {}[D: {}, {}T: {}];\n", Cluster, D,
                   P > 1 ? fmt::format("P: {}, ", P) : "", T);
  S += fmt::format("dim B = {}, S = {}, E = {}, F = {}, N = {}, K = {}, "
                   "H = {}, V = {}, X = {};\n",
                   B, this->S, E, F, N, K, H, V, X);
  if (Head) {
    S += "tensor tok : int32[B_D, S];\n";
    S += "param emb : bf16[V_T, E];\n";
    S += fmt::format("x[{}, E] = embed(tok, emb);\n", Lead);
  } else {
    S += fmt::format("tensor x : bf16[{}, E];\n", Lead);
  }
  S += fmt::format("repeat {}{} {{\n", Layers * P * Chunks,
                   P > 1 ? " over P" : "");
  S += renderLayer(*this, Lead);
  S += "}\n";
  if (Head) {
    S += "param unemb : bf16[E, V_T];\n";
    std::string In = "x";
    if (Seq) {
      S += "xf[B_D, S, E] = x;\n";
      In = "xf";
    }
    S += fmt::format("logits[B_D, S, V_T] = {} * unemb;\n", In);
    S += fmt::format("loss{}[B_D, S] = cross_entropy(logits, tok);\n",
                     Wrong == "int32" ? " : int32" : "");
  }
  S += "train {";
  for (const auto &[Name, Value] : Train)
    S += " " + Name + " = " + Value + ";";
  S += " }\n";
  return S;
}
