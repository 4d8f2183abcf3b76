//===- JsonReport.cpp - The versioned JSON document (docs/json.md) --------===//
//
// SI base units throughout (seconds, bytes, FLOP). Streamed with
// llvm::json::OStream (strings escaped, doubles printed exactly, nothing
// buffered per op, so 10,000 ops print in milliseconds). Keys are written in
// sorted order within each object, so the output is stable and diffable.
//
//===----------------------------------------------------------------------===//
#include "report/Report.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace shardc;
using llvm::json::OStream;

namespace {

void meshJson(OStream &J, const MeshSpec &M) {
  J.attributeObject("mesh", [&] {
    J.attributeArray("axes", [&] {
      for (const MeshAxis &A : M.Axes)
        J.object([&] {
          J.attribute("name", A.Name);
          J.attribute("size", A.Size);
        });
    });
    J.attribute("chips", M.numChips());
    J.attribute("name", M.Name);
  });
}

/// The dtypes the chip has a matmul peak for, sorted by name like every
/// other key.
llvm::SmallVector<DType, 8> peakDTypes(const ChipSpec &C) {
  llvm::SmallVector<DType, 8> Out;
  for (unsigned T = 0; T < NumDTypes; ++T)
    if (C.Flops[T] > 0)
      Out.push_back(DType(T));
  llvm::sort(Out, [](DType A, DType B) { return dtypeName(A) < dtypeName(B); });
  return Out;
}

void chipJson(OStream &J, const ChipSpec &C) {
  J.attributeObject("chip", [&] {
    J.attributeObject("critical_intensity", [&] {
      for (DType T : peakDTypes(C))
        J.attribute(dtypeName(T), C.Flops[unsigned(T)] / C.HbmBw);
    });
    J.attributeObject("flops", [&] {
      for (DType T : peakDTypes(C))
        J.attribute(dtypeName(T), C.Flops[unsigned(T)]);
    });
    J.attribute("hbm_bw", C.HbmBw);
    J.attribute("hbm_bytes", C.HbmBytes);
    J.attribute("name", C.Name);
  });
}

void clusterJson(OStream &J, const ClusterSpec &C) {
  J.attributeObject("cluster", [&] {
    chipJson(J, C.Chip);
    J.attributeArray("levels", [&] {
      for (const LevelSpec &L : C.Levels)
        J.object([&] {
          J.attribute("efficiency", L.Efficiency);
          J.attribute("in_network_reduction", L.InNetworkReduction);
          J.attribute("latency_s", L.Latency);
          J.attribute("name", L.Name);
          J.attribute("size", L.Size);
          J.attribute("uplink_bw", L.effectiveUplink());
        });
    });
    J.attribute("name", C.Name);
  });
}

void collectiveJson(OStream &J, const Operation &Op, const MeshSpec &M) {
  const CollectiveCost &C = *Op.CommCost;
  J.object([&] {
    J.attributeArray("axes", [&] {
      for (unsigned A : Op.Axes)
        J.value(M.Axes[A].Name);
    });
    J.attribute("bytes", C.GroupBytes);
    J.attribute("kind", collectiveName(collectiveKindOf(Op.Kind)));
    J.attribute("latency_s", C.LatencyTime);
    J.attributeArray("levels", [&] {
      for (const LevelCost &L : C.Levels)
        J.object([&] {
          J.attribute("bytes", L.Bytes);
          J.attribute("fan_in", L.FanIn);
          J.attribute("level", M.Cluster->Levels[L.Level].Name);
          J.attribute("t_s", L.Time);
        });
    });
    J.attribute("t_s", C.Time);
  });
}

void opJson(OStream &J, const Statement &S,
            const std::vector<const Operation *> &Colls, const MeshSpec &M) {
  const OpCost &C = *S.Cost;
  J.object([&] {
    J.attribute("bound", boundName(C.Bounded));
    if (!S.Choice.empty())
      J.attribute("choice", S.Choice);
    J.attributeArray("collectives", [&] {
      for (const Operation *Op : Colls)
        collectiveJson(J, *Op, M);
    });
    J.attribute("flops_per_chip", C.Flops);
    J.attribute("hbm_bytes_per_chip", C.HbmBytes);
    J.attribute("intensity", C.HbmBytes > 0 ? C.Flops / C.HbmBytes : 0.0);
    J.attribute("kind", S.KindName);
    J.attribute("line", int64_t(S.Line));
    J.attribute("name", S.Name);
    if (S.RejectedTime)
      J.attributeObject("rejected", [&] {
        J.attribute("plan", S.Rejected);
        J.attribute("time_s", *S.RejectedTime);
      });
    J.attribute("repeat", S.Repeat);
    J.attribute("t_comms_s", C.TComms);
    J.attribute("t_hbm_s", C.THbm);
    J.attribute("t_math_s", C.TMath);
    J.attribute("time_s", C.Time);
  });
}

void tensorsJson(OStream &J, const Module &M) {
  J.attributeArray("tensors", [&] {
    for (const TensorInfo &T : inputTensors(M))
      J.object([&] {
        J.attribute("bytes_per_chip", T.Bytes);
        J.attribute("hbm_read_s", T.ReadTime);
        J.attribute("line", int64_t(T.Decl->Line));
        J.attribute("local_shape", T.LocalShape);
        J.attribute("name", T.Decl->Name);
        J.attribute("type", T.V->Type.str(*M.Mesh));
      });
  });
}

void totalJson(OStream &J, const ProgramCost &T) {
  J.attributeObject("total", [&] {
    J.attribute("flops", T.Flops);
    J.attributeArray("level_bytes", [&] {
      for (double B : T.LevelBytes)
        J.value(B);
    });
    J.attribute("mfu", T.Mfu);
    J.attribute("t_comms_s", T.TComms);
    J.attribute("t_hbm_s", T.THbm);
    J.attribute("t_math_s", T.TMath);
    J.attribute("time_s", T.Time);
  });
}

} // namespace

void shardc::printJsonReport(const Module &M, const llvm::SourceMgr &SM,
                             llvm::raw_ostream &OS) {
  auto Colls = collectivesByStatement(M);
  OStream J(OS, /*IndentSize=*/2);
  J.object([&] {
    clusterJson(J, *M.Mesh->Cluster);
    meshJson(J, *M.Mesh);
    J.attributeArray("ops", [&] {
      for (size_t I = 0; I < M.Statements.size(); ++I)
        if (M.Statements[I].Cost && M.Statements[I].KindName != "input")
          opJson(J, M.Statements[I], Colls[I], *M.Mesh);
    });
    J.attribute("overlap", M.Config.Overlap);
    J.attribute("source", M.SourceName);
    tensorsJson(J, M);
    totalJson(J, *M.Totals);
    J.attribute("version", int64_t(JsonVersion));
  });
  OS << "\n";
}
