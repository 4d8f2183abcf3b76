# cmake -DGEN_DIR=<the generated sources' folder> -P IncludeParserBase.cmake
# Makes the generated ShardParser derive from shardgen::ShardParserBase
# (ShardParserBase.h says why) instead of antlr4::Parser: its header includes
# the base and names it, its constructor calls it. The ANTLR tool's
# -DsuperClass would do the same to the lexer too, which must stay an
# antlr4::Lexer; the grammar stays free of target code. Each text must occur
# exactly once (else this is another ANTLR version's output: fail), and
# nothing is written unless every one does.
function(replace_exactly_once TextVar File From To)
  string(FIND "${${TextVar}}" "${From}" First)
  string(FIND "${${TextVar}}" "${From}" Last REVERSE)
  if(First EQUAL -1 OR NOT First EQUAL Last)
    message(FATAL_ERROR
            "${File}: '${From}' is not there exactly once; is this ANTLR 4.7.2?")
  endif()
  string(REPLACE "${From}" "${To}" Out "${${TextVar}}")
  set(${TextVar} "${Out}" PARENT_SCOPE)
endfunction()

set(Header "${GEN_DIR}/ShardParser.h")
set(Source "${GEN_DIR}/ShardParser.cpp")
file(READ "${Header}" H)
file(READ "${Source}" S)
replace_exactly_once(H "${Header}" "#include \"antlr4-runtime.h\""
  "#include \"antlr4-runtime.h\"\n#include \"grammar/ShardParserBase.h\"")
replace_exactly_once(H "${Header}" ": public antlr4::Parser {"
  ": public ShardParserBase {")
replace_exactly_once(S "${Source}"
  "ShardParser::ShardParser(TokenStream *input) : Parser(input) {"
  "ShardParser::ShardParser(TokenStream *input) : ShardParserBase(input) {")
file(WRITE "${Header}" "${H}")
file(WRITE "${Source}" "${S}")
