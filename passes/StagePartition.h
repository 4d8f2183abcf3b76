//===- StagePartition.h - Which stage runs what -----------------*- C++ -*-===//
//
// LANGUAGE.md §9 and COST-MODEL.md §6.3: a training step with a pipelined
// `repeat N over A` runs on p stages of v chunks each. The layers (the
// pipelined repeats' iterations) are shared out among the (stage, chunk)
// pairs; what precedes the forward's repeat (the embedding) runs on the
// first stage, what follows it (the head, the loss) on the last, and a
// backward runs where its forward did. A param lives, and is updated, where
// it is declared; an input is loaded wherever it is read. This is the one
// place that says so: the schedule (ScheduleStep), the memory check
// (CheckMemory) and the timeline (Timeline) all read the partition
// schedule-step computes once per MeshCompile (Analyses::Partition).
//
// Each (stage, chunk) owns an explicit list of layer iterations: uneven
// stages change how `partitionStages` deals them out, nothing else.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_STAGEPARTITION_H
#define SHARDC_PASSES_STAGEPARTITION_H

#include "ir/Module.h"
#include "ir/Ops.h"
#include <array>
#include <cstdint>
#include <vector>

namespace shardc {
class MeshCompile;

/// Which stages run a statement or a top-level op of the step.
enum class StageSide : uint8_t {
  First,  ///< the first stage only (before the layers; its backward)
  Layers, ///< every stage, its own iterations of the pipelined repeats
  Last,   ///< the last stage only (after the layers; its backward)
};

/// The part of the step a piece belongs to (a gradient sync is the
/// backward's: it is issued there).
enum class StepPart : uint8_t { Forward, Backward, Optimizer };
constexpr unsigned NumStepParts = 3;

StepPart stepPart(Phase Ph);
/// The statement that stands for \p O: its own, or a repeat's first
/// (NoStmt for an empty repeat).
unsigned pieceStmt(const Op &O);

/// Consecutive iterations of the pipelined repeats: [First, First + Count).
/// A count, not a list: a repeat may have 2^32 iterations.
struct LayerRange {
  int64_t First = 0, Count = 0;
  bool operator==(const LayerRange &O) const = default;
};

struct StagePartition {
  unsigned Stages = 1;
  int64_t Chunks = 1;
  /// [stage][chunk]: the iterations of the pipelined repeats it runs.
  /// Virtual stage c·p + s (the interleaved schedule's order) runs the k
  /// iterations from (c·p + s)·k, k = N / (p·v).
  std::vector<std::vector<LayerRange>> Layers;
  /// The lowered module's pipelined repeats: the forward's, the
  /// backward's and the optimizer's (null without a pipeline; the
  /// optimizer's also when its updates are not in a repeat).
  const RepeatOp *FwdLayers = nullptr, *BwdLayers = nullptr,
                 *OptLayers = nullptr;
  /// The forward's pipelined repeat in the program the lowered module was
  /// made from (MeshCompile::program()): its carried values are the
  /// boundary each stage receives.
  const RepeatOp *ProgramLayers = nullptr;
  /// By statement: which stages run it. A statement in a repeat that is
  /// not pipelined runs where that repeat does.
  std::vector<StageSide> Side;
  /// By statement: a param declared before the layers that the forward
  /// reads after them too (a tied embedding and LM head). The last stage
  /// holds a copy with its own gradient and optimizer state, syncs and
  /// updates it as the first stage does, and the two copies' gradients are
  /// summed by one exchange over the pipeline axis after the backward, as
  /// Megatron-LM's embedding group does (docs/training.md).
  std::vector<bool> TiedOnLast;
  /// The lowered module's top-level ops outside the pipelined repeats, by
  /// part and side (First or Last), in program order: a repeat, or the
  /// first op of each statement. Without a pipeline every one is First's.
  std::array<std::array<std::vector<const Op *>, 2>, NumStepParts> Pieces;

  bool pipelined() const { return FwdLayers != nullptr; }
  /// The pieces of \p P on side \p S (First or Last).
  llvm::ArrayRef<const Op *> pieces(StepPart P, StageSide S) const {
    assert(S != StageSide::Layers && "the layers are FwdLayers and co.");
    return Pieces[unsigned(P)][S == StageSide::Last];
  }
  /// How many layer iterations (stage, chunk) runs; the whole stage's; all.
  int64_t layers(unsigned Stage, unsigned Chunk) const {
    return Layers[Stage][Chunk].Count;
  }
  int64_t stageLayers(unsigned Stage) const;
  int64_t totalLayers() const;
  /// Whether stage \p Stage runs what is on side \p S.
  bool runs(unsigned Stage, StageSide S) const {
    return S == StageSide::Layers ||
           (S == StageSide::First ? Stage == 0 : Stage + 1 == Stages);
  }
  /// The side of \p O, an op of the lowered module or of the program it was
  /// made from: its statement's, or a repeat's first statement's.
  StageSide side(const Op &O) const;
  /// Whether stage \p Stage holds a tied copy of the param of statement
  /// \p Stmt, or runs a statement derived from one (its sync, its update).
  bool tiedCopy(unsigned Stage, unsigned Stmt) const {
    return Stages > 1 && Stage + 1 == Stages && Stmt < TiedOnLast.size() &&
           TiedOnLast[Stmt];
  }
  /// The share of \p Copies (versions of something on side \p S, one per
  /// layer iteration when it is the layers') that stage \p Stage holds.
  double share(unsigned Stage, StageSide S, double Copies) const;
};

/// The partition of \p C's training step (after insert-collectives): p is
/// the size of the forward's pipelined repeat's axis, v the interleaved
/// schedule's chunks; one stage of one chunk without a pipeline.
StagePartition partitionStages(const MeshCompile &C);

} // namespace shardc

#endif // SHARDC_PASSES_STAGEPARTITION_H
