# cmake -DGEN_DIR=<the generated sources' folder> -P IncludeParserBase.cmake
# Makes the generated ShardParser derive from shardgen::ShardParserBase
# (ShardParserBase.h says why) instead of antlr4::Parser: its header includes
# the base and names it, its constructor calls it. The ANTLR tool's
# -DsuperClass would do the same to the lexer too, which must stay an
# antlr4::Lexer; the grammar stays free of target code. Fails if the
# generated text is not as expected (another ANTLR version).
function(replace_once File From To)
  file(READ "${File}" Text)
  string(FIND "${Text}" "${From}" At)
  if(At EQUAL -1)
    message(FATAL_ERROR "${File}: '${From}' not found; is this ANTLR 4.7.2?")
  endif()
  string(REPLACE "${From}" "${To}" Text "${Text}")
  file(WRITE "${File}" "${Text}")
endfunction()

replace_once("${GEN_DIR}/ShardParser.h" "#include \"antlr4-runtime.h\""
             "#include \"antlr4-runtime.h\"\n#include \"grammar/ShardParserBase.h\"")
replace_once("${GEN_DIR}/ShardParser.h" ": public antlr4::Parser {"
             ": public ShardParserBase {")
replace_once("${GEN_DIR}/ShardParser.cpp"
             "ShardParser::ShardParser(TokenStream *input) : Parser(input) {"
             "ShardParser::ShardParser(TokenStream *input) : ShardParserBase(input) {")
