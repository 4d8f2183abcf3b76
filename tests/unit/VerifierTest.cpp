//===- VerifierTest.cpp - Each IR invariant, shown firing -----------------===//
//
// The negative tests of ir/Verifier.cpp and each forward op's verify method
// (the ops derive-backward creates: VerifierTrainingTest.cpp): every test
// builds a small module with the builder, breaks one invariant, and checks
// the verifier's whole message. A well-formed module of each kind verifies
// clean first, so a message can only come from the break. Every message a
// verify method or the verifier can return is shown here or there.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/VerifierFixture.h"

using namespace shardc;
using namespace shardc::verifiertest;

namespace {

TEST_F(IRVerifierTest, AWellFormedModuleVerifies) {
  auto M = module();
  OpBuilder Bld(*M, M->body());
  Value *X0 = input(Bld, type({dim(B, {X}), dim(D)}));
  Value *W = input(Bld, type({dim(D), dim(F)}), "w");
  auto *R = Bld.createNoResult<RepeatOp>({}, NoStmt, 2);
  Bld.setInsertionPointToEnd(R->body());
  ContractionDim Dims[] = {{B, 8, DimRole::FreeLhs},
                           {D, 16, DimRole::Contracted},
                           {F, 3, DimRole::FreeRhs}};
  Bld.create<ContractionOp>({}, 0, {X0, W}, "h", type({dim(B, {X}), dim(F)}),
                            Dims);
  EXPECT_EQ(verifyModule(*M), "");
}

TEST_F(IRVerifierTest, ModuleWithoutACluster) {
  // Types are checked against the mesh, and the mesh's chips are a
  // cluster's: without one nothing else can be checked.
  auto Info = std::make_shared<ProgramInfo>();
  MeshSpec Mesh;
  Mesh.Name = "M";
  Module M(Info, Mesh, ModuleConfig(), Module::Stage::Checked);
  EXPECT_EQ(verifyModule(M), "module has no cluster");
}

TEST_F(IRVerifierTest, OperandUsedBeforeItIsDefined) {
  auto M = module();
  OpBuilder Bld(*M, M->body());
  Value *X0 = input(Bld, type({dim(B), dim(D)}));
  Bld.setInsertionPoint(M->body(), 0);
  Bld.create<ElementwiseOp>({}, 0, {X0}, "g", X0->type(), ElementwiseFn::gelu);
  EXPECT_EQ(verifyModule(*M),
            "'elementwise' op: operand 'x' is used before it is defined");
}

TEST_F(IRVerifierTest, ResultMissing) {
  auto M = module();
  OpBuilder Bld(*M, M->body());
  Bld.createNoResult<InputOp>({}, 0);
  EXPECT_EQ(verifyModule(*M),
            "'input' op: result is missing or not defined by this op");
}

TEST_F(IRVerifierTest, TypeRules) {
  auto Check = [&](const ShardType &T, const char *Want) {
    auto M = module();
    OpBuilder Bld(*M, M->body());
    input(Bld, T);
    EXPECT_EQ(verifyModule(*M), Want);
  };
  TensorDim Empty = dim(B);
  Empty.Size = 0;
  Check(type({Empty}), "'input' op: a dim has a non-positive size");
  Check(type({dim(B, {AxisId(5)})}),
        "'input' op: an axis is invalid or used twice");
  Check(type({dim(B, {X}), dim(D, {X})}),
        "'input' op: an axis is invalid or used twice");
  Check(type({dim(B, {X})}, DType::bf16, AxisSet::of({X})),
        "'input' op: an unreduced axis is invalid or used twice");
  Check(type({dim(F, {Y})}), "'input' op: dim 'F' is not divisible");
}

TEST_F(IRVerifierTest, InputTakesNoOperands) {
  auto M = module();
  OpBuilder Bld(*M, M->body());
  Value *X0 = input(Bld, type({dim(B)}));
  Bld.create<InputOp>({}, 0, {X0}, "y", X0->type());
  EXPECT_EQ(verifyModule(*M), "'input' op: takes no operands");
}

TEST_F(IRVerifierTest, ContractionInvariants) {
  ContractionDim Dims[] = {{B, 8, DimRole::FreeLhs},
                           {D, 16, DimRole::Contracted},
                           {F, 3, DimRole::FreeRhs}};
  auto Check = [&](Module::Stage S, const ShardType &L, const ShardType &Out,
                   bool OneOperand, const char *Want) {
    auto M = module(S);
    OpBuilder Bld(*M, M->body());
    Value *A = input(Bld, L);
    Value *W = input(Bld, type({dim(D, L.Dims[1].Axes), dim(F)}), "w");
    llvm::SmallVector<Value *, 2> Ops = {A};
    if (!OneOperand)
      Ops.push_back(W);
    Bld.create<ContractionOp>({}, 0, Ops, "h", Out, Dims);
    EXPECT_EQ(verifyModule(*M), Want);
  };
  ShardType L = type({dim(B, {X}), dim(D)});
  Check(Module::Stage::Checked, L, type({dim(B, {X}), dim(F)}), true,
        "'contract' op: takes two operands");
  Check(Module::Stage::Checked, L, type({dim(B, {X}), dim(D)}), false,
        "'contract' op: result dim 'D' is not a batch or free dim");
  // Lowered: the product is local. L's D is over Y, w's is too; give the
  // result B over Y where L has it over X.
  ShardType LY = type({dim(B, {X}), dim(D, {Y})});
  Check(Module::Stage::Lowered, LY,
        type({dim(B), dim(F)}, DType::bf16, AxisSet::of({Y})), false,
        "'contract' op: result dim 'B' changes sharding");
}

TEST_F(IRVerifierTest, LoweredContractionOperandsMustAgree) {
  auto M = module(Module::Stage::Lowered);
  OpBuilder Bld(*M, M->body());
  Value *A = input(Bld, type({dim(B), dim(D, {X})}));
  Value *W = input(Bld, type({dim(D, {Y}), dim(F)}), "w");
  ContractionDim Dims[] = {{B, 8, DimRole::FreeLhs},
                           {D, 16, DimRole::Contracted},
                           {F, 3, DimRole::FreeRhs}};
  Bld.create<ContractionOp>({}, 0, {A, W}, "h", type({dim(B), dim(F)}), Dims);
  EXPECT_EQ(verifyModule(*M),
            "'contract' op: dim 'D' is sharded differently in the operands");
}

TEST_F(IRVerifierTest, ElementwiseInvariants) {
  auto Check = [&](Module::Stage S, llvm::ArrayRef<ShardType> Ins,
                   const ShardType &Out, ElementwiseFn Fn, const char *Want) {
    EXPECT_EQ(verifyOne<ElementwiseOp>(S, Ins, Out, Fn), Want);
  };
  ShardType T = type({dim(B, {X})});
  Check(Module::Stage::Checked, {T, T}, T, ElementwiseFn::gelu,
        "'elementwise' op: wrong number of operands");
  const char *Dims = "'elementwise' op: operands must have the result's "
                     "dims, or some of them, sharded as the result";
  Check(Module::Stage::Lowered, {T}, type({dim(B)}), ElementwiseFn::gelu, Dims);
  Check(Module::Stage::Checked, {T, type({dim(B, {X})}, DType::fp32)}, T,
        ElementwiseFn::add,
        "'elementwise' op: operands must have the same dtype");
  // A broadcast: [B_X, D] * [D]. Before insertion the smaller operand may
  // be sharded its own way; after it, as the result on the dims it has.
  ShardType Full = type({dim(B, {X}), dim(D, {Y})});
  Check(Module::Stage::Checked, {Full, type({dim(D)})}, Full,
        ElementwiseFn::mul, "");
  Check(Module::Stage::Lowered, {Full, type({dim(D, {Y})})}, Full,
        ElementwiseFn::mul, "");
  Check(Module::Stage::Lowered, {Full, type({dim(D)})}, Full,
        ElementwiseFn::mul, Dims);
  // A dim the result lacks is contracted, not broadcast.
  Check(Module::Stage::Checked, {Full, type({dim(F)})}, Full,
        ElementwiseFn::mul, Dims);
  Check(Module::Stage::Checked, {type({dim(D)}), type({dim(D)})}, Full,
        ElementwiseFn::add,
        "'elementwise' op: no operand has the result's dims");
}

TEST_F(IRVerifierTest, ReshardAndViewInvariants) {
  for (auto [Stage, Out, Want] :
       {std::tuple(Module::Stage::Lowered, type({dim(B)}),
                   "'reshard' op: survived insert-collectives"),
        std::tuple(Module::Stage::Checked, type({dim(D)}),
                   "'reshard' op: must keep its operand's dims")}) {
    auto M = module(Stage);
    OpBuilder Bld(*M, M->body());
    Value *X0 = input(Bld, type({dim(B, {X})}));
    Bld.create<ReshardOp>({}, 0, {X0}, "y", Out);
    EXPECT_EQ(verifyModule(*M), Want);
  }
  auto M = module();
  OpBuilder Bld(*M, M->body());
  Value *X0 = input(Bld, type({dim(B, {X})}));
  Bld.create<ViewOp>({}, 0, {X0}, "v", type({dim(B)}));
  EXPECT_EQ(verifyModule(*M),
            "'view' op: must keep its operand's dims and sharding");
  auto Two = module();
  OpBuilder B2(*Two, Two->body());
  Value *Y0 = input(B2, type({dim(B, {X})}));
  B2.create<ViewOp>({}, 0, {Y0, Y0}, "v", Y0->type());
  EXPECT_EQ(verifyModule(*Two), "'view' op: takes one operand");
  // A dtype change reads and writes memory: a convert, never a view.
  auto Typed = module(Module::Stage::Lowered);
  OpBuilder B3(*Typed, Typed->body());
  Value *Z0 = input(B3, type({dim(B, {X})}));
  B3.create<ViewOp>({}, 0, {Z0}, "v", type({dim(B, {X})}, DType::fp32));
  EXPECT_EQ(verifyModule(*Typed), "'view' op: changes the dtype");
}

TEST_F(IRVerifierTest, ConvertInvariants) {
  auto Check = [&](const ShardType &Out, bool TwoOperands, const char *Want) {
    auto M = module(Module::Stage::Lowered);
    OpBuilder Bld(*M, M->body());
    Value *X0 = input(Bld, type({dim(B, {X}), dim(D)}));
    llvm::SmallVector<Value *, 2> Ops = {X0};
    if (TwoOperands)
      Ops.push_back(X0);
    Bld.create<ConvertOp>({}, 0, Ops, "c", Out);
    EXPECT_EQ(verifyModule(*M), Want);
  };
  Check(type({dim(B, {X}), dim(D)}, DType::fp32), false, "");
  Check(type({dim(B, {X}), dim(D)}, DType::fp32), true,
        "'convert' op: takes one operand");
  Check(type({dim(B), dim(D)}, DType::fp32), false,
        "'convert' op: must keep its operand's dims and sharding");
  Check(type({dim(B, {X}), dim(D)}, DType::fp32, AxisSet::of({Y})), false,
        "'convert' op: must keep its operand's dims and sharding");
  Check(type({dim(B, {X}), dim(D)}), false,
        "'convert' op: must change the dtype");
}

TEST_F(IRVerifierTest, StepInvariants) {
  ShardType In = type({dim(B, {X}), dim(D)});
  auto Check = [&](auto Make, const char *Want) {
    auto M = module(Module::Stage::Lowered);
    OpBuilder Bld(*M, M->body());
    Make(Bld, input(Bld, In));
    EXPECT_EQ(verifyModule(*M), Want);
  };
  Check(
      [&](OpBuilder &Bld, Value *V) {
        Bld.create<AllGatherOp>({}, 0, {V}, "g", type({dim(B), dim(D)}),
                                AxisList{}, 0u);
      },
      "'all_gather' op: takes one operand and at least one axis");
  Check(
      [&](OpBuilder &Bld, Value *V) {
        Bld.create<AllGatherOp>({}, 0, {V}, "g", type({dim(B), dim(D)}),
                                AxisList{X}, 7u);
      },
      "'all_gather' op: names no valid dim");
  Check(
      [&](OpBuilder &Bld, Value *V) {
        Bld.create<AllGatherOp>({}, 0, {V}, "g",
                                type({dim(B), dim(D)}, DType::fp32),
                                AxisList{X}, 0u);
      },
      "'all_gather' op: changes the dtype");
  Check(
      [&](OpBuilder &Bld, Value *V) {
        Bld.create<AllToAllOp>({}, 0, {V}, "t", type({dim(B), dim(D, {Y})}),
                               AxisList{X}, 0u, 1u);
      },
      "'all_to_all' op: result type bf16[B, D_Y] does not follow from the "
      "operand bf16[B_X, D]");
}

TEST_F(IRVerifierTest, RepeatNeedsAPositiveTripCount) {
  auto M = module();
  OpBuilder Bld(*M, M->body());
  Bld.createNoResult<RepeatOp>({}, NoStmt, 0);
  EXPECT_EQ(verifyModule(*M), "'repeat' op: needs a positive trip count");
}

TEST_F(IRVerifierTest, AttentionInvariants) {
  // q, k, v [B, D, F]: sequence B, heads D, head dim F.
  auto Check = [&](Module::Stage S, llvm::ArrayRef<ShardType> Ins,
                   const ShardType &Out, const char *Want) {
    EXPECT_EQ(verifyOne<AttentionOp>(S, Ins, Out, true), Want);
  };
  ShardType Q = type({dim(B), dim(D), dim(F)});
  Check(Module::Stage::Checked, {Q, Q, Q}, Q, "");
  Check(Module::Stage::Checked, {Q, Q}, Q, "'attention' op: takes q, k and v");
  Check(Module::Stage::Checked, {Q, type({dim(B), dim(D)}), Q}, Q,
        "'attention' op: q, k and v must have the same rank (at least 3), k "
        "and v the same dims");
  ShardType K = type({dim(B), dim(F), dim(D)});
  Check(Module::Stage::Checked, {Q, K, K}, Q,
        "'attention' op: q and k must have the same head dim");
  // Grouped-query attention: k's heads (F = 3) must divide q's (D = 16).
  ShardType KV3 = type({dim(B), dim(F), dim(F)});
  Check(Module::Stage::Checked, {Q, KV3, KV3}, Q,
        "'attention' op: the query heads must be a multiple of the KV heads");
  // Rank 4: q [H, B, D, F] and k [B, H, D, F] differ before the sequence.
  ShardType Q4 = type({dim(H), dim(B), dim(D), dim(F)});
  ShardType K4 = type({dim(B), dim(H), dim(D), dim(F)});
  Check(Module::Stage::Checked, {Q4, Q4, Q4}, Q4, "");
  Check(Module::Stage::Checked, {Q4, K4, K4}, Q4,
        "'attention' op: q and k must have the same leading dims");
  Check(Module::Stage::Checked, {Q, Q, Q}, type({dim(D), dim(B), dim(F)}),
        "'attention' op: its result must have q's dims");
  // Lowered, k and v are whole on their sequence dim (gathered first).
  ShardType KS = type({dim(B, {X}), dim(D), dim(F)});
  Check(Module::Stage::Checked, {Q, KS, KS}, Q, "");
  Check(Module::Stage::Lowered, {Q, KS, KS}, Q,
        "'attention' op: its operands must be in the sharding it computes "
        "in");
}

TEST_F(IRVerifierTest, EmbedInvariants) {
  auto Check = [&](Module::Stage S, llvm::ArrayRef<ShardType> Ins,
                   const ShardType &Out, const char *Want) {
    EXPECT_EQ(verifyOne<EmbedOp>(S, Ins, Out), Want);
  };
  ShardType Ids = type({dim(B)}, DType::int32);
  ShardType Table = type({dim(D, {X}), dim(F)});
  Check(Module::Stage::Checked, {Ids, Table}, type({dim(B), dim(F)}), "");
  Check(Module::Stage::Checked, {Ids}, type({dim(B), dim(F)}),
        "'embed' op: takes the ids and the table");
  Check(Module::Stage::Checked, {type({dim(B)}), Table}, type({dim(B), dim(F)}),
        "'embed' op: takes int32 ids and a two-dim table");
  Check(Module::Stage::Checked, {Ids, type({dim(D), dim(F), dim(H)})},
        type({dim(B), dim(H)}),
        "'embed' op: takes int32 ids and a two-dim table");
  Check(Module::Stage::Checked, {Ids, Table}, type({dim(B), dim(D)}),
        "'embed' op: its result has the ids' dims and the table's last");
  Check(Module::Stage::Checked, {Ids, Table}, type({dim(H), dim(F)}),
        "'embed' op: its result has the ids' dims and the table's last");
  Check(Module::Stage::Checked, {Ids, Table}, type({dim(F)}),
        "'embed' op: its result has the ids' dims and the table's last");
  // Lowered, the table uses none of the ids' axes (it was gathered over
  // them), and the ids carry no partial sums.
  ShardType IdsX = type({dim(B, {X})}, DType::int32);
  Check(Module::Stage::Checked, {IdsX, Table}, type({dim(B), dim(F)}), "");
  Check(Module::Stage::Lowered, {IdsX, Table}, type({dim(B), dim(F)}),
        "'embed' op: its table may use none of its ids' axes");
  Check(Module::Stage::Lowered, {IdsX, type({dim(D), dim(F)})},
        type({dim(B), dim(F)}), "");
  ShardType IdsU = Ids;
  IdsU.Unreduced.insert(X);
  Check(Module::Stage::Lowered, {IdsU, type({dim(D), dim(F)})},
        type({dim(B), dim(F)}),
        "'embed' op: its ids must be in the sharding it computes in");
}

TEST_F(IRVerifierTest, CrossEntropyInvariants) {
  using P = CrossEntropyOp::Pass;
  auto Check = [&](llvm::ArrayRef<ShardType> Ins, P Pass, const char *Want) {
    EXPECT_EQ(verifyOne<CrossEntropyOp>(Module::Stage::Checked, Ins,
                                        type({dim(B)}, DType::fp32), Pass),
              Want);
  };
  ShardType Logits = type({dim(B), dim(D)});
  ShardType Ids = type({dim(B)}, DType::int32);
  Check({Logits, Ids}, P::Fused, "");
  Check({Logits}, P::Fused,
        "'cross_entropy' op: takes the logits, the ids and (its loss pass) "
        "the row max");
  Check({Logits, type({dim(B)})}, P::Fused,
        "'cross_entropy' op: its ids are int32");
  Check({Logits, type({dim(D)}, DType::int32)}, P::Fused,
        "'cross_entropy' op: its ids and row max have the logits' dims but "
        "the last");
  Check({type({dim(B), dim(D, {Y})}), Ids}, P::Fused,
        "'cross_entropy' op: a sharded vocab needs the two passes");
  Check({type({dim(B), dim(D, {Y})})}, P::Max, "");
  ShardType Max = type({dim(B)});
  Check({Logits, Ids, Max}, P::Loss, "");
  Check({Logits, Ids, type({dim(D)})}, P::Loss,
        "'cross_entropy' op: its ids and row max have the logits' dims but "
        "the last");
  EXPECT_EQ(verifyOne<CrossEntropyOp>(Module::Stage::Checked, {Logits, Ids},
                                      type({dim(D)}, DType::fp32), P::Fused),
            "'cross_entropy' op: its result has the logits' dims but the "
            "last");
  // Lowered, the ids (and the max) are sharded as the logits' tokens.
  ShardType LogitsX = type({dim(B, {X}), dim(D)});
  ShardType IdsX = type({dim(B, {X})}, DType::int32);
  ShardType LossX = type({dim(B, {X})}, DType::fp32);
  EXPECT_EQ(verifyOne<CrossEntropyOp>(Module::Stage::Lowered, {LogitsX, IdsX},
                                      LossX, P::Fused),
            "");
  EXPECT_EQ(verifyOne<CrossEntropyOp>(Module::Stage::Lowered, {LogitsX, Ids},
                                      LossX, P::Fused),
            "'cross_entropy' op: its operands must be in the sharding it "
            "computes in");
}

TEST_F(IRVerifierTest, MoeDispatchAndCombineShapes) {
  // Tokens [B, D]; the buffer [experts F, slots B, D].
  ShardType Tokens = type({dim(B), dim(D)});
  ShardType Buf = type({dim(F), dim(B), dim(D)});
  const char *Shape = "moves tokens [..., E] to and from a buffer [X, C, E]";
  EXPECT_EQ(verifyOne<MoeDispatchOp>(Module::Stage::Checked, {Tokens}, Buf),
            "");
  EXPECT_EQ(verifyOne<MoeDispatchOp>(Module::Stage::Checked, {Tokens},
                                     type({dim(F), dim(D), dim(B)})),
            std::string("'moe_dispatch' op: ") + Shape);
  EXPECT_EQ(verifyOne<MoeCombineOp>(Module::Stage::Checked, {Buf}, Tokens), "");
  EXPECT_EQ(verifyOne<MoeCombineOp>(Module::Stage::Checked, {Buf},
                                    type({dim(B), dim(F)})),
            std::string("'moe_combine' op: ") + Shape);
  EXPECT_EQ(
      verifyOne<MoeDispatchOp>(Module::Stage::Checked, {Tokens, Tokens}, Buf),
      "'moe_dispatch' op: takes the tokens");
  EXPECT_EQ(verifyOne<MoeCombineOp>(Module::Stage::Checked, {Buf, Buf}, Tokens),
            "'moe_combine' op: takes the experts' outputs");
  // Lowered, the combine reads the slots sharded as its tokens (B over X).
  ShardType TokensX = type({dim(B, {X}), dim(D)});
  EXPECT_EQ(verifyOne<MoeCombineOp>(Module::Stage::Lowered,
                                    {type({dim(F), dim(B, {X}), dim(D)})},
                                    TokensX),
            "");
  EXPECT_EQ(verifyOne<MoeCombineOp>(Module::Stage::Lowered, {Buf}, TokensX),
            "'moe_combine' op: its operand must be in the sharding it "
            "computes in");
}

TEST_F(IRVerifierTest, RepeatCarriedValues) {
  ShardType T = type({dim(B, {X}), dim(D)});
  {
    auto M = module();
    OpBuilder Bld(*M, M->body());
    Value *X0 = input(Bld, T);
    auto *R = Bld.createNoResult<RepeatOp>({}, NoStmt, 2);
    OpBuilder Body(*M, R->body());
    Value *X1 =
        Body.create<ElementwiseOp>({}, 0, {X0}, "x", type({dim(B), dim(D)}),
                                   ElementwiseFn::relu)
            ->result();
    R->addCarried(X0, X1);
    EXPECT_EQ(verifyModule(*M), "'repeat' op: carried value 'x' changes its "
                                "type");
  }
  {
    auto M = module();
    OpBuilder Bld(*M, M->body());
    // A carried value defined after the loop, not in it.
    Value *X0 = input(Bld, T);
    auto *R = Bld.createNoResult<RepeatOp>({}, NoStmt, 2);
    Value *After = input(Bld, T, "y");
    R->addCarried(X0, After);
    EXPECT_EQ(verifyModule(*M),
              "'repeat' op: carried value 'x' is not defined by its loop");
  }
}

} // namespace
