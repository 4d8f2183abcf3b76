# Included by the top CMakeLists.txt before any library when SHARDC_FUZZ is on:
# every object of shardc is instrumented for libFuzzer's coverage feedback and
# built with ASan and UBSan (any UBSan report is fatal, so the fuzzer records
# it). The grammar library's -fno-char8_t is set in grammar/CMakeLists.txt.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "SHARDC_FUZZ needs clang: configure with "
          "-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14")
endif()
if(SHARDC_SANITIZE)
  message(FATAL_ERROR "SHARDC_FUZZ sets its own sanitizers; "
          "leave SHARDC_SANITIZE empty")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
                    -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_link_options(-fsanitize=address,undefined)
# clang cannot read the ANTLR runtime's headers with libstdc++ 12 as they are;
# fuzz/include/antlr4-runtime.h is found first and works around it.
include_directories(BEFORE ${CMAKE_SOURCE_DIR}/fuzz/include)
