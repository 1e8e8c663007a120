#!/usr/bin/env bash
# Every relative link and every repository path the documentation names
# exists, so a renamed file or folder cannot leave README.md, BENCHMARKS.md
# or docs/*.md pointing at nothing.
#   doc_links_test.sh <repository root>
#
# Checked, outside fenced code blocks:
#   - markdown links and images, [x](path) and ![x](path), relative to the
#     page (http(s)://, mailto: and pure #anchors are skipped, a #anchor
#     suffix is dropped);
#   - backticked words with a '/' whose first component is a top-level folder
#     of the repository (`bidder/bid/bid_handler.cc`, `loadtest/`); a `*` is
#     a glob, a trailing :LINE or #... is dropped, {a,b} names both, and a
#     <placeholder> stands for a name the reader fills in, so only the part
#     before it must exist; a name abbreviated with ... stands for the names
#     it starts; a program may be named by its source without .cc
#     (`loadtest/bench/http_bench`). Paths under build directories are not
#     the repository's and are not checked.
set -euo pipefail

ROOT=${1:?usage: doc_links_test.sh <repository root>}
cd "$ROOT"

TOP_FOLDERS='bidder|codecs|config|deploy|docs|leases|loadtest|metrics|pacing|pricing|storage|taxonomy|tests|threads|\.ci'
links=0
paths=0
missing=0

report() {  # <page> <line> <what>
  echo "$1:$2: missing: $3" >&2
  missing=$((missing + 1))
}

# One path relative to the repository root, with globs and brace lists.
path_exists() {
  local path=$1 expanded candidate
  path=${path%/}
  [[ -z "$path" ]] && return 0
  if [[ "$path" == *"{"*","*"}"* ]]; then
    # Only safe characters reach the expansion (a path, never a command).
    [[ "$path" =~ ^[A-Za-z0-9_./*{},+-]+$ ]] || return 1
    eval "expanded=($path)"
    for candidate in "${expanded[@]}"; do
      path_exists "$candidate" || return 1
    done
    return 0
  fi
  if [[ "$path" == *"*"* ]]; then
    set +f
    compgen -G "$path" > /dev/null && { set -f; return 0; }
    set -f
    return 1
  else
    [[ -e "$path" ]]
  fi
}

check_link() {  # <page> <line> <target>
  local page=$1 line=$2 target=$3 dir
  case "$target" in
    http://* | https://* | mailto:* | '#'*) return 0 ;;
  esac
  target=${target%%#*}
  target=${target%%\?*}
  links=$((links + 1))
  dir=$(dirname "$page")
  if [[ "$target" == /* ]]; then
    path_exists "${target#/}" || report "$page" "$line" "link ($target)"
  else
    path_exists "$dir/$target" || report "$page" "$line" "link ($target)"
  fi
}

check_path() {  # <page> <line> <word>
  local page=$1 line=$2 word=$3
  word=${word%%#*}
  word=$(sed -E 's/:[0-9]+(-[0-9]+)?$//' <<< "$word")
  # A <placeholder>: the part before it must exist.
  if [[ "$word" == *"<"* ]]; then
    word=${word%%<*}
    word=${word%/*}/
  fi
  paths=$((paths + 1))
  # A program is named by its build target, which is its source without .cc.
  path_exists "$word" || path_exists "$word.cc" || report "$page" "$line" "path ($word)"
}

check_page() {  # <page>
  local page=$1 n=0 fence=0 line rest code word target
  while IFS= read -r line || [[ -n "$line" ]]; do
    n=$((n + 1))
    if [[ "$line" =~ ^[[:space:]]*(\`\`\`|~~~) ]]; then
      fence=$((1 - fence))
      continue
    fi
    ((fence)) && continue
    # Markdown links and images: ](target) or ](target "title").
    rest=$line
    while [[ "$rest" =~ \]\(([^\)[:space:]]+)([[:space:]]+\"[^\"]*\")?\) ]]; do
      target=${BASH_REMATCH[1]}
      check_link "$page" "$n" "$target"
      rest=${rest#*"${BASH_REMATCH[0]}"}
    done
    # Backticked code spans, each word of them.
    rest=$line
    while [[ "$rest" =~ \`([^\`]+)\` ]]; do
      code=${BASH_REMATCH[1]}
      rest=${rest#*"${BASH_REMATCH[0]}"}
      for word in $code; do
        word=${word#[\'\"(]}
        # An abbreviated name (crash-f277166d...) stands for the names it starts.
        if [[ "$word" == *... || "$word" == *… ]]; then
          word=${word%...}
          word=${word%…}*
        fi
        word=${word%[\'\"),;.]}
        if [[ "$word" =~ ^($TOP_FOLDERS)/ ]]; then
          check_path "$page" "$n" "$word"
        fi
      done
    done
  done < "$page"
}

shopt -s nullglob
pages=(README.md BENCHMARKS.md docs/*.md)
set -f  # words of code spans are not globbed by the shell, only by path_exists
for page in "${pages[@]}"; do
  [[ -f "$page" ]] || { report "$page" 0 "page"; continue; }
  check_page "$page"
done

echo "doc_links: $links links and $paths paths checked, $missing missing"
((missing == 0))
