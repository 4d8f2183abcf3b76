//===- Preset.h - A derived preset, as .shard text --------------*- C++ -*-===//
//
// What `shardc calibrate` prints: a chip and/or a cluster derived from a
// stdlib preset (docs/language.md, derived presets), each fitted constant on
// its own line with a comment naming its source and its k-fold error, in
// the layout of stdlib/measured.shard. The text imports measured.shard, so a
// program imports the printed file and uses the presets by name.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_CALIBRATE_PRESET_H
#define SHARDC_CALIBRATE_PRESET_H

#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardc::calibrate {

/// One property line: `Name = Value;` with its comment.
struct Constant {
  Constant(std::string Name, double Value, bool Seconds, std::string Comment,
           std::string Raw = "")
      : Name(std::move(Name)), Value(Value), Seconds(Seconds),
        Comment(std::move(Comment)), Raw(std::move(Raw)) {}
  std::string Name;
  double Value = 0;
  bool Seconds = false; ///< printed in us
  std::string Comment;
  /// Printed instead of `Name = Value;` when given (a `tile` block).
  std::string Raw;
};

/// `chip Name : Base { ... }` or `cluster Name : Base { [chip = ...;]
/// level Level { ... } }`.
struct PresetBlock {
  std::string Name, Base;
  std::vector<std::string> Comments; ///< above the block, one a line
  std::vector<Constant> Constants;
  std::string Chip;  ///< clusters: the derived chip, if any
  std::string Level; ///< clusters: the level the constants are of
};

struct DerivedPreset {
  std::optional<PresetBlock> Chip, Cluster;
};

/// \p V with 4 significant figures, never in exponent notation (the .shard
/// lexer reads plain decimals).
std::string formatPlain(double V);

void printPreset(const DerivedPreset &P, llvm::raw_ostream &OS);

} // namespace shardc::calibrate

#endif // SHARDC_CALIBRATE_PRESET_H
