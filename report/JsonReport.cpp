//===- JsonReport.cpp - The versioned JSON document (docs/json.md) --------===//
//
// SI base units throughout (seconds, bytes, FLOP). Streamed with JsonWriter
// (llvm::json::OStream's output: strings escaped, doubles printed exactly;
// nothing buffered per op). Keys are written in sorted order within each
// object, so the output is stable and diffable.
//
//===----------------------------------------------------------------------===//
#include "passes/SwitchedNetwork.h"
#include "report/Describe.h"
#include "report/JsonWriter.h"
#include "report/Report.h"
#include "llvm/Support/raw_ostream.h"

using namespace shardc;
using OStream = shardc::JsonWriter;

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

/// Whether the chip's figures are its datasheet peaks or measured (the
/// text says which beside the MFU).
llvm::StringRef peaksName(const ChipSpec &C) {
  return C.atDatasheetPeaks() ? "datasheet" : "measured";
}

/// The dtypes the chip gives a peak for in \p Peaks (matmul or vector),
/// sorted by name like every other key.
llvm::SmallVector<DType, 8>
peakDTypes(const std::array<double, NumDTypes> &Peaks) {
  llvm::SmallVector<DType, 8> Out;
  for (unsigned T = 0; T < NumDTypes; ++T)
    if (Peaks[T] > 0)
      Out.push_back(DType(T));
  llvm::sort(Out, [](DType A, DType B) { return dtypeName(A) < dtypeName(B); });
  return Out;
}

void chipJson(OStream &J, const ChipSpec &C) {
  J.attributeObject("chip", [&] {
    // The measured kernel rates, where the chip gives them (keys sorted).
    if (C.AttentionEfficiency || C.AttentionBackwardEfficiency)
      J.attributeObject("attention_efficiency", [&] {
        J.attribute("backward", C.attentionEfficiency(true));
        J.attribute("forward", C.attentionEfficiency(false));
      });
    J.attributeObject("critical_intensity", [&] {
      for (DType T : peakDTypes(C.Flops))
        J.attribute(dtypeName(T), C.Flops[unsigned(T)] / C.HbmBw);
    });
    if (C.ElementwiseEfficiency)
      J.attribute("elementwise_efficiency", *C.ElementwiseEfficiency);
    J.attributeObject("flops", [&] {
      for (DType T : peakDTypes(C.Flops))
        J.attribute(dtypeName(T), C.Flops[unsigned(T)]);
    });
    J.attribute("hbm_bw", C.HbmBw);
    J.attribute("hbm_bytes", C.HbmBytes);
    J.attribute("hbm_efficiency", C.HbmEfficiency);
    J.attribute("kernel_latency_s", C.KernelLatency);
    J.attribute("matmul_efficiency", C.MatmulEfficiency);
    J.attribute("matmul_hbm_efficiency", C.matmulHbmEfficiency());
    J.attribute("matmul_latency_s", C.matmulLatency());
    J.attribute("name", C.Name);
    J.attributeObject("vector_flops", [&] {
      for (DType T : peakDTypes(C.VectorFlops))
        J.attribute(dtypeName(T), C.VectorFlops[unsigned(T)]);
    });
  });
}

void clusterJson(OStream &J, const ClusterSpec &C) {
  J.attributeObject("cluster", [&] {
    chipJson(J, C.Chip);
    J.attributeArray("levels", [&] {
      for (const LevelSpec &L : C.Levels)
        J.object([&] {
          const LevelCalibration &Cal = L.Calibration;
          if (Cal.twoProtocols())
            J.attribute("bulk_latency_s", *Cal.BulkLatency);
          if (Cal.CommSmShare > 0)
            J.attribute("comm_sm_share", Cal.CommSmShare);
          J.attribute("efficiency", Cal.Efficiency);
          J.attribute("in_network_reduction", L.InNetworkReduction);
          J.attribute("latency_s", Cal.Latency);
          J.attribute("name", L.Name);
          J.attribute("reduction_efficiency", Cal.ReductionEfficiency > 0
                                                  ? Cal.ReductionEfficiency
                                                  : Cal.Efficiency);
          J.attribute("size", L.Size);
          if (Cal.twoProtocols())
            J.attribute("small_efficiency", Cal.SmallEfficiency);
          J.attribute("uplink_bw", effectiveUplink(L));
        });
    });
    J.attribute("name", C.Name);
  });
}

