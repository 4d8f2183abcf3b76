//===- VerifierTrainingTest.cpp - The training ops' invariants firing -----===//
//
// VerifierTest.cpp's negative tests for the ops derive-backward creates: the
// gradient ops, reduce, the optimizer and a param's state. Each test breaks
// one invariant of a small module and checks the verifier's whole message.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/VerifierFixture.h"

using namespace shardc;
using namespace shardc::verifiertest;

namespace {

TEST_F(IRVerifierTest, ParamStateMustHaveTheParamsDims) {
  auto M = module();
  OpBuilder Bld(*M, M->body());
  Bld.create<ParamOp>({}, 0, {}, "W", type({dim(B), dim(D)}),
                      type({dim(B, {X}), dim(D)}));
  EXPECT_EQ(verifyModule(*M), "");
  auto Bad = module();
  OpBuilder Bad2(*Bad, Bad->body());
  Bad2.create<ParamOp>({}, 0, {}, "W", type({dim(B), dim(D)}),
                       type({dim(B, {X})}));
  EXPECT_EQ(verifyModule(*Bad),
            "'param' op: its state sharding must have the param's dims");
}

TEST_F(IRVerifierTest, ElementwiseGradInvariants) {
  auto Check = [&](Module::Stage S, llvm::ArrayRef<ShardType> Ins,
                   const ShardType &Out, const char *Want) {
    EXPECT_EQ(
        verifyOne<ElementwiseGradOp>(S, Ins, Out, ElementwiseFn::gelu, 0u),
        Want);
  };
  ShardType T = type({dim(B, {X}), dim(D)});
  Check(Module::Stage::Lowered, {T, T}, T, "");
  Check(Module::Stage::Checked, {T}, T,
        "'elementwise_grad' op: takes the output gradient and one saved "
        "value");
  Check(Module::Stage::Checked, {T, type({dim(B, {X})})}, T,
        "'elementwise_grad' op: operands and result must have the same dims");
  Check(Module::Stage::Checked, {T, type({dim(B), dim(D)})}, T,
        "'elementwise_grad' op: the output gradient must be sharded like the "
        "saved value");
  // Before insert-collectives the result may be written in any sharding;
  // after it, the op computes in the saved value's.
  Check(Module::Stage::Checked, {T, T}, type({dim(B), dim(D)}), "");
  Check(Module::Stage::Lowered, {T, T}, type({dim(B), dim(D)}),
        "'elementwise_grad' op: the result must have the saved value's "
        "sharding");
}

TEST_F(IRVerifierTest, ReduceInvariants) {
  auto Check = [&](Module::Stage S, llvm::ArrayRef<ShardType> Ins,
                   const ShardType &Out, const char *Want) {
    EXPECT_EQ(verifyOne<ReduceOp>(S, Ins, Out), Want);
  };
  ShardType In = type({dim(B, {X}), dim(D, {Y})});
  // Summing B, which X sharded, leaves partial sums over X.
  ShardType Out = type({dim(D, {Y})}, DType::bf16, AxisSet::of({X}));
  Check(Module::Stage::Lowered, {In}, Out, "");
  Check(Module::Stage::Checked, {In, In}, Out,
        "'reduce' op: takes one operand");
  Check(Module::Stage::Checked, {In}, In,
        "'reduce' op: its result must have some of its operand's dims");
  Check(Module::Stage::Checked, {In}, type({dim(F)}),
        "'reduce' op: its result must have some of its operand's dims");
  Check(Module::Stage::Checked, {In}, type({dim(D)}), "");
  Check(Module::Stage::Lowered, {In}, type({dim(D)}),
        "'reduce' op: its result must be sharded as its operand, with "
        "partial sums over the axes of the dims it sums");
}

TEST_F(IRVerifierTest, OptimizerInvariants) {
  auto Check = [&](llvm::ArrayRef<ShardType> Ins, const ShardType &Out,
                   const char *Want) {
    EXPECT_EQ(verifyOne<OptimizerOp>(Module::Stage::Checked, Ins, Out,
                                     TrainConfig(), DType::bf16),
              Want);
  };
  ShardType G = type({dim(B, {X}), dim(D)}, DType::fp32);
  ShardType W = type({dim(B, {X}), dim(D)});
  Check({G}, W, "");
  Check({G, G}, W, "'optimizer' op: takes the synced gradient");
  Check({G}, type({dim(B), dim(D)}),
        "'optimizer' op: updates the shard its reduced gradient has");
  Check({type({dim(B, {X}), dim(D)}, DType::fp32, AxisSet::of({Y}))}, W,
        "'optimizer' op: updates the shard its reduced gradient has");
}

TEST_F(IRVerifierTest, AttentionGradPartsNameTheFusedKernel) {
  auto M = module();
  OpBuilder Bld(*M, M->body());
  ShardType Q = type({dim(B), dim(D), dim(F)});
  Value *X0 = input(Bld, Q);
  // A dk that does not come from the fused kernel.
  Bld.create<AttentionGradOp>({}, 0, {X0}, "dk", Q, true, 1u);
  EXPECT_EQ(verifyModule(*M), "'attention_grad' op: dk and dv name the "
                              "results of a fused kernel (part 0)");
}

} // namespace
