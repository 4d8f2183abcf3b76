//===- Fusion.cpp - Elementwise chains run as one kernel ------------------===//
//
// docs/cost-model.md §1, "Fusion". Frameworks run a chain of elementwise
// ops as one kernel (Megatron-LM's bias-dropout-add and bias-GeLU,
// Transformer Engine's fused norms): an intermediate is never written to
// HBM nor read back. With `fuse = elementwise`:
//  1. a statement may fuse when its lowered ops are exactly one local op
//     that is Fusable (ir/Ops.def's column: elementwise builtins and their
//     gradients) — a statement that moves data (a collective, a convert)
//     is a kernel boundary;
//  2. a value joins its producer and its consumer when both may fuse, they
//     run in the same block, and the value has exactly one use and is not
//     carried by a repeat. A value saved for the backward is read by the
//     backward too, so it has two uses and is written: the chain breaks
//     there. Selective and full recompute make the backward read a
//     recomputed copy, so the forward value then fuses;
//  3. each connected set of two or more statements is a kernel: its bytes
//     are its members' minus each intermediate's write and read, and minus
//     the repeated reads of an input several members read.
// The backward's elementwise gradients fuse by the same rule, as the
// fused kernels' backward kernels do in Megatron-LM (bias-GeLU's and
// bias-dropout-add's backward are fused kernels too); a sum of gradient
// contributions is a kernel of its own (isGradientSum).
// The statements are the lowered module's, whose ids (and provenance) are
// the training module's.
//
//===----------------------------------------------------------------------===//
#include "passes/Fusion.h"
#include "passes/Pipeline.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace shardc;

namespace {

/// True for the sum of a value's gradient contributions (derive-backward):
/// PyTorch's autograd accumulates them in a kernel of its own, and the
/// value they are the gradient of has several uses, so it ends a chain in
/// the forward too.
bool isGradientSum(const Statement &S) {
  return S.From && S.From->What == Provenance::Sum;
}

/// Step 1: by statement, its one Fusable op, or null.
std::vector<const Op *> fusableOps(const Module &M) {
  std::vector<const Op *> Only(M.info().Statements.size(), nullptr);
  std::vector<unsigned> Count(Only.size(), 0);
  walk(M.body(), [&](const Op &O) {
    if (!O.result() || O.stmt() == NoStmt)
      return;
    if (++Count[O.stmt()] == 1 && isa<Fusable>(&O) &&
        !isGradientSum(M.statement(O.stmt())))
      Only[O.stmt()] = &O;
    else
      Only[O.stmt()] = nullptr;
  });
  return Only;
}

/// The values a repeat carries (its inits and its next values): read by
/// the next iteration or the code after it, so never an intermediate.
llvm::DenseSet<const Value *> carriedValues(const Module &M) {
  llvm::DenseSet<const Value *> Carried;
  walk<RepeatOp>(M.body(), [&](const RepeatOp &R) {
    for (const RepeatOp::Carried &P : R.carried()) {
      Carried.insert(P.Init);
      Carried.insert(P.Next);
    }
  });
  return Carried;
}

/// Step 3: kernel \p K's bytes per chip, and its members' apart.
void kernelBytes(FusedKernel &K, llvm::ArrayRef<const Op *> Ops,
                 const MeshSpec &Mesh) {
  llvm::DenseSet<const Value *> Inside;
  for (unsigned S : K.Stmts)
    Inside.insert(Ops[S]->result());
  llvm::DenseSet<const Value *> Read;
  K.UnfusedBytes = 0;
  double Saved = 0;
  for (unsigned S : K.Stmts) {
    const Op &O = *Ops[S];
    K.UnfusedBytes += cast<Costed>(O).work(Mesh)->HbmBytes;
    for (const Value *V : O.operands())
      if (Inside.contains(V))
        Saved += 2 * V->type().localBytes(Mesh); // never written, never read
      else if (!Read.insert(V).second)
        Saved += V->type().localBytes(Mesh); // read once for the kernel
  }
  K.Bytes = K.UnfusedBytes - Saved;
}

} // namespace

FusionTable shardc::findFusedKernels(const MeshCompile &C) {
  const Module &M = *C.lowered();
  std::vector<const Op *> Ops = fusableOps(M);
  llvm::DenseSet<const Value *> Carried = carriedValues(M);
  // Step 2: join each producer to its consumer (union-find by statement).
  std::vector<unsigned> Parent(Ops.size());
  for (unsigned I = 0; I < Parent.size(); ++I)
    Parent[I] = I;
  auto Find = [&](unsigned I) {
    while (Parent[I] != I)
      I = Parent[I] = Parent[Parent[I]];
    return I;
  };
  for (const Op *O : Ops) {
    if (!O)
      continue;
    for (const Value *V : O->operands()) {
      const Op *P = V->def();
      if (!P || P->stmt() == NoStmt || Ops[P->stmt()] != P ||
          V->users().size() != 1 || P->parent() != O->parent() ||
          Carried.contains(V) ||
          M.statement(P->stmt()).Ph != M.statement(O->stmt()).Ph)
        continue;
      Parent[Find(P->stmt())] = Find(O->stmt());
    }
  }
  // Step 3: the sets of two or more, members in program order.
  FusionTable T;
  T.KernelOf.assign(Ops.size(), -1);
  std::vector<unsigned> Size(Ops.size(), 0);
  for (unsigned I = 0; I < Ops.size(); ++I)
    ++Size[Find(I)];
  llvm::DenseMap<unsigned, int> ByLeader;
  walk(M.body(), [&](const Op &O) {
    if (!O.result() || O.stmt() == NoStmt || Ops[O.stmt()] != &O ||
        Size[Find(O.stmt())] < 2)
      return;
    unsigned Leader = Find(O.stmt());
    auto [Slot, New] = ByLeader.try_emplace(Leader, int(T.Kernels.size()));
    if (New)
      T.Kernels.emplace_back();
    T.Kernels[size_t(Slot->second)].Stmts.push_back(O.stmt());
    T.KernelOf[O.stmt()] = Slot->second;
  });
  for (FusedKernel &K : T.Kernels)
    kernelBytes(K, Ops, C.mesh());
  return T;
}

OpCost shardc::fusedKernelCost(const FusedKernel &K,
                               llvm::ArrayRef<const OpCost *> Members,
                               const ChipSpec &Chip) {
  OpCost Cost;
  for (const OpCost *M : Members) {
    Cost.Flops += M->Flops;
    Cost.TMath += M->TMath;
    Cost.VectorFallback |= M->VectorFallback;
  }
  OpWork Bytes;
  Bytes.HbmBytes = K.Bytes;
  Cost.HbmBytes = K.Bytes;
  Cost.THbm = Cost.FirstTHbm = computeTime(Bytes, Chip).THbm;
  return Cost;
}
