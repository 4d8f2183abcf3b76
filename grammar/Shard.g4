// The surface syntax of `.shard` files (LANGUAGE.md v0.2: v0.1, §7's
// `param` and `train`, §8's builtin options, §9's `repeat ... over`, §10's derived presets;
// SEARCH.md v0.3's layout search: `?` sizes, `search { }`, `per step`;
// INFERENCE.md v0.3's serving: `cache`, `serve { }`).
//
// The grammar is deliberately permissive where a precise diagnostic is more
// useful than a syntax error: unit names, property names, dtype names, mesh
// axis subscripts and what may appear inside `repeat` are all plain
// identifiers here and are checked by the frontend, which can say "did you
// mean". Only the shape of the program is fixed here.
grammar Shard;

file : item* EOF ;

item
  : importDecl
  | chipDecl
  | clusterDecl
  | meshDecl
  | dimDecl
  | letDecl
  | configDecl
  | tensorDecl
  | paramDecl
  | cacheDecl
  | trainDecl
  | serveDecl
  | searchDecl
  | repeatStmt
  | assignStmt
  ;

importDecl  : IMPORT STRING ';' ;
// `chip NEW : BASE { ... }` copies BASE and overrides what it writes
// (LANGUAGE.md §10); so does a cluster, level by level.
chipDecl    : CHIP ID (':' ID)? '{' chipMember* '}' ;
// A property, or a GEMM tile class `tile t128x128 { m = 128; ... }`. The
// two share their first word so the parser decides on one token (a
// two-token decision would make recovery from a bad property leave the
// chip); the frontend checks that a block's word is `tile`, so `tile` stays
// a name a program may use.
chipMember  : propName ('=' expr ';' | ID '{' property* '}') ;
clusterDecl : CLUSTER ID (':' ID)? '{' (property | levelDecl)* '}' ;
levelDecl   : LEVEL ID '{' property* '}' ;
configDecl  : CONFIG '{' property* '}' ;
property    : propName '=' expr ';' ;
// In `train` and `search` a setting may be searched: `zero in {0, 1};`,
// `recompute = ?;`, `chips <= 64;` (the word `in` is checked by the
// frontend). Only these blocks take the forms, so a misspelt keyword
// elsewhere (`levl node { ... }`) still reads as one.
searchProperty : propName ( '=' expr | '=' '?' | '<=' expr | ID searchSet ) ';' ;
// `{1, 2, 4}` or the inclusive range `1..8`.
searchSet   : '{' expr (',' expr)* '}' | expr '..' expr ;
// Keywords are valid property names: a cluster has `chip = H100;` and a
// config `mesh = M;`.
propName    : word ('.' word)* ;
word        : ID | IMPORT | CHIP | CLUSTER | LEVEL | MESH | DIM | LET | TENSOR
            | REPEAT | CONFIG | PARAM | TRAIN | OVER | SEARCH | CACHE | SERVE ;

meshDecl    : MESH ID '=' ID '[' meshAxis (',' meshAxis)* ']' ';' ;
// A size is a number, `?` (searched) or `? in SET`.
meshAxis    : ID ':' ( expr | '?' (ID searchSet)? ) ;
dimDecl     : DIM binding (',' binding)* ';' ;
letDecl     : LET binding (',' binding)* ';' ;
// `dim B = 1024 per step;`: the two words are checked by the frontend.
binding     : ID '=' expr (ID ID)? ;

tensorDecl  : TENSOR ID ':' tensorType ';' ;
// `param W : bf16[E, F_T] state [E_D, F_T];`: the word before the explicit
// state sharding is checked by the frontend (it must be `state`).
paramDecl   : PARAM ID ':' tensorType (ID '[' indexList ']')? ';' ;
// `cache kc : fp8[B, S, K_T, H];`: a KV cache, resident like a param.
cacheDecl   : CACHE ID ':' tensorType ';' ;
trainDecl   : TRAIN '{' searchProperty* '}' ;
// `serve { prompt = 7680; batch = [1, 8, 64]; speculate { tokens = 4; } }`:
// a value is an expr, a list `[a, b]` or a range `a .. b` (`1 .. max`); the
// nested block shares the member's first word, as a chip's tile does.
serveDecl   : SERVE '{' serveMember* '}' ;
serveMember : propName ('=' serveValue ';' | '{' property* '}') ;
serveValue  : '[' expr (',' expr)* ']' | expr '..' expr | expr ;
searchDecl  : SEARCH '{' searchProperty* '}' ;
// `bf16[I_X, J]{U_Y}`; an index is `I`, `I_XY` or `I_{a,b}` (ID then braces).
tensorType  : ID '[' indexList ']' unreduced? ;
indexList   : index (',' index)* ;
index       : ID axisSet? ;
axisSet     : '{' ID (',' ID)* '}' ;
unreduced   : '{' index (',' index)* '}' ;

