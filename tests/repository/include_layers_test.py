#!/usr/bin/env python3
"""Fails on an #include that runs against the module layers.

    include_layers_test.py SOURCE_DIR

The linker catches a call into a library on a higher layer, but not an
include of its header for an inline function, a type or a constant: the
build would pass with an arrow the module graph forbids. This reads every
project C++ file (tests and benchmarks aside, as module_layers.txt allows
them anything), finds the target that owns it from the CMakeLists.txt
source lists, and checks each project include:

  - the included header belongs to the same target or to one on a lower
    line of tests/repository/module_layers.txt;
  - a header under an `internal/` folder is included only from within the
    module folder that holds it (its own target, or a sibling library of
    the same folder).

A header belongs to the target that compiles the .cc of the same name
beside it; otherwise to the one library that compiles sources in its folder
(for an `internal/` folder, in the folder above).

Run with --self-test to check the parsing on built-in examples.
"""

import os
import re
import sys

SOURCE_ROOTS = ("bidder", "codecs", "config", "leases", "loadtest", "pacing", "pricing", "storage", "taxonomy", "threads")
SKIPPED_DIRS = ("loadtest/bench",)
TARGET_CALL = re.compile(r"\b(add_library|add_executable)\s*\(\s*([A-Za-z0-9_.+-]+)([^)]*)\)", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_layers(path):
    layers = {}
    depth = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            depth += 1
            for name in line.split():
                layers[name] = depth  # 1 is the top
    return layers


def parse_targets(cmake_text, directory):
    """(name, kind, [source paths relative to the root]) of each target."""
    targets = []
    for kind, name, body in TARGET_CALL.findall(cmake_text):
        body = re.sub(r"#[^\n]*", "", body)
        sources = []
        for word in body.split():
            if word.endswith(".cc"):
                sources.append(os.path.normpath(os.path.join(directory, word)))
        targets.append((name, "library" if kind == "add_library" else "executable", sources))
    return targets


def owners(root):
    """Maps each .cc to its target, and each folder to the libraries compiling in it."""
    source_owner = {}
    folder_libraries = {}
    for top in SOURCE_ROOTS:
        for directory, _, files in os.walk(os.path.join(root, top)):
            if "CMakeLists.txt" not in files:
                continue
            relative = os.path.relpath(directory, root)
            with open(os.path.join(directory, "CMakeLists.txt"), encoding="utf-8") as f:
                text = f.read()
            for name, kind, sources in parse_targets(text, relative):
                for source in sources:
                    source_owner[source] = name
                    if kind == "library":
                        folder_libraries.setdefault(os.path.dirname(source), set()).add(name)
    return source_owner, folder_libraries


def owner_of(path, source_owner, folder_libraries):
    if path in source_owner:
        return source_owner[path]
    stem, _ = os.path.splitext(path)
    if stem + ".cc" in source_owner:
        return source_owner[stem + ".cc"]
    folder = os.path.dirname(path)
    while folder:
        libraries = folder_libraries.get(folder, set())
        if len(libraries) == 1:
            return next(iter(libraries))
        if os.path.basename(folder) != "internal":
            return None
        folder = os.path.dirname(folder)
    return None


def internal_folder(path):
    """The folder holding the `internal/` part of path, or None."""
    parts = path.split("/")
    if "internal" not in parts[:-1]:
        return None
    return "/".join(parts[: parts.index("internal")])


def module_folder(path):
    """The module folder of a file: its folder, above any `internal/` part."""
    return internal_folder(path) or os.path.dirname(path)


def problems(root):
    layers = read_layers(os.path.join(root, "tests/repository/module_layers.txt"))
    source_owner, folder_libraries = owners(root)
    found = []
    for top in SOURCE_ROOTS:
        for directory, _, files in os.walk(os.path.join(root, top)):
            relative_dir = os.path.relpath(directory, root)
            if any(relative_dir == d or relative_dir.startswith(d + "/") for d in SKIPPED_DIRS):
                continue
            for file in sorted(files):
                if not file.endswith((".cc", ".h")):
                    continue
                path = os.path.join(relative_dir, file)
                target = owner_of(path, source_owner, folder_libraries)
                if target is None:
                    continue  # generated or build helper files no target compiles
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    text = f.read()
                for included in INCLUDE.findall(text):
                    if included.split("/")[0] not in SOURCE_ROOTS:
                        continue  # third-party or generated
                    if not os.path.exists(os.path.join(root, included)):
                        continue  # generated into the build directory
                    found.extend(check(path, target, included, layers, source_owner, folder_libraries))
    return found


def check(path, target, included, layers, source_owner, folder_libraries):
    their = owner_of(included, source_owner, folder_libraries)
    if their is None or their == target:
        return []
    inside = internal_folder(included)
    if inside is not None and module_folder(path) != inside:
        return [f"{path} ({target}) includes {included}, internal to {their}"]
    if target not in layers or their not in layers:
        missing = target if target not in layers else their
        return [f"{path}: target {missing} is not in tests/repository/module_layers.txt"]
    if layers[their] <= layers[target]:
        return [f"{path} ({target}) includes {included} of {their}, which is not on a lower layer"]
    return []


def self_test():
    cmake = """
add_library(lib_a
  a.cc  # comment with b.cc
  internal/x.cc
)
add_executable(tool main.cc)
"""
    targets = parse_targets(cmake, "mod")
    assert targets == [("lib_a", "library", ["mod/a.cc", "mod/internal/x.cc"]),
                       ("tool", "executable", ["mod/main.cc"])], targets
    source_owner = {"mod/a.cc": "lib_a", "mod/internal/x.cc": "lib_a", "mod/main.cc": "tool",
                    "low/b.cc": "lib_b", "top/t.cc": "lib_t"}
    folder_libraries = {"mod": {"lib_a"}, "mod/internal": {"lib_a"}, "low": {"lib_b"}, "top": {"lib_t"}}
    assert owner_of("mod/a.h", source_owner, folder_libraries) == "lib_a"
    assert owner_of("mod/internal/y.h", source_owner, folder_libraries) == "lib_a"
    assert owner_of("mod/other.h", source_owner, folder_libraries) == "lib_a"
    assert internal_folder("mod/internal/y.h") == "mod"
    assert internal_folder("mod/a.h") is None
    layers = {"tool": 1, "lib_t": 2, "lib_a": 3, "lib_b": 4}
    ok = check("mod/a.cc", "lib_a", "low/b.h", layers, source_owner, folder_libraries)
    assert ok == [], ok
    upward = check("mod/a.cc", "lib_a", "top/t.h", layers, source_owner, folder_libraries)
    assert len(upward) == 1 and "not on a lower layer" in upward[0], upward
    internal = check("top/t.cc", "lib_t", "mod/internal/y.h", layers, source_owner, folder_libraries)
    assert len(internal) == 1 and "internal to lib_a" in internal[0], internal
    own = check("mod/a.cc", "lib_a", "mod/internal/y.h", layers, source_owner, folder_libraries)
    assert own == [], own
    sibling = check("mod/main.cc", "tool", "mod/internal/y.h", layers, source_owner, folder_libraries)
    assert sibling == [], sibling
    source_owner["mod/sub/s.cc"] = "tool"
    below = check("mod/sub/s.cc", "tool", "mod/internal/y.h", layers, source_owner, folder_libraries)
    assert len(below) == 1 and "internal to lib_a" in below[0], below
    assert INCLUDE.findall('#include "a/b.h"\n  #  include "c.h"\n#include <d.h>\n') == ["a/b.h", "c.h"]
    print("include_layers_test: self-test passed")


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        self_test()
        return 0
    if len(sys.argv) != 2:
        print("usage: include_layers_test.py SOURCE_DIR | --self-test", file=sys.stderr)
        return 2
    found = problems(sys.argv[1])
    for line in found:
        print(line)
    if found:
        print(f"include_layers_test: {len(found)} include(s) against the layers", file=sys.stderr)
        return 1
    print("include_layers_test: every project include runs downward")
    return 0


if __name__ == "__main__":
    sys.exit(main())