void collectiveJson(OStream &J, const CollectiveOp &Op, const MeshCompile &C) {
  const CollectiveCost &Cost = *C.Tables.Collectives[Op.id()];
  const MeshSpec &M = C.mesh();
  J.object([&] {
    J.attributeArray("axes", [&] {
      for (AxisId A : Op.axes())
        J.value(M.Axes[A].Name);
    });
    J.attribute("bytes", Cost.GroupBytes);
    J.attribute("kind", collectiveName(Op.collectiveKind()));
    // Its latency outweighs its bandwidth time (decode's small messages).
    J.attribute("latency_bound",
                Cost.LatencyTime > Cost.Time - Cost.LatencyTime);
    J.attribute("latency_s", Cost.LatencyTime);
    J.attributeArray("levels", [&] {
      for (const LevelCost &L : Cost.Levels)
        J.object([&] {
          J.attribute("bytes", L.Bytes);
          J.attribute("fan_in", L.FanIn);
          J.attribute("level", M.Cluster->Levels[L.Level].Name);
          J.attribute("t_s", L.Time);
        });
    });
    if (Cost.SmallProtocol)
      J.attribute("protocol", *Cost.SmallProtocol ? "small" : "bulk");
    J.attribute("t_s", Cost.Time);
  });
}

/// A plan as data: its steps, its op time, and the sentence it reads as.
void planJson(OStream &J, const PlanSummary &P, const TypeNames &Names) {
  J.object([&] {
    J.attribute("bytes_moved", P.BytesMoved);
    J.attributeArray("steps", [&] {
      for (const PlanStep &S : P.Steps)
        J.object([&] {
          J.attributeArray("axes", [&] {
            for (AxisId A : S.Axes)
              J.value(Names.Axes[A]);
          });
          if (S.Kind == StepKind::Convert)
            J.attribute("dtype", dtypeName(S.Elt));
          J.attribute("kind", stepKindName(S.Kind));
          J.attribute("value", S.Value);
        });
    });
    J.attribute("text", describePlan(P, Names));
    J.attribute("time_s", P.Time);
  });
}

void choiceJson(OStream &J, const PlanChoice &C, const TypeNames &Names) {
  J.attributeObject("choice", [&] {
    J.attributeBegin("chosen");
    planJson(J, C.Chosen, Names);
    J.attributeEnd();
    if (C.Rejected) {
      J.attributeBegin("rejected");
      planJson(J, *C.Rejected, Names);
      J.attributeEnd();
    }
  });
}

/// A contraction's GEMM per chip, what the GEMM model makes of it and the
/// ceiling (docs/json.md): every contraction has one, tiles or not.
void gemmJson(OStream &J, const OpCost &Cost) {
  const GemmShape &G = Cost.Gemm;
  J.attributeObject("gemm", [&] {
    J.attribute("batch", G.Batch);
    J.attribute("ceiling", Cost.GemmCeiling);
    J.attribute("dtype", dtypeName(Cost.GemmElt));
    J.attribute("efficiency", Cost.GemmEfficiency);
    J.attribute("k", G.K);
    J.attribute("m", G.M);
    J.attribute("n", G.N);
  });
}

/// `fuse = elementwise`: a kernel's root names the statements fused into
/// it (`fused_with`), each of them the root (`fused_into`).
void fusionJson(OStream &J, const MeshCompile &C, unsigned Stmt,
                llvm::ArrayRef<std::string> IrNames) {
  const FusedKernel *K =
      C.Tables.Fusion ? C.Tables.Fusion->kernelOf(Stmt) : nullptr;
  if (!K)
    return;
  auto Ir = [&](unsigned I) -> llvm::StringRef {
    return IrNames[I].empty() ? C.program().statement(I).Name : IrNames[I];
  };
  if (K->root() != Stmt) {
    J.attribute("fused_into", Ir(K->root()));
    return;
  }
  J.attributeArray("fused_with", [&] {
    for (unsigned I : llvm::makeArrayRef(K->Stmts).drop_back())
      J.value(Ir(I));
  });
}

