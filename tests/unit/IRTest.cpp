//===- IRTest.cpp - Use-lists, replacement, clone and walks ---------------===//
#include "ir/IR.h"
#include "llvm/Support/raw_ostream.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace shardc;
using ::testing::ElementsAre;

namespace {

std::unique_ptr<Module> emptyModule() {
  auto Info = std::make_shared<ProgramInfo>();
  Info->Names.Dims = {"B"};
  Info->Names.Axes = {"X"};
  Info->Files = {"", "t.shard"};
  Info->Statements.push_back(
      {"x", {}, OpKind::Input, 1, Phase::Forward, std::nullopt});
  auto Cluster = std::make_shared<ClusterSpec>();
  Cluster->Name = "K";
  LevelSpec L;
  L.Name = "node";
  L.Size = 2;
  L.UplinkBw = 1e9;
  Cluster->Levels.push_back(L);
  MeshSpec Mesh;
  Mesh.Name = "M";
  Mesh.Axes = {{"X", 2}};
  Mesh.Cluster = Cluster;
  return std::make_unique<Module>(Info, Mesh, ModuleConfig(),
                                  Module::Stage::Checked);
}

ShardType vec() {
  ShardType T;
  T.Dims.push_back({0, 8, {}});
  return T;
}

/// x; repeat 2 { g = gelu(x); h = g + x }
struct Program {
  std::unique_ptr<Module> M = emptyModule();
  Value *X, *G, *H;
  RepeatOp *R;
  Program() {
    OpBuilder B(*M, M->body());
    X = B.create<InputOp>(Loc{1, 1, 1}, 0, {}, "x", vec())->result();
    R = B.createNoResult<RepeatOp>(Loc{1, 2, 1}, NoStmt, 2);
    B.setInsertionPointToEnd(R->body());
    G = B.create<ElementwiseOp>(Loc{1, 3, 3}, 0, {X}, "g", vec(),
                                ElementwiseFn::gelu)
            ->result();
    H = B.create<ElementwiseOp>(Loc{1, 4, 3}, 0, {G, X}, "h", vec(),
                                ElementwiseFn::add)
            ->result();
  }
};

std::vector<std::string> names(const Module &M, bool Reverse) {
  std::vector<std::string> Out;
  auto F = [&](const Op &O) {
    Out.push_back(O.result() ? O.result()->name() : "repeat");
  };
  Reverse ? walkReverse(M.body(), F) : walk(M.body(), F);
  return Out;
}

TEST(IR, UseListsFollowOperands) {
  Program P;
  EXPECT_EQ(P.X->users().size(), 2u);
  EXPECT_EQ(P.G->users().size(), 1u);
  EXPECT_FALSE(P.H->hasUses());
  EXPECT_EQ(verifyModule(*P.M), "");
}

TEST(IR, ReplaceAllUsesRepointsEveryUse) {
  Program P;
  P.G->replaceAllUsesWith(P.X);
  EXPECT_FALSE(P.G->hasUses());
  EXPECT_EQ(P.X->users().size(), 3u); // g's operand, and h's two
  EXPECT_EQ(P.H->def()->operand(0), P.X);
  EXPECT_EQ(verifyModule(*P.M), "");
  // g is dead now and can go.
  P.R->body().erase(0);
  EXPECT_EQ(P.X->users().size(), 2u);
  EXPECT_EQ(verifyModule(*P.M), "");
}

TEST(IR, WalksGoInAndOutOfRegions) {
  Program P;
  EXPECT_THAT(names(*P.M, false), ElementsAre("x", "repeat", "g", "h"));
  EXPECT_THAT(names(*P.M, true), ElementsAre("h", "g", "repeat", "x"));
  unsigned N = 0;
  walk<ElementwiseOp>(P.M->body(), [&](const ElementwiseOp &) { ++N; });
  EXPECT_EQ(N, 2u);
}

TEST(IR, CloneCopiesOpsRegionsAndLinks) {
  Program P;
  std::unique_ptr<Module> C = cloneModule(*P.M);
  EXPECT_EQ(verifyModule(*C), "");
  std::string A, B;
  llvm::raw_string_ostream OA(A), OB(B);
  printModule(*P.M, OA);
  printModule(*C, OB);
  EXPECT_EQ(A, B);
  // The copy's values are its own.
  const Op &Repeat = *C->body().ops()[1];
  const Op &Add = *Repeat.regions()[0]->ops()[1];
  EXPECT_NE(Add.operand(1), P.X);
  EXPECT_EQ(Add.operand(1), C->body().ops()[0]->result());
}

TEST(IR, PrintedFormNamesLocationsAndAttributes) {
  Program P;
  std::string S;
  llvm::raw_string_ostream OS(S);
  printModule(*P.M, OS);
  EXPECT_EQ(S, "module mesh M = K[X: 2] {  // 2 chips, overlap = true\n"
               "  %x = input : bf16[B]  loc(\"t.shard\":1:1)\n"
               "  repeat 2 {  loc(\"t.shard\":2:1)\n"
               "    %g = elementwise %x \"gelu\" : bf16[B] -> bf16[B]  "
               "loc(\"t.shard\":3:3)\n"
               "    %h = elementwise %g, %x \"add\" : (bf16[B], bf16[B]) -> "
               "bf16[B]  loc(\"t.shard\":4:3)\n"
               "  }\n"
               "}\n");
}

} // namespace