// `repeat 80 over P { ... }`: a pipeline over mesh axis P (LANGUAGE.md §9);
// `repeat 80 over P [19, 21, 21, 19] { ... }` gives each stage's iterations.
repeatStmt  : REPEAT expr (OVER ID stageSplit?)? '{' item* '}' ;
stageSplit  : '[' expr (',' expr)* ']' ;

assignStmt  : lhs '=' rhs ';' ;
lhs         : ID ':' tensorType                 # typedLhs
            | ID '[' indexList ']' unreduced?   # indexedLhs
            ;
rhs         : operand op=('*' | '+' | '-') operand  # binaryRhs
            | ( operand op=('*' | '/') NUMBER
              | NUMBER op='*' operand )             # scaleRhs
            | ID '(' operand (',' operand)* callOptions? ')'  # callRhs
            | operand                               # copyRhs
            ;
operand     : ID ('[' indexList ']' unreduced?)? ;
// A builtin's options (LANGUAGE.md §8): `attention(q, k, v; causal = true)`.
callOptions : ';' callOption (',' callOption)* ;
callOption  : word '=' expr ;

// Earlier alternatives bind tighter.
expr        : '-' expr                           # negExpr
            | expr op=('*' | '/') expr           # mulExpr
            | expr op=('+' | '-') expr           # addExpr
            | '(' expr ')'                       # parenExpr
            | NUMBER (unit=(ID | MICRO_UNIT)
                      ('/' per=(ID | MICRO_UNIT))?)?  # numberExpr
            | ID                                 # nameExpr
            ;

IMPORT  : 'import' ;
CHIP    : 'chip' ;
CLUSTER : 'cluster' ;
LEVEL   : 'level' ;
MESH    : 'mesh' ;
DIM     : 'dim' ;
LET     : 'let' ;
TENSOR  : 'tensor' ;
REPEAT  : 'repeat' ;
CONFIG  : 'config' ;
PARAM   : 'param' ;
TRAIN   : 'train' ;
OVER    : 'over' ;
SEARCH  : 'search' ;
CACHE   : 'cache' ;
SERVE   : 'serve' ;

ID      : [A-Za-z_] [A-Za-z0-9_]* ;
// A word that starts with the micro sign (U+00B5, which the report prints in
// `µs`) or the Greek mu (U+03BC, which looks the same): only a unit can be
// one, and the frontend reads `µs` and `μs` as `us`. Other such words reach
// the unit check, which names them (`unknown unit 'µm'`).
MICRO_UNIT : [\u00B5\u03BC] [A-Za-z0-9_]* ;
// A count suffix (`2M`, `1Mi`) or unit (`80GB`) written without a space lexes
// as the ID that follows the number; the frontend interprets it.
NUMBER  : [0-9] [0-9_]* ('.' [0-9] [0-9_]*)? ([eE] [+-]? [0-9]+)? ;
STRING  : '"' ~["\\\r\n]* '"' ;

LINE_COMMENT  : '//' ~[\r\n]* -> channel(HIDDEN) ;
// An unterminated block comment runs to the end of the file; the frontend
// reports it (its text lacks the closing `*/`).
BLOCK_COMMENT : '/*' .*? ('*/' | EOF) -> channel(HIDDEN) ;
WS            : [ \t\r\n\f]+ -> skip ;

LBRACE : '{' ; RBRACE : '}' ; LBRACK : '[' ; RBRACK : ']' ;
LPAREN : '(' ; RPAREN : ')' ; SEMI : ';' ; COMMA : ',' ; COLON : ':' ;
DOT : '.' ; EQ : '=' ; STAR : '*' ; SLASH : '/' ; PLUS : '+' ; MINUS : '-' ;
QUESTION : '?' ; DOTDOT : '..' ; LE : '<=' ;
// Anything else becomes one token that the frontend reports as an invalid
// character, so the lexer itself never fails.
UNKNOWN_CHAR : . ;
