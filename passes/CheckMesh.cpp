//===- CheckMesh.cpp - What a mesh must offer the checked program ---------===//
//
// The frontend checks a program against the mesh its file names; a re-cost
// puts the same checked module on another mesh or cluster. This pass holds
// that mesh to the rules that depend on its sizes and its chip, reporting at
// the op whose value breaks them:
//  1. every value's dims divide evenly by their axes (LANGUAGE.md §4 rule
//     3), unless `allow_padding` is set;
//  2. the chip has a peak for the dtype of every op that computes (matmul
//     peak for contractions, vector or matmul for the rest).
// On the file's own mesh the frontend has already reported any of these, at
// the exact index, so this pass finds nothing there.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "passes/Pipeline.h"

using namespace shardc;

namespace {

class CheckMesh : public Pass {
public:
  llvm::StringRef name() const override { return "check-mesh"; }
  bool run(MeshCompile &C, DiagnosticEngine &Diags) override;

private:
  void divisible(const Op &O, const ShardType &T);
  void peak(const Op &O);

  const MeshCompile *C = nullptr;
  DiagnosticEngine *Diags = nullptr;
};

void CheckMesh::divisible(const Op &O, const ShardType &T) {
  const MeshSpec &M = C->mesh();
  std::optional<unsigned> I = T.firstUneven(M);
  if (!I || C->config().AllowPadding)
    return;
  const TensorDim &D = T.Dims[*I];
  std::string Axes;
  for (AxisId A : D.Axes)
    Axes += (Axes.empty() ? "" : " x ") + M.Axes[A].Name + "=" +
            std::to_string(M.Axes[A].Size);
  Diags->report(O.loc(), diag::NotDivisible, C->program().names().Dims[D.Id],
                D.Size, axesProduct(D.Axes, M), Axes);
}

void CheckMesh::peak(const Op &O) {
  auto *Co = dyn_cast<Costed>(&O);
  std::optional<OpWork> W = Co ? Co->work(C->mesh()) : std::nullopt;
  if (!W)
    return;
  const ChipSpec &Chip = C->mesh().Cluster->Chip;
  if ((W->Matmul ? Chip.matmulPeak(W->Elt) : Chip.vectorPeak(W->Elt)) > 0)
    return;
  Diags->report(O.loc(), diag::MeshNoChipPeak, Chip.Name, dtypeName(W->Elt));
}

bool CheckMesh::run(MeshCompile &Compile, DiagnosticEngine &D) {
  C = &Compile;
  Diags = &D;
  unsigned Before = D.errorCount();
  walk(Compile.program().body(), [&](const Op &O) {
    if (D.shouldStop() || !O.result())
      return;
    divisible(O, O.result()->type());
    peak(O);
  });
  return D.errorCount() == Before && !D.shouldStop();
}

} // namespace

std::unique_ptr<Pass> shardc::createCheckMeshPass() {
  return std::make_unique<CheckMesh>();
}