/// \p Phase, when not empty, names the ops' phase in place of their
/// statements' own (a serving program's decode step).
void opJson(OStream &J, const MeshCompile &C, unsigned Stmt,
            llvm::ArrayRef<const CollectiveOp *> Colls,
            llvm::ArrayRef<std::string> IrNames, llvm::StringRef Phase) {
  llvm::StringRef IrName = IrNames[Stmt];
  const Statement &S = C.program().statement(Stmt);
  const OpCost &Cost = *C.Tables.StatementCosts[Stmt];
  const auto &Choice = C.Tables.Choices[Stmt];
  const TypeNames &Names = C.program().names();
  // A statement fused into another's kernel has no time of its own to be
  // bound by: its row is `fused` (the text report says so too).
  const FusedKernel *Kernel =
      C.Tables.Fusion ? C.Tables.Fusion->kernelOf(Stmt) : nullptr;
  bool FusedAway = Kernel && Kernel->root() != Stmt;
  J.object([&] {
    J.attribute("bound",
                FusedAway ? llvm::StringRef("fused") : boundName(Cost.Bounded));
    if (Choice)
      choiceJson(J, *Choice, Names);
    if (S.From)
      J.attribute("computes", describeProvenance(*S.From, C.program().statement(
                                                              S.From->Stmt)));
    J.attributeArray("collectives", [&] {
      for (const CollectiveOp *Op : Colls)
        collectiveJson(J, *Op, C);
    });
    J.attribute("flops_per_chip", Cost.Flops);
    fusionJson(J, C, Stmt, IrNames);
    if (Cost.Gemm.valid())
      gemmJson(J, Cost);
    J.attribute("hbm_bytes_per_chip", Cost.HbmBytes);
    J.attribute("intensity",
                Cost.HbmBytes > 0 ? Cost.Flops / Cost.HbmBytes : 0.0);
    J.attribute("ir_name", IrName.empty() ? llvm::StringRef(S.Name) : IrName);
    J.attribute("kind", opNoun(S.Kind));
    J.attribute("line", int64_t(S.Location.Line));
    J.attribute("name", S.Name);
    if (Stmt < C.Tables.Overlaps.size() && C.Tables.Overlaps[Stmt]) {
      const OverlapCost &O = *C.Tables.Overlaps[Stmt];
      J.attributeObject("overlapped", [&] {
        J.attribute("adds_s", O.Charge);
        J.attribute("contention_s", O.Contention);
        J.attribute("t_comms_s", O.TComms);
        J.attributeArray("under", [&] {
          for (unsigned P : O.Partners)
            J.value(C.program().statement(P).Name);
        });
        J.attribute("under_s", O.Under);
      });
    }
    J.attribute("phase", Phase.empty() ? phaseName(S.Ph) : Phase);
    J.attribute("repeat", S.Repeat);
    J.attribute("t_comms_s", Cost.TComms);
    J.attribute("t_hbm_s", Cost.THbm);
    J.attribute("t_math_s", Cost.TMath);
    J.attribute("t_serial_s", Cost.TSerial);
    J.attribute("time_s", Cost.Time);
    J.attribute("vector_peak_fallback", Cost.VectorFallback != 0);
  });
}

