//===- VerifierFixture.h - Small modules for the verifier's tests -*- C++
//-*-===//
//
// The fixture VerifierTest.cpp (the verifier's own checks and the forward
// ops) and VerifierTrainingTest.cpp (the ops derive-backward creates) share:
// a module on a small mesh, types written in a line, and one op over inputs
// checked in one call.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_UNIT_VERIFIERFIXTURE_H
#define SHARDC_TESTS_UNIT_VERIFIERFIXTURE_H

#include "ir/IR.h"
#include "gtest/gtest.h"

namespace shardc::verifiertest {

constexpr DimId B = 0, D = 1, F = 2, H = 3;
constexpr AxisId X = 0, Y = 1;

/// A module on mesh [X: 2, Y: 4] of an 8-chip cluster, dims B = 8, D = 16,
/// F = 3 (which no axis divides), H = 4.
class IRVerifierTest : public ::testing::Test {
protected:
  std::unique_ptr<Module> module(Module::Stage S = Module::Stage::Checked) {
    auto Info = std::make_shared<ProgramInfo>();
    Info->Names.Dims = {"B", "D", "F", "H"};
    Info->Names.Axes = {"X", "Y"};
    Info->Statements.push_back(
        {"s", {}, OpKind::Input, 1, Phase::Forward, std::nullopt});
    auto Cluster = std::make_shared<ClusterSpec>();
    Cluster->Name = "K";
    LevelSpec L;
    L.Name = "node";
    L.Size = 8;
    L.UplinkBw = 1e9;
    Cluster->Levels.push_back(L);
    MeshSpec Mesh;
    Mesh.Name = "M";
    Mesh.Axes = {{"X", 2}, {"Y", 4}};
    Mesh.Cluster = Cluster;
    return std::make_unique<Module>(Info, Mesh, ModuleConfig(), S);
  }

  static ShardType type(std::initializer_list<TensorDim> Dims,
                        DType T = DType::bf16, AxisSet U = {}) {
    ShardType S;
    S.Elt = T;
    S.Dims.assign(Dims.begin(), Dims.end());
    S.Unreduced = U;
    return S;
  }
  static TensorDim dim(DimId Id, AxisList Axes = {}) {
    int64_t Sizes[] = {8, 16, 3, 4};
    return {Id, Sizes[Id], Axes};
  }

  Value *input(OpBuilder &Bld, const ShardType &T, const char *Name = "x") {
    return Bld.create<InputOp>({}, 0, {}, Name, T)->result();
  }

  /// The verifier's message on a module of inputs of types \p Ins and one
  /// OpT over them with result type \p Out (constructor arguments \p A).
  template <typename OpT, typename... Args>
  std::string verifyOne(Module::Stage S, llvm::ArrayRef<ShardType> Ins,
                        const ShardType &Out, Args &&...A) {
    auto M = module(S);
    OpBuilder Bld(*M, M->body());
    llvm::SmallVector<Value *, 2> Ops;
    for (const ShardType &T : Ins)
      Ops.push_back(input(Bld, T));
    Bld.create<OpT>({}, 0, Ops, "y", Out, std::forward<Args>(A)...);
    return verifyModule(*M);
  }
};

} // namespace shardc::verifiertest

#endif // SHARDC_TESTS_UNIT_VERIFIERFIXTURE_H
