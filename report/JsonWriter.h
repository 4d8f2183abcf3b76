//===- JsonWriter.h - A fast streaming JSON writer --------------*- C++ -*-===//
//
// The reports' JSON writer: llvm::json::OStream's interface and its exact
// output (the same layout, escapes and `%.17g` numbers, so documents stay
// byte-identical and diffable), several times faster. OStream quotes a
// string a byte at a time and prints every number through snprintf; a
// 30,000-op report holds about a million values. Here strings are copied in
// runs between escapes, an integral double is printed as an integer (what
// `%.17g` prints for one below 1e17), and the other doubles through fmt.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_REPORT_JSONWRITER_H
#define SHARDC_REPORT_JSONWRITER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <type_traits>

namespace shardc {

/// Writes \p V as llvm::json prints a double (`%.17g`).
void writeJsonDouble(llvm::raw_ostream &OS, double V);
/// Writes \p S as a JSON string, escaped as llvm::json escapes it (invalid
/// UTF-8 replaced, as llvm::json::Value does).
void writeJsonString(llvm::raw_ostream &OS, llvm::StringRef S);

/// A streaming JSON writer with llvm::json::OStream's interface and output:
/// IndentSize 0 writes a compact document, otherwise one value per line.
class JsonWriter {
public:
  explicit JsonWriter(llvm::raw_ostream &OS, unsigned IndentSize = 0)
      : OS(OS), IndentSize(IndentSize) {
    Stack.push_back({Context::Singleton, false});
  }

  // Values.
  void value(llvm::StringRef S) {
    valueBegin();
    writeJsonString(OS, S);
  }
  void value(const std::string &S) { value(llvm::StringRef(S)); }
  void value(const char *S) { value(llvm::StringRef(S)); }
  void value(bool B) {
    valueBegin();
    OS << (B ? "true" : "false");
  }
  void value(double D) {
    valueBegin();
    writeJsonDouble(OS, D);
  }
  void value(float D) { value(double(D)); }
  template <typename T>
  std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>
  value(T I) {
    valueBegin();
    OS << int64_t(I);
  }

  void array(llvm::function_ref<void()> Contents) {
    arrayBegin();
    Contents();
    arrayEnd();
  }
  void object(llvm::function_ref<void()> Contents) {
    objectBegin();
    Contents();
    objectEnd();
  }

  // Attributes (within an object).
  template <typename T> void attribute(llvm::StringRef Key, const T &V) {
    attributeBegin(Key);
    value(V);
    attributeEnd();
  }
  void attributeArray(llvm::StringRef Key, llvm::function_ref<void()> C) {
    attributeBegin(Key);
    array(C);
    attributeEnd();
  }
  void attributeObject(llvm::StringRef Key, llvm::function_ref<void()> C) {
    attributeBegin(Key);
    object(C);
    attributeEnd();
  }

  void arrayBegin() { open(Context::Array, '['); }
  void arrayEnd() { close(']'); }
  void objectBegin() { open(Context::Object, '{'); }
  void objectEnd() { close('}'); }
  void attributeBegin(llvm::StringRef Key);
  void attributeEnd() { Stack.pop_back(); }

private:
  enum class Context : uint8_t { Singleton, Array, Object };
  struct Frame {
    Context Ctx;
    bool HasValue;
  };
  void valueBegin();
  /// Starts an array or object (\p C) with \p Bracket; close ends it.
  void open(Context C, char Bracket);
  void close(char Bracket);
  void newline() {
    if (IndentSize) {
      OS << '\n';
      OS.indent(Indent);
    }
  }

  llvm::raw_ostream &OS;
  unsigned IndentSize;
  unsigned Indent = 0;
  llvm::SmallVector<Frame, 16> Stack;
};

} // namespace shardc

#endif
