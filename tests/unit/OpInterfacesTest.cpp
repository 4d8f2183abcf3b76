//===- OpInterfacesTest.cpp - isa<>/dyn_cast<> to the op interfaces -------===//
//
// The casts from an op to an interface read Ops.def's column and adjust the
// pointer to the interface's base (a C-style cast would not). That the
// column matches each class's bases is a static_assert in OpInterfaces.cpp.
//
//===----------------------------------------------------------------------===//
#include "ir/IR.h"
#include "gtest/gtest.h"

using namespace shardc;

namespace {

/// \p Concrete's interfaces, asked through its Op base by every cast form.
template <typename I, typename C> void expectCast(C &Concrete, bool Has) {
  Op *O = &Concrete;
  const Op *CO = &Concrete;
  EXPECT_EQ(isa<I>(O), Has);
  EXPECT_EQ(isa<I>(*CO), Has);
  if (!Has) {
    EXPECT_EQ(dyn_cast<I>(O), nullptr);
    EXPECT_EQ(dyn_cast<I>(CO), nullptr);
    return;
  }
  if constexpr (std::is_base_of_v<I, C>) {
    I *Want = &Concrete;
    // The interface is a base after Op: the cast must move the pointer
    // (a marker interface with no methods may share Op's address).
    if constexpr (!std::is_empty_v<I>) {
      EXPECT_NE(static_cast<void *>(Want), static_cast<void *>(O));
    }
    EXPECT_EQ(dyn_cast<I>(O), Want);
    EXPECT_EQ(dyn_cast<I>(CO), Want);
    EXPECT_EQ(cast<I>(O), Want);
    EXPECT_EQ(&cast<I>(*O), Want);
    EXPECT_EQ(&cast<I>(*CO), Want);
  } else {
    ADD_FAILURE() << "the kind lists an interface its class lacks";
  }
}

template <typename C> void expectInterfaces(C &Concrete, uint8_t Bits) {
  EXPECT_EQ(OpInterfaceTable[size_t(C::Kind)], Bits);
  expectCast<Differentiable>(Concrete, Bits & IsDifferentiable);
  expectCast<Costed>(Concrete, Bits & IsCosted);
  expectCast<Lowerable>(Concrete, Bits & IsLowerable);
  expectCast<Fusable>(Concrete, Bits & IsFusable);
}

TEST(OpInterfaces, ForwardOpsImplementAllThree) {
  ElementwiseOp E(ElementwiseFn::gelu);
  expectInterfaces(E, IsDifferentiable | IsCosted | IsLowerable | IsFusable);
  EXPECT_EQ(cast<Lowerable>(static_cast<Op *>(&E))->lowering(),
            Lowering::Local);
  ContractionOp C({});
  expectInterfaces(C, IsDifferentiable | IsCosted | IsLowerable);
  EXPECT_EQ(cast<Lowerable>(static_cast<Op *>(&C))->lowering(),
            Lowering::Contraction);
  EXPECT_TRUE(cast<Differentiable>(static_cast<Op *>(&C))->savesInputs());
}

TEST(OpInterfaces, DerivedOpsHaveNoBackward) {
  ElementwiseGradOp G(ElementwiseFn::gelu, 0);
  expectInterfaces(G, IsCosted | IsLowerable | IsFusable);
  ConvertOp Cv;
  expectInterfaces(Cv, IsCosted);
}

TEST(OpInterfaces, LeavesAndDataMovementImplementNone) {
  InputOp In;
  expectInterfaces(In, NoInterfaces);
  ViewOp V;
  expectInterfaces(V, NoInterfaces);
  AllGatherOp AG({}, 0);
  expectInterfaces(AG, NoInterfaces);
  RepeatOp R(2);
  expectInterfaces(R, NoInterfaces);
}

} // namespace

// The fixed costs of a training step are Ops.def's Fixed column: one kind
// each, and every other kind NotFixed.
TEST(OpTraits, FixedCostColumn) {
  EXPECT_EQ(fixedCostOf(OpKind::GradNorm), FixedNorm);
  EXPECT_EQ(fixedCostOf(OpKind::InfCheck), FixedInfCheck);
  EXPECT_EQ(fixedCostOf(OpKind::MasterCopy), FixedMasterCopy);
  EXPECT_EQ(fixedCostOf(OpKind::ZeroGrad), FixedZeroGrad);
  EXPECT_EQ(fixedCostOf(OpKind::Optimizer), NotFixed);
  EXPECT_EQ(fixedCostOf(OpKind::Contraction), NotFixed);
  EXPECT_EQ(fixedCostOf(OpKind::AllReduce), NotFixed);
}
