//===- JsonReport.cpp - The versioned JSON document (docs/json.md) --------===//
//
// SI base units throughout (seconds, bytes, FLOP). Written with llvm::json so
// strings are escaped and numbers are printed exactly.
//
//===----------------------------------------------------------------------===//
#include "report/Report.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace shardc;
namespace json = llvm::json;

namespace {

json::Object meshJson(const MeshSpec &M) {
  json::Array Axes;
  for (const MeshAxis &A : M.Axes)
    Axes.push_back(json::Object{{"name", A.Name}, {"size", A.Size}});
  return json::Object{
      {"name", M.Name}, {"axes", std::move(Axes)}, {"chips", M.numChips()}};
}

json::Object clusterJson(const ClusterSpec &C) {
  json::Array Levels;
  for (const LevelSpec &L : C.Levels)
    Levels.push_back(
        json::Object{{"name", L.Name},
                     {"size", L.Size},
                     {"uplink_bw", L.effectiveUplink()},
                     {"in_network_reduction", L.InNetworkReduction},
                     {"latency_s", L.Latency},
                     {"efficiency", L.Efficiency}});
  json::Object Peaks, Critical;
  for (unsigned T = 0; T < NumDTypes; ++T)
    if (C.Chip.Flops[T] > 0) {
      Peaks[dtypeName(DType(T))] = C.Chip.Flops[T];
      Critical[dtypeName(DType(T))] = C.Chip.Flops[T] / C.Chip.HbmBw;
    }
  json::Object Chip{{"name", C.Chip.Name},
                    {"hbm_bytes", C.Chip.HbmBytes},
                    {"hbm_bw", C.Chip.HbmBw},
                    {"flops", std::move(Peaks)},
                    {"critical_intensity", std::move(Critical)}};
  return json::Object{{"name", C.Name},
                      {"chip", std::move(Chip)},
                      {"levels", std::move(Levels)}};
}

json::Object collectiveJson(const Operation &Op, const MeshSpec &M) {
  json::Array Axes, Levels;
  for (unsigned A : Op.Axes)
    Axes.push_back(M.Axes[A].Name);
  const CollectiveCost &C = *Op.CommCost;
  for (const LevelCost &L : C.Levels)
    Levels.push_back(json::Object{{"level", M.Cluster->Levels[L.Level].Name},
                                  {"fan_in", L.FanIn},
                                  {"bytes", L.Bytes},
                                  {"t_s", L.Time}});
  return json::Object{{"kind", collectiveName(collectiveKindOf(Op.Kind))},
                      {"axes", std::move(Axes)},
                      {"bytes", C.GroupBytes},
                      {"t_s", C.Time},
                      {"latency_s", C.LatencyTime},
                      {"levels", std::move(Levels)}};
}

json::Object opJson(const Statement &S,
                    const std::vector<const Operation *> &Colls,
                    const MeshSpec &M) {
  const OpCost &C = *S.Cost;
  json::Array Cs;
  for (const Operation *Op : Colls)
    Cs.push_back(collectiveJson(*Op, M));
  json::Object O{{"name", S.Name},
                 {"line", S.Line},
                 {"kind", S.KindName},
                 {"repeat", S.Repeat},
                 {"flops_per_chip", C.Flops},
                 {"hbm_bytes_per_chip", C.HbmBytes},
                 {"intensity", C.HbmBytes > 0 ? C.Flops / C.HbmBytes : 0.0},
                 {"t_math_s", C.TMath},
                 {"t_hbm_s", C.THbm},
                 {"t_comms_s", C.TComms},
                 {"time_s", C.Time},
                 {"bound", boundName(C.Bounded)},
                 {"collectives", std::move(Cs)}};
  if (!S.Choice.empty())
    O["choice"] = S.Choice;
  if (S.RejectedTime)
    O["rejected"] =
        json::Object{{"plan", S.Rejected}, {"time_s", *S.RejectedTime}};
  return O;
}

} // namespace

void shardc::printJsonReport(const Module &M, const llvm::SourceMgr &SM,
                             llvm::raw_ostream &OS) {
  auto Colls = collectivesByStatement(M);
  json::Array Ops;
  for (size_t I = 0; I < M.Statements.size(); ++I)
    if (M.Statements[I].Cost && M.Statements[I].KindName != "input")
      Ops.push_back(opJson(M.Statements[I], Colls[I], *M.Mesh));
  json::Array Tensors;
  for (const TensorInfo &T : inputTensors(M))
    Tensors.push_back(json::Object{{"name", T.Decl->Name},
                                   {"line", T.Decl->Line},
                                   {"type", T.V->Type.str(*M.Mesh)},
                                   {"local_shape", T.LocalShape},
                                   {"bytes_per_chip", T.Bytes},
                                   {"hbm_read_s", T.ReadTime}});
  const ProgramCost &T = *M.Totals;
  json::Array LevelBytes;
  for (double B : T.LevelBytes)
    LevelBytes.push_back(B);
  json::Object Doc{
      {"version", int64_t(JsonVersion)},
      {"source", M.SourceName},
      {"overlap", M.Config.Overlap},
      {"mesh", meshJson(*M.Mesh)},
      {"cluster", clusterJson(*M.Mesh->Cluster)},
      {"tensors", std::move(Tensors)},
      {"ops", std::move(Ops)},
      {"total", json::Object{{"time_s", T.Time},
                             {"t_math_s", T.TMath},
                             {"t_hbm_s", T.THbm},
                             {"t_comms_s", T.TComms},
                             {"flops", T.Flops},
                             {"mfu", T.Mfu},
                             {"level_bytes", std::move(LevelBytes)}}}};
  OS << llvm::formatv("{0:2}", json::Value(std::move(Doc))) << "\n";
}
