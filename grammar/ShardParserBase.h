//===- ShardParserBase.h - The generated parser's base class ----*- C++ -*-===//
//
// The generated ShardParser derives from this class rather than from
// antlr4::Parser directly (IncludeParserBase.cmake edits the generated files;
// the grammar is unchanged). It replaces the two
// calls every rule makes on entry and exit with the same code less their
// `dynamic_cast`: the 4.9 runtime casts the parent context on each, and a
// cast across the runtime's shared library compares type names with strcmp
// (about 5% of a large compile, bench/README.md). Later runtimes made the
// same change (a static downCast). Every context of this parser is a
// ParserRuleContext, so the static cast is exact. (The rarer paths keep the
// runtime's casts: `expr`, a left-recursive rule, exits through
// unrollRecursionContexts, and labelled alternatives go through
// enterOuterAlt.)
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_GRAMMAR_SHARDPARSERBASE_H
#define SHARDC_GRAMMAR_SHARDPARSERBASE_H

#include "antlr4-runtime.h"

namespace shardgen {

class ShardParserBase : public antlr4::Parser {
public:
  explicit ShardParserBase(antlr4::TokenStream *Input)
      : antlr4::Parser(Input) {}

  /// antlr4::Parser::exitRule (4.9), which the generated rules call
  /// unqualified, so this one hides it.
  void exitRule() {
    _ctx->stop = _matchedEOF ? _input->LT(1) : _input->LT(-1);
    if (!_parseListeners.empty())
      triggerExitRuleEvent();
    setState(_ctx->invokingState);
    _ctx = static_cast<antlr4::ParserRuleContext *>(_ctx->parent);
  }

protected:
  /// antlr4::Parser::addContextToParseTree (4.9), called by enterRule.
  void addContextToParseTree() override {
    if (_ctx->parent)
      static_cast<antlr4::ParserRuleContext *>(_ctx->parent)->addChild(_ctx);
  }
};

} // namespace shardgen

#endif // SHARDC_GRAMMAR_SHARDPARSERBASE_H
