#!/usr/bin/env bash
# Fails on a link between the project's targets that runs upward or sideways
# in tests/repository/module_layers.txt (so also on any cycle), and on a
# library or process of the project that the file does not place.
#
#   module_graph_test.sh SOURCE_DIR
#
# Configures SOURCE_DIR into a temporary directory with `cmake --graphviz`
# (no build) and reads the links from the graph.
set -euo pipefail
source_dir=$1
layers_file=$source_dir/tests/repository/module_layers.txt
work=$(mktemp -d "${TMPDIR:-/tmp}/module-graph.XXXXXX")
trap 'rm -rf "$work"' EXIT

cmake -S "$source_dir" -B "$work/build" -G Ninja --graphviz="$work/graph.dot" >"$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log" >&2; echo "module_graph_test: cmake configure failed" >&2; exit 1; }

# "<from> <to>" for every link, from the comments cmake writes on each edge.
sed -n 's/^ *"node[0-9]*" -> "node[0-9]*".*\/\/ \([^ ]*\) -> \([^ ]*\)$/\1 \2/p' "$work/graph.dot" \
  | sort -u >"$work/links"
# "<target> <kind>" for every target the project defines.
sed -n 's/^ *"node[0-9]*" \[ label = "\([^"]*\)", shape = \([a-z]*\) \];$/\1 \2/p' "$work/graph.dot" \
  | sort -u >"$work/targets"
[[ -s $work/links && -s $work/targets ]] || { echo "module_graph_test: no graph read" >&2; exit 1; }

awk -v layers="$layers_file" '
  BEGIN {
    while ((getline line < layers) > 0) {
      if (line ~ /^#/ || line ~ /^[ \t]*$/) continue
      ++depth
      n = split(line, names, /[ \t]+/)
      for (i = 1; i <= n; ++i) if (names[i] != "") layer[names[i]] = depth
    }
    bad = 0
  }
  FILENAME ~ /targets$/ {
    # The project s own libraries and processes: static libraries (octagon)
    # and executables (egg) that are not tests or benchmarks.
    name = $1; kind = $2
    if ((kind == "octagon" || kind == "egg") && name !~ /::/ &&
        name !~ /(test|_bench|_benchmark|_fuzz)/ &&
        name !~ /^(storage_crash_writer)$/ && !(name in layer)) {
      printf "%s is not placed in tests/repository/module_layers.txt\n", name
      bad = 1
    }
    next
  }
  {
    from = $1; to = $2
    if (!(from in layer) || !(to in layer)) next
    if (layer[to] <= layer[from]) {
      printf "%s links %s, which is not below it in tests/repository/module_layers.txt\n", from, to
      bad = 1
    }
  }
  END { exit bad }
' "$work/targets" "$work/links"
echo "module graph: $(wc -l <"$work/links") links read; the project's own run downward"
