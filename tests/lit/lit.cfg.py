# -*- Python -*-
# The logic of the lit spec tests: which files are tests, where they run, and
# the substitutions RUN lines use. The facts (paths of this build) come from
# the lit.site.cfg.py that CMake configures into build/tests/lit.
import os

import lit.formats

if not hasattr(config, "shardc_obj_root"):
    lit_config.fatal("run lit on the build tree (build/tests/lit), where "
                     "CMake configured lit.site.cfg.py")

config.name = "shardc"
# RUN lines run under bash (lit picks it when present): exit codes are checked
# with `$?`, and inputs that no text file can hold are made with printf.
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".shard", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
# Real paths: shardc names its stdlib by the real path of its binary, and the
# install tests compare that with paths under %t.
config.test_exec_root = os.path.realpath(
    os.path.join(config.shardc_obj_root, "tests", "lit"))

# FileCheck and `not` live in LLVM's tool folder, which Debian keeps off PATH.
config.environment["PATH"] = os.pathsep.join(
    [config.shardc_tools_dir, config.llvm_tools_dir,
     config.environment.get("PATH", "")])
# Diagnostics must not depend on the terminal the suite runs in.
config.environment.pop("TERM", None)
# root reads files whatever their mode: tests of unreadable files need
# `REQUIRES: non-root-user`.
if os.geteuid() != 0:
    config.available_features.add("non-root-user")

# Builds whose driver is linked with mimalloc (CMake's SHARDC_MIMALLOC).
if config.shardc_mimalloc.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("mimalloc")
# Sanitizer builds (CMake's SHARDC_SANITIZE) reserve terabytes of address
# space: a test that limits it (`ulimit -v`) is `UNSUPPORTED: sanitizer`.
if config.shardc_sanitize:
    config.available_features.add("sanitizer")
# The binary's path, for tests that copy it (before %shardc, a prefix of it).
config.substitutions.append(
    ("%shardc-bin", os.path.join(config.shardc_tools_dir, "shardc")))
config.substitutions.append(
    ("%shardc",
     # Every test runs the IR verifier after each pass, whatever the build's
     # default (on only in Debug builds).
     os.path.join(config.shardc_tools_dir, "shardc") + " --verify-each"))
# The build's copy of the stdlib (build/share/shardc/stdlib), which shardc
# finds next to its binary and names by its real path.
config.substitutions.append(
    ("%stdlib", os.path.realpath(config.shardc_stdlib_dir)))
# `cmake --install` of this build, for the tests of an installed shardc.
config.substitutions.append(
    ("%install-shardc",
     "%s --install %s --prefix" % (config.cmake_command,
                                   config.shardc_obj_root)))
config.substitutions.append(
    ("%examples", os.path.join(config.shardc_src_root, "examples")))
config.substitutions.append(("%src-root", config.shardc_src_root))
# The checker of the docs' samples (ctest's doc-samples), on this build.
config.substitutions.append(
    ("%check-samples", "python3 %s --shardc-dir %s" % (
        os.path.join(config.shardc_src_root, "tests/docs/check_samples.py"),
        config.shardc_tools_dir)))
# The JSON report's schema check runs under Debian's python (which has
# python3-jsonschema), not whatever python3 is first on PATH.
config.substitutions.append(
    ("%validate-json",
     "/usr/bin/python3 %s %s" % (
         os.path.join(config.shardc_src_root, "tests/lit/report/validate_json.py"),
         os.path.join(config.shardc_src_root, "docs/report.schema.json"))))
config.excludes.append("validate_json.py")
# A --format=trace timeline against its schema and the program's JSON
# report: `%check-trace REPORT < TRACE`.
config.substitutions.append(
    ("%check-trace",
     "/usr/bin/python3 %s %s" % (
         os.path.join(config.shardc_src_root, "tests/lit/report/check_trace.py"),
         os.path.join(config.shardc_src_root, "docs/trace.schema.json"))))
config.excludes.append("check_trace.py")
# A --format=svg roofline against the program's JSON report (stdlib only):
# `%check-roofline REPORT [--expect NAME I F]... < SVG`.
config.substitutions.append(
    ("%check-roofline",
     "python3 %s" % os.path.join(config.shardc_src_root,
                                 "tests/lit/report/check_roofline.py")))
config.excludes.append("check_roofline.py")
