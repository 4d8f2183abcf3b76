//===- Overrides.h - -D and --mesh: the file with other values --*- C++ -*-===//
//
// The command line's edits of a program: `-D NAME=VALUE` sets a dim, a let
// or a train setting of the main file, `--mesh 'AXIS: SIZE, ...'` the sizes
// of the program's mesh. They are applied to the syntax trees before
// checking, as if the values were written in the file, so the compile is
// the edited file's, number for number, and every check runs on them.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_OVERRIDES_H
#define SHARDC_FRONTEND_OVERRIDES_H

#include <optional>
#include <string>
#include <vector>

namespace shardc {
class DiagnosticEngine;
struct Program;

struct Overrides {
  /// `-D` arguments, `NAME=VALUE`, in command-line order (a later one for
  /// the same name wins).
  std::vector<std::string> Defines;
  /// `--mesh`'s `AXIS: SIZE, ...`, if given.
  std::optional<std::string> Mesh;

  bool empty() const { return Defines.empty() && !Mesh; }
};

/// The name the overrides' buffer has in diagnostics.
constexpr const char *CommandLineBufferName = "<command line>";

/// Adds a `<command line>` buffer to the diagnostics' SourceMgr holding \p O,
/// a line each (`-D ARG`, then `--mesh ARG`), and rewrites the loaded
/// program's syntax trees to hold its values, located in that buffer: a
/// problem with a value (Sema's too) points at the command line. Returns
/// false after reporting errors.
bool applyOverrides(const Overrides &O, DiagnosticEngine &Diags, Program &P);

} // namespace shardc

#endif // SHARDC_FRONTEND_OVERRIDES_H