/// COST-MODEL.md §6.5: a training step's summary, with the names issue 11
/// fixed for scripts (docs/json.md).
void stepJson(OStream &J, const MeshCompile &C, const StepSummary &S) {
  J.attributeObject("step", [&] {
    J.attribute("backward_first_s", S.TBwdFirst);
    J.attribute("backward_s", S.TBwd);
    J.attribute("bubble", S.Pipeline ? S.Pipeline->Bubble : 0.0);
    if (S.CostliestComms) {
      const Statement &St = C.program().statement(*S.CostliestComms);
      J.attributeObject("costliest_collective", [&] {
        J.attribute("line", int64_t(St.Location.Line));
        J.attribute("name", St.Name);
        J.attribute("phase", phaseName(St.Ph));
        J.attribute("time_per_step_s", S.CostliestCommsTime);
      });
    }
    if (C.config().Train->FixedCosts)
      J.attributeObject("fixed_costs", [&] {
        J.attribute("grad_norm_s", S.TFixedPart[FixedNorm]);
        J.attribute("inf_check_s", S.TFixedPart[FixedInfCheck]);
        J.attribute("master_copy_s", S.TFixedPart[FixedMasterCopy]);
        J.attribute("total_s", S.TFixed);
        J.attribute("zero_grad_s", S.TFixedPart[FixedZeroGrad]);
      });
    J.attribute("forward_s", S.TFwd);
    if (Fp8Recipe R = C.config().Train->Fp8; R != Fp8Recipe::None) {
      J.attribute("fp8", fp8RecipeName(R));
      J.attribute("fp8_cast_bytes", S.CastBytes);
    }
    J.attribute("global_batch", S.GlobalBatch);
    J.attribute("hfu", S.Hfu);
    J.attribute("mfu", S.Mfu);
    J.attribute("mfu_causal_full", S.MfuCausalFull);
    J.attribute("microbatches", S.Microbatches);
    J.attribute("model_flops", S.ModelFlops);
    J.attribute("model_flops_causal_full", S.ModelFlopsCausalFull);
    J.attribute("optimizer_s", S.TOpt);
    J.attribute("param_gather_s", S.TParamGather);
    J.attribute("peaks", peaksName(C.mesh().Cluster->Chip));
    if (const auto &PI = S.Pipeline)
      J.attributeObject("pipeline", [&] {
        J.attribute("axis", C.program().names().Axes[PI->Axis]);
        J.attribute("chunks", PI->Chunks);
        J.attribute("schedule", scheduleName(PI->Schedule));
        J.attribute("send_backward_s", PI->SendBwd);
        J.attribute("send_forward_s", PI->SendFwd);
        if (!PI->SendGatherAxes.empty())
          J.attributeArray("send_gather_axes", [&] {
            for (AxisId A : PI->SendGatherAxes.list())
              J.value(C.program().names().Axes[A]);
          });
        J.attribute("slowest_stage", int64_t(PI->SlowestStage));
        J.attributeArray("stages", [&] {
          for (size_t I = 0; I < PI->StageFwd.size(); ++I)
            J.object([&] {
              J.attribute("backward_s", PI->StageBwd[I]);
              J.attribute("forward_s", PI->StageFwd[I]);
            });
        });
      });
    J.attribute("pipeline_s", S.TPipe);
    J.attribute("sync_exposed_s", S.TSyncExposed);
    J.attribute("sync_s", S.TSync);
    J.attribute("tied_sync_s", S.TTiedSync);
    J.attribute("time_s", S.TStep);
    J.attribute("tokens", S.Tokens);
    J.attribute("tokens_per_s", S.TokensPerSecond);
  });
}

/// COST-MODEL.md §7: bytes per chip by term (docs/json.md).
void memoryJson(OStream &J, const MemorySummary &M) {
  auto Term = [&](MemoryTerm T) { return M.Bytes[unsigned(T)]; };
  J.attributeObject("memory", [&] {
    J.attribute("activations_bytes", Term(MemoryTerm::Activations));
    J.attribute("activations_in_flight", M.InFlight);
    J.attribute("gradients_bytes", Term(MemoryTerm::Gradients));
    J.attribute("hbm_bytes", M.Capacity);
    J.attribute("optimizer_bytes", Term(MemoryTerm::Optimizer));
    if (M.Stages > 1) {
      J.attribute("other_end_total_bytes", M.OtherEndTotal);
      J.attribute("stage", M.Stage);
    }
    J.attribute("total_bytes", M.Total);
    J.attribute("transient_bytes", Term(MemoryTerm::Transient));
    J.attribute("weights_bytes", Term(MemoryTerm::Weights));
  });
}

void tensorsJson(OStream &J, const MeshCompile &C) {
  J.attributeArray("tensors", [&] {
    for (const TensorInfo &T : inputTensors(C))
      J.object([&] {
        J.attribute("bytes_per_chip", T.Bytes);
        J.attribute("hbm_read_s", T.ReadTime);
        J.attribute("line", int64_t(T.Decl->Location.Line));
        J.attribute("local_shape", T.LocalShape);
        J.attribute("name", T.Decl->Name);
        if (T.Param)
          J.attribute("param", true);
        J.attribute("type", C.program().typeStr(T.V->type()));
      });
  });
}

