//===- ProgramGenerator.h - Random .shard programs --------------*- C++ -*-===//
//
// Generates `.shard` programs that are mostly correct, so that the deep
// passes (insert-collectives, placement, costs) run on them: a random chip,
// a cluster of 1-3 levels, a mesh of 1-4 axes that fits it, dims that are
// mostly divisible by the mesh, tensors with random shardings (multi-axis
// subscripts, braced axis sets, `{U_..}`), and contractions, elementwise ops,
// reshards and `repeat` blocks over the tensors that exist, written with
// their current shardings. A small share of choices is deliberately wrong
// (a stale operand sharding, a dim that does not divide) so the error paths
// after a mostly-valid prefix run too.
//
// Every choice comes from a Chooser: a seeded SplitMix64 for the property
// tests (tests/unit/PropertyTest.cpp), or the fuzzer's bytes
// (tests/support/FuzzedChooser.h, fuzz/FuzzStructured.cpp). The program is
// first built as a GenProgram, whose hardware and sizes the property tests
// edit (double an axis, double every bandwidth) before rendering it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_SUPPORT_PROGRAMGENERATOR_H
#define SHARDC_TESTS_SUPPORT_PROGRAMGENERATOR_H

#include <cstdint>
#include <string>
#include <vector>

namespace shardc::testgen {

/// Where the generator's choices come from.
class Chooser {
public:
  virtual ~Chooser() = default;
  /// A value in [Lo, Hi], both inclusive; Lo <= Hi.
  virtual uint64_t between(uint64_t Lo, uint64_t Hi) = 0;
  /// True with probability \p Percent / 100.
  bool percent(unsigned Percent) { return between(0, 99) < Percent; }
  /// An index into a collection of \p N > 0 elements.
  size_t index(size_t N) { return size_t(between(0, N - 1)); }
};

/// A small deterministic RNG (SplitMix64): the same seed gives the same
/// program on every platform and standard library.
class SplitMix64 final : public Chooser {
public:
  explicit SplitMix64(uint64_t Seed) : State(Seed) {}
  uint64_t next();
  uint64_t between(uint64_t Lo, uint64_t Hi) override;

private:
  uint64_t State;
};

struct GeneratorOptions {
  unsigned MaxLevels = 3; ///< cluster levels, 1..MaxLevels
  unsigned MaxAxes = 4;   ///< mesh axes, 1..MaxAxes
  unsigned MaxDims = 5;   ///< declared dims, 2..MaxDims
  unsigned MaxItems = 14; ///< tensors and statements at the top level
  unsigned MaxRepeatDepth = 2;
  /// Share of deliberately wrong choices, in percent.
  unsigned WrongPercent = 4;
  /// Random per-level latency; off makes every collective's time pure
  /// bandwidth.
  bool Latency = true;
  /// Every dim a multiple of twice the mesh's chips, and no padding: any
  /// sharding divides, also after one axis is doubled.
  bool Divisible = false;
};

/// A bandwidth as written: `Value Unit`, e.g. 450 GB/s.
struct GenBandwidth {
  double Value = 0; ///< 0: not given
  std::string Unit;
};

struct GenLevel {
  std::string Name;
  int64_t Size = 1;
  GenBandwidth Uplink, Bw;
  bool InNetworkReduction = false;
  unsigned LatencyNs = 0;
  unsigned EfficiencyPct = 100;
  /// Two protocols (docs/cost-model.md §3) when BulkLatencyNs > 0: the
  /// small-message one at SmallEfficiencyPct, below every EfficiencyPct,
  /// and a bulk latency above LatencyNs, so neither is dominated.
  unsigned BulkLatencyNs = 0;
  unsigned SmallEfficiencyPct = 0;
};

struct GenNamed {
  std::string Name;
  int64_t Size = 1;
};

/// A generated program before rendering. The body refers to axes and dims
/// by name only, so sizes and bandwidths can be edited afterwards.
struct GenProgram {
  int64_t HbmGB = 80;
  GenBandwidth HbmBw;
  std::vector<GenNamed> Flops;       ///< dtype, TFLOP/s
  std::vector<GenNamed> VectorFlops; ///< dtype, TFLOP/s
  std::vector<GenLevel> Levels;
  std::vector<GenNamed> Axes;
  std::vector<GenNamed> Dims;
  bool Overlap = true;
  bool AllowPadding = false;
  std::vector<std::string> Body; ///< tensors and statements, one per line

  int64_t meshChips() const;
  int64_t clusterChips() const;
  std::string render() const;
};

GenProgram generateStructure(Chooser &C, const GeneratorOptions &O = {});
std::string generateProgram(Chooser &C, const GeneratorOptions &O = {});
std::string generateProgram(uint64_t Seed, const GeneratorOptions &O = {});

} // namespace shardc::testgen

#endif // SHARDC_TESTS_SUPPORT_PROGRAMGENERATOR_H
