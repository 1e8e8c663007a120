#!/usr/bin/env python3
"""Fails when a function of the project's C++ is longer than 80 lines.

    function_length_test.py SOURCE_DIR     checks the tracked sources
    function_length_test.py --self-test    checks the parser itself

A function's length runs from its signature's first line to its closing
brace, both counted. Functions named in function_length_allowed.txt may be
longer until someone splits them; an entry whose function is no longer too
long (or no longer exists) fails the check too, so the list only shrinks.

The parser is a small tokenizer, not a compiler: it drops comments, string
and character literals and preprocessor lines, then walks namespace and
class scopes and takes as a function body each brace block whose statement
has a parameter list and no initializer ("= ..."). Brace blocks inside a
body (lambdas, local classes, initializer lists) belong to that body; a
lambda that initializes a variable outside any function is not counted.
"""

import os
import re
import subprocess
import sys
import unittest

MAX_LINES = 80
CHECKED_DIRS = ("bidder", "pacing", "storage", "config", "pricing",
                "taxonomy", "threads", "loadtest", "leases")
SOURCE_SUFFIXES = (".cc", ".h", ".cpp", ".hpp")
ALLOW_LIST = "function_length_allowed.txt"

_PUNCTUATORS = ("::", "->", "<<=", ">>=", "==", "!=", "<=", ">=", "&&", "||",
                "+=", "-=", "*=", "/=", "|=", "&=", "^=", "%=", "++", "--")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z]|[0-9A-Za-z_.])*")
_RAW_STRING_PREFIX = re.compile(r"(?:u8|u|U|L)?R$")


def tokenize(text):
    """Returns (token, line) pairs without comments, literals, directives.

    A string or character literal becomes the single token '""'.
    """
    tokens = []
    i, line, n = 0, 1, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "#" and at_line_start:
            # A directive runs to the end of its line, continuations included.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    line += 1
                    i += 1
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
            continue
        if c == '"' or c == "'":
            start_line = line
            raw = (c == '"' and tokens and tokens[-1][1] == line and
                   _RAW_STRING_PREFIX.search(tokens[-1][0]) and
                   text[i - 1] != " ")
            if raw:
                tokens.pop()
                open_paren = text.index("(", i)
                closing = ")" + text[i + 1:open_paren] + '"'
                end = text.find(closing, open_paren)
                end = n if end < 0 else end + len(closing)
            else:
                end = i + 1
                while end < n and text[end] != c and text[end] != "\n":
                    end += 2 if text[end] == "\\" else 1
                end += 1
            line += text.count("\n", i, min(end, n))
            tokens.append(('""', start_line))
            i = end
            continue
        match = _IDENTIFIER.match(text, i) or _NUMBER.match(text, i)
        if match:
            tokens.append((match.group(0), line))
            i = match.end()
            continue
        for punctuator in _PUNCTUATORS:
            if text.startswith(punctuator, i):
                tokens.append((punctuator, line))
                i += len(punctuator)
                break
        else:
            tokens.append((c, line))
            i += 1
    return tokens