void totalJson(OStream &J, const ProgramCost &T, const ChipSpec &Chip) {
  J.attributeObject("total", [&] {
    J.attribute("flops", T.Flops);
    J.attributeArray("level_bytes", [&] {
      for (double B : T.LevelBytes)
        J.value(B);
    });
    J.attribute("mfu", T.Mfu);
    J.attribute("peaks", peaksName(Chip));
    J.attribute("t_comms_s", T.TComms);
    J.attribute("t_hbm_s", T.THbm);
    J.attribute("t_math_s", T.TMath);
    J.attribute("time_s", T.Time);
  });
}

/// The text report's zero-latency note as data (docs/json.md), present only
/// where the note is printed.
void latencyFreeJson(OStream &J, const MeshCompile &C) {
  LatencyFreeCollectives L = latencyFreeCollectives(C);
  if (L.Count <= 0)
    return;
  J.attributeObject("latency_free_collectives", [&] {
    J.attribute("count_per_step", L.Count);
    J.attribute("threshold_s", LatencyBoundSmallTime);
    J.attribute("time_per_step_s", L.Time);
  });
}

void diagnosticsJson(OStream &J, llvm::ArrayRef<JsonDiagnostic> Diags) {
  J.attributeArray("diagnostics", [&] {
    for (const JsonDiagnostic &D : Diags)
      J.object([&] {
        if (!D.File.empty()) {
          J.attribute("column", int64_t(D.Column));
          J.attribute("file", D.File);
          J.attribute("line", int64_t(D.Line));
        }
        J.attribute("message", D.Message);
        J.attribute("severity", D.Severity);
      });
  });
}

} // namespace

void shardc::printJsonEntry(const JsonEntry &E, llvm::raw_ostream &OS) {
  OStream J(OS, /*IndentSize=*/2);
  const MeshCompile *C = E.Compile;
  J.object([&] {
    J.attribute("chunk", int64_t(E.Chunk));
    if (C)
      clusterJson(J, *C->mesh().Cluster);
    diagnosticsJson(J, E.Diagnostics);
    if (C)
      latencyFreeJson(J, *C);
    if (C && C->Tables.Memory)
      memoryJson(J, *C->Tables.Memory);
    if (C) {
      meshJson(J, C->mesh());
      auto Colls = collectivesByStatement(*C->lowered());
      std::vector<std::string> IrNames = irNames(*C);
      const ProgramInfo &Info = C->program().info();
      J.attributeArray("ops", [&] {
        for (size_t I = 0; I < Info.Statements.size(); ++I)
          if (C->Tables.StatementCosts[I] &&
              Info.Statements[I].Kind != OpKind::Input &&
              Info.Statements[I].Kind != OpKind::Param)
            opJson(J, *C, I, Colls[I], IrNames, E.OpPhase);
      });
      J.attribute("overlap", C->config().Overlap);
    }
    if (!E.Overrides.empty())
      J.attributeArray("overrides", [&] {
        for (const std::string &O : E.Overrides)
          J.value(O);
      });
    if (E.Search)
      E.Search(J);
    if (E.Serve)
      E.Serve(J);
    J.attribute("source", E.Source);
    J.attribute("status", E.Failed ? "error" : C ? "ok" : "no_mesh");
    if (C && C->Tables.Step)
      stepJson(J, *C, *C->Tables.Step);
    if (C) {
      tensorsJson(J, *C);
      totalJson(J, *C->Tables.Totals, C->mesh().Cluster->Chip);
    }
    J.attribute("version", int64_t(JsonVersion));
  });
}

void shardc::printJsonReport(const MeshCompile &C, llvm::raw_ostream &OS) {
  JsonEntry E;
  E.Source = C.program().info().SourceName;
  E.Compile = &C;
  OS << "[\n";
  printJsonEntry(E, OS);
  OS << "\n]\n";
}
