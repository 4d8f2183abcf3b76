//===- Training.cpp - What a train { } block asks for ---------------------===//
#include "ir/Training.h"
#include "ir/Module.h"
#include "ir/Ops.h"
#include "llvm/Support/ErrorHandling.h"
#include <fmt/format.h>

using namespace shardc;

llvm::StringRef shardc::optimizerName(OptimizerKind K) {
  switch (K) {
  case OptimizerKind::Adam:
    return "adam";
  case OptimizerKind::Sgd:
    return "sgd";
  case OptimizerKind::None:
    return "none";
  }
  llvm_unreachable("every optimizer is handled");
}

llvm::StringRef shardc::recomputeName(RecomputePolicy R) {
  switch (R) {
  case RecomputePolicy::None:
    return "none";
  case RecomputePolicy::Selective:
    return "selective";
  case RecomputePolicy::Full:
    return "full";
  case RecomputePolicy::Attention:
    return "attention";
  }
  llvm_unreachable("every policy is handled");
}

llvm::StringRef shardc::fp8RecipeName(Fp8Recipe R) {
  switch (R) {
  case Fp8Recipe::None:
    return "none";
  case Fp8Recipe::Hybrid:
    return "hybrid";
  case Fp8Recipe::E4M3:
    return "e4m3";
  }
  llvm_unreachable("every recipe is handled");
}

llvm::StringRef shardc::scheduleName(PipelineSchedule S) {
  switch (S) {
  case PipelineSchedule::GPipe:
    return "gpipe";
  case PipelineSchedule::OneFOneB:
    return "1f1b";
  case PipelineSchedule::Interleaved:
    return "interleaved";
  }
  llvm_unreachable("every schedule is handled");
}

llvm::StringRef shardc::phaseName(Phase P) {
  switch (P) {
  case Phase::Forward:
    return "forward";
  case Phase::Backward:
    return "backward";
  case Phase::Sync:
    return "sync";
  case Phase::Optimizer:
    return "optimizer";
  }
  llvm_unreachable("every phase is handled");
}

std::string shardc::describeProvenance(const Provenance &P,
                                       const Statement &Fwd) {
  unsigned Line = Fwd.Location.Line;
  switch (P.What) {
  case Provenance::Seed:
    return fmt::format("seed: the gradient of output '{}' (line {})", Fwd.Name,
                       Line);
  case Provenance::Zero:
    return fmt::format("zero gradient of '{}', accumulated over the loop's "
                       "iterations",
                       P.Wrt);
  case Provenance::Gradient:
    return fmt::format("grad of '{}' at line {} w.r.t. {}", Fwd.Name, Line,
                       P.Wrt);
  case Provenance::Recompute:
    return fmt::format("recompute of '{}' (line {})", Fwd.Name, Line);
  case Provenance::Sum:
    return fmt::format("sum of the gradient contributions to '{}'", P.Wrt);
  case Provenance::Sync:
    return fmt::format("sync of {}'s gradient, {}", P.Wrt,
                       P.EveryMicrobatch ? "every microbatch"
                                         : "once per step");
  case Provenance::Update:
    return fmt::format("optimizer update of {}", P.Wrt);
  case Provenance::Gather:
    return fmt::format("gather of the updated {}", P.Wrt);
  case Provenance::Fixed:
    return fmt::format("fixed cost of {}'s update", P.Wrt);
  }
  return "";
}

const Value *shardc::batchCountedOn(const Module &M) {
  const Value *From = nullptr;
  for (const auto &O : M.body().ops()) {
    if (auto *R = dyn_cast<RepeatOp>(O.get()); R && !R->carried().empty()) {
      From = R->carried().front().Init;
      break;
    }
    if (!From && isa<InputOp>(O.get()) &&
        M.statement(O->stmt()).Ph == Phase::Forward)
      From = O->result();
  }
  return From;
}