def _matching(tokens, i, open_token, close_token):
    """Index of the token closing the one opened at i."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j][0] == open_token:
            depth += 1
        elif tokens[j][0] == close_token:
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def _skip_template_prefix(statement):
    """The statement without leading `template <...>` and [[attributes]]."""
    k = 0
    while k < len(statement):
        if statement[k][0] == "template" and k + 1 < len(statement) and \
                statement[k + 1][0] == "<":
            depth = 0
            for j in range(k + 1, len(statement)):
                token = statement[j][0]
                depth += token == "<"
                depth -= token == ">"
                if depth == 0:
                    k = j + 1
                    break
            else:
                return []
        elif statement[k][0] == "[" and k + 1 < len(statement) and \
                statement[k + 1][0] == "[":
            k = _matching(statement, k, "[", "]") + 1
        else:
            break
    return statement[k:]


def _function_name(statement):
    """The (qualified) name before the parameter list, e.g. `A::B::f`."""
    words = [token for token, _ in statement]
    for k, word in enumerate(words):
        if word != "(" or k == 0 or words[k - 1] == "operator":
            continue  # not a parameter list, or the name of operator()
        if words[k - 3:k] == ["operator", "(", ")"]:
            j, parts = k - 3, ["operator()"]
        elif k >= 2 and words[k - 2] == "operator":
            j, parts = k - 2, ["operator" + words[k - 1]]
        else:
            j, parts = k - 1, [words[k - 1]]
        if j >= 1 and words[j - 1] == "~":
            j, parts = j - 1, ["~"] + parts
        while j >= 2 and words[j - 1] == "::" and \
                _IDENTIFIER.fullmatch(words[j - 2]):
            j, parts = j - 2, [words[j - 2], "::"] + parts
        return "".join(parts)
    return "?"


def functions(text):
    """Returns (name, first_line, last_line) of each function defined."""
    tokens = tokenize(text)
    found = []
    _walk_scope(tokens, 0, found)
    return found


def _walk_scope(tokens, i, found):
    """Walks a namespace or class scope from i; returns the index after it."""
    statement = []
    paren_depth = 0
    while i < len(tokens):
        token = tokens[i][0]
        if token == "}" and paren_depth == 0:
            return i + 1
        if token == ";" and paren_depth == 0:
            statement = []
            i += 1
            continue
        if token == ":" and paren_depth == 0 and len(statement) == 1 and \
                statement[0][0] in ("public", "private", "protected"):
            statement = []
            i += 1
            continue
        if token == "(":
            paren_depth += 1
        elif token == ")":
            paren_depth -= 1
        if token != "{":
            statement.append(tokens[i])
            i += 1
            continue
        if paren_depth > 0:  # a braced default argument
            end = _matching(tokens, i, "{", "}")
            statement.extend(tokens[i:end + 1])
            i = end + 1
            continue
        i = _on_brace(tokens, i, statement, found)
        if i < 0:  # the brace closed the statement (a body or a scope)
            i = -i
            statement = []
    return i


def _on_brace(tokens, i, statement, found):
    """Handles the `{` at i ending `statement` so far.

    Returns the negated index after a body or scope (the statement is over),
    or the index after an initializer brace (the statement goes on).
    """
    words = [token for token, _ in _skip_template_prefix(statement)]
    if "namespace" in words or words == ["extern", '""']:
        return -_walk_scope(tokens, i + 1, found)
    if words[:1] in (["class"], ["struct"], ["union"]):
        return -_walk_scope(tokens, i + 1, found)
    end = _matching(tokens, i, "{", "}")
    is_function = "(" in words and (
        "operator" in words or "=" not in words[:words.index("(")])
    if is_function and words[:1] != ["enum"]:
        # After `) :` come member initializers; `name{...}` is one of them,
        # the body's brace follows a `)` or a `}`.
        in_initializers = ":" in words
        previous = words[-1] if words else ""
        if in_initializers and previous not in (")", "}"):
            statement.extend(tokens[i:end + 1])
            return end + 1
        signature = _skip_template_prefix(statement)
        found.append((_function_name(signature), signature[0][1],
                      tokens[end][1]))
        return -(end + 1)
    # enum bodies, brace initializers of variables, lambdas in initializers
    statement.extend(tokens[i:end + 1])
    return end + 1


def tracked_sources(source_dir):
    listed = subprocess.run(
        ["git", "-C", source_dir, "ls-files", "-z", "--", *CHECKED_DIRS],
        check=True, capture_output=True, text=True).stdout
    return sorted(path for path in listed.split("\0")
                  if path.endswith(SOURCE_SUFFIXES))


def read_allow_list(path):
    """The allowed long functions as a set of (file, name) pairs."""
    allowed = set()
    with open(path, encoding="utf-8") as allow_list:
        for line in allow_list:
            line = line.split("#", 1)[0].strip()
            if line:
                file, name = line.split()
                allowed.add((file, name))
    return allowed


def check(source_dir):
    allow_list_path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   ALLOW_LIST)
    allowed = read_allow_list(allow_list_path)
    sources = tracked_sources(source_dir)
    if len(sources) < 100:
        print("cannot list the tracked C++ files (git ls-files)",
              file=sys.stderr)
        return 1
    too_long, still_allowed, count = [], set(), 0
    for path in sources:
        with open(os.path.join(source_dir, path), encoding="utf-8") as source:
            text = source.read()
        for name, first, last in functions(text):
            count += 1
            length = last - first + 1
            if length <= MAX_LINES:
                continue
            if (path, name) in allowed:
                still_allowed.add((path, name))
            else:
                too_long.append(f"  {path}:{first} {name}: {length} lines")
    stale = sorted(allowed - still_allowed)
    if too_long:
        print(f"functions longer than {MAX_LINES} lines (split them into "
              "named steps):")
        print("\n".join(too_long))
    if stale:
        print(f"entries of {ALLOW_LIST} that are no longer over "
              f"{MAX_LINES} lines (remove them):")
        print("\n".join(f"  {file} {name}" for file, name in stale))
    if too_long or stale:
        return 1
    print(f"{count} functions in {len(sources)} files, none longer than "
          f"{MAX_LINES} lines but the {len(allowed)} allowed in {ALLOW_LIST}")
    return 0


class ParserTest(unittest.TestCase):

    def lengths(self, text):
        return [(name, last - first + 1) for name, first, last in
                functions(text)]

    def test_free_and_member_functions(self):
        text = ("namespace a::b {\n"
                "int F(int x) {\n"
                "  return x;\n"
                "}\n"
                "void Widget::Draw() const {\n"
                "  if (x) {\n"
                "  }\n"
                "}\n"
                "Widget::~Widget() = default;\n"
                "}  // namespace a::b\n")
        self.assertEqual(self.lengths(text), [("F", 3), ("Widget::Draw", 4)])

    def test_braces_in_strings_comments_and_characters(self):
        text = ('void F() {\n'
                '  auto s = "}{ \\" }";  // } {\n'
                '  /* } */ char c = \'}\';\n'
                '  auto r = R"json({"a": "}"})json";\n'
                '  int n = 1\'000\'000;\n'
                '#define CLOSE }\n'
                '}\n'
                'void G() {}\n')
        self.assertEqual(self.lengths(text), [("F", 7), ("G", 1)])

    def test_lambdas_belong_to_their_function(self):
        text = ("void F() {\n"
                "  auto f = [](int x) {\n"
                "    return [x] { return x; };\n"
                "  };\n"
                "  std::sort(v.begin(), v.end(), [](int a, int b) {\n"
                "    return a < b;\n"
                "  });\n"
                "}\n"
                "const auto kAtNamespace = [](int x) {\n"
                "  return x;\n"
                "};\n")
        self.assertEqual(self.lengths(text), [("F", 8)])

    def test_initializer_lists(self):
        text = ("Widget::Widget(int a, std::vector<int> v)\n"
                "    : a_{a},\n"
                "      v_(std::move(v)),\n"
                "      m_{{1, 2}, {3, 4}},\n"
                "      base_<int>{} {\n"
                "  Init();\n"
                "}\n"
                "const std::array<int, 2> kTable = {{1, 2}};\n"
                "std::vector<int> kList{1, 2, 3};\n"
                "enum class Color : int { kRed, kBlue };\n"
                "void G(Options o = Options{}) {\n"
                "}\n")
        self.assertEqual(self.lengths(text), [("Widget::Widget", 7),
                                              ("G", 2)])

    def test_functions_in_classes_and_templates(self):
        text = ("template <typename T>\n"
                "class Box final : public Base<T> {\n"
                " public:\n"
                "  explicit Box(T t) : t_(t) {}\n"
                "  bool operator==(const Box& o) const { return t_ == o.t_; }\n"
                "  T operator()(int) const {\n"
                "    return t_;\n"
                "  }\n"
                "  auto Get() const -> const T& { return t_; }\n"
                " private:\n"
                "  struct Inner { int Value() { return 1; } };\n"
                "  T t_{};\n"
                "};\n"
                "template <typename T>\n"
                "[[nodiscard]] T Make() noexcept {\n"
                "  return T{};\n"
                "}\n"
                'extern "C" int Entry() { return 0; }\n')
        self.assertEqual(self.lengths(text), [
            ("Box", 1), ("operator==", 1), ("operator()", 3), ("Get", 1),
            ("Value", 1), ("Make", 3), ("Entry", 1)])


def main(argv):
    if argv[1:] == ["--self-test"]:
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(ParserTest)
        result = unittest.TextTestRunner(verbosity=2).run(suite)
        return 0 if result.wasSuccessful() else 1
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    return check(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
