//===- SuggestTest.cpp - "did you mean" picks plausible typos only --------===//
#include "diag/Suggest.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace shardc;
using ::testing::Eq;
using ::testing::Optional;

namespace {

TEST(Suggest, OneLetterNamesGetNoSuggestion) {
  // Every one-letter name is one edit from every other: 'K' for 'B' is noise.
  EXPECT_EQ(closestName("K", {"B", "D", "F"}), std::nullopt);
  EXPECT_EQ(closestName("K", {"KV", "Kx"}), std::nullopt);
  EXPECT_EQ(closestName("x", {"xy", "X1"}), std::nullopt);
}

TEST(Suggest, OneLetterNamesGetTheirOtherCase) {
  EXPECT_THAT(closestName("k", {"B", "K", "D"}), Optional(Eq("K")));
  EXPECT_THAT(closestName("B", {"D", "b"}), Optional(Eq("b")));
}

TEST(Suggest, LongerNamesGetTheClosest) {
  EXPECT_THAT(closestName("Cx", {"C", "D"}), Optional(Eq("C")));
  EXPECT_THAT(closestName("layer", {"heads", "layers"}),
              Optional(Eq("layers")));
  EXPECT_EQ(closestName("hidden_size", {"layers"}), std::nullopt);
}

TEST(Suggest, CaseOnlyDifferenceWinsOverACloserEdit) {
  // 'TFLOPs' is one edit from both; the case-only one is the likelier typo.
  EXPECT_THAT(closestName("TFLOPs", {"TFLOP", "TFLOPS"}),
              Optional(Eq("TFLOPS")));
  EXPECT_THAT(closestName("NVIDIA.shard", {"nvidia.shard", "NVIDIA.shar"}),
              Optional(Eq("nvidia.shard")));
}

TEST(Suggest, TiesGoToTheShorterThenTheFirstName) {
  EXPECT_THAT(closestName("abcd", {"abcde", "abce"}), Optional(Eq("abce")));
  EXPECT_THAT(closestName("abcd", {"abcf", "abce"}), Optional(Eq("abce")));
}

TEST(Suggest, AnAbbreviationWhenNoNameIsAFewEditsAway) {
  // 'hbm_bandwidth' is seven edits from 'hbm_bw', which abbreviates it; the
  // nearest in length wins over 'hbm'.
  EXPECT_THAT(closestNameOrAbbreviation("hbm_bandwidth",
                                        {"hbm", "hbm_bw", "hbm_efficiency"}),
              Optional(Eq("hbm_bw")));
  // The other way round: the name abbreviates a candidate; of two it
  // abbreviates, the nearer in length.
  EXPECT_THAT(closestNameOrAbbreviation(
                  "mm_eff", {"matmul_efficiency", "mm_effective", "hbm_bw"}),
              Optional(Eq("mm_effective")));
  // A close edit still wins over an abbreviation.
  EXPECT_THAT(closestNameOrAbbreviation("hbm_bx", {"hbm_bw", "hbm_bxyzzy"}),
              Optional(Eq("hbm_bw")));
}

TEST(Suggest, NoAbbreviationOfUnderThreeLettersOrAnotherFirstLetter) {
  EXPECT_EQ(closestNameOrAbbreviation("hidden_size", {"hs", "layers"}),
            std::nullopt);
  EXPECT_EQ(closestNameOrAbbreviation("bandwidth", {"hbm_bw"}), std::nullopt);
}

TEST(Suggest, PlainClosestNameTakesNoAbbreviation) {
  // Declared names and keywords: 'chip_count' is not a misspelt 'chip', nor
  // 'act' an 'attn_out_concat'.
  EXPECT_EQ(closestName("chip_count", {"chip", "tensor", "dim"}), std::nullopt);
  EXPECT_EQ(closestName("act", {"attn_out_concat"}), std::nullopt);
}

} // namespace
