//===- UnitsTest.cpp - Quantities with checked dimensions -----------------===//
#include "frontend/Units.h"
#include "gtest/gtest.h"

using namespace shardc;

namespace {

Quantity q(int64_t V, Dimension D = {}) { return Quantity::ofInt(V, D); }

TEST(Units, LookupScalesToBaseUnits) {
  EXPECT_EQ(lookupUnit("GB", "")->IntScale, 1000000000);
  EXPECT_EQ(lookupUnit("GiB", "")->IntScale, int64_t(1) << 30);
  EXPECT_DOUBLE_EQ(lookupUnit("b", "")->Scale, 0.125); // 8 bit = 1 B
  EXPECT_EQ(lookupUnit("Gb", "")->IntScale, 125000000);
  EXPECT_EQ(lookupUnit("Mi", "")->IntScale, 1048576);
  EXPECT_EQ(lookupUnit("M", "")->IntScale, 1000000);
  EXPECT_DOUBLE_EQ(lookupUnit("us", "")->Scale, 1e-6);
}

TEST(Units, RatesAreAmountsOverTime) {
  auto R = lookupUnit("GB", "s");
  ASSERT_TRUE(R);
  EXPECT_EQ(R->Dim, Dimension::bytesPerSecond());
  EXPECT_EQ(R->IntScale, 1000000000);
  auto F = lookupUnit("TFLOPS", "");
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Dim, Dimension::flopPerSecond());
  EXPECT_EQ(lookupUnit("TFLOP", "s")->IntScale, F->IntScale);
  EXPECT_DOUBLE_EQ(lookupUnit("GB", "ms")->Scale, 1e12);
  EXPECT_FALSE(lookupUnit("GHz", "s")); // not an amount over time
  EXPECT_FALSE(lookupUnit("GB", "layers"));
  EXPECT_FALSE(lookupUnit("parsecs", ""));
}

TEST(Units, DimensionsPrintForMessages) {
  EXPECT_EQ(Dimension::bytesPerSecond().str(), "bytes/second");
  EXPECT_EQ(Dimension::bytes().str(), "bytes");
  EXPECT_EQ(Dimension::count().str(), "a plain number");
  EXPECT_EQ(Dimension::perSecond().str(), "1/second");
  EXPECT_EQ((Dimension::bytes() * Dimension::bytes()).str(), "bytes*bytes");
}

TEST(Units, IntegerArithmeticIsExactAndChecked) {
  Quantity Out;
  EXPECT_EQ(applyOp('*', q(3), q(4), Out), ArithError::None);
  EXPECT_TRUE(Out.IsInt);
  EXPECT_EQ(Out.Int, 12);
  EXPECT_EQ(applyOp('/', q(12), q(4), Out), ArithError::None);
  EXPECT_TRUE(Out.IsInt);
  EXPECT_EQ(Out.Int, 3);
  // Inexact division becomes a double.
  EXPECT_EQ(applyOp('/', q(7), q(2), Out), ArithError::None);
  EXPECT_FALSE(Out.IsInt);
  EXPECT_DOUBLE_EQ(Out.Real, 3.5);
  EXPECT_EQ(applyOp('*', q(int64_t(1) << 62), q(4), Out), ArithError::Overflow);
  EXPECT_EQ(applyOp('+', q(INT64_MAX), q(1), Out), ArithError::Overflow);
  EXPECT_EQ(applyOp('/', q(INT64_MIN), q(-1), Out), ArithError::Overflow);
  EXPECT_EQ(applyOp('/', q(1), q(0), Out), ArithError::DivByZero);
}

TEST(Units, DimensionsMustAgreeForSums) {
  Quantity Out;
  EXPECT_EQ(
      applyOp('+', q(1, Dimension::bytes()), q(1, Dimension::seconds()), Out),
      ArithError::Mismatch);
  EXPECT_EQ(
      applyOp('/', q(8, Dimension::bytes()), q(2, Dimension::seconds()), Out),
      ArithError::None);
  EXPECT_EQ(Out.Dim, Dimension::bytesPerSecond());
}

TEST(Units, RealOverflowIsNotFinite) {
  Quantity Out;
  EXPECT_EQ(applyOp('*', Quantity::ofReal(1e300), Quantity::ofReal(1e300), Out),
            ArithError::NotFinite);
}

TEST(Units, NumberLiterals) {
  bool Ovf = false;
  EXPECT_EQ(parseNumber("1_000_000", Ovf)->Int, 1000000);
  EXPECT_DOUBLE_EQ(parseNumber("3.35", Ovf)->Real, 3.35);
  EXPECT_DOUBLE_EQ(parseNumber("1e-6", Ovf)->Real, 1e-6);
  EXPECT_FALSE(parseNumber("99999999999999999999", Ovf));
  EXPECT_TRUE(Ovf);
  EXPECT_FALSE(parseNumber("1e999", Ovf));
  EXPECT_TRUE(Ovf);
}

} // namespace
