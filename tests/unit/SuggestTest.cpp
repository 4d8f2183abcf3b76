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
  // longest abbreviation wins over 'hbm'.
  EXPECT_THAT(closestName("hbm_bandwidth", {"hbm", "hbm_bw", "hbm_efficiency"}),
              Optional(Eq("hbm_bw")));
  // The other way round: the name abbreviates a candidate.
  EXPECT_THAT(closestName("mm_eff", {"matmul_efficiency", "hbm_efficiency"}),
              Optional(Eq("matmul_efficiency")));
  // A close edit still wins over an abbreviation.
  EXPECT_THAT(closestName("hbm_bx", {"hbm_bw", "hbm_bxyzzy"}),
              Optional(Eq("hbm_bw")));
}

TEST(Suggest, NoAbbreviationOfUnderThreeLettersOrAnotherFirstLetter) {
  EXPECT_EQ(closestName("hidden_size", {"hs", "layers"}), std::nullopt);
  EXPECT_EQ(closestName("bandwidth", {"hbm_bw"}), std::nullopt);
}

} // namespace
