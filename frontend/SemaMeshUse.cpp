//===- SemaMeshUse.cpp - How the program uses its mesh, checked whole -----===//
//
// Warnings that need the whole program and its mesh: a tensor-parallel axis
// (one a layer's contraction sums over) whose groups leave a node. A mesh is
// laid out row-major on the cluster's chips (the last axis varies fastest), so
// an axis's groups are the chips stride apart, stride the product of the sizes
// after it.
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include "ir/Ops.h"

using namespace shardc;

/// A contracted dim sharded over the same axis in both operands, one of
/// them a param, leaves each chip a partial product of a layer to sum over
/// that axis: tensor parallelism (a row-parallel layer), whose reduction is
/// on the critical path. A data-parallel axis sums only weight gradients
/// (derived, or written by hand between activations: no param operand), and
/// a training step writes FSDP's params replicated (`zero = 3`), so neither
/// counts.
void Sema::noteTensorParallel(const ShardType &L, const ShardType &R,
                              llvm::ArrayRef<Value *> Args,
                              llvm::ArrayRef<ContractionDim> Dims,
                              const AssignDecl &St) {
  if (llvm::none_of(Args, [](const Value *V) {
        return V->def() && isa<ParamOp>(V->def());
      }))
    return;
  for (const ContractionDim &D : Dims) {
    if (D.Role != DimRole::Contracted)
      continue;
    AxisSet Both = AxisSet::of(L.Dims[*L.dimIndex(D.Id)].Axes) &
                   AxisSet::of(R.Dims[*R.dimIndex(D.Id)].Axes);
    for (AxisId A : Both.list())
      if (llvm::none_of(TensorParallel,
                        [&](const auto &T) { return T.Axis == A; }))
        TensorParallel.push_back({A, St.Range, St.Out.Name});
  }
}

/// Whether the groups of mesh axis \p A each fit in one unit of the
/// cluster's first level: the first group's chips 0, stride, ..., and
/// every group alike when the block of chips the axis and those after it
/// cover tiles the node.
static bool groupsInOneNode(const MeshSpec &M, AxisId A) {
  int64_t Stride = 1;
  for (unsigned I = A + 1; I < M.Axes.size(); ++I)
    Stride *= M.Axes[I].Size;
  int64_t Block = Stride * M.Axes[A].Size;
  int64_t Node = M.Cluster->Levels.front().Size;
  return Block <= Node && Node % Block == 0;
}

void Sema::warnTensorParallelSpan() {
  if (!Mesh || !Mesh->Cluster || Mesh->Cluster->Levels.size() < 2)
    return;
  const Symbol *MeshSym = lookup(Mesh->Name);
  if (!MeshSym)
    return;
  const LevelSpec &Node = Mesh->Cluster->Levels.front();
  for (const TensorParallelUse &T : TensorParallel) {
    AxisId A = T.Axis;
    if (Mesh->Axes[A].Size == 1 || groupsInOneNode(*Mesh, A))
      continue;
    Diags.report(MeshSym->Range, diag::TensorParallelSpansNodes,
                 Mesh->Axes[A].Name, Mesh->Axes[A].Size, Node.Name, Node.Size);
    Diags.report(T.At, diag::TensorParallelHere, T.Stmt, Mesh->Axes[A].Name);
  }
}
