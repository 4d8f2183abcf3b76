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

TEST_F(IRVerifierTest, ParamTakesNoOperands) {
  auto M = module();
  OpBuilder Bld(*M, M->body());
  Value *X0 = input(Bld, type({dim(B), dim(D)}));
  Bld.create<ParamOp>({}, 0, {X0}, "W", X0->type());
  EXPECT_EQ(verifyModule(*M), "'param' op: takes no operands");
}

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

TEST_F(IRVerifierTest, MaskedElementwiseGradInvariants) {
  // dropout's gradient reads the mask its forward kept, not a value.
  auto Check = [&](Module::Stage S, llvm::ArrayRef<ShardType> Ins,
                   const ShardType &Out, const char *Want) {
    EXPECT_EQ(
        verifyOne<ElementwiseGradOp>(S, Ins, Out, ElementwiseFn::dropout, 0u),
        Want);
  };
  ShardType T = type({dim(B, {X}), dim(D)});
  Check(Module::Stage::Lowered, {T}, T, "");
  Check(Module::Stage::Checked, {T, T}, T,
        "'elementwise_grad' op: takes the output gradient (the mask is the "
        "forward's)");
  const char *Same = "'elementwise_grad' op: its result must have the output "
                     "gradient's dims and sharding";
  Check(Module::Stage::Checked, {T}, type({dim(B, {X})}), Same);
  Check(Module::Stage::Checked, {T}, type({dim(B), dim(D)}), "");
  Check(Module::Stage::Lowered, {T}, type({dim(B), dim(D)}), Same);
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

TEST_F(IRVerifierTest, AttentionGradInvariants) {
  // Part 0, the fused kernel: q, k, v, out, dout [B, D, F] to dq.
  auto Check = [&](Module::Stage S, llvm::ArrayRef<ShardType> Ins,
                   const ShardType &Out, const char *Want, unsigned Part = 0) {
    EXPECT_EQ(verifyOne<AttentionGradOp>(S, Ins, Out, true, Part), Want);
  };
  ShardType Q = type({dim(B), dim(D), dim(F)});
  Check(Module::Stage::Checked, {Q, Q, Q, Q, Q}, Q, "");
  Check(Module::Stage::Lowered, {Q, Q, Q, Q, Q}, Q, "");
  Check(Module::Stage::Checked, {Q, Q, Q, Q, Q}, Q,
        "'attention_grad' op: has parts dq, dk and dv only", 3);
  Check(Module::Stage::Checked, {Q, Q, Q}, Q,
        "'attention_grad' op: takes q, k, v, the output and its gradient");
  // The operand checks the forward has (VerifierTest.cpp) hold here too.
  ShardType K = type({dim(B), dim(F), dim(D)});
  Check(Module::Stage::Checked, {Q, K, K, Q, Q}, Q,
        "'attention_grad' op: q and k must have the same head dim");
  Check(Module::Stage::Checked, {Q, Q, Q, Q, type({dim(B), dim(D)})}, Q,
        "'attention_grad' op: the output and its gradient have q's dims");
  Check(Module::Stage::Checked, {Q, Q, Q, type({dim(D), dim(B), dim(F)}), Q}, Q,
        "'attention_grad' op: the output and its gradient have q's dims");
  Check(Module::Stage::Checked, {Q, Q, Q, Q, Q}, type({dim(B), dim(D)}),
        "'attention_grad' op: its result, dq, has q's dims");
  // Lowered, k and v are whole on their sequence dim, as in the forward.
  ShardType KS = type({dim(B, {X}), dim(D), dim(F)});
  Check(Module::Stage::Checked, {Q, KS, KS, Q, Q}, Q, "");
  Check(Module::Stage::Lowered, {Q, KS, KS, Q, Q}, Q,
        "'attention_grad' op: its operands must be in the sharding it "
        "computes in");
}

TEST_F(IRVerifierTest, AttentionGradDkAndDvHaveTheirOperandsDims) {
  // dk (part 1) names the kernel's k gradient; it has k's dims.
  for (auto [Out, Want] :
       {std::pair(type({dim(B), dim(D), dim(F)}), ""),
        std::pair(type({dim(B), dim(D)}),
                  "'attention_grad' op: dk and dv have k's and v's dims")}) {
    auto M = module();
    OpBuilder Bld(*M, M->body());
    ShardType Q = type({dim(B), dim(D), dim(F)});
    llvm::SmallVector<Value *, 5> Ins;
    for (const char *Name : {"q", "k", "v", "o", "do"})
      Ins.push_back(input(Bld, Q, Name));
    Value *DQ =
        Bld.create<AttentionGradOp>({}, 0, Ins, "dq", Q, true, 0u)->result();
    Bld.create<AttentionGradOp>({}, 0, {DQ}, "dk", Out, true, 1u);
    EXPECT_EQ(verifyModule(*M), Want);
  }
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

TEST_F(IRVerifierTest, EmbedGradInvariants) {
  // dout [B, F] scattered by ids [B] into the table's gradient [D, F].
  auto Check = [&](Module::Stage S, llvm::ArrayRef<ShardType> Ins,
                   const ShardType &Out, const char *Want) {
    EXPECT_EQ(verifyOne<EmbedGradOp>(S, Ins, Out), Want);
  };
  ShardType DOut = type({dim(B), dim(F)});
  ShardType Ids = type({dim(B)}, DType::int32);
  ShardType Table = type({dim(D), dim(F)});
  Check(Module::Stage::Checked, {DOut, Ids}, Table, "");
  Check(Module::Stage::Lowered, {DOut, Ids}, Table, "");
  const char *Operands =
      "'embed_grad' op: takes the output gradient and the ids";
  Check(Module::Stage::Checked, {DOut}, Table, Operands);
  Check(Module::Stage::Checked, {DOut, type({dim(B)})}, Table, Operands);
  const char *Shapes = "'embed_grad' op: takes a gradient with the ids' dims "
                       "and the table's last";
  Check(Module::Stage::Checked, {type({dim(B), dim(D), dim(F)}), Ids}, Table,
        Shapes);
  Check(Module::Stage::Checked, {DOut, Ids}, type({dim(F)}), Shapes);
  // Lowered, the ids use none of the table's axes (here X, on its rows).
  ShardType TableX = type({dim(D, {X}), dim(F)});
  ShardType IdsX = type({dim(B, {X})}, DType::int32);
  Check(Module::Stage::Checked, {type({dim(B, {X}), dim(F)}), IdsX}, TableX,
        "");
  Check(Module::Stage::Lowered, {type({dim(B, {X}), dim(F)}), IdsX}, TableX,
        "'embed_grad' op: its operands must be in the sharding it computes "
        "in");
}

TEST_F(IRVerifierTest, CrossEntropyGradInvariants) {
  // dloss [B], logits [B, D], ids [B] to dlogits [B, D].
  auto Check = [&](Module::Stage S, llvm::ArrayRef<ShardType> Ins,
                   const ShardType &Out, const char *Want) {
    EXPECT_EQ(verifyOne<CrossEntropyGradOp>(S, Ins, Out), Want);
  };
  ShardType DL = type({dim(B)}, DType::fp32);
  ShardType L = type({dim(B), dim(D)});
  ShardType Ids = type({dim(B)}, DType::int32);
  Check(Module::Stage::Checked, {DL, L, Ids}, L, "");
  Check(Module::Stage::Lowered, {DL, L, Ids}, L, "");
  Check(Module::Stage::Checked, {DL, L}, L,
        "'cross_entropy_grad' op: takes the loss gradient, the logits and the "
        "ids");
  const char *Shapes = "'cross_entropy_grad' op: takes per-token gradient and "
                       "ids and gives the logits' dims";
  Check(Module::Stage::Checked, {type({dim(D)}, DType::fp32), L, Ids}, L,
        Shapes);
  Check(Module::Stage::Checked, {DL, L, type({dim(D)}, DType::int32)}, L,
        Shapes);
  Check(Module::Stage::Checked, {DL, L, Ids}, type({dim(B)}), Shapes);
  // Lowered, dloss and the ids are sharded as the logits' tokens.
  ShardType LX = type({dim(B, {X}), dim(D)});
  ShardType IdsX = type({dim(B, {X})}, DType::int32);
  Check(Module::Stage::Lowered, {type({dim(B, {X})}, DType::fp32), LX, IdsX},
        LX, "");
  Check(Module::Stage::Lowered, {DL, LX, IdsX}, LX,
        "'cross_entropy_grad' op: its operands must be in the sharding it "
        "computes in");
}

} // namespace
