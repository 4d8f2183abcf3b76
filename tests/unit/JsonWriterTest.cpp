//===- JsonWriterTest.cpp - JsonWriter writes what llvm::json writes ------===//
//
// The reports' JSON writer promises llvm::json::OStream's exact output (the
// documents stay byte-identical to those written before it): every value
// kind, escapes, invalid UTF-8, layout at both indent sizes, and numbers over
// random bit patterns, compared with OStream's own output.
//
//===----------------------------------------------------------------------===//
#include "report/JsonWriter.h"
#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace shardc;

namespace {

/// Writes the same document with JsonWriter and with llvm::json::OStream.
template <typename Fn> void expectSame(Fn Write, unsigned Indent) {
  std::string Ours, Theirs;
  {
    llvm::raw_string_ostream OS(Ours);
    JsonWriter J(OS, Indent);
    Write(J);
  }
  {
    llvm::raw_string_ostream OS(Theirs);
    llvm::json::OStream J(OS, Indent);
    Write(J);
  }
  EXPECT_EQ(Ours, Theirs);
}

std::string ours(double V) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeJsonDouble(OS, V);
  return OS.str();
}

std::string theirs(double V) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  llvm::json::OStream(OS).value(V);
  return OS.str();
}

TEST(JsonWriterTest, NumbersOverRandomBitPatterns) {
  std::mt19937_64 Rng(20261124);
  for (int I = 0; I < 200000; ++I) {
    uint64_t Bits = Rng();
    double V;
    std::memcpy(&V, &Bits, sizeof V);
    if (!std::isfinite(V))
      continue;
    ASSERT_EQ(ours(V), theirs(V)) << "bits " << Bits;
  }
}

TEST(JsonWriterTest, NumbersAsTheReportsHoldThem) {
  // Integral doubles (byte and FLOP counts) near the 1e17 switch to the
  // exponent, 2^53 and beyond, ratios and small times, signed zeros.
  std::vector<double> Values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                0.5,
                                0.1,
                                1e16,
                                1e17 - 16,
                                1e17,
                                1e17 + 16,
                                123456789012345678.0,
                                9007199254740992.0,
                                9007199254740994.0,
                                -9007199254740994.0,
                                60129542144.0,
                                4.2949672960000004e-05,
                                1e-300,
                                5e-324,
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::lowest()};
  std::mt19937_64 Rng(7);
  for (int I = 0; I < 100000; ++I) {
    Values.push_back(double(Rng() % 100000) / double(1 + Rng() % 1000));
    Values.push_back(std::ldexp(double(Rng() % (1u << 20)), int(Rng() % 80)));
    Values.push_back(-std::ldexp(double(Rng() % 1000), -int(Rng() % 60)));
  }
  for (double V : Values)
    ASSERT_EQ(ours(V), theirs(V)) << V;
}

TEST(JsonWriterTest, StringsEscapedAlike) {
  std::string Every;
  for (int C = 1; C < 128; ++C)
    Every += char(C);
  std::vector<std::string> Strings = {
      "",    "plain",     "a \"quoted\" \\ path", std::string(1, '\0'),
      Every, "µs and μs", "tab\there\nnew\rline", "\x7f\x1f"};
  for (const std::string &S : Strings)
    for (unsigned Indent : {0u, 2u})
      expectSame(
          [&](auto &J) {
            J.object([&] {
              J.attribute(S, S);
              J.attributeArray("list", [&] { J.value(S); });
            });
          },
          Indent);
}

TEST(JsonWriterTest, InvalidUtf8ReplacedAsLlvmJsonDoes) {
  // llvm::json asserts on invalid UTF-8 (then repairs it with fixUTF8);
  // JsonWriter repairs it silently: the same bytes come out.
  for (std::string S : {"bad \xff utf8", "cut \xe2\x82", "\xc0\x80"}) {
    std::string Ours, Theirs;
    llvm::raw_string_ostream A(Ours), B(Theirs);
    writeJsonString(A, S);
    llvm::json::OStream(B).value(llvm::json::fixUTF8(S));
    EXPECT_EQ(A.str(), B.str());
    EXPECT_TRUE(llvm::json::isUTF8(A.str()));
  }
}

TEST(JsonWriterTest, LayoutAlike) {
  auto Doc = [](auto &J) {
    J.object([&] {
      J.attributeArray("empty_array", [] {});
      J.attributeObject("empty_object", [] {});
      J.attribute("bool", true);
      J.attribute("false", false);
      J.attribute("int", int64_t(-42));
      J.attribute("unsigned", 7u);
      J.attribute("size", size_t(1) << 40);
      J.attribute("double", 2.5);
      J.attribute("cstr", "text");
      J.attributeArray("mixed", [&] {
        J.value(1.25);
        J.object([&] { J.attribute("k", 1.0); });
        J.array([&] {
          J.array([] {});
          J.value("x");
        });
        J.object([] {});
      });
      J.attributeBegin("nested");
      J.object([&] {
        J.attributeObject("deeper", [&] {
          J.attributeArray("a", [&] {
            for (int I = 0; I < 3; ++I)
              J.value(int64_t(I));
          });
        });
      });
      J.attributeEnd();
    });
  };
  expectSame(Doc, 0);
  expectSame(Doc, 2);
  expectSame(Doc, 4);
  expectSame([](auto &J) { J.array([&] { J.value(0.0); }); }, 2);
}

} // namespace
