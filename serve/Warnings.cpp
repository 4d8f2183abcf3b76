//===- Warnings.cpp - The book's serving warnings -------------------------===//
//
// docs/inference.md, "Warnings": the warnings a served program raises once
// its serving batch is known: decode collectives that outlast the weight
// reads, and collectives priced free of latency.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "ir/ModelOps.h"
#include "serve/Engine.h"
#include "support/Format.h"

using namespace shardc;

void ServeEngine::warnings(const ServeResult &R) const {
  warnCommsOverWeights(R);
  warnNoLatency(*R.DecodeCompile);
}

void ServeEngine::warnCommsOverWeights(const ServeResult &R) const {
  // Model parallelism past its memory-bound limit: the decode step's
  // collectives (latency included) outlast its weight reads.
  double WeightReads = 0;
  for (const ServeRow &Row : R.Decode.Rows)
    WeightReads += Row.WeightHbm * double(Row.Repeat);
  if (WeightReads > 0 && R.Decode.TComms > WeightReads)
    Diags.report(S.At, diag::ServeCommsOverWeights, R.Batch,
                 formatTime(R.Decode.TComms), formatTime(WeightReads));
}

void ServeEngine::warnNoLatency(const MeshCompile &C) const {
  // A decode collective over a level with no latency is priced free of it.
  const auto &Levels = Mesh.Cluster->Levels;
  std::vector<int64_t> Crossing(Levels.size(), 0);
  walk(C.lowered()->body(), [&](const Op &O) {
    if (O.id() < C.Tables.Collectives.size())
      if (const auto &Cc = C.Tables.Collectives[O.id()])
        for (const LevelCost &L : Cc->Levels)
          if (L.Level < Levels.size() && L.Bytes > 0)
            Crossing[L.Level] +=
                O.stmt() == NoStmt ? 1 : Checked.statement(O.stmt()).Repeat;
  });
  for (unsigned L = 0; L < Levels.size(); ++L) {
    const LevelCalibration &Cal = Levels[L].Calibration;
    if (Crossing[L] && Cal.Latency <= 0 && !(Cal.BulkLatency > 0.0))
      Diags.report(S.At, diag::ServeNoLatency, Levels[L].Name, Crossing[L]);
  }
}
